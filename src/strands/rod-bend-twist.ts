/** Bend and twist of Cosserat rods; the model is described in rod-common.ts. */
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import type { Motion } from '../core/motion.js';
import type { ParticleStore } from '../core/particles.js';
import { grownArray } from '../math/arrays.js';
import { quatMultiply } from '../math/quat.js';
import { type AxisStiffness, quatProduct, RodConstraints, type RodDamping } from './rod-common.js';

/**
 * Bend and twist constraints of Cosserat rods (eq. 40): one per pair of
 * adjacent segments, orientations qa and qb (particle indices), with the
 * rest Darboux vector Ω⁰ = q̄_a⁰ q_b⁰ of the rest shape (4 per constraint).
 */
export class BendTwistConstraints extends RodConstraints implements ConstraintSet {
  readonly kind = 'rod-bend-twist';
  readonly qa: Int32Array;
  readonly qb: Int32Array;
  /** Rest Darboux vectors Ω⁰ (unit quaternions x, y, z, w), 4 per constraint. */
  readonly restDarboux: Float64Array;
  /** Length L of each joint, half the sum of its two segments' (m). */
  readonly jointLength: Float64Array;
  // invStiffness: 1/(E I), 1/(E I), 1/(G J) (1/(N m²)); setStiffness takes E I, E I, G J (N m²)
  /**
   * Anchored joints: a segment joined to a clamped frame (a rod's clamped
   * root). The clamp holds the frame of the rod's end, half a segment
   * before the segment's orientation (which sits at the segment's middle),
   * so the joint has length l/2 and the first segment bends against the
   * wall like every other: the cantilever's deflection then converges as
   * 1 + O(1/n²) instead of (1 − 1/n)² with the segment itself clamped.
   */
  anchorCount = 0;
  anchorsEnabled = true;
  /** @internal read by the direct rod solver (rod-direct.ts) */
  anchorQ = new Int32Array(0);
  /** The clamped frame now, at the start of the substep, and at time 0 (4 each per anchor). */
  /** @internal read by the direct rod solver (rod-direct.ts) */
  anchorFrame = new Float64Array(0);
  /** @internal read by the direct rod solver (rod-direct.ts) */
  anchorPrev = new Float64Array(0);
  private anchorBase = new Float64Array(0);
  /** Rest Darboux vector between the frame and the segment (4 per anchor), joint length, multipliers. */
  /** @internal read by the direct rod solver (rod-direct.ts) */
  anchorRest = new Float64Array(0);
  /** @internal read by the direct rod solver (rod-direct.ts) */
  anchorLength = new Float64Array(0);
  /** @internal read by the direct rod solver (rod-direct.ts) */
  anchorLambda = new Float64Array(0);
  private anchorMotion: (Motion | null)[] = [];

  constructor(
    joints: {
      qa: ArrayLike<number>;
      qb: ArrayLike<number>;
      restDarboux: ArrayLike<number>;
      jointLength: ArrayLike<number>;
    },
    stiffness: AxisStiffness,
    params: RodDamping = {},
    where = 'rod.bendTwist',
  ) {
    // α = L/(4 K): the scale per unit joint length
    super(joints.qa.length, stiffness, params, where, 'rod.bendTwist', 0.25);
    this.qa = Int32Array.from(joints.qa);
    this.qb = Int32Array.from(joints.qb);
    this.restDarboux = Float64Array.from(joints.restDarboux);
    this.jointLength = Float64Array.from(joints.jointLength);
  }

