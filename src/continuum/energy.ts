import { cross3, dot3, edgeVector } from '../math/edges.js';
import { svd3, svd32 } from '../math/svd3.js';
import { edgeCross, edgeCrossOut } from '../mesh/triangle-mesh.js';
import type { MaterialModel } from './material.js';
import { stvkStressInto } from './stvk.generated.js';

/**
 * Strain energies of single elements and their gradients (002 §4).
 *
 * These are the reference kernels: the tests check them against finite
 * differences, the global Newton solver of the experiments uses them, and
 * the constraint sets call them for the rare elements that need the
 * inversion handling of §4.2 (their common path is written out inline and
 * tested against these functions).
 *
 * Conventions: a tet (x0, x1, x2, x3) has the shape matrix
 * D_s = [x0 − x3, x1 − x3, x2 − x3] (eq. 9, with the paper's x4 as x3) and
 * F = D_s D_m⁻¹; B = D_m⁻¹ is stored row-major. The energy is E = V Ψ(F) and
 * [∂E/∂x0, ∂E/∂x1, ∂E/∂x2] = V P(F) D_m⁻ᵀ, ∂E/∂x3 = −Σ (eq. 9). A triangle
 * (x0, x1, x2) works the same way with the 3 × 2 matrix
 * F = [x0 − x2, x1 − x2] D_m⁻¹, D_m built from the rest triangle in its own
 * plane (§4.3): FᵀF is exactly the 2 × 2 right Cauchy–Green tensor of the
 * triangle projected into its plane, and P = F S gives the 3D gradients
 * directly.
 */

// ---- isotropic energies as functions of the singular values ---------------

/**
 * Ψ̃(σ) and ∂Ψ̃/∂σ for an isotropic model, with the stress clamp of 002 §4.2
 * (Figure 2 b, d): below `clamp` a singular value enters linearly,
 *   Ψ̃(σ) = Ψ(c) + Σ_i ∂Ψ/∂σ_i(c) (σ_i − c_i),   c_i = max(σ_i, clamp),
 * the first-order continuation of Ψ, so the principal stress of a
 * compressed, degenerate (σ = 0) or inverted (σ < 0) direction stays at its
 * value at the clamp and Ψ̃ is C¹. Only restoring slopes are continued
 * (∂Ψ/∂σ_i(c) is replaced by min(∂Ψ/∂σ_i(c), 0)), which keeps Ψ̃ ≥ 0 and
 * bounded below. Without clamped values Ψ̃ = Ψ.
 *
 * StVK: Ψ = μ Σ E_i² + λ/2 (Σ E_i)², E_i = (σ_i² − 1)/2.
 * Neo-Hookean: Ψ = μ/2 (Σ σ_i² − n) − μ log J + λ/2 log² J, J = Π σ_i
 * (eq. 8's form with log I3 = 2 log J).
 *
 * @param n 3 for tets, 2 for triangles
 * @param dpsi receives ∂Ψ̃/∂σ_i (the diagonalised first Piola–Kirchhoff stress P̂)
 */
