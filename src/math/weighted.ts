/**
 * dst[3 (doff + v) …] = Σ_k w_k src[3 (soff + i_k) …] (or += with `add`) for every target v: the
 * positions of points that follow `arity` sources each with fixed weights (indices idx and
 * weights w, `arity` a target, summed k = 0 … arity − 1 from zero). The render embedding's
 * tets (continuum/embedding.ts, 4 barycentric weights) and the shape-matched cloth's transfers
 * between levels (shape-matching/cloth-transfer.ts, 3) use it. With `fixed`, the targets v
 * whose fixed[fixedOff + v] is 0 are left as they are.
 */
export function weightedGather(
  src: ArrayLike<number>,
  soff: number,
  idx: Int32Array,
  w: Float64Array,
  arity: number,
  dst: Float64Array,
  doff: number,
  add: boolean,
  fixed: Float64Array | null,
  fixedOff: number,
): void {
  const n = idx.length / arity;
  for (let v = 0; v < n; v++) {
    if (fixed && fixed[fixedOff + v] === 0) continue;
    let x = 0,
      y = 0,
      z = 0;
    for (let k = 0; k < arity; k++) {
      const s = 3 * (soff + idx[arity * v + k]);
      const wk = w[arity * v + k];
      x += wk * src[s];
      y += wk * src[s + 1];
      z += wk * src[s + 2];
    }
    const d = 3 * (doff + v);
    if (add) {
      dst[d] += x;
      dst[d + 1] += y;
      dst[d + 2] += z;
    } else {
      dst[d] = x;
      dst[d + 1] = y;
      dst[d + 2] = z;
    }
  }
}
