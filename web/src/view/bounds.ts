/**
 * The box a body fills as drawn: a surface's vertices that its triangles use,
 * or a particle body's active particles; with a small fraction of outliers
 * trimmed on each side of each axis, so that a few shreds torn off and carried
 * away (cloth-tear) or a few droplets splashed high (fluids) do not decide
 * where the camera looks. The gallery frames it (scripts/scene-views.ts
 * records it over each scene's first seconds) and the browser tests check
 * that it stays in view. No DOM, no three.js: scripts use it in Node.
 */

import { selectKth } from '../../../src/math/select.js';

/** Fraction of the vertices that may lie outside the box on each side of each axis. */
export const TRIM = 0.01;

/**
 * [lo, hi] of the drawn vertices: `x` holds xyz from `base`; `triangles`
 * (vertex indices) pick the vertices drawn, or with none, `count` vertices
 * are. Null when nothing is finite.
 */
export function drawnBox(
  x: ArrayLike<number>,
  base: number,
  triangles: ArrayLike<number>,
  count: number,
  trim = TRIM,
): [number[], number[]] | null {
  let ids: ArrayLike<number>;
  if (triangles.length === 0) {
    const all = new Uint32Array(count);
    for (let i = 0; i < count; i++) all[i] = i;
    ids = all;
  } else {
    const used = new Uint8Array(count > 0 ? count : 1 + Math.max(0, ...Array.from(triangles)));
    const list: number[] = [];
    for (let k = 0; k < triangles.length; k++) {
      const v = triangles[k];
      if (v < used.length && !used[v]) {
        used[v] = 1;
        list.push(v);
      }
    }
    ids = list;
  }
  const lo = [0, 0, 0];
  const hi = [0, 0, 0];
  const vals = new Float64Array(ids.length);
  for (let d = 0; d < 3; d++) {
    let n = 0;
    for (let k = 0; k < ids.length; k++) {
      const v = x[base + 3 * ids[k] + d];
      if (Number.isFinite(v)) vals[n++] = v;
    }
    if (n === 0) return null;
    const a = vals.subarray(0, n);
    const cut = Math.floor(trim * n);
    lo[d] = selectKth(a, 0, n - 1, cut);
    hi[d] = selectKth(a, 0, n - 1, n - 1 - cut);
  }
  return [lo, hi];
}
