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
import type { ParticleStore } from '../core/particles.js';
import { ProjectionRule } from '../core/solver.js';
import type { BendTwistConstraints } from './rod-bend-twist.js';
import {
  chol6,
  lowerSolve6,
  lowerSolveVec6,
  subtractGram6,
  subtractProduct6,
  subtractTransposedProduct6,
  upperSolveVec6,
} from './rod-direct-blocks.generated.js';
import type { StretchShearConstraints } from './rod-stretch-shear.js';

/** Per block: R_kᵀ rows (9), e_k (3), T_k (9), B of its joint (9). */
const GEO = 30;

/**
 * The direct solver of the rods of one strand body: it projects the
 * constraints of a StretchShearConstraints set and its BendTwistConstraints
 * set (which keep their data, multipliers and readouts, and stop projecting
 * themselves: `direct = true`), once per iteration (it ignores the
 * symmetric sweep's backward pass: it has no order).
 */
export class DirectRodSolver implements ConstraintSet {
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
  private readonly jointBefore: Int32Array;
  /** The clamp (anchor of the bend–twist set) of segment c, or −1; rebuilt when anchors are added. */
  private anchorOf: Int32Array;
  /** Anchors not at the first segment of a chain: projected one by one before the solve. */
  private looseAnchors: Int32Array = new Int32Array(0);
  private mappedAnchors = -1;
  private readonly geo: Float64Array;
  /** Per block: the Cholesky factor L_k (21), W_k = L_k⁻¹ A_{k,k+1} (36), the right side, then y_k, then Δλ_k (6). */
  private readonly Lf: Float64Array;
  private readonly W: Float64Array;
  private readonly rhs: Float64Array;
  private readonly D = new Float64Array(36);
  private readonly U = new Float64Array(36);
  private readonly ssScale = new Float64Array(3);
  private readonly btScale = new Float64Array(3);
  private gamma = 0;

