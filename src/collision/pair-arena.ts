/**
 * The pool's arena of pair lists (surface-broad-tasks.ts, untangle-tasks.ts):
 * each block claims a run of one shared Int32Array for what it found, with
 * top[0] its first free entry, advanced atomically, so that the blocks of a
 * job write side by side and the calling thread joins them in block order.
 */

const none = new Int32Array(0);

/**
 * Claims a run of the arena for up to three lists of pairs, a[0 .. 2na),
 * b[0 .. 2nb), then d[0 .. 2nd), copies them there in that order, and
 * records the outcome in the block's counts record c[o …]: the run's start
 * at c[o] and c[o + full] = 0, or c[o + full] = 1 when the arena is too
 * small (top[0] has then moved past its end, and the calling thread grows
 * it and runs the job again). Returns whether the lists fit.
 */
export function pairsToArena(
  top: Int32Array,
  arena: Int32Array,
  c: Int32Array,
  o: number,
  full: number,
  a: Int32Array,
  na: number,
  b: Int32Array,
  nb: number,
  d: Int32Array = none,
  nd = 0,
): boolean {
  const need = 2 * (na + nb + nd);
  const at = Atomics.add(top, 0, need);
  if (at + need > arena.length) {
    c[o + full] = 1;
    return false;
  }
  arena.set(a.subarray(0, 2 * na), at);
  arena.set(b.subarray(0, 2 * nb), at + 2 * na);
  if (nd > 0) arena.set(d.subarray(0, 2 * nd), at + 2 * (na + nb));
  c[o] = at;
  c[o + full] = 0;
  return true;
}
