/**
 * Global set-up of the browser tests: makes sure Debian's Chromium is
 * installed (scripts/ensure-chromium.sh installs it with apt-get when it is
 * missing; no browser is ever downloaded by npm), builds the gallery into a
 * temporary folder and serves it twice on loopback: with the cross-origin
 * isolation headers (Vite's preview server, as `npm start` does) and without
 * them (a plain static server, to test the main-thread fallback).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, preview } from 'vite';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    galleryUrl: string;
    plainUrl: string;
  }
}

const repo = fileURLToPath(new URL('../..', import.meta.url));
const configFile = join(repo, 'web/vite.config.ts');

const types: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

function plainServer(root: string): Promise<Server> {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(
      /^(\.\.[/\\])+/,
      '',
    );
    let file = join(root, path);
    try {
      if (statSync(file).isDirectory()) file = join(file, 'index.html');
      const body = readFileSync(file);
      res.writeHead(200, { 'Content-Type': types[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

export default async function setup(project: TestProject) {
  execFileSync('bash', [join(repo, 'scripts/ensure-chromium.sh')], { stdio: 'inherit' });
  const outDir = mkdtempSync(join(tmpdir(), 'pbdkit-gallery-'));
  await build({ configFile, logLevel: 'error', build: { outDir, emptyOutDir: true } });
  const server = await preview({
    configFile,
    logLevel: 'error',
    build: { outDir },
    preview: { host: '127.0.0.1', port: 0, strictPort: false, open: false },
  });
  const address = server.httpServer.address() as AddressInfo;
  project.provide('galleryUrl', `http://127.0.0.1:${address.port}/`);
  const plain = await plainServer(outDir);
  project.provide('plainUrl', `http://127.0.0.1:${(plain.address() as AddressInfo).port}/`);
  return async () => {
    await server.close();
    await new Promise((r) => plain.close(r));
    rmSync(outDir, { recursive: true, force: true });
  };
}
