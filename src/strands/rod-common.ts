/**
 * The constraints of position and orientation based Cosserat rods
 * (Kugelstadt & Schömer 2016, "Position and Orientation Based Cosserat
 * Rods", SCA 2016).
 *
 * A rod is a chain of particles p_0 … p_n (positions) and one orientation
 * per segment, a unit quaternion q_j for the segment p_j → p_{j+1}, whose
 * rotation carries the world axes onto the segment's material frame
 * d_k = q e_k q̄ (d_3 along the centreline). The orientation of segment j
 * lives in the orientation channel of particle j of the store
 * (ParticleStore.qp), its "mass" in the inverse moments of inertia: the
 * paper projects quaternions as 4-vectors with an inverse mass w_q, which is
 * the rotation of a body of isotropic moment I = 1/(4 w_q) (a rotation δθ
 * moves q by ½ δθ q, so ½ w_q⁻¹ |q̇|² = ½ I |ω|²); we take w_q = ¼ I⁻¹ with
 * I⁻¹ the particle's (isotropic) inverse moment, so the World's orientation
 * stages integrate the same inertia the constraints project with.
 *
 * Stretch and shear, per segment (the paper's strain constraint; its
 * corrections are eq. 37): the strain of the centreline against the
 * segment's d_3, (p_b − p_a)/l − d_3. We write it in the material frame,
 * C_s = Rᵀ(q)(p_b − p_a)/l − e_3, and correct the orientation by a rotation
 * with the segment's inverse moment of inertia rather than as a 4-vector:
 * rod-stretch-shear.ts says why (momentum, and the stretch correction the
 * 4-vector form starves) and gives the projection.
 *
 * Bend and twist, per pair of adjacent segments (the Darboux vector
 * constraint; its corrections are eq. 40): the discrete Darboux vector is
 * Ω = q̄ u (u the next segment's orientation), Im Ω ≈ (l/2) κ in the material
 * frame of q, and with its rest value Ω⁰ (a unit quaternion),
 *
 *   C_b(q, u) = Im(q̄ u′) − Im Ω⁰,  u′ = ±u (the sign whose q̄u′ is nearer Ω⁰:
 *               q and −q are one rotation; the paper's choice between Ω − Ω⁰ and Ω + Ω⁰),
 *   ∇_{u′} (v·C_b) = q v,  ∇_q (v·C_b) = −u′ v,
 *
 * so ∇C M⁻¹ ∇Cᵀ = (w_q + w_u) I; Δq = −w_q u′ Λ, Δu′ = w_u q Λ, each without
 * its part along the quaternion itself (which only rescales it, and whose
 * removal by the normalisation would shorten the rotation: with it removed
 * the two rotations cancel in the angular momentum), then normalised — the
 * unit-length constraint, whose projection for one quaternion is the
 * normalisation.
 *
 * XPBD (Macklin et al. 2016) with compliance from the material: the rod's
 * energy is ½ ∫ Γᵀ K_s Γ ds + ½ ∫ (κ − κ⁰)ᵀ K_b (κ − κ⁰) ds in the material
 * frame, with K_s = diag(κ_s G A, κ_s G A, E A) (shear, shear, stretch) and
 * K_b = diag(E I, E I, G J) (bend, bend, twist). Per segment of length l the
 * stretch–shear energy is ½ l Γᵀ K_s Γ, so α = 1/(K_s l) per material axis;
 * per joint of length L = (l_j + l_{j+1})/2 the Darboux constraint is C_b ≈
 * (L/2)(κ − κ⁰), so ½ L K_b κ² = ½ (4 K_b / L) C_b² and α = L/(4 K_b). The
 * components of both constraints are material-frame components, so the
 * compliance is diagonal; the 3 × 3 XPBD system is diagonal for bend–twist
 * (∇C M⁻¹ ∇Cᵀ a multiple of the identity) and solved in closed form for
 * stretch–shear.
 *
 * Both sets (rod-stretch-shear.ts, rod-bend-twist.ts) project their
 * constraints in chain order, root to tip (tip to
 * root when ctx.reverse), which carries a correction along the rod in one
 * pass: like FTL they are sequential chains, one colour, run whole on one
 * thread. With `sweep = 'forward'` they skip the world's backward pass
 * and project once per iteration, root to tip (the single sweep of
 * Algorithm 1 of seed 003): half the projections, but less converged per
 * iteration: a rod's twist under a tip torque, settled, comes out 6 % too
 * soft at 20 substeps × 10 iterations where the symmetric sweep is within
 * 0.1 %, and within 0.02 % again at 20 iterations — so the default follows
 * the world's sweep (docs/strands.md, Speed). The kernels are written out
 * inline in the loops and again as the exported single-constraint
 * functions the tests check.
 */
import type { StepContext } from '../core/constraint-set.js';
import { PbdError } from '../core/errors.js';
import { ProjectionRule } from '../core/solver.js';

/** Material stiffnesses of a rod set along its three material axes. */
export type AxisStiffness = [number, number, number];

