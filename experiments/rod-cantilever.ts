/**
 * Cosserat rods (Kugelstadt & Schömer 2016): a cantilever's tip deflection
 * under its own weight against Euler–Bernoulli's w L⁴ / (8 E I), over a
 * range of Young's moduli.
 *
 * A rod of 1 m, radius 1 cm, density 1000 kg/m³, 20 segments, clamped at
 * its root, settles under gravity (200 frames of 1/60 s, 20 substeps × 20
 * iterations, world damping 5). The bending stiffness is E I through the
 * bend–twist compliance α = 1 / (E I) per unit length of the joint (XPBD,
 * the paper's §4 with Macklin et al.'s compliance); the analytic deflection
 * holds for small deflection, so the softest moduli (deflection over 10 %
 * of L) are expected to fall below it (a large deflection shortens the lever).
 * A third series runs the direct solver (rod.solver 'direct', Deul et al.
 * 2018) at one iteration: it solves the linearised system of the whole rod
 * in each iteration, so the stiff moduli are converged too.
 */
import { Strands, World } from '../src/index.js';
import { type Row, writeFigures } from './plot.js';

export const moduli = [1e8, 2e8, 5e8, 1e9, 2e9, 5e9, 1e10];

/** Tip deflection of the settled cantilever and Euler–Bernoulli's, for one modulus and solver budget. */
export function cantilever(
  E: number,
  iterations = 20,
  segments = 20,
  solver: 'gauss-seidel' | 'direct' = 'gauss-seidel',
): Row {
  const L = 1,
    r = 0.01,
    rho = 1000;
  const world = new World({ dt: 1 / 60, substeps: 20, iterations, damping: 5 });
  const positions: number[] = [];
  for (let j = 0; j <= segments; j++) positions.push((j * L) / segments, 0, 0);
  const rod = new Strands(world, {
    positions,
    strandStart: [0, segments + 1],
    rod: { youngsModulus: E, radius: r, density: rho, solver },
  });
  for (let step = 0; step < 200; step++) world.step();
  const w = rho * Math.PI * r * r * 9.81;
  const I = (Math.PI * r ** 4) / 4;
  const eulerBernoulli = (w * L ** 4) / (8 * E * I);
  const tip = -world.store.x[3 * (rod.offset + segments) + 1];
  return {
    E,
    iterations: `${solver === 'direct' ? 'direct, ' : ''}${iterations} iteration${iterations === 1 ? '' : 's'}`,
    tip,
    eulerBernoulli,
    ratio: tip / eulerBernoulli,
  };
}

export async function rodCantileverExperiment(outDir: string): Promise<{ rows: Row[]; files: string[] }> {
  const rows = [
    ...[20, 5].flatMap((it) => moduli.map((E) => cantilever(E, it))),
    ...moduli.map((E) => cantilever(E, 1, 20, 'direct')),
  ];
  const plotRows: Row[] = [
    ...rows.map((r) => ({ E: r.E, deflection: r.tip, series: `pbdkit, ${r.iterations}` })),
    ...moduli.map((E) => ({
      E,
      deflection: rows.find((r) => r.E === E)!.eulerBernoulli,
      series: 'Euler–Bernoulli w L⁴/(8 E I)',
    })),
  ];
  const files = await writeFigures(outDir, [
    {
      name: 'rod-cantilever',
      rows,
      plotted: plotRows,
      chart: {
        title: 'Cantilever (1 m, r = 1 cm, 20 segments) tip deflection under gravity',
        x: 'E',
        y: 'deflection',
        series: 'series',
        xLog: true,
        yLog: true,
        xTitle: "Young's modulus E (Pa)",
        yTitle: 'tip deflection (m)',
      },
    },
  ]);
  return { rows, files };
}
