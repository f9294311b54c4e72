/**
 * Two-way coupling of particles and rigid bodies through the collider
 * contacts (ColliderContacts): a contact with a collider that follows a rigid
 * body (`WorldCollider.rigid`, installed by rigid/coupling.ts) pushes back on
 * the body. 003 §4.2 couples particles and rigid bodies by impulses
 * m·Δp/Δt: a particle's correction Δp is an impulse m Δp / Δt that the body
 * receives with the opposite sign. In the XPBD form of Müller et al. 2020
 * (eqs. 2–9) the two share one positional correction Δλ along n with the
 * particle's inverse mass w and the body's generalized inverse mass at the
 * contact point, w_b = 1/m + (r × n)ᵀ I⁻¹ (r × n):
 *
 *   Δλ = −C / (w + w_b),   p ← p + w Δλ n,   body ← −Δλ n at the point,
 *
 * so m Δp of the particle and of the body are equal and opposite (linear
 * momentum is exact) and a light particle barely moves a heavy box. The
 * contact's point and normal are kept in the body's frame, measured at the
 * body's current pose every projection (the paper's "most recent constraint
 * directions"). Position-level friction works on the relative tangential
 * displacement of the particle and the body's surface point over the
 * substep, with the same impulse split; restitution in the velocity pass is
 * an impulse on both with the same masses. A body that sleeps, or cannot
 * move (static, kinematic), gets w_b = 0: it acts as the moving collider it
 * follows.
 */
import type { StepContext } from '../core/constraint-set.js';
import { RIGID_DISABLED, type RigidStore } from '../core/rigid-store.js';
import type { WorldCollider } from '../core/world-collider.js';
import { quatRotate, quatRotateInverse } from '../math/quat.js';
import { applyPositionalImpulse, applyVelocityImpulse, positionalInverseMass } from '../rigid/xpbd.js';
import { coulombShare, tangentialPart } from './coulomb.js';

/** What the coupling reads and writes of ColliderContacts (its arrays, per contact k). */
export interface CoupledContactArrays {
  readonly particle: Int32Array;
  readonly collider: Int32Array;
  readonly q: Float64Array;
  readonly n: Float64Array;
  readonly lambdaN: Float64Array;
  readonly vn0: Float64Array;
  readonly deep: Uint8Array;
  readonly rigid: Int32Array;
  readonly anchor: Float64Array;
  readonly normalLocal: Float64Array;
  readonly colliders: readonly WorldCollider[];
}

/** Scratch: the contact point now (0 … 2), at the substep's start (3 … 5), the normal (6 … 8). */
const S = new Float64Array(9);
/** Scratch: the tangential part of a contact's relative displacement (coulomb.ts). */
const T = new Float64Array(3);

/** May contacts move body b now (dynamic and awake)? */
function movable(r: RigidStore, b: number): boolean {
  return r.invMass[b] !== 0 && (r.flags[b] & RIGID_DISABLED) === 0;
}

/** Stores contact k's point and normal in the frame of its body (at the body's current, predicted pose). */
export function anchorCoupledContact(cc: CoupledContactArrays, k: number, r: RigidStore): void {
  const b = cc.rigid[k],
    b3 = 3 * b,
    k3 = 3 * k;
  quatRotateInverse(
    cc.anchor,
    k3,
    r.q,
    4 * b,
    cc.q[k3] - r.x[b3],
    cc.q[k3 + 1] - r.x[b3 + 1],
    cc.q[k3 + 2] - r.x[b3 + 2],
  );
  quatRotateInverse(cc.normalLocal, k3, r.q, 4 * b, cc.n[k3], cc.n[k3 + 1], cc.n[k3 + 2]);
}

/** S[0 … 2] ← the contact point of k at the body's pose now, S[6 … 8] ← its normal. */
function placeContact(cc: CoupledContactArrays, k: number, r: RigidStore, b: number): void {
  const k3 = 3 * k,
    b3 = 3 * b,
    b4 = 4 * b,
    a = cc.anchor;
  quatRotate(S, 0, r.q, b4, a[k3], a[k3 + 1], a[k3 + 2]);
  S[0] += r.x[b3];
  S[1] += r.x[b3 + 1];
  S[2] += r.x[b3 + 2];
  const nl = cc.normalLocal;
  quatRotate(S, 6, r.q, b4, nl[k3], nl[k3 + 1], nl[k3 + 2]);
}

/**
 * Projects contact k (a particle against a rigid body's collider): the
 * unilateral constraint C = (p − q)·n ≥ 0 at the body's current pose, the
 * correction shared by the particle and the body (see the file comment),
 * then position-level Coulomb friction on the relative displacement, as
 * ColliderContacts.project does for a given collider.
 */
