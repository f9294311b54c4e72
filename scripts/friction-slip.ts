/**
 * What the creep of a box put down on a slope is (issue 15, item 6;
 * docs/collision.md, "Slip, lift and deformation"): the boxes of
 * test/friction-slope.test.ts put down unstressed 1.5° below atan μ
 * (μ = μs = 0.5) and, over 2 s, the downhill displacement of their base
 * split by test/helpers/slope.ts's SlipProbe into slip (while pressed on
 * the slope: stuck or sliding, or touching unpressed) and the drift of
 * base particles lifted off it, with the elastic part (top and centroid
 * against the base once settled) beside the analytic shear of a block
 * under a tangential body load. Prints a table and writes
 * docs/collision/friction-slip.csv and .svg (the default FEM box, frame by
 * frame).
 *
 *   npx tsx scripts/friction-slip.ts [outDir]
 */
import { writeCsv, writeLineChart } from '../experiments/plot.js';
import { PlaneCollider, RigidBodies, RigidBody, World } from '../src/index.js';
import { BOX, boxOnSlope, downhill, SlipProbe, type SlopeBox } from '../test/helpers/slope.js';

const outDir = process.argv[2] ?? new URL('../docs/collision/', import.meta.url).pathname;
const MU = 0.5;
const deg = (Math.atan(MU) * 180) / Math.PI - 1.5;
const th = (deg * Math.PI) / 180;
const g = 9.81;

// the analytic elastic displacement of the top relative to the base, a block H high under the
// tangential body load q = ρ g sin θ per volume with its base held: a layer in pure shear (no
// bending), u(y) = q (H y − y²/2) / G, top q H² / (2G), mean over the height q H² / (3G); and the
// Timoshenko cantilever (width = depth = H, I = H⁴/12, A = H², κ = 5/6), top q H²·H² / (8 E I) +
// q H² H² / (2 κ G A) = 3 q H² / (2 E) + 3 q H² / (5 G), mean 0.4 and 2/3 of the two parts
const H = BOX.size;
const G = BOX.youngsModulus / (2 * (1 + BOX.poissonRatio));
const q = BOX.density * g * Math.sin(th);
const shearTop = (q * H * H) / (2 * G);
const bendTop = (3 * q * H * H) / (2 * BOX.youngsModulus);
const timoTop = bendTop + (shearTop * 6) / 5;
const timoMean = 0.4 * bendTop + ((2 / 3) * shearTop * 6) / 5;
console.log(
  `θ = ${deg.toFixed(3)}°, G = ${(G / 1e3).toFixed(0)} kPa, q = ρ g sin θ = ${q.toFixed(0)} N/m³: top − base, shear layer ${(1e3 * shearTop).toFixed(3)} mm (mean ${((1e3 * 2 * shearTop) / 3).toFixed(3)}), Timoshenko ${(1e3 * timoTop).toFixed(3)} mm (mean ${(1e3 * timoMean).toFixed(3)})`,
);

interface Run {
  base: number;
  slip: number;
  stuck: number;
  sliding: number;
  touching: number;
  lifted: number;
  lift: number;
  top: number;
  centroid: number;
}

/** The box put down 1.5° below atan μ, 2 s; `frames` gets the default run's series. */
function run(
  kind: SlopeBox,
  substeps: number,
  iterations: number,
  compliance: number,
  frames?: Record<string, number | string>[],
): Run {
  const { world, body, base, top } = boxOnSlope(kind, deg, { substeps, iterations, compliance });
  const probe = new SlipProbe(world, th, base);
  const all = Array.from({ length: body.count }, (_, k) => body.offset + k);
  const x = world.store.x;
  const x0 = x.slice();
  const mm = (v: number) => Number((1e3 * v).toFixed(5));
  for (let f = 1; f <= 120; f++) {
    world.step();
    if (!frames) continue;
    const t = Number((f / 60).toFixed(4));
    const b = downhill(x, th, base, x0);
    frames.push({ series: 'base (all of it)', time: t, mm: mm(b) });
    frames.push({ series: 'slip while in contact', time: t, mm: mm(probe.slip) });
    frames.push({ series: 'drift while lifted off', time: t, mm: mm(probe.lifted) });
    frames.push({ series: 'top − base (elastic)', time: t, mm: mm(downhill(x, th, top, x0) - b) });
  }
  const b = downhill(x, th, base, x0);
  return {
    base: b,
    slip: probe.slip,
    stuck: probe.stuck,
    sliding: probe.sliding,
    touching: probe.touching,
    lifted: probe.lifted,
    lift: probe.lift,
    top: downhill(x, th, top, x0) - b,
    centroid: downhill(x, th, all, x0) - b,
  };
}

