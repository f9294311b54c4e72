/**
 * Singular value decompositions of small matrices with inversion handling
 * (Irving, Teran, Fedkiw 2004, as used by 002 §4.2): F = U diag(σ) Vᵀ with U
 * and V proper rotations (det = +1). When det F < 0 the reflection is moved
 * to the smallest singular value, which becomes negative — "negating the
 * smallest element of F̂ and its corresponding column in U".
 *
 * Matrices are row-major in flat arrays: m[3 r + c]. Nothing allocates.
 */

const A = new Float64Array(9); // scratch: FᵀF, then working copy
const Vt = new Float64Array(9);

/**
 * Eigen-decomposition of the symmetric 3×3 matrix `a` (row-major) by cyclic
 * Jacobi rotations. Writes eigenvalues to `eig[0..2]` (unsorted) and the
 * eigenvectors as the columns of `v`.
 */
export function symmetricEigen3(a: ArrayLike<number>, eig: Float64Array, v: Float64Array): void {
  for (let k = 0; k < 9; k++) A[k] = a[k];
  v.fill(0);
  v[0] = v[4] = v[8] = 1;
  for (let sweep = 0; sweep < 24; sweep++) {
    const off = A[1] * A[1] + A[2] * A[2] + A[5] * A[5];
    const diag = A[0] * A[0] + A[4] * A[4] + A[8] * A[8];
    if (off <= 1e-30 * diag || off === 0) break;
    for (let p = 0; p < 2; p++) {
      for (let q = p + 1; q < 3; q++) {
        const apq = A[3 * p + q];
        if (apq === 0) continue;
        const app = A[4 * p];
        const aqq = A[4 * q];
        // rotation angle that zeroes A[p][q]
        const theta = (aqq - app) / (2 * apq);
        const t = (theta >= 0 ? 1 : -1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < 3; k++) {
          // A ← Jᵀ A J on rows/columns p, q
          const akp = A[3 * k + p];
          const akq = A[3 * k + q];
          A[3 * k + p] = c * akp - s * akq;
          A[3 * k + q] = s * akp + c * akq;
        }
        for (let k = 0; k < 3; k++) {
          const apk = A[3 * p + k];
          const aqk = A[3 * q + k];
          A[3 * p + k] = c * apk - s * aqk;
          A[3 * q + k] = s * apk + c * aqk;
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
  eig[0] = A[0];
  eig[1] = A[4];
  eig[2] = A[8];
}

const eig = new Float64Array(3);

/**
 * SVD of the 3×3 matrix f with inversion handling: f = U diag(σ) Vᵀ, U and V
 * rotations, σ0 ≥ σ1 ≥ |σ2|, and σ2 < 0 exactly when det f < 0.
 */
export function svd3(f: ArrayLike<number>, u: Float64Array, sigma: Float64Array, v: Float64Array): void {
  // FᵀF
  for (let r = 0; r < 3; r++) {
    for (let c = r; c < 3; c++) {
      const s = f[r] * f[c] + f[3 + r] * f[3 + c] + f[6 + r] * f[6 + c];
      Vt[3 * r + c] = s;
      Vt[3 * c + r] = s;
    }
  }
  symmetricEigen3(Vt, eig, v);
  // sort eigenvalues (and columns of V) in decreasing order
  for (let i = 0; i < 2; i++) {
    let m = i;
    for (let j = i + 1; j < 3; j++) if (eig[j] > eig[m]) m = j;
    if (m !== i) {
      const t = eig[i];
      eig[i] = eig[m];
      eig[m] = t;
      for (let k = 0; k < 3; k++) {
        const tv = v[3 * k + i];
        v[3 * k + i] = v[3 * k + m];
        v[3 * k + m] = tv;
      }
    }
  }
  // make V a rotation
  const detV =
    v[0] * (v[4] * v[8] - v[5] * v[7]) -
    v[1] * (v[3] * v[8] - v[5] * v[6]) +
    v[2] * (v[3] * v[7] - v[4] * v[6]);
  if (detV < 0) {
    v[2] = -v[2];
    v[5] = -v[5];
    v[8] = -v[8];
  }
  // u0 = F v0 / |F v0|
  let ax = f[0] * v[0] + f[1] * v[3] + f[2] * v[6];
  let ay = f[3] * v[0] + f[4] * v[3] + f[5] * v[6];
  let az = f[6] * v[0] + f[7] * v[3] + f[8] * v[6];
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
  // u1 = F v1 made orthogonal to u0
  let bx = f[0] * v[1] + f[1] * v[4] + f[2] * v[7];
  let by = f[3] * v[1] + f[4] * v[4] + f[5] * v[7];
  let bz = f[6] * v[1] + f[7] * v[4] + f[8] * v[7];
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
    // any unit vector orthogonal to u0
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
  // u2 = u0 × u1 (U is a rotation); σ2 = u2 · F v2 carries the sign of det F
  const cx = ay * bz - az * by;
  const cy = az * bx - ax * bz;
  const cz = ax * by - ay * bx;
  const s2 =
    cx * (f[0] * v[2] + f[1] * v[5] + f[2] * v[8]) +
    cy * (f[3] * v[2] + f[4] * v[5] + f[5] * v[8]) +
    cz * (f[6] * v[2] + f[7] * v[5] + f[8] * v[8]);
  u[0] = ax;
  u[3] = ay;
  u[6] = az;
  u[1] = bx;
  u[4] = by;
  u[7] = bz;
  u[2] = cx;
  u[5] = cy;
  u[8] = cz;
  sigma[0] = s0;
  sigma[1] = s1;
  sigma[2] = s2;
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
