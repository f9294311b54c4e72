import { PbdError } from './errors.js';

/**
 * The two projection rules every constraint supports.
 *
 * - `'pbd'`: Müller et al. 2007 (seed 003 §3.3): the correction is
 *   Δp_i = −k′ s w_i ∇_i C with s = C / Σ_j w_j |∇_j C|², and the stiffness
 *   k ∈ [0,1] is mapped to k′ = 1 − (1 − k)^(1/n_s) so that the error left after
 *   n_s solver iterations is linear in k and independent of n_s. The paper
 *   projects each constraint once per iteration; under the symmetric sweep a
 *   constraint is projected twice per iteration, so n_s counts projections
 *   (`StepContext.passes`), and a lone constraint keeps exactly (1 − k) of
 *   its error per substep in every sweep mode.
 * - `'xpbd'`: Macklin, Müller, Chentanez 2016 (the extension the 2017 survey,
 *   seed 004, lists as the link to implicit Euler): a compliance α (SI units,
 *   the inverse of stiffness) and a multiplier λ kept per constraint through a
 *   (sub)step: Δλ = (−C − α̃λ − γ ∇C·(p − x)) / ((1 + γ) Σ w|∇C|² + α̃), with
 *   α̃ = α/h² and γ = α̃ β̃ / h = α β / h for the constraint damping β.
 *
 * One kernel serves both: with α̃ = γ = 0 the XPBD rule reduces to the PBD
 * rule, which is then scaled by k′ (k′ = 1 under XPBD).
 */
export type SolverKind = 'pbd' | 'xpbd';

/** The material parameters of a constraint set, for both solver rules. */
export interface ConstraintParams {
  /** PBD stiffness k ∈ [0, 1] (used when the world runs the `'pbd'` rule). Default 1. */
  stiffness?: number;
  /** XPBD compliance α ≥ 0 in SI units (m/N for a distance constraint); 0 is infinitely stiff. Default 0. */
  compliance?: number;
  /** XPBD constraint damping β ≥ 0 (N·s/m for a distance constraint). Default 0. */
  damping?: number;
}

/** `value` if it is a finite number ≥ 0; else a PbdError 'params/<name>-range' at `${where}.<name>`. */
function finiteNonNegative(value: number, name: string, where: string, hint = ''): number {
  if (!(value >= 0) || !Number.isFinite(value)) {
    throw new PbdError(
      `params/${name}-range`,
      `${where}.${name}`,
      `${name} must be a finite number ≥ 0, got ${value}`,
      hint,
    );
  }
  return value;
}

/**
 * Per-set solver coefficients, refreshed at the start of each substep by
 * `update`. Hot loops read the three numbers into locals.
 */
export class ProjectionRule {
  stiffness = 1;
  compliance = 0;
  damping = 0;
  /** k′ (PBD) or 1 (XPBD). */
  kPrime = 1;
  /** α̃ = α / h² (XPBD) or 0 (PBD). */
  alphaTilde = 0;
  /** γ = α β / h (XPBD) or 0 (PBD). */
  gamma = 0;

  constructor(params: ConstraintParams = {}, where = 'constraint') {
    this.set(params, where);
  }

  set(params: ConstraintParams, where = 'constraint'): void {
    if (params.stiffness !== undefined) {
      if (!(params.stiffness >= 0 && params.stiffness <= 1)) {
        throw new PbdError(
          'params/stiffness-range',
          `${where}.stiffness`,
          `stiffness must lie in [0, 1], got ${params.stiffness}`,
          'PBD stiffness is a fraction; use compliance for physical units',
        );
      }
      this.stiffness = params.stiffness;
    }
    if (params.compliance !== undefined) {
      this.compliance = finiteNonNegative(
        params.compliance,
        'compliance',
        where,
        'compliance is 1/stiffness in SI units; 0 means rigid',
      );
    }
    if (params.damping !== undefined) this.damping = finiteNonNegative(params.damping, 'damping', where);
  }

  /**
   * Recomputes the coefficients for substep length h and the number of times
   * the set is projected in a substep (`ctx.passes`: the iterations, twice
   * that under the symmetric sweep).
   */
  update(solver: SolverKind, h: number, passes: number): void {
    if (solver === 'pbd') {
      // 003 §3.3: k' = 1 - (1 - k)^(1/n_s), n_s = projections per substep
      this.kPrime = pbdStiffness(this.stiffness, passes);
      this.alphaTilde = 0;
      this.gamma = 0;
    } else {
      this.kPrime = 1;
      this.alphaTilde = this.compliance / (h * h);
      this.gamma = (this.compliance * this.damping) / h;
    }
  }
}

/** 003 §3.3: the per-projection stiffness k′ = 1 − (1 − k)^(1/n_s) for n_s projections per substep. */
export function pbdStiffness(k: number, passes: number): number {
  if (k >= 1) return 1;
  if (k <= 0) return 0;
  return 1 - (1 - k) ** (1 / Math.max(1, passes));
}

/**
 * The unified multiplier update for one scalar constraint.
 *
 * @param C            constraint value
 * @param wGradSq      Σ_j w_j |∇_j C|²
 * @param lambda       multiplier accumulated so far this substep (XPBD)
 * @param gradDotDelta Σ_j ∇_j C · (p_j − x_j), only needed when γ ≠ 0
 * @returns Δλ; the caller moves each particle by Δp_j = w_j ∇_j C Δλ and adds Δλ to λ.
 */
export function deltaLambda(
  C: number,
  wGradSq: number,
  lambda: number,
  alphaTilde: number,
  gamma: number,
  gradDotDelta: number,
  kPrime: number,
): number {
  const denom = (1 + gamma) * wGradSq + alphaTilde;
  if (!(denom > 1e-30)) return 0;
  return (kPrime * (-C - alphaTilde * lambda - gamma * gradDotDelta)) / denom;
}
