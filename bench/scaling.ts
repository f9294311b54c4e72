/**
 * `npm run bench:scaling [-- --threads 1,2,4,8] [name-filter…]`: the thread
 * scaling of the cases that have a threaded set-up (BenchCase.setupThreads;
 * issue 20: "use every core"). For each case one instance per thread count
 * is built and their frames are timed interleaved (the order rotating), so
 * a slow spell of the machine slows every column alike; each column is
 * checked bit for bit against the 1-thread instance after the timed frames.
 * Prints a table and writes bench/scaling.json (bench/results.json, the
 * 1- and 2-thread columns of `npm run bench`, is left alone). The default
 * thread counts are 1, 2, 4, … up to the machine's cores.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchCase, BenchInstance } from './harness.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const args = process.argv.slice(2);
const cores = availableParallelism();
let counts: number[] = [];
const filters: string[] = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--threads') counts = args[++i].split(',').map(Number);
  else filters.push(args[i]);
}
if (counts.length === 0) for (let t = 1; t <= cores; t *= 2) counts.push(t);
if (!counts.includes(1)) counts.unshift(1);
if (counts.some((t) => !Number.isInteger(t) || t < 1)) {
  console.error('--threads takes a comma-separated list of positive integers, e.g. --threads 1,2,4,8');
  process.exit(2);
}

const files = ['cloth.js', 'cloth-fall.js', 'collision.js', 'fluids.js', 'strands.js'];
const cases: BenchCase[] = [];
for (const f of files) {
  const mod = (await import(pathToFileURL(`${here}cases/${f}`).href)) as { cases: BenchCase[] };
  cases.push(...mod.cases.filter((c) => c.setupThreads));
}
const selected = cases.filter((c) => filters.length === 0 || filters.some((f) => c.name.includes(f)));
if (selected.length === 0) {
  console.error(
    `no threaded benchmark matches ${filters.join(', ')}; known: ${cases.map((c) => c.name).join(', ')}`,
  );
  process.exit(2);
}

function median(a: number[]): number {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)];
}

interface Column {
  threads: number;
  medianMs: number;
  /** Median over frames of the 1-thread time / this column's time. */
  speedup: number;
  /** Speedup / threads. */
  efficiency: number;
  bitIdentical: boolean;
}

const rows: { name: string; steps: number; columns: Column[] }[] = [];
console.log(`${cores} cores (${cpus()[0]?.model ?? 'unknown'}), threads ${counts.join(', ')}`);
console.log(`${'benchmark'.padEnd(30)}${counts.map((t) => `${t} thr`.padStart(18)).join('')}`);
for (const c of selected) {
  const setup = c.setupThreads as (t: number) => BenchInstance;
  const inst = counts.map((t) => (t === 1 ? c.setup() : setup(t)));
  for (const e of inst) await e.world?.threadsReady?.();
  const warm = Math.min(c.warmup ?? 50, 10);
  const n = Math.min(c.steps ?? 200, 40);
  const times: number[][] = inst.map(() => []);
  for (let k = 0; k < warm + n; k++) {
    for (let j = 0; j < inst.length; j++) {
      const e = (k + j) % inst.length;
      const t0 = performance.now();
      inst[e].step();
      const dt = performance.now() - t0;
      if (k >= warm) times[e].push(dt);
    }
  }
  const xa = inst[0].world?.store;
  const columns: Column[] = counts.map((t, i) => {
    const xb = inst[i].world?.store;
    const speedup = median(times[0].map((v, k) => v / times[i][k]));
    return {
      threads: t,
      medianMs: median(times[i]),
      speedup,
      efficiency: speedup / t,
      bitIdentical:
        xa !== undefined &&
        xb !== undefined &&
        xa.count === xb.count &&
        xa.x.subarray(0, 3 * xa.count).every((v, q) => Object.is(v, xb.x[q])),
    };
  });
  for (const e of inst) e.world?.dispose?.();
  rows.push({ name: c.name, steps: n, columns });
  const cell = (col: Column) =>
    `${col.medianMs.toFixed(1)} ms ×${col.speedup.toFixed(2)}${col.bitIdentical ? '' : ' !BITS'}`.padStart(
      18,
    );
  console.log(`${c.name.padEnd(30)}${columns.map(cell).join('')}`);
}
console.log(
  '×: median over frames of the 1-thread time / that column’s time; !BITS: positions differ from 1 thread',
);

const out = fileURLToPath(new URL('../../bench/scaling.json', import.meta.url)); // lib/bench → bench
const doc = {
  date: new Date().toISOString(),
  node: process.version,
  cpu: cpus()[0]?.model ?? 'unknown',
  cores,
  rows,
};
writeFileSync(`${out}.tmp`, `${JSON.stringify(doc, null, 2)}\n`);
renameSync(`${out}.tmp`, out);
console.log(`wrote ${out}`);
process.exit(rows.every((r) => r.columns.every((c) => c.bitIdentical)) ? 0 : 1);
