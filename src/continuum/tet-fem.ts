import { ElementConstraints } from '../constraints/element-set.js';
import type { StepContext } from '../core/constraint-set.js';
import { PbdError, requireAtLeast } from '../core/errors.js';
import type { ParticleStore } from '../core/particles.js';
import { ProjectionRule } from '../core/solver.js';
import type { ElementGlue } from '../kernels/glue.js';
import { tetEnergy, tetGreenStrain, tetRestShape, totalEnergy } from './energy.js';
import { type MaterialOptions, type ResolvedMaterial, resolveMaterial } from './material.js';
import { type TetFemArgs, tetFemGlue } from './tet-fem.generated.js';

/**
 * Energy densities below PSI_TOLERANCE · μ (strains below about 1e-7) are
 * treated as zero: at rest the energy is round-off, and projecting C = E on
 * round-off would move particles in random directions.
 */
export const PSI_TOLERANCE = 1e-14;

/**
 * The projection rule of an energy constraint C = E (tets and triangles,
 * 002 §3): PBD stiffness k (default 1), XPBD compliance 1 (under XPBD the
 * constraint is C = √(2E), α = 1) and damping β (default 0).
 */
export function energyRule(o: { stiffness?: number; damping?: number }, where: string): ProjectionRule {
  return new ProjectionRule({ stiffness: o.stiffness ?? 1, compliance: 1, damping: o.damping ?? 0 }, where);
}

/** Largest Frobenius norm of the plastic strain, whatever γ_max (see TetFemConstraints.endStep). */
export const PLASTIC_STRAIN_LIMIT = 0.5;

/** Plasticity of 002 §4.2 (after Müller and Gross / O'Brien et al.). */
export interface PlasticityOptions {
  /** γ_yield: plastic flow starts when the Frobenius norm of the deviatoric elastic strain exceeds it. */
  yield: number;
  /** γ_creep (1/s): rate at which the plastic strain absorbs the deviatoric elastic strain. */
  creep: number;
  /** γ_max: largest Frobenius norm of the plastic strain. */
  max: number;
}

export interface TetFemOptions {
  material: MaterialOptions;
  /** PBD stiffness k ∈ [0, 1] (scales each correction, 003 §3.3). Default 1. */
  stiffness?: number;
  /** XPBD constraint damping β ≥ 0 (s). Default 0. */
  damping?: number;
  /** Elastoplasticity (StVK only). */
  plasticity?: PlasticityOptions;
  /** Name for messages. */
  where?: string;
}

/**
 * Energy constraints C = E on tetrahedra (002 §3, §4.2): the strain energy
 * E = V Ψ(F) of each element is driven toward zero by the position-based
 * solver, ∇C = V P(F) D_m⁻ᵀ (eq. 9).
 *
 * Projection rules: under PBD the constraint is C = E exactly as in the
 * paper (eq. 3, scaled by k′). Under XPBD it is C = √(2E) with compliance
 * α = 1, so the XPBD potential ½ C²/α is the strain energy itself and the
 * step approximates implicit Euler on the FEM model — Young's modulus then
 * has its physical meaning. Both come from the same kernel:
 * s = 1/√(2E·m + 1 − m), C = (1 + m) E s, ∇C = s ∇E, with m = 1 under
 * XPBD and 0 under PBD.
 *
 * Inverted and degenerate elements (002 §4.2): elements whose singular
 * values all exceed the clamp use closed forms; the others are evaluated
 * through the SVD with the reflection on the smallest singular value and
 * the clamped stress of Figure 2 (energy.ts).
 */
export class TetFemConstraints extends ElementConstraints<TetFemArgs> {
  readonly kind = 'fem-tet';
  readonly material: ResolvedMaterial;
  /** D_m⁻¹ per tet (9, row-major; indices: four per tet, in the D_m convention of eq. 9). */
  restShape: Float64Array;
  /** Rest volume per tet. */
  volume: Float64Array;
  /** Plastic Green strain per tet (xx, yy, zz, xy, xz, yz), when plastic. */
  readonly plastic: Float64Array | null;
  plasticity: PlasticityOptions | null;
  private readonly g = new Float64Array(12);
  private readonly fs = new Float64Array(9);
  private readonly ps = new Float64Array(9);
  private readonly strain = new Float64Array(6);

