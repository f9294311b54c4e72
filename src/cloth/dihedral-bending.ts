import { ElementConstraints } from '../constraints/element-set.js';
import type { ParticleStore } from '../core/particles.js';
import { type ConstraintParams, ProjectionRule } from '../core/solver.js';
import type { ElementGlue } from '../kernels/glue.js';
import {
  type DihedralBendingArgs,
  dihedralAngleGradients,
  dihedralBendingGlue,
} from './dihedral-bending.generated.js';

export { dihedralAngleGradients };

/**
 * Dihedral bending (003 §4.1, Appendix A).
 *
 * For two triangles (p1, p3, p2) and (p1, p2, p4) sharing the edge p1–p2,
 * C = φ − φ0 where φ = arccos(n1 · n2) is the angle between the normals
 * n1 = normalize(e2 × e3), n2 = normalize(e2 × e4), e_k = p_k − p1. With the
 * paper's choice of n1 (which faces opposite to the first triangle's own
 * normal), φ is the dihedral angle itself: φ = π for a flat pair and φ → 0
 * when the pair is folded shut.
 *
 * Appendix A gives the gradients through the normalised cross products:
 * with d = n1·n2 and the vectors
 *   q3 = e2 × (n2 − d n1) / |e2 × e3|          (eq. 25)
 *   q4 = e2 × (n1 − d n2) / |e2 × e4|          (eq. 26)
 *   q2 = −(e3 × (n2 − d n1)) / |e2 × e3| − (e4 × (n1 − d n2)) / |e2 × e4|   (eq. 27)
 *   q1 = −q2 − q3 − q4                          (eq. 28)
 * ∇_{p_i} C = q_i / √(1 − d²). (Eqs. 25–27 written with n1×e = −e×n1.)
 *
 * Robustness: √(1 − d²) → 0 both at the flat and at the folded state, where
 * |q_i| → 0 as well. We therefore work with scaled gradients G_i = κ q_i =
 * κ s ∇_i φ (s = √(1 − d²) = |n1 × n2|) and fold κ s into the multiplier
 * (eq. 29 generalised to the unified PBD/XPBD rule, which is invariant to a
 * common scale of G and s), so nothing divides by s: the correction stays
 * finite and no NaN can appear.
 *
 * Speed: eqs. 25–28 simplify. n1 and n2 are both perpendicular to e2, so
 * n2 − d n1 lies in the first triangle's plane, perpendicular to e2, with
 * length s; hence q3 = e2 × (n2 − d n1)/|e2 × e3| is parallel to n1, and
 * likewise q4 ∥ n2. q1 and q2 then follow from Σ q_i = 0 and Σ p_i × q_i = 0:
 * the edge vertices take −q3 and −q4 split by where p3 and p4 project onto
 * the edge. With κ = |N1| |N2| (N1 = e2 × e3, N2 = e2 × e4 unnormalised) and
 * det = N1 · e4 = e2 · (e3 × e4):
 *   G3 = −det |e2|² N1 / |N1|²,   G4 = det |e2|² N2 / |N2|²
 *   G2 = −α3 G3 − α4 G4,  G1 = −G2 − G3 − G4,  α_k = (e_k · e2) / |e2|²
 *   κ s = |N1 × N2| = |e2| |det|,   φ = atan2(κ s, N1 · N2)
 * One square root and three divisions per constraint, no normalisation, and
 * G is smooth in det (the sign flip of the unsigned angle's gradient at
 * φ = π cancels against |det|). Tests check G against finite differences
 * and against eqs. 25–28 written out literally.
 */
export class DihedralBending extends ElementConstraints<DihedralBendingArgs> {
  readonly kind = 'dihedral-bending';
  readonly violationUnit = 'rad';
  /** Rest angle φ0 per constraint (indices: p1, p2, p3, p4 per constraint). */
  rest: Float64Array = new Float64Array(0);
  /**
   * (cos φ0, sin φ0) per constraint, from `rest`: the f32 kernels' C by the rotation by the rest
   * angle (dihedral-bending.kernel.ts); the f64 kernels do not read it.
   */
  restCS: Float64Array = new Float64Array(0);
  /**
   * Largest angle change (rad) one projection may ask for. A pair folded far
   * from its rest angle (cloth passing through itself) would otherwise be
   * snapped open by up to π in one linearised step, which overshoots and
   * injects energy; larger violations are resolved over several projections.
   * The f32 mode bounds the step at min(maxStep, 0.5): its atan by the
   * rotation by the rest angle holds on [0, tan 0.5] (dihedral-bending.kernel.ts).
   */
  maxStep = 0.5;
  private readonly g = new Float64Array(13);

  /**
   * @param quads four particle indices per constraint (shared edge first)
   * @param rest rest angles; omitted → the current angles in `store.x`
   */
  constructor(
    store: ParticleStore,
    quads: ArrayLike<number>,
    rest?: ArrayLike<number>,
    params: ConstraintParams = {},
  ) {
    super(new ProjectionRule(params, 'bend'));
    this.setConstraints(store, quads, rest);
  }

  setConstraints(store: ParticleStore, quads: ArrayLike<number>, rest?: ArrayLike<number>): void {
    const n = quads.length / 4;
    const idx = Int32Array.from(quads);
    const r = new Float64Array(n);
    for (let c = 0; c < n; c++) {
      if (rest) r[c] = rest[c];
      else {
        const phi = this.angle(store, idx, c);
        r[c] = phi < 0 ? Math.PI : phi; // a degenerate rest pair counts as flat
      }
    }
    const cs = new Float64Array(2 * n);
    for (let c = 0; c < n; c++) {
      cs[2 * c] = Math.cos(r[c]);
      cs[2 * c + 1] = Math.sin(r[c]);
    }
    [this.rest, this.restCS] = this.setElements(store, idx, [
      [r, 1],
      [cs, 2],
    ]);
  }

  /**
   * dihedral-bending.kernel.ts (its JavaScript kernel inlines exactly dihedralAngleGradients()); its
   * f32 twin and kernel take C = φ − φ0 by the rotation of (D, s) by the rest angle (restCS) and an
   * atan polynomial on [0, tan 0.5], not Math.atan2.
   */
  static readonly glue: ElementGlue<DihedralBendingArgs> = dihedralBendingGlue;

  protected kernelArgs(a: DihedralBendingArgs): void {
    a.rest = this.rest;
    a.cs = this.restCS;
    a.maxStep = this.maxStep;
    // the f64 kernels take C = φ − φ0 (their rotate is fixed at 0 but for the JavaScript kernel's);
    // the f32 kernels' trust region is tan m with m = min(maxStep, 0.5), where their five-coefficient
    // atan holds (a larger maxStep only bounds the f32 step at 0.5 rad)
    a.rotate = 0;
    a.tanStep = Math.tan(Math.min(this.maxStep, 0.5));
  }

  /** The dihedral angle φ of quad c of idx at store.x (−1 when degenerate; its gradients to this.g). */
  private angle(store: ParticleStore, idx: ArrayLike<number>, c: number): number {
    return dihedralAngleGradients(
      store.x,
      idx[4 * c],
      idx[4 * c + 1],
      idx[4 * c + 2],
      idx[4 * c + 3],
      this.g,
    );
  }

  maxViolation(store: ParticleStore): number {
    let m = 0;
    const idx = this.indices;
    for (let c = 0; c < this.count; c++) {
      const phi = this.angle(store, idx, c);
      if (phi >= 0) m = Math.max(m, Math.abs(phi - this.rest[c]));
    }
    return m;
  }
}
