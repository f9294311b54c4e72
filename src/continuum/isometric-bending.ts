import { ElementConstraints } from '../constraints/element-set.js';
import type { ParticleStore } from '../core/particles.js';
import { type ConstraintParams, ProjectionRule } from '../core/solver.js';
import { sweepIsometricBending, sweepIsometricBendingF32 } from '../wasm/element-kernels.generated.js';
import type { ElementKernel } from '../wasm/element-kernels.js';
import { isometricBendingEnergy, isometricBendingStencil } from './energy.js';
import { projectIsometricBending, projectIsometricBendingF32 } from './isometric-bending.generated.js';

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
export class IsometricBending extends ElementConstraints {
  readonly kind = 'isometric-bending';
  /** K per stencil (4 numbers; indices: x0, x1 on the edge, x2, x3 opposite). */
  K: Float64Array;
  /** q = 3 / (A0 + A1) per stencil. */
  q: Float64Array;
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
    super(4, new ProjectionRule(params, 'isometric-bending'), 4);
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
    [this.K, this.q] = this.setElements(store, Int32Array.from(keep), [
      [Float64Array.from(K), 4],
      [Float64Array.from(q), 1],
    ]);
  }

  protected pairedScalar(): Float64Array {
    return this.q;
  }

  protected override pairedRecord(): Float64Array {
    return this.K;
  }

  protected sweep(k: ElementKernel, store: ParticleStore, reverse: boolean): void {
    sweepIsometricBending(k, store, reverse, this.rule.kPrime, this.rule.alphaTilde, this.m);
  }

  /** The f32 mode (World option `precision: 'f32'`): blocked f32x4 lanes, and its JavaScript twin with the same bits. */
  protected override readonly hasF32 = true;

  protected override sweepF32(k: ElementKernel, store: ParticleStore, reverse: boolean): void {
    sweepIsometricBendingF32(k, store, reverse, this.rule.kPrime, this.rule.alphaTilde, this.m);
  }

  protected override kernelF32(
    p: Float64Array,
    w: Float64Array,
    from: number,
    to: number,
    reverse: boolean,
  ): void {
    const r = this.rule;
    projectIsometricBendingF32(p, w, this, this.q, this.K, from, to, reverse, r.kPrime, r.alphaTilde, this.m);
  }

  /** The JavaScript kernel (isometric-bending.kernel.ts). */
  kernel(
    p: Float64Array,
    x: Float64Array,
    w: Float64Array,
    _base: number,
    _list: Int32Array | null,
    from: number,
    to: number,
    reverse: boolean,
  ): void {
    const r = this.rule;
    projectIsometricBending(
      p,
      x,
      w,
      this,
      this.K,
      this.q,
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
