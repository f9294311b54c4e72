import { PbdError, requirePositiveAs } from '../core/errors.js';

/**
 * Constitutive models of 002 §4.1 and their parameters.
 *
 * - Saint Venant–Kirchhoff ('stvk'): S = C ε with the Green strain
 *   ε = ½(FᵀF − I); isotropic: Ψ = μ ε:ε + λ/2 tr(ε)², P = F(2με + λ tr(ε) I).
 * - Neo-Hookean ('neo-hookean'): Ψ = μ/2 (I1 − log I3 − 3) + λ/8 log²(I3),
 *   P = μF − μF⁻ᵀ + λ/2 log(I3) F⁻ᵀ (eq. 8), with I1 = tr(FᵀF), I3 = det(FᵀF).
 *
 * μ and λ are the Lamé coefficients from Young's modulus k and Poisson ratio
 * ν: μ = k / (2(1 + ν)), λ = kν / ((1 + ν)(1 − 2ν)) (002 §4.1).
 */
export type MaterialModel = 'stvk' | 'neo-hookean';

export interface MaterialOptions {
  /** Constitutive model. Default 'stvk'. */
  model?: MaterialModel;
  /** Young's modulus k (Pa). */
  youngsModulus: number;
  /** Poisson ratio ν ∈ (−1, 0.5). */
  poissonRatio: number;
  /**
   * Singular value of F below which the stress is clamped (002 §4.2,
   * Figure 2 b, d): the energy continues linearly, so degenerate and
   * inverted elements get a finite restoring force. Default 1/√3 for both
   * models: where StVK's restoring force peaks ("a compression of
   * approximately 58 %"), and, "analogously" (Figure 2 d), for Neo-Hookean,
   * whose stress has no peak. A lower Neo-Hookean clamp (0.3) made its
   * clamped stress 3.5 times stiffer and left tangled bodies behind in 002
   * Figure 6's recovery (docs/continuum.md, experiment fig6).
   */
  clampStretch?: number;
}

/** The default stress clamp of a model (see MaterialOptions.clampStretch). */
export function defaultClamp(_model: MaterialModel): number {
  return 1 / Math.sqrt(3);
}

/** Lamé coefficients (3D) of 002 §4.1. */
export function lameParameters(youngsModulus: number, poissonRatio: number): { mu: number; lambda: number } {
  const k = youngsModulus,
    nu = poissonRatio;
  return { mu: k / (2 * (1 + nu)), lambda: (k * nu) / ((1 + nu) * (1 - 2 * nu)) };
}

/**
 * Lamé coefficients of a membrane in plane stress (the isotropic case of
 * 002 §4.3's orthotropic tensor): μ = k / (2(1 + ν)), λ* = kν / (1 − ν²).
 */
export function planeStressLame(youngsModulus: number, poissonRatio: number): { mu: number; lambda: number } {
  const k = youngsModulus,
    nu = poissonRatio;
  return { mu: k / (2 * (1 + nu)), lambda: (k * nu) / (1 - nu * nu) };
}

/** A validated material: the model, μ, λ and the stress clamp. */
export interface ResolvedMaterial {
  model: MaterialModel;
  youngsModulus: number;
  poissonRatio: number;
  mu: number;
  lambda: number;
  clamp: number;
}

