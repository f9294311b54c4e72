/** Stretch and shear of Cosserat rods; the model is described in rod-common.ts. */
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { PbdError } from '../core/errors.js';
import type { ParticleStore } from '../core/particles.js';
import { type AxisStiffness, quatProduct, RodConstraints, type RodDamping } from './rod-common.js';

/**
 * Stretch and shear constraints of Cosserat rods (eq. 37): one per segment,
 * particles a → b and the segment's orientation q (a particle index).
 *
 * The constraint is the paper's strain (p_b − p_a)/l − d_3 written in the
 * segment's material frame, C = Rᵀ(q) e/l − e_3 with e = p_b − p_a (the
 * Cosserat strain Γ; rod-common.ts), so that the compliance, which differs
 * between stretch and shear, acts along the material axes, and C does not
 * change under a rigid rotation of the segment.
 *
 * Our departure from eq. 37: the orientation is corrected by a rotation
 * vector with the segment's inverse moment of inertia I⁻¹ (as rigid bodies
 * are in Müller et al. 2020), not as a 4-vector. The paper's quaternion
 * gradient has a large part along q itself (d_3 is quadratic in q), which
 * the normalisation throws away but which still sits in its denominator
 * w_a + w_b + 4 w_q l²: with light orientations that starves the stretch
 * correction of the positions (a cantilever of 20 segments stretched 4 %
 * at one iteration). With rotations, ∇_θ C_k = (d_k × e)/l — turning the
 * segment does not change its length — and the projection moves the
 * particles by the force D = Σ Δλ_k d_k and turns the segment by the
 * torque e × D of that force pair, so it conserves linear and angular
 * momentum exactly (up to the normalisation of q, third order):
 *
 *   ∇_{p_a} C_k = −d_k/l,  ∇_{p_b} C_k = d_k/l,  ∇_θ C_k = (d_k × e)/l,
 *   K = ∇C M⁻¹ ∇Cᵀ = (w_a + w_b)/l² I + I⁻¹/l² (|e|² I − ê êᵀ)  (ê = Rᵀ e),
 *   ((1 + γ) K + α̃) Δλ = −C − α̃ λ − γ ∇C·Δx   (a 3 × 3 solve, XPBD),
 *   Δp_a = −w_a D/l,  Δp_b = w_b D/l,  Δθ = I⁻¹ (D × e)/l,
 *   q ← normalise(q + ½ [Δθ, 0] q).
 */
export class StretchShearConstraints extends RodConstraints implements ConstraintSet {
  readonly kind = 'rod-stretch-shear';
  readonly a: Int32Array;
  readonly b: Int32Array;
  /** The particle whose orientation channel holds the segment's orientation. */
  readonly q: Int32Array;
  /** Rest length l of each segment (m). */
  readonly rest: Float64Array;
  // invStiffness: 1/(κ_s G A), 1/(κ_s G A), 1/(E A) (1/N); setStiffness takes κ_s G A, κ_s G A, E A (N)

  constructor(
    segments: { a: ArrayLike<number>; b: ArrayLike<number>; q: ArrayLike<number>; rest: ArrayLike<number> },
    stiffness: AxisStiffness,
    params: RodDamping = {},
    where = 'rod.stretchShear',
  ) {
    const rest = Float64Array.from(segments.rest);
    const count = segments.a.length;
    for (let c = 0; c < count; c++) {
      if (!(rest[c] > 0)) {
        throw new PbdError('rod/segment', `${where}: segment ${c}`, `has rest length ${rest[c]}`);
      }
    }
    super(count, stiffness, params, where, 'rod.stretchShear', 1);
    this.a = Int32Array.from(segments.a);
    this.b = Int32Array.from(segments.b);
    this.q = Int32Array.from(segments.q);
    this.rest = rest;
  }

