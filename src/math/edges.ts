/**
 * Edge vectors, cross and dot products of a triangle or tet read from
 * xyz-interleaved positions into a scratch array: the set-up code that rest
 * shapes (src/continuum/energy.ts, triangleRestShape: 002 §4.3 D_m) and
 * barycentric embeddings (src/continuum/embedding.ts) share. Each vector
 * lives at an offset of one Float64Array, so the callers keep one
 * definition of "x_a − x_o" and "u × v" with the operation order of the
 * hand-written code they replaced (same bits: a double stored into a
 * Float64Array and read back is unchanged). For set-up, not for loops that
 * run each step.
 */

/** E[k … k + 2] = x[a …] − x[o …]: the edge from the point at offset o of x to the point at offset a (offsets are 3·index). */
export function edgeVector(x: ArrayLike<number>, o: number, a: number, E: Float64Array, k: number): void {
  E[k] = x[a] - x[o];
  E[k + 1] = x[a + 1] - x[o + 1];
  E[k + 2] = x[a + 2] - x[o + 2];
}

/** E[k … k + 2] = p − x[o …]: the vector from the point at offset o of x to p. */
export function pointVector(
  x: ArrayLike<number>,
  o: number,
  px: number,
  py: number,
  pz: number,
  E: Float64Array,
  k: number,
): void {
  E[k] = px - x[o];
  E[k + 1] = py - x[o + 1];
  E[k + 2] = pz - x[o + 2];
}

/** E[k … k + 2] = E[i …] × E[j …] (k must not overlap i or j). */
export function cross3(E: Float64Array, i: number, j: number, k: number): void {
  const ux = E[i],
    uy = E[i + 1],
    uz = E[i + 2];
  const vx = E[j],
    vy = E[j + 1],
    vz = E[j + 2];
  E[k] = uy * vz - uz * vy;
  E[k + 1] = uz * vx - ux * vz;
  E[k + 2] = ux * vy - uy * vx;
}

/** E[i …] · E[j …], summed x + y + z in that order. */
export function dot3(E: Float64Array, i: number, j: number): number {
  return E[i] * E[j] + E[i + 1] * E[j + 1] + E[i + 2] * E[j + 2];
}
