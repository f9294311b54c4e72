import { colorConstraints, permuteRecords } from '../core/coloring.js';
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import type { ParticleStore } from '../core/particles.js';
import { type ConstraintParams, ProjectionRule } from '../core/solver.js';
import { sweepDihedralBending } from '../wasm/element-kernels.generated.js';
import { type ElementKernel, elementKernel } from '../wasm/element-kernels.js';
import { projectDihedralBending } from './dihedral-bending.generated.js';

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
export class DihedralBending implements ConstraintSet {
  readonly kind = 'dihedral-bending';
  readonly violationUnit = 'rad';
  readonly order = 0;
  enabled = true;
  readonly rule: ProjectionRule;
  /** Four particle indices (p1, p2, p3, p4) per constraint, sorted by colour. */
  indices: Int32Array = new Int32Array(0);
  /** Rest angle φ0 per constraint. */
  rest: Float64Array = new Float64Array(0);
  lambda: Float64Array = new Float64Array(0);
  colorOffsets: Int32Array = new Int32Array(1);
  count = 0;
  colors = 0;
  /**
   * Largest angle change (rad) one projection may ask for. A pair folded far
   * from its rest angle (cloth passing through itself) would otherwise be
   * snapped open by up to π in one linearised step, which overshoots and
   * injects energy; larger violations are resolved over several projections.
   */
  maxStep = 0.5;
  /**
   * 'auto' projects with the WebAssembly SIMD kernel (generated with the
   * JavaScript kernel from dihedral-bending.kernel.ts, bit-identical) when the
   * engine has one and the set has no XPBD damping; 'js' always with the
   * JavaScript kernel.
   */
  backend: 'auto' | 'js' = 'auto';
  private simd: ElementKernel | null = null;
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
    this.rule = new ProjectionRule(params, 'bend');
    this.setConstraints(store, quads, rest);
  }

  setConstraints(store: ParticleStore, quads: ArrayLike<number>, rest?: ArrayLike<number>): void {
    const n = quads.length / 4;
    const idx = Int32Array.from(quads);
    const r = new Float64Array(n);
    for (let c = 0; c < n; c++) {
      if (rest) r[c] = rest[c];
      else {
        const phi = dihedralAngleGradients(
          store.x,
          idx[4 * c],
          idx[4 * c + 1],
          idx[4 * c + 2],
          idx[4 * c + 3],
          this.g,
        );
        r[c] = phi < 0 ? Math.PI : phi; // a degenerate rest pair counts as flat
      }
    }
    const col = colorConstraints(idx, 4, n, store.count);
    this.indices = permuteRecords(idx, 4, col.order);
    this.rest = permuteRecords(r, 1, col.order);
    this.lambda = new Float64Array(n);
    this.colorOffsets = col.offsets;
    this.colors = col.colors;
    this.count = n;
  }

  beginStep(ctx: StepContext): void {
    this.rule.update(ctx.solver, ctx.h, ctx.passes);
    this.lambda.fill(0);
  }

  /** The SIMD kernel when it applies (see `backend`), built on first use and after setConstraints. */
  private simdKernel(): ElementKernel | null {
    this.simd = elementKernel(this, 4, null, 0, this.rest, this.simd);
    return this.simd;
  }

  /** Which kernel projects this set now: 'wasm' (SIMD) or 'js'. */
  get activeBackend(): 'wasm' | 'js' {
    return this.simdKernel() === null ? 'js' : 'wasm';
  }

  /** One sweep (dihedral-bending.kernel.ts: the loop inlines exactly dihedralAngleGradients()). */
  project(ctx: StepContext): void {
    const store = ctx.store;
    const r = this.rule;
    const simd = this.simdKernel();
    if (simd !== null) sweepDihedralBending(simd, store, ctx.reverse, r.kPrime, r.alphaTilde, this.maxStep);
    else this.projectJs(ctx, 0, this.count, ctx.reverse);
  }

  projectColorRange(ctx: StepContext, _color: number, from: number, to: number): void {
    this.projectJs(ctx, from, to, false);
  }

  /** The JavaScript kernel (dihedral-bending.kernel.ts) over constraints [from, to), backward when `reverse`. */
  private projectJs(ctx: StepContext, from: number, to: number, reverse: boolean): void {
    const store = ctx.store;
    const r = this.rule;
    projectDihedralBending(
      store.p,
      store.x,
      store.invMass,
      this.indices,
      this.rest,
      this.lambda,
      from,
      to,
      reverse,
      r.kPrime,
      r.alphaTilde,
      r.gamma,
      this.maxStep,
    );
  }

  maxViolation(store: ParticleStore): number {
    let m = 0;
    const idx = this.indices;
    for (let c = 0; c < this.count; c++) {
      const phi = dihedralAngleGradients(
        store.x,
        idx[4 * c],
        idx[4 * c + 1],
        idx[4 * c + 2],
        idx[4 * c + 3],
        this.g,
      );
      if (phi >= 0) m = Math.max(m, Math.abs(phi - this.rest[c]));
    }
    return m;
  }
}

