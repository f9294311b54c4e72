/**
 * Singular value decomposition of 3×3 matrices (row-major, 9 numbers at an
 * offset), for shape matching (polar decomposition of A_r, survey 000 §4.1)
 * and for continuum mechanics (inversion handling needs the signed form).
 *
 * Method: one-sided Jacobi (Hestenes). Plane rotations V are applied to the
 * columns of W = A V until they are mutually orthogonal; then the column
 * lengths are the singular values and the normalised columns the left
 * singular vectors. It works on A itself (not on AᵀA), so small singular
 * values keep their relative accuracy, and it converges quadratically: 3–6
 * sweeps of three rotations reach machine precision.
 *
 * The result is the *signed* (rotation-variant) SVD A = U Σ Vᵀ:
 * - U and V are proper rotations (det = +1), never reflections;
 * - σ0 ≥ σ1 ≥ |σ2| ≥ 0 and σ2 carries the sign of det A, so an inverted
 *   (reflected) matrix shows up as σ2 < 0 (Irving, Teran, Fedkiw 2004);
 * - rank-deficient input (zero, rank 1: collinear points, rank 2: coplanar
 *   points) still gives orthonormal U: missing left singular vectors are
 *   completed by cross products, so U is always a rotation.
 *
 * Functions allocate nothing; scratch space is module-level.
 */
import type { Num9 } from './mat3.js';

/** W = A·V (columns are W[k], W[3 + k], W[6 + k]) and V, during the sweeps. */
const W = new Float64Array(9);
const Vs = new Float64Array(9);

/** Applies the Jacobi rotation that orthogonalises columns p and q of W (and rotates V alike). */
function rotatePair(p: number, q: number): boolean {
  const a0 = W[p],
    a1 = W[3 + p],
    a2 = W[6 + p];
  const b0 = W[q],
    b1 = W[3 + q],
    b2 = W[6 + q];
  const alpha = a0 * a0 + a1 * a1 + a2 * a2;
  const beta = b0 * b0 + b1 * b1 + b2 * b2;
  const gamma = a0 * b0 + a1 * b1 + a2 * b2;
  if (!(Math.abs(gamma) > 1e-15 * Math.sqrt(alpha * beta))) return false;
  // t = tan θ, the smaller root of t² + 2ζt − 1 = 0 with ζ = (β − α)/(2γ)
  const zeta = (beta - alpha) / (2 * gamma);
  const t = (zeta >= 0 ? 1 : -1) / (Math.abs(zeta) + Math.sqrt(1 + zeta * zeta));
  const c = 1 / Math.sqrt(1 + t * t);
  const s = c * t;
  W[p] = c * a0 - s * b0;
  W[3 + p] = c * a1 - s * b1;
  W[6 + p] = c * a2 - s * b2;
  W[q] = s * a0 + c * b0;
  W[3 + q] = s * a1 + c * b1;
  W[6 + q] = s * a2 + c * b2;
  for (let r = 0; r < 9; r += 3) {
    const vp = Vs[r + p],
      vq = Vs[r + q];
    Vs[r + p] = c * vp - s * vq;
    Vs[r + q] = s * vp + c * vq;
  }
  return true;
}

function colNorm2(k: number): number {
  return W[k] * W[k] + W[3 + k] * W[3 + k] + W[6 + k] * W[6 + k];
}

/** Swaps columns p and q of W and V and negates the new column q, so that W = A V and det V = +1 still hold. */
function swapColumns(p: number, q: number): void {
  for (let r = 0; r < 9; r += 3) {
    let t = W[r + p];
    W[r + p] = W[r + q];
    W[r + q] = -t;
    t = Vs[r + p];
    Vs[r + p] = Vs[r + q];
    Vs[r + q] = -t;
  }
}

/**
 * Signed SVD of the 3×3 matrix A (row-major at ao): A = U diag(σ) Vᵀ with U
 * and V rotations (row-major at uo, vo) and σ0 ≥ σ1 ≥ |σ2| (at so), σ2 < 0
 * exactly when det A < 0. Returns the number of Jacobi sweeps used.
 * Non-finite input gives U = V = I and σ = 0.
 */
