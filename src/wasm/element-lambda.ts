/**
 * λ⁰ = 0 (001 Eq. 17) of an f64 fused sweep's colour block on the pool (element-threads.ts
 * colourBlock; session 23, so30, docs/solver.md "Session 23"). The f64 kernels keep the multipliers
 * by constraint id (λ[count] the padding lanes' spare), and paired.ts's PairPlan numbers the lanes of
 * each colour's groups with its constraints in order (writeIndices: lane l of group j of colour k is
 * constraint offs[k] + L (j − first) + l, or count past the colour's end). So the real ids of any run
 * of groups are one range of ids, and a block zeroes them by one memory.fill instead of a store per
 * lane by id (a scattered typed-array store on the shared memory: 2.1 ms a step of the demo cloth's
 * 1.2 M lanes on one thread, session 23's profile).
 */

import type { BulkOps } from '../core/store-memory.js';

/** Whether the real constraint ids of `el` (lanes in group order; `count` a padding lane) are 0, 1, …, count − 1 in that order. */
export function idsInLaneOrder(el: Int32Array, count: number): boolean {
  let next = 0;
  for (let i = 0; i < el.length; i++) {
    const id = el[i];
    if (id === count) continue;
    if (id !== next) return false;
    next++;
  }
  return next === count;
}

/**
 * Zeroes lam[el[i]] for lanes i in [from, to) of `el` whose ids are in lane order (idsInLaneOrder):
 * the block's real ids as one range (wasm's memory.fill where `bulk` is given; a typed array's fill
 * on a shared memory stores word by word), and the spare lam[count] where the block has a padding
 * lane — the very values of the loop by id.
 */
export function zeroLaneRange(
  el: Int32Array,
  lam: Float64Array,
  count: number,
  from: number,
  to: number,
  bulk: BulkOps | null,
): void {
  let i0 = from,
    i1 = to - 1;
  while (i0 <= i1 && el[i0] === count) i0++;
  while (i1 >= i0 && el[i1] === count) i1--;
  const real = i0 <= i1 ? el[i1] + 1 - el[i0] : 0;
  if (real > 0) {
    if (bulk !== null) bulk.fill(lam.byteOffset + 8 * el[i0], 8 * real);
    else lam.fill(0, el[i0], el[i1] + 1);
  }
  if (real < to - from) lam[count] = 0;
}