  /**
   * @param tets four global particle indices per tet, positively oriented in `rest`
   *   ((p1 − p0) × (p2 − p0) · (p3 − p0) > 0, as validateTetMesh returns them)
   * @param rest rest positions indexed by global particle index (default: store.x)
   */
  constructor(
    store: ParticleStore,
    tets: ArrayLike<number>,
    options: TetFemOptions,
    rest?: ArrayLike<number>,
  ) {
    const where = options.where ?? 'fem';
    const material = resolveMaterial(options.material, `${where}.material`);
    const rule = energyRule(options, where);
    if (options.plasticity) {
      if (material.model !== 'stvk') {
        throw new PbdError(
          'fem/plastic-model',
          `${where}.plasticity`,
          "plasticity needs the 'stvk' material (002 §4.2 decomposes the Green strain additively)",
          "set material.model to 'stvk'",
        );
      }
      const pl = options.plasticity;
      for (const k of ['yield', 'creep', 'max'] as const) {
        requireAtLeast(pl[k], 0, 'fem/plasticity', `${where}.plasticity.${k}`);
      }
    }
    super(rule);
    this.material = material;
    this.plasticity = options.plasticity ?? null;
    const n = tets.length / 4;
    const X = rest ?? store.x;
    // (p0, p1, p2, p3) positively oriented ((p1 − p0) × (p2 − p0) · (p3 − p0) > 0) is
    // (p1, p2, p3, p0) in the D_m = [X0 − X3, X1 − X3, X2 − X3] convention of eq. 9
    const idx = new Int32Array(4 * n);
    for (let t = 0; t < n; t++) {
      idx[4 * t] = tets[4 * t + 1];
      idx[4 * t + 1] = tets[4 * t + 2];
      idx[4 * t + 2] = tets[4 * t + 3];
      idx[4 * t + 3] = tets[4 * t];
    }
    const B = new Float64Array(9 * n);
    const vol = new Float64Array(n);
    this.checkIndices(store, idx, 'fem/bad-index', `${where}: tet`);
    for (let t = 0; t < n; t++) {
      const v = tetRestShape(X, idx[4 * t], idx[4 * t + 1], idx[4 * t + 2], idx[4 * t + 3], B, 9 * t);
      if (!(v > 0)) {
        throw new PbdError(
          v === 0 ? 'fem/degenerate-tet' : 'fem/inverted-tet',
          `${where}: tet ${t}`,
          v === 0 ? 'has zero rest volume' : `has negative rest volume ${v}`,
          'validate the mesh with validateTetMesh, which orients tets and names bad ones',
        );
      }
      vol[t] = v;
    }
    [this.restShape, this.volume] = this.setElements(store, idx, [
      [B, 9],
      [vol, 1],
    ]);
    this.plastic = this.plasticity ? new Float64Array(6 * n) : null;
  }

  /** The paired kernel has no plasticity (inverted and near-degenerate tets it defers to JavaScript). */
  protected override pairable(): boolean {
    return this.plastic === null;
  }

  /** tet-fem.kernel.ts: its JavaScript kernel has the SVD path and plasticity. */
  static readonly glue: ElementGlue<TetFemArgs> = tetFemGlue;

  protected kernelArgs(a: TetFemArgs): void {
    const { model, mu, lambda, clamp } = this.material;
    a.B = this.restShape;
    a.vol = this.volume;
    a.m = this.m;
    a.mu = mu;
    a.lambda = lambda;
    a.clamp2 = clamp * clamp;
    a.psiMin = PSI_TOLERANCE * mu;
    a.stvk = model === 'stvk';
    a.model = model;
    a.clamp = clamp;
    a.plastic = this.plastic;
    a.fs = this.fs;
    a.ps = this.ps;
  }

