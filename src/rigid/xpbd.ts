/**
 * The core projection operations of Müller, Macklin, Chentanez, Jeschke and
 * Kim 2020, "Detailed Rigid Body Simulation with Extended Position Based
 * Dynamics", on the World's rigid-body store: positional corrections at a
 * point with the generalized inverse mass (eqs. 2–9), the angular
 * corrections that follow them (w = nᵀ I⁻¹ n), and the velocity-level
 * impulses of its velocity pass. Contacts, joints and — for two-way coupling — the
 * particle families call these; a correction of a body with inverse mass 0
 * (static, kinematic or asleep: see `movable`) is the caller's to skip.
 *
 * Conventions: r is the lever arm (world frame) from the centre of mass to
 * the point, n a unit direction, p = Δλ n a positional impulse (m·kg). The
 * world inverse inertia is I⁻¹ = R diag(1/I_b) Rᵀ with R = R(q), computed in
 * the body frame: nothing is stored per body beyond the store's channels.
 * The functions allocate nothing and write their vector results to `out`.
 */
import type { RigidStore } from '../core/rigid-store.js';
import { rotate, rotateBack } from './rotate.js';
import { turn } from './turn.generated.js';

// turn (q ← normalise(q + ½ [θ, 0] q), eqs. 8–9) is printed with its body-frame twin by scripts/kernels/emit-rotation.ts
export { turn };

/** Scratch of the rotations (module level: these run on one thread). */
const T = new Float64Array(3);

/** T ← Rᵀ v for the unit quaternion q[o …]. */
function toBody(q: Float64Array, o: number, vx: number, vy: number, vz: number): void {
  rotateBack(T, q, o, vx, vy, vz);
}

/** T ← R v for the unit quaternion q[o …]. */
function toWorld(q: Float64Array, o: number, vx: number, vy: number, vz: number): void {
  rotate(T, q, o, vx, vy, vz);
}

/**
 * Generalized inverse mass of body i for a positional correction along the
 * unit vector n at lever arm r (eq. 2): w = 1/m + (r × n)ᵀ I⁻¹ (r × n).
 */
export function positionalInverseMass(
  r: RigidStore,
  i: number,
  rx: number,
  ry: number,
  rz: number,
  nx: number,
  ny: number,
  nz: number,
): number {
  toBody(r.q, 4 * i, ry * nz - rz * ny, rz * nx - rx * nz, rx * ny - ry * nx);
  const J = r.invInertia,
    i3 = 3 * i;
  return r.invMass[i] + J[i3] * T[0] * T[0] + J[i3 + 1] * T[1] * T[1] + J[i3 + 2] * T[2] * T[2];
}

/** Generalized inverse mass of body i for a rotation about the unit axis n (angular constraints): nᵀ I⁻¹ n. */
export function angularInverseMass(r: RigidStore, i: number, nx: number, ny: number, nz: number): number {
  toBody(r.q, 4 * i, nx, ny, nz);
  const J = r.invInertia,
    i3 = 3 * i;
  return J[i3] * T[0] * T[0] + J[i3 + 1] * T[1] * T[1] + J[i3 + 2] * T[2] * T[2];
}

/** An impulse p = (px, py, pz) (sign ±1) at lever arm r = (rx, ry, rz) (world frame) on body i. */
export type RigidImpulse = (
  r: RigidStore,
  i: number,
  rx: number,
  ry: number,
  rz: number,
  px: number,
  py: number,
  pz: number,
  sign: number,
) => void;

/** L[3i …] += s p: a body's linear (x, v) or angular (ω) channel. */
function addScaled(L: Float64Array, i: number, s: number, px: number, py: number, pz: number): void {
  const i3 = 3 * i;
  L[i3] += s * px;
  L[i3 + 1] += s * py;
  L[i3 + 2] += s * pz;
}

/** T ← sign I⁻¹ (r × p), the world-frame turn of the impulse p at lever arm r (eqs. 8–9). */
const angularResponse: RigidImpulse = (r, i, rx, ry, rz, px, py, pz, sign) => {
  const i3 = 3 * i,
    i4 = 4 * i;
  const J = r.invInertia;
  toBody(r.q, i4, ry * pz - rz * py, rz * px - rx * pz, rx * py - ry * px);
  toWorld(r.q, i4, sign * J[i3] * T[0], sign * J[i3 + 1] * T[1], sign * J[i3 + 2] * T[2]);
};

