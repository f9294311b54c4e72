/**
 * Where an f32 sweep of the falling cloth's two sets goes (docs/performance.md,
 * "Profile of the f32 sweep"): after 20 frames of bench/peers/cloth-scene.ts,
 * each set's sweep is taken apart into what the generated sweepNAMEF32 does —
 * the window copied in (win.load), per colour the gather into blocks, the
 * blocked f32x4 kernel and the scatter, the window copied out (win.save) —
 * and each part is timed over `sweeps` sweeps (medians, ns per projection);
 * then the step's stages under the profiling scheduler (bench/profile.ts),
 * ms per step, medians, and the CPU time per step:
 *
 *   npx tsx bench/sweep-split.ts [n = 50] [sweeps = 400]
 *
 * It first prints each blocked kernel's vector operations per group of four
 * constraints, counted in the generated code.
 *
 * The sweeps keep projecting the same cloth (its multipliers grow), which
 * changes no part's cost but moves the cloth: the world is not stepped on.
 */

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ParticleStore } from '../src/core/particles.js';
import type { ElementExports } from '../src/wasm/element-kernels.generated.js';
import type { PairedCopy } from '../src/wasm/paired.js';
import { fallingCloth } from './peers/cloth-scene.js';
import { ProfilingScheduler } from './profile.js';

/**
 * The vector operations of a blocked f32x4 kernel, counted in the generated
 * AssemblyScript (wasm/elements.generated.ts, the loop body: what runs per
 * group of four constraints), by instruction: the roofline's operation count
 * (docs/performance.md, "Roofline").
 */
