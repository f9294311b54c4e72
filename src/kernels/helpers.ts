/**
 * Helpers of the kernel language (src/kernels/dsl.ts): small formulas that
 * several `*.kernel.ts` definitions share. The generator inlines every call
 * (scripts/kernels/), so the generated loops call nothing and compute
 * exactly what the helper's body says, in its order. An expression helper
 * is a single `return`; a statement helper writes particle positions. Their
 * arguments are names or numbers (an expression helper may use a parameter
 * twice); a statement helper's number arguments may be expressions,
 * computed once.
 *
 * A per-arity helper takes lists (`Each<T>`, `Vec`: one value per particle
 * of the constraint, three coordinates) or returns one: a formula written
 * once for constraints of any number of particles. The generator unrolls
 * each call for the lists the caller passes (scripts/kernels/expand.ts:
 * `sum`, `each` and `map` over a list are written out, `L[i]` is the
 * caller's element), so the definition reads, and generates, what it would
 * have written out by hand for its N particles. Such a helper may declare
 * names (they become the caller's; `const [n0, …] = helper(…)` renames the
 * returned ones), `return;` (skips the constraint) and assign a parameter
 * (the caller's name: the multiplier).
 */
import { type Each, each, map, type Particle, sum, type Vec } from './dsl.js';

/** |v|² = v_x² + v_y² + v_z² (in that order). */
export function norm2(x: number, y: number, z: number): number {
  return x * x + y * y + z * z;
}

/** Moves a particle along g by k: p += k g (the Δp_i = w_i ∇_i C Δλ of a projection, k = w_i Δλ). */
export function move(a: Particle, gx: number, gy: number, gz: number, k: number): void {
  a.x += gx * k;
  a.y += gy * k;
  a.z += gz * k;
}

/** Moves a particle against g by k: p −= k g (the second particle of a pair constraint, ∇C_b = −∇C_a). */
export function moveBack(a: Particle, gx: number, gy: number, gz: number, k: number): void {
  a.x -= gx * k;
  a.y -= gy * k;
  a.z -= gz * k;
}

/** The inverse masses of the particles: `const [w0, w1, w2] = inverseMasses([a, b, c])` is `const w0 = a.w, …`. */
export function inverseMasses(p: Each<Particle>): number[] {
  return map(p, (i) => p[i].w);
}

/** A particle's predicted position: `const [px, py, pz] = position(d)`. */
export function position(a: Particle): Vec {
  return [a.x, a.y, a.z];
}

/**
 * The edge vectors x_i − o from an origin o (the columns of D_s, 002 §3 eq. 9,
 * or the survey's p_{i,1} = p_i − p_1, 000 §3.4.4):
 * `const [[d0x, d0y, d0z], [d1x, d1y, d1z]] = edgesFrom([px, py, pz], [a, b])`, one declaration a vector.
 */
export function edgesFrom(o: Vec, p: Each<Particle>): Vec[] {
  return map(p, (i): Vec => [p[i].x - o[0], p[i].y - o[1], p[i].z - o[2]]);
}

/** Σ w_i |g_i|² over the particles, left to right (the Σ w_j |∇_j C|² of a projection, 003 eq. 9). */
export function weightedNorm2(w: Each<number>, g: Each<Vec>): number {
  return sum(w, (i) => w[i] * norm2(g[i][0], g[i][1], g[i][2]));
}

/** Σ g_i · (x_i − x0_i) over the particles, left to right: ∇C · (p − x) of XPBD damping (docs/solver.md). */
export function dampingSum(p: Each<Particle>, g: Each<Vec>): number {
  return sum(
    p,
    (i) => g[i][0] * (p[i].x - p[i].x0) + g[i][1] * (p[i].y - p[i].y0) + g[i][2] * (p[i].z - p[i].z0),
  );
}

/** Moves every particle along its g_i by w_i k: p_i += w_i k g_i (Δp_i = w_i ∇_i C Δλ for ∇_i C = s g_i, k = s Δλ). */
export function moves(p: Each<Particle>, g: Each<Vec>, w: Each<number>, k: number): void {
  each(p, (i) => move(p[i], g[i][0], g[i][1], g[i][2], w[i] * k));
}

/**
 * An energy constraint (002 §3) under both rules: C = E for PBD (m = 0) or
 * C = √(2E) for XPBD with compliance 1 (m = 1), as C = (1 + m) E s with
 * ∇C = s ∇E and s = 1/√(2E m + 1 − m) (m1 = 1 − m, hoisted by the caller);
 * PBD has s = 1 without a square root on the critical path.
 * `const [s, C] = energyRule(E, m, m1)`.
 */
export function energyRule(E: number, m: number, m1: number): Vec {
  const s = m === 0 ? 1 : 1 / Math.sqrt(2 * E * m + m1);
  const C = (1 + m) * E * s;
  return [s, C];
}