  /**
   * Joins the orientation of particle `q` to a clamped frame (unit
   * quaternion `frame`, carried by `motion`'s rotation when given) with a
   * joint of length `length` and rest Darboux vector `rest` (frame⁰‾ q⁰).
   */
  addAnchor(
    q: number,
    frame: ArrayLike<number>,
    rest: ArrayLike<number>,
    length: number,
    motion: Motion | null = null,
  ): void {
    const n = this.anchorCount + 1;
    this.anchorQ = grownArray(this.anchorQ, n);
    this.anchorQ[n - 1] = q;
    this.anchorFrame = grownArray(this.anchorFrame, 4 * n);
    this.anchorPrev = grownArray(this.anchorPrev, 4 * n);
    this.anchorBase = grownArray(this.anchorBase, 4 * n);
    this.anchorRest = grownArray(this.anchorRest, 4 * n);
    this.anchorLength = grownArray(this.anchorLength, n);
    this.anchorLambda = grownArray(this.anchorLambda, 3 * n);
    for (let k = 0; k < 4; k++) {
      this.anchorFrame[4 * (n - 1) + k] =
        this.anchorPrev[4 * (n - 1) + k] =
        this.anchorBase[4 * (n - 1) + k] =
          frame[k];
      this.anchorRest[4 * (n - 1) + k] = rest[k];
    }
    this.anchorLength[n - 1] = length;
    this.anchorMotion.push(motion);
    this.anchorCount = n;
  }

  override beginStep(ctx: StepContext): void {
    super.beginStep(ctx);
    this.anchorLambda.fill(0);
    for (let a = 0; a < this.anchorCount; a++) {
      for (let k = 0; k < 4; k++) this.anchorPrev[4 * a + k] = this.anchorFrame[4 * a + k];
      const m = this.anchorMotion[a];
      if (m) {
        m.evaluate(ctx.time);
        quatMultiply(this.anchorFrame, 4 * a, m.rotation, 0, this.anchorBase, 4 * a);
      }
    }
  }

  /** The anchored joints (root first, so forward; last when reverse, mirroring the chain order). */
  private projectAnchors(ctx: StepContext): void {
    const kp = this.rule.kPrime;
    for (let a = 0; a < this.anchorCount; a++) this.projectAnchor(ctx.store, a, this.atScale, this.gamma, kp);
  }

  /**
   * @internal Projects anchor a's joint (the clamped frame, w_q = 0, and its segment) with the uniforms
   * of projectBendTwistJoint: this set's, or the direct rod solver's for an anchor off a chain's root.
   */
  projectAnchor(store: ParticleStore, a: number, atScale: Float64Array, gamma: number, kp: number): void {
    const i = this.anchorQ[a];
    const wu = 0.25 * store.invInertia[3 * i];
    const F = this.anchorFrame,
      F0 = this.anchorPrev,
      R0 = this.anchorRest,
      lam = this.anchorLambda;
    const { qp, q } = store;
    const L = this.anchorLength[a];
    projectBendTwistJoint(F, 4 * a, F0, 0, qp, 4 * i, q, wu, R0, 4 * a, L, lam, 3 * a, atScale, gamma, kp);
  }

