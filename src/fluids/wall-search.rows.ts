/**
 * The wall search's loop over a block of fluid slots (walls.ts
 * wallSearchBlock), defined once in the row-kernel language
 * (src/kernels/rows.ts): `npm run kernels` generates wallCount and its
 * variant wallFill into wall-search.generated.ts, two loops from one text.
 * A record is a (slot, plane) pair closer than `reach`, s(p) = n·p − c <
 * reach, over the planes of the search's table T (nx, ny, nz, c from
 * T[t0], 4 each). The search runs in JavaScript: the WebAssembly twin the
 * generator also writes (wasm/wall-search.generated.ts) is in no module.
 */
import type { I32 } from '../kernels/rows.js';
import { VARIANT } from '../kernels/rows.js';

/** JavaScript functions made from another with a flag on. */
export const variants = {
  /**
   * The records of slots s0 … s1 − 1 (from store index off) that wallCount
   * counts, written from index k in slot-major order (a slot's records in
   * plane order): slot, unit normal n (3 each) and plane offset c.
   */
  wallFill: { of: 'wallCount', flag: 'FILL' },
} as const;

/**
 * The number of records of slots s0 … s1 − 1 (from store index off) over
 * the np planes of T, plus k. Branch-free; a NaN distance is counted, as
 * wallFill and the walk on one thread record it. The count writes none of
 * the record arrays (slot, wn, wc), which wallFill fills.
 */
export function wallCount(
  T: Float64Array,
  t0: I32,
  np: I32,
  reach: number,
  off: I32,
  s0: I32,
  s1: I32,
  p: Float64Array,
  slot: Int32Array,
  wn: Float64Array,
  wc: Float64Array,
  k: I32,
): I32 {
  const t1 = t0 + 4 * np;
  for (let s = s0; s < s1; s++) {
    const i3 = 3 * (off + s);
    const px = p[i3],
      py = p[i3 + 1],
      pz = p[i3 + 2];
    for (let t = t0; t < t1; t += 4) {
      if (VARIANT.FILL) {
        const nx = T[t],
          ny = T[t + 1],
          nz = T[t + 2],
          cc = T[t + 3];
        if (nx * px + ny * py + nz * pz - cc >= reach) continue;
        slot[k] = s;
        wn[3 * k] = nx;
        wn[3 * k + 1] = ny;
        wn[3 * k + 2] = nz;
        wc[k] = cc;
        k++;
      } else {
        k += +!(T[t] * px + T[t + 1] * py + T[t + 2] * pz - T[t + 3] >= reach);
      }
    }
  }
  return k;
}