export function checkStiffness(k: AxisStiffness, where: string): Float64Array {
  const inv = new Float64Array(3);
  for (let a = 0; a < 3; a++) {
    if (!(k[a] > 0)) {
      throw new PbdError(
        'rod/stiffness',
        `${where}[${a}]`,
        `must be > 0 (or Infinity for a rigid axis), got ${k[a]}`,
        "give the rod positive moduli (Young's modulus, shear modulus) and radius",
      );
    }
    inv[a] = Number.isFinite(k[a]) ? 1 / k[a] : 0;
  }
  return inv;
}

export function checkDampingTime(tau: number, where: string): number {
  if (!(tau >= 0) || !Number.isFinite(tau)) {
    throw new PbdError(
      'rod/damping',
      where,
      `must be a retardation time ≥ 0 s, got ${tau}`,
      'the material damps strain rates over this time; 0 is undamped, a few substeps is strongly damped',
    );
  }
  return tau;
}

/**
 * The parameters of a rod constraint set: the PBD stiffness k ∈ [0, 1]
 * (used when the world runs the 'pbd' rule), and the material's damping
 * as a Kelvin–Voigt retardation time τ (s): the stress gains τ E ε̇ on top
 * of E ε, i.e. XPBD damping β = τ/α for every constraint, γ = α β / h = τ/h.
 */
export interface RodDamping {
  stiffness?: number;
  /** Retardation time τ (s). Default 0. */
  damping?: number;
}

/**
 * The sweep of a rod set within each iteration: 'world' (default) as the
 * world's sweep says (forward then backward under 'symmetric'); 'forward'
 * once, root to tip, whatever the world's sweep.
 */
export type RodSweep = 'forward' | 'world';

/** a · b of quaternions (x, y, z, w) as plain arrays (for the reference functions, not the loops). */
export function quatProduct(a: ArrayLike<number>, b: ArrayLike<number>): number[] {
  return [
    a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
    a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
    a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
    a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
  ];
}

/**
 * What the stretch–shear and the bend–twist sets (rod-stretch-shear.ts, rod-bend-twist.ts) share:
 * three multipliers per constraint along the material axes, the PBD rule, the inverse stiffness
 * per axis and the Kelvin–Voigt time, the sweep, the direct solver's flag, and at each step's
 * start the compliance per unit length α̃ = s K⁻¹/h² of each axis (s = 1 for stretch–shear, ¼ for
 * bend–twist, α = L/(4 K)) and the damping γ = τ/h (XPBD; both 0 under PBD).
 */
export abstract class RodConstraints {
  /** Multipliers, 3 per constraint (material axes d_1, d_2, d_3). */
  readonly lambda: Float64Array;
  /** The PBD stiffness of the set (under XPBD the compliance comes from `invStiffness`). */
  readonly rule: ProjectionRule;
  /** The inverse stiffness per material axis (see the set); 0 is rigid. */
  readonly invStiffness: Float64Array;
  /** Kelvin–Voigt retardation time τ (s) of the material; see RodDamping. */
  dampingTime: number;
  /** α̃ per unit length of each material axis and γ, for this step (beginStep). */
  protected readonly atScale = new Float64Array(3);
  protected gamma = 0;
  // the ConstraintSet's fields
  readonly order = 0;
  enabled = true;
  readonly count: number;
  /** Sequential chains (see the file comment): one colour, run whole. */
  readonly colors = 1;
  /**
   * The sweep of the set within each iteration: 'world' (default) follows
   * the world's (forward then backward under 'symmetric'); 'forward'
   * projects the chain once, root to tip, whatever the world's sweep, at
   * half the cost and with less convergence per iteration. See the file comment.
   */
  sweep: RodSweep = 'world';
  /** Projected by a DirectRodSolver (rod-direct.ts), which reads this set's constraints: `project` does nothing. */
  direct = false;
  /** The name in setStiffness's errors. */
  private readonly name: string;

  constructor(
    count: number,
    stiffness: AxisStiffness,
    params: RodDamping,
    where: string,
    name: string,
    private readonly alphaScale: number,
  ) {
    this.count = count;
    this.name = name;
    this.lambda = new Float64Array(3 * count);
    this.rule = new ProjectionRule({ stiffness: params.stiffness }, where);
    this.invStiffness = checkStiffness(stiffness, `${where}.stiffness`);
    this.dampingTime = checkDampingTime(params.damping ?? 0, `${where}.damping`);
  }

  /** Sets the material stiffness per axis (see the set's invStiffness). */
  setStiffness(k: AxisStiffness): void {
    this.invStiffness.set(checkStiffness(k, `${this.name}.stiffness`));
  }

  /** Whether `project` does nothing in this pass: the direct solver projects the set, or a forward sweep's backward pass. */
  protected skips(ctx: StepContext): boolean {
    return this.direct || (ctx.reverse && this.sweep === 'forward');
  }

  beginStep(ctx: StepContext): void {
    this.rule.update(ctx.solver, ctx.hSolve, this.sweep === 'forward' ? ctx.iterations : ctx.passes);
    const xpbd = ctx.solver === 'xpbd';
    for (let k = 0; k < 3; k++)
      this.atScale[k] = xpbd ? this.alphaScale * this.invStiffness[k] * ctx.invH * ctx.invH : 0;
    this.gamma = xpbd ? this.dampingTime * ctx.invH : 0;
    this.lambda.fill(0);
  }
}