  project(ctx: StepContext): void {
    if (this.skips(ctx)) return;
    const store = ctx.store;
    const qp = store.qp,
      q0 = store.q,
      iI = store.invInertia;
    const QA = this.qa,
      QB = this.qb,
      R0 = this.restDarboux,
      JL = this.jointLength,
      lam = this.lambda;
    const kp = this.rule.kPrime;
    const as0 = this.atScale[0],
      as1 = this.atScale[1],
      as2 = this.atScale[2];
    const gamma = this.gamma;
    const n = this.count;
    const rev = ctx.reverse;
    const anchors = this.anchorsEnabled && this.anchorCount > 0;
    if (anchors && !rev) this.projectAnchors(ctx);
    for (let k = 0; k < n; k++) {
      const c = rev ? n - 1 - k : k;
      const ia = 4 * QA[c],
        ib = 4 * QB[c];
      const wq = 0.25 * iI[3 * QA[c]],
        wu = 0.25 * iI[3 * QB[c]];
      const W = wq + wu;
      if (W === 0) continue;
      const qx = qp[ia],
        qy = qp[ia + 1],
        qz = qp[ia + 2],
        qw = qp[ia + 3];
      let ux = qp[ib],
        uy = qp[ib + 1],
        uz = qp[ib + 2],
        uw = qp[ib + 3];
      // Ω = q̄ u
      let ox = qw * ux - qx * uw - qy * uz + qz * uy,
        oy = qw * uy + qx * uz - qy * uw - qz * ux,
        oz = qw * uz - qx * uy + qy * ux - qz * uw;
      const ow = qw * uw + qx * ux + qy * uy + qz * uz;
      const r = 4 * c;
      // u′ = ±u: the one whose Ω is nearer Ω⁰
      let sgn = 1;
      if (ox * R0[r] + oy * R0[r + 1] + oz * R0[r + 2] + ow * R0[r + 3] < 0) {
        sgn = -1;
        ox = -ox;
        oy = -oy;
        oz = -oz;
        ux = -ux;
        uy = -uy;
        uz = -uz;
        uw = -uw;
      }
      const C1 = ox - R0[r],
        C2 = oy - R0[r + 1],
        C3 = oz - R0[r + 2];
      const L = JL[c];
      const at0 = as0 * L,
        at1 = as1 * L,
        at2 = as2 * L;
      let r1 = -C1 - at0 * lam[3 * c],
        r2 = -C2 - at1 * lam[3 * c + 1],
        r3 = -C3 - at2 * lam[3 * c + 2];
      let e0 = W,
        e1 = W,
        e2 = W;
      if (gamma !== 0) {
        // γ (∇_q C_k·(q_p − q) + ∇_{u′} C_k·(u′_p − u′)) with ∇_{u′} C_k = q e_k, ∇_q C_k = −u′ e_k
        const dqx = qx - q0[ia],
          dqy = qy - q0[ia + 1],
          dqz = qz - q0[ia + 2],
          dqw = qw - q0[ia + 3];
        const dux = ux - sgn * q0[ib],
          duy = uy - sgn * q0[ib + 1],
          duz = uz - sgn * q0[ib + 2],
          duw = uw - sgn * q0[ib + 3];
        // (a e_k)·d = Im(ā d)_k ; so ∇C·Δ = Im(q̄ Δu′)_k − Im(ū′ Δq)_k
        const hx = qw * dux - qx * duw - qy * duz + qz * duy - (uw * dqx - ux * dqw - uy * dqz + uz * dqy),
          hy = qw * duy + qx * duz - qy * duw - qz * dux - (uw * dqy + ux * dqz - uy * dqw - uz * dqx),
          hz = qw * duz - qx * duy + qy * dux - qz * duw - (uw * dqz - ux * dqy + uy * dqx - uz * dqw);
        r1 -= gamma * hx;
        r2 -= gamma * hy;
        r3 -= gamma * hz;
        e0 = e1 = e2 = (1 + gamma) * W;
      }
      const l1 = (kp * r1) / (e0 + at0),
        l2 = (kp * r2) / (e1 + at1),
        l3 = (kp * r3) / (e2 + at2);
      lam[3 * c] += l1;
      lam[3 * c + 1] += l2;
      lam[3 * c + 2] += l3;
      // Δq = −w_q u′ Λ, Δu′ = w_u q Λ (Λ = (l1, l2, l3, 0)); u = sgn u′
      if (wq !== 0) turnJointEnd(qp, ia, qx, qy, qz, qw, -wq, ux, uy, uz, uw, l1, l2, l3, 1);
      if (wu !== 0) turnJointEnd(qp, ib, ux, uy, uz, uw, wu, qx, qy, qz, qw, l1, l2, l3, sgn);
    }
    if (anchors && rev) this.projectAnchors(ctx);
  }

  /** Readouts: the violation below is an angle. */
  readonly violationUnit = 'rad';

  /**
   * Largest 2|C_b| = 2|Im(q̄ u′) − Im Ω⁰| over the joints, at q: |C_b| is
   * about half the bend and twist angle away from rest, so this is that
   * angle (rad) for small deviations.
   */
  maxViolation(store: ParticleStore): number {
    let m = 0;
    const q = store.q;
    const out = new Float64Array(3);
    for (let c = 0; c < this.count; c++) {
      bendTwistValue(q, 4 * this.qa[c], q, 4 * this.qb[c], this.restDarboux, 4 * c, out);
      m = Math.max(m, Math.hypot(out[0], out[1], out[2]));
    }
    return 2 * m;
  }
}

