/** Measures of a body's state that several tests read. */

/**
 * |ℓ/ℓ0 − 1| of the edge between particles i and j: ℓ from x at offset + i
 * and offset + j, ℓ0 from rest at i and j (rest indexed from the body's start).
 */
export function edgeStrain(
  x: ArrayLike<number>,
  rest: ArrayLike<number>,
  i: number,
  j: number,
  offset = 0,
): number {
  const a = offset + i,
    b = offset + j;
  const l = Math.hypot(x[3 * a] - x[3 * b], x[3 * a + 1] - x[3 * b + 1], x[3 * a + 2] - x[3 * b + 2]);
  const l0 = Math.hypot(
    rest[3 * i] - rest[3 * j],
    rest[3 * i + 1] - rest[3 * j + 1],
    rest[3 * i + 2] - rest[3 * j + 2],
  );
  return Math.abs(l / l0 - 1);
}
