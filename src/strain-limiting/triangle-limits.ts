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
 *   ∇_a C = w₀ û_k,   ∇_b C = w₁ û_k,   ∇_c C = −(w₀ + w₁) û_k.
 *
 * C depends only on F, so it is invariant under translations and rotations:
 * the gradients sum to zero and have no torque, and the projection
 * Δp_i = w_i ∇_i C Δλ conserves linear and angular momentum (003 §3.3).
 * Its fixed point is Wang et al.'s clamped F. The stronger violation is
 * projected first; then F is recomputed and the other principal stretch
 * projected (two Gauss–Seidel steps per triangle). The unified PBD / XPBD
 * rule applies (src/core/solver.ts); σ is dimensionless, so the compliance
 * is in J⁻¹ (the potential is C²/(2α)).
 */
import { triangleRestShape } from '../continuum/energy.js';
import { colorConstraints, permuteRecords } from '../core/coloring.js';
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import type { ParticleStore } from '../core/particles.js';
import { type ConstraintParams, ProjectionRule } from '../core/solver.js';
import { checkStretchRange, type StretchRange } from './edge-limits.js';

const WEFT = [1, 0, 0];

export class TriangleStrainLimits implements ConstraintSet {
  readonly kind = 'triangle-strain-limit';
  readonly order = 0;
  enabled = true;
  readonly rule: ProjectionRule;
  /** Smallest and largest principal stretch allowed. */
  min: number;
  max: number;
  /** Three particle indices per triangle (a, b, c), sorted by colour. */
  indices: Int32Array = new Int32Array(0);
  /** D_m⁻¹ per triangle (2 × 2 row-major). */
  restInverse: Float64Array = new Float64Array(0);
  /** XPBD multipliers, two per triangle (one per principal stretch). */
  lambda: Float64Array = new Float64Array(0);
  colorOffsets: Int32Array = new Int32Array(1);
  count = 0;
  colors = 0;

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
    this.min = min;
    this.max = max;
    this.rule = new ProjectionRule(range, where);
    this.setTriangles(store, triangles, rest);
  }

  /** Replaces the triangles (tearing); rest shapes from `rest` (body-local rows) or the store's x. */
  setTriangles(
    store: ParticleStore,
    triangles: ArrayLike<number>,
    rest?: { positions: ArrayLike<number>; offset: number },
  ): void {
    const nt = Math.floor(triangles.length / 3);
    const idx = Int32Array.from(triangles);
    const B = new Float64Array(4 * nt);
    const X = rest ? rest.positions : store.x;
    const o = rest ? rest.offset : 0;
    for (let t = 0; t < nt; t++) {
      // a degenerate rest triangle gets D_m⁻¹ = 0: F = 0, and the triangle is skipped
      triangleRestShape(X, idx[3 * t] - o, idx[3 * t + 1] - o, idx[3 * t + 2] - o, WEFT, B, 4 * t);
      for (let k = 0; k < 4; k++) if (!Number.isFinite(B[4 * t + k])) B.fill(0, 4 * t, 4 * t + 4);
    }
    const col = colorConstraints(idx, 3, nt, store.count);
    this.indices = permuteRecords(idx, 3, col.order);
    this.restInverse = permuteRecords(B, 4, col.order);
    this.lambda = new Float64Array(2 * nt);
    this.colorOffsets = col.offsets;
    this.colors = col.colors;
    this.count = nt;
  }

  beginStep(ctx: StepContext): void {
    this.rule.update(ctx.solver, ctx.h, ctx.passes);
    this.lambda.fill(0);
  }

  project(ctx: StepContext): void {
    const p = ctx.store.p,
      x = ctx.store.x,
      w = ctx.store.invMass;
    const idx = this.indices,
      B = this.restInverse,
      lam = this.lambda;
    const kp = this.rule.kPrime,
      at = this.rule.alphaTilde,
      gamma = this.rule.gamma;
    const smin = this.min,
      smax = this.max;
    const n = this.count;
    const step = ctx.reverse ? -1 : 1;
    const end = ctx.reverse ? -1 : n;
    for (let t = ctx.reverse ? n - 1 : 0; t !== end; t += step) {
      const a3 = 3 * idx[3 * t],
        b3 = 3 * idx[3 * t + 1],
        c3 = 3 * idx[3 * t + 2];
      const wa = w[idx[3 * t]],
        wb = w[idx[3 * t + 1]],
        wc = w[idx[3 * t + 2]];
      if (wa + wb + wc === 0) continue;
      const b00 = B[4 * t],
        b01 = B[4 * t + 1],
        b10 = B[4 * t + 2],
        b11 = B[4 * t + 3];
      for (let pass = 0; pass < 2; pass++) {
        const ux = p[a3] - p[c3],
          uy = p[a3 + 1] - p[c3 + 1],
          uz = p[a3 + 2] - p[c3 + 2];
        const vx = p[b3] - p[c3],
          vy = p[b3 + 1] - p[c3 + 1],
          vz = p[b3 + 2] - p[c3 + 2];
        // F = D_s D_m⁻¹: columns f0, f1
        const f0x = ux * b00 + vx * b10,
          f0y = uy * b00 + vy * b10,
          f0z = uz * b00 + vz * b10;
        const f1x = ux * b01 + vx * b11,
          f1y = uy * b01 + vy * b11,
          f1z = uz * b01 + vz * b11;
        // FᵀF = [[A, Bc], [Bc, D]]: eigenvalues σ²
        const A = f0x * f0x + f0y * f0y + f0z * f0z;
        const Bc = f0x * f1x + f0y * f1y + f0z * f1z;
        const D = f1x * f1x + f1y * f1y + f1z * f1z;
        const half = 0.5 * (A - D);
        const r = Math.sqrt(half * half + Bc * Bc);
        const mean = 0.5 * (A + D);
        const s1 = Math.sqrt(mean + r);
        const l2 = mean - r;
        const s2 = l2 > 0 ? Math.sqrt(l2) : 0;
        const c1 = s1 > smax ? s1 - smax : s1 < smin ? s1 - smin : 0;
        const c2 = s2 > smax ? s2 - smax : s2 < smin ? s2 - smin : 0;
        if (c1 === 0 && c2 === 0) break;
        const k = Math.abs(c1) >= Math.abs(c2) ? 0 : 1;
        // unit eigenvector of the larger eigenvalue, computed from the better-conditioned row
        let e0: number, e1: number;
        if (half >= 0) {
          e0 = half + r;
          e1 = Bc;
        } else {
          e0 = Bc;
          e1 = r - half;
        }
        let el = Math.sqrt(e0 * e0 + e1 * e1);
        if (!(el > 1e-300)) {
          e0 = 1;
          e1 = 0;
          el = 1;
        }
        e0 /= el;
        e1 /= el;
        if (k === 1) {
          const tmp = e0;
          e0 = -e1;
          e1 = tmp;
        }
        // F v̂ = σ û
        const gx = f0x * e0 + f1x * e1,
          gy = f0y * e0 + f1y * e1,
          gz = f0z * e0 + f1z * e1;
        const sigma = Math.sqrt(gx * gx + gy * gy + gz * gz);
        if (!(sigma > 1e-12)) break; // collapsed: no direction to stretch along
        const target = Math.min(smax, Math.max(smin, sigma));
        const C = sigma - target;
        if (C === 0) break;
        const inv = 1 / sigma;
        const nx = gx * inv,
          ny = gy * inv,
          nz = gz * inv;
        // w = D_m⁻¹ v̂: ∇_a C = w0 û, ∇_b C = w1 û, ∇_c C = −(w0 + w1) û
        const w0 = b00 * e0 + b01 * e1,
          w1 = b10 * e0 + b11 * e1;
        const w2 = -(w0 + w1);
        const wsum = wa * w0 * w0 + wb * w1 * w1 + wc * w2 * w2;
        let damp = 0;
        if (gamma !== 0) {
          damp =
            gamma *
            (w0 * (nx * (p[a3] - x[a3]) + ny * (p[a3 + 1] - x[a3 + 1]) + nz * (p[a3 + 2] - x[a3 + 2])) +
              w1 * (nx * (p[b3] - x[b3]) + ny * (p[b3 + 1] - x[b3 + 1]) + nz * (p[b3 + 2] - x[b3 + 2])) +
              w2 * (nx * (p[c3] - x[c3]) + ny * (p[c3 + 1] - x[c3 + 1]) + nz * (p[c3 + 2] - x[c3 + 2])));
        }
        const denom = (1 + gamma) * wsum + at;
        if (!(denom > 1e-30)) break;
        const li = 2 * t + k;
        const dl = (kp * (-C - at * lam[li] - damp)) / denom;
        lam[li] += dl;
        let s = wa * w0 * dl;
        p[a3] += nx * s;
        p[a3 + 1] += ny * s;
        p[a3 + 2] += nz * s;
        s = wb * w1 * dl;
        p[b3] += nx * s;
        p[b3 + 1] += ny * s;
        p[b3 + 2] += nz * s;
        s = wc * w2 * dl;
        p[c3] += nx * s;
        p[c3 + 1] += ny * s;
        p[c3 + 2] += nz * s;
      }
    }
  }

  /** Largest violation of the stretch range over the triangles (dimensionless), at x. */
  maxViolation(store: ParticleStore): number {
    const s = new Float64Array(2);
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
  const F = deformationGradient(x, indices[3 * t], indices[3 * t + 1], indices[3 * t + 2], B, 4 * t);
  const A = F[0] * F[0] + F[2] * F[2] + F[4] * F[4];
  const Bc = F[0] * F[1] + F[2] * F[3] + F[4] * F[5];
  const D = F[1] * F[1] + F[3] * F[3] + F[5] * F[5];
  const half = 0.5 * (A - D);
  const r = Math.sqrt(half * half + Bc * Bc);
  out[0] = Math.sqrt(0.5 * (A + D) + r);
  out[1] = Math.sqrt(Math.max(0, 0.5 * (A + D) - r));
}

/** F = D_s D_m⁻¹ (3 × 2, row-major) of the triangle (a, b, c) with D_m⁻¹ at B[bo…bo+4). */
function deformationGradient(
  x: ArrayLike<number>,
  a: number,
  b: number,
  c: number,
  B: ArrayLike<number>,
  bo: number,
): Float64Array {
  const F = new Float64Array(6);
  for (let d = 0; d < 3; d++) {
    const u = x[3 * a + d] - x[3 * c + d],
      v = x[3 * b + d] - x[3 * c + d];
    F[2 * d] = u * B[bo] + v * B[bo + 2];
    F[2 * d + 1] = u * B[bo + 1] + v * B[bo + 3];
  }
  return F;
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
  const A = F[0] * F[0] + F[2] * F[2] + F[4] * F[4];
  const Bc = F[0] * F[1] + F[2] * F[3] + F[4] * F[5];
  const D = F[1] * F[1] + F[3] * F[3] + F[5] * F[5];
  const half = 0.5 * (A - D);
  const r = Math.sqrt(half * half + Bc * Bc);
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
