/**
 * Where the worker pool pays for the element sets (docs/performance.md,
 * "Small sets skip the pool"): per cloth size, three worlds of the falling
 * cloth of issue 18 (bench/peers/cloth-scene.ts) in one process — 1 thread;
 * 2 threads with the sets on the pool (ElementConstraints.poolMinConstraints
 * 0 for both precisions); 2 threads with them off it (∞) — stepped interleaved, the order
 * rotating each step; medians of wall time per step, their 1-thread /
 * 2-thread ratios, and whether the three worlds' bits agree:
 *
 *   npx tsx bench/pool-probe.ts [f32|f64] [sizes, e.g. 50,71,100,141,201]
 */
import { ElementConstraints } from '../src/constraints/element-set.js';
import { interleaved } from './interleave.js';
import { fallingCloth } from './peers/cloth-scene.js';

const precision = (process.argv[2] ?? 'f32') as 'f64' | 'f32';
const sizes = (process.argv[3] ?? '50,71,100').split(',').map(Number);
const saved = ElementConstraints.poolMinConstraints;
for (const n of sizes) {
  const steps = n > 150 ? 20 : n > 90 ? 60 : 200;
  const make = (threads: number, min: typeof saved) => ({
    fc: fallingCloth({ n, substeps: 5, bendCompliance: 0.01, precision, threads }),
    min,
    wall: [] as number[],
  });
  const inf = Number.POSITIVE_INFINITY;
  const runs = [make(1, saved), make(2, { f64: 0, f32: 0 }), make(2, { f64: inf, f32: inf })];
  for (const r of runs) await r.fc.world.threadsReady();
  const step = (r: (typeof runs)[number]) => {
    ElementConstraints.poolMinConstraints = r.min;
    r.fc.world.step();
  };
  const [one, on, off] = interleaved(runs, steps, step);
  ElementConstraints.poolMinConstraints = saved;
  const x0 = runs[0].fc.world.store.x;
  const same = runs.every((r) => r.fc.world.store.x.every((v, i) => Object.is(v, x0[i])));
  const c = runs[0].fc.cloth;
  console.log(
    `${n} x ${n} ${precision} (${c.stretch.count} stretch + ${c.bend!.count} bending): 1 thread ${one.toFixed(2)} ms; ` +
      `2 threads, sets on the pool ${on.toFixed(2)} ms (1/2 ${(one / on).toFixed(2)}); ` +
      `off it ${off.toFixed(2)} ms (1/2 ${(one / off).toFixed(2)}); same bits ${same}`,
  );
  for (const r of runs) r.fc.world.dispose();
}
