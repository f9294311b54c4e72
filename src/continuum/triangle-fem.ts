import { ElementConstraints } from '../constraints/element-set.js';
import { PbdError } from '../core/errors.js';
import type { ParticleStore } from '../core/particles.js';
import type { ElementGlue } from '../kernels/glue.js';
import { type MembraneMaterial, totalEnergy, triangleEnergy, triangleRestShape } from './energy.js';
import {
  isotropicMembraneTensor,
  type MaterialOptions,
  type OrthotropicOptions,
  orthotropicTensor,
  resolveMaterial,
} from './material.js';
import { energyRule, PSI_TOLERANCE } from './tet-fem.js';
import { type TriangleFemArgs, triangleFemGlue } from './triangle-fem.generated.js';

export interface TriangleFemOptions {
  /** An isotropic material (plane stress: λ* = kν/(1 − ν²)). */
  material?: MaterialOptions;
  /** The orthotropic StVK membrane of 002 §4.3 (instead of `material`). */
  orthotropic?: OrthotropicOptions;
  /** PBD stiffness k ∈ [0, 1]. Default 1. */
  stiffness?: number;
  /** XPBD constraint damping β ≥ 0 (s). Default 0. */
  damping?: number;
  where?: string;
}

/** Builds the membrane material of a triangle set from its options. */
export function membraneMaterial(o: TriangleFemOptions, where: string): MembraneMaterial {
  if (o.material && o.orthotropic) {
    throw new PbdError(
      'fem/two-materials',
      where,
      'has both an isotropic material and an orthotropic one',
      'keep one of material / orthotropic',
    );
  }
  if (o.orthotropic) {
    return {
      model: 'stvk',
      tensor: orthotropicTensor(o.orthotropic, `${where}.orthotropic`),
      mu: 0,
      lambda: 0,
      isotropic: false,
      clamp: 1 / Math.sqrt(3),
    };
  }
  if (!o.material) {
    throw new PbdError(
      'fem/no-material',
      where,
      'needs a material',
      'give { youngsModulus, poissonRatio } or an orthotropic material',
    );
  }
  const m = resolveMaterial(o.material, `${where}.material`, true);
  return {
    model: m.model,
    tensor: isotropicMembraneTensor(m.youngsModulus, m.poissonRatio),
    mu: m.mu,
    lambda: m.lambda,
    isotropic: true,
    clamp: m.clamp,
  };
}

/**
 * Energy constraints C = E on triangles (002 §3, §4.3): the membrane strain
 * energy E = A Ψ(F) of each triangle in its own plane, StVK (isotropic or
 * orthotropic) or Neo-Hookean, with the same PBD / XPBD unification as
 * TetFemConstraints (C = E under PBD, C = √(2E) with α = 1 under XPBD).
 */
export class TriangleFemConstraints extends ElementConstraints<TriangleFemArgs> {
  readonly kind = 'fem-triangle';
  readonly material: MembraneMaterial;
  /** D_m⁻¹ per triangle (4, row-major), in the weft-aligned frame of the rest triangle (indices: three per triangle). */
  restShape: Float64Array;
  area: Float64Array;
  private readonly fs = new Float64Array(6);
  private readonly ps = new Float64Array(6);
  private readonly g = new Float64Array(9);

  /**
   * @param triangles three global particle indices per triangle
   * @param rest rest positions indexed by global particle index (default: store.x)
   */
  constructor(
    store: ParticleStore,
    triangles: ArrayLike<number>,
    options: TriangleFemOptions,
    rest?: ArrayLike<number>,
  ) {
    const where = options.where ?? 'fem';
    const material = membraneMaterial(options, where);
    super(energyRule(options, where));
    this.material = material;
    const weft = options.orthotropic?.weftDirection ?? [1, 0, 0];
    const n = triangles.length / 3;
    const X = rest ?? store.x;
    const idx = Int32Array.from(triangles);
    const B = new Float64Array(4 * n);
    const area = new Float64Array(n);
    this.checkIndices(store, idx, 'fem/bad-index', `${where}: triangle`);
    for (let t = 0; t < n; t++) {
      area[t] = triangleRestShape(X, idx[3 * t], idx[3 * t + 1], idx[3 * t + 2], weft, B, 4 * t);
      if (!(area[t] > 0)) {
        throw new PbdError(
          'fem/degenerate-triangle',
          `${where}: triangle ${t}`,
          'has zero rest area',
          'remove degenerate triangles from the mesh',
        );
      }
    }
    [this.restShape, this.area] = this.setElements(store, idx, [
      [B, 4],
      [area, 1],
    ]);
  }

  /** The paired kernel has the StVK closed form only (Neo-Hookean membranes stay in JavaScript). */
  protected override pairable(): boolean {
    return this.material.model === 'stvk';
  }

  /** clamp² of the closed-form path (−∞ for anisotropic materials, which have no clamp). */
  private get clamp2(): number {
    const mat = this.material;
    return mat.isotropic ? mat.clamp * mat.clamp : Number.NEGATIVE_INFINITY;
  }

  /** Energy densities below this are round-off (see PSI_TOLERANCE). */
  private get psiMin(): number {
    const mat = this.material;
    const t = mat.tensor;
    return PSI_TOLERANCE * (mat.isotropic ? mat.mu : Math.min(t[0], t[2], t[3]));
  }

  /** triangle-fem.kernel.ts: its JavaScript kernel has the clamped-stress and Neo-Hookean paths. */
  static readonly glue: ElementGlue<TriangleFemArgs> = triangleFemGlue;

  protected kernelArgs(a: TriangleFemArgs): void {
    const mat = this.material;
    const t = mat.tensor;
    a.B = this.restShape;
    a.area = this.area;
    a.m = this.m;
    a.C11 = t[0];
    a.C12 = t[1];
    a.C22 = t[2];
    a.C33 = t[3];
    a.clamp2 = this.clamp2;
    a.psiMin = this.psiMin;
    a.stvk = mat.model === 'stvk';
    a.mat = mat;
    a.fs = this.fs;
    a.ps = this.ps;
  }

  /** Energy and gradient (9 numbers) of the k-th triangle (colour order) at positions x. */
  elementEnergy(x: ArrayLike<number>, k: number, grad: Float64Array): number {
    const i = this.indices;
    return triangleEnergy(
      this.material,
      x,
      i[3 * k],
      i[3 * k + 1],
      i[3 * k + 2],
      this.restShape,
      4 * k,
      this.area[k],
      grad,
    );
  }

  /** Total membrane energy at positions x (J). */
  energy(x: ArrayLike<number>): number {
    return totalEnergy(this, x, this.g);
  }
}
