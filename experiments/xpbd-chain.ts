/**
 * XPBD and the iteration count: the stretch of a hanging chain at rest
 * against the analytic static stretch α m g N (N − 1)/2, (left) against the
 * solver iterations at one substep per frame and (right) against the
 * substeps at one iteration each, for both sweep orders.
 *
 * XPBD (the 2016 extension the 2017 survey, seed 004, presents as the link
 * to implicit Euler) reaches the compliance's stretch when the solve of each
 * substep converges. Its multipliers restart at 0 every substep, so with few
 * iterations the solve stops short; how short is set by ε = h² / (m α) = (ω h)²,
 * the square of a link's natural frequency ω = 1/√(m α) times the substep h:
 * at one iteration per substep the error is about ε with the forward sweep
 * and about 1.4 ε² with the symmetric one, whatever the chain's length.
 *
 * The chain settles under rigid-mode damping (003 §3.5), which acts before
 * gravity in a substep and so leaves the static state exact; point damping
 * would scale gravity's velocity increment by e^{−c h} and the stretch with it.
 */
import { DistanceConstraints, RigidModeDamping, type SweepKind, World } from '../src/index.js';
import { type Row, writeFigures } from './plot.js';

/** The chain of the experiment: 10 particles of 0.1 kg, 0.1 m apart, the top one pinned. */
export const CHAIN = { particles: 10, mass: 0.1, spacing: 0.1, gravity: 9.81, dt: 1 / 60 };

/** The analytic static stretch of the chain for compliance α (m/N): α m g N (N − 1)/2. */
export function analyticChainStretch(compliance: number): number {
  const { particles: N, mass: m, gravity: g } = CHAIN;
  return (compliance * m * g * N * (N - 1)) / 2;
}

/**
 * A vertical chain of n particles of mass m, `spacing` apart below the origin, with XPBD distance
 * constraints of the given compliance between neighbours, added to the world; returns the index
 * of its top particle (not pinned: the caller attaches it).
 */
export function hangChain(world: World, n: number, m: number, spacing: number, compliance: number): number {
  const start = world.store.allocate(n, 0);
  for (let i = 0; i < n; i++) {
    world.store.x[3 * (start + i) + 1] = -i * spacing;
    world.store.setMass(start + i, m);
  }
  const pairs: number[] = [];
  for (let i = 0; i < n - 1; i++) pairs.push(start + i, start + i + 1);
  world.addConstraintSet(new DistanceConstraints(world.store, pairs, undefined, { compliance }));
  return start;
}

/** Relative error of the chain's stretch at rest, (s − s_analytic)/s_analytic. */
export function chainStretchError(
  compliance: number,
  substeps: number,
  iterations: number,
  sweep: SweepKind,
): number {
  const { particles: N, mass: m, spacing: L, gravity: g, dt } = CHAIN;
  const world = new World({ dt, substeps, iterations, sweep, gravity: [0, -g, 0] });
  const start = hangChain(world, N, m, L, compliance);
  world.addConstraintSet(new RigidModeDamping(start, N, 0.05));
  world.attachments.attach(start);
  const bottom = 3 * (start + N - 1) + 1;
  let last = 0;
  for (let k = 0; k < 6000; k++) {
    world.step();
    if (k % 100 === 99) {
      const y = world.store.x[bottom];
      if (Math.abs(y - last) < 1e-13 && world.kineticEnergy() < 1e-20) break;
      last = y;
    }
  }
  const stretch = -world.store.x[bottom] - (N - 1) * L;
  return stretch / analyticChainStretch(compliance) - 1;
}

/** ε = h² / (m α) = (ω h)²: a link's natural frequency times the substep, squared. */
export function chainEpsilon(compliance: number, substeps: number): number {
  const h = CHAIN.dt / substeps;
  return (h * h) / (CHAIN.mass * compliance);
}

const COMPLIANCES = [1e-3, 1e-4];
const SWEEPS: SweepKind[] = ['symmetric', 'forward'];

/** The chain's stretch error against `x` (iterations or substeps), one line per solver, both axes logarithmic. */
function errorAxes(x: string) {
  return {
    x,
    y: 'absErrorPercent',
    series: 'series',
    yTitle: '|stretch − α m g N(N−1)/2| (% of it)',
    xLog: true,
    yLog: true,
  };
}

export async function xpbdChain(
  outDir: string,
): Promise<{ iterations: Row[]; substeps: Row[]; files: string[] }> {
  const byIterations: Row[] = [];
  const bySubsteps: Row[] = [];
  for (const alpha of COMPLIANCES) {
    for (const sweep of SWEEPS) {
      const series = `α = ${alpha} m/N, ${sweep} sweep`;
      for (const it of [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64]) {
        const e = chainStretchError(alpha, 1, it, sweep);
        byIterations.push({
          iterations: it,
          series,
          error: e,
          absErrorPercent: Math.max(1e-9, 100 * Math.abs(e)),
        });
      }
      for (const n of [1, 2, 3, 4, 6, 8, 10, 15, 20, 30, 50]) {
        const e = chainStretchError(alpha, n, 1, sweep);
        bySubsteps.push({
          substeps: n,
          series,
          epsilon: chainEpsilon(alpha, n),
          error: e,
          absErrorPercent: Math.max(1e-9, 100 * Math.abs(e)),
        });
      }
    }
  }
  const files = await writeFigures(outDir, [
    {
      name: 'xpbd-chain-vs-iterations',
      rows: byIterations,
      chart: {
        title: 'XPBD hanging chain (10 × 0.1 kg): stretch error at 1 substep of 1/60 s',
        ...errorAxes('iterations'),
      },
    },
    {
      name: 'xpbd-chain-vs-substeps',
      rows: bySubsteps,
      chart: {
        title: 'XPBD hanging chain (10 × 0.1 kg): stretch error at 1 iteration per substep, dt = 1/60 s',
        ...errorAxes('substeps'),
      },
    },
  ]);
  return { iterations: byIterations, substeps: bySubsteps, files };
}
