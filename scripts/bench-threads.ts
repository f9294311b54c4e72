/**
 * Parallel efficiency, A/B in one process: the same benchmark world on 1 and
 * on n threads, their steps interleaved (A B A B …) so that both see the
 * same machine load, the median of each one's per-step times and their
 * ratio (1-thread / n-thread time). Checks that both end bit-identical.
 *
 *   npx tsx scripts/bench-threads.ts [--case cloth-201] [--threads 2] [--steps 40] [--warmup 10]
 */
import { availableParallelism, loadavg } from 'node:os';
import { clothDemoWorld } from '../bench/cases/cloth.js';
import type { World } from '../src/index.js';

const args = process.argv.slice(2);
const opt = (name: string, d: string): string => {
  const k = args.indexOf(`--${name}`);
  return k >= 0 ? args[k + 1] : d;
};
const which = opt('case', 'cloth-201');
const threads = Number(opt('threads', '2'));
const steps = Number(opt('steps', '40'));
const warmup = Number(opt('warmup', '10'));

/** bench/cases/cloth.ts's clothDemo: n × n over 10 m, two corners pinned, distance + dihedral, 5 substeps, PBD. */
const clothDemo = (n: number, sweep: 'forward' | 'symmetric', t: number): World =>
  clothDemoWorld(n, sweep, t).world;

const make: Record<string, (t: number) => World> = {
  'cloth-201': (t) => clothDemo(201, 'forward', t),
  'cloth-201-symmetric': (t) => clothDemo(201, 'symmetric', t),
  'cloth-50': (t) => clothDemo(50, 'forward', t),
};
if (!make[which]) throw new Error(`unknown case ${which}; known: ${Object.keys(make).join(', ')}`);

const a = make[which](1);
const b = make[which](threads);
await b.threadsReady();
for (let k = 0; k < warmup; k++) {
  a.step();
  b.step();
}
const ta: number[] = [];
const tb: number[] = [];
const load0 = loadavg()[0];
for (let k = 0; k < steps; k++) {
  let t0 = performance.now();
  a.step();
  ta.push(performance.now() - t0);
  t0 = performance.now();
  b.step();
  tb.push(performance.now() - t0);
}
const median = (v: number[]) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)];
const same = a.store.x.every((v, i) => Object.is(v, b.store.x[i]));
const ma = median(ta);
const mb = median(tb);
console.log(
  `${which}: 1 thread ${ma.toFixed(2)} ms/step, ${threads} threads ${mb.toFixed(2)} ms/step, ` +
    `efficiency (1-thread / ${threads}-thread) ${(ma / mb).toFixed(2)}; bit-identical: ${same}; ` +
    `cores ${availableParallelism()}, load average ${load0.toFixed(1)} → ${loadavg()[0].toFixed(1)}`,
);
b.dispose();
