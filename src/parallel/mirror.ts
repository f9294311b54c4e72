/**
 * Copies of the calling thread's objects in the workers (src/parallel/).
 *
 * A worker runs a constraint set's own `projectColorRange` on a copy of the
 * set: an object of the set's class whose fields are the set's. Typed arrays
 * of at least `SHARE_MIN` elements (the per-constraint data: indices,
 * multipliers, rest values, records, plastic strain; the particle arrays)
 * are put on SharedArrayBuffer — the set's own field is replaced by a shared
 * copy with the same contents — so every thread reads and writes the same
 * memory; smaller ones (a kernel's 3×3 scratch) are copied, so each worker
 * has its own scratch. Numbers and booleans, also one level down (the
 * projection rule's k′, α̃, γ; a material's μ, λ), go through a small shared
 * scalar block written before every projection, since hooks change them
 * between substeps. Anything else (strings, the arrays themselves, nested
 * objects) is watched: when one is replaced, the copy is stale and the set is
 * projected on the calling thread until it is sent again at the next step.
 */
import type { MirrorMessage, ScalarField } from './protocol.js';

/** Typed arrays from this length on are shared; shorter ones are per-thread copies. */
export const SHARE_MIN = 32;

export type Holder = Record<string, unknown>;

/** The calling thread's side of a mirrored object. */
export class Mirror {
  /** The shared scalar block. */
  readonly values: Float64Array;
  private readonly scalarHolders: Holder[] = [];
  private readonly scalarKeys: string[] = [];
  private readonly watchHolders: Holder[] = [];
  private readonly watchKeys: string[] = [];
  private readonly watchValues: unknown[] = [];
  readonly message: MirrorMessage;

  constructor(obj: object) {
    const scalars: ScalarField[] = [];
    const fields = this.collect(obj as Holder, [], scalars, 0);
    this.values = new Float64Array(new SharedArrayBuffer(8 * Math.max(1, scalars.length)));
    this.message = { fields, scalars, values: this.values };
    this.writeScalars();
  }

  private collect(o: Holder, path: string[], scalars: ScalarField[], depth: number): Holder {
    const out: Holder = {};
    for (const key of Object.keys(o)) {
      let v = o[key];
      const t = typeof v;
      if (t === 'number' || t === 'boolean') {
        scalars.push({ path: [...path, key], slot: scalars.length, bool: t === 'boolean' });
        this.scalarHolders.push(o);
        this.scalarKeys.push(key);
        out[key] = v;
      } else if (t === 'string' || v === null || v === undefined) {
        this.watch(o, key, v);
        out[key] = v;
      } else if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
        const a = v as Float64Array;
        if (a.length >= SHARE_MIN && !(a.buffer instanceof SharedArrayBuffer)) {
          const s = new (a.constructor as Float64ArrayConstructor)(
            new SharedArrayBuffer(a.byteLength),
          ) as Float64Array;
          s.set(a);
          o[key] = s;
          v = s;
        }
        this.watch(o, key, v);
        out[key] = v;
      } else if (t === 'object' && depth === 0 && plainData(v as Holder)) {
        this.watch(o, key, v);
        out[key] = this.collect(v as Holder, [...path, key], scalars, depth + 1);
      }
      // functions, WebAssembly kernels, references to other objects: not the kernel's business
    }
    return out;
  }

  private watch(o: Holder, key: string, v: unknown): void {
    this.watchHolders.push(o);
    this.watchKeys.push(key);
    this.watchValues.push(v);
  }

  /** Copies the numbers and booleans into the scalar block (before a projection). */
  writeScalars(): void {
    const h = this.scalarHolders,
      k = this.scalarKeys,
      out = this.values;
    for (let s = 0; s < h.length; s++) out[s] = +(h[s][k[s]] as number);
  }

  /** Whether the workers' copy still has this object's arrays, strings and nested objects. */
  current(): boolean {
    const h = this.watchHolders,
      k = this.watchKeys,
      v = this.watchValues;
    for (let s = 0; s < h.length; s++) if (h[s][k[s]] !== v[s]) return false;
    const sh = this.scalarHolders,
      sk = this.scalarKeys;
    for (let s = 0; s < sh.length; s++) {
      const t = typeof sh[s][sk[s]];
      if (t !== 'number' && t !== 'boolean') return false;
    }
    return true;
  }
}

/** An object of numbers, strings and typed arrays only (the projection rule, a material). */
function plainData(o: Holder): boolean {
  if (Array.isArray(o) || ArrayBuffer.isView(o)) return false;
  for (const key of Object.keys(o)) {
    const v = o[key];
    const t = typeof v;
    if (t === 'number' || t === 'boolean' || t === 'string' || v === null || v === undefined) continue;
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) continue;
    return false;
  }
  return true;
}

/** The worker's side: rebuilds the object as an instance of `proto`'s class. */
export function rebuild(proto: object | null, m: MirrorMessage): Holder {
  const obj = Object.create(proto) as Holder;
  Object.assign(obj, m.fields);
  return obj;
}

/** Reads the scalar block into the worker's copy. */
export function readScalars(obj: Holder, m: MirrorMessage): void {
  const f = m.scalars,
    v = m.values;
  for (let s = 0; s < f.length; s++) {
    const p = f[s].path;
    const holder = p.length === 1 ? obj : (obj[p[0]] as Holder);
    const key = p[p.length - 1];
    holder[key] = f[s].bool ? v[s] !== 0 : v[s];
  }
}
