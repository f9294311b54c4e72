import { colorConstraints, permuteRecords } from '../core/coloring.js';
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import type { ParticleStore } from '../core/particles.js';
import { type ConstraintParams, ProjectionRule } from '../core/solver.js';
import { type FemClothKernel, femClothKernel } from '../wasm/fem-cloth-kernels.js';
import { isometricBendingEnergy, isometricBendingStencil } from './energy.js';

/**
 * Isometric bending (002 §4.3, after Bergou et al. 2006): per interior edge
 * the constant matrix Q = 3/(A0 + A1) KᵀK of its two-triangle stencil, and
 * the energy E_b = ½ Σ Q_ij x_i·x_j, which vanishes on flat configurations
 * (the model assumes a flat rest state) and is quadratic in the positions,
 * so its gradient Σ_j Q_ij x_j is exact and cheap. Q = q KᵀK has rank one and
 * is stored factored (q and K).
 *
 * Parameters: under XPBD the constraint is C = √(2 E_b) with the compliance
 * α = 1 / k_b for a bending stiffness k_b (N·m), so the XPBD potential is
 * k_b E_b; under PBD it is C = E_b (002 §3) scaled by the stiffness k′.
 */
export class IsometricBending implements ConstraintSet {
  readonly kind = 'isometric-bending';
  readonly order = 0;
  enabled = true;
  readonly rule: ProjectionRule;
  /** Stencil (x0, x1 on the edge; x2, x3 opposite) per constraint, sorted by colour. */
  indices: Int32Array;
  /** K per stencil (4 numbers). */
  K: Float64Array;
  /** q = 3 / (A0 + A1) per stencil. */
  q: Float64Array;
  lambda: Float64Array;
  colorOffsets: Int32Array;
  readonly count: number;
  readonly colors: number;
  /**
   * 'auto' projects with the WebAssembly SIMD kernel (wasm/fem-cloth.ts,
   * bit-identical to the JavaScript kernel) when the set has no XPBD
   * damping; 'js' always with the JavaScript kernel.
   */
  backend: 'auto' | 'js' = 'auto';
  private simd: FemClothKernel | null = null;
  private m = 0;
  private readonly g = new Float64Array(12);

  /**
   * @param stencils four global particle indices per interior edge: the edge, then the two opposite vertices
   * @param rest rest positions by global index (default: store.x)
   */
  constructor(
    store: ParticleStore,
    stencils: ArrayLike<number>,
    params: ConstraintParams = {},
    rest?: ArrayLike<number>,
  ) {
    this.rule = new ProjectionRule(params, 'isometric-bending');
    const X = rest ?? store.x;
    const n0 = stencils.length / 4;
    const keep: number[] = [];
    const K: number[] = [];
    const q: number[] = [];
    const k4 = new Float64Array(4);
    for (let c = 0; c < n0; c++) {
      const s = isometricBendingStencil(
        X,
        stencils[4 * c],
        stencils[4 * c + 1],
        stencils[4 * c + 2],
        stencils[4 * c + 3],
        k4,
        0,
      );
      if (!(s > 0)) continue; // a degenerate rest stencil carries no bending
      keep.push(stencils[4 * c], stencils[4 * c + 1], stencils[4 * c + 2], stencils[4 * c + 3]);
      K.push(k4[0], k4[1], k4[2], k4[3]);
      q.push(s);
    }
    const n = q.length;
    const idx = Int32Array.from(keep);
    const col = colorConstraints(idx, 4, n, store.count);
    this.indices = permuteRecords(idx, 4, col.order);
    this.K = permuteRecords(Float64Array.from(K), 4, col.order);
    this.q = permuteRecords(Float64Array.from(q), 1, col.order);
    this.lambda = new Float64Array(n);
    this.colorOffsets = col.offsets;
    this.colors = col.colors;
    this.count = n;
  }

  beginStep(ctx: StepContext): void {
    this.rule.update(ctx.solver, ctx.h, ctx.passes);
    this.m = ctx.solver === 'xpbd' ? 1 : 0;
    this.lambda.fill(0);
  }

  /** The SIMD kernel when it applies (see `backend`), built on first use. */
  private simdKernel(): FemClothKernel | null {
    this.simd = femClothKernel(this, 4, this.K, this.q, this.simd);
    return this.simd;
  }

  /** Which kernel projects this set now: 'wasm' (SIMD) or 'js'. */
  get activeBackend(): 'wasm' | 'js' {
    return this.simdKernel() === null ? 'js' : 'wasm';
  }

