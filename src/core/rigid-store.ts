import { mat3FromQuat } from '../math/mat3.js';
import { PbdError } from './errors.js';
import type { Vec3Tuple } from './motion.js';
import { RigidArrays, type RigidState } from './rigid-arrays.generated.js';

export type { RigidState } from './rigid-arrays.generated.js';

/** Gravity does not act on the body. */
export const RIGID_NO_GRAVITY = 1;
/** The body is not integrated (removed, or asleep): its pose and velocities stay as they are. */
export const RIGID_DISABLED = 2;

/** A rigid body's initial state (World.rigids.add). */
export interface RigidBodyOptions {
  /** Mass (kg), > 0; Infinity for a body that forces and constraints never move. */
  mass: number;
  /** Principal moments of inertia in the body frame (kg m²), each > 0 or Infinity. */
  inertia: Vec3Tuple;
  /** Position of the centre of mass (m). Default 0. */
  position?: Vec3Tuple;
  /** Orientation of the body frame, a quaternion (x, y, z, w), normalised. Default identity. */
  orientation?: [number, number, number, number];
  /** Linear velocity (m/s). Default 0. */
  velocity?: Vec3Tuple;
  /** Angular velocity (rad/s, world frame). Default 0. */
  angularVelocity?: Vec3Tuple;
  /** RIGID_NO_GRAVITY | RIGID_DISABLED. Default 0. */
  flags?: number;
}

/**
 * The rigid-body store, beside the particle store: every rigid body of a
 * World in flat typed arrays (on SharedArrayBuffer when the world's memory
 * is shared), in the layout of Müller et al. 2020, "Detailed Rigid Body
 * Simulation with Extended Position Based Dynamics": a pose (position of
 * the centre of mass and a unit quaternion), the pose at the start of the
 * substep, linear and angular velocity (world frame), mass and principal
 * moments of inertia in the body frame, with their inverses, and flags.
 *
 * The World's rigid stages predict the poses (phase `predict`) and derive
 * the velocities from the change of pose (phase `update`); constraint sets
 * of the rigid-body family move `x` and `q` in between, as particle sets
 * move `p`. Like the particle store's, the arrays are replaced when the
 * store grows (`version` increases): read them afresh in every pass.
 *
 * The per-body arrays (x, q, xPrev, qPrev, v, omega, mass, invMass, inertia,
 * invInertia, flags), their grow and the checkpoint's state (RigidState,
 * saveState) are RigidArrays', printed from one table by
 * scripts/kernels/emit-layouts.ts.
 */
export class RigidStore extends RigidArrays {
  readonly shared: boolean;

  constructor(capacity = 16, options: { shared?: boolean } = {}) {
    super();
    this.shared = !!options.shared && typeof SharedArrayBuffer !== 'undefined';
    this.grow(Math.max(4, capacity | 0));
  }

  /** Adds a body and returns its index. Bad input is a PbdError naming the field. */
  add(o: RigidBodyOptions): number {
    const where = `rigid body ${this.count}`;
    const vec = (v: readonly number[] | undefined, n: number, name: string, fallback: number[]): number[] => {
      if (v === undefined) return fallback;
      if (v.length !== n || !v.every((c) => Number.isFinite(c))) {
        throw new PbdError('rigid/invalid', `${where}.${name}`, `must be ${n} finite numbers, got [${v}]`);
      }
      return [...v];
    };
    const x = vec(o.position, 3, 'position', [0, 0, 0]);
    const q = vec(o.orientation, 4, 'orientation', [0, 0, 0, 1]);
    const ql = Math.hypot(q[0], q[1], q[2], q[3]);
    if (!(ql > 0)) {
      throw new PbdError(
        'rigid/invalid',
        `${where}.orientation`,
        'is the zero quaternion',
        'give a unit quaternion (x, y, z, w); [0, 0, 0, 1] is no rotation',
      );
    }
    const v = vec(o.velocity, 3, 'velocity', [0, 0, 0]);
    const w = vec(o.angularVelocity, 3, 'angularVelocity', [0, 0, 0]);
    const flags = o.flags ?? 0;
    if (!Number.isInteger(flags) || (flags & ~(RIGID_NO_GRAVITY | RIGID_DISABLED)) !== 0) {
      throw new PbdError(
        'rigid/invalid',
        `${where}.flags`,
        `unknown flags ${flags}`,
        'combine RIGID_NO_GRAVITY and RIGID_DISABLED',
      );
    }
    if (this.count === this.capacity) this.grow(2 * this.capacity);
    const i = this.count++;
    for (let k = 0; k < 3; k++) {
      this.x[3 * i + k] = this.xPrev[3 * i + k] = x[k];
      this.v[3 * i + k] = v[k];
      this.omega[3 * i + k] = w[k];
    }
    for (let k = 0; k < 4; k++) this.q[4 * i + k] = this.qPrev[4 * i + k] = q[k] / ql;
    this.flags[i] = flags;
    try {
      this.setMass(i, o.mass);
      this.setInertia(i, o.inertia);
    } catch (e) {
      this.count--;
      throw e;
    }
    return i;
  }