export function isotropicEnergy(
  model: MaterialModel,
  mu: number,
  lambda: number,
  clamp: number,
  sigma: ArrayLike<number>,
  n: number,
  dpsi: Float64Array,
): number {
  const c0 = Math.max(sigma[0], clamp);
  const c1 = Math.max(sigma[1], clamp);
  const c2 = n === 3 ? Math.max(sigma[2], clamp) : 1;
  const d0 = sigma[0] - c0,
    d1 = sigma[1] - c1,
    d2 = n === 3 ? sigma[2] - c2 : 0;
  let psi: number;
  let g0: number, g1: number, g2: number;
  // off-diagonal second derivatives H_ij = ∂²Ψ/∂σ_i∂σ_j at c (i ≠ j)
  let h01: number, h02: number, h12: number;
  if (model === 'stvk') {
    const e0 = 0.5 * (c0 * c0 - 1),
      e1 = 0.5 * (c1 * c1 - 1),
      e2 = n === 3 ? 0.5 * (c2 * c2 - 1) : 0;
    const tr = e0 + e1 + e2;
    psi = mu * (e0 * e0 + e1 * e1 + e2 * e2) + 0.5 * lambda * tr * tr;
    g0 = c0 * (2 * mu * e0 + lambda * tr);
    g1 = c1 * (2 * mu * e1 + lambda * tr);
    g2 = c2 * (2 * mu * e2 + lambda * tr);
    h01 = lambda * c0 * c1;
    h02 = lambda * c0 * c2;
    h12 = lambda * c1 * c2;
  } else {
    const logJ = Math.log(c0) + Math.log(c1) + (n === 3 ? Math.log(c2) : 0);
    psi =
      0.5 * mu * (c0 * c0 + c1 * c1 + (n === 3 ? c2 * c2 : 0) - n) - mu * logJ + 0.5 * lambda * logJ * logJ;
    const q = lambda * logJ - mu;
    g0 = mu * c0 + q / c0;
    g1 = mu * c1 + q / c1;
    g2 = mu * c2 + q / c2;
    h01 = lambda / (c0 * c1);
    h02 = lambda / (c0 * c2);
    h12 = lambda / (c1 * c2);
  }
  // first-order continuation in the clamped directions (d_i ≠ 0 only there), with a
  // restoring slope only: s_i = min(∂Ψ/∂σ_i(c), 0), so Ψ̃ ≥ Ψ(c) ≥ 0 and pushing a clamped
  // direction further into inversion can never release energy (a tensile slope there —
  // when the other directions are stretched — would make Ψ̃ unbounded below)
  const s0 = Math.min(g0, 0),
    s1 = Math.min(g1, 0),
    s2 = Math.min(g2, 0);
  psi += s0 * d0 + s1 * d1 + s2 * d2;
  if (model === 'stvk') {
    // StVK: P̂ is the stress at the clamped deformation F̃ = U diag(c) Vᵀ (002 §4.2, Figure 2 b: "we
    // clamp the stress at its maximum value"), without the cross terms ∂s_i/∂c_j · d_i of ∇Ψ̃. Those
    // terms push the unclamped directions outward in proportion to the inversion depth |d_i|; with
    // ν = 0.4 (λ = 4μ) they balance the lateral tension exactly where the restoring slope s_i reaches
    // 0, a spurious equilibrium: continuum-jelly's StVK cube stayed flattened there with 80 mirrored
    // tets (σ ≈ (1.3, 1.15, −0.7)), jittering at 0.3 J, from 2 s to the end. So Ψ̃ is the constraint's
    // value and P̂ its gradient only where nothing is clamped.
    dpsi[0] = d0 === 0 ? g0 : s0;
    dpsi[1] = d1 === 0 ? g1 : s1;
    if (n === 3) dpsi[2] = d2 === 0 ? g2 : s2;
    return psi;
  }
  const t0 = s0 !== 0 ? d0 : 0,
    t1 = s1 !== 0 ? d1 : 0,
    t2 = s2 !== 0 ? d2 : 0;
  dpsi[0] = d0 === 0 ? g0 + h01 * t1 + h02 * t2 : s0;
  dpsi[1] = d1 === 0 ? g1 + h01 * t0 + h12 * t2 : s1;
  if (n === 3) dpsi[2] = d2 === 0 ? g2 + h02 * t0 + h12 * t1 : s2;
  return psi;
}

// ---- tetrahedra -------------------------------------------------------------

const F = new Float64Array(9);
const P = new Float64Array(9);
const U = new Float64Array(9);
const Vm = new Float64Array(9);
const SIG = new Float64Array(3);
const DPSI = new Float64Array(3);
/** The tet's edge matrix [x0 − x3, x1 − x3, x2 − x3] (row-major 3 × 3): D_s, or D_m at rest (002 eq. 9). */
const D = new Float64Array(9);

/** Writes the edge matrix of the tet (i0, i1, i2, i3) of positions x into D. */
function tetEdgeMatrix(x: ArrayLike<number>, i0: number, i1: number, i2: number, i3: number): void {
  const a = 3 * i0,
    b = 3 * i1,
    c = 3 * i2,
    d = 3 * i3;
  for (let r = 0; r < 3; r++) {
    D[3 * r] = x[a + r] - x[d + r];
    D[3 * r + 1] = x[b + r] - x[d + r];
    D[3 * r + 2] = x[c + r] - x[d + r];
  }
}

