/** Stretch and shear of Cosserat rods; the model is described in rod-common.ts. */
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { PbdError } from '../core/errors.js';
import type { ParticleStore } from '../core/particles.js';
import { type AxisStiffness, quatProduct, type RodDamping } from './rod-common.js';
import { StretchShearRows } from './rod-kernels.generated.js';

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
export class StretchShearConstraints extends StretchShearRows implements ConstraintSet {
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
    // the loop is printed by scripts/kernels/emit-rod-rows.ts (its rows shared with the direct solver)
    this.projectSegments(ctx.store, ctx.reverse);
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
