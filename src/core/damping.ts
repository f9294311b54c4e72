import { invert3 } from '../math/mat3.js';
import type { ConstraintSet, StepContext } from './constraint-set.js';
import { PbdError } from './errors.js';

/**
 * Damping that leaves a body's rigid motion untouched (003 §3.5; survey 000
 * §3.7): compute the body's centre-of-mass velocity v_cm and angular velocity
 * ω = I⁻¹ L, then move each particle's velocity a fraction k toward
 * v_cm + ω × r_i. With k = 1 only the rigid motion survives. Particles with
 * inverse mass 0 are left out.
 */
export class RigidModeDamping implements ConstraintSet {
  readonly kind = 'rigid-mode-damping';
  readonly order = 0;
  enabled = true;
  readonly count = 1;
  /** k_damping ∈ [0, 1], applied once per substep. */
  k: number;
  /** Particles [start, start + length) of the store. */
  start: number;
  length: number;
  private readonly I = new Float64Array(9);
  private readonly Iinv = new Float64Array(9);

  constructor(start: number, length: number, k: number) {
    if (!(k >= 0 && k <= 1)) {
      throw new PbdError(
        'damping/range',
        'globalDamping',
        `must lie in [0, 1], got ${k}`,
        '0 is no damping, 1 keeps only the rigid motion',
      );
    }
    this.start = start;
    this.length = length;
    this.k = k;
  }

  project(): void {}

  dampVelocities(ctx: StepContext): void {
    if (this.k === 0) return;
    const { x, v, mass, invMass } = ctx.store;
    const end = this.start + this.length;
    // (1)–(2) centre of mass and its velocity
    let M = 0,
      cx = 0,
      cy = 0,
      cz = 0,
      vx = 0,
      vy = 0,
      vz = 0;
    for (let i = this.start; i < end; i++) {
      if (invMass[i] === 0) continue;
      const m = mass[i];
      M += m;
      cx += x[3 * i] * m;
      cy += x[3 * i + 1] * m;
      cz += x[3 * i + 2] * m;
      vx += v[3 * i] * m;
      vy += v[3 * i + 1] * m;
      vz += v[3 * i + 2] * m;
    }
    if (M === 0) return;
    cx /= M;
    cy /= M;
    cz /= M;
    vx /= M;
    vy /= M;
    vz /= M;
    // (3)–(4) angular momentum and inertia tensor  I = Σ m (|r|² 1 − r rᵀ)
    let Lx = 0,
      Ly = 0,
      Lz = 0;
    const I = this.I;
    I.fill(0);
    for (let i = this.start; i < end; i++) {
      if (invMass[i] === 0) continue;
      const m = mass[i];
      const rx = x[3 * i] - cx,
        ry = x[3 * i + 1] - cy,
        rz = x[3 * i + 2] - cz;
      const ux = v[3 * i] * m,
        uy = v[3 * i + 1] * m,
        uz = v[3 * i + 2] * m;
      Lx += ry * uz - rz * uy;
      Ly += rz * ux - rx * uz;
      Lz += rx * uy - ry * ux;
      I[0] += m * (ry * ry + rz * rz);
      I[4] += m * (rx * rx + rz * rz);
      I[8] += m * (rx * rx + ry * ry);
      I[1] -= m * rx * ry;
      I[2] -= m * rx * rz;
      I[5] -= m * ry * rz;
    }
    I[3] = I[1];
    I[6] = I[2];
    I[7] = I[5];
    // (5) ω = I⁻¹ L; a collinear body has a singular I: regularise its zero axis
    let wx = 0,
      wy = 0,
      wz = 0;
    if (!invert3(this.Iinv, 0, I, 0, 1e-12)) {
      const tr = (I[0] + I[4] + I[8]) * 1e-9 + 1e-300;
      I[0] += tr;
      I[4] += tr;
      I[8] += tr;
      invert3(this.Iinv, 0, I, 0, 0);
    }
    const J = this.Iinv;
    wx = J[0] * Lx + J[1] * Ly + J[2] * Lz;
    wy = J[3] * Lx + J[4] * Ly + J[5] * Lz;
    wz = J[6] * Lx + J[7] * Ly + J[8] * Lz;
    // (6)–(9) damp deviations from the rigid motion
    const k = this.k;
    for (let i = this.start; i < end; i++) {
      if (invMass[i] === 0) continue;
      const rx = x[3 * i] - cx,
        ry = x[3 * i + 1] - cy,
        rz = x[3 * i + 2] - cz;
      const tx = vx + (wy * rz - wz * ry),
        ty = vy + (wz * rx - wx * rz),
        tz = vz + (wx * ry - wy * rx);
      v[3 * i] += k * (tx - v[3 * i]);
      v[3 * i + 1] += k * (ty - v[3 * i + 1]);
      v[3 * i + 2] += k * (tz - v[3 * i + 2]);
    }
  }
}
