/**
 * Where the pool turns for small element sets (issue 20, docs/performance.md "Small sets on the
 * pool, again (session 18, small25)"; docs/solver.md "Session 22 (lead)"): per pinned falling cloth
 * (n × n, stretch + dihedral bending, XPBD) and thread count T, three worlds in one process —
 * 1 thread; T threads with the sets on the pool (ElementConstraints.poolMinConstraints 0); T threads
 * with them off it (∞) — stepped
 * interleaved, the order rotating each step; medians of wall time per step and the 1-thread /
 * 2-thread ratios. Then the pool world is stepped again with its fused sweeps timing their
 * blocks (ElementThreads.timing): ms per step in colour blocks and window copies on the calling
 * thread (index 0) and on the worker, the profile's split behind each ratio.
 *
 *   npx tsx bench/small-sets-probe.ts [f64|f32] [forward|symmetric] [substeps] [sizes, e.g. 61,101] [threads, e.g. 2,4,8]
 */
import { ElementConstraints } from '../src/constraints/element-set.js';
import { fusedStats, ST_COPY, ST_WAIT, ST_WORK, STAT_SLOTS } from '../src/wasm/element-order.js';
import { ElementThreads } from '../src/wasm/element-threads.js';
import { interleaved } from './interleave.js';
import { fallingCloth } from './peers/cloth-scene.js';

const precision = (process.argv[2] ?? 'f64') as 'f64' | 'f32';
const sweep = (process.argv[3] ?? 'forward') as 'forward' | 'symmetric';
const substeps = Number(process.argv[4] ?? '5');
const sizes = (process.argv[5] ?? '61,101').split(',').map(Number);
const threadCounts = (process.argv[6] ?? '2').split(',').map(Number);
const saved = ElementConstraints.poolMinConstraints;
const inf = Number.POSITIVE_INFINITY;

const cloth = (n: number, threads: number) =>
  fallingCloth({ n, substeps, bendCompliance: 0.01, precision, threads, sweep });
for (const T of threadCounts)
  for (const n of sizes) {
    const steps = Math.max(20, Math.round(400_000 / (n * n * substeps)) * 5);
    const runs = [
      { ...cloth(n, 1), min: saved, wall: [] as number[] },
      { ...cloth(n, T), min: { f64: 0, f32: 0 } as typeof saved, wall: [] as number[] },
      { ...cloth(n, T), min: { f64: inf, f32: inf } as typeof saved, wall: [] as number[] },
    ];
    for (const r of runs) await r.world.threadsReady();
    const step = (r: (typeof runs)[number]) => {
      ElementConstraints.poolMinConstraints = r.min;
      r.world.step();
    };
    const [one, on, off] = interleaved(runs, steps, step);
    const x0 = runs[0].world.store.x;
    const same = runs.every((r) => r.world.store.x.every((v, i) => Object.is(v, x0[i])));
    // the profile's split: the pool world's fused blocks timed per thread
    const S = fusedStats();
    const s0 = S.slice();
    ElementThreads.timing = true;
    const ts = Math.max(10, steps >> 1);
    for (let s = 0; s < ts; s++) step(runs[1]);
    ElementThreads.timing = false;
    ElementConstraints.poolMinConstraints = saved;
    const at = (t: number, slot: number) => (S[STAT_SLOTS * t + slot] - s0[STAT_SLOTS * t + slot]) / ts;
    let wk = 0,
      cw = 0,
      ww = 0;
    for (let t = 1; t < 16; t++) {
      wk += at(t, ST_WORK) + at(t, ST_COPY);
      ww += at(t, ST_WAIT);
    }
    const ck = at(0, ST_WORK) + at(0, ST_COPY);
    cw = at(0, ST_WAIT);
    const c = runs[0].cloth;
    console.log(
      `| ${T} | ${n} × ${n} | ${precision} | ${sweep} | ${substeps} | ${c.stretch.count} + ${c.bend!.count} | ${one.toFixed(2)} | ` +
        `${on.toFixed(2)} (${(one / on).toFixed(2)}) | ${off.toFixed(2)} (${(one / off).toFixed(2)}) | ` +
        `${ck.toFixed(2)} / ${wk.toFixed(2)} (${(wk / Math.max(1e-9, ck + wk)).toFixed(2)}) | ${cw.toFixed(2)} / ${ww.toFixed(2)} | ${same} |`,
    );
    for (const r of runs) r.world.dispose();
  }