/** The deformation gradient F = D_s D_m⁻¹ (002 eq. 9) of the tet into F; B holds D_m⁻¹ at offset bo. */
function tetDeformation(
  x: ArrayLike<number>,
  i0: number,
  i1: number,
  i2: number,
  i3: number,
  B: ArrayLike<number>,
  bo: number,
): void {
  tetEdgeMatrix(x, i0, i1, i2, i3);
  for (let col = 0; col < 3; col++) {
    const b0 = B[bo + col],
      b1 = B[bo + 3 + col],
      b2 = B[bo + 6 + col];
    for (let r = 0; r < 9; r += 3) F[r + col] = D[r] * b0 + D[r + 1] * b1 + D[r + 2] * b2;
  }
}

/**
 * Gershgorin lower bound of the smallest eigenvalue of the symmetric
 * FᵀF = [[a, b, c], [b, d, e], [c, e, f]]: every singular value of F is at
 * least √bound. The constraint sets take the inversion-handling path only
 * when this bound falls below clamp² or det F ≤ 0.
 */
export function gershgorinLowerBound(
  a: number,
  b: number,
  c: number,
  d: number,
  e: number,
  f: number,
): number {
  const ab = Math.abs(b),
    ac = Math.abs(c),
    ae = Math.abs(e);
  const r0 = a - ab - ac,
    r1 = d - ab - ae,
    r2 = f - ac - ae;
  return r0 < r1 ? Math.min(r0, r2) : Math.min(r1, r2);
}

/**
 * Strain energy E = V Ψ̃(F) of one tetrahedron and its gradient (12 numbers,
 * ∂E/∂x0 … ∂E/∂x3) — 002 eqs. 5–9 with the inversion handling of §4.2.
 *
 * @param x     positions, xyz interleaved
 * @param B     rest shape matrices D_m⁻¹, 9 per tet, row-major, at offset `bo`
 * @param V     rest volume
 * @param plastic plastic Green strain (xx, yy, zz, xy, xz, yz) at offset `po`, or null (StVK only)
 */
export function tetEnergy(
  model: MaterialModel,
  mu: number,
  lambda: number,
  clamp: number,
  x: ArrayLike<number>,
  i0: number,
  i1: number,
  i2: number,
  i3: number,
  B: ArrayLike<number>,
  bo: number,
  V: number,
  grad: Float64Array,
  plastic: ArrayLike<number> | null = null,
  po = 0,
): number {
  tetDeformation(x, i0, i1, i2, i3, B, bo);
  const psi = tetStress(model, mu, lambda, clamp, F, P, plastic, po);
  // [g0 g1 g2] = V P Bᵀ: g_k,r = V Σ_c P_rc B_kc
  for (let k = 0; k < 3; k++) {
    const bk0 = B[bo + 3 * k],
      bk1 = B[bo + 3 * k + 1],
      bk2 = B[bo + 3 * k + 2];
    grad[3 * k] = V * (P[0] * bk0 + P[1] * bk1 + P[2] * bk2);
    grad[3 * k + 1] = V * (P[3] * bk0 + P[4] * bk1 + P[5] * bk2);
    grad[3 * k + 2] = V * (P[6] * bk0 + P[7] * bk1 + P[8] * bk2);
  }
  grad[9] = -grad[0] - grad[3] - grad[6];
  grad[10] = -grad[1] - grad[4] - grad[7];
  grad[11] = -grad[2] - grad[5] - grad[8];
  return V * psi;
}

/**
 * Ψ̃(F) and the first Piola–Kirchhoff stress P (row-major 3 × 3) of a tet.
 * Elements whose singular values all exceed the clamp (the common case) use
 * the closed forms; the others go through the SVD (002 §4.2).
 */
