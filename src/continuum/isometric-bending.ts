import { ElementConstraints } from '../constraints/element-set.js';
import type { ParticleStore } from '../core/particles.js';
import { type ConstraintParams, ProjectionRule } from '../core/solver.js';
import type { ElementGlue } from '../kernels/glue.js';
import { isometricBendingEnergy, isometricBendingStencil } from './energy.js';
import { type IsometricBendingArgs, isometricBendingGlue } from './isometric-bending.generated.js';

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
export class IsometricBending extends ElementConstraints<IsometricBendingArgs> {
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
    super(new ProjectionRule(params, 'isometric-bending'));
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

  /** isometric-bending.kernel.ts, with its f32 mode (World option `precision: 'f32'`). */
  static readonly glue: ElementGlue<IsometricBendingArgs> = isometricBendingGlue;

  protected kernelArgs(a: IsometricBendingArgs): void {
    a.K = this.K;
    a.q = this.q;
    a.m = this.m;
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
