/**
 * Triangle strain limiting by the principal stretches of the deformation
 * gradient (survey 000 §3.5, after Wang, O'Brien and Ramamoorthi 2010).
 *
 * Per triangle with rest edges D_m (in the triangle's own plane, 2 × 2) and
 * current edges D_s = [x_a − x_c, x_b − x_c] (3 × 2), F = D_s D_m⁻¹ (3 × 2).
 * Its singular values σ₁ ≥ σ₂ are the principal stretches. Wang et al.
 * clamp them into [s_min, s_max] and move the vertices to realise the
 * clamped F. We write that clamp as unilateral constraints of the normal
 * loop, one per principal stretch,
 *
 *   C_k = σ_k − clamp(σ_k, s_min, s_max)   (projected only when ≠ 0),
 *
 * with the gradient of a singular value ∂σ_k/∂F = û_k v̂_kᵀ (û_k = F v̂_k / σ_k,
 * v̂_k the eigenvector of FᵀF): with w = D_m⁻¹ v̂_k,
 *
 *   ∇_a C = w₀ û_k,   ∇_b C = w₁ û_k,   ∇_c C = −(w₀ + w₁) û_k
 *
 * (the projection of one of them: triangle-limits.kernel.ts, from which
 * `npm run kernels` generates the JavaScript loop and the paired SIMD twin).
 * C depends only on F, so it is invariant under translations and rotations:
 * the gradients sum to zero and have no torque, and the projection
 * Δp_i = w_i ∇_i C Δλ conserves linear and angular momentum (003 §3.3).
 * Its fixed point is Wang et al.'s clamped F. Each triangle gives two
 * constraints (k = 0 for σ₁, k = 1 for σ₂) with their own multipliers; they
 * share the triangle's particles, so colouring puts them in different
 * colour batches and a sweep projects σ₁'s, then σ₂'s from the updated F.
 * The unified PBD / XPBD rule applies (src/core/solver.ts); σ is
 * dimensionless, so the compliance is in J⁻¹ (the potential is C²/(2α)).
 */

import { ElementConstraints } from '../constraints/element-set.js';
import { triangleRestShape } from '../continuum/energy.js';
import type { ParticleStore } from '../core/particles.js';
import { type ConstraintParams, ProjectionRule } from '../core/solver.js';
import type { ElementGlue } from '../kernels/glue.js';
import { checkStretchRange, type StretchRange } from './edge-limits.js';
import { type TriangleStrainLimitArgs, triangleStrainLimitGlue } from './triangle-limits.generated.js';

const WEFT = [1, 0, 0];

export class TriangleStrainLimits extends ElementConstraints<TriangleStrainLimitArgs> {
  readonly kind = 'triangle-strain-limit';
  /** A principal stretch beyond its limit, a fraction of the rest length. */
  readonly violationUnit = 'relative';
  /** Smallest and largest principal stretch allowed. */
  min: number;
  max: number;
  /** D_m⁻¹ of each constraint's triangle (2 × 2 row-major; indices: a, b, c, two constraints per triangle). */
  restInverse: Float64Array = new Float64Array(0);
  /** σ₁, σ₂ of one triangle while maxViolation scans them. */
  private readonly stretchScratch = new Float64Array(2);
  /** The principal stretch each constraint limits: 0 (σ₁, the larger) or 1 (σ₂). */
  which: Float64Array = new Float64Array(0);

  /**
   * @param triangles global particle indices, three per triangle
   * @param range     the principal stretches allowed, and the PBD / XPBD parameters
   * @param rest      rest positions (xyz) of the particles from `rest.offset` on; omitted → the store's x
   */
  constructor(
    store: ParticleStore,
    triangles: ArrayLike<number>,
    range: StretchRange & ConstraintParams,
    rest?: { positions: ArrayLike<number>; offset: number },
    where = 'triangle strain limit',
  ) {
    const { min, max } = checkStretchRange(range, where);
    super(new ProjectionRule(range, where));
    this.min = min;
    this.max = max;
    this.setTriangles(store, triangles, rest);
  }

  /** Replaces the triangles (tearing); rest shapes from `rest` (body-local rows) or the store's x. */
  setTriangles(
    store: ParticleStore,
    triangles: ArrayLike<number>,
    rest?: { positions: ArrayLike<number>; offset: number },
  ): void {
    const nt = Math.floor(triangles.length / 3);
    const idx = new Int32Array(6 * nt);
    const B = new Float64Array(8 * nt);
    const which = new Float64Array(2 * nt);
    const X = rest ? rest.positions : store.x;
    const o = rest ? rest.offset : 0;
    for (let t = 0; t < nt; t++) {
      const a = triangles[3 * t],
        b = triangles[3 * t + 1],
        c = triangles[3 * t + 2];
      // a degenerate rest triangle gets D_m⁻¹ = 0: F = 0, and its constraints are skipped
      triangleRestShape(X, a - o, b - o, c - o, WEFT, B, 8 * t);
      for (let k = 0; k < 4; k++) if (!Number.isFinite(B[8 * t + k])) B.fill(0, 8 * t, 8 * t + 4);
      for (let k = 0; k < 4; k++) B[8 * t + 4 + k] = B[8 * t + k];
      idx.set([a, b, c, a, b, c], 6 * t);
      which[2 * t + 1] = 1;
    }
    [this.restInverse, this.which] = this.setElements(store, idx, [
      [B, 4],
      [which, 1],
    ]);
  }