export function tetStress(
  model: MaterialModel,
  mu: number,
  lambda: number,
  clamp: number,
  f: Float64Array,
  p: Float64Array,
  plastic: ArrayLike<number> | null = null,
  po = 0,
): number {
  const c00 = f[0] * f[0] + f[3] * f[3] + f[6] * f[6];
  const c01 = f[0] * f[1] + f[3] * f[4] + f[6] * f[7];
  const c02 = f[0] * f[2] + f[3] * f[5] + f[6] * f[8];
  const c11 = f[1] * f[1] + f[4] * f[4] + f[7] * f[7];
  const c12 = f[1] * f[2] + f[4] * f[5] + f[7] * f[8];
  const c22 = f[2] * f[2] + f[5] * f[5] + f[8] * f[8];
  const det =
    f[0] * (f[4] * f[8] - f[5] * f[7]) -
    f[1] * (f[3] * f[8] - f[5] * f[6]) +
    f[2] * (f[3] * f[7] - f[4] * f[6]);
  const plain = det > 0 && gershgorinLowerBound(c00, c01, c02, c11, c12, c22) >= clamp * clamp;
  if (plastic) {
    // 002 §4.2: additive decomposition ε_elastic = ε − ε_plastic (StVK)
    let g = f;
    if (!plain) {
      // stress evaluated at the clamped deformation F̃ = U diag(max(σ, clamp)) Vᵀ
      svd3(f, 0, U, 0, SIG, 0, Vm, 0);
      for (let k = 0; k < 3; k++) if (SIG[k] < clamp) SIG[k] = clamp;
      for (let r = 0; r < 3; r++)
        for (let cc = 0; cc < 3; cc++)
          F2[3 * r + cc] =
            U[3 * r] * SIG[0] * Vm[3 * cc] +
            U[3 * r + 1] * SIG[1] * Vm[3 * cc + 1] +
            U[3 * r + 2] * SIG[2] * Vm[3 * cc + 2];
      g = F2;
    }
    return stvkStress(mu, lambda, g, p, plastic, po);
  }
  if (plain) {
    if (model === 'stvk') return stvkStress(mu, lambda, f, p, null, 0);
    // Neo-Hookean: P = μF + (λ log J − μ) F⁻ᵀ, F⁻ᵀ = cof(F) / J
    const logJ = Math.log(det);
    const q = (lambda * logJ - mu) / det;
    p[0] = mu * f[0] + q * (f[4] * f[8] - f[5] * f[7]);
    p[1] = mu * f[1] + q * (f[5] * f[6] - f[3] * f[8]);
    p[2] = mu * f[2] + q * (f[3] * f[7] - f[4] * f[6]);
    p[3] = mu * f[3] + q * (f[2] * f[7] - f[1] * f[8]);
    p[4] = mu * f[4] + q * (f[0] * f[8] - f[2] * f[6]);
    p[5] = mu * f[5] + q * (f[1] * f[6] - f[0] * f[7]);
    p[6] = mu * f[6] + q * (f[1] * f[5] - f[2] * f[4]);
    p[7] = mu * f[7] + q * (f[2] * f[3] - f[0] * f[5]);
    p[8] = mu * f[8] + q * (f[0] * f[4] - f[1] * f[3]);
    return 0.5 * mu * (c00 + c11 + c22 - 3) - mu * logJ + 0.5 * lambda * logJ * logJ;
  }
  // 002 §4.2: F = U F̂ Vᵀ with the reflection on the smallest singular value,
  // P̂ from the clamped energy, P = U P̂ Vᵀ
  svd3(f, 0, U, 0, SIG, 0, Vm, 0);
  const psi = isotropicEnergy(model, mu, lambda, clamp, SIG, 3, DPSI);
  for (let r = 0; r < 3; r++) {
    const u0 = U[3 * r] * DPSI[0],
      u1 = U[3 * r + 1] * DPSI[1],
      u2 = U[3 * r + 2] * DPSI[2];
    for (let cc = 0; cc < 3; cc++)
      p[3 * r + cc] = u0 * Vm[3 * cc] + u1 * Vm[3 * cc + 1] + u2 * Vm[3 * cc + 2];
  }
  return psi;
}

const F2 = new Float64Array(9);

/**
 * StVK, with a plastic strain where `pl` is given (002 §4.2): Ψ = μ ε_e:ε_e + λ/2 tr(ε_e)²,
 * P = F (2μ ε_e + λ tr(ε_e) I), ε_e = ½(FᵀF − I) − ε_plastic.
 */