/**
 * The denominator of the XPBD update for ∇_i C = s g_i (docs/solver.md,
 * "Two projection rules"; seed 004): wG = s² Σ w_i |g_i|²,
 * damp = γ s Σ g_i · (p_i − x_i) (0 without damping), denom = (1 + γ) wG + α̃.
 */
export function xpbdDenominator(
  p: Each<Particle>,
  w: Each<number>,
  g: Each<Vec>,
  s: number,
  gamma: number,
  at: number,
): Vec {
  const wG = s * s * weightedNorm2(w, g);
  let damp = 0;
  if (gamma !== 0) {
    damp = gamma * s * dampingSum(p, g);
  }
  const denom = (1 + gamma) * wG + at;
  return [wG, damp, denom];
}

/**
 * The XPBD update of one constraint with ∇_i C = s g_i (PBD when α̃ = 0 and
 * γ = 0): Δλ = k′ (−C − α̃λ − damp) / denom, λ += Δλ, p_i += w_i s g_i Δλ;
 * the constraint is skipped where denom vanishes (no particle can move).
 */
export function xpbdUpdate(
  p: Each<Particle>,
  w: Each<number>,
  g: Each<Vec>,
  s: number,
  C: number,
  lam: number,
  kp: number,
  at: number,
  gamma: number,
): void {
  const [, damp, denom] = xpbdDenominator(p, w, g, s, gamma, at);
  if (!(denom > 1e-300)) return;
  const dl = (kp * (-C - at * lam - damp)) / denom;
  lam += dl;
  const sd = s * dl;
  moves(p, g, w, sd);
}

/**
 * StVK's second Piola–Kirchhoff stress S = 2μ ε + λ tr(ε) I (002 §3) of the
 * Green strain ε = (xx, yy, zz, xy, xz, yz), as (S_xx, S_yy, S_zz, S_xy,
 * S_xz, S_yz): `const [s00, s11, s22, s01, s02, s12] = stvkSecondPiola(e00,
 * e11, e22, e01, e02, e12, mu, lambda)` (declares lt and m2 too). The tet
 * kernel inlines it; energy.ts's stvkStress calls stvkStressInto, which
 * scripts/kernels/emit-stvk.ts prints from it (src/continuum/stvk.generated.ts).
 */
export function stvkSecondPiola(
  e00: number,
  e11: number,
  e22: number,
  e01: number,
  e02: number,
  e12: number,
  mu: number,
  lambda: number,
): Vec {
  const lt = lambda * (e00 + e11 + e22);
  const m2 = 2 * mu;
  return [m2 * e00 + lt, m2 * e11 + lt, m2 * e22 + lt, m2 * e01, m2 * e02, m2 * e12];
}

/** out[i] = v[i] for every i: `store(fs, [f0, f1, …])` is `fs[0] = f0; fs[1] = f1; …` (a 'defer' block hands its values over). */
export function store(out: Float64Array, v: Each<number>): void {
  each(v, (i) => {
    out[i] = v[i];
  });
}

/*
 * Matrices, as lists of rows (`[[f0, f1, f2], [f3, f4, f5], [f6, f7, f8]]`
 * for a row-major 3 × 3): the products of the FEM energies (002 §3), written
 * once for every size. Each entry is a left-to-right sum over k, as the
 * tet and triangle kernels wrote it out by hand.
 */

/**
 * The product A B (A n × K, B K × m): (AB)_ij = A_i0 B_0j + A_i1 B_1j + …
 * The deformation gradient F = D_s D_m⁻¹ (002 §3 eq. 9), StVK's P = F S:
 * `const [[f0, f1, f2], [f3, f4, f5], [f6, f7, f8]] = matMul(Ds, Bm)`.
 */
export function matMul(A: Each<Vec>, B: Each<Vec>): Vec[] {
  return map(A, (i) => map(B[0], (j) => sum(B, (k) => A[i][k] * B[k][j])));
}

/**
 * The product A Bᵀ (A n × K, B m × K): (ABᵀ)_ij = A_i0 B_j0 + A_i1 B_j1 + …
 * The gradients of an FEM energy, ∇E = V P D_m⁻ᵀ (002 §3): column j of P Bᵀ
 * is g_j, `const [[g0x, g1x, g2x], [g0y, …], [g0z, …]] = matMulT(P, Bm)`.
 */
export function matMulT(A: Each<Vec>, B: Each<Vec>): Vec[] {
  return map(A, (i) => map(B, (j) => sum(B[j], (k) => A[i][k] * B[j][k])));
}

/**
 * The right Cauchy–Green tensor C = FᵀF (F n × m, C m × m, symmetric):
 * C_ij = F_0i F_0j + F_1i F_1j + … Declare its upper triangle:
 * `const [[c00, c01, c02], [, c11, c12], [, , c22]] = gram(F)`.
 */
export function gram(F: Each<Vec>): Vec[] {
  return map(F[0], (i) => map(F[0], (j) => sum(F, (k) => F[k][i] * F[k][j])));
}
