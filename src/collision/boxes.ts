/**
 * Axis-aligned boxes in flat arrays, six numbers each (min x, y, z, max x,
 * y, z): the one overlap test and the one write of the BVH (bvh.ts,
 * bvh-self-pairs.ts), the collider contacts' chunk boxes, the mesh feature
 * contacts' triangle boxes and the fluid's bounds (fluids/grid-blocks.ts
 * boundsOf), and the one union of a list of boxes. Small and monomorphic, so
 * that V8 inlines them into the per-node and per-chunk loops that call them.
 */

/** Do the closed boxes at A[oa … oa + 5] and B[ob … ob + 5] overlap? */
export function boxesOverlap(A: Float64Array, oa: number, B: Float64Array, ob: number): boolean {
  return !(
    A[oa] > B[ob + 3] ||
    A[oa + 3] < B[ob] ||
    A[oa + 1] > B[ob + 4] ||
    A[oa + 4] < B[ob + 1] ||
    A[oa + 2] > B[ob + 5] ||
    A[oa + 5] < B[ob + 2]
  );
}

/** The box [x0, x1] × [y0, y1] × [z0, z1] into B[o … o + 5]. */
export function writeBox(
  B: Float64Array,
  o: number,
  x0: number,
  y0: number,
  z0: number,
  x1: number,
  y1: number,
  z1: number,
): void {
  B[o] = x0;
  B[o + 1] = y0;
  B[o + 2] = z0;
  // the max corner
  const m = o + 3;
  B[m] = x1;
  B[m + 1] = y1;
  B[m + 2] = z1;
}

/**
 * The union of the boxes ids[i0 … i1) of `boxes` into out[o … o + 5] (+∞ … −∞ for none): a BVH
 * leaf's box from its items (bvh.ts refitNode) and a group of dirty triangles' query box
 * (surface-broad-pairs.ts collectDirtyPairs). The bounds grow in out itself, in the list's order.
 */
export function unionOfBoxes(
  boxes: Float64Array,
  ids: Int32Array,
  i0: number,
  i1: number,
  out: Float64Array,
  o: number,
): void {
  out[o] = out[o + 1] = out[o + 2] = Infinity;
  out[o + 3] = out[o + 4] = out[o + 5] = -Infinity;
  for (let i = i0; i < i1; i++) {
    const b = 6 * ids[i];
    if (boxes[b] < out[o]) out[o] = boxes[b];
    if (boxes[b + 1] < out[o + 1]) out[o + 1] = boxes[b + 1];
    if (boxes[b + 2] < out[o + 2]) out[o + 2] = boxes[b + 2];
    if (boxes[b + 3] > out[o + 3]) out[o + 3] = boxes[b + 3];
    if (boxes[b + 4] > out[o + 4]) out[o + 4] = boxes[b + 4];
    if (boxes[b + 5] > out[o + 5]) out[o + 5] = boxes[b + 5];
  }
}