function stvkStress(
  mu: number,
  lambda: number,
  f: Float64Array,
  p: Float64Array,
  pl: ArrayLike<number> | null,
  po: number,
): number {
  greenStrain(f, EPS, 0);
  let e00 = EPS[0];
  let e11 = EPS[1];
  let e22 = EPS[2];
  let e01 = EPS[3];
  let e02 = EPS[4];
  let e12 = EPS[5];
  if (pl) {
    e00 -= pl[po];
    e11 -= pl[po + 1];
    e22 -= pl[po + 2];
    e01 -= pl[po + 3];
    e02 -= pl[po + 4];
    e12 -= pl[po + 5];
  }
  // P = F S, S = 2μ ε + λ tr(ε) I: the tet kernel's stvkSecondPiola (src/kernels/helpers.ts), printed for here
  stvkStressInto(f, e00, e11, e22, e01, e02, e12, mu, lambda, p);
  const tr = e00 + e11 + e22;
  return (
    mu * (e00 * e00 + e11 * e11 + e22 * e22 + 2 * (e01 * e01 + e02 * e02 + e12 * e12)) +
    0.5 * lambda * tr * tr
  );
}

/**
 * Green strain ε = ½(FᵀF − I) of a tet as (xx, yy, zz, xy, xz, yz), for the
 * plasticity update.
 */
export function tetGreenStrain(
  x: ArrayLike<number>,
  i0: number,
  i1: number,
  i2: number,
  i3: number,
  B: ArrayLike<number>,
  bo: number,
  out: Float64Array,
  oo = 0,
): void {
  tetDeformation(x, i0, i1, i2, i3, B, bo);
  greenStrain(F, out, oo);
}

/** Scratch of stvkStress: the Green strain it reads back. */
const EPS = new Float64Array(6);

/**
 * The Green strain ε = ½(FᵀF − I) of F (row-major 3 × 3) as (xx, yy, zz,
 * xy, xz, yz) into out[oo..oo+6) (002 §3); StVK's stress and the
 * plasticity update both read it from here.
 */
function greenStrain(f: ArrayLike<number>, out: Float64Array, oo: number): void {
  out[oo] = 0.5 * (f[0] * f[0] + f[3] * f[3] + f[6] * f[6] - 1);
  out[oo + 1] = 0.5 * (f[1] * f[1] + f[4] * f[4] + f[7] * f[7] - 1);
  out[oo + 2] = 0.5 * (f[2] * f[2] + f[5] * f[5] + f[8] * f[8] - 1);
  out[oo + 3] = 0.5 * (f[0] * f[1] + f[3] * f[4] + f[6] * f[7]);
  out[oo + 4] = 0.5 * (f[0] * f[2] + f[3] * f[5] + f[6] * f[8]);
  out[oo + 5] = 0.5 * (f[1] * f[2] + f[4] * f[5] + f[7] * f[8]);
}

/**
 * Rest data of a tet: writes D_m⁻¹ (row-major) at B[bo..bo+9) and returns
 * the signed rest volume det(D_m)/6 (0 when degenerate; B is then zero).
 */
export function tetRestShape(
  X: ArrayLike<number>,
  i0: number,
  i1: number,
  i2: number,
  i3: number,
  B: Float64Array,
  bo: number,
): number {
  // D_m columns: X0 − X3, X1 − X3, X2 − X3
  tetEdgeMatrix(X, i0, i1, i2, i3);
  const [m00, m01, m02, m10, m11, m12, m20, m21, m22] = D;
  const det = m00 * (m11 * m22 - m12 * m21) - m01 * (m10 * m22 - m12 * m20) + m02 * (m10 * m21 - m11 * m20);
  if (det === 0 || !Number.isFinite(det)) {
    for (let k = 0; k < 9; k++) B[bo + k] = 0;
    return 0;
  }
  const id = 1 / det;
  B[bo] = (m11 * m22 - m12 * m21) * id;
  B[bo + 1] = (m02 * m21 - m01 * m22) * id;
  B[bo + 2] = (m01 * m12 - m02 * m11) * id;
  B[bo + 3] = (m12 * m20 - m10 * m22) * id;
  B[bo + 4] = (m00 * m22 - m02 * m20) * id;
  B[bo + 5] = (m02 * m10 - m00 * m12) * id;
  B[bo + 6] = (m10 * m21 - m11 * m20) * id;
  B[bo + 7] = (m01 * m20 - m00 * m21) * id;
  B[bo + 8] = (m00 * m11 - m01 * m10) * id;
  return det / 6;
}

