/**
 * Polar decompositions A = R S (R a rotation, S symmetric) of 3×3 and 2×2
 * matrices, the core of shape matching (survey 000 §4.1, §4.6).
 *
 * - `polarDecomposition` goes through the signed SVD (svd3.ts): R = U Vᵀ is
 *   the rotation that maximises tr(Rᵀ A), i.e. the optimal rotation of the
 *   least-squares fit Σ m |R r̄ − r|². It is always a proper rotation, also
 *   for singular A (few, collinear or coplanar points: R is then exact on
 *   the span of the points and arbitrary but orthonormal across it) and for
 *   reflected A (det A < 0: the fit of a mirrored point set, R = U diag(1, 1,
 *   −1)-corrected, which is the Kabsch solution).
 * - `extractRotation` is the warm-started iteration of Müller, Bender,
 *   Chentanez, Macklin, "A Robust Method to Extract the Rotational Part of
 *   Deformations" (2016): it rotates a quaternion towards the optimum by the
 *   torque Σ_k r_k × a_k of the columns. Cheap when started from last step's
 *   rotation, temporally coherent across rank-deficient directions.
 * - `polarAngle2` is the closed-form 2D polar decomposition [SD92] used by
 *   triangle regions of shape-matching cloth.
 */
import type { Num9 } from './mat3.js';
import type { Num4 } from './quat.js';
import { svd3 } from './svd3.js';

const U = new Float64Array(9);
const V = new Float64Array(9);
const sig = new Float64Array(3);

/**
 * Polar decomposition A = R S of the matrix at ao: writes the rotation R
 * (det +1) at ro and, when S is given, the symmetric factor S = Rᵀ A =
 * V Σ Vᵀ at so (its smallest eigenvalue is negative when A is reflected).
 */
export function polarDecomposition(A: Num9, ao: number, R: Num9, ro: number, S?: Num9, so = 0): void {
  svd3(A, ao, U, 0, sig, 0, V, 0);
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      R[ro + 3 * i + j] = U[3 * i] * V[3 * j] + U[3 * i + 1] * V[3 * j + 1] + U[3 * i + 2] * V[3 * j + 2];
    }
  }
  if (S) {
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 3; j++) {
        S[so + 3 * i + j] =
          V[3 * i] * sig[0] * V[3 * j] +
          V[3 * i + 1] * sig[1] * V[3 * j + 1] +
          V[3 * i + 2] * sig[2] * V[3 * j + 2];
      }
    }
  }
}

/** Spectral norm ‖A‖₂ (the largest singular value) of the matrix at ao. */
export function spectralNorm3(A: Num9, ao: number): number {
  svd3(A, ao, U, 0, sig, 0, V, 0);
  return sig[0];
}

/**
 * Müller et al. 2016: rotates the unit quaternion q (x, y, z, w at qo)
 * towards the rotational part of A (row-major at ao), at most maxIter times.
 * Each iteration: R = R(q), ω = Σ_k r_k × a_k / (|Σ_k r_k · a_k| + ε) over the
 * columns r_k of R and a_k of A, q ← exp(ω) q. Stops when |ω| < 1e-9 rad.
 * Returns the iterations used.
 */
