/**
 * The step-cost estimate (src/io/scene/work.ts) against measured CPU time:
 * for every shipped scene, its estimated work units per step, its CPU
 * milliseconds per step over a few steps after a warm-up, and the
 * nanoseconds per unit that makes; then the estimate of the benchmark cases
 * that are scenes at another resolution (the fluids) and of collision-barrel
 * copied 10, 100 and 1,000 times, against the default limit.
 *
 *   npx tsx scripts/step-work.ts [--steps 20] [--only name,name]
 *
 * CPU time (process.cpuUsage), so waiting for a core does not count; a
 * loaded machine still reads slower than a quiet one. Used to fit the
 * weights of work.ts; its figures are an order of magnitude.
 */

import { defaultSceneLimits } from '../src/index.js';
import { Budget } from '../src/io/scene/limits.js';
import { estimateScene, parseSceneText } from '../src/io/scene/scene.js';
import { loadShippedScene, scriptOption as opt, sceneFiles, sceneText } from './shipped-scenes.js';

const steps = Number(opt('steps') ?? 20);
const only = opt('only')?.split(',');
const huge = { maxParticles: 1e12, maxElements: 1e12, maxCells: 1e12, maxStepWork: 1e18 };

function estimate(text: string, file: string): number {
  const budget = new Budget(huge);
  estimateScene(parseSceneText(text, file, huge), budget);
  return budget.work;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const rows: { name: string; work: number; ms: number; ns: number }[] = [];
for (const file of sceneFiles(only)) {
  const work = estimate(sceneText(file), file);
  const inst = loadShippedScene(file, { limits: huge });
  for (let k = 0; k < 5; k++) inst.world.step();
  const c0 = process.cpuUsage();
  for (let k = 0; k < steps; k++) inst.world.step();
  const u = process.cpuUsage(c0);
  const ms = (u.user + u.system) / 1000 / steps;
  inst.world.dispose?.();
  const ns = (ms * 1e6) / work;
  rows.push({ name: file.replace(/\.json$/, ''), work, ms, ns });
  console.log(
    `${file.replace(/\.json$/, '').padEnd(34)} ${fmt(work).padStart(14)} units  ${ms.toFixed(2).padStart(8)} ms  ${ns.toFixed(1).padStart(6)} ns/unit`,
  );
}
if (rows.length > 1) {
  const ns = rows.map((r) => r.ns).sort((a, b) => a - b);
  const max = rows.reduce((a, b) => (b.work > a.work ? b : a));
  console.log(
    `\nns per unit: median ${ns[ns.length >> 1].toFixed(1)}, range ${ns[0].toFixed(1)}–${ns[ns.length - 1].toFixed(1)}; largest estimate ${max.name} ${fmt(max.work)} (limit ${fmt(defaultSceneLimits.maxStepWork)}: ${(defaultSceneLimits.maxStepWork / max.work).toFixed(0)}×)`,
  );
}

// benchmark cases that are shipped scenes at another resolution (bench/cases/fluids.ts)
const pool = JSON.parse(sceneText('fluids-wave-pool.json'));
pool.world = { ...pool.world, substeps: 1, iterations: 4 };
pool.bodies[0].spacing = 0.02;
pool.bodies[0].blocks = [{ min: [0, 0, 0], max: [2.56, 0.32, 1.28] }];
const dam = JSON.parse(sceneText('fluids-dam-break.json'));
dam.world = { ...dam.world, substeps: 1, iterations: 4 };
dam.bodies[0].spacing = 0.01;
dam.bodies[0].blocks = [{ min: [0, 0, 0], max: [0.32, 0.64, 0.32] }];
const barrel = JSON.parse(sceneText('collision-barrel.json'));
const copies = (n: number) =>
  JSON.stringify({ ...barrel, bodies: Array.from({ length: n }, () => barrel.bodies[0]) });
for (const [name, text] of [
  ['wave-pool-128k', JSON.stringify(pool)],
  ['dam-break-64k', JSON.stringify(dam)],
  ['collision-barrel × 10', copies(10)],
  ['collision-barrel × 100', copies(100)],
  ['collision-barrel × 1000', copies(1000)],
] as const) {
  const work = estimate(text, name);
  console.log(
    `${name.padEnd(34)} ${fmt(work).padStart(14)} units  ${(work / defaultSceneLimits.maxStepWork).toFixed(3)} of the limit`,
  );
}