// ---- triangles ----------------------------------------------------------------

const F32 = new Float64Array(6);
const P32 = new Float64Array(6);
const U32 = new Float64Array(6);
const V22 = new Float64Array(4);

/**
 * Material of a triangle set: StVK with the Voigt tensor [C11, C12, C22, C33]
 * (isotropic plane stress or 002 §4.3's orthotropic one), or Neo-Hookean
 * with plane-stress μ, λ. `isotropic` enables the stress clamp (§4.2), which
 * needs an energy of the singular values.
 */
export interface MembraneMaterial {
  model: MaterialModel;
  /** [C11, C12, C22, C33] for StVK; for an isotropic material C12 = λ*, C33 = μ. */
  tensor: Float64Array;
  mu: number;
  lambda: number;
  isotropic: boolean;
  clamp: number;
}

/** Edge vectors, normal and frame of triangleRestShape (set-up only). */
const restScratch = new Float64Array(15);

/**
 * Rest data of a triangle: builds D_m in the triangle's plane with the first
 * axis along `weft` projected into the plane (any in-plane axis works for an
 * isotropic material), writes D_m⁻¹ (2 × 2 row-major) at B[bo..bo+4) and
 * returns the rest area (0 when degenerate).
 */
export function triangleRestShape(
  X: ArrayLike<number>,
  i0: number,
  i1: number,
  i2: number,
  weft: ArrayLike<number>,
  B: Float64Array,
  bo: number,
): number {
  // u = x_0 − x_2, v = x_1 − x_2 and n = u × v at 0, 3, 6 of E (src/math/edges.ts)
  const E = restScratch;
  edgeVector(X, 3 * i2, 3 * i0, E, 0);
  edgeVector(X, 3 * i2, 3 * i1, E, 3);
  cross3(E, 0, 3, 6);
  const nl = Math.sqrt(dot3(E, 6, 6));
  if (!(nl > 0)) {
    B.fill(0, bo, bo + 4);
    return 0;
  }
  const nx = E[6] / nl,
    ny = E[7] / nl,
    nz = E[8] / nl;
  const wn = weft[0] * nx + weft[1] * ny + weft[2] * nz;
  let e1x = weft[0] - wn * nx,
    e1y = weft[1] - wn * ny,
    e1z = weft[2] - wn * nz;
  let el = Math.sqrt(e1x * e1x + e1y * e1y + e1z * e1z);
  if (!(el > 1e-6)) {
    // weft along the normal: use the first edge
    e1x = E[0];
    e1y = E[1];
    e1z = E[2];
    el = Math.sqrt(dot3(E, 0, 0));
  }
  // e1 (unit) at 12, n at 6, e2 = n × e1 at 9; D_m = [[u·e1, v·e1], [u·e2, v·e2]]
  E[12] = e1x / el;
  E[13] = e1y / el;
  E[14] = e1z / el;
  E[6] = nx;
  E[7] = ny;
  E[8] = nz;
  cross3(E, 6, 12, 9);
  const m00 = dot3(E, 0, 12),
    m01 = dot3(E, 3, 12);
  const m10 = dot3(E, 0, 9),
    m11 = dot3(E, 3, 9);
  const det = m00 * m11 - m01 * m10;
  const id = 1 / det;
  B[bo] = m11 * id;
  B[bo + 1] = -m01 * id;
  B[bo + 2] = -m10 * id;
  B[bo + 3] = m00 * id;
  return 0.5 * Math.abs(det);
}

/**
 * Strain energy E = A Ψ(F) of one triangle and its gradient (9 numbers) —
 * 002 §4.3 with the clamp of §4.2 for isotropic materials.
 */
