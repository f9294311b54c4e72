/**
 * Where the FEM box's creep on a slope comes from (issue 15, item 6;
 * docs/collision.md, "Friction and restitution"): the box of
 * test/friction-slope.test.ts (20 cm, E = 1 MPa, ν = 0.3, 500 kg/m³, tets
 * 4 × 4 × 4) put down unstressed 1.5° below atan μ on a plane with
 * μ = μs = 0.5, and the mean downhill displacement of its base (mm) over
 * 2 s, every frame, at 10, 20 and 40 substeps × 1 iteration, at 10 substeps
 * × 2 and 4 iterations, at 20 and 40 substeps × 8 iterations (a converged
 * solve), and with unlimited friction (μ = 100) at the
 * defaults. Writes docs/collision/friction-creep.csv and .svg.
 *
 *   npx tsx scripts/friction-creep.ts [outDir]
 */
import { writeCsv, writeLineChart } from '../experiments/plot.js';
import { boxOnSlope, downhill } from '../test/helpers/slope.js';

const outDir = process.argv[2] ?? new URL('../docs/collision/', import.meta.url).pathname;
const MU = 0.5;
const deg = (Math.atan(MU) * 180) / Math.PI - 1.5;

function run(substeps: number, iterations: number, mu: number): { t: number; creep: number }[] {
  // onto the slope, the lowest layer at the collider's margin (as the test)
  const { world, th, base } = boxOnSlope('fem', deg, { substeps, iterations, mu });
  const x = world.store.x;
  const x0 = x.slice();
  const out = [{ t: 0, creep: 0 }];
  for (let f = 1; f <= 120; f++) {
    world.step();
    out.push({ t: f / 60, creep: 1000 * downhill(x, th, base, x0) });
  }
  return out;
}

const runs: [string, number, number, number][] = [
  ['10 substeps × 1 iteration (default)', 10, 1, MU],
  ['20 substeps × 1 iteration', 20, 1, MU],
  ['40 substeps × 1 iteration', 40, 1, MU],
  ['10 substeps × 2 iterations', 10, 2, MU],
  ['10 substeps × 4 iterations', 10, 4, MU],
  ['20 substeps × 8 iterations (converged)', 20, 8, MU],
  ['40 substeps × 8 iterations (converged)', 40, 8, MU],
  ['10 × 1, unlimited friction (μ = 100)', 10, 1, 100],
];
const rows: Record<string, number | string>[] = [];
for (const [series, s, it, mu] of runs) {
  const r = run(s, it, mu);
  const at = (t: number) => r[Math.round(t * 60)].creep;
  console.log(
    `${series.padEnd(40)} creep at 0.1 s ${at(0.1).toFixed(3)} mm, 0.2 s ${at(0.2).toFixed(3)}, 0.5 s ${at(0.5).toFixed(3)}, 2 s ${at(2).toFixed(3)} mm`,
  );
  for (const p of r) rows.push({ series, time: Number(p.t.toFixed(4)), creep: Number(p.creep.toFixed(5)) });
}
console.log(writeCsv(outDir, 'friction-creep', rows));
console.log(
  await writeLineChart(outDir, 'friction-creep', rows, {
    title: `FEM box put down ${deg.toFixed(2)}° on a slope, μ = μs = ${MU} (atan μ − 1.5°)`,
    x: 'time',
    y: 'creep',
    series: 'series',
    points: false,
    xTitle: 'time (s)',
    yTitle: 'downhill displacement of the base (mm)',
  }),
);