/** Validates the material of a volumetric (tet) body; `where` names it in errors. */
export function resolveMaterial(o: MaterialOptions, where: string, planeStress = false): ResolvedMaterial {
  const model = o.model ?? 'stvk';
  if (model !== 'stvk' && model !== 'neo-hookean') {
    throw new PbdError(
      'material/model',
      `${where}.model`,
      `unknown material model '${model}'`,
      "use 'stvk' or 'neo-hookean'",
    );
  }
  requirePositiveAs(
    o.youngsModulus,
    'a finite number > 0 (Pa)',
    'material/young',
    `${where}.youngsModulus`,
    'rubber is about 1e6 Pa, soft tissue 1e3–1e5 Pa',
  );
  if (!(o.poissonRatio > -1 && o.poissonRatio < 0.5)) {
    throw new PbdError(
      'material/poisson',
      `${where}.poissonRatio`,
      `must lie in (−1, 0.5), got ${o.poissonRatio}`,
      'ν = 0.5 is perfectly incompressible (λ = ∞); use 0.49 for nearly incompressible materials',
    );
  }
  const clamp = o.clampStretch ?? defaultClamp(model);
  if (!(clamp > 0 && clamp < 1)) {
    throw new PbdError(
      'material/clamp',
      `${where}.clampStretch`,
      `must lie in (0, 1), got ${o.clampStretch}`,
      'it is the compression (a singular value of F) below which the stress stays constant',
    );
  }
  const { mu, lambda } = planeStress
    ? planeStressLame(o.youngsModulus, o.poissonRatio)
    : lameParameters(o.youngsModulus, o.poissonRatio);
  return { model, youngsModulus: o.youngsModulus, poissonRatio: o.poissonRatio, mu, lambda, clamp };
}

/**
 * The orthotropic membrane of 002 §4.3: Young's moduli along the weft and
 * the warp, a shear modulus and two Poisson ratios.
 */
export interface OrthotropicOptions {
  /** Young's modulus along the weft (Pa·m for a membrane, or Pa with unit thickness). */
  weftModulus: number;
  /** Young's modulus along the warp. */
  warpModulus: number;
  /** Shear modulus. */
  shearModulus: number;
  /** Poisson ratio ν_weft. */
  weftPoisson: number;
  /** Poisson ratio ν_warp. */
  warpPoisson: number;
  /** Weft direction in rest space; projected into each triangle's plane. Default [1, 0, 0]. */
  weftDirection?: [number, number, number];
}

/**
 * The 3 × 3 elasticity tensor of 002 §4.3 in Voigt form (ε_xx, ε_yy, 2ε_xy):
 *   C = [[k_weft, k_weft ν_warp, 0], [k_warp ν_weft, k_warp, 0], [0, 0, k_shear · (1 − ν_weft ν_warp)]] / (1 − ν_weft ν_warp).
 * An energy needs a symmetric tensor: the two off-diagonal entries are
 * equal when k_weft ν_warp = k_warp ν_weft (the reciprocity of orthotropic
 * materials); otherwise their mean is used. Returns [C11, C12, C22, C33].
 */
export function orthotropicTensor(o: OrthotropicOptions, where: string): Float64Array {
  for (const k of ['weftModulus', 'warpModulus', 'shearModulus'] as const) {
    requirePositiveAs(o[k], 'a finite number > 0', 'material/modulus', `${where}.${k}`);
  }
  const d = 1 - o.weftPoisson * o.warpPoisson;
  if (!(d > 0) || !Number.isFinite(d)) {
    throw new PbdError(
      'material/poisson',
      `${where}`,
      `ν_weft ν_warp must be < 1, got ${o.weftPoisson} × ${o.warpPoisson}`,
      'Poisson ratios of fabrics are usually 0–0.5',
    );
  }
  const c11 = o.weftModulus / d;
  const c22 = o.warpModulus / d;
  const c12 = (0.5 * (o.weftModulus * o.warpPoisson + o.warpModulus * o.weftPoisson)) / d;
  if (!(c11 * c22 > c12 * c12)) {
    throw new PbdError(
      'material/not-positive',
      where,
      'the orthotropic tensor is not positive definite, so stretching could release energy',
      'reduce the Poisson ratios',
    );
  }
  return new Float64Array([c11, c12, c22, o.shearModulus]);
}

/** The isotropic plane-stress tensor [C11, C12, C22, C33] (orthotropic with equal moduli). */
export function isotropicMembraneTensor(youngsModulus: number, poissonRatio: number): Float64Array {
  const { mu, lambda } = planeStressLame(youngsModulus, poissonRatio);
  return new Float64Array([2 * mu + lambda, lambda, 2 * mu + lambda, mu]);
}
