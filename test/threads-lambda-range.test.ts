/**
 * λ⁰ = 0 (001 Eq. 17) in the f64 fused sweeps' colour blocks on the pool (src/wasm/element-lambda.ts,
 * session 23, so30): the f64 kernels keep the multipliers by constraint id, and the lanes of each
 * colour's groups hold its constraints in order (paired.ts writeIndices), so a block zeroes its ids
 * as one range (wasm's memory.fill) and the spare λ[count] where it has a padding lane, instead of a
 * store per lane by id. A wrong range (one id short: a multiplier carried into the next substep; one
 * too many: the next block's, maybe already projected) changes an XPBD cloth's positions and
 * multipliers: test/threads-lambda-fill.test.ts checks both against one thread's on 2 and 4 threads
 * (f32 and f64), and that the f64 sets take these ranges.
 */
import { describe, expect, it } from 'vitest';
import { bulkOn } from '../src/core/store-memory.js';
import { idsInLaneOrder, zeroLaneRange } from '../src/wasm/element-lambda.js';

describe('the f64 sweeps’ multipliers zeroed by id ranges in their blocks on the pool', () => {
  // 7 constraints in two colours of pairs (lanes 2): colour 0 holds 0..2 (a padding lane: 7), colour 1 holds 3..6
  const el = new Int32Array([0, 1, 2, 7, 3, 4, 5, 6]);

  it('idsInLaneOrder: the real ids 0 … count − 1 in lane order, padding anywhere', () => {
    expect(idsInLaneOrder(el, 7)).toBe(true);
    expect(idsInLaneOrder(new Int32Array([0, 1, 3, 2]), 4)).toBe(false);
    expect(idsInLaneOrder(new Int32Array([0, 1, 2, 4]), 4)).toBe(false);
    // an id missing at the end
    expect(idsInLaneOrder(new Int32Array([0, 1, 2, 7]), 7)).toBe(false);
  });

  it('zeroLaneRange: exactly the loop by id (lam[el[i]] = 0), the spare only with a padding lane', () => {
    for (const [from, to] of [
      [0, 8],
      [0, 4],
      [2, 4],
      [4, 8],
      [2, 6],
      [3, 4],
      [4, 6],
    ]) {
      for (const bulk of [false, true]) {
        const memory = new WebAssembly.Memory({ initial: 1, maximum: 16, shared: true });
        const lam = new Float64Array(memory.buffer, 64, 8).fill(5);
        const want = new Float64Array(8).fill(5);
        for (let i = from; i < to; i++) want[el[i]] = 0;
        const ops = bulk ? bulkOn(memory) : null;
        if (bulk) expect(ops).not.toBeNull();
        zeroLaneRange(el, lam, 7, from, to, ops);
        expect(Array.from(lam), `[${from}, ${to})`).toEqual(Array.from(want));
      }
    }
  });
});