export function triangleEnergy(
  mat: MembraneMaterial,
  x: ArrayLike<number>,
  i0: number,
  i1: number,
  i2: number,
  B: ArrayLike<number>,
  bo: number,
  area: number,
  grad: Float64Array,
): number {
  const a = 3 * i0,
    b = 3 * i1,
    c = 3 * i2;
  const b00 = B[bo],
    b01 = B[bo + 1],
    b10 = B[bo + 2],
    b11 = B[bo + 3];
  for (let r = 0; r < 3; r++) {
    const d0 = x[a + r] - x[c + r],
      d1 = x[b + r] - x[c + r];
    F32[2 * r] = d0 * b00 + d1 * b10;
    F32[2 * r + 1] = d0 * b01 + d1 * b11;
  }
  const psi = triangleStress(mat, F32, P32);
  for (let k = 0; k < 2; k++) {
    const bk0 = B[bo + 2 * k],
      bk1 = B[bo + 2 * k + 1];
    for (let r = 0; r < 3; r++) grad[3 * k + r] = area * (P32[2 * r] * bk0 + P32[2 * r + 1] * bk1);
  }
  grad[6] = -grad[0] - grad[3];
  grad[7] = -grad[1] - grad[4];
  grad[8] = -grad[2] - grad[5];
  return area * psi;
}

/** Ψ(F) and P (3 × 2 row-major) of a triangle; see triangleEnergy. */
export function triangleStress(mat: MembraneMaterial, f: Float64Array, p: Float64Array): number {
  const c00 = f[0] * f[0] + f[2] * f[2] + f[4] * f[4];
  const c01 = f[0] * f[1] + f[2] * f[3] + f[4] * f[5];
  const c11 = f[1] * f[1] + f[3] * f[3] + f[5] * f[5];
  const half = 0.5 * (c00 + c11);
  const dd = 0.5 * (c00 - c11);
  const minEig = half - Math.sqrt(dd * dd + c01 * c01);
  const clamp = mat.clamp;
  if (mat.isotropic && !(minEig >= clamp * clamp)) {
    svd32(f, U32, SIG, V22);
    const psi = isotropicEnergy(mat.model, mat.mu, mat.lambda, clamp, SIG, 2, DPSI);
    for (let r = 0; r < 3; r++) {
      const u0 = U32[2 * r] * DPSI[0],
        u1 = U32[2 * r + 1] * DPSI[1];
      p[2 * r] = u0 * V22[0] + u1 * V22[1];
      p[2 * r + 1] = u0 * V22[2] + u1 * V22[3];
    }
    return psi;
  }
  if (mat.model === 'stvk') {
    const t = mat.tensor;
    const e00 = 0.5 * (c00 - 1),
      e11 = 0.5 * (c11 - 1),
      e01 = 0.5 * c01;
    const s00 = t[0] * e00 + t[1] * e11;
    const s11 = t[1] * e00 + t[2] * e11;
    const s01 = 2 * t[3] * e01;
    for (let r = 0; r < 3; r++) {
      const f0 = f[2 * r],
        f1 = f[2 * r + 1];
      p[2 * r] = f0 * s00 + f1 * s01;
      p[2 * r + 1] = f0 * s01 + f1 * s11;
    }
    return 0.5 * (t[0] * e00 * e00 + 2 * t[1] * e00 * e11 + t[2] * e11 * e11) + 2 * t[3] * e01 * e01;
  }
  // Neo-Hookean membrane: J = √det C, P = μF + (λ log J − μ) F C⁻¹
  const detC = c00 * c11 - c01 * c01;
  const logJ = 0.5 * Math.log(detC);
  const q = (mat.lambda * logJ - mat.mu) / detC;
  const mu = mat.mu;
  for (let r = 0; r < 3; r++) {
    const f0 = f[2 * r],
      f1 = f[2 * r + 1];
    p[2 * r] = mu * f0 + q * (f0 * c11 - f1 * c01);
    p[2 * r + 1] = mu * f1 + q * (f1 * c00 - f0 * c01);
  }
  return 0.5 * mu * (c00 + c11 - 2) - mu * logJ + 0.5 * mat.lambda * logJ * logJ;
}

// ---- isometric bending ----------------------------------------------------------

/**
 * The isometric bending stencil of 002 §4.3 (Bergou et al.): for the interior
 * edge x0–x1 with the opposite vertices x2 (triangle x0 x1 x2) and x3
 * (triangle x0 x1 x3), the edges e0 = x0x1, e1 = x1x2, e2 = x2x0, e3 = x0x3,
 * e4 = x3x1 and c_jk = cot ∠(e_j, e_k),
 *   K = (c01 + c04, c02 + c03, −c01 − c02, −c03 − c04),   Q = 3/(A0 + A1) KᵀK.
 * Writes K to k[ko..ko+4) and returns 3/(A0 + A1), so Q_ij = (3/(A0+A1)) K_i K_j
 * (Q has rank one; we keep it factored). Returns 0 for a degenerate stencil.
 */