  /**
   * Plasticity (002 §4.2), once per substep after the velocity update:
   * ε_elastic = ε − ε_plastic, its deviatoric part ε′ = ε_elastic − tr(ε_elastic)/3 I;
   * if ‖ε′‖ > γ_yield then ε_plastic += h γ_creep ε′; if ‖ε_plastic‖ > γ_max it is
   * scaled back to γ_max. The plastic strain is trace-free, and its norm is also
   * kept below PLASTIC_STRAIN_LIMIT so that the plastic rest metric I + 2ε_plastic
   * stays positive definite (its smallest eigenvalue is ≥ 1 − 2√(2/3)‖ε_plastic‖);
   * beyond that no shape has zero elastic energy and the flow would never stop.
   */
  endStep(ctx: StepContext): void {
    const pl = this.plastic;
    const prm = this.plasticity;
    if (!pl || !prm) return;
    const x = ctx.store.x;
    const idx = this.indices;
    const e = this.strain;
    const rate = ctx.h * prm.creep;
    const cap = Math.min(prm.max, PLASTIC_STRAIN_LIMIT);
    for (let t = 0; t < this.count; t++) {
      tetGreenStrain(x, idx[4 * t], idx[4 * t + 1], idx[4 * t + 2], idx[4 * t + 3], this.restShape, 9 * t, e);
      const o = 6 * t;
      const e0 = e[0] - pl[o],
        e1 = e[1] - pl[o + 1],
        e2 = e[2] - pl[o + 2];
      const e3 = e[3] - pl[o + 3],
        e4 = e[4] - pl[o + 4],
        e5 = e[5] - pl[o + 5];
      const tr = (e0 + e1 + e2) / 3;
      const v0 = e0 - tr,
        v1 = e1 - tr,
        v2 = e2 - tr;
      const dev = Math.sqrt(v0 * v0 + v1 * v1 + v2 * v2 + 2 * (e3 * e3 + e4 * e4 + e5 * e5));
      if (!(dev > prm.yield)) continue;
      pl[o] += rate * v0;
      pl[o + 1] += rate * v1;
      pl[o + 2] += rate * v2;
      pl[o + 3] += rate * e3;
      pl[o + 4] += rate * e4;
      pl[o + 5] += rate * e5;
      const norm = Math.sqrt(
        pl[o] * pl[o] +
          pl[o + 1] * pl[o + 1] +
          pl[o + 2] * pl[o + 2] +
          2 * (pl[o + 3] * pl[o + 3] + pl[o + 4] * pl[o + 4] + pl[o + 5] * pl[o + 5]),
      );
      if (norm > cap) {
        const f = cap / norm;
        for (let k = 0; k < 6; k++) pl[o + k] *= f;
      }
    }
  }

  /** Changes Young's modulus and the Poisson ratio (live tuning); validated like the constructor's. */
  setMaterial(youngsModulus: number, poissonRatio: number): void {
    const m = resolveMaterial(
      { model: this.material.model, youngsModulus, poissonRatio, clampStretch: this.material.clamp },
      'fem.material',
    );
    Object.assign(this.material, m);
  }

  /** Energy E_t and gradient (12 numbers) of the k-th tet (in colour order) at positions x. */
  elementEnergy(x: ArrayLike<number>, k: number, grad: Float64Array): number {
    const { model, mu, lambda, clamp } = this.material;
    const i = this.indices;
    return tetEnergy(
      model,
      mu,
      lambda,
      clamp,
      x,
      i[4 * k],
      i[4 * k + 1],
      i[4 * k + 2],
      i[4 * k + 3],
      this.restShape,
      9 * k,
      this.volume[k],
      grad,
      this.plastic,
      6 * k,
    );
  }

  /** Total strain energy Σ E_t at positions x (J). */
  energy(x: ArrayLike<number>): number {
    return totalEnergy(this, x, this.g);
  }

  /** Largest Frobenius norm of the plastic strain (0 without plasticity). */
  maxPlasticStrain(): number {
    const pl = this.plastic;
    if (!pl) return 0;
    let m = 0;
    for (let o = 0; o < pl.length; o += 6) {
      const n = Math.sqrt(
        pl[o] * pl[o] +
          pl[o + 1] * pl[o + 1] +
          pl[o + 2] * pl[o + 2] +
          2 * (pl[o + 3] * pl[o + 3] + pl[o + 4] * pl[o + 4] + pl[o + 5] * pl[o + 5]),
      );
      if (n > m) m = n;
    }
    return m;
  }

  saveState(): unknown {
    return this.plastic ? Array.from(this.plastic) : null;
  }

  loadState(state: unknown): void {
    if (this.plastic && Array.isArray(state)) this.plastic.set(state as number[]);
  }
}
