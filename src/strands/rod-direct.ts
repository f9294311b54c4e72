/**
 * A direct solver for Cosserat rods (Deul, Kugelstadt, Weiler & Bender
 * 2018, "Direct Position-Based Solver for Stiff Rods", CGF): every
 * iteration solves the linearised XPBD system of all the rod's constraints
 * at once, exactly, instead of projecting them one after another.
 *
 * XPBD (the paper's §3, after Macklin et al. 2016) linearises the
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
import { type BendTwistConstraints, projectBendTwistJoint } from './rod-bend-twist.js';
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
  private readonly X: Float64Array;
  private readonly z: Float64Array;
  private readonly rhs: Float64Array;
  private readonly D = new Float64Array(36);
  private readonly Dprev = new Float64Array(36);
  private readonly invd = new Float64Array(6);
  private readonly invdPrev = new Float64Array(6);
  private readonly U = new Float64Array(36);
  private readonly g = new Float64Array(6);
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
    this.X = new Float64Array(36 * longest);
    this.z = new Float64Array(6 * longest);
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
      for (let i = 0; i < this.looseAnchors.length; i++) {
        const a = this.looseAnchors[i];
        const qi = bt.anchorQ[a];
        projectBendTwistJoint(
          bt.anchorFrame,
          4 * a,
          bt.anchorPrev,
          0,
          ctx.store.qp,
          4 * qi,
          ctx.store.q,
          0.25 * ctx.store.invInertia[3 * qi],
          bt.anchorRest,
          4 * a,
          bt.anchorLength[a],
          bt.anchorLambda,
          3 * a,
          this.btScale,
          this.gamma,
          this.rule.kPrime,
        );
      }
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
      X = this.X,
      z = this.z,
      rhs = this.rhs,
      D = this.D,
      Dp = this.Dprev,
      invd = this.invd,
      invdp = this.invdPrev,
      U = this.U,
      g = this.g;
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
      // ---- geometry of segment k: R_kᵀ rows d_1, d_2, d_3, e_k, T_k = R_kᵀ [e]×/l (row i: d_i × e/l)
      const qx = qp[iq],
        qy = qp[iq + 1],
        qz = qp[iq + 2],
        qw = qp[iq + 3];
      const ex = p[ib] - p[ia],
        ey = p[ib + 1] - p[ia + 1],
        ez = p[ib + 2] - p[ia + 2];
      geo[o] = 1 - 2 * (qy * qy + qz * qz);
      geo[o + 1] = 2 * (qx * qy + qw * qz);
      geo[o + 2] = 2 * (qx * qz - qw * qy);
      geo[o + 3] = 2 * (qx * qy - qw * qz);
      geo[o + 4] = 1 - 2 * (qx * qx + qz * qz);
      geo[o + 5] = 2 * (qy * qz + qw * qx);
      geo[o + 6] = 2 * (qx * qz + qw * qy);
      geo[o + 7] = 2 * (qy * qz - qw * qx);
      geo[o + 8] = 1 - 2 * (qx * qx + qy * qy);
      geo[o + 9] = ex;
      geo[o + 10] = ey;
      geo[o + 11] = ez;
      for (let i = 0; i < 3; i++) {
        const dx = geo[o + 3 * i],
          dy = geo[o + 3 * i + 1],
          dz = geo[o + 3 * i + 2];
        geo[o + 12 + 3 * i] = (dy * ez - dz * ey) * invL;
        geo[o + 13 + 3 * i] = (dz * ex - dx * ez) * invL;
        geo[o + 14 + 3 * i] = (dx * ey - dy * ex) * invL;
      }
      // ---- stretch–shear rows: C = R_kᵀ e/l − e_3, rhs −C − α̃ λ − γ J Δx
      const e1 = ex * geo[o] + ey * geo[o + 1] + ez * geo[o + 2],
        e2 = ex * geo[o + 3] + ey * geo[o + 4] + ez * geo[o + 5],
        e3 = ex * geo[o + 6] + ey * geo[o + 7] + ez * geo[o + 8];
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
        for (let i = 0; i < 3; i++)
          rhs[r + i] -=
            gamma * invL * (vx * geo[o + 3 * i] + vy * geo[o + 3 * i + 1] + vz * geo[o + 3 * i + 2]);
      }
      // ---- the joint of block k: joint k − 1 (q = segment k − 1) or the clamp (q = its frame)
      const j = this.jointBefore[c];
      const an = anchors && k === 0 ? this.anchorOf[c] : -1;
      let wPrev = 0;
      let hasJoint = false;
      if (j >= 0 || an >= 0) {
        hasJoint = true;
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
        const Lb0 = ab0 * L,
          Lb1 = ab1 * L,
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
        // B = ½ (ω_w I − [ω_v]×) R_Fᵀ; R_Fᵀ rows from F
        const r00 = 1 - 2 * (fy * fy + fz * fz),
          r01 = 2 * (fx * fy + fw * fz),
          r02 = 2 * (fx * fz - fw * fy);
        const r10 = 2 * (fx * fy - fw * fz),
          r11 = 1 - 2 * (fx * fx + fz * fz),
          r12 = 2 * (fy * fz + fw * fx);
        const r20 = 2 * (fx * fz + fw * fy),
          r21 = 2 * (fy * fz - fw * fx),
          r22 = 1 - 2 * (fx * fx + fy * fy);
        // M = [[ω_w, ω_z, −ω_y], [−ω_z, ω_w, ω_x], [ω_y, −ω_x, ω_w]] (ω_w I − [ω_v]×)
        geo[o + 21] = 0.5 * (ow * r00 + oz * r10 - oy * r20);
        geo[o + 22] = 0.5 * (ow * r01 + oz * r11 - oy * r21);
        geo[o + 23] = 0.5 * (ow * r02 + oz * r12 - oy * r22);
        geo[o + 24] = 0.5 * (-oz * r00 + ow * r10 + ox * r20);
        geo[o + 25] = 0.5 * (-oz * r01 + ow * r11 + ox * r21);
        geo[o + 26] = 0.5 * (-oz * r02 + ow * r12 + ox * r22);
        geo[o + 27] = 0.5 * (oy * r00 - ox * r10 + ow * r20);
        geo[o + 28] = 0.5 * (oy * r01 - ox * r11 + ow * r21);
        geo[o + 29] = 0.5 * (oy * r02 - ox * r12 + ow * r22);
        // diagonal joint block: (w_prev + w_θ) B Bᵀ + α̃
        const wj = g1 * (wPrev + wr);
        for (let a = 0; a < 3; a++)
          for (let b = 0; b <= a; b++) {
            const v =
              wj *
              (geo[o + 21 + 3 * a] * geo[o + 21 + 3 * b] +
                geo[o + 22 + 3 * a] * geo[o + 22 + 3 * b] +
                geo[o + 23 + 3 * a] * geo[o + 23 + 3 * b]);
            D[6 * (3 + a) + 3 + b] = v;
            D[6 * (3 + b) + 3 + a] = v;
          }
        D[21] += Lb0;
        D[28] += Lb1;
        D[35] += Lb2;
      } else {
        for (let i = 21; i < 30; i++) geo[o + i] = 0;
        rhs[r + 3] = rhs[r + 4] = rhs[r + 5] = 0;
        for (let a = 3; a < 6; a++) for (let b = 3; b < 6; b++) D[6 * a + b] = a === b ? 1 : 0;
      }
      // ---- diagonal stretch–shear block and the coupling to the joint
      const s0 = g1 * (wa + wb) * invL * invL;
      const gr = g1 * wr;
      for (let a = 0; a < 3; a++) {
        const ta = o + 12 + 3 * a;
        for (let b = 0; b <= a; b++) {
          const tb = o + 12 + 3 * b;
          const v =
            gr * (geo[ta] * geo[tb] + geo[ta + 1] * geo[tb + 1] + geo[ta + 2] * geo[tb + 2]) +
            (a === b ? s0 : 0);
          D[6 * a + b] = v;
          D[6 * b + a] = v;
        }
        for (let b = 0; b < 3; b++) {
          const v = hasJoint
            ? gr *
              (geo[ta] * geo[o + 21 + 3 * b] +
                geo[ta + 1] * geo[o + 22 + 3 * b] +
                geo[ta + 2] * geo[o + 23 + 3 * b])
            : 0;
          D[6 * a + 3 + b] = v;
          D[6 * (3 + b) + a] = v;
        }
      }
      D[0] += at0;
      D[7] += at1;
      D[14] += at2;
      for (let i = 0; i < 6; i++) g[i] = rhs[r + i];
      if (k > 0) {
        // ---- U = A_{k−1,k}: rows block k − 1 (s, b), columns block k (s′, b′)
        const po = o - GEO;
        const wpk = g1 * w[SA[c]] * (1 / rest[c - 1]) * invL;
        const wrp = g1 * iI[3 * SQ[c - 1]];
        for (let a = 0; a < 3; a++) {
          for (let b = 0; b < 3; b++) {
            // (s, s′) = −w_k R_{k−1}ᵀ R_k/(l l′): rows of R_{k−1}ᵀ dotted with rows of R_kᵀ
            U[6 * a + b] =
              -wpk *
              (geo[po + 3 * a] * geo[o + 3 * b] +
                geo[po + 3 * a + 1] * geo[o + 3 * b + 1] +
                geo[po + 3 * a + 2] * geo[o + 3 * b + 2]);
            // (s, b′) = −w_θ T_{k−1} B′ᵀ
            U[6 * a + 3 + b] =
              -wrp *
              (geo[po + 12 + 3 * a] * geo[o + 21 + 3 * b] +
                geo[po + 13 + 3 * a] * geo[o + 22 + 3 * b] +
                geo[po + 14 + 3 * a] * geo[o + 23 + 3 * b]);
            // (b, s′) = 0
            U[6 * (3 + a) + b] = 0;
            // (b, b′) = −w_θ B B′ᵀ
            U[6 * (3 + a) + 3 + b] =
              -wrp *
              (geo[po + 21 + 3 * a] * geo[o + 21 + 3 * b] +
                geo[po + 22 + 3 * a] * geo[o + 22 + 3 * b] +
                geo[po + 23 + 3 * a] * geo[o + 23 + 3 * b]);
          }
        }
        // X_{k−1} = D_{k−1}⁻¹ U (column by column)
        const xo = 36 * (k - 1);
        for (let col = 0; col < 6; col++) {
          for (let i = 0; i < 6; i++) X[xo + 6 * i + col] = U[6 * i + col];
          ldltSolveColumn(Dp, invdp, X, xo, col);
        }
        // D_k = A_kk − Uᵀ X_{k−1}, g_k = r_k − Uᵀ z_{k−1}
        const zo = 6 * (k - 1);
        for (let a = 0; a < 6; a++) {
          let ga = 0;
          for (let i = 0; i < 6; i++) ga += U[6 * i + a] * z[zo + i];
          g[a] -= ga;
          for (let b = 0; b <= a; b++) {
            let v = 0;
            for (let i = 0; i < 6; i++) v += U[6 * i + a] * X[xo + 6 * i + b];
            D[6 * a + b] -= v;
            if (a !== b) D[6 * b + a] = D[6 * a + b];
          }
        }
      }
      ldltFactor(D, invd);
      for (let i = 0; i < 6; i++) z[6 * k + i] = g[i];
      ldltSolveColumn(D, invd, z, 6 * k, 0, 1);
      Dp.set(D);
      invdp.set(invd);
    }
    // ---- back substitution: Δλ_k = z_k − X_k Δλ_{k+1} (into z)
    for (let k = m - 2; k >= 0; k--) {
      const xo = 36 * k,
        zo = 6 * k,
        zn = 6 * (k + 1);
      for (let i = 0; i < 6; i++) {
        let v = 0;
        for (let b = 0; b < 6; b++) v += X[xo + 6 * i + b] * z[zn + b];
        z[zo + i] -= v;
      }
    }
    // ---- apply: λ += Δλ, Δp = w J_pᵀ Δλ, Δθ = w_θ J_θᵀ Δλ
    const kp = this.rule.kPrime;
    for (let k = 0; k < m; k++) {
      const c = c0 + k,
        o = GEO * k,
        zo = 6 * k;
      const l1 = kp * z[zo],
        l2 = kp * z[zo + 1],
        l3 = kp * z[zo + 2];
      slam[3 * c] += l1;
      slam[3 * c + 1] += l2;
      slam[3 * c + 2] += l3;
      const j = this.jointBefore[c];
      const an = anchors && k === 0 ? this.anchorOf[c] : -1;
      const b1 = kp * z[zo + 3],
        b2 = kp * z[zo + 4],
        b3 = kp * z[zo + 5];
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
        const n1 = kp * z[zn + 3],
          n2 = kp * z[zn + 4],
          n3 = kp * z[zn + 5];
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

/**
 * In-place LDLᵀ of a symmetric positive semi-definite 6 × 6 matrix (row
 * major, lower triangle used): L below the diagonal (unit diagonal), and
 * 1/d in invd, 0 for a pivot that vanishes against its row's scale (that
 * row is then left out: its unknown is 0).
 */
