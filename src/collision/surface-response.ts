import type { StepContext } from '../core/constraint-set.js';
import type { ParticleStore } from '../core/particles.js';
import { coulombShare, tangentialPart } from './coulomb.js';
import {
  FLAG_FLIP,
  FRAME_ACTING,
  FRAME_FOOTPRINT,
  FRAME_ONLY,
  frame,
  frameNormalVelocity,
  type SurfaceContactList,
  TYPE_VT,
} from './surface-contact-list.js';
import { frameEE } from './surface-edge-edge.js';
import { frameVT } from './surface-vertex-triangle.js';

/** Scratch: the tangential part of a contact's relative displacement (coulomb.ts). */
const T = new Float64Array(3);

/**
 * What the surface contacts do once found: one Gauss–Seidel pass over them
 * (each contact's frame from its type's frame function, then the normal
 * projection and position-level friction), restitution in the velocity
 * pass, and the largest penetration for statistics.
 */

/** One Gauss–Seidel pass over the contacts [k0, k1) of the list, in their order. */
export function projectContacts(
  store: ParticleStore,
  list: SurfaceContactList,
  k0: number,
  k1: number,
): void {
  const p = store.p,
    x = store.x,
    w = store.invMass,
    type = list.type;
  for (let k = k0; k < k1; k++) {
    const acting =
      type[k] === TYPE_VT ? frameVT(p, list, k, FRAME_ACTING) : frameEE(p, list, k, FRAME_ACTING);
    if (acting) respond(p, x, w, list, k);
  }
}

/**
 * The projection of contact k whose frame is in `frame`
 * (n̂, weights c_j, signed distance d), on the predicted positions p:
 *
 * - normal: C = s d − h < 0, Δλ = −C / Σ w_j c_j² (stiffness 1, 003 §3.3),
 *   Δp_j = w_j ∇_j C Δλ = w_j s c_j n̂ Δλ; an untangling pair moves at most
 *   `flipStep` per projection;
 * - friction, at position level on the relative tangential displacement
 *   r_t of the substep (Σ c_j (p_j − x_j) less its normal part): removed
 *   entirely while |r_t| < μs · |C| (static friction), reduced by μk · |C|
 *   otherwise (kinetic), distributed with the same weights, so that linear
 *   momentum is kept.
 */
export function respond(
  p: Float64Array,
  x: Float64Array,
  w: Float64Array,
  list: SurfaceContactList,
  k: number,
): void {
  const idx = list.idx;
  const g0 = idx[4 * k],
    g1 = idx[4 * k + 1],
    g2 = idx[4 * k + 2],
    g3 = idx[4 * k + 3];
  const i0 = 3 * g0,
    i1 = 3 * g1,
    i2 = 3 * g2,
    i3 = 3 * g3;
  const nx = frame[0],
    ny = frame[1],
    nz = frame[2];
  const c0 = frame[3],
    c1 = frame[4],
    c2 = frame[5],
    c3 = frame[6];
  const s = list.side[k];
  const w0 = w[g0],
    w1 = w[g1],
    w2 = w[g2],
    w3 = w[g3];
  const W = w0 * c0 * c0 + w1 * c1 * c1 + w2 * c2 * c2 + w3 * c3 * c3;
  if (!(W > 1e-30)) return;
  // C = s d − h < 0; Δλ = −C / Σ w |∇C|² (stiffness 1), Δp_j = w_j ∇_j C Δλ
  let C = s * frame[7] - list.thick[k];
  const flipStep = list.flipStep;
  if ((list.flags[k] & FLAG_FLIP) !== 0 && C < -flipStep) C = -flipStep;
  const dl = -C / W;
  list.lambda[k] += dl;
  let f = s * dl;
  addFour(p, i0, i1, i2, i3, w0 * c0, w1 * c1, w2 * c2, w3 * c3, f, nx, ny, nz);
  // position-level Coulomb friction on the relative tangential motion of the substep
  const muK = list.muK[k],
    muS = list.muS[k];
  if (muK === 0 && muS === 0) return;
  // relative displacement Σ c_j (p_j − x_j) (the contact point of the second side moves with weights −c)
  const rx = c0 * (p[i0] - x[i0]) + c1 * (p[i1] - x[i1]) + c2 * (p[i2] - x[i2]) + c3 * (p[i3] - x[i3]);
  const ry =
    c0 * (p[i0 + 1] - x[i0 + 1]) +
    c1 * (p[i1 + 1] - x[i1 + 1]) +
    c2 * (p[i2 + 1] - x[i2 + 1]) +
    c3 * (p[i3 + 1] - x[i3 + 1]);
  const rz =
    c0 * (p[i0 + 2] - x[i0 + 2]) +
    c1 * (p[i1 + 2] - x[i1 + 2]) +
    c2 * (p[i2 + 2] - x[i2 + 2]) +
    c3 * (p[i3 + 2] - x[i3 + 2]);
  // Coulomb's split (coulomb.ts): t the tangential part, g the share of it removed; −C the normal
  // correction of this projection (relative)
  const tl = tangentialPart(T, rx, ry, rz, nx, ny, nz);
  if (!(tl > 1e-15)) return;
  const g = coulombShare(tl, -C, muS, muK);
  f = -g / W;
  addFour(p, i0, i1, i2, i3, w0 * c0, w1 * c1, w2 * c2, w3 * c3, f, T[0], T[1], T[2]);
}

