/**
 * Issue 20 (session 18, small25): the scenes whose small cloths were slower on 2 threads than on
 * one. Per scene, three worlds in one process — 1 thread; 2 threads with every element set off the
 * pool (ElementConstraints.poolMinConstraints ∞; until session 22 this column was small25's
 * thresholds of before its window line, which session 22 removed); 2 threads with this build's
 * (POOL_MIN_CONSTRAINTS) — stepped interleaved, the order rotating each step; medians of wall time
 * per step, the 1-thread / 2-thread ratios, whether the bits agree, and which of the world's
 * element sets go to the pool (threadMode) under each.
 *
 *   npx tsx bench/small-sets-scenes.ts [scenes, e.g. solver-hierarchy,strain-lra] [steps]
 */
import { readFileSync } from 'node:fs';
import { ElementConstraints, POOL_MIN_CONSTRAINTS } from '../src/constraints/element-set.js';
import { loadScene } from '../src/index.js';
import { interleaved } from './interleave.js';

const names = (process.argv[2] ?? 'solver-hierarchy,strain-lra').split(',');
const steps = Number(process.argv[3] ?? '60');
const before = { f64: Number.POSITIVE_INFINITY, f32: Number.POSITIVE_INFINITY };
const after = { ...POOL_MIN_CONSTRAINTS };
for (const name of names) {
  const text = readFileSync(`scenes/${name}.json`, 'utf8');
  const runs = [
    { s: loadScene(text, { threads: 1 }), min: after, wall: [] as number[] },
    { s: loadScene(text, { threads: 2 }), min: before, wall: [] as number[] },
    { s: loadScene(text, { threads: 2 }), min: after, wall: [] as number[] },
  ];
  for (const r of runs) await r.s.world.threadsReady();
  const pooled = (min: typeof after) => {
    ElementConstraints.poolMinConstraints = min;
    const w = runs[1].s.world;
    const sets = w.sets.filter((c) => c instanceof ElementConstraints) as ElementConstraints[];
    return sets
      .filter((c) => c.threadMode(w.precision) !== 'serial')
      .map((c) => `${c.constructor.name} ${c.count}`)
      .join(', ');
  };
  const step = (r: (typeof runs)[number]) => {
    ElementConstraints.poolMinConstraints = r.min;
    r.s.world.step();
  };
  const [one, old, now] = interleaved(runs, steps, step);
  const x0 = runs[0].s.world.store.x;
  const same = runs.every((r) => r.s.world.store.x.every((v, i) => Object.is(v, x0[i])));
  console.log(
    `| ${name} | ${one.toFixed(2)} | ${old.toFixed(2)} (${(one / old).toFixed(2)}) | ${now.toFixed(2)} (${(one / now).toFixed(2)}) | ${same} |`,
  );
  console.log(`  on the pool before: ${pooled(before) || 'none'}; after: ${pooled(after) || 'none'}`);
  ElementConstraints.poolMinConstraints = after;
  for (const r of runs) r.s.world.dispose();
}
