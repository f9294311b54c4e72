import type { Multiplier, Particle, PerConstraint, Rec, Uniform } from '../kernels/dsl.js';
import { moveBack, norm2 } from '../kernels/helpers.js';

/**
 * The WebAssembly twin projects sets without XPBD damping (γ = 0; damping reads store.x); the
 * f64 kernels take C = φ − φ0 (rotate = 0).
 */
export const simd = { gamma: 0, rotate: 0 };

/**
 * The f32 mode (World option `precision: 'f32'`): an f32x4 kernel, four
 * constraints per instruction on blocked lanes, and its JavaScript twin
 * (Math.fround after every operation), the same bits; without damping, like
 * the SIMD twin; C by the rotation by the rest angle (rotate = 1, below).
 */
export const f32 = { rotate: 1 };

/**
 * The fused f32x4 loop projects two groups of four per iteration, their
 * statements interleaved (scripts/kernels/interleave.ts): the same bits, two
 * independent chains for the core (docs/performance.md, session 13).
 */
export const interleave = 2;

/**
 * The dihedral angle φ of triangles (p1, p3, p2) and (p1, p2, p4) (003
 * Appendix A) and the scaled gradients G_i = κ q_i = κ sin φ · ∇_{p_i} φ
 * written to g[0..11] (p1, p2, p3, p4), with κ sin φ in g[12] (κ > 0, see
 * DihedralBending); ∇_{p_i} φ = G_i / g[12]. Returns −1 when a triangle is
 * degenerate (zero area). Generated from the projection below (what it
 * computes from the positions before the rest angle enters), so the
 * projection loop computes exactly these numbers.
 */
export const geometry = {
  name: 'dihedralAngleGradients',
  out: ['g1x', 'g1y', 'g1z', '-h2x', '-h2y', '-h2z', '-f3x', '-f3y', '-f3z', 'g4x', 'g4y', 'g4z', 's'],
  value: 'phi',
  invalid: -1,
};

/**
 * One dihedral bending constraint C = φ − φ0 (003 §4.1, Appendix A) of the
 * triangles (a, c, b) and (a, b, d) sharing the edge a–b, with the scaled
 * gradients G_i = κ sin φ ∇_i φ of dihedral-bending.ts (which derives them
 * from eqs. 25–28): e_k = p_k − p_a, N1 = e_b × e_c, N2 = e_b × e_d,
 * det = N1 · e_d, G_c = −det |e_b|² N1/|N1|², G_d = det |e_b|² N2/|N2|²,
 * G_b = −α_c G_c − α_d G_d, G_a = −G_b − G_c − G_d, κ s = |e_b| |det|,
 * φ = atan2(κ s, N1 · N2). The unified rule with ∇C = G / s:
 * Δλ = s μ, Δp_i = w_i G_i μ. Each projection changes the angle by at most
 * `maxStep` (a trust region: the linearisation is only good for moderate
 * angle changes).
 */