export function svd3(
  A: Num9,
  ao: number,
  U: Num9,
  uo: number,
  sigma: Num9,
  so: number,
  V: Num9,
  vo: number,
): number {
  // work on A / max|a_ij| so that squared column lengths neither overflow nor underflow
  let scale = 0;
  let finite = true;
  for (let k = 0; k < 9; k++) {
    const a = A[ao + k];
    if (!Number.isFinite(a)) finite = false;
    else if (Math.abs(a) > scale) scale = Math.abs(a);
    Vs[k] = k === 0 || k === 4 || k === 8 ? 1 : 0;
  }
  const inv = scale > 0 ? 1 / scale : 0;
  for (let k = 0; k < 9; k++) W[k] = A[ao + k] * inv;
  if (!finite) {
    for (let k = 0; k < 9; k++) {
      const id = k === 0 || k === 4 || k === 8 ? 1 : 0;
      U[uo + k] = id;
      V[vo + k] = id;
    }
    sigma[so] = sigma[so + 1] = sigma[so + 2] = 0;
    return 0;
  }
  let sweeps = 0;
  for (; sweeps < 30; ) {
    sweeps++;
    let rotated = rotatePair(0, 1);
    if (rotatePair(0, 2)) rotated = true;
    if (rotatePair(1, 2)) rotated = true;
    if (!rotated) break;
  }
  // sort the columns by length, keeping det V = +1
  let n0 = colNorm2(0),
    n1 = colNorm2(1),
    n2 = colNorm2(2);
  if (n0 < n1) {
    swapColumns(0, 1);
    const t = n0;
    n0 = n1;
    n1 = t;
  }
  if (n0 < n2) {
    swapColumns(0, 2);
    const t = n0;
    n0 = n2;
    n2 = t;
  }
  if (n1 < n2) {
    swapColumns(1, 2);
    const t = n1;
    n1 = n2;
    n2 = t;
  }
  // U: u0 = w0/|w0|; u1 = the part of w1 orthogonal to u0, normalised (or any
  // unit vector ⟂ u0 when A has rank ≤ 1); u2 = u0 × u1, so det U = +1
  const s0 = Math.sqrt(n0);
  let u0x: number, u0y: number, u0z: number;
  if (s0 > 0) {
    u0x = W[0] / s0;
    u0y = W[3] / s0;
    u0z = W[6] / s0;
  } else {
    u0x = 1;
    u0y = 0;
    u0z = 0;
  }
  let w1x = W[1],
    w1y = W[4],
    w1z = W[7];
  const d01 = w1x * u0x + w1y * u0y + w1z * u0z;
  w1x -= d01 * u0x;
  w1y -= d01 * u0y;
  w1z -= d01 * u0z;
  let l1 = Math.sqrt(w1x * w1x + w1y * w1y + w1z * w1z);
  if (!(l1 > 1e-15 * s0)) {
    // rank ≤ 1: complete with the coordinate axis least aligned with u0
    const ax = Math.abs(u0x),
      ay = Math.abs(u0y),
      az = Math.abs(u0z);
    // e × u0 for e the least aligned axis
    if (ax <= ay && ax <= az) {
      w1x = 0;
      w1y = -u0z;
      w1z = u0y;
    } else if (ay <= az) {
      w1x = u0z;
      w1y = 0;
      w1z = -u0x;
    } else {
      w1x = -u0y;
      w1y = u0x;
      w1z = 0;
    }
    l1 = Math.sqrt(w1x * w1x + w1y * w1y + w1z * w1z);
  }
  let u1x = w1x / l1,
    u1y = w1y / l1,
    u1z = w1z / l1;
  // keep σ1 ≥ 0 (it can only be negative by rounding in the rank ≤ 1 branch);
  // negating u1 also negates u2 below, so U stays a rotation
  if (W[1] * u1x + W[4] * u1y + W[7] * u1z < 0) {
    u1x = -u1x;
    u1y = -u1y;
    u1z = -u1z;
  }
  const u2x = u0y * u1z - u0z * u1y,
    u2y = u0z * u1x - u0x * u1z,
    u2z = u0x * u1y - u0y * u1x;
  sigma[so] = s0 * scale;
  sigma[so + 1] = (W[1] * u1x + W[4] * u1y + W[7] * u1z) * scale;
  sigma[so + 2] = (W[2] * u2x + W[5] * u2y + W[8] * u2z) * scale;
  U[uo] = u0x;
  U[uo + 3] = u0y;
  U[uo + 6] = u0z;
  U[uo + 1] = u1x;
  U[uo + 4] = u1y;
  U[uo + 7] = u1z;
  U[uo + 2] = u2x;
  U[uo + 5] = u2y;
  U[uo + 8] = u2z;
  for (let k = 0; k < 9; k++) V[vo + k] = Vs[k];
  return sweeps;
}

const EA = new Float64Array(9); // scratch of symmetricEigen3

/**
 * Eigen-decomposition of the symmetric 3×3 matrix `a` (row-major) by cyclic
 * Jacobi rotations. Writes eigenvalues to `eig[0..2]` (unsorted) and the
 * eigenvectors as the columns of `v`.
 */
