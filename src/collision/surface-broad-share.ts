import { ARRAYS } from './broad-slots.generated.js';
import { TOPOLOGY_ARRAYS } from './surface-broad-wasm.js';

/**
 * The pool's shared copies of the broad phase's arrays (surface-broad-tasks.ts): arrays on shared
 * memory are read where they are, the others copied into SharedArrayBuffers (moved here from
 * surface-broad-tasks.ts in session 22, with `skip` for the topology's arrays).
 */

export type Shareable = Int32Array | Float64Array | Uint8Array;

/** A typed array of the same kind on a SharedArrayBuffer, at least `n` long (a quarter more, to grow rarely). */
export function shared<T extends Shareable>(a: T, n: number): T {
  const C = a.constructor as new (b: SharedArrayBuffer) => T;
  const len = Math.max(16, Math.ceil(1.25 * n));
  return new C(new SharedArrayBuffer(len * a.BYTES_PER_ELEMENT));
}

/** The BroadArrays that a topology fixes (BroadWasmHost's first ARRAYS). */
export const TOPOLOGY_KEYS: ReadonlySet<string> = new Set(ARRAYS.slice(0, TOPOLOGY_ARRAYS));

/**
 * Copies each array of `from` (but those in `skip`) into the same key of `to` (a new shared array
 * where it is too short), or points `to` at it where it is on shared memory
 * already; true when one was new.
 */
export function shareInto(
  to: Record<string, Shareable>,
  from: Record<string, Shareable>,
  skip: ReadonlySet<string> | null = null,
): boolean {
  let fresh = false;
  for (const key in from) {
    if (skip?.has(key)) continue;
    const a = from[key];
    if (a.buffer instanceof SharedArrayBuffer) {
      // already shared (the broad phase's snapshots and boxes, a threaded store): read where it is
      const b = to[key];
      if (b.buffer !== a.buffer || b.byteOffset !== a.byteOffset || b.length !== a.length) {
        to[key] = a;
        fresh = true;
      }
      continue;
    }
    if (to[key].length < a.length || to[key].buffer.constructor !== SharedArrayBuffer) {
      to[key] = shared(a, a.length);
      fresh = true;
    }
    to[key].set(a);
  }
  return fresh;
}
