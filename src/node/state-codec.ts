/**
 * Exact JSON encoding of simulation state for checkpoint files.
 *
 * `World.saveState()` returns typed arrays and plain numbers. JSON alone
 * would turn typed arrays into objects keyed by index, -0 into 0 and NaN
 * into null — a resumed simulation would then differ in the last bit. This
 * codec stores typed arrays as base64 of their little-endian bytes and the
 * numbers JSON cannot hold (-0, NaN, ±Infinity) as tagged strings, so that
 * decode(encode(s)) reproduces every bit of s.
 */
import { endianness } from 'node:os';
import { PbdError } from '../core/errors.js';
import type { WorldState } from '../core/world.js';

type TypedArray =
  | Float64Array
  | Float32Array
  | Int32Array
  | Uint32Array
  | Int16Array
  | Uint16Array
  | Int8Array
  | Uint8Array
  | Uint8ClampedArray;

const typedArrays = {
  Float64Array,
  Float32Array,
  Int32Array,
  Uint32Array,
  Int16Array,
  Uint16Array,
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
} as const;
type TypedArrayName = keyof typeof typedArrays;

const TYPED = '$typed';
const NUMBER = '$number';

if (endianness() !== 'LE') {
  // every platform Node supports today is little-endian; refuse rather than write unportable files
  throw new Error('pbdkit checkpoints need a little-endian host');
}

function typedName(v: unknown): TypedArrayName | null {
  if (!ArrayBuffer.isView(v) || v instanceof DataView) return null;
  const name = v.constructor.name as TypedArrayName;
  return name in typedArrays ? name : null;
}

function replacer(this: unknown, key: string, value: unknown): unknown {
  // JSON.stringify has already applied toJSON; read the raw value from the holder
  const raw = key === '' ? value : (this as Record<string, unknown>)[key];
  const name = typedName(raw);
  if (name) {
    const a = raw as TypedArray;
    return { [TYPED]: name, data: Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64') };
  }
  if (typeof value === 'number' && (!Number.isFinite(value) || Object.is(value, -0))) {
    return { [NUMBER]: Object.is(value, -0) ? '-0' : String(value) };
  }
  return value;
}

function reviver(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const o = value as Record<string, unknown>;
  if (typeof o[TYPED] === 'string' && typeof o.data === 'string') {
    const name = o[TYPED] as string;
    if (!(name in typedArrays)) throw new Error(`unknown typed array '${name}'`);
    const Ctor = typedArrays[name as TypedArrayName];
    const bytes = Buffer.from(o.data, 'base64');
    if (bytes.length % Ctor.BYTES_PER_ELEMENT !== 0) throw new Error(`truncated ${name}`);
    const out = new Ctor(bytes.length / Ctor.BYTES_PER_ELEMENT);
    new Uint8Array(out.buffer).set(bytes);
    return out;
  }
  if (typeof o[NUMBER] === 'string' && Object.keys(o).length === 1) {
    const s = o[NUMBER] as string;
    return s === '-0' ? -0 : Number(s);
  }
  return value;
}

/** Encodes any JSON-like value that may hold typed arrays, -0, NaN or ±Infinity, exactly. */
export function encodeExactJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, replacer, indent);
}

/** Decodes what encodeExactJson wrote. Throws a PbdError naming `where` on bad input. */
export function decodeExactJson(text: string, where = 'state'): unknown {
  try {
    return JSON.parse(text, reviver);
  } catch (e) {
    throw new PbdError(
      'state/corrupt',
      where,
      `cannot be decoded: ${(e as Error).message}`,
      'the file is damaged; delete it and start over',
    );
  }
}

/** Encodes a World state (World.saveState) as JSON text that decodes to the same bits. */
export function encodeWorldState(state: WorldState): string {
  return encodeExactJson(state);
}

/** Decodes a World state written by encodeWorldState. */
export function decodeWorldState(text: string, where = 'state'): WorldState {
  return checkWorldState(decodeExactJson(text, where), where);
}

/** Checks that a decoded value has the shape of a World state (see World.saveState). */
export function checkWorldState(value: unknown, where = 'state'): WorldState {
  const s = value as Partial<WorldState> | null;
  if (
    s?.format !== 'pbdkit-state' ||
    !(s.x instanceof Float64Array) ||
    !(s.v instanceof Float64Array) ||
    !(s.mass instanceof Float64Array) ||
    !(s.invMass instanceof Float64Array) ||
    !Array.isArray(s.bodies) ||
    !Array.isArray(s.sets) ||
    !Array.isArray(s.colliders) ||
    !validOrientations(s.orientations) ||
    !validRigids(s.rigids)
  ) {
    throw new PbdError(
      'state/format',
      where,
      'is not a pbdkit world state',
      'pass a file written by World.saveState() through encodeWorldState()',
    );
  }
  return s as WorldState;
}

/** The particles' orientation channels of a state: null, or q and ω as Float64Arrays (inertia optional). */
function validOrientations(o: WorldState['orientations'] | undefined): boolean {
  if (o === null) return true;
  return (
    o !== undefined &&
    o.q instanceof Float64Array &&
    o.omega instanceof Float64Array &&
    (o.inertia === null || o.inertia instanceof Float64Array)
  );
}

/** The rigid-body store of a state: a count and its typed arrays. */
function validRigids(r: WorldState['rigids'] | undefined): boolean {
  if (r === undefined || r === null || !Number.isInteger(r.count)) return false;
  const f64 = [r.x, r.q, r.v, r.omega, r.mass, r.invMass, r.inertia, r.invInertia];
  return f64.every((a) => a instanceof Float64Array) && r.flags instanceof Int32Array;
}
