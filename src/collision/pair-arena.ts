/**
 * The pool's arena of pair lists (surface-broad-tasks.ts, untangle-tasks.ts):
 * each block claims a run of one shared Int32Array for what it found, with
 * top[0] its first free entry, advanced atomically, so that the blocks of a
 * job write side by side and the calling thread joins them in block order.
 */

const none = new Int32Array(0);

/**
 * Claims a run of the arena for up to three lists of pairs, a[0 .. 2na),
 * b[0 .. 2nb), then c[0 .. 2nc), and copies them there in that order.
 * Returns the run's start, or −1 when the arena is too small (top[0] has
 * then moved past its end, and the caller grows it before the next run).
 */
export function pairsToArena(
  top: Int32Array,
  arena: Int32Array,
  a: Int32Array,
  na: number,
  b: Int32Array,
  nb: number,
  c: Int32Array = none,
  nc = 0,
): number {
  const need = 2 * (na + nb + nc);
  const at = Atomics.add(top, 0, need);
  if (at + need > arena.length) return -1;
  arena.set(a.subarray(0, 2 * na), at);
  arena.set(b.subarray(0, 2 * nb), at + 2 * na);
  if (nc > 0) arena.set(c.subarray(0, 2 * nc), at + 2 * (na + nb));
  return at;
}