/**
 * The dihedral angle φ of triangles (p1, p3, p2) and (p1, p2, p4) (003
 * Appendix A) and the scaled gradients G_i = κ q_i = κ sin φ · ∇_{p_i} φ
 * written to g[0..11] (p1, p2, p3, p4), with κ sin φ in g[12] (κ > 0, see
 * DihedralBending); ∇_{p_i} φ = G_i / g[12]. Returns −1 when a triangle is
 * degenerate (zero area). The projection loop inlines exactly this code.
 */
export function dihedralAngleGradients(
  p: ArrayLike<number>,
  i1: number,
  i2: number,
  i3: number,
  i4: number,
  g: Float64Array,
): number {
  const a = 3 * i1;
  const b = 3 * i2;
  const c = 3 * i3;
  const d = 3 * i4;
  const ox = p[a];
  const oy = p[a + 1];
  const oz = p[a + 2];
  const e2x = p[b] - ox;
  const e2y = p[b + 1] - oy;
  const e2z = p[b + 2] - oz;
  const e3x = p[c] - ox;
  const e3y = p[c + 1] - oy;
  const e3z = p[c + 2] - oz;
  const e4x = p[d] - ox;
  const e4y = p[d + 1] - oy;
  const e4z = p[d + 2] - oz;
  const n1x = e2y * e3z - e2z * e3y;
  const n1y = e2z * e3x - e2x * e3z;
  const n1z = e2x * e3y - e2y * e3x;
  const n2x = e2y * e4z - e2z * e4y;
  const n2y = e2z * e4x - e2x * e4z;
  const n2z = e2x * e4y - e2y * e4x;
  const l1sq = n1x * n1x + n1y * n1y + n1z * n1z;
  const l2sq = n2x * n2x + n2y * n2y + n2z * n2z;
  const e2l = e2x * e2x + e2y * e2y + e2z * e2z;
  const tol = 1e-24 * e2l * e2l;
  if (!(l1sq > tol) || !(l2sq > tol)) return -1;
  const D = n1x * n2x + n1y * n2y + n1z * n2z;
  const det = n1x * e4x + n1y * e4y + n1z * e4z;
  const s = Math.sqrt(e2l) * Math.abs(det);
  const c3 = (-det * e2l) / l1sq;
  const c4 = (det * e2l) / l2sq;
  const a3 = (e3x * e2x + e3y * e2y + e3z * e2z) / e2l;
  const a4 = (e4x * e2x + e4y * e2y + e4z * e2z) / e2l;
  const g3x = c3 * n1x;
  const g3y = c3 * n1y;
  const g3z = c3 * n1z;
  const g4x = c4 * n2x;
  const g4y = c4 * n2y;
  const g4z = c4 * n2z;
  const g2x = -a3 * g3x - a4 * g4x;
  const g2y = -a3 * g3y - a4 * g4y;
  const g2z = -a3 * g3z - a4 * g4z;
  g[0] = -g2x - g3x - g4x;
  g[1] = -g2y - g3y - g4y;
  g[2] = -g2z - g3z - g4z;
  g[3] = g2x;
  g[4] = g2y;
  g[5] = g2z;
  g[6] = g3x;
  g[7] = g3y;
  g[8] = g3z;
  g[9] = g4x;
  g[10] = g4y;
  g[11] = g4z;
  g[12] = s;
  return Math.atan2(s, D);
}
