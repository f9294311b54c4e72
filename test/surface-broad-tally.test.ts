/**
 * The pooled rebuild's per-triangle pair counts (src/collision/surface-broad-tally.ts):
 * the slots' sums are each triangle's count of pairs, whatever the slots and the order
 * of the parts, and the budget check finds exactly the triangles that reach `perItem`
 * (the join's serial count before session 18 did the same, pair by pair).
 */
import { describe, expect, it } from 'vitest';
import { closeTally, openTally, tallyFor, tallyPairs } from '../src/collision/surface-broad-tally.js';

/** n random triangle pairs over `items` triangles (a fixed sequence). */
function randomPairs(n: number, items: number, seed: number): Int32Array {
  const p = new Int32Array(2 * n);
  let s = seed;
  for (let k = 0; k < p.length; k++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    p[k] = s % items;
  }
  return p;
}

/** Each triangle's pairs, counted one by one. */
function direct(parts: Int32Array[], items: number): Int32Array {
  const c = new Int32Array(items);
  for (const p of parts) for (let k = 0; k < p.length; k++) c[p[k]]++;
  return c;
}

describe('per-thread pair counts of a pooled rebuild', () => {
  const items = 500;
  const parts = [randomPairs(3000, items, 1), randomPairs(2000, items, 2), randomPairs(100, items, 3)];
  const want = direct(parts, items);
  const most = Math.max(...want);

  it('sums the slots to each triangle’s pairs, and finds a triangle at the budget, not below it', () => {
    const t = tallyFor(new Int32Array(0), 2, items);
    expect(t.buffer).toBeInstanceOf(SharedArrayBuffer);
    const into = new Int32Array(items);
    for (const perItem of [most, most + 1]) {
      openTally(t, items);
      // this thread's parts go to its slot (the first claims and zeroes it); a second thread's
      // count is written into slot 1 as a worker's would be
      tallyPairs(t, parts[0], 3000);
      tallyPairs(t, parts[2], 100);
      const other = direct([parts[1]], items);
      Atomics.add(t, 1, 1);
      t.set(other, 3 + items);
      expect(closeTally(t, into, perItem)).toBe(perItem === most);
      expect(Array.from(into)).toEqual(Array.from(want));
    }
  });

  it('a new rebuild (generation) zeroes the slot again; a slot counts only its own parts', () => {
    const t = tallyFor(new Int32Array(0), 1, items);
    const into = new Int32Array(items);
    openTally(t, items);
    tallyPairs(t, parts[0], 3000);
    openTally(t, items);
    tallyPairs(t, parts[1], 2000);
    expect(closeTally(t, into, 1 << 30)).toBe(false);
    expect(Array.from(into)).toEqual(Array.from(direct([parts[1]], items)));
  });
});
