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