/**
 * Projects one bend–twist joint: orientation q = Q[qo..qo+3] (start of the
 * substep Q0[qo..]; inverse mass w_q, 0 for a clamped frame) and u =
 * U[uo..uo+3] (U0, w_u), rest Darboux vector R0[ro..], joint length L,
 * multipliers lam[lo..lo+2], α̃ per unit length atScale[0..2], damping γ and
 * PBD k′ — exactly what the set's loop does for each of its joints (the
 * anchors, the direct solver's loose anchors and the tests project here;
 * the set's loop keeps its own copy of the residual: with this call per
 * joint, not inlined, rod-1k took 1.02–1.03 times as long, session 15).
 */
export function projectBendTwistJoint(
  Q: Float64Array,
  qo: number,
  Q0: Float64Array,
  wq: number,
  U: Float64Array,
  uo: number,
  U0: Float64Array,
  wu: number,
  R0: Float64Array,
  ro: number,
  L: number,
  lam: Float64Array,
  lo: number,
  atScale: Float64Array,
  gamma: number,
  kp: number,
): void {
  const W = wq + wu;
  if (W === 0) return;
  const qx = Q[qo],
    qy = Q[qo + 1],
    qz = Q[qo + 2],
    qw = Q[qo + 3];
  let ux = U[uo],
    uy = U[uo + 1],
    uz = U[uo + 2],
    uw = U[uo + 3];
  // Ω = q̄ u
  let ox = qw * ux - qx * uw - qy * uz + qz * uy,
    oy = qw * uy + qx * uz - qy * uw - qz * ux,
    oz = qw * uz - qx * uy + qy * ux - qz * uw;
  const ow = qw * uw + qx * ux + qy * uy + qz * uz;
  // u′ = ±u: the one whose Ω is nearer Ω⁰
  let sgn = 1;
  if (ox * R0[ro] + oy * R0[ro + 1] + oz * R0[ro + 2] + ow * R0[ro + 3] < 0) {
    sgn = -1;
    ox = -ox;
    oy = -oy;
    oz = -oz;
    ux = -ux;
    uy = -uy;
    uz = -uz;
    uw = -uw;
  }
  const at0 = atScale[0] * L,
    at1 = atScale[1] * L,
    at2 = atScale[2] * L;
  let r1 = -(ox - R0[ro]) - at0 * lam[lo],
    r2 = -(oy - R0[ro + 1]) - at1 * lam[lo + 1],
    r3 = -(oz - R0[ro + 2]) - at2 * lam[lo + 2];
  let e = W;
  if (gamma !== 0) {
    // γ (∇_q C_k·(q_p − q) + ∇_{u′} C_k·(u′_p − u′)) with ∇_{u′} C_k = q e_k, ∇_q C_k = −u′ e_k;
    // (a e_k)·d = Im(ā d)_k, so ∇C·Δ = Im(q̄ Δu′)_k − Im(ū′ Δq)_k
    const dqx = qx - Q0[qo],
      dqy = qy - Q0[qo + 1],
      dqz = qz - Q0[qo + 2],
      dqw = qw - Q0[qo + 3];
    const dux = ux - sgn * U0[uo],
      duy = uy - sgn * U0[uo + 1],
      duz = uz - sgn * U0[uo + 2],
      duw = uw - sgn * U0[uo + 3];
    r1 -= gamma * (qw * dux - qx * duw - qy * duz + qz * duy - (uw * dqx - ux * dqw - uy * dqz + uz * dqy));
    r2 -= gamma * (qw * duy + qx * duz - qy * duw - qz * dux - (uw * dqy + ux * dqz - uy * dqw - uz * dqx));
    r3 -= gamma * (qw * duz - qx * duy + qy * dux - qz * duw - (uw * dqz - ux * dqy + uy * dqx - uz * dqw));
    e = (1 + gamma) * W;
  }
  const l1 = (kp * r1) / (e + at0),
    l2 = (kp * r2) / (e + at1),
    l3 = (kp * r3) / (e + at2);
  lam[lo] += l1;
  lam[lo + 1] += l2;
  lam[lo + 2] += l3;
  // Δq = −w_q u′ Λ, Δu′ = w_u q Λ (Λ = (l1, l2, l3, 0)); u = sgn u′
  if (wq !== 0) turnJointEnd(Q, qo, qx, qy, qz, qw, -wq, ux, uy, uz, uw, l1, l2, l3, 1);
  if (wu !== 0) turnJointEnd(U, uo, ux, uy, uz, uw, wu, qx, qy, qz, qw, l1, l2, l3, sgn);
}