export function symmetricEigen3(a: ArrayLike<number>, eig: Float64Array, v: Float64Array): void {
  for (let k = 0; k < 9; k++) EA[k] = a[k];
  v.fill(0);
  v[0] = v[4] = v[8] = 1;
  for (let sweep = 0; sweep < 24; sweep++) {
    const off = EA[1] * EA[1] + EA[2] * EA[2] + EA[5] * EA[5];
    const diag = EA[0] * EA[0] + EA[4] * EA[4] + EA[8] * EA[8];
    if (off <= 1e-30 * diag || off === 0) break;
    for (let p = 0; p < 2; p++) {
      for (let q = p + 1; q < 3; q++) {
        const apq = EA[3 * p + q];
        if (apq === 0) continue;
        const app = EA[4 * p];
        const aqq = EA[4 * q];
        // rotation angle that zeroes EA[p][q]
        const theta = (aqq - app) / (2 * apq);
        const t = (theta >= 0 ? 1 : -1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < 3; k++) {
          // A ← Jᵀ A J on rows/columns p, q
          const akp = EA[3 * k + p];
          const akq = EA[3 * k + q];
          EA[3 * k + p] = c * akp - s * akq;
          EA[3 * k + q] = s * akp + c * akq;
        }
        for (let k = 0; k < 3; k++) {
          const apk = EA[3 * p + k];
          const aqk = EA[3 * q + k];
          EA[3 * p + k] = c * apk - s * aqk;
          EA[3 * q + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < 3; k++) {
          const vkp = v[3 * k + p];
          const vkq = v[3 * k + q];
          v[3 * k + p] = c * vkp - s * vkq;
          v[3 * k + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  eig[0] = EA[0];
  eig[1] = EA[4];
  eig[2] = EA[8];
}

/**
 * SVD of a 3×2 matrix f (row-major, f[2 r + c]) — the deformation gradient
 * of a triangle in 3D: f = U diag(σ) Vᵀ with U 3×2 (orthonormal columns,
 * row-major u[2 r + c]), V a 2×2 rotation, σ0 ≥ σ1 ≥ 0.
 */
export function svd32(f: ArrayLike<number>, u: Float64Array, sigma: Float64Array, v: Float64Array): void {
  const a = f[0] * f[0] + f[2] * f[2] + f[4] * f[4];
  const b = f[0] * f[1] + f[2] * f[3] + f[4] * f[5];
  const c = f[1] * f[1] + f[3] * f[3] + f[5] * f[5];
  // eigenvectors of [[a, b], [b, c]]: angle θ with tan 2θ = 2b / (a − c)
  const theta = 0.5 * Math.atan2(2 * b, a - c);
  const cs = Math.cos(theta);
  const sn = Math.sin(theta);
  // v0 = (cs, sn) has the larger eigenvalue, v1 = (−sn, cs)
  v[0] = cs;
  v[2] = sn;
  v[1] = -sn;
  v[3] = cs;
  let ax = f[0] * cs + f[1] * sn;
  let ay = f[2] * cs + f[3] * sn;
  let az = f[4] * cs + f[5] * sn;
  let s0 = Math.sqrt(ax * ax + ay * ay + az * az);
  if (s0 > 1e-150) {
    ax /= s0;
    ay /= s0;
    az /= s0;
  } else {
    s0 = 0;
    ax = 1;
    ay = 0;
    az = 0;
  }
  let bx = -f[0] * sn + f[1] * cs;
  let by = -f[2] * sn + f[3] * cs;
  let bz = -f[4] * sn + f[5] * cs;
  const d = bx * ax + by * ay + bz * az;
  bx -= d * ax;
  by -= d * ay;
  bz -= d * az;
  let s1 = Math.sqrt(bx * bx + by * by + bz * bz);
  if (s1 > 1e-150 && s1 > 1e-14 * s0) {
    bx /= s1;
    by /= s1;
    bz /= s1;
  } else {
    s1 = 0;
    if (Math.abs(ax) < 0.9) {
      bx = 0;
      by = -az;
      bz = ay;
    } else {
      bx = az;
      by = 0;
      bz = -ax;
    }
    const l = Math.sqrt(bx * bx + by * by + bz * bz);
    bx /= l;
    by /= l;
    bz /= l;
  }
  u[0] = ax;
  u[2] = ay;
  u[4] = az;
  u[1] = bx;
  u[3] = by;
  u[5] = bz;
  sigma[0] = s0;
  sigma[1] = s1;
}
