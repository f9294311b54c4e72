/**
 * The rotation matrix of a unit quaternion, entry by entry, for the emitters that print it into
 * locals (emit-contact-blocks.ts: a rigid body's R; emit-rod-direct.ts: a rod segment's material
 * frame, R's columns d_1, d_2, d_3).
 */

/**
 * Entry (i, j) of R(q), the quaternion's components named q(0 … 3) (x, y, z, w):
 * 1 − 2(q_k² + q_l²) on the diagonal, 2(q_i q_j ∓ q_k w) off it (− where (i, j, k) is an even
 * permutation).
 */
export function rotationEntry(q: (c: number) => string, i: number, j: number): string {
  if (i === j) {
    const [a, b] = [0, 1, 2].filter((t) => t !== i);
    return `1 - 2 * (${q(a)} * ${q(a)} + ${q(b)} * ${q(b)})`;
  }
  const k = 3 - i - j;
  const sign = (j - i + 3) % 3 === 1 ? '-' : '+';
  return `2 * (${q(Math.min(i, j))} * ${q(Math.max(i, j))} ${sign} ${q(k)} * ${q(3)})`;
}
