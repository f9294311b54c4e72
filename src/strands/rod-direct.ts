/**
 * A direct solver for Cosserat rods (Deul, Kugelstadt, Weiler & Bender
 * 2018, "Direct Position-Based Solver for Stiff Rods", CGF): every
 * iteration solves the linearised XPBD system of all the rod's constraints
 * at once, exactly, instead of projecting them one after another.
 *
 * XPBD (Macklin et al. 2016, on which the paper builds) linearises the
 * constraints C(x) at the current positions and orientations x and asks for
 * the multipliers' increments
 *
 *   ((1 + γ) J M⁻¹ Jᵀ + α̃) Δλ = −C − α̃ λ − γ J Δx,     Δx = M⁻¹ Jᵀ Δλ,
 *
 * (α̃ = α/h², γ the Kelvin–Voigt damping, rod-common.ts). Gauss–Seidel solves
 * it one constraint at a time, so a load travels one segment per sweep; the
 * paper's direct solver factors the whole system (its Newton iterations: one
 * linear solve per iteration, the constraints re-linearised in between). The
 * system is sparse because a constraint touches only its neighbours: in a
 * constraint graph without cycles (a rod, a tree) eliminating the unknowns
 * leaf to root creates no fill-in, so the factorisation costs O(n) (the
 * paper, after Baraff 1996).
 *
 * Our rods are Kugelstadt & Schömer's (particles plus one orientation per
 * segment, rod-common.ts), not the paper's rigid segments with zero-stretch
 * joints; their constraint graph has cycles (segment j's stretch–shear and
 * segment j + 1's share a particle, and both touch the bend–twist joint
 * between them), so we group the constraints instead. Block k of a chain
 * holds segment k's stretch–shear constraint (3 rows) and the bend–twist
 * joint before it (3 rows: joint k − 1, the clamp's joint for a clamped
 * root, or nothing). Block k touches p_k, p_{k+1}, θ_{k−1}, θ_k; block k + 1
 * touches p_{k+1}, p_{k+2}, θ_k, θ_{k+1}; blocks two apart share nothing. The
 * system is therefore block-tridiagonal with 6 × 6 blocks, and block LDLᵀ
 * elimination from the root to the tip and back substitution from the tip
 * (the block Thomas algorithm) solve it exactly in O(n), without fill-in.
 *
 * The Jacobians, with rotations δθ of the segments as the orientations'
 * unknowns (rod-stretch-shear.ts: q ← q + ½ [δθ, 0] q), R_k the rotation of
 * segment k (rows d_1, d_2, d_3 of R_kᵀ), e_k = p_{k+1} − p_k, l_k its rest
 * length:
 *
 *   stretch–shear C_s = R_kᵀ e_k/l_k − e_3:  ∂/∂p_k = −R_kᵀ/l_k,  ∂/∂p_{k+1} = R_kᵀ/l_k,
 *                                            ∂/∂θ_k = R_kᵀ [e_k]×/l_k  (=: T_k)
 *   bend–twist C_b = Im(q̄ u) − Im Ω⁰ (q, u the orientations of the joint, Ω = q̄ u):
 *     a rotation δθ of u changes Ω by ½ [R_qᵀ δθ, 0] Ω, of q by −½ [R_qᵀ δθ, 0] Ω, so
 *     ∂/∂θ_u = B,  ∂/∂θ_q = −B,  B = ½ (ω_w I − [ω_v]×) R_qᵀ   (Ω = (ω_v, ω_w));
 *     for a clamped root q is the clamp's frame (it does not move).
 *
 * and the blocks of J M⁻¹ Jᵀ (w particles' inverse masses, w_θ the segments'
 * isotropic inverse moments):
 *
 *   diagonal (s_k, s_k) = (w_k + w_{k+1})/l_k² I + w_θk T_k T_kᵀ,   (s_k, b) = w_θk T_k Bᵀ,
 *            (b, b) = (w_θ,k−1 + w_θk) B Bᵀ   (w_θ,k−1 = 0 for a clamp)
 *   off-diagonal, block k to block k + 1:
 *            (s_k, s_{k+1}) = −w_{k+1} R_kᵀ R_{k+1}/(l_k l_{k+1}),   (s_k, b′) = −w_θk T_k B′ᵀ,
 *            (b, s_{k+1}) = 0,   (b, b′) = −w_θk B B′ᵀ
 *
 * (b, B the joint of block k, b′, B′ the joint of block k + 1). Δλ then moves
 * the particles by w J_pᵀ Δλ and turns the segments by w_θ J_θᵀ Δλ, as the
 * Gauss–Seidel kernels do. The result conserves linear and angular
 * momentum for the same reason theirs does: every row is a force pair.
 * Rows whose pivot vanishes (a segment whose particles and orientation are
 * all held; a rigid stretch along a direction no unknown can change) are
 * left out of the solve (their Δλ is 0), so no input divides by zero.
 */
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { ProjectionRule } from '../core/solver.js';
import type { BendTwistConstraints } from './rod-bend-twist.js';
import { DirectRodChains } from './rod-direct-chain.generated.js';
import type { StretchShearConstraints } from './rod-stretch-shear.js';