  project(ctx: StepContext): void {
    const store = ctx.store;
    const simd = this.simdKernel();
    if (simd !== null) {
      simd.isometric(store, ctx.reverse, this.rule.kPrime, this.rule.alphaTilde, this.m);
      return;
    }
    const p = store.p,
      x = store.x,
      w = store.invMass;
    const idx = this.indices,
      Ks = this.K,
      qs = this.q,
      lam = this.lambda;
    const kp = this.rule.kPrime,
      at = this.rule.alphaTilde,
      gamma = this.rule.gamma;
    const m = this.m,
      m1 = 1 - m;
    const n = this.count;
    const step = ctx.reverse ? -1 : 1;
    const end = ctx.reverse ? -1 : n;
    for (let c = ctx.reverse ? n - 1 : 0; c !== end; c += step) {
      const o = 4 * c;
      const i0 = idx[o],
        i1 = idx[o + 1],
        i2 = idx[o + 2],
        i3 = idx[o + 3];
      const w0 = w[i0],
        w1 = w[i1],
        w2 = w[i2],
        w3 = w[i3];
      if (w0 + w1 + w2 + w3 === 0) continue;
      const k0 = Ks[o],
        k1 = Ks[o + 1],
        k2 = Ks[o + 2],
        k3 = Ks[o + 3];
      const a = 3 * i0,
        b = 3 * i1,
        cc = 3 * i2,
        d = 3 * i3;
      // v = Σ K_i x_i; E_b = ½ q |v|²; ∇_i E_b = q K_i v
      const vx = k0 * p[a] + k1 * p[b] + k2 * p[cc] + k3 * p[d];
      const vy = k0 * p[a + 1] + k1 * p[b + 1] + k2 * p[cc + 1] + k3 * p[d + 1];
      const vz = k0 * p[a + 2] + k1 * p[b + 2] + k2 * p[cc + 2] + k3 * p[d + 2];
      const v2 = vx * vx + vy * vy + vz * vz;
      const q = qs[c];
      const E = 0.5 * q * v2;
      if (!(E > 1e-300)) continue;
      const s = m === 0 ? q : q / Math.sqrt(2 * E * m + m1); // ∇C_i = s K_i v
      const C = (1 + m) * E * (s / q);
      const wK = w0 * k0 * k0 + w1 * k1 * k1 + w2 * k2 * k2 + w3 * k3 * k3;
      const wG = s * s * v2 * wK;
      let damp = 0;
      if (gamma !== 0) {
        const ux = k0 * (p[a] - x[a]) + k1 * (p[b] - x[b]) + k2 * (p[cc] - x[cc]) + k3 * (p[d] - x[d]);
        const uy =
          k0 * (p[a + 1] - x[a + 1]) +
          k1 * (p[b + 1] - x[b + 1]) +
          k2 * (p[cc + 1] - x[cc + 1]) +
          k3 * (p[d + 1] - x[d + 1]);
        const uz =
          k0 * (p[a + 2] - x[a + 2]) +
          k1 * (p[b + 2] - x[b + 2]) +
          k2 * (p[cc + 2] - x[cc + 2]) +
          k3 * (p[d + 2] - x[d + 2]);
        damp = gamma * s * (vx * ux + vy * uy + vz * uz);
      }
      const denom = (1 + gamma) * wG + at;
      if (!(denom > 1e-300)) continue;
      const dl = (kp * (-C - at * lam[c] - damp)) / denom;
      lam[c] += dl;
      const sd = s * dl;
      let f = w0 * k0 * sd;
      p[a] += vx * f;
      p[a + 1] += vy * f;
      p[a + 2] += vz * f;
      f = w1 * k1 * sd;
      p[b] += vx * f;
      p[b + 1] += vy * f;
      p[b + 2] += vz * f;
      f = w2 * k2 * sd;
      p[cc] += vx * f;
      p[cc + 1] += vy * f;
      p[cc + 2] += vz * f;
      f = w3 * k3 * sd;
      p[d] += vx * f;
      p[d + 1] += vy * f;
      p[d + 2] += vz * f;
    }
  }

  /** Total bending energy Σ E_b (without the stiffness k_b) at positions x. */
  energy(x: ArrayLike<number>): number {
    let e = 0;
    const i = this.indices;
    for (let c = 0; c < this.count; c++) {
      e += isometricBendingEnergy(
        x,
        i[4 * c],
        i[4 * c + 1],
        i[4 * c + 2],
        i[4 * c + 3],
        this.K,
        4 * c,
        this.q[c],
        this.g,
      );
    }
    return e;
  }
}
