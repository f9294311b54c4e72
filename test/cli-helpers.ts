/** Helpers for the CLI tests: run bin/pbdkit.js as a user would, in temporary folders. */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
export const bin = join(root, 'bin', 'pbdkit.js');
export const fixtures = join(root, 'test', 'fixtures', 'cli');
export const scenes = join(root, 'scenes');

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const env = { ...process.env, PBDKIT_DEBUG: '', FORCE_COLOR: '0' };

/** Runs `pbdkit <args>` to completion. */
export function pbdkit(args: string[], cwd = root): Run {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd, encoding: 'utf8', env });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/** Runs `pbdkit simulate <scene> --frames <frames> --out <out> <extra…>` to completion. */
export function simulate(scene: string, frames: number, out: string, ...extra: string[]): Run {
  return pbdkit(['simulate', scene, '--frames', String(frames), '--out', out, ...extra]);
}

/** Starts `pbdkit <args>` in the background. */
export function startPbdkit(args: string[], cwd = root): { child: ChildProcess; done: Promise<Run> } {
  const child = spawn(process.execPath, [bin, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => (stdout += d));
  child.stderr?.on('data', (d) => (stderr += d));
  const done = new Promise<Run>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done };
}

/** A fresh temporary folder, and a function that removes it. */
export function tempDir(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'pbdkit-cli-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Lines that look like a JavaScript stack trace. */
export function stackLines(text: string): string[] {
  return text.split('\n').filter((l) => /^\s+at .+[:(]/.test(l));
}

/** Runs the CLI in this process (cli/main.ts from source) and captures what it prints. */
export async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { main } = await import('../cli/main.js');
  let stdout = '';
  let stderr = '';
  const code = await main(['node', 'pbdkit', ...args], {
    out: (t) => (stdout += t),
    err: (t) => (stderr += t),
    isTTY: false,
    debug: false,
    argv: [],
    exitCode: 0,
  });
  return { code, stdout, stderr };
}
