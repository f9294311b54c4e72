/** Bend and twist of Cosserat rods; the model is described in rod-common.ts. */
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import type { Motion } from '../core/motion.js';
import type { ParticleStore } from '../core/particles.js';
import { grownArray } from '../math/arrays.js';
import { quatMultiply } from '../math/quat.js';
import { type AxisStiffness, quatProduct, type RodDamping } from './rod-common.js';
import { BendTwistRows, projectBendTwistJoint } from './rod-kernels.generated.js';

/**
 * Bend and twist constraints of Cosserat rods (eq. 40): one per pair of
 * adjacent segments, orientations qa and qb (particle indices), with the
 * rest Darboux vector Ω⁰ = q̄_a⁰ q_b⁰ of the rest shape (4 per constraint).
 */
export class BendTwistConstraints extends BendTwistRows implements ConstraintSet {
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
    const rev = ctx.reverse;
    const anchors = this.anchorsEnabled && this.anchorCount > 0;
    if (anchors && !rev) this.projectAnchors(ctx);
    // the loop is printed by scripts/kernels/emit-rod-rows.ts (its rows shared with the direct solver)
    this.projectJoints(ctx.store, rev);
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

/** One joint's projection, printed with the set's loop (rod-kernels.generated.ts, from scripts/kernels/emit-rod-rows.ts). */
export { projectBendTwistJoint } from './rod-kernels.generated.js';

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
