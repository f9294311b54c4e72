/**
 * `npm start`: builds the gallery and serves it (with the cross-origin
 * isolation headers the simulation worker needs), then prints its URL.
 *
 *   npm start                        http://127.0.0.1:5173/
 *   npm start -- --port 8080         another port (or PORT=8080 npm start)
 *   npm start -- --host 0.0.0.0      listen beyond loopback (only when asked)
 *   npm start -- --dev               Vite's dev server with hot reload instead of a build
 */
import { createServer as createNetServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build, createServer, preview } from 'vite';

const configFile = fileURLToPath(new URL('./vite.config.ts', import.meta.url));

const { values } = parseArgs({
  options: {
    port: { type: 'string', short: 'p' },
    host: { type: 'string' },
    dev: { type: 'boolean', default: false },
    open: { type: 'boolean', default: false },
  },
});

const portText = values.port ?? process.env.PORT ?? '5173';
const port = Number(portText);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`pbdkit gallery: --port must be an integer in 0…65535, got '${portText}'`);
  process.exit(2);
}
const host = values.host ?? '127.0.0.1';

/** Fails at once (before the build) when the port is taken, with EADDRINUSE. */
function checkPortFree(): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

async function main(): Promise<void> {
  await checkPortFree();
  let urls: string[];
  if (values.dev) {
    const server = await createServer({
      configFile,
      server: { port, host, strictPort: true, open: values.open },
    });
    await server.listen();
    urls = server.resolvedUrls?.local.concat(server.resolvedUrls.network) ?? [];
  } else {
    console.log('pbdkit gallery: building the static site into dist/ …');
    await build({ configFile, logLevel: 'warn' });
    const server = await preview({
      configFile,
      preview: { port, host, strictPort: true, open: values.open },
    });
    urls = server.resolvedUrls?.local.concat(server.resolvedUrls.network) ?? [];
  }
  console.log('');
  console.log(`pbdkit gallery is running at ${urls[0] ?? `http://${host}:${port}/`}`);
  for (const u of urls.slice(1)) console.log(`                        also at ${u}`);
  console.log('Press Ctrl-C to stop. (The headless bake: npx pbdkit simulate scenes/cloth-drape.json …)');
}

main().catch((e) => {
  const err = e as NodeJS.ErrnoException;
  if (err.code === 'EADDRINUSE' || /port \d+ is already in use/i.test(err.message)) {
    // another server (or another gallery) holds the port: say how to pick another
    const other = port === 8080 ? 8081 : 8080;
    console.error(`pbdkit gallery: port ${port} on ${host} is already in use`);
    console.error(`  fix: npm start -- --port ${other}   (or PORT=${other} npm start)`);
    process.exit(2);
  }
  console.error(`pbdkit gallery: ${err.message}`);
  process.exit(1);
});