/**
 * Applies the positional impulse p (sign ±1) at lever arm r to body i
 * (eqs. 6–9): x ← x ± p/m, q ← q ± ½ [I⁻¹ (r × p), 0] q.
 */
export const applyPositionalImpulse: RigidImpulse = (r, i, rx, ry, rz, px, py, pz, sign) => {
  addScaled(r.x, i, sign * r.invMass[i], px, py, pz);
  angularResponse(r, i, rx, ry, rz, px, py, pz, sign);
  turn(r.q, 4 * i, T[0], T[1], T[2]);
};

/** Applies the angular impulse p (sign ±1) to body i: q ← q ± ½ [I⁻¹ p, 0] q. */
export function applyAngularImpulse(
  r: RigidStore,
  i: number,
  px: number,
  py: number,
  pz: number,
  sign: number,
): void {
  const i3 = 3 * i,
    i4 = 4 * i;
  const J = r.invInertia;
  toBody(r.q, i4, px, py, pz);
  toWorld(r.q, i4, sign * J[i3] * T[0], sign * J[i3 + 1] * T[1], sign * J[i3 + 2] * T[2]);
  turn(r.q, i4, T[0], T[1], T[2]);
}

/**
 * Applies the velocity impulse p (sign ±1) at lever arm r to body i (the
 * velocity pass): v ← v ± p/m, ω ← ω ± I⁻¹ (r × p).
 */
export const applyVelocityImpulse: RigidImpulse = (r, i, rx, ry, rz, px, py, pz, sign) => {
  addScaled(r.v, i, sign * r.invMass[i], px, py, pz);
  angularResponse(r, i, rx, ry, rz, px, py, pz, sign);
  addScaled(r.omega, i, 1, T[0], T[1], T[2]);
};

/** out ← the world position of the body-frame point (lx, ly, lz) of body i at its current pose. */
export function bodyPointToWorld(
  r: RigidStore,
  i: number,
  lx: number,
  ly: number,
  lz: number,
  out: Float64Array,
  o = 0,
): void {
  toWorld(r.q, 4 * i, lx, ly, lz);
  out[o] = r.x[3 * i] + T[0];
  out[o + 1] = r.x[3 * i + 1] + T[1];
  out[o + 2] = r.x[3 * i + 2] + T[2];
}

/** out ← the body-frame coordinates of the world point (wx, wy, wz) for body i. */
export function worldPointToBody(
  r: RigidStore,
  i: number,
  wx: number,
  wy: number,
  wz: number,
  out: Float64Array,
  o = 0,
): void {
  toBody(r.q, 4 * i, wx - r.x[3 * i], wy - r.x[3 * i + 1], wz - r.x[3 * i + 2]);
  out[o] = T[0];
  out[o + 1] = T[1];
  out[o + 2] = T[2];
}

/**
 * One XPBD positional constraint between a point of rigid body i and a
 * particle (or any point of inverse mass wOther), as two-way coupling needs
 * (Müller et al. 2020, eqs. 2–9; for particles, 003 §4.2): `point` is the
 * world position of the contact on the body, n the unit direction in which
 * the body must move, c ≥ 0 the distance to close, α̃ = compliance / h² and
 * `lambda` the constraint's multiplier so far. Moves the body by +Δλ n at
 * the point and returns Δλ = (c − α̃ λ)/(w_body + wOther + α̃): the caller
 * moves its particle by −wOther Δλ n and adds Δλ to its multiplier.
 * A body with inverse mass 0 is not moved (w_body = 0).
 */
export function rigidPointCorrection(
  r: RigidStore,
  i: number,
  point: Float64Array,
  po: number,
  nx: number,
  ny: number,
  nz: number,
  c: number,
  wOther: number,
  alphaTilde: number,
  lambda: number,
): number {
  const rx = point[po] - r.x[3 * i],
    ry = point[po + 1] - r.x[3 * i + 1],
    rz = point[po + 2] - r.x[3 * i + 2];
  const movable = r.invMass[i] !== 0;
  const wb = movable ? positionalInverseMass(r, i, rx, ry, rz, nx, ny, nz) : 0;
  const den = wb + wOther + alphaTilde;
  if (!(den > 0)) return 0;
  const dl = (c - alphaTilde * lambda) / den;
  if (movable) applyPositionalImpulse(r, i, rx, ry, rz, dl * nx, dl * ny, dl * nz, 1);
  return dl;
}