export function isometricBendingStencil(
  X: ArrayLike<number>,
  i0: number,
  i1: number,
  i2: number,
  i3: number,
  k: Float64Array,
  ko: number,
): number {
  const p0 = 3 * i0,
    p1 = 3 * i1,
    p2 = 3 * i2,
    p3 = 3 * i3;
  // the angles at x1 and x0 in both triangles, as cotangents cot = (a·b)/|a×b|
  const cotAt = (o: number, s: number, t: number): number => {
    const ax = X[s] - X[o],
      ay = X[s + 1] - X[o + 1],
      az = X[s + 2] - X[o + 2];
    const bx = X[t] - X[o],
      by = X[t + 1] - X[o + 1],
      bz = X[t + 2] - X[o + 2];
    const cr = Math.hypot(ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx);
    return cr > 0 ? (ax * bx + ay * by + az * bz) / cr : Number.NaN;
  };
  const c01 = cotAt(p1, p0, p2); // ∠(e0, e1): at x1 in triangle 0
  const c02 = cotAt(p0, p1, p2); // ∠(e0, e2): at x0 in triangle 0
  const c03 = cotAt(p0, p1, p3); // ∠(e0, e3): at x0 in triangle 1
  const c04 = cotAt(p1, p0, p3); // ∠(e0, e4): at x1 in triangle 1
  // the two triangles' areas ½ |(x1 − x0) × (x2 − x0)| and ½ |(x1 − x0) × (x3 − x0)|
  const e = edgeCrossOut;
  edgeCross(X, p0, p1, p2);
  const A0 = 0.5 * Math.hypot(e[0], e[1], e[2]);
  edgeCross(X, p0, p1, p3);
  const A = A0 + 0.5 * Math.hypot(e[0], e[1], e[2]);
  if (!(A > 0) || !Number.isFinite(c01 + c02 + c03 + c04)) {
    k.fill(0, ko, ko + 4);
    return 0;
  }
  k[ko] = c01 + c04;
  k[ko + 1] = c02 + c03;
  k[ko + 2] = -c01 - c02;
  k[ko + 3] = -c03 - c04;
  return 3 / A;
}

/**
 * Isometric bending energy E_b = ½ Σ_ij Q_ij x_i·x_j = ½ q |Σ_i K_i x_i|² of
 * one stencil and its gradient ∂E_b/∂x_i = Σ_j Q_ij x_j = q K_i Σ_j K_j x_j.
 */
export function isometricBendingEnergy(
  x: ArrayLike<number>,
  i0: number,
  i1: number,
  i2: number,
  i3: number,
  k: ArrayLike<number>,
  ko: number,
  q: number,
  grad: Float64Array,
): number {
  const k0 = k[ko],
    k1 = k[ko + 1],
    k2 = k[ko + 2],
    k3 = k[ko + 3];
  let e = 0;
  for (let r = 0; r < 3; r++) {
    const v = k0 * x[3 * i0 + r] + k1 * x[3 * i1 + r] + k2 * x[3 * i2 + r] + k3 * x[3 * i3 + r];
    e += v * v;
    grad[r] = q * k0 * v;
    grad[3 + r] = q * k1 * v;
    grad[6 + r] = q * k2 * v;
    grad[9 + r] = q * k3 * v;
  }
  return 0.5 * q * e;
}

/** An energy constraint set (TetFemConstraints, TriangleFemConstraints): element k's E_k and its gradient (into grad) at positions x. */
export interface EnergyElements {
  readonly count: number;
  elementEnergy(x: ArrayLike<number>, k: number, grad: Float64Array): number;
}

/** Total strain energy Σ_k E_k (J) of a set at positions x, in element order; grad is scratch. */
export function totalEnergy(set: EnergyElements, x: ArrayLike<number>, grad: Float64Array): number {
  let e = 0;
  for (let k = 0; k < set.count; k++) e += set.elementEnergy(x, k, grad);
  return e;
}
