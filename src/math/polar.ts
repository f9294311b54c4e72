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
 * - `extractRotation` is a warm-started iteration on a quaternion: Newton
 *   steps on tr(Rᵀ A) near the optimum, the robust step of Müller, Bender,
 *   Chentanez, Macklin, "A Robust Method to Extract the Rotational Part of
 *   Deformations" (2016) elsewhere. Cheap when started from last step's
 *   rotation, temporally coherent across rank-deficient directions.
 * - `polarAngle2` is the closed-form 2D polar decomposition [SD92] used by
 *   triangle regions of shape-matching cloth.
 */
import { mat3FromQuat, type Num9 } from './mat3.js';
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
 * Rotates the unit quaternion q (x, y, z, w at qo) to the rotation R that
 * maximises tr(Rᵀ A) (the rotational part of A, row-major at ao), starting
 * from q — the warm start makes this cheap from one projection to the next
 * and keeps the rotation coherent about directions A says nothing about
 * (rank-deficient A: collinear or coplanar points).
 *
 * Each iteration turns q by ω, q ← exp(ω) q. With B = A Rᵀ, the gradient of
 * tr(Rᵀ A) is g = Σ_k r_k × a_k (columns of R and A) and its Hessian is
 * −H with H = tr(B) I − sym(B). Where H is positive definite (near the
 * maximum) ω = (H + δI)⁻¹ g, a Newton step (quadratic convergence; δ =
 * 1e-6 |tr B| keeps undetermined directions still); elsewhere ω = g /
 * (|tr B| + ε), the step of Müller, Bender, Chentanez, Macklin, "A Robust
 * Method to Extract the Rotational Part of Deformations" (2016), which
 * approximates H by tr(B) I. Stops when |ω| < 1e-9 rad; returns the
 * iterations used (maxIter when it did not converge).
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
  // a floor for |tr B| relative to ‖A‖ (A ≈ 0, or R a quarter turn away), so that ω stays finite
  const floor =
    1e-12 *
      Math.sqrt(
        a00 * a00 +
          a01 * a01 +
          a02 * a02 +
          a10 * a10 +
          a11 * a11 +
          a12 * a12 +
          a20 * a20 +
          a21 * a21 +
          a22 * a22,
      ) +
    1e-300;
  let qx = q[qo],
    qy = q[qo + 1],
    qz = q[qo + 2],
    qw = q[qo + 3];
  let it = 0;
  for (; it < maxIter; it++) {
    const r00 = 1 - 2 * (qy * qy + qz * qz),
      r01 = 2 * (qx * qy - qz * qw),
      r02 = 2 * (qx * qz + qy * qw);
    const r10 = 2 * (qx * qy + qz * qw),
      r11 = 1 - 2 * (qx * qx + qz * qz),
      r12 = 2 * (qy * qz - qx * qw);
    const r20 = 2 * (qx * qz - qy * qw),
      r21 = 2 * (qy * qz + qx * qw),
      r22 = 1 - 2 * (qx * qx + qy * qy);
    // B = A Rᵀ: B_ij = Σ_k a_ik r_jk
    const b00 = a00 * r00 + a01 * r01 + a02 * r02,
      b01 = a00 * r10 + a01 * r11 + a02 * r12,
      b02 = a00 * r20 + a01 * r21 + a02 * r22;
    const b10 = a10 * r00 + a11 * r01 + a12 * r02,
      b11 = a10 * r10 + a11 * r11 + a12 * r12,
      b12 = a10 * r20 + a11 * r21 + a12 * r22;
    const b20 = a20 * r00 + a21 * r01 + a22 * r02,
      b21 = a20 * r10 + a21 * r11 + a22 * r12,
      b22 = a20 * r20 + a21 * r21 + a22 * r22;
    // g = axial vector of B − Bᵀ = Σ_k r_k × a_k
    const gx = b21 - b12,
      gy = b02 - b20,
      gz = b10 - b01;
    const tr = b00 + b11 + b22;
    // H = tr(B) I − sym(B) + δ I
    const d = 1e-6 * Math.abs(tr);
    const h00 = tr - b00 + d,
      h11 = tr - b11 + d,
      h22 = tr - b22 + d;
    const h01 = -0.5 * (b01 + b10),
      h02 = -0.5 * (b02 + b20),
      h12 = -0.5 * (b12 + b21);
    const m01 = h00 * h11 - h01 * h01;
    const c00 = h11 * h22 - h12 * h12,
      c01 = h02 * h12 - h01 * h22,
      c02 = h01 * h12 - h02 * h11;
    const det = h00 * c00 + h01 * c01 + h02 * c02;
    let wx: number, wy: number, wz: number;
    if (h00 > 0 && m01 > 0 && det > 0) {
      // Newton step ω = H⁻¹ g (H symmetric positive definite)
      const c11 = h00 * h22 - h02 * h02,
        c12 = h01 * h02 - h00 * h12;
      const inv = 1 / det;
      wx = (c00 * gx + c01 * gy + c02 * gz) * inv;
      wy = (c01 * gx + c11 * gy + c12 * gz) * inv;
      wz = (c02 * gx + c12 * gy + m01 * gz) * inv;
    } else {
      const s = 1 / (Math.abs(tr) + floor) + 1e-9;
      wx = gx * s;
      wy = gy * s;
      wz = gz * s;
    }
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
 * The rotational part of A (row-major 3×3 at 0) by the iteration of Müller,
 * Bender, Chentanez and Macklin 2016 alone: ω = Σ_k r_k × a_k / |Σ_k r_k · a_k|
 * (columns k), q ← exp(ω) q, at most 20 times, until |ω| ≤ 1e-12 rad.
 * Warm-started from q (x, y, z, w at 0); writes q and its rotation matrix R
 * (row-major, R[0..8]). See the file comment for why it is not `extractRotation`.
 */
export function extractRotationRobust(A: Float64Array, q: Float64Array, R: Float64Array): void {
  for (let it = 0; it < 20; it++) {
    mat3FromQuat(R, 0, q, 0);
    let ox = 0,
      oy = 0,
      oz = 0,
      dot = 0;
    for (let k = 0; k < 3; k++) {
      const rx = R[k],
        ry = R[3 + k],
        rz = R[6 + k];
      const ax = A[k],
        ay = A[3 + k],
        az = A[6 + k];
      ox += ry * az - rz * ay;
      oy += rz * ax - rx * az;
      oz += rx * ay - ry * ax;
      dot += rx * ax + ry * ay + rz * az;
    }
    const s = 1 / (Math.abs(dot) + 1e-30);
    ox *= s;
    oy *= s;
    oz *= s;
    const w = Math.sqrt(ox * ox + oy * oy + oz * oz);
    if (!(w > 1e-12)) break;
    const h = 0.5 * w,
      sn = Math.sin(h) / w;
    const dx = ox * sn,
      dy = oy * sn,
      dz = oz * sn,
      dw = Math.cos(h);
    // q ← dq · q
    const x = q[0],
      y = q[1],
      z = q[2],
      qw = q[3];
    q[0] = dw * x + dx * qw + dy * z - dz * y;
    q[1] = dw * y - dx * z + dy * qw + dz * x;
    q[2] = dw * z + dx * y - dy * x + dz * qw;
    q[3] = dw * qw - dx * x - dy * y - dz * z;
    const l = Math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    q[0] /= l;
    q[1] /= l;
    q[2] /= l;
    q[3] /= l;
  }
  mat3FromQuat(R, 0, q, 0);
}

/**
 * 2D polar decomposition [SD92] of M = [[a, b], [c, d]]: the angle θ of the
 * rotation R(θ) = [[cos θ, −sin θ], [sin θ, cos θ]] that maximises
 * tr(Rᵀ M), θ = atan2(c − b, a + d). Defined (0) for M = 0.
 */
export function polarAngle2(a: number, b: number, c: number, d: number): number {
  return Math.atan2(c - b, a + d);
}

/**
 * Unit quaternion (x, y, z, w at qo) of the rotation matrix R (row-major at ro), Shepperd's method.
 * With `hypot`, the quaternion is normalised by Math.hypot(x, y, z, w), as quatNormalize does (the
 * rods' first frames, strands/rod.ts), not by √(x² + y² + z² + w²): the two differ in the last bit
 * for about a third of rotations, and each caller keeps its numbers.
 */
export function quatFromMat3(q: Num4, qo: number, R: Num9, ro: number, hypot = false): void {
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
  const len = hypot ? Math.hypot(x, y, z, w) : Math.sqrt(x * x + y * y + z * z + w * w);
  q[qo] = x / len;
  q[qo + 1] = y / len;
  q[qo + 2] = z / len;
  q[qo + 3] = w / len;
}