export function ldltFactor(M: Float64Array, invd: Float64Array): void {
  for (let j = 0; j < 6; j++) {
    const scale = M[7 * j];
    let d = scale;
    for (let k = 0; k < j; k++) d -= M[6 * j + k] * M[6 * j + k] * M[7 * k];
    const ok = d > 1e-12 * scale && d > 0;
    M[7 * j] = ok ? d : 0;
    invd[j] = ok ? 1 / d : 0;
    for (let i = j + 1; i < 6; i++) {
      let v = M[6 * i + j];
      for (let k = 0; k < j; k++) v -= M[6 * i + k] * M[6 * j + k] * M[7 * k];
      M[6 * i + j] = ok ? v * invd[j] : 0;
    }
  }
}

/**
 * Solves L D Lᵀ y = b in place for column `col` of the 6-row array V at
 * offset vo with row stride `stride` (6 for a 6 × 6 block, 1 for a vector).
 */
export function ldltSolveColumn(
  M: Float64Array,
  invd: Float64Array,
  V: Float64Array,
  vo: number,
  col: number,
  stride = 6,
): void {
  for (let i = 1; i < 6; i++) {
    let v = V[vo + stride * i + col];
    for (let k = 0; k < i; k++) v -= M[6 * i + k] * V[vo + stride * k + col];
    V[vo + stride * i + col] = v;
  }
  for (let i = 0; i < 6; i++) V[vo + stride * i + col] *= invd[i];
  for (let i = 4; i >= 0; i--) {
    let v = V[vo + stride * i + col];
    for (let k = i + 1; k < 6; k++) v -= M[6 * k + i] * V[vo + stride * k + col];
    V[vo + stride * i + col] = v;
  }
}