/**
 * One end t of a bend–twist joint moved by Δt = s p Λ (Λ = (l1, l2, l3, 0), p the other end) without
 * its part along t, which only rescales t and would shorten the rotation: T[o..o+3] ← sgn ·
 * normalise(t + Δt − (Δt·t) t), left as it is where that sum vanishes.
 */
function turnJointEnd(
  T: Float64Array,
  o: number,
  tx: number,
  ty: number,
  tz: number,
  tw: number,
  s: number,
  px: number,
  py: number,
  pz: number,
  pw: number,
  l1: number,
  l2: number,
  l3: number,
  sgn: number,
): void {
  let ax = s * (pw * l1 + py * l3 - pz * l2),
    ay = s * (pw * l2 + pz * l1 - px * l3),
    az = s * (pw * l3 + px * l2 - py * l1),
    aw = -s * (px * l1 + py * l2 + pz * l3);
  const r = ax * tx + ay * ty + az * tz + aw * tw;
  ax -= r * tx;
  ay -= r * ty;
  az -= r * tz;
  aw -= r * tw;
  const nx = tx + ax,
    ny = ty + ay,
    nz = tz + az,
    nw = tw + aw;
  const len = Math.sqrt(nx * nx + ny * ny + nz * nz + nw * nw);
  if (len > 1e-12) {
    const il = sgn / len;
    T[o] = nx * il;
    T[o + 1] = ny * il;
    T[o + 2] = nz * il;
    T[o + 3] = nw * il;
  }
}

/** C_b = Im(q̄ u′) − Im Ω⁰ of one bend–twist constraint (u′ = ±u, nearer Ω⁰), into out[0..2]; returns the sign of u′. */
export function bendTwistValue(
  q: ArrayLike<number>,
  qo: number,
  u: ArrayLike<number>,
  uo: number,
  rest: ArrayLike<number>,
  ro: number,
  out: Float64Array,
): number {
  const o = quatProduct(
    [-q[qo], -q[qo + 1], -q[qo + 2], q[qo + 3]],
    [u[uo], u[uo + 1], u[uo + 2], u[uo + 3]],
  );
  const sgn = o[0] * rest[ro] + o[1] * rest[ro + 1] + o[2] * rest[ro + 2] + o[3] * rest[ro + 3] < 0 ? -1 : 1;
  for (let k = 0; k < 3; k++) out[k] = sgn * o[k] - rest[ro + k];
  return sgn;
}

/**
 * The gradients of the bend–twist components C_k (material axes of q) as
 * the kernel uses them: ∇_q C_k = −u′ e_k, ∇_u C_k = sgn · q e_k
 * (quaternions x y z w), with u′ = sgn u.
 */
export function bendTwistGradients(
  q: ArrayLike<number>,
  u: ArrayLike<number>,
  sgn: number,
): { q: Float64Array; u: Float64Array } {
  const gq = new Float64Array(12),
    gu = new Float64Array(12);
  const up = [sgn * u[0], sgn * u[1], sgn * u[2], sgn * u[3]];
  for (let k = 0; k < 3; k++) {
    const e = [0, 0, 0, 0];
    e[k] = 1;
    const a = quatProduct(up, e),
      b = quatProduct([q[0], q[1], q[2], q[3]], e);
    for (let i = 0; i < 4; i++) {
      gq[4 * k + i] = -a[i];
      gu[4 * k + i] = sgn * b[i];
    }
  }
  return { q: gq, u: gu };
}