/**
 * a[i_j + d] += m_j f n_d for the four points of a contact: m_j = w_j c_j,
 * point j's weight, f the step along the direction n (the products keep the
 * written-out form's order, ((w_j c_j) f) n_d: the same bits).
 */
function addFour(
  a: Float64Array,
  i0: number,
  i1: number,
  i2: number,
  i3: number,
  m0: number,
  m1: number,
  m2: number,
  m3: number,
  f: number,
  nx: number,
  ny: number,
  nz: number,
): void {
  // by component: each entry still gets its points' shares in the order 0, 1, 2, 3 (the same bits where two points coincide)
  a[i0] += m0 * f * nx;
  a[i1] += m1 * f * nx;
  a[i2] += m2 * f * nx;
  a[i3] += m3 * f * nx;
  a[i0 + 1] += m0 * f * ny;
  a[i1 + 1] += m1 * f * ny;
  a[i2 + 1] += m2 * f * ny;
  a[i3 + 1] += m3 * f * ny;
  a[i0 + 2] += m0 * f * nz;
  a[i1 + 2] += m1 * f * nz;
  a[i2 + 2] += m2 * f * nz;
  a[i3 + 2] += m3 * f * nz;
}

/**
 * Restitution (Algorithm 1, line 16): the contacts of the substep that acted
 * (λ > 0) and approached faster than twice what gravity adds in a substep
 * get their relative normal velocity reflected to −e times its value at the
 * start of the substep, by a velocity change with the constraint's weights.
 */
export function applyRestitution(ctx: StepContext, list: SurfaceContactList): void {
  const v = ctx.store.v,
    w = ctx.store.invMass,
    x = ctx.store.x;
  const g = ctx.gravity;
  const threshold = 2 * Math.sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]) * ctx.h;
  const idx = list.idx;
  for (let k = 0; k < list.count; k++) {
    const e = list.rest[k];
    if (e === 0 || list.lambda[k] <= 0 || -list.vn0[k] <= threshold) continue;
    const ok = list.type[k] === TYPE_VT ? frameVT(x, list, k, FRAME_ONLY) : frameEE(x, list, k, FRAME_ONLY);
    if (!ok) continue;
    const i0 = 3 * idx[4 * k],
      i1 = 3 * idx[4 * k + 1],
      i2 = 3 * idx[4 * k + 2],
      i3 = 3 * idx[4 * k + 3];
    const s = list.side[k];
    // the relative normal velocity as at the start of the substep (vn0, frameNormalVelocity);
    // its sum's sign of zero cannot matter: target > 0
    const vn = s * frameNormalVelocity(v, i0, i1, i2, i3);
    const target = -e * list.vn0[k];
    const dv = target - vn;
    if (dv <= 0) continue;
    const c0 = frame[3],
      c1 = frame[4],
      c2 = frame[5],
      c3 = frame[6];
    const w0 = w[i0 / 3],
      w1 = w[i1 / 3],
      w2 = w[i2 / 3],
      w3 = w[i3 / 3];
    const W = w0 * c0 * c0 + w1 * c1 * c1 + w2 * c2 * c2 + w3 * c3 * c3;
    if (!(W > 1e-30)) continue;
    const f = (s * dv) / W;
    addFour(v, i0, i1, i2, i3, w0 * c0, w1 * c1, w2 * c2, w3 * c3, f, frame[0], frame[1], frame[2]);
  }
}

/** Largest penetration h − s·d (m) over the acting contacts of the list, at x (untangling pairs excepted). */
export function maxPenetration(store: ParticleStore, list: SurfaceContactList): number {
  const x = store.x;
  let m = 0;
  for (let k = 0; k < list.count; k++) {
    if ((list.flags[k] & FLAG_FLIP) !== 0) continue;
    // proximity contacts act only over their footprint (as in the projection)
    const ok =
      list.type[k] === TYPE_VT ? frameVT(x, list, k, FRAME_FOOTPRINT) : frameEE(x, list, k, FRAME_FOOTPRINT);
    if (!ok) continue;
    const pen = list.thick[k] - list.side[k] * frame[7];
    if (pen > m) m = pen;
  }
  return m;
}