  project(ctx: StepContext): void {
    if (this.skips(ctx)) return;
    const store = ctx.store;
    const p = store.p,
      x = store.x,
      qp = store.qp,
      q0 = store.q,
      w = store.invMass,
      iI = store.invInertia;
    const A = this.a,
      B = this.b,
      Q = this.q,
      rest = this.rest,
      lam = this.lambda;
    const kp = this.rule.kPrime;
    const as0 = this.atScale[0],
      as1 = this.atScale[1],
      as2 = this.atScale[2];
    const gamma = this.gamma;
    const n = this.count;
    const rev = ctx.reverse;
    for (let k = 0; k < n; k++) {
      const c = rev ? n - 1 - k : k;
      const ia = 3 * A[c],
        ib = 3 * B[c],
        iq = 4 * Q[c];
      const wa = w[A[c]],
        wb = w[B[c]],
        wr = iI[3 * Q[c]];
      const invL = 1 / rest[c],
        invL2 = invL * invL;
      const s0 = (wa + wb) * invL2,
        sr = wr * invL2;
      if (s0 === 0 && sr === 0) continue;
      const ex = p[ib] - p[ia],
        ey = p[ib + 1] - p[ia + 1],
        ez = p[ib + 2] - p[ia + 2];
      const qx = qp[iq],
        qy = qp[iq + 1],
        qz = qp[iq + 2],
        qw = qp[iq + 3];
      // the material frame: the columns of R(q)
      const d1x = 1 - 2 * (qy * qy + qz * qz),
        d1y = 2 * (qx * qy + qw * qz),
        d1z = 2 * (qx * qz - qw * qy);
      const d2x = 2 * (qx * qy - qw * qz),
        d2y = 1 - 2 * (qx * qx + qz * qz),
        d2z = 2 * (qy * qz + qw * qx);
      const d3x = 2 * (qx * qz + qw * qy),
        d3y = 2 * (qy * qz - qw * qx),
        d3z = 1 - 2 * (qx * qx + qy * qy);
      // ê = Rᵀ e; C = ê/l − e_3
      const e1 = ex * d1x + ey * d1y + ez * d1z,
        e2 = ex * d2x + ey * d2y + ez * d2z,
        e3 = ex * d3x + ey * d3y + ez * d3z;
      const at0 = as0 * invL,
        at1 = as1 * invL,
        at2 = as2 * invL;
      let r1 = -e1 * invL - at0 * lam[3 * c],
        r2 = -e2 * invL - at1 * lam[3 * c + 1],
        r3 = -(e3 * invL - 1) - at2 * lam[3 * c + 2];
      let g1 = 1;
      if (gamma !== 0) {
        // γ ∇C_k·Δx = γ d_k·(Δp_b − Δp_a + e × δθ)/l, δθ = 2 Im(q_p q̄) (the substep's rotation, small)
        const ax = qw * -q0[iq] + qx * q0[iq + 3] + qy * -q0[iq + 2] - qz * -q0[iq + 1],
          ay = qw * -q0[iq + 1] - qx * -q0[iq + 2] + qy * q0[iq + 3] + qz * -q0[iq],
          az = qw * -q0[iq + 2] + qx * -q0[iq + 1] - qy * -q0[iq] + qz * q0[iq + 3];
        const vx = p[ib] - x[ib] - p[ia] + x[ia] + 2 * (ey * az - ez * ay),
          vy = p[ib + 1] - x[ib + 1] - p[ia + 1] + x[ia + 1] + 2 * (ez * ax - ex * az),
          vz = p[ib + 2] - x[ib + 2] - p[ia + 2] + x[ia + 2] + 2 * (ex * ay - ey * ax);
        r1 -= gamma * invL * (vx * d1x + vy * d1y + vz * d1z);
        r2 -= gamma * invL * (vx * d2x + vy * d2y + vz * d2z);
        r3 -= gamma * invL * (vx * d3x + vy * d3y + vz * d3z);
        g1 = 1 + gamma;
      }
      // (1 + γ) K + α̃, K = s0 I + sr (|e|² I − ê êᵀ)
      const ee = e1 * e1 + e2 * e2 + e3 * e3;
      let m11 = g1 * (s0 + sr * (ee - e1 * e1)) + at0,
        m22 = g1 * (s0 + sr * (ee - e2 * e2)) + at1,
        m33 = g1 * (s0 + sr * (ee - e3 * e3)) + at2;
      const m12 = -g1 * sr * e1 * e2,
        m13 = -g1 * sr * e1 * e3,
        m23 = -g1 * sr * e2 * e3;
      if (s0 === 0) {
        // both ends held: turning cannot change the length; solve on the directions across ê only
        const f = ee > 0 ? (r1 * e1 + r2 * e2 + r3 * e3) / ee : 0;
        r1 -= f * e1;
        r2 -= f * e2;
        r3 -= f * e3;
        const reg = 1e-9 * g1 * sr * ee + 1e-300;
        m11 += reg;
        m22 += reg;
        m33 += reg;
      }
      const c11 = m22 * m33 - m23 * m23,
        c12 = m13 * m23 - m12 * m33,
        c13 = m12 * m23 - m13 * m22,
        c22 = m11 * m33 - m13 * m13,
        c23 = m12 * m13 - m11 * m23,
        c33 = m11 * m22 - m12 * m12;
      const det = m11 * c11 + m12 * c12 + m13 * c13;
      if (!(det > 0)) continue;
      const id = kp / det;
      const l1 = (c11 * r1 + c12 * r2 + c13 * r3) * id,
        l2 = (c12 * r1 + c22 * r2 + c23 * r3) * id,
        l3 = (c13 * r1 + c23 * r2 + c33 * r3) * id;
      lam[3 * c] += l1;
      lam[3 * c + 1] += l2;
      lam[3 * c + 2] += l3;
      // D = Σ Δλ_k d_k (world)
      const Dx = l1 * d1x + l2 * d2x + l3 * d3x,
        Dy = l1 * d1y + l2 * d2y + l3 * d3y,
        Dz = l1 * d1z + l2 * d2z + l3 * d3z;
      const fa = wa * invL,
        fb = wb * invL;
      p[ia] -= fa * Dx;
      p[ia + 1] -= fa * Dy;
      p[ia + 2] -= fa * Dz;
      p[ib] += fb * Dx;
      p[ib + 1] += fb * Dy;
      p[ib + 2] += fb * Dz;
      if (wr === 0) continue;
      // Δθ = I⁻¹ (D × e)/l; q ← q + ½ [Δθ, 0] q
      const f = 0.5 * wr * invL;
      const tx = f * (Dy * ez - Dz * ey),
        ty = f * (Dz * ex - Dx * ez),
        tz = f * (Dx * ey - Dy * ex);
      const nx = qx + tx * qw + ty * qz - tz * qy,
        ny = qy + ty * qw + tz * qx - tx * qz,
        nz = qz + tz * qw + tx * qy - ty * qx,
        nw = qw - (tx * qx + ty * qy + tz * qz);
      const len = Math.sqrt(nx * nx + ny * ny + nz * nz + nw * nw);
      const il = 1 / len;
      qp[iq] = nx * il;
      qp[iq + 1] = ny * il;
      qp[iq + 2] = nz * il;
      qp[iq + 3] = nw * il;
    }
  }