function countOps(kernel: string): string {
  const src = readFileSync(
    join(dirname(fileURLToPath(import.meta.url)), '../wasm/elements.generated.ts'),
    'utf8',
  );
  const start = src.indexOf(`export function ${kernel}(`);
  if (start < 0) return `${kernel}: not in wasm/elements.generated.ts (npm run kernels)`;
  let lines = src.slice(src.indexOf('for (', start), src.indexOf('\n}\n', start)).split('\n');
  // without the locals nothing reads (binaryen drops them: the f32 stores write old ± masked increment)
  for (let dropped = true; dropped; ) {
    const text = lines.join('\n');
    const before = lines.length;
    lines = lines.filter((l) => {
      const d = /^\s*const (\w+) =/.exec(l);
      return d === null || text.split(new RegExp(`\\b${d[1]}\\b`)).length > 2;
    });
    dropped = lines.length < before;
  }
  const body = lines.join('\n');
  const counts = new Map<string, number>();
  for (const m of body.matchAll(/\b(f32x4|v128|i32x4)\.(\w+)\(/g)) {
    const k = `${m[1]}.${m[2]}`;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const arith = ['add', 'sub', 'mul', 'div', 'neg', 'abs', 'sqrt', 'pmin', 'pmax'];
  let a = 0;
  for (const [k, c] of counts) if (k.startsWith('f32x4.') && arith.includes(k.slice(6))) a += c;
  const list = [...counts].sort((x, y) => y[1] - x[1]).map(([k, c]) => `${k} ${c}`);
  return `${kernel}: ${a} f32x4 arithmetic operations per group of four; ${list.join(', ')}`;
}

const n = Number(process.argv[2] ?? 50);
const sweeps = Number(process.argv[3] ?? 400);
const fc = fallingCloth({ n, substeps: 5, bendCompliance: 0.01, precision: 'f32' });
const world = fc.world;
for (let f = 0; f < 20; f++) world.step();

type Fn = (...a: number[]) => number;
interface Kernelled {
  count: number;
  simdKernel(f32: boolean): PairedCopy<ElementExports> | null;
}

const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1];

function split(
  set: Kernelled,
  label: string,
  kernel: string,
  arity: number,
  u: number[],
  store: ParticleStore,
) {
  const k = set.simdKernel(true);
  if (k === null) throw new Error(`${label}: no f32 kernel (WebAssembly missing?)`);
  const { win, addr: a } = k;
  const ex = k.ex as unknown as Record<string, Fn>;
  const gather = ex[`gatherF32${arity}`],
    project = ex[kernel],
    scatter = ex[`scatterF32${arity}`];
  const cp = k.plan.colorPairs;
  const parts: Record<string, number[]> = { in: [], gather: [], kernel: [], scatter: [], out: [], fused: [] };
  for (let r = 0; r < sweeps; r++) {
    let t = performance.now();
    win.load(store);
    parts.in.push(performance.now() - t);
    let g = 0,
      kk = 0,
      s = 0;
    for (let c = 0; c + 1 < cp.length; c++) {
      const t0 = performance.now();
      gather(cp[c], cp[c + 1], a.idx, win.pAt, win.wAt, a.blk);
      const t1 = performance.now();
      project(cp[c], cp[c + 1], a.idx, a.rec, a.el, a.scalar, a.lam, a.blk, 0, a.slow, u[0], u[1], u[2]);
      const t2 = performance.now();
      scatter(cp[c], cp[c + 1], a.idx, win.pAt, win.wAt, a.blk);
      const t3 = performance.now();
      g += t1 - t0;
      kk += t2 - t1;
      s += t3 - t2;
    }
    parts.gather.push(g);
    parts.kernel.push(kk);
    parts.scatter.push(s);
    t = performance.now();
    win.save(store);
    parts.out.push(performance.now() - t);
  }
  // what the sweeps now call: the same three in one loop (no block)
  const fused = ex[kernel.replace('Blocked', 'Fused')];
  for (let r = 0; r < sweeps; r++) {
    const t = performance.now();
    for (let c = 0; c + 1 < cp.length; c++)
      fused(
        cp[c],
        cp[c + 1],
        a.idx,
        a.rec,
        a.el,
        a.scalar,
        a.lam,
        win.pAt,
        win.wAt,
        a.slow,
        u[0],
        u[1],
        u[2],
      );
    parts.fused.push(performance.now() - t);
  }
  let sum = 0;
  const row = Object.entries(parts).map(([name, ms]) => {
    if (name === 'fused')
      return `fused (gather + kernel + scatter in one loop) ${((median(ms) * 1e6) / set.count).toFixed(2)}`;
    const ns = (median(ms) * 1e6) / set.count;
    sum += ns;
    return `${name} ${ns.toFixed(2)}`;
  });
  console.log(
    `${label}: ${set.count} constraints, ${cp.length - 1} colours, ${k.plan.pairs} groups of 4, window of ${k.plan.range} particles`,
  );
  console.log(`  ns per projection: ${row.join(', ')}; sum ${sum.toFixed(2)}`);
}

const stretch = fc.cloth.stretch as unknown as Kernelled & {
  rule: { kPrime: number; alphaTilde: number };
  modeCode: number;
};
const bend = fc.cloth.bend as unknown as Kernelled & {
  rule: { kPrime: number; alphaTilde: number };
  maxStep: number;
};
console.log(countOps('projectDistanceF32Blocked'));
console.log(countOps('projectDihedralBendingF32Blocked'));
console.log(`falling cloth ${n} x ${n}, f32, after 20 frames; ${sweeps} sweeps per set`);
split(
  stretch,
  'stretch',
  'projectDistanceF32Blocked',
  2,
  [stretch.rule.kPrime, stretch.rule.alphaTilde, stretch.modeCode],
  world.store,
);
split(
  bend,
  'dihedral bending',
  'projectDihedralBendingF32Blocked',
  4,
  [bend.rule.kPrime, bend.rule.alphaTilde, bend.maxStep],
  world.store,
);

// the step's stages (sets.project holds the two sets' sweeps)
const prof = new ProfilingScheduler();
const saved = world.scheduler;
world.scheduler = prof;
const cpu: number[] = [];
const steps = Math.max(10, Math.round(40000 / (n * n)));
for (let s = 0; s < steps; s++) {
  const c0 = process.cpuUsage();
  world.step();
  const c = process.cpuUsage(c0);
  cpu.push((c.user + c.system) / 1000);
  prof.endStep();
}
world.scheduler = saved;
console.log(
  `step: ${median(cpu).toFixed(3)} ms CPU (median of ${steps}); stages, ms per step (wall, medians):`,
);
for (const s of prof.stages()) if (s.msPerStep >= 0.001) console.log(`  ${s.name} ${s.msPerStep.toFixed(3)}`);
for (const k of prof.kinds())
  if (k.projectionsPerStep > 100)
    console.log(`  kind ${k.kind}: ${k.nsPerProjection.toFixed(1)} ns per projection`);
