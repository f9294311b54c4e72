/** Typed-array helpers shared by the stores and constraint sets. */

type Grown = Float64Array | Int32Array | Int8Array | Uint8Array | Uint32Array;

/**
 * A typed array of `a`'s kind with room for `length` values, `a`'s first
 * `keep` values (default all; at most `length`) copied to its start, the rest
 * zero: the growth of a set's or a store's per-entry arrays. With `shared`
 * (and where the platform has one), on a SharedArrayBuffer, for arrays that
 * workers read.
 */
export function grownArray<T extends Grown>(a: T, length: number, keep = a.length, shared = false): T {
  const C = a.constructor as { new (n: number | SharedArrayBuffer): T; BYTES_PER_ELEMENT: number };
  const b =
    shared && typeof SharedArrayBuffer !== 'undefined'
      ? new C(new SharedArrayBuffer(length * C.BYTES_PER_ELEMENT))
      : new C(length);
  b.set(keep === a.length ? a : a.subarray(0, keep));
  return b;
}