export function extractRotation(A: Num9, ao: number, q: Num4, qo: number, maxIter = 20): number {
  const a00 = A[ao],
    a01 = A[ao + 1],
    a02 = A[ao + 2];
  const a10 = A[ao + 3],
    a11 = A[ao + 4],
    a12 = A[ao + 5];
  const a20 = A[ao + 6],
    a21 = A[ao + 7],
    a22 = A[ao + 8];
  let qx = q[qo],
    qy = q[qo + 1],
    qz = q[qo + 2],
    qw = q[qo + 3];
  let it = 0;
  for (; it < maxIter; it++) {
    // columns of R(q)
    const r00 = 1 - 2 * (qy * qy + qz * qz),
      r01 = 2 * (qx * qy - qz * qw),
      r02 = 2 * (qx * qz + qy * qw);
    const r10 = 2 * (qx * qy + qz * qw),
      r11 = 1 - 2 * (qx * qx + qz * qz),
      r12 = 2 * (qy * qz - qx * qw);
    const r20 = 2 * (qx * qz - qy * qw),
      r21 = 2 * (qy * qz + qx * qw),
      r22 = 1 - 2 * (qx * qx + qy * qy);
    // Σ_k r_k × a_k (column k of R crossed with column k of A)
    const ox = r10 * a20 - r20 * a10 + (r11 * a21 - r21 * a11) + (r12 * a22 - r22 * a12);
    const oy = r20 * a00 - r00 * a20 + (r21 * a01 - r01 * a21) + (r22 * a02 - r02 * a22);
    const oz = r00 * a10 - r10 * a00 + (r01 * a11 - r11 * a01) + (r02 * a12 - r12 * a02);
    const dot =
      r00 * a00 +
      r10 * a10 +
      r20 * a20 +
      (r01 * a01 + r11 * a11 + r21 * a21) +
      (r02 * a02 + r12 * a12 + r22 * a22);
    const s = 1 / (Math.abs(dot) + 1e-300) + 1e-9;
    const wx = ox * s,
      wy = oy * s,
      wz = oz * s;
    const w = Math.sqrt(wx * wx + wy * wy + wz * wz);
    if (!(w >= 1e-9)) break;
    // q ← quat(axis ω/|ω|, angle |ω|) · q
    const half = 0.5 * w;
    const sn = Math.sin(half) / w;
    const dx = wx * sn,
      dy = wy * sn,
      dz = wz * sn,
      dw = Math.cos(half);
    const nx = dw * qx + dx * qw + dy * qz - dz * qy;
    const ny = dw * qy - dx * qz + dy * qw + dz * qx;
    const nz = dw * qz + dx * qy - dy * qx + dz * qw;
    const nw = dw * qw - dx * qx - dy * qy - dz * qz;
    const len = Math.sqrt(nx * nx + ny * ny + nz * nz + nw * nw);
    qx = nx / len;
    qy = ny / len;
    qz = nz / len;
    qw = nw / len;
  }
  q[qo] = qx;
  q[qo + 1] = qy;
  q[qo + 2] = qz;
  q[qo + 3] = qw;
  return it;
}

/**
 * 2D polar decomposition [SD92] of M = [[a, b], [c, d]]: the angle θ of the
 * rotation R(θ) = [[cos θ, −sin θ], [sin θ, cos θ]] that maximises
 * tr(Rᵀ M), θ = atan2(c − b, a + d). Defined (0) for M = 0.
 */
export function polarAngle2(a: number, b: number, c: number, d: number): number {
  return Math.atan2(c - b, a + d);
}

/** Unit quaternion (x, y, z, w at qo) of the rotation matrix R (row-major at ro), Shepperd's method. */
export function quatFromMat3(q: Num4, qo: number, R: Num9, ro: number): void {
  const m00 = R[ro],
    m11 = R[ro + 4],
    m22 = R[ro + 8];
  const tr = m00 + m11 + m22;
  let x: number, y: number, z: number, w: number;
  if (tr > 0) {
    const s = 2 * Math.sqrt(tr + 1);
    w = 0.25 * s;
    x = (R[ro + 7] - R[ro + 5]) / s;
    y = (R[ro + 2] - R[ro + 6]) / s;
    z = (R[ro + 3] - R[ro + 1]) / s;
  } else if (m00 > m11 && m00 > m22) {
    const s = 2 * Math.sqrt(1 + m00 - m11 - m22);
    w = (R[ro + 7] - R[ro + 5]) / s;
    x = 0.25 * s;
    y = (R[ro + 1] + R[ro + 3]) / s;
    z = (R[ro + 2] + R[ro + 6]) / s;
  } else if (m11 > m22) {
    const s = 2 * Math.sqrt(1 + m11 - m00 - m22);
    w = (R[ro + 2] - R[ro + 6]) / s;
    x = (R[ro + 1] + R[ro + 3]) / s;
    y = 0.25 * s;
    z = (R[ro + 5] + R[ro + 7]) / s;
  } else {
    const s = 2 * Math.sqrt(1 + m22 - m00 - m11);
    w = (R[ro + 3] - R[ro + 1]) / s;
    x = (R[ro + 2] + R[ro + 6]) / s;
    y = (R[ro + 5] + R[ro + 7]) / s;
    z = 0.25 * s;
  }
  const len = Math.sqrt(x * x + y * y + z * z + w * w);
  q[qo] = x / len;
  q[qo + 1] = y / len;
  q[qo + 2] = z / len;
  q[qo + 3] = w / len;
}
