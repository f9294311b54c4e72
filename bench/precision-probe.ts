/**
 * f64 against f32 (WorldOptions.precision) on the falling cloth of issue 18
 * (bench/peers/cloth-scene.ts), in one process: two worlds from the same
 * scene, their steps interleaved (the order alternating), each world's
 * projections timed per constraint kind by a ProfilingScheduler; medians
 * over steps of ns per projection and ms per step, and their same-run
 * ratio f32 / f64 (docs/performance.md, "Precision"):
 *
 *   npx tsx bench/precision-probe.ts [n] [--steps=N] [--warmup=N]
 */
import { fallingCloth } from './peers/cloth-scene.js';
import { ProfilingScheduler } from './profile.js';

const n = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 50);
const arg = (name: string, d: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? d);
const steps = arg('steps', n > 100 ? 20 : 200);
const warmup = arg('warmup', n > 100 ? 5 : 30);

const runs = (['f64', 'f32'] as const).map((precision) => {
  const fc = fallingCloth({ n, substeps: 5, bendCompliance: 0.01, precision });
  const prof = new ProfilingScheduler();
  for (let f = 0; f < warmup; f++) fc.world.step();
  fc.world.scheduler = prof;
  return { precision, fc, prof, cpu: [] as number[] };
});
for (let s = 0; s < steps; s++) {
  for (const r of s % 2 === 0 ? runs : [...runs].reverse()) {
    const t0 = process.cpuUsage();
    r.fc.world.step();
    const dt = process.cpuUsage(t0);
    r.prof.endStep();
    r.cpu.push((dt.user + dt.system) / 1000);
  }
}
const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1];
console.log(
  `${n} x ${n}, ${steps} steps after ${warmup}, interleaved; CPU ms per step and ns per projection (medians)`,
);
const table = runs.map((r) => ({
  precision: r.precision,
  ms: median(r.cpu),
  kinds: new Map(r.prof.kinds().map((k) => [k.kind, k.nsPerProjection])),
  backend: `${r.fc.cloth.stretch.activeBackend}/${r.fc.cloth.bend!.activeBackend}`,
}));
for (const t of table) {
  const k = [...t.kinds].map(([kind, ns]) => `${kind} ${ns.toFixed(1)} ns`).join(', ');
  console.log(`${t.precision} (${t.backend}): ${t.ms.toFixed(3)} ms per step; ${k}`);
}
const [a, b] = table;
const ratios = [...a.kinds.keys()].map(
  (k) => `${k} ${((b.kinds.get(k) ?? 0) / (a.kinds.get(k) ?? 1)).toFixed(2)}`,
);
console.log(`f32 / f64: step ${(b.ms / a.ms).toFixed(2)}; ${ratios.join(', ')}`);
