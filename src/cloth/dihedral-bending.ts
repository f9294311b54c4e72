import { colorConstraints, permuteRecords } from '../core/coloring.js';
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import type { ParticleStore } from '../core/particles.js';
import { type ConstraintParams, ProjectionRule } from '../core/solver.js';

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
 * Robustness: √(1 − d²) → 0 both at the flat and at the fully folded state,
 * where |q_i| → 0 as well. We therefore work with the scaled gradients
 * G_i = q_i = s ∇_i C (s = √(1 − d²) = |n1 × n2|, computed directly rather than
 * from d) and fold s into the multiplier (eq. 29 generalised to the unified
 * PBD/XPBD rule), so nothing divides by s: the correction stays finite and
 * no NaN can appear. φ is evaluated as atan2(s, d), accurate near 0 and π.
 */
export class DihedralBending implements ConstraintSet {
  readonly kind = 'dihedral-bending';
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
    this.rule.update(ctx.solver, ctx.h, ctx.iterations);
    this.lambda.fill(0);
  }

  project(ctx: StepContext): void {
    const store = ctx.store;
    const p = store.p,
      x = store.x,
      w = store.invMass;
    const idx = this.indices,
      rest = this.rest,
      lam = this.lambda,
      g = this.g;
    const kp = this.rule.kPrime,
      at = this.rule.alphaTilde,
      gamma = this.rule.gamma;
    // forward, or backward in the second half of a symmetric sweep
    const n = this.count,
      step = ctx.reverse ? -1 : 1;
    for (let c = ctx.reverse ? n - 1 : 0; c >= 0 && c < n; c += step) {
      const i1 = idx[4 * c],
        i2 = idx[4 * c + 1],
        i3 = idx[4 * c + 2],
        i4 = idx[4 * c + 3];
      const w1 = w[i1],
        w2 = w[i2],
        w3 = w[i3],
        w4 = w[i4];
      if (w1 + w2 + w3 + w4 === 0) continue;
      const phi = dihedralAngleGradients(p, i1, i2, i3, i4, g);
      if (phi < 0) continue; // degenerate triangle: no defined normal
      const s = g[12];
      const C = phi - rest[c];
      const wG =
        w1 * (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]) +
        w2 * (g[3] * g[3] + g[4] * g[4] + g[5] * g[5]) +
        w3 * (g[6] * g[6] + g[7] * g[7] + g[8] * g[8]) +
        w4 * (g[9] * g[9] + g[10] * g[10] + g[11] * g[11]);
      let gd = 0;
      if (gamma !== 0) {
        const a = 3 * i1,
          b = 3 * i2,
          e = 3 * i3,
          f = 3 * i4;
        gd =
          g[0] * (p[a] - x[a]) +
          g[1] * (p[a + 1] - x[a + 1]) +
          g[2] * (p[a + 2] - x[a + 2]) +
          g[3] * (p[b] - x[b]) +
          g[4] * (p[b + 1] - x[b + 1]) +
          g[5] * (p[b + 2] - x[b + 2]) +
          g[6] * (p[e] - x[e]) +
          g[7] * (p[e + 1] - x[e + 1]) +
          g[8] * (p[e + 2] - x[e + 2]) +
          g[9] * (p[f] - x[f]) +
          g[10] * (p[f + 1] - x[f + 1]) +
          g[11] * (p[f + 2] - x[f + 2]);
      }
      // Unified rule with ∇C = G / s (see the class comment): Δλ = s μ, Δp_i = w_i G_i μ.
      const denom = (1 + gamma) * wG + at * s * s;
      if (!(denom > 1e-30)) continue;
      const mu = (kp * (-C * s - at * lam[c] * s - gamma * gd)) / denom;
      lam[c] += s * mu;
      let k = 3 * i1,
        m = w1 * mu;
      p[k] += g[0] * m;
      p[k + 1] += g[1] * m;
      p[k + 2] += g[2] * m;
      k = 3 * i2;
      m = w2 * mu;
      p[k] += g[3] * m;
      p[k + 1] += g[4] * m;
      p[k + 2] += g[5] * m;
      k = 3 * i3;
      m = w3 * mu;
      p[k] += g[6] * m;
      p[k + 1] += g[7] * m;
      p[k + 2] += g[8] * m;
      k = 3 * i4;
      m = w4 * mu;
      p[k] += g[9] * m;
      p[k + 1] += g[10] * m;
      p[k + 2] += g[11] * m;
    }
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
 * The angle φ between the normals of triangles (p1, p3, p2) and (p1, p2, p4)
 * and the scaled gradients G_i = sin φ · ∇_{p_i} φ (Appendix A's q_i) written
 * to g[0..11] (p1, p2, p3, p4), with s = sin φ in g[12]. Returns −1 when a
 * triangle is degenerate (zero area).
 */
export function dihedralAngleGradients(
  p: ArrayLike<number>,
  i1: number,
  i2: number,
  i3: number,
  i4: number,
  g: Float64Array,
): number {
  const a = 3 * i1,
    b = 3 * i2,
    c = 3 * i3,
    d = 3 * i4;
  const ox = p[a],
    oy = p[a + 1],
    oz = p[a + 2];
  const e2x = p[b] - ox,
    e2y = p[b + 1] - oy,
    e2z = p[b + 2] - oz;
  const e3x = p[c] - ox,
    e3y = p[c + 1] - oy,
    e3z = p[c + 2] - oz;
  const e4x = p[d] - ox,
    e4y = p[d + 1] - oy,
    e4z = p[d + 2] - oz;
  // n1 = e2 × e3 / |·|, n2 = e2 × e4 / |·|
  let n1x = e2y * e3z - e2z * e3y,
    n1y = e2z * e3x - e2x * e3z,
    n1z = e2x * e3y - e2y * e3x;
  let n2x = e2y * e4z - e2z * e4y,
    n2y = e2z * e4x - e2x * e4z,
    n2z = e2x * e4y - e2y * e4x;
  const l1 = Math.sqrt(n1x * n1x + n1y * n1y + n1z * n1z);
  const l2 = Math.sqrt(n2x * n2x + n2y * n2y + n2z * n2z);
  const e2l = e2x * e2x + e2y * e2y + e2z * e2z;
  // degenerate when the cross product is tiny relative to the edge lengths
  if (!(l1 > 1e-12 * e2l) || !(l2 > 1e-12 * e2l)) return -1;
  n1x /= l1;
  n1y /= l1;
  n1z /= l1;
  n2x /= l2;
  n2y /= l2;
  n2z /= l2;
  let dd = n1x * n2x + n1y * n2y + n1z * n2z;
  if (dd > 1) dd = 1;
  else if (dd < -1) dd = -1;
  const cx = n1y * n2z - n1z * n2y,
    cy = n1z * n2x - n1x * n2z,
    cz = n1x * n2y - n1y * n2x;
  const s = Math.sqrt(cx * cx + cy * cy + cz * cz);
  // u = (n2 − d n1)/|e2×e3|, v = (n1 − d n2)/|e2×e4|
  const ux = (n2x - dd * n1x) / l1,
    uy = (n2y - dd * n1y) / l1,
    uz = (n2z - dd * n1z) / l1;
  const vx = (n1x - dd * n2x) / l2,
    vy = (n1y - dd * n2y) / l2,
    vz = (n1z - dd * n2z) / l2;
  // q3 = e2 × u, q4 = e2 × v
  const q3x = e2y * uz - e2z * uy,
    q3y = e2z * ux - e2x * uz,
    q3z = e2x * uy - e2y * ux;
  const q4x = e2y * vz - e2z * vy,
    q4y = e2z * vx - e2x * vz,
    q4z = e2x * vy - e2y * vx;
  // q2 = −(e3 × u) − (e4 × v)
  const q2x = -(e3y * uz - e3z * uy) - (e4y * vz - e4z * vy);
  const q2y = -(e3z * ux - e3x * uz) - (e4z * vx - e4x * vz);
  const q2z = -(e3x * uy - e3y * ux) - (e4x * vy - e4y * vx);
  g[0] = -q2x - q3x - q4x;
  g[1] = -q2y - q3y - q4y;
  g[2] = -q2z - q3z - q4z;
  g[3] = q2x;
  g[4] = q2y;
  g[5] = q2z;
  g[6] = q3x;
  g[7] = q3y;
  g[8] = q3z;
  g[9] = q4x;
  g[10] = q4y;
  g[11] = q4z;
  g[12] = s;
  return Math.atan2(s, dd);
}