  /** Readouts: the violation below is a strain. */
  readonly violationUnit = 'relative';

  /** Largest |C| = |Rᵀ(q)(x_b − x_a)/l − e_3| over the segments, at x and q (dimensionless strain). */
  maxViolation(store: ParticleStore): number {
    let m = 0;
    const out = new Float64Array(3);
    const x = store.x,
      q = store.q;
    for (let c = 0; c < this.count; c++) {
      const ia = 3 * this.a[c],
        ib = 3 * this.b[c],
        iq = 4 * this.q[c];
      stretchShearValue(
        x.subarray(ia, ia + 3),
        x.subarray(ib, ib + 3),
        q.subarray(iq, iq + 4),
        this.rest[c],
        out,
      );
      m = Math.max(m, Math.hypot(out[0], out[1], out[2]));
    }
    return m;
  }
}

/** C = Rᵀ(q)(p_b − p_a)/l − e_3 of one stretch–shear constraint (material frame) into out[0..2]. */
export function stretchShearValue(
  pa: ArrayLike<number>,
  pb: ArrayLike<number>,
  q: ArrayLike<number>,
  l: number,
  out: Float64Array,
): void {
  const { e, d: axes } = segmentAxes(pa, pb, q);
  for (let k = 0; k < 3; k++) {
    const d = axes[k];
    out[k] = (e[0] * d[0] + e[1] * d[1] + e[2] * d[2]) / l - (k === 2 ? 1 : 0);
  }
}

/** e = p_b − p_a and the material axes d_k = q e_k q̄ (k = 1, 2, 3) of one segment (reference code, allocating). */
function segmentAxes(
  pa: ArrayLike<number>,
  pb: ArrayLike<number>,
  q: ArrayLike<number>,
): { e: number[]; d: number[][] } {
  const qq = [q[0], q[1], q[2], q[3]];
  const qc = [-q[0], -q[1], -q[2], q[3]];
  const d: number[][] = [];
  for (let k = 0; k < 3; k++) {
    const ek = [0, 0, 0, 0];
    ek[k] = 1;
    d.push(quatProduct(quatProduct(qq, ek), qc));
  }
  return { e: [pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]], d };
}

/**
 * The gradients of the stretch–shear components C_k as the kernel uses
 * them: ∇_{p_a} C_k = −d_k/l, ∇_{p_b} C_k = d_k/l, and with respect to a
 * rotation δθ of the segment (q ← [δθ/2, 1] q), ∇_θ C_k = (d_k × e)/l.
 * Returns { pa, pb, theta } with pa[3k + i] = ∂C_k/∂p_a,i, theta[3k + i] = ∂C_k/∂θ_i.
 */
export function stretchShearGradients(
  pa: ArrayLike<number>,
  pb: ArrayLike<number>,
  q: ArrayLike<number>,
  l: number,
): { pa: Float64Array; pb: Float64Array; theta: Float64Array } {
  const ga = new Float64Array(9),
    gb = new Float64Array(9),
    gt = new Float64Array(9);
  const { e, d: axes } = segmentAxes(pa, pb, q);
  for (let k = 0; k < 3; k++) {
    const d = axes[k];
    for (let i = 0; i < 3; i++) {
      ga[3 * k + i] = -d[i] / l;
      gb[3 * k + i] = d[i] / l;
    }
    gt[3 * k] = (d[1] * e[2] - d[2] * e[1]) / l;
    gt[3 * k + 1] = (d[2] * e[0] - d[0] * e[2]) / l;
    gt[3 * k + 2] = (d[0] * e[1] - d[1] * e[0]) / l;
  }
  return { pa: ga, pb: gb, theta: gt };
}