export function projectDihedralBending(
  a: Particle,
  b: Particle,
  c: Particle,
  d: Particle,
  rest: PerConstraint,
  cs: Rec<2>,
  lam: Multiplier,
  kp: Uniform,
  at: Uniform,
  gamma: Uniform,
  maxStep: Uniform,
  rotate: Uniform,
  tanStep: Uniform,
): void {
  const w1 = a.w;
  const w2 = b.w;
  const w3 = c.w;
  const w4 = d.w;
  if (w1 + w2 + w3 + w4 === 0) return;
  const ox = a.x;
  const oy = a.y;
  const oz = a.z;
  const e2x = b.x - ox;
  const e2y = b.y - oy;
  const e2z = b.z - oz;
  const e3x = c.x - ox;
  const e3y = c.y - oy;
  const e3z = c.z - oz;
  const e4x = d.x - ox;
  const e4y = d.y - oy;
  const e4z = d.z - oz;
  // unnormalised normals N1 = e2 × e3, N2 = e2 × e4
  const n1x = e2y * e3z - e2z * e3y;
  const n1y = e2z * e3x - e2x * e3z;
  const n1z = e2x * e3y - e2y * e3x;
  const n2x = e2y * e4z - e2z * e4y;
  const n2y = e2z * e4x - e2x * e4z;
  const n2z = e2x * e4y - e2y * e4x;
  const l1sq = norm2(n1x, n1y, n1z);
  const l2sq = norm2(n2x, n2y, n2z);
  const e2l = norm2(e2x, e2y, e2z);
  const tol = 1e-24 * e2l * e2l;
  if (!(l1sq > tol) || !(l2sq > tol)) return; // degenerate triangle: no normal
  const D = n1x * n2x + n1y * n2y + n1z * n2z;
  const det = n1x * e4x + n1y * e4y + n1z * e4z;
  // κ s = |e2| |det|; G3 = −det |e2|² N1/|N1|², G4 = det |e2|² N2/|N2|²
  const s = Math.sqrt(e2l) * Math.abs(det);
  // det |e2|² once. G3 is kept as F3 = −G3 = k3 N1 with k3 = det |e2|²/|N1|²: (−a)/b = −(a/b) and
  // (−a) b = −(a b) exactly, so F3 is −G3 bit for bit, and every use below is the same number as
  // with G3 (x + (−y) is x − y, (−a)(−b) is a b), without the two negations (of c3, and of the move
  // of c: c += G3 k is c −= F3 k).
  const de2 = det * e2l;
  const k3 = de2 / l1sq;
  const c4 = de2 / l2sq;
  const ie2 = 1 / e2l;
  const alpha3 = (e3x * e2x + e3y * e2y + e3z * e2z) * ie2;
  const alpha4 = (e4x * e2x + e4y * e2y + e4z * e2z) * ie2;
  const f3x = k3 * n1x;
  const f3y = k3 * n1y;
  const f3z = k3 * n1z;
  const g4x = c4 * n2x;
  const g4y = c4 * n2y;
  const g4z = c4 * n2z;
  // G2 = −H2 with H2 = α3 G3 + α4 G4, G1 = −G2 − G3 − G4 = H2 − G3 − G4 (α: positions of p3,
  // p4 along the edge). Written with H2, no negations: the same bits as with G2 (rounding is
  // symmetric), three fewer operations per lane. With F3 = −G3: H2 = α4 G4 − α3 F3 (a + b is
  // b + a) and H2 − G3 = H2 + F3, the same numbers.
  const h2x = alpha4 * g4x - alpha3 * f3x;
  const h2y = alpha4 * g4y - alpha3 * f3y;
  const h2z = alpha4 * g4z - alpha3 * f3z;
  const g1x = h2x + f3x - g4x;
  const g1y = h2y + f3y - g4y;
  const g1z = h2z + f3z - g4z;
  const phi = Math.atan2(s, D);
  let C = 0;
  if (rotate !== 0) {
    // The f32 mode: C = φ − φ0 (003 §4.1 and Appendix A, 000 §3.4.2: C = arccos(n1 · n2) − φ0) without φ. With κ = |N1||N2|, s = κ sin φ and D = κ cos φ (φ ∈ [0, π]),
    // the rotation of (D, s) by −φ0, cs = (cos φ0, sin φ0) per constraint (φ0 ∈ [0, π]), gives
    //   y = s cos φ0 − D sin φ0 = κ sin(φ − φ0),   x = D cos φ0 + s sin φ0 = κ cos(φ − φ0),
    // and since φ − φ0 ∈ [−π, π], C = atan2(y, x) exactly. The trust region |C| ≤ m (m = maxStep,
    // at most 0.5 in this mode: tanStep = tan m, DihedralBending.kernelArgs) needs no quadrant: where
    // x > 0 and |y| ≤ x tan m, C = atan(y/x) with |y/x| ≤ tan m; where x > 0 and |y/x| > tan m,
    // m < |C| < π/2; where x ≤ 0, |C| ≥ π/2 > m: C = ±m by the sign of y, here atan(±tan m). So
    // z = y/x clamped to [−tan m, tan m] (±tan m where x ≤ 0) and C = atan z by an odd polynomial on
    // [0, tan 0.5]: five coefficients (Lawson's minimax relative fit, f32 values), error ≤ 1.5e-7 rad
    // evaluated in f32 (the f64 mode's atan2 by the eight of [0, 1]: 1.6e-7). One division, no
    // range reduction; φ itself is then dead in the f32 kernels (binaryen drops it).
    const [cr, sr] = cs;
    const y = s * cr - D * sr;
    const x = D * cr + s * sr;
    let z = y / x;
    z = z > tanStep ? tanStep : z;
    // biome-ignore lint/complexity/useMathMinMax: a select, not Math.max (NaN and −0 stay as they are)
    z = z < -tanStep ? -tanStep : z;
    z = x > 0 ? z : y < 0 ? -tanStep : tanStep;
    const z2 = z * z;
    const h =
      (((0.06402656435966492 * z2 - 0.13210304081439972) * z2 + 0.19892944395542145) * z2 -
        0.3332950472831726) *
        z2 +
      0.9999997615814209;
    C = h * z;
  } else {
    C = phi - rest;
    // trust region: the linearisation is only good for moderate angle changes (maxStep ≥ 0;
    // written as two selects, which the SIMD kernels make one pmin and one pmax)
    C = C > maxStep ? maxStep : C;
    // biome-ignore lint/complexity/useMathMinMax: a select, not Math.max (NaN and −0 stay as they are)
    C = C < -maxStep ? -maxStep : C;
  }
  const wG =
    w1 * norm2(g1x, g1y, g1z) + w2 * norm2(h2x, h2y, h2z) + w3 * k3 * k3 * l1sq + w4 * c4 * c4 * l2sq;
  let gd = 0;
  if (gamma !== 0) {
    gd =
      g1x * (a.x - a.x0) +
      g1y * (a.y - a.y0) +
      g1z * (a.z - a.z0) +
      h2x * (b.x0 - b.x) +
      h2y * (b.y0 - b.y) +
      h2z * (b.z0 - b.z) -
      f3x * (c.x - c.x0) -
      f3y * (c.y - c.y0) -
      f3z * (c.z - c.z0) +
      g4x * (d.x - d.x0) +
      g4y * (d.y - d.y0) +
      g4z * (d.z - d.z0);
  }
  // Unified rule with ∇C = G / s (see DihedralBending): Δλ = s μ, Δp_i = w_i G_i μ.
  const denom = (1 + gamma) * wG + at * s * s;
  if (!(denom > 0)) return; // exactly flat and at rest: nothing to do
  const mu = (kp * (-C * s - at * lam * s - gamma * gd)) / denom;
  lam += s * mu;
  // a += G1 w1 μ written a −= G1 (w1 (−μ)): w (−μ) = −(w μ) and x − (−y) = x + y exactly, so the same
  // bits, and the f32x4 kernels negate μ once instead of each move's w μ (as for d)
  const nmu = -mu;
  moveBack(a, g1x, g1y, g1z, w1 * nmu);
  moveBack(b, h2x, h2y, h2z, w2 * mu);
  moveBack(c, f3x, f3y, f3z, w3 * mu);
  moveBack(d, g4x, g4y, g4z, w4 * nmu);
}