export function projectCoupledContact(cc: CoupledContactArrays, k: number, ctx: StepContext): void {
  const st = ctx.store,
    r = ctx.rigids;
  const p = st.p,
    x = st.x;
  const i = cc.particle[k],
    i3 = 3 * i,
    b = cc.rigid[k],
    b3 = 3 * b;
  const w = st.invMass[i];
  placeContact(cc, k, r, b);
  const nx = S[6],
    ny = S[7],
    nz = S[8];
  const C = (p[i3] - S[0]) * nx + (p[i3 + 1] - S[1]) * ny + (p[i3 + 2] - S[2]) * nz;
  if (C >= 0) return;
  const mv = movable(r, b);
  let rx = S[0] - r.x[b3],
    ry = S[1] - r.x[b3 + 1],
    rz = S[2] - r.x[b3 + 2];
  const wb = mv ? positionalInverseMass(r, b, rx, ry, rz, nx, ny, nz) : 0;
  const dl = -C / (w + wb);
  p[i3] += w * dl * nx;
  p[i3 + 1] += w * dl * ny;
  p[i3 + 2] += w * dl * nz;
  if (mv) applyPositionalImpulse(r, b, rx, ry, rz, -dl * nx, -dl * ny, -dl * nz, 1);
  cc.lambdaN[k] += w * dl;
  // position-level Coulomb friction on the displacement relative to the body's surface point
  const col = cc.colliders[cc.collider[k]];
  const mu = col.friction,
    mus = col.staticFriction;
  if (mu === 0 && mus === 0) return;
  if (mv) placeContact(cc, k, r, b);
  // the same body point at the pose of the substep's start
  const a = cc.anchor,
    k3 = 3 * k;
  quatRotate(S, 3, r.qPrev, 4 * b, a[k3], a[k3 + 1], a[k3 + 2]);
  const dx = p[i3] - x[i3] - (S[0] - S[3] - r.xPrev[b3]),
    dy = p[i3 + 1] - x[i3 + 1] - (S[1] - S[4] - r.xPrev[b3 + 1]),
    dz = p[i3 + 2] - x[i3 + 2] - (S[2] - S[5] - r.xPrev[b3 + 2]);
  // Coulomb's split (coulomb.ts): t the tangential part, g the share of it removed
  const tl = tangentialPart(T, dx, dy, dz, nx, ny, nz);
  if (!(tl > 1e-15)) return;
  const g = coulombShare(tl, -C, mus, mu);
  // remove g of the relative tangential displacement: Δλ_t along −t̂ with both inverse masses
  const ux = T[0] / tl,
    uy = T[1] / tl,
    uz = T[2] / tl;
  rx = S[0] - r.x[b3];
  ry = S[1] - r.x[b3 + 1];
  rz = S[2] - r.x[b3 + 2];
  const wt = mv ? positionalInverseMass(r, b, rx, ry, rz, ux, uy, uz) : 0;
  const dt = (g * tl) / (w + wt);
  p[i3] -= w * dt * ux;
  p[i3 + 1] -= w * dt * uy;
  p[i3 + 2] -= w * dt * uz;
  if (mv) applyPositionalImpulse(r, b, rx, ry, rz, dt * ux, dt * uy, dt * uz, 1);
}

/**
 * The velocity pass of contact k (Algorithm 1 line 16): the normal velocity
 * of the particle relative to the body's surface point becomes −e times the
 * arrival speed (a particle moved out of a deep penetration keeps only an
 * outward normal velocity it already had), by an impulse Δv/(w + w_b) on the
 * particle and its opposite on the body.
 */
export function reflectCoupledContact(
  cc: CoupledContactArrays,
  k: number,
  ctx: StepContext,
  e: number,
): void {
  const st = ctx.store,
    r = ctx.rigids,
    v = st.v;
  const i = cc.particle[k],
    i3 = 3 * i,
    b = cc.rigid[k],
    b3 = 3 * b;
  placeContact(cc, k, r, b);
  const nx = S[6],
    ny = S[7],
    nz = S[8];
  const rx = S[0] - r.x[b3],
    ry = S[1] - r.x[b3 + 1],
    rz = S[2] - r.x[b3 + 2];
  const o = r.omega,
    bv = r.v;
  const cvx = bv[b3] + o[b3 + 1] * rz - o[b3 + 2] * ry,
    cvy = bv[b3 + 1] + o[b3 + 2] * rx - o[b3] * rz,
    cvz = bv[b3 + 2] + o[b3] * ry - o[b3 + 1] * rx;
  const vn = (v[i3] - cvx) * nx + (v[i3 + 1] - cvy) * ny + (v[i3 + 2] - cvz) * nz;
  const vn0 = cc.vn0[k];
  const dv = cc.deep[k] !== 0 ? Math.min(Math.max(vn0, 0) - vn, 0) : -e * vn0 - vn;
  const w = st.invMass[i];
  const mv = movable(r, b);
  const wb = mv ? positionalInverseMass(r, b, rx, ry, rz, nx, ny, nz) : 0;
  const P = dv / (w + wb);
  v[i3] += w * P * nx;
  v[i3 + 1] += w * P * ny;
  v[i3 + 2] += w * P * nz;
  if (mv) applyVelocityImpulse(r, b, rx, ry, rz, -P * nx, -P * ny, -P * nz, 1);
}