const rows: Record<string, number | string>[] = [];
const frames: Record<string, number | string>[] = [];
const mm = (v: number) => (1e3 * v).toFixed(3);
const cases: [string, SlopeBox, number, number, number?][] = [
  ['FEM, 10 × 1 (defaults)', 'fem', 10, 1],
  ['FEM, 40 × 1', 'fem', 40, 1],
  ['FEM, 10 × 4', 'fem', 10, 4],
  ['FEM, 20 × 8', 'fem', 20, 8],
  ['FEM, 40 × 8', 'fem', 40, 8],
  ['geometric, 10 × 1', 'geometric', 10, 1],
  ['rigid cluster, 10 × 1', 'rigid', 10, 1],
  ['shape-matched, α = 1e-5', 'rigid', 10, 1, 1e-5],
  ['shape-matched, α = 1e-4', 'rigid', 10, 1, 1e-4],
];
console.log(
  'box                      base mm  slip  (stuck sliding touching)  lifted drift  max lift  top−base  centroid−base',
);
for (const [name, kind, s, it, compliance] of cases) {
  const r = run(kind, s, it, compliance ?? 0, s === 10 && it === 1 && kind === 'fem' ? frames : undefined);
  console.log(
    `${name.padEnd(24)} ${mm(r.base).padStart(7)} ${mm(r.slip).padStart(6)} (${mm(r.stuck)} ${mm(r.sliding)} ${mm(r.touching)}) ${mm(r.lifted).padStart(8)} ${mm(r.lift).padStart(8)} ${mm(r.top).padStart(9)} ${mm(r.centroid).padStart(9)}`,
  );
  rows.push({
    box: name,
    base: Number(mm(r.base)),
    slip: Number(mm(r.slip)),
    stuck: Number(mm(r.stuck)),
    sliding: Number(mm(r.sliding)),
    touching: Number(mm(r.touching)),
    lifted: Number(mm(r.lifted)),
    maxLift: Number(mm(r.lift)),
    topMinusBase: Number(mm(r.top)),
    centroidMinusBase: Number(mm(r.centroid)),
  });
}

// a rigid body of src/rigid (XPBD, Müller et al. 2020), the same 20 cm box and density, awake
{
  const world = new World({ substeps: 10 });
  const n: [number, number, number] = [-Math.sin(th), Math.cos(th), 0];
  world.addCollider(new PlaneCollider({ normal: n, friction: MU }));
  RigidBodies.of(world).configure({ sleep: false });
  const h = H / 2;
  const box = new RigidBody(world, {
    shape: { type: 'box', halfExtents: [h, h, h] },
    position: [h * n[0], h * n[1], 0],
    rotation: [0, 0, deg],
    density: BOX.density,
    friction: MU,
  });
  const p0 = box.position();
  for (let f = 0; f < 120; f++) world.step();
  const p = box.position();
  const d = -((p[0] - p0[0]) * Math.cos(th) + (p[1] - p0[1]) * Math.sin(th));
  console.log(`${'rigid body (src/rigid)'.padEnd(24)} ${mm(d).padStart(7)}`);
  rows.push({ box: 'rigid body (src/rigid), 10 substeps', base: Number(mm(d)) });
}

console.log(writeCsv(outDir, 'friction-slip', rows));
console.log(writeCsv(outDir, 'friction-slip-frames', frames));
console.log(
  await writeLineChart(outDir, 'friction-slip', frames, {
    title: `FEM box put down ${deg.toFixed(2)}° on a slope (atan μ − 1.5°), defaults: where its base moves`,
    x: 'time',
    y: 'mm',
    series: 'series',
    points: false,
    xTitle: 'time (s)',
    yTitle: 'downhill displacement (mm)',
  }),
);
