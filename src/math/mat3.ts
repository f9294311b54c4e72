/**
 * 3×3 matrices stored row-major in 9 consecutive numbers at an offset.
 * Functions write into an output array and allocate nothing.
 */
import type { Num4 } from './quat.js';

export type Num9 = Num4;

/** Determinant of the matrix at o. */
export function det3(m: Num9, o: number): number {
  return (
    m[o] * (m[o + 4] * m[o + 8] - m[o + 5] * m[o + 7]) -
    m[o + 1] * (m[o + 3] * m[o + 8] - m[o + 5] * m[o + 6]) +
    m[o + 2] * (m[o + 3] * m[o + 7] - m[o + 4] * m[o + 6])
  );
}

/**
 * out = inverse of m. Returns false (and writes zeros) when |det| ≤ eps·scale³,
 * i.e. when m is singular to working precision.
 */
export function invert3(out: Num9, oo: number, m: Num9, o: number, eps = 1e-14): boolean {
  const a = m[o],
    b = m[o + 1],
    c = m[o + 2];
  const d = m[o + 3],
    e = m[o + 4],
    f = m[o + 5];
  const g = m[o + 6],
    h = m[o + 7],
    i = m[o + 8];
  const A = e * i - f * h,
    B = -(d * i - f * g),
    C = d * h - e * g;
  const det = a * A + b * B + c * C;
  let scale = 0;
  for (let k = 0; k < 9; k++) scale = Math.max(scale, Math.abs(m[o + k]));
  if (!(Math.abs(det) > eps * scale * scale * scale)) {
    for (let k = 0; k < 9; k++) out[oo + k] = 0;
    return false;
  }
  const inv = 1 / det;
  out[oo] = A * inv;
  out[oo + 1] = -(b * i - c * h) * inv;
  out[oo + 2] = (b * f - c * e) * inv;
  out[oo + 3] = B * inv;
  out[oo + 4] = (a * i - c * g) * inv;
  out[oo + 5] = -(a * f - c * d) * inv;
  out[oo + 6] = C * inv;
  out[oo + 7] = -(a * h - b * g) * inv;
  out[oo + 8] = (a * e - b * d) * inv;
  return true;
}

/** out = a · b. `out` must not alias a or b. */
export function mul3(out: Num9, oo: number, a: Num9, ao: number, b: Num9, bo: number): void {
  for (let r = 0; r < 3; r++) {
    const a0 = a[ao + 3 * r],
      a1 = a[ao + 3 * r + 1],
      a2 = a[ao + 3 * r + 2];
    out[oo + 3 * r] = a0 * b[bo] + a1 * b[bo + 3] + a2 * b[bo + 6];
    out[oo + 3 * r + 1] = a0 * b[bo + 1] + a1 * b[bo + 4] + a2 * b[bo + 7];
    out[oo + 3 * r + 2] = a0 * b[bo + 2] + a1 * b[bo + 5] + a2 * b[bo + 8];
  }
}

/** out = a · bᵀ. `out` must not alias the ranges of a or b. */
export function mul3Bt(out: Num9, oo: number, a: Num9, ao: number, b: Num9, bo: number): void {
  for (let i = 0; i < 3; i++)
    for (let j = 0; j < 3; j++)
      out[oo + 3 * i + j] =
        a[ao + 3 * i] * b[bo + 3 * j] +
        a[ao + 3 * i + 1] * b[bo + 3 * j + 1] +
        a[ao + 3 * i + 2] * b[bo + 3 * j + 2];
}

/** Rotation matrix of the unit quaternion (x, y, z, w) at qo. */
export function mat3FromQuat(out: Num9, oo: number, q: Num4, qo: number): void {
  const x = q[qo],
    y = q[qo + 1],
    z = q[qo + 2],
    w = q[qo + 3];
  out[oo] = 1 - 2 * (y * y + z * z);
  out[oo + 1] = 2 * (x * y - z * w);
  out[oo + 2] = 2 * (x * z + y * w);
  out[oo + 3] = 2 * (x * y + z * w);
  out[oo + 4] = 1 - 2 * (x * x + z * z);
  out[oo + 5] = 2 * (y * z - x * w);
  out[oo + 6] = 2 * (x * z - y * w);
  out[oo + 7] = 2 * (y * z + x * w);
  out[oo + 8] = 1 - 2 * (x * x + y * y);
}