  /** triangle-limits.kernel.ts. */
  static readonly glue: ElementGlue<TriangleStrainLimitArgs> = triangleStrainLimitGlue;

  protected kernelArgs(a: TriangleStrainLimitArgs): void {
    a.B = this.restInverse;
    a.which = this.which;
    a.smin = this.min;
    a.smax = this.max;
  }

  /** Largest violation of the stretch range over the triangles (dimensionless), at x. */
  maxViolation(store: ParticleStore): number {
    const s = this.stretchScratch;
    let m = 0;
    const B = this.restInverse;
    for (let t = 0; t < this.count; t++) {
      if (B[4 * t] === 0 && B[4 * t + 1] === 0 && B[4 * t + 2] === 0 && B[4 * t + 3] === 0) continue;
      principalStretches(store.x, this.indices, t, B, s);
      m = Math.max(m, s[0] - this.max, this.min - s[1]);
    }
    return m;
  }
}

/**
 * The principal stretches σ₁ ≥ σ₂ (singular values of F = D_s D_m⁻¹) of
 * triangle t (particles indices[3t…3t+2], D_m⁻¹ at B[4t…]) into out[0], out[1].
 */
export function principalStretches(
  x: ArrayLike<number>,
  indices: ArrayLike<number>,
  t: number,
  B: ArrayLike<number>,
  out: Float64Array,
): void {
  const G = gram(deformationGradient(x, indices[3 * t], indices[3 * t + 1], indices[3 * t + 2], B, 4 * t));
  // σ² are the eigenvalues (A + D) / 2 ± r of FᵀF
  const mean = 0.5 * (G[0] + G[2]);
  out[0] = Math.sqrt(mean + G[4]);
  out[1] = Math.sqrt(Math.max(0, mean - G[4]));
}

/** F = D_s D_m⁻¹ (3 × 2, row-major) of the triangle (a, b, c) with D_m⁻¹ at B[bo…bo+4). */
/** Scratch for deformationGradient: each caller reads F before the next call. */
const scratchF = new Float64Array(6);

function deformationGradient(
  x: ArrayLike<number>,
  a: number,
  b: number,
  c: number,
  B: ArrayLike<number>,
  bo: number,
): Float64Array {
  const F = scratchF;
  for (let d = 0; d < 3; d++) {
    const u = x[3 * a + d] - x[3 * c + d],
      v = x[3 * b + d] - x[3 * c + d];
    F[2 * d] = u * B[bo] + v * B[bo + 2];
    F[2 * d + 1] = u * B[bo + 1] + v * B[bo + 3];
  }
  return F;
}

/** Scratch for gram: each caller reads it before the next call. */
const scratchG = new Float64Array(5);

/**
 * FᵀF = [[A, Bc], [Bc, D]] of F (3 × 2, row-major) into A, Bc, D at 0–2,
 * half = (A − D) / 2 at 3 and r = √(half² + Bc²) at 4: its eigenvalues are
 * (A + D) / 2 ± r (the squared principal stretches).
 */
function gram(F: Float64Array): Float64Array {
  const G = scratchG;
  const A = F[0] * F[0] + F[2] * F[2] + F[4] * F[4];
  const Bc = F[0] * F[1] + F[2] * F[3] + F[4] * F[5];
  const D = F[1] * F[1] + F[3] * F[3] + F[5] * F[5];
  const half = 0.5 * (A - D);
  G[0] = A;
  G[1] = Bc;
  G[2] = D;
  G[3] = half;
  G[4] = Math.sqrt(half * half + Bc * Bc);
  return G;
}

/**
 * σ_k (k = 0 the larger principal stretch, 1 the smaller) of triangle
 * (a, b, c) with D_m⁻¹ at B[bo…], and its gradient ∇_a, ∇_b, ∇_c (9 numbers)
 * in grad — the formulas the projection uses, for tests and tools.
 */
export function principalStretchGradient(
  x: ArrayLike<number>,
  a: number,
  b: number,
  c: number,
  B: ArrayLike<number>,
  bo: number,
  k: 0 | 1,
  grad: Float64Array,
): number {
  const F = deformationGradient(x, a, b, c, B, bo);
  const G = gram(F);
  const Bc = G[1],
    half = G[3],
    r = G[4];
  let e0 = half >= 0 ? half + r : Bc;
  let e1 = half >= 0 ? Bc : r - half;
  const el = Math.hypot(e0, e1) || 1;
  e0 /= el;
  e1 /= el;
  if (k === 1) [e0, e1] = [-e1, e0];
  const g = [F[0] * e0 + F[1] * e1, F[2] * e0 + F[3] * e1, F[4] * e0 + F[5] * e1];
  const sigma = Math.hypot(g[0], g[1], g[2]);
  const w0 = B[bo] * e0 + B[bo + 1] * e1,
    w1 = B[bo + 2] * e0 + B[bo + 3] * e1;
  for (let d = 0; d < 3; d++) {
    const u = sigma > 0 ? g[d] / sigma : 0;
    grad[d] = w0 * u;
    grad[3 + d] = w1 * u;
    grad[6 + d] = -(w0 + w1) * u;
  }
  return sigma;
}
