/**
 * 002 Figure 5: total strain of a beam fixed at its top and stretched by a
 * constant 100 N force, at rest, (left) against the number of solver
 * iterations for a fixed Young's modulus and (right) against Young's
 * modulus for five iterations. We run both projection rules: the paper's
 * C = E (PBD) and the XPBD form C = √(2E), α = 1, and compare with the
 * analytic static strain of a StVK bar in uniaxial tension,
 * λ k (λ² − 1)/2 = F / A0 (λ the stretch, P = F S with S = k E).
 */
import type { ConstraintSet, StepContext } from '../src/core/constraint-set.js';
import { SoftBody, type SolverKind, tetBox, World } from '../src/index.js';
import { type Row, writeFigures } from './plot.js';

/** A constant external force on some particles (Algorithm 1, line 1: f_ext). */
class PointForces implements ConstraintSet {
  readonly kind = 'point-force';
  readonly count = 0;
  enabled = true;
  constructor(
    private readonly particles: number[],
    private readonly force: [number, number, number],
  ) {}
  applyForces(ctx: StepContext): void {
    const { v, invMass } = ctx.store;
    for (const i of this.particles) {
      const s = ctx.h * invMass[i];
      v[3 * i] += s * this.force[0];
      v[3 * i + 1] += s * this.force[1];
      v[3 * i + 2] += s * this.force[2];
    }
  }
  project(): void {}
}

const LENGTH = 1;
const SIDE = 0.2;
const LOAD = 100;

/** Strain (%) of the beam at rest under the load. */
export function beamStrain(youngsModulus: number, iterations: number, solver: SolverKind): number {
  const world = new World({ dt: 0.005, substeps: 1, iterations, solver, gravity: [0, 0, 0], damping: 8 });
  const body = new SoftBody(world, {
    mesh: tetBox({
      size: [SIDE, LENGTH, SIDE],
      resolution: [3, 11, 3],
      origin: [-SIDE / 2, -LENGTH, -SIDE / 2],
    }),
    material: { youngsModulus, poissonRatio: 0.3 },
  });
  const bottom: number[] = [];
  for (let i = 0; i < body.count; i++) {
    const y = body.restPositions[3 * i + 1];
    if (y > -1e-9) body.pin(i);
    if (y < -LENGTH + 1e-9) bottom.push(body.offset + i);
  }
  world.addConstraintSet(new PointForces(bottom, [0, -LOAD / bottom.length, 0]));
  let last = 0;
  for (let s = 0; s < 4000; s++) {
    world.step();
    if (s % 200 === 199) {
      const d = displacement(world, bottom);
      if (Math.abs(d - last) < 1e-7 && world.kineticEnergy() < 1e-10) break;
      last = d;
    }
  }
  return (100 * displacement(world, bottom)) / LENGTH;
}

function displacement(world: World, bottom: number[]): number {
  let d = 0;
  for (const i of bottom) d += -LENGTH - world.store.x[3 * i + 1];
  return d / bottom.length;
}

/** The analytic static strain (%) of a StVK bar in uniaxial tension: λ k (λ² − 1)/2 = F/A0. */
export function analyticStrain(youngsModulus: number): number {
  const target = LOAD / (SIDE * SIDE) / youngsModulus;
  let lo = 1,
    hi = 3;
  for (let k = 0; k < 100; k++) {
    const m = 0.5 * (lo + hi);
    if ((m * (m * m - 1)) / 2 < target) lo = m;
    else hi = m;
  }
  return 100 * (0.5 * (lo + hi) - 1);
}

export async function fig5(outDir: string): Promise<{ left: Row[]; right: Row[]; files: string[] }> {
  const k0 = 1e5;
  const left: Row[] = [];
  for (const it of [1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20]) {
    left.push({ iterations: it, solver: 'PBD, C = E (002 eq. 3)', strain: beamStrain(k0, it, 'pbd') });
    left.push({ iterations: it, solver: 'XPBD, C = √(2E)', strain: beamStrain(k0, it, 'xpbd') });
    left.push({ iterations: it, solver: 'analytic static (StVK bar)', strain: analyticStrain(k0) });
  }
  const right: Row[] = [];
  for (const k of [2e4, 5e4, 1e5, 2e5, 5e5, 1e6]) {
    right.push({ youngsModulus: k, solver: 'PBD, C = E (002 eq. 3)', strain: beamStrain(k, 5, 'pbd') });
    right.push({ youngsModulus: k, solver: 'XPBD, C = √(2E)', strain: beamStrain(k, 5, 'xpbd') });
    right.push({ youngsModulus: k, solver: 'analytic static (StVK bar)', strain: analyticStrain(k) });
  }
  const files = await writeFigures(outDir, [
    {
      name: 'fig5-strain-vs-iterations',
      rows: left,
      chart: {
        title: `002 Figure 5 (left): beam under ${LOAD} N, k = ${k0} Pa`,
        x: 'iterations',
        y: 'strain',
        series: 'solver',
        xTitle: 'solver iterations per time step',
        yTitle: 'total strain (%)',
        yLog: true,
      },
    },
    {
      name: 'fig5-strain-vs-youngs-modulus',
      rows: right,
      chart: {
        title: `002 Figure 5 (right): beam under ${LOAD} N, 5 iterations`,
        x: 'youngsModulus',
        y: 'strain',
        series: 'solver',
        xTitle: "Young's modulus (Pa)",
        yTitle: 'total strain (%)',
        xLog: true,
        yLog: true,
      },
    },
  ]);
  return { left, right, files };
}