/**
 * The direct solver of the rods of one strand body: it projects the
 * constraints of a StretchShearConstraints set and its BendTwistConstraints
 * set (which keep their data, multipliers and readouts, and stop projecting
 * themselves: `direct = true`), once per iteration (it ignores the
 * symmetric sweep's backward pass: it has no order).
 */
export class DirectRodSolver extends DirectRodChains implements ConstraintSet {
  readonly kind = 'rod-direct';
  readonly order = 0;
  enabled = true;
  /** Number of blocks (segments). */
  readonly count: number;
  readonly colors = 1;
  readonly rule: ProjectionRule;
  readonly stretchShear: StretchShearConstraints;
  readonly bendTwist: BendTwistConstraints | null;
  /** Chain s holds the stretch–shear constraints [chainStart[s], chainStart[s + 1]). */
  readonly chainStart: Int32Array;
  /** The bend–twist joint before segment c (joining c − 1 and c), or −1. */
  protected readonly jointBefore: Int32Array;
  /** The clamp (anchor of the bend–twist set) of segment c, or −1; rebuilt when anchors are added. */
  protected anchorOf: Int32Array;
  /** Anchors not at the first segment of a chain: projected one by one before the solve. */
  private looseAnchors: Int32Array = new Int32Array(0);
  private mappedAnchors = -1;

  constructor(
    stretchShear: StretchShearConstraints,
    bendTwist: BendTwistConstraints | null,
    stiffness?: number,
  ) {
    super();
    this.stretchShear = stretchShear;
    this.bendTwist = bendTwist;
    stretchShear.direct = true;
    if (bendTwist) bendTwist.direct = true;
    this.rule = new ProjectionRule({ stiffness }, 'rod.direct');
    const n = stretchShear.count;
    this.count = n;
    const A = stretchShear.a,
      B = stretchShear.b,
      Q = stretchShear.q;
    const starts: number[] = [];
    let longest = 0;
    for (let c = 0; c < n; c++) {
      if (c === 0 || A[c] !== B[c - 1]) {
        if (starts.length > 0) longest = Math.max(longest, c - starts[starts.length - 1]);
        starts.push(c);
      }
    }
    if (n > 0) longest = Math.max(longest, n - starts[starts.length - 1]);
    starts.push(n);
    this.chainStart = Int32Array.from(starts);
    this.jointBefore = new Int32Array(n).fill(-1);
    this.anchorOf = new Int32Array(n).fill(-1);
    if (bendTwist) {
      const segOf = new Map<number, number>();
      for (let c = 0; c < n; c++) segOf.set(Q[c], c);
      for (let j = 0; j < bendTwist.count; j++) {
        const ca = segOf.get(bendTwist.qa[j]),
          cb = segOf.get(bendTwist.qb[j]);
        // a joint of two consecutive segments of one chain; any other joint would break the block structure
        if (ca === undefined || cb !== ca + 1 || A[cb] !== B[ca]) {
          throw new Error(`rod.direct: bend–twist joint ${j} does not join consecutive segments`);
        }
        this.jointBefore[cb] = j;
      }
    }
    this.allocate(longest);
  }

  private mapAnchors(): void {
    const bt = this.bendTwist;
    this.anchorOf.fill(-1);
    if (!bt) return;
    const loose: number[] = [];
    const Q = this.stretchShear.q;
    for (let a = 0; a < bt.anchorCount; a++) {
      let placed = false;
      for (let s = 0; s + 1 < this.chainStart.length; s++) {
        const c = this.chainStart[s];
        if (c < this.chainStart[s + 1] && Q[c] === bt.anchorQ[a] && this.anchorOf[c] < 0) {
          this.anchorOf[c] = a;
          placed = true;
          break;
        }
      }
      if (!placed) loose.push(a);
    }
    this.looseAnchors = Int32Array.from(loose);
    this.mappedAnchors = bt.anchorCount;
  }

  beginStep(ctx: StepContext): void {
    // the two sets' own beginStep (they run before this set) reset the multipliers and move the clamps
    this.rule.update(ctx.solver, ctx.hSolve, ctx.iterations);
    const xpbd = ctx.solver === 'xpbd';
    const h2 = ctx.invH * ctx.invH;
    for (let k = 0; k < 3; k++) {
      this.ssScale[k] = xpbd ? this.stretchShear.invStiffness[k] * h2 : 0;
      this.btScale[k] = xpbd && this.bendTwist ? 0.25 * this.bendTwist.invStiffness[k] * h2 : 0;
    }
    this.gamma = xpbd ? this.stretchShear.dampingTime * ctx.invH : 0;
    if (this.bendTwist && this.mappedAnchors !== this.bendTwist.anchorCount) this.mapAnchors();
  }

  project(ctx: StepContext): void {
    if (ctx.reverse) return;
    const bt = this.bendTwist;
    const anchors = bt?.anchorsEnabled === true;
    if (bt && anchors && this.looseAnchors.length > 0) {
      const kp = this.rule.kPrime;
      for (let i = 0; i < this.looseAnchors.length; i++)
        bt.projectAnchor(ctx.store, this.looseAnchors[i], this.btScale, this.gamma, kp);
    }
    for (let s = 0; s + 1 < this.chainStart.length; s++) {
      const c0 = this.chainStart[s],
        m = this.chainStart[s + 1] - c0;
      if (m > 0) this.solveChain(ctx.store, c0, m, anchors);
    }
  }
}
