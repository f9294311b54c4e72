import { colorConstraints, permuteRecords } from '../core/coloring.js';
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import type { ParticleStore } from '../core/particles.js';
import { type ConstraintParams, ProjectionRule } from '../core/solver.js';
import { sweepIsometricBending } from '../wasm/element-kernels.generated.js';
import { type ElementKernel, elementKernel } from '../wasm/element-kernels.js';
import { isometricBendingEnergy, isometricBendingStencil } from './energy.js';
import { projectIsometricBending } from './isometric-bending.generated.js';

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
   * 'auto' projects with the WebAssembly SIMD kernel (generated with the
   * JavaScript kernel from isometric-bending.kernel.ts, bit-identical) when
   * the set has no XPBD damping; 'js' always with the JavaScript kernel.
   */
  backend: 'auto' | 'js' = 'auto';
  private simd: ElementKernel | null = null;
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
  private simdKernel(): ElementKernel | null {
    this.simd = elementKernel(this, 4, this.K, 4, this.q, this.simd);
    return this.simd;
  }

  /** Which kernel projects this set now: 'wasm' (SIMD) or 'js'. */
  get activeBackend(): 'wasm' | 'js' {
    return this.simdKernel() === null ? 'js' : 'wasm';
  }

  project(ctx: StepContext): void {
    const store = ctx.store;
    const r = this.rule;
    const simd = this.simdKernel();
    if (simd !== null) sweepIsometricBending(simd, store, ctx.reverse, r.kPrime, r.alphaTilde, this.m);
    else this.projectJs(ctx, 0, this.count, ctx.reverse);
  }

  projectColorRange(ctx: StepContext, _color: number, from: number, to: number): void {
    this.projectJs(ctx, from, to, false);
  }

  /** The JavaScript kernel (isometric-bending.kernel.ts) over constraints [from, to), backward when `reverse`. */
  private projectJs(ctx: StepContext, from: number, to: number, reverse: boolean): void {
    const store = ctx.store;
    const r = this.rule;
    projectIsometricBending(
      store.p,
      store.x,
      store.invMass,
      this.indices,
      this.K,
      this.q,
      this.lambda,
      from,
      to,
      reverse,
      r.kPrime,
      r.alphaTilde,
      r.gamma,
      this.m,
    );
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
