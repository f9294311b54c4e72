/**
 * vitest globalSetup: builds lib/ once (tsc -p tsconfig.build.json) so that
 * the CLI tests run `node bin/pbdkit.js` exactly as a user's `npx pbdkit` does.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const r = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`building lib/ for the CLI tests failed:\n${r.stdout}${r.stderr}`);
}
