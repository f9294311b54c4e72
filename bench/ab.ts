/**
 * Two builds of pbdkit against each other in one process, on any case of `npm run bench`
 * (session 23): the same-process A/B that the docs' speed rounds cite.
 *
 *   node lib/bench/ab.js --lib <libA>,<libB> --case <bench case> [--threads 1,2] [--frames 60]
 *                        [--warmup 5] [--solo]
 *
 * `lib` paths are built trees (`npx tsc -p tsconfig.build.json` writes lib/, this script among it;
 * copy main's lib/ aside first; `tsx` cannot run this file: it awaits at the top level). For each
 * build and each thread count the case's world is built (`setupThreads`, or
 * `setup` for one thread where the case has none); with `--solo` each build also gets a second
 * world of the largest thread count stepped with `WorkerPool.solo` (the calling thread running
 * every block of the pooled path). After `warmup` untimed frames each, the worlds are stepped
 * one frame each in an order that rotates every frame, so that a loaded machine's minutes weigh
 * on all of them alike. Printed: each world's median ms a frame and its calling thread's CPU
 * (/proc/thread-self/schedstat where there is one), the medians of the per-frame ratios B/A at
 * each thread count and the 1/n-thread ratio of each build, the load before and after, and the
 * bits: every world's positions and velocities against build A's one-thread world (a speed
 * change must leave them the same).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BenchCase, BenchInstance } from './harness.js';

const arg = (name: string, dflt: string): string => {
  const k = process.argv.indexOf(`--${name}`);
  return k > 0 && k + 1 < process.argv.length ? process.argv[k + 1] : dflt;
};
const libs = arg('lib', '').split(',').filter(Boolean);
const caseName = arg('case', '');
const threads = arg('threads', '1,2').split(',').map(Number);
const frames = Number(arg('frames', '60'));
const warmup = Number(arg('warmup', '5'));
const solo = process.argv.includes('--solo');
if (libs.length !== 2 || caseName === '' || threads.some((t) => !(t >= 1))) {
  console.error(
    'usage: npx tsx bench/ab.ts --lib <libA>,<libB> --case <name> [--threads 1,2] [--frames 60] [--warmup 5] [--solo]',
  );
  process.exit(2);
}

interface Run {
  tag: string;
  lib: string;
  threads: number;
  solo: boolean;
  pool: { solo: boolean };
  inst: BenchInstance;
  wall: number[];
  cpu: number[];
}

const schedstat = '/proc/thread-self/schedstat';
const cpuNs = existsSync(schedstat) ? () => Number(readFileSync(schedstat, 'utf8').split(' ')[0]) : () => 0;

async function load(lib: string): Promise<{ bc: BenchCase; pool: { solo: boolean } }> {
  const dir = resolve(lib, 'bench/cases');
  let bc: BenchCase | undefined;
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.js'))) {
    const m = (await import(pathToFileURL(resolve(dir, f)).href)) as { cases?: BenchCase[] };
    bc ??= m.cases?.find((c) => c.name === caseName);
  }
  if (bc === undefined) throw new Error(`${dir}: no bench case named ${caseName}`);
  const pool = (await import(pathToFileURL(resolve(lib, 'src/parallel/pool.js')).href)).WorkerPool;
  return { bc, pool };
}

const runs: Run[] = [];
for (const [i, lib] of libs.entries()) {
  const { bc, pool } = await load(lib);
  const make = (t: number): BenchInstance =>
    bc.setupThreads ? bc.setupThreads(t) : t === 1 ? bc.setup() : (undefined as never);
  if (!bc.setupThreads && threads.some((t) => t > 1)) throw new Error(`${caseName} has no threaded set-up`);
  const counts = solo ? [...threads, -Math.max(...threads)] : threads;
  for (const t of counts)
    runs.push({
      tag: `${'AB'[i]}${Math.abs(t)}${t < 0 ? 's' : ''}`,
      lib,
      threads: Math.abs(t),
      solo: t < 0,
      pool,
      inst: make(Math.abs(t)),
      wall: [],
      cpu: [],
    });
}
for (const r of runs)
  await (r.inst.world as { threadsReady?: () => Promise<void> } | undefined)?.threadsReady?.();

const stepOne = (r: Run): void => {
  r.pool.solo = r.solo;
  const c = cpuNs();
  const t0 = performance.now();
  r.inst.step();
  const dt = performance.now() - t0;
  const dc = (cpuNs() - c) / 1e6;
  r.pool.solo = false;
  r.wall.push(dt);
  r.cpu.push(dc);
};
const load0 = loadavg()[0];
for (let f = 0; f < warmup + frames; f++)
  for (let k = 0; k < runs.length; k++) {
    const r = runs[(k + f) % runs.length];
    stepOne(r);
    if (f < warmup) {
      r.wall.pop();
      r.cpu.pop();
    }
  }

const median = (a: number[]): number => {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const byTag = new Map(runs.map((r) => [r.tag, r]));
const ratio = (a: string, b: string): string => {
  const ra = byTag.get(a),
    rb = byTag.get(b);
  return ra && rb ? median(ra.wall.map((x, i) => x / rb.wall[i])).toFixed(3) : '–';
};
const when = new Date().toISOString().slice(11, 16);
console.log(
  `${caseName}: ${frames} frames after ${warmup}, load ${load0.toFixed(1)} → ${loadavg()[0].toFixed(1)}, ${when} UTC`,
);
for (const r of runs)
  console.log(
    `  ${r.tag.padEnd(4)} ${median(r.wall).toFixed(2).padStart(8)} ms a frame, calling thread's CPU ${median(r.cpu).toFixed(2)} ms  (${r.lib})`,
  );
const ts = solo ? [...threads.map(String), `${Math.max(...threads)}s`] : threads.map(String);
console.log(`  B/A: ${ts.map((t) => `${t} thr. ${ratio(`B${t}`, `A${t}`)}`).join(', ')}`);
for (const t of threads.filter((n) => n > 1))
  console.log(`  1/${t}-thread ratio: A ${ratio('A1', `A${t}`)}, B ${ratio('B1', `B${t}`)}`);
const state = (r: Run): Buffer => {
  const s = (r.inst.world as unknown as { store: { x: Float64Array; v: Float64Array; count: number } }).store;
  const n = 3 * s.count;
  return Buffer.concat([Buffer.from(s.x.slice(0, n).buffer), Buffer.from(s.v.slice(0, n).buffer)]);
};
const ref = state(runs[0]);
console.log(
  `  bits against ${runs[0].tag}: ${runs.map((r) => `${r.tag} ${state(r).equals(ref) ? 'same' : 'DIFFER'}`).join(', ')}`,
);
for (const r of runs) (r.inst.world as { dispose?: () => void } | undefined)?.dispose?.();
