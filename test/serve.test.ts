/** `npm start` (web/serve.ts): a port already in use fails at once, with exit code 2 and a hint of --port. */
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from './cli-helpers.js';

describe('npm start', () => {
  it('a port in use: exit 2, and the message names the port and suggests --port', async () => {
    const holder = createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', () => r()));
    const port = (holder.address() as { port: number }).port;
    try {
      const tsx = join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');
      const r = spawnSync(process.execPath, [tsx, join(root, 'web', 'serve.ts'), '--port', String(port)], {
        cwd: root,
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(r.stderr).toMatch(/fix: npm start -- --port \d+/);
      // it failed before building anything
      expect(r.stdout).not.toMatch(/building/);
    } finally {
      holder.close();
    }
  });
});
