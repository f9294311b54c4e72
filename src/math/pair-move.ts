/**
 * p_i += a·d and p_j −= b·d for the points at offsets i3 and j3 of p, d =
 * (dx, dy, dz): the equal-and-opposite correction of a two-particle
 * constraint (003 eqs. 10–11: a = w_i s, b = w_j s along the gradient),
 * written once for the loops that project pairs. With a = w_i s the result
 * is the bits of `p[i3] += w_i * s * dx` (the product is left-associative);
 * the opposite direction is (−a, −b): x − y is x + (−y) in IEEE arithmetic.
 * Small and monomorphic, so V8 inlines it into those loops.
 */
export function movePair(
  p: Float64Array,
  i3: number,
  j3: number,
  a: number,
  b: number,
  dx: number,
  dy: number,
  dz: number,
): void {
  p[i3] += a * dx;
  p[i3 + 1] += a * dy;
  p[i3 + 2] += a * dz;
  p[j3] -= b * dx;
  p[j3 + 1] -= b * dy;
  p[j3 + 2] -= b * dz;
}
