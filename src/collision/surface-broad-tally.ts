/**
 * The per-triangle pair counts of a pooled full rebuild, summed off the
 * calling thread (docs/collision.md, "Thirteenth round (session 18)"). The
 * rebuild's join checks the budgets of `Bvh.selfPairsBounded`: where a
 * triangle met `perItem` others, the serial rebuild runs instead. That
 * check only asks whether some triangle's total reaches the budget, and a
 * total of integers does not depend on the order it is summed in. So each
 * thread counts the pairs of the parts it ran into a slot of its own (the
 * first part a thread runs in a rebuild claims a slot and zeroes it), and
 * the calling thread adds the slots: the same totals, the same decision,
 * on any thread count and any claim order.
 *
 * Layout of `tally`: [generation, slots claimed, triangles, slot 0 …].
 */

const T_GEN = 0;
const T_SLOTS = 1;
const T_ITEMS = 2;
const HEAD = 3;

/** This thread's slot in the last rebuild it counted (module state: one per thread). */
let lastTally: Int32Array | null = null;
let lastGen = -1;
let slot = 0;

/** A tally for `threads` threads over `items` triangles (`t`, or a larger one). */
export function tallyFor(t: Int32Array, threads: number, items: number): Int32Array {
  const need = HEAD + threads * items;
  return t.length >= need ? t : new Int32Array(new SharedArrayBuffer(4 * need));
}

/** Opens a rebuild's count: a new generation, no slot claimed. */
export function openTally(t: Int32Array, items: number): void {
  Atomics.store(t, T_SLOTS, 0);
  Atomics.store(t, T_ITEMS, items);
  Atomics.add(t, T_GEN, 1);
}

/** Counts np triangle pairs (2 entries each) into this thread's slot (claimed and zeroed at its first part). */
export function tallyPairs(t: Int32Array, pairs: Int32Array, np: number): void {
  const items = t[T_ITEMS];
  const gen = Atomics.load(t, T_GEN);
  if (t !== lastTally || gen !== lastGen) {
    lastTally = t;
    lastGen = gen;
    slot = Atomics.add(t, T_SLOTS, 1);
    t.fill(0, HEAD + slot * items, HEAD + (slot + 1) * items);
  }
  const o = HEAD + slot * items;
  for (let k = 0; k < 2 * np; k++) t[o + pairs[k]]++;
}

/** Each triangle's pairs over all slots into `into`; true where one reached `perItem`. */
export function closeTally(t: Int32Array, into: Int32Array, perItem: number): boolean {
  const items = t[T_ITEMS],
    slots = Atomics.load(t, T_SLOTS);
  into.fill(0, 0, items);
  let over = false;
  for (let s = 0; s < slots; s++) {
    const o = HEAD + s * items;
    for (let i = 0; i < items; i++) if ((into[i] += t[o + i]) >= perItem) over = true;
  }
  return over;
}
