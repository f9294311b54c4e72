/**
 * Position based fluids at rest: how incompressible a fluid at rest in a box
 * is against the solver's iterations and substeps (docs/fluids.md).
 *
 * A block fills the bottom of a tank of plane colliders (the walls count in
 * the density) and settles for 4 s; we then measure the density error
 * |ρ/ρ0 − 1| of the interior — the particles at least one kernel radius h
 * from every wall and from the free surface — as its mean and its largest
 * value, and the kinetic energy per mass left. Two geometries: the dam
 * break's water at rest (1.28 × 0.16 × 0.32 m, d = 2.67 cm, 6 layers) and a
 * deeper pool (0.4 × 0.4 × 0.4 m, d = 2.5 cm, 16 layers).
 *
 * Each PBF iteration is one Jacobi step, and the fluid must be pressed
 * together afresh in every substep to hold up its weight against gravity's
 * prediction, so the error falls with the iterations (about as 1/n) and with
 * the substeps (as h², the distance gravity moves a particle in a substep).
 */
import { addOpenTank, Fluid, type Vec3Tuple, World } from '../src/index.js';
import { type Row, writeFigures } from './plot.js';

export interface PoolCase {
  name: string;
  spacing: number;
  size: Vec3Tuple;
}

export const POOLS: PoolCase[] = [
  { name: "dam break's water at rest (6 layers)", spacing: 0.32 / 12, size: [1.28, 0.16, 0.32] },
  { name: 'deep pool (16 layers)', spacing: 0.025, size: [0.4, 0.4, 0.4] },
];

export interface RestDensity {
  /** Mean and largest |ρ/ρ0 − 1| of the interior particles. */
  mean: number;
  max: number;
  interior: number;
  /** Kinetic energy per mass at the end (J/kg). */
  kineticPerMass: number;
  speedClamps: number;
}

/** Settles a block filling the bottom of a tank for `seconds` and measures its interior density error. */
export function restDensity(
  pool: PoolCase,
  substeps: number,
  iterations: number,
  o: { seconds?: number; vorticity?: number } = {},
): RestDensity {
  const world = new World({ dt: 1 / 60, substeps, iterations });
  const [lx, ly, lz] = pool.size;
  addOpenTank(world, lx, lz, { friction: 0, margin: 0 });
  const fluid = new Fluid(world, {
    spacing: pool.spacing,
    blocks: [{ min: [0, 0, 0], max: [lx, ly, lz] }],
    vorticity: o.vorticity ?? 0,
  });
  const steps = Math.round((o.seconds ?? 4) * 60);
  for (let s = 0; s < steps; s++) world.step();
  const rho = fluid.densities();
  const x = fluid.positions();
  const h = fluid.kernelRadius;
  let top = -Infinity;
  for (let k = 0; k < fluid.activeCount; k++) top = Math.max(top, x[3 * k + 1]);
  let sum = 0,
    max = 0,
    n = 0;
  for (let k = 0; k < fluid.activeCount; k++) {
    const px = x[3 * k],
      py = x[3 * k + 1],
      pz = x[3 * k + 2];
    if (py < h || py > top - h || px < h || px > lx - h || pz < h || pz > lz - h) continue;
    const e = Math.abs(rho[k] / fluid.restDensity - 1);
    sum += e;
    if (e > max) max = e;
    n++;
  }
  return {
    mean: n > 0 ? sum / n : 0,
    max,
    interior: n,
    kineticPerMass: world.kineticEnergy() / (fluid.activeCount * fluid.particleMass),
    speedClamps: world.stats.speedClamps,
  };
}

export async function pbfDensity(outDir: string): Promise<{ rows: Row[]; files: string[] }> {
  const rows: Row[] = [];
  for (const pool of POOLS) {
    for (const substeps of [1, 2, 4]) {
      for (let iterations = 1; iterations <= 8; iterations++) {
        const r = restDensity(pool, substeps, iterations);
        rows.push({
          pool: pool.name,
          series: `${pool.name}, ${substeps} substep${substeps > 1 ? 's' : ''}`,
          substeps,
          iterations,
          meanError: 100 * r.mean,
          maxError: 100 * r.max,
          interiorParticles: r.interior,
          kineticPerMass: r.kineticPerMass,
          speedClamps: r.speedClamps,
        });
      }
    }
  }
  const files = await writeFigures(outDir, [
    {
      name: 'pbf-density-vs-iterations',
      rows,
      chart: {
        title: 'PBF: interior density error of a fluid at rest in a tank, 60 Hz',
        x: 'iterations',
        y: 'meanError',
        series: 'series',
        xTitle: 'Jacobi iterations per substep',
        yTitle: 'mean |ρ/ρ0 − 1| of the interior (%)',
        yLog: true,
      },
    },
  ]);
  return { rows, files };
}