  constructor(
    stretchShear: StretchShearConstraints,
    bendTwist: BendTwistConstraints | null,
    stiffness?: number,
  ) {
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
    this.geo = new Float64Array(GEO * longest);
    this.Lf = new Float64Array(21 * longest);
    this.W = new Float64Array(36 * longest);
    this.rhs = new Float64Array(6 * longest);
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

  /** Builds, factors and solves the block-tridiagonal system of one chain, then applies Δλ. */
  private solveChain(store: ParticleStore, c0: number, m: number, anchors: boolean): void {
    const p = store.p,
      x = store.x,
      qp = store.qp,
      q0 = store.q,
      w = store.invMass,
      iI = store.invInertia;
    const ss = this.stretchShear,
      bt = this.bendTwist;
    const SA = ss.a,
      SB = ss.b,
      SQ = ss.q,
      rest = ss.rest,
      slam = ss.lambda;
    const geo = this.geo,
      Lf = this.Lf,
      W = this.W,
      rhs = this.rhs,
      D = this.D,
      U = this.U;
    const gamma = this.gamma,
      g1 = 1 + gamma;
    const as0 = this.ssScale[0],
      as1 = this.ssScale[1],
      as2 = this.ssScale[2];
    const ab0 = this.btScale[0],
      ab1 = this.btScale[1],
      ab2 = this.btScale[2];
    for (let k = 0; k < m; k++) {
      const c = c0 + k;
      const o = GEO * k;
      const ia = 3 * SA[c],
        ib = 3 * SB[c],
        iq = 4 * SQ[c];
      const wa = w[SA[c]],
        wb = w[SB[c]],
        wr = iI[3 * SQ[c]];
      const invL = 1 / rest[c];
      // ---- segment k: the rows d_1, d_2, d_3 of R_kᵀ, e_k, and T_k = R_kᵀ [e]×/l (row i: d_i × e/l)
      const qx = qp[iq],
        qy = qp[iq + 1],
        qz = qp[iq + 2],
        qw = qp[iq + 3];
      const ex = p[ib] - p[ia],
        ey = p[ib + 1] - p[ia + 1],
        ez = p[ib + 2] - p[ia + 2];
      const d1x = 1 - 2 * (qy * qy + qz * qz),
        d1y = 2 * (qx * qy + qw * qz),
        d1z = 2 * (qx * qz - qw * qy);
      const d2x = 2 * (qx * qy - qw * qz),
        d2y = 1 - 2 * (qx * qx + qz * qz),
        d2z = 2 * (qy * qz + qw * qx);
      const d3x = 2 * (qx * qz + qw * qy),
        d3y = 2 * (qy * qz - qw * qx),
        d3z = 1 - 2 * (qx * qx + qy * qy);
      const t1x = (d1y * ez - d1z * ey) * invL,
        t1y = (d1z * ex - d1x * ez) * invL,
        t1z = (d1x * ey - d1y * ex) * invL;
      const t2x = (d2y * ez - d2z * ey) * invL,
        t2y = (d2z * ex - d2x * ez) * invL,
        t2z = (d2x * ey - d2y * ex) * invL;
      const t3x = (d3y * ez - d3z * ey) * invL,
        t3y = (d3z * ex - d3x * ez) * invL,
        t3z = (d3x * ey - d3y * ex) * invL;
      // ---- stretch–shear rows: C = R_kᵀ e/l − e_3, rhs −C − α̃ λ − γ J Δx
      const e1 = ex * d1x + ey * d1y + ez * d1z,
        e2 = ex * d2x + ey * d2y + ez * d2z,
        e3 = ex * d3x + ey * d3y + ez * d3z;
      const at0 = as0 * invL,
        at1 = as1 * invL,
        at2 = as2 * invL;
      const r = 6 * k;
      rhs[r] = -e1 * invL - at0 * slam[3 * c];
      rhs[r + 1] = -e2 * invL - at1 * slam[3 * c + 1];
      rhs[r + 2] = -(e3 * invL - 1) - at2 * slam[3 * c + 2];
      if (gamma !== 0) {
        // γ ∇C_k·Δx = γ d_k·(Δp_b − Δp_a + e × δθ)/l, δθ = 2 Im(q_p q̄) (as rod-stretch-shear.ts)
        const ax = qw * -q0[iq] + qx * q0[iq + 3] + qy * -q0[iq + 2] - qz * -q0[iq + 1],
          ay = qw * -q0[iq + 1] - qx * -q0[iq + 2] + qy * q0[iq + 3] + qz * -q0[iq],
          az = qw * -q0[iq + 2] + qx * -q0[iq + 1] - qy * -q0[iq] + qz * q0[iq + 3];
        const vx = p[ib] - x[ib] - p[ia] + x[ia] + 2 * (ey * az - ez * ay),
          vy = p[ib + 1] - x[ib + 1] - p[ia + 1] + x[ia + 1] + 2 * (ez * ax - ex * az),
          vz = p[ib + 2] - x[ib + 2] - p[ia + 2] + x[ia + 2] + 2 * (ex * ay - ey * ax);
        const gl = gamma * invL;
        rhs[r] -= gl * (vx * d1x + vy * d1y + vz * d1z);
        rhs[r + 1] -= gl * (vx * d2x + vy * d2y + vz * d2z);
        rhs[r + 2] -= gl * (vx * d3x + vy * d3y + vz * d3z);
      }
      // ---- the joint of block k: joint k − 1 (q = segment k − 1) or the clamp (q = its frame), or none
      const j = this.jointBefore[c];
      const an = anchors && k === 0 ? this.anchorOf[c] : -1;
      let wPrev = 0,
        Lb0 = 1,
        Lb1 = 1,
        Lb2 = 1;
      let b1x = 0,
        b1y = 0,
        b1z = 0,
        b2x = 0,
        b2y = 0,
        b2z = 0,
        b3x = 0,
        b3y = 0,
        b3z = 0;
      if (j >= 0 || an >= 0) {
        const F = j >= 0 ? qp : bt!.anchorFrame;
        const F0 = j >= 0 ? q0 : bt!.anchorPrev;
        const fo = j >= 0 ? 4 * SQ[c - 1] : 4 * an;
        const R0 = j >= 0 ? bt!.restDarboux : bt!.anchorRest;
        const ro = j >= 0 ? 4 * j : 4 * an;
        const L = j >= 0 ? bt!.jointLength[j] : bt!.anchorLength[an];
        const blam = j >= 0 ? bt!.lambda : bt!.anchorLambda;
        const lo = j >= 0 ? 3 * j : 3 * an;
        wPrev = j >= 0 ? iI[3 * SQ[c - 1]] : 0;
        const fx = F[fo],
          fy = F[fo + 1],
          fz = F[fo + 2],
          fw = F[fo + 3];
        let ux = qx,
          uy = qy,
          uz = qz,
          uw = qw;
        let ox = fw * ux - fx * uw - fy * uz + fz * uy,
          oy = fw * uy + fx * uz - fy * uw - fz * ux,
          oz = fw * uz - fx * uy + fy * ux - fz * uw,
          ow = fw * uw + fx * ux + fy * uy + fz * uz;
        let sgn = 1;
        if (ox * R0[ro] + oy * R0[ro + 1] + oz * R0[ro + 2] + ow * R0[ro + 3] < 0) {
          sgn = -1;
          ox = -ox;
          oy = -oy;
          oz = -oz;
          ow = -ow;
          ux = -ux;
          uy = -uy;
          uz = -uz;
          uw = -uw;
        }
        Lb0 = ab0 * L;
        Lb1 = ab1 * L;
        Lb2 = ab2 * L;
        rhs[r + 3] = -(ox - R0[ro]) - Lb0 * blam[lo];
        rhs[r + 4] = -(oy - R0[ro + 1]) - Lb1 * blam[lo + 1];
        rhs[r + 5] = -(oz - R0[ro + 2]) - Lb2 * blam[lo + 2];
        if (gamma !== 0) {
          // as rod-bend-twist.ts: γ (Im(q̄ Δu′) − Im(ū′ Δq))
          const dqx = fx - F0[fo],
            dqy = fy - F0[fo + 1],
            dqz = fz - F0[fo + 2],
            dqw = fw - F0[fo + 3];
          const dux = ux - sgn * q0[iq],
            duy = uy - sgn * q0[iq + 1],
            duz = uz - sgn * q0[iq + 2],
            duw = uw - sgn * q0[iq + 3];
          rhs[r + 3] -=
            gamma * (fw * dux - fx * duw - fy * duz + fz * duy - (uw * dqx - ux * dqw - uy * dqz + uz * dqy));
          rhs[r + 4] -=
            gamma * (fw * duy + fx * duz - fy * duw - fz * dux - (uw * dqy + ux * dqz - uy * dqw - uz * dqx));
          rhs[r + 5] -=
            gamma * (fw * duz - fx * duy + fy * dux - fz * duw - (uw * dqz - ux * dqy + uy * dqx - uz * dqw));
        }
        // B = ½ (ω_w I − [ω_v]×) R_Fᵀ, with ω_w I − [ω_v]× = [[ω_w, ω_z, −ω_y], [−ω_z, ω_w, ω_x], [ω_y, −ω_x, ω_w]]
        const f1x = 1 - 2 * (fy * fy + fz * fz),
          f1y = 2 * (fx * fy + fw * fz),
          f1z = 2 * (fx * fz - fw * fy);
        const f2x = 2 * (fx * fy - fw * fz),
          f2y = 1 - 2 * (fx * fx + fz * fz),
          f2z = 2 * (fy * fz + fw * fx);
        const f3x = 2 * (fx * fz + fw * fy),
          f3y = 2 * (fy * fz - fw * fx),
          f3z = 1 - 2 * (fx * fx + fy * fy);
        const hw = 0.5 * ow,
          hx = 0.5 * ox,
          hy = 0.5 * oy,
          hz = 0.5 * oz;
        b1x = hw * f1x + hz * f2x - hy * f3x;
        b1y = hw * f1y + hz * f2y - hy * f3y;
        b1z = hw * f1z + hz * f2z - hy * f3z;
        b2x = -hz * f1x + hw * f2x + hx * f3x;
        b2y = -hz * f1y + hw * f2y + hx * f3y;
        b2z = -hz * f1z + hw * f2z + hx * f3z;
        b3x = hy * f1x - hx * f2x + hw * f3x;
        b3y = hy * f1y - hx * f2y + hw * f3y;
        b3z = hy * f1z - hx * f2z + hw * f3z;
      } else {
        // no joint: an identity row with a zero right side (its Δλ is 0)
        rhs[r + 3] = rhs[r + 4] = rhs[r + 5] = 0;
      }
      const s0 = g1 * (wa + wb) * invL * invL,
        gr = g1 * wr,
        wj = g1 * (wPrev + wr);
      D[0] = gr * (t1x * t1x + t1y * t1y + t1z * t1z) + s0 + at0;
      D[6] = gr * (t2x * t1x + t2y * t1y + t2z * t1z);
      D[7] = gr * (t2x * t2x + t2y * t2y + t2z * t2z) + s0 + at1;
      D[12] = gr * (t3x * t1x + t3y * t1y + t3z * t1z);
      D[13] = gr * (t3x * t2x + t3y * t2y + t3z * t2z);
      D[14] = gr * (t3x * t3x + t3y * t3y + t3z * t3z) + s0 + at2;
      D[18] = gr * (b1x * t1x + b1y * t1y + b1z * t1z);
      D[19] = gr * (b1x * t2x + b1y * t2y + b1z * t2z);
      D[20] = gr * (b1x * t3x + b1y * t3y + b1z * t3z);
      D[21] = wj * (b1x * b1x + b1y * b1y + b1z * b1z) + Lb0;
      D[24] = gr * (b2x * t1x + b2y * t1y + b2z * t1z);
      D[25] = gr * (b2x * t2x + b2y * t2y + b2z * t2z);
      D[26] = gr * (b2x * t3x + b2y * t3y + b2z * t3z);
      D[27] = wj * (b2x * b1x + b2y * b1y + b2z * b1z);
      D[28] = wj * (b2x * b2x + b2y * b2y + b2z * b2z) + Lb1;
      D[30] = gr * (b3x * t1x + b3y * t1y + b3z * t1z);
      D[31] = gr * (b3x * t2x + b3y * t2y + b3z * t2z);
      D[32] = gr * (b3x * t3x + b3y * t3y + b3z * t3z);
      D[33] = wj * (b3x * b1x + b3y * b1y + b3z * b1z);
      D[34] = wj * (b3x * b2x + b3y * b2y + b3z * b2z);
      D[35] = wj * (b3x * b3x + b3y * b3y + b3z * b3z) + Lb2;
      geo[o + 0] = d1x;
      geo[o + 1] = d1y;
      geo[o + 2] = d1z;
      geo[o + 3] = d2x;
      geo[o + 4] = d2y;
      geo[o + 5] = d2z;
      geo[o + 6] = d3x;
      geo[o + 7] = d3y;
      geo[o + 8] = d3z;
      geo[o + 12] = t1x;
      geo[o + 13] = t1y;
      geo[o + 14] = t1z;
      geo[o + 15] = t2x;
      geo[o + 16] = t2y;
      geo[o + 17] = t2z;
      geo[o + 18] = t3x;
      geo[o + 19] = t3y;
      geo[o + 20] = t3z;
      geo[o + 21] = b1x;
      geo[o + 22] = b1y;
      geo[o + 23] = b1z;
      geo[o + 24] = b2x;
      geo[o + 25] = b2y;
      geo[o + 26] = b2z;
      geo[o + 27] = b3x;
      geo[o + 28] = b3y;
      geo[o + 29] = b3z;
      if (k > 0) {
        // ---- U = A_{k−1,k}: rows block k − 1 (s, b), columns block k (s′, b′); (b, s′) = 0 (set once)
        //   (s, s′) = −w_k R_{k−1}ᵀ R_k/(l l′), (s, b′) = −w_θ T_{k−1} B′ᵀ, (b, b′) = −w_θ B B′ᵀ
        const po = o - GEO;
        const wpk = g1 * w[SA[c]] * (1 / rest[c - 1]) * invL;
        const wrp = g1 * iI[3 * SQ[c - 1]];
        const pd1x = geo[po + 0],
          pd1y = geo[po + 1],
          pd1z = geo[po + 2];
        const pd2x = geo[po + 3],
          pd2y = geo[po + 4],
          pd2z = geo[po + 5];
        const pd3x = geo[po + 6],
          pd3y = geo[po + 7],
          pd3z = geo[po + 8];
        const pt1x = geo[po + 12],
          pt1y = geo[po + 13],
          pt1z = geo[po + 14];
        const pt2x = geo[po + 15],
          pt2y = geo[po + 16],
          pt2z = geo[po + 17];
        const pt3x = geo[po + 18],
          pt3y = geo[po + 19],
          pt3z = geo[po + 20];
        const pb1x = geo[po + 21],
          pb1y = geo[po + 22],
          pb1z = geo[po + 23];
        const pb2x = geo[po + 24],
          pb2y = geo[po + 25],
          pb2z = geo[po + 26];
        const pb3x = geo[po + 27],
          pb3y = geo[po + 28],
          pb3z = geo[po + 29];
        U[0] = -wpk * (pd1x * d1x + pd1y * d1y + pd1z * d1z);
        U[3] = -wrp * (pt1x * b1x + pt1y * b1y + pt1z * b1z);
        U[21] = -wrp * (pb1x * b1x + pb1y * b1y + pb1z * b1z);
        U[1] = -wpk * (pd1x * d2x + pd1y * d2y + pd1z * d2z);
        U[4] = -wrp * (pt1x * b2x + pt1y * b2y + pt1z * b2z);
        U[22] = -wrp * (pb1x * b2x + pb1y * b2y + pb1z * b2z);
        U[2] = -wpk * (pd1x * d3x + pd1y * d3y + pd1z * d3z);
        U[5] = -wrp * (pt1x * b3x + pt1y * b3y + pt1z * b3z);
        U[23] = -wrp * (pb1x * b3x + pb1y * b3y + pb1z * b3z);
        U[6] = -wpk * (pd2x * d1x + pd2y * d1y + pd2z * d1z);
        U[9] = -wrp * (pt2x * b1x + pt2y * b1y + pt2z * b1z);
        U[27] = -wrp * (pb2x * b1x + pb2y * b1y + pb2z * b1z);
        U[7] = -wpk * (pd2x * d2x + pd2y * d2y + pd2z * d2z);
        U[10] = -wrp * (pt2x * b2x + pt2y * b2y + pt2z * b2z);
        U[28] = -wrp * (pb2x * b2x + pb2y * b2y + pb2z * b2z);
        U[8] = -wpk * (pd2x * d3x + pd2y * d3y + pd2z * d3z);
        U[11] = -wrp * (pt2x * b3x + pt2y * b3y + pt2z * b3z);
        U[29] = -wrp * (pb2x * b3x + pb2y * b3y + pb2z * b3z);
        U[12] = -wpk * (pd3x * d1x + pd3y * d1y + pd3z * d1z);
        U[15] = -wrp * (pt3x * b1x + pt3y * b1y + pt3z * b1z);
        U[33] = -wrp * (pb3x * b1x + pb3y * b1y + pb3z * b1z);
        U[13] = -wpk * (pd3x * d2x + pd3y * d2y + pd3z * d2z);
        U[16] = -wrp * (pt3x * b2x + pt3y * b2y + pt3z * b2z);
        U[34] = -wrp * (pb3x * b2x + pb3y * b2y + pb3z * b2z);
        U[14] = -wpk * (pd3x * d3x + pd3y * d3y + pd3z * d3z);
        U[17] = -wrp * (pt3x * b3x + pt3y * b3y + pt3z * b3z);
        U[35] = -wrp * (pb3x * b3x + pb3y * b3y + pb3z * b3z);
        // W_{k−1} = L_{k−1}⁻¹ U; D_k = A_kk − W_{k−1}ᵀ W_{k−1}; g_k = r_k − W_{k−1}ᵀ y_{k−1}
        lowerSolve6(Lf, 21 * (k - 1), U, W, 36 * (k - 1));
        subtractGram6(D, W, 36 * (k - 1));
        subtractTransposedProduct6(rhs, r, W, 36 * (k - 1), rhs, r - 6);
      }
      // D_k = L_k L_kᵀ; y_k = L_k⁻¹ g_k (in place in rhs)
      chol6(D, Lf, 21 * k);
      lowerSolveVec6(Lf, 21 * k, rhs, r);
    }
    // ---- back substitution: Δλ_k = L_k⁻ᵀ (y_k − W_k Δλ_{k+1}) (into rhs)
    upperSolveVec6(Lf, 21 * (m - 1), rhs, 6 * (m - 1));
    for (let k = m - 2; k >= 0; k--) {
      subtractProduct6(rhs, 6 * k, W, 36 * k, 6 * (k + 1));
      upperSolveVec6(Lf, 21 * k, rhs, 6 * k);
    }
    // ---- apply: λ += Δλ, Δp = w J_pᵀ Δλ, Δθ = w_θ J_θᵀ Δλ
    const kp = this.rule.kPrime;
    for (let k = 0; k < m; k++) {
      const c = c0 + k,
        o = GEO * k,
        zo = 6 * k;
      const l1 = kp * rhs[zo],
        l2 = kp * rhs[zo + 1],
        l3 = kp * rhs[zo + 2];
      slam[3 * c] += l1;
      slam[3 * c + 1] += l2;
      slam[3 * c + 2] += l3;
      const j = this.jointBefore[c];
      const an = anchors && k === 0 ? this.anchorOf[c] : -1;
      const b1 = kp * rhs[zo + 3],
        b2 = kp * rhs[zo + 4],
        b3 = kp * rhs[zo + 5];
      if (j >= 0) {
        bt!.lambda[3 * j] += b1;
        bt!.lambda[3 * j + 1] += b2;
        bt!.lambda[3 * j + 2] += b3;
      } else if (an >= 0) {
        bt!.anchorLambda[3 * an] += b1;
        bt!.anchorLambda[3 * an + 1] += b2;
        bt!.anchorLambda[3 * an + 2] += b3;
      }
      // D = R_k Δλ_s (world), p_a −= w_a D/l, p_b += w_b D/l
      const invL = 1 / rest[c];
      const Dx = l1 * geo[o] + l2 * geo[o + 3] + l3 * geo[o + 6],
        Dy = l1 * geo[o + 1] + l2 * geo[o + 4] + l3 * geo[o + 7],
        Dz = l1 * geo[o + 2] + l2 * geo[o + 5] + l3 * geo[o + 8];
      const ia = 3 * SA[c],
        ib = 3 * SB[c];
      const fa = w[SA[c]] * invL,
        fb = w[SB[c]] * invL;
      p[ia] -= fa * Dx;
      p[ia + 1] -= fa * Dy;
      p[ia + 2] -= fa * Dz;
      p[ib] += fb * Dx;
      p[ib + 1] += fb * Dy;
      p[ib + 2] += fb * Dz;
      const iq = 4 * SQ[c];
      const wr = iI[3 * SQ[c]];
      if (wr === 0) continue;
      // Δθ = w_θ (T_kᵀ Δλ_s + B_kᵀ Δλ_b − B_{k+1}ᵀ Δλ_{b,k+1})
      let tx =
          l1 * geo[o + 12] +
          l2 * geo[o + 15] +
          l3 * geo[o + 18] +
          b1 * geo[o + 21] +
          b2 * geo[o + 24] +
          b3 * geo[o + 27],
        ty =
          l1 * geo[o + 13] +
          l2 * geo[o + 16] +
          l3 * geo[o + 19] +
          b1 * geo[o + 22] +
          b2 * geo[o + 25] +
          b3 * geo[o + 28],
        tz =
          l1 * geo[o + 14] +
          l2 * geo[o + 17] +
          l3 * geo[o + 20] +
          b1 * geo[o + 23] +
          b2 * geo[o + 26] +
          b3 * geo[o + 29];
      if (k + 1 < m) {
        const on = o + GEO,
          zn = zo + 6;
        const n1 = kp * rhs[zn + 3],
          n2 = kp * rhs[zn + 4],
          n3 = kp * rhs[zn + 5];
        tx -= n1 * geo[on + 21] + n2 * geo[on + 24] + n3 * geo[on + 27];
        ty -= n1 * geo[on + 22] + n2 * geo[on + 25] + n3 * geo[on + 28];
        tz -= n1 * geo[on + 23] + n2 * geo[on + 26] + n3 * geo[on + 29];
      }
      // q ← normalise(q + ½ [Δθ, 0] q)
      const f = 0.5 * wr;
      tx *= f;
      ty *= f;
      tz *= f;
      const qx = qp[iq],
        qy = qp[iq + 1],
        qz = qp[iq + 2],
        qw = qp[iq + 3];
      const nx = qx + tx * qw + ty * qz - tz * qy,
        ny = qy + ty * qw + tz * qx - tx * qz,
        nz = qz + tz * qw + tx * qy - ty * qx,
        nw = qw - (tx * qx + ty * qy + tz * qz);
      const len = Math.sqrt(nx * nx + ny * ny + nz * nz + nw * nw);
      if (len > 1e-12) {
        const il = 1 / len;
        qp[iq] = nx * il;
        qp[iq + 1] = ny * il;
        qp[iq + 2] = nz * il;
        qp[iq + 3] = nw * il;
      }
    }
  }
}