  /** Sets the mass of body i (> 0, or Infinity for a body that is never moved). */
  setMass(i: number, m: number): void {
    if (!(m > 0)) {
      throw new PbdError(
        'rigid/non-positive-mass',
        `rigid body ${i}.mass`,
        `must be > 0, got ${m}`,
        'give a positive mass, or Infinity for a body that never moves',
      );
    }
    this.mass[i] = m;
    this.invMass[i] = Number.isFinite(m) ? 1 / m : 0;
  }

  /** Sets the principal moments of inertia (body frame) of body i: each > 0, or Infinity for an axis that never turns. */
  setInertia(i: number, inertia: readonly number[]): void {
    if (inertia?.length !== 3) {
      throw new PbdError(
        'rigid/invalid',
        `rigid body ${i}.inertia`,
        'must be three principal moments (kg m²)',
      );
    }
    for (let k = 0; k < 3; k++) {
      const m = inertia[k];
      if (!(m > 0)) {
        throw new PbdError(
          'rigid/non-positive-inertia',
          `rigid body ${i}.inertia[${k}]`,
          `must be > 0, got ${m}`,
          'give positive moments of inertia (a solid box of mass m and sides a, b, c: m (b² + c²)/12 …)',
        );
      }
      this.inertia[3 * i + k] = m;
      this.invInertia[3 * i + k] = Number.isFinite(m) ? 1 / m : 0;
    }
  }

  /**
   * Angular momentum L = R I_b Rᵀ ω of body i (world frame) into out, with R
   * the orientation half-way through the last substep, normalise(q_prev + q):
   * ω is derived from the change of pose over the substep, so, like
   * v = (x − x_prev)/h, it is the velocity at the middle of the substep, and
   * the inertia is taken there too. This is the momentum the rigid stages
   * conserve to round-off in torque-free motion (core/rigid-stages.ts);
   * R(q) I_b R(q)ᵀ ω differs from it by a turn of O(h|ω|).
   */
  angularMomentum(i: number, out = new Float64Array(3)): Float64Array {
    const q = this.q,
      p = this.qPrev,
      w = this.omega,
      I = this.inertia;
    const i4 = 4 * i;
    const d = q[i4] * p[i4] + q[i4 + 1] * p[i4 + 1] + q[i4 + 2] * p[i4 + 2] + q[i4 + 3] * p[i4 + 3];
    const sgn = d < 0 ? -1 : 1;
    const h = halfTurn;
    for (let k = 0; k < 4; k++) h[k] = q[i4 + k] + sgn * p[i4 + k];
    const len = Math.sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2] + h[3] * h[3]);
    for (let k = 0; k < 4; k++) h[k] /= len;
    // R = R(q), ω_b = Rᵀ ω, L = R (I_b ω_b)
    const R = rotation;
    mat3FromQuat(R, 0, h, 0);
    const wx = w[3 * i],
      wy = w[3 * i + 1],
      wz = w[3 * i + 2];
    const lx = I[3 * i] * (R[0] * wx + R[3] * wy + R[6] * wz),
      ly = I[3 * i + 1] * (R[1] * wx + R[4] * wy + R[7] * wz),
      lz = I[3 * i + 2] * (R[2] * wx + R[5] * wy + R[8] * wz);
    out[0] = R[0] * lx + R[1] * ly + R[2] * lz;
    out[1] = R[3] * lx + R[4] * ly + R[5] * lz;
    out[2] = R[6] * lx + R[7] * ly + R[8] * lz;
    return out;
  }

  /** Kinetic energy ½ m v² + ½ ωᵀ I ω of body i (J). */
  kineticEnergy(i: number): number {
    const v = this.v;
    const L = this.angularMomentum(i, scratch);
    const w = this.omega;
    const lin =
      this.invMass[i] === 0 ? 0 : this.mass[i] * (v[3 * i] ** 2 + v[3 * i + 1] ** 2 + v[3 * i + 2] ** 2);
    return 0.5 * (lin + L[0] * w[3 * i] + L[1] * w[3 * i + 1] + L[2] * w[3 * i + 2]);
  }

  /** Restores a saved state exactly (bodies beyond the saved count are dropped, missing ones added). */
  loadState(s: RigidState): void {
    if (s.count > this.capacity) this.grow(Math.max(s.count, 2 * this.capacity));
    this.count = s.count;
    this.loadSaved(s);
    this.xPrev.set(s.x);
    this.qPrev.set(s.q);
  }
}

const scratch = new Float64Array(3);
const halfTurn = new Float64Array(4);
const rotation = new Float64Array(9);
