/** Typed-array helpers shared by the stores and constraint sets (no allocation beyond what they return). */

/**
 * A typed array of `a`'s kind with room for `length` values (at least
 * `a.length`), `a`'s values copied to its start: the growth of a set's or a
 * store's per-entry arrays.
 */
export function grownArray<T extends Float64Array | Int32Array | Uint8Array | Uint32Array>(
  a: T,
  length: number,
): T {
  const b = new (a.constructor as new (n: number) => T)(length);
  b.set(a);
  return b;
}
