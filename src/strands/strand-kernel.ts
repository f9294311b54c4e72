/**
 * The fused strand pass's WebAssembly kernels (wasm/strands.ts) over the
 * store's arrays in kernel memory (docs/strands.md, "Speed", session 14).
 *
 * A kernel can read only its module's memory, and copying a block's
 * particles in and out around each call costs what the kernel saves (a
 * prototype on hair-10k: the prediction, FTL, the velocity update and DFTL
 * of each block 0.65 × the JavaScript with the arrays in kernel memory,
 * 0.93 × with each block's x, v and inverse masses copied in and x, v and p
 * out). So the arrays live there: the first substep that the one pass runs
 * with the module moves the store's x, p, v and invMass into a memory of
 * its own (views of the same length and the same numbers; the store's
 * version goes up, the documented signal that its arrays were replaced, so
 * adapters re-bind), and the FTL sets' start and rest (the sets' own
 * arrays, replaced as the sets' pool path replaces them with shared
 * copies). Everything else — the contacts, the attachments, the gallery —
 * reads the same typed arrays as before, which now happen to lie in the
 * kernel's memory. The memory never grows (a larger store makes a new
 * one), so the views stay valid; when the store grows it allocates plain
 * arrays again, and the next substep moves them in again.
 *
 * A shared store (a threaded world: its arrays are SharedArrayBuffers that
 * the workers hold) is moved the same way into a shared memory
 * (`ready` with a thread count, session 15), with the layout of the pool's blocks
 * (src/strands/strand-threads.ts): a staging list and per thread an
 * address table, a count cell, the update's counts and the block
 * corrections. The memory is a new one whenever the store or the list
 * grows, as above (the old views keep their numbers; the pool's arguments
 * are sent again, and until the workers hold them the calling thread runs
 * every block itself). A world without WebAssembly, without shared
 * WebAssembly memory (no SharedArrayBuffer) or with `useWasmKernels(false)`
 * stays as it is: the pass then calls the JavaScript functions, whose
 * numbers the kernels reproduce bit for bit (test/strands-wasm.test.ts).
 */
import type { ColliderContacts } from '../collision/collider-contacts.js';
import type { SphereContactsTarget } from '../collision/collider-contacts-sphere.js';
import type { ParticleStore } from '../core/particles.js';
import { SHARED_MAX_PAGES, sharedKernel, wasmKernel } from '../wasm/kernels.js';
import type { FollowTheLeader } from './follow-the-leader.js';

/**
 * The exports of wasm/strands.ts: byte addresses in the kernel memory, then the numbers, in the
 * order of the JavaScript functions they port (predict: predictRange's arguments; ftl: ftlStrands's
 * with `first` 1 or 0; update: updateRange's with the counts' address for counts and slot; dftl:
 * dftlStrands's); the contact kernels take the address table A, the number table F and a range.
 */
export interface StrandExports {
  predict(...args: number[]): void;
  ftl(...args: number[]): void;
  update(...args: number[]): void;
  dftl(...args: number[]): void;
  sphereContacts(A: number, F: number, from: number, to: number): number;
  projectSphereContacts(A: number, F: number, k0: number, k1: number): void;
  endSphereContacts(A: number, F: number, k0: number, k1: number): void;
  moveContacts(As: number, Ad: number, from: number, n: number, to: number): void;
}

type Channel = Float64Array | Int32Array | Uint8Array;

/** The store's arrays the kernels use, in the address table's order (wasm/strands.ts AX …). */
const STORE_KEYS = ['x', 'p', 'v', 'invMass'] as const;
/** The contact list's, from the table's slot 4 on (APART … ASTT). */
const CONTACT_KEYS = (
  'particle collider q n lambdaN lambdaT slid incoming vn0 deep rigid anchorAt ' +
  'contactOf anchorOf anchorSeen anchorLocal stickN stickT'
).split(' ') as (keyof SphereContactsTarget & keyof ColliderContacts)[];
/** Slots of the address table: the arrays, then the list's count, the collider's index, the substep. */
const A_COUNT = 22;
export const A_COLLIDER = 23;
export const A_SUBSTEP = 24;
export const A_SLOTS = 25;
/** The table's slot of the list's contactOf (per particle). */
export const A_OF = 4 + CONTACT_KEYS.indexOf('contactOf');
/** The per-contact arrays of the list: CONTACT_KEYS' first twelve, table slots 4 … 15 (a staging list's). */
const PER_CONTACT = 12;
/** Numbers of the number table (wasm/strands.ts FRAD … FE). */
const F_SLOTS = 19;

/** Bytes of n numbers of `size` bytes, rounded up to 8. */
function bytes(n: number, size: number): number {
  return (n * size + 7) & ~7;
}

export class StrandKernel {
  /** The module's exports, or null before the first adoption. */
  k: StrandExports | null = null;
  /** Byte addresses of the store's x, p, v, invMass, the block corrections and the update's two counts. */
  x = 0;
  p = 0;
  v = 0;
  w = 0;
  corr = 0;
  counts = 0;
  /** Byte addresses of the address table (i32) and the number table (f64) of the contact kernels. */
  A = 0;
  F = 0;
  /** Views of the two tables: the list's count at table[A_COUNT], the collider and substep after it. */
  table: Int32Array = new Int32Array(A_SLOTS);
  numbers: Float64Array = new Float64Array(F_SLOTS);
  /** Byte addresses of each FTL set's start and rest, in the order of `sets`. */
  start: number[] = [];
  rest: number[] = [];
  /** The contact list's count while the contact kernels run (the address table's A_COUNT slot). */
  listCount: Int32Array = new Int32Array(1);
  /** The update's counts (recoveries, clamps), a view of `counts`. */
  count: Int32Array = new Int32Array(2);
  /** Whether the contact list's arrays are in kernel memory (the contact kernels may run). */
  contacts = false;
  /**
   * The threaded layout (`ready` with threads ≥ 2; 0: the one-thread layout): per thread an
   * address table of the staging list (the list's per-contact arrays again, a contact at its
   * particle's slot), then per thread one of the list itself (`threads` tables on), a count cell, the
   * update's counts and the block corrections; the roots' held particles and their attachments'
   * entries (in particle order), the attachments' targets and anchors (by entry: Attachments
   * adoptAnchors takes them as its arrays). Byte addresses of thread 0's, each next thread's at the
   * stride.
   */
  threads = 0;
  threadA = 0;
  threadCell = 0;
  threadCounts = 0;
  threadCorr = 0;
  corrStride = 0;
  heldAt = 0;
  entryAt = 0;
  targetAt = 0;
  anchorAt = 0;
  heldCapacity = 0;
  /** The module the memory's instances run (the shared-memory form in the threaded layout). */
  module: WebAssembly.Module | null = null;
  memory: WebAssembly.Memory | null = null;
  private sets: FollowTheLeader[] = [];
  private list: ColliderContacts | null = null;
  /** The arrays in kernel memory: the store's (STORE_KEYS), then the list's (CONTACT_KEYS). */
  private held: Channel[] = [];
  private corrLength = 0;
  /**
   * The layout's byte addresses (`layout`): of the arrays (the address table's first slots), of the
   * list's count cell and of the staging lists' arrays.
   */
  private addrs: number[] = [];
  private countAt = 0;
  private stage: number[] = [];

  /**
   * Whether the kernels can run a substep of these sets: the module is there and the store is not
   * shared (`threads` 0), or, for a threaded world's shared store (`threads` ≥ 2, strand-threads.ts),
   * the module's shared-memory form is (false where shared WebAssembly memory is missing). Moves the store's arrays, the sets' layouts and the contact list's arrays (`cc`, when
   * given) into kernel memory — a shared one with the threaded layout for `threads` threads — when
   * they are not there (first call, a grown store or list, other sets); `corrNumbers` is the block
   * scratch's size.
   */
  ready(
    store: ParticleStore,
    sets: FollowTheLeader[],
    cc: ColliderContacts | null,
    corrNumbers: number,
    threads = 0,
  ): boolean {
    if (store.shared !== threads > 0) return false;
    // the module's shared form on the store's memory (session 20), as on threads
    const mod = threads > 0 || store.memory?.shared ? sharedKernel('strands') : wasmKernel('strands');
    if (mod === null) return false;
    if (
      this.threads === threads &&
      (threads === 0 || store.count <= this.heldCapacity) &&
      this.holds(store, sets, cc, corrNumbers)
    )
      return true;
    return this.adopt(mod, store, sets, cc, corrNumbers, threads);
  }

  private holds(
    store: ParticleStore,
    sets: FollowTheLeader[],
    cc: ColliderContacts | null,
    corrNumbers: number,
  ): boolean {
    if (this.k === null || corrNumbers > this.corrLength || sets.length !== this.sets.length) return false;
    if (cc !== this.list) return false;
    const held = this.held;
    for (let j = 0; j < STORE_KEYS.length; j++) if (store[STORE_KEYS[j]] !== held[j]) return false;
    if (cc !== null)
      for (let j = 0; j < CONTACT_KEYS.length; j++) if (cc[CONTACT_KEYS[j]] !== held[4 + j]) return false;
    // (on the store's memory: its buffer objects, which a grow replaces: StoreMemory.owns)
    const m = this.memory === store.memory?.memory ? store.memory : null;
    const buf = this.memory!.buffer;
    for (let k = 0; k < sets.length; k++) {
      const s = sets[k];
      if (s !== this.sets[k]) return false;
      if (
        m !== null
          ? !m.owns(s.start.buffer) || !m.owns(s.rest.buffer)
          : s.start.buffer !== buf || s.rest.buffer !== buf
      )
        return false;
    }
    return true;
  }

  /**
   * A new memory holding the store's x, p, v, invMass, the sets' start and rest and the list's arrays;
   * the arrays replaced by its views (the same lengths and numbers).
   */
  private adopt(
    mod: WebAssembly.Module,
    store: ParticleStore,
    sets: FollowTheLeader[],
    cc: ColliderContacts | null,
    corrNumbers: number,
    threads: number,
  ): boolean {
    const arrays: Channel[] = STORE_KEYS.map((key) => store[key]);
    if (cc !== null) for (const key of CONTACT_KEYS) arrays.push(cc[key] as Channel);
    // on the store's memory (session 20): the store's arrays stay where they are, the rest in a region
    // of it (its size from a layout at 0, then laid out from the region's address); the old region is
    // not given back (a new adoption follows a grown store or list: at most the final sizes again)
    let m = store.memory;
    if (
      m !== null &&
      ((mod === sharedKernel('strands')) !== m.shared || !STORE_KEYS.every((k) => m!.owns(store[k].buffer)))
    )
      m = null;
    let at = 0;
    if (m !== null) {
      const region = m.alloc(this.layout(0, arrays, true, store, sets, cc, corrNumbers, threads));
      if (region >= 0) at = this.layout(region, arrays, true, store, sets, cc, corrNumbers, threads);
      // (a full store memory: laid out in a memory of its own, the store's arrays moved there)
      else m = null;
    }
    if (m === null) at = this.layout(64, arrays, false, store, sets, cc, corrNumbers, threads);
    const pages = Math.ceil(at / 65536);
    if (m === null && threads > 0 && pages > SHARED_MAX_PAGES) return false;
    const memory =
      m !== null
        ? m.memory
        : threads > 0
          ? new WebAssembly.Memory({ initial: pages, maximum: SHARED_MAX_PAGES, shared: true })
          : new WebAssembly.Memory({ initial: pages });
    // a memory of its own on one thread is a plain one: the module's plain form runs on it (the shared
    // form, which a one-thread store's shared memory takes, cannot import a plain memory)
    const module = m === null && threads === 0 ? wasmKernel('strands')! : mod;
    const instance = new WebAssembly.Instance(module, { env: { memory } });
    const buf = memory.buffer;
    m?.note(buf);
    const moved = <T extends Channel>(a: T, addr: number): T => {
      const b = new (a.constructor as new (buf: ArrayBuffer, at: number, n: number) => T)(
        buf,
        addr,
        a.length,
      );
      b.set(a);
      return b;
    };
    const addrs = this.addrs;
    this.held = arrays.map((a, j) => (m !== null && j < STORE_KEYS.length ? a : moved(a, addrs[j])));
    const h = this.held;
    if (m === null) {
      store.x = h[0] as Float64Array;
      store.p = h[1] as Float64Array;
      store.v = h[2] as Float64Array;
      store.invMass = h[3] as Float64Array;
      store.version++;
    }
    if (cc !== null) {
      const set = cc as unknown as Record<string, Channel>;
      for (let j = 0; j < CONTACT_KEYS.length; j++) set[CONTACT_KEYS[j]] = h[4 + j];
    }
    for (let k = 0; k < sets.length; k++) {
      const s = sets[k];
      s.start = moved(s.start, this.start[k]);
      s.rest = moved(s.rest, this.rest[k]);
    }
    this.table = new Int32Array(buf, this.A, A_SLOTS);
    for (let j = 0; j < addrs.length; j++) this.table[j] = addrs[j];
    this.table[A_COUNT] = this.countAt;
    this.listCount = new Int32Array(buf, this.countAt, 1);
    this.numbers = new Float64Array(buf, this.F, F_SLOTS);
    this.sets = sets.slice();
    this.list = cc;
    this.contacts = cc !== null;
    this.count = new Int32Array(buf, this.counts, 2);
    this.memory = memory;
    this.module = module;
    this.threads = threads;
    this.k = instance.exports as unknown as StrandExports;
    if (threads > 0) {
      // each thread's two tables, each with the thread's own count cell: the staging list's (the list's
      // with its per-contact arrays the staging ones), then the list's own (threads tables on)
      const stride = bytes(A_SLOTS, 4) >> 2;
      const T = new Int32Array(buf, this.threadA, 2 * threads * stride);
      for (let t = 0; t < 2 * threads; t++) {
        T.set(this.table, t * stride);
        if (t < threads) for (let j = 0; j < this.stage.length; j++) T[t * stride + 4 + j] = this.stage[j];
        T[t * stride + A_COUNT] = this.threadCell + 8 * (t % threads);
      }
    }
    return true;
  }

  /**
   * Lays the kernel memory out from byte `base` on: the arrays' addresses (`addrs`: the store's at
   * their own offsets where `inPlace`, on the store's memory), the block corrections, the counts, the
   * list's count cell, the two tables, each set's start and rest, and with `threads` the threaded
   * layout (the staging lists' arrays, per thread a table, cells, counts and corrections, the roots'
   * held particles, entries, targets and anchors). Returns the end: the size when `base` is 0.
   */
  private layout(
    base: number,
    arrays: Channel[],
    inPlace: boolean,
    store: ParticleStore,
    sets: FollowTheLeader[],
    cc: ColliderContacts | null,
    corrNumbers: number,
    threads: number,
  ): number {
    let at = base;
    const take = (n: number) => {
      const a = at;
      at += n;
      return a;
    };
    this.addrs = arrays.map((a, j) =>
      inPlace && j < STORE_KEYS.length ? a.byteOffset : take(bytes(a.length, a.BYTES_PER_ELEMENT)),
    );
    [this.x, this.p, this.v, this.w] = this.addrs;
    this.corrLength = Math.max(corrNumbers, 3 * 17 * 16);
    this.corr = take(bytes(this.corrLength, 8));
    this.counts = take(8);
    this.countAt = take(8);
    this.A = take(bytes(A_SLOTS, 4));
    this.F = take(bytes(F_SLOTS, 8));
    this.start.length = this.rest.length = 0;
    for (const s of sets) {
      this.start.push(take(bytes(s.start.length, 4)));
      this.rest.push(take(bytes(s.rest.length, 8)));
    }
    // the threaded layout: the staging lists' arrays, per thread a table, cells, counts and corrections
    this.stage.length = 0;
    if (threads > 0) {
      for (let j = 0; j < PER_CONTACT && cc !== null; j++) {
        const a = arrays[4 + j];
        this.stage.push(take(bytes(a.length, a.BYTES_PER_ELEMENT)));
      }
      this.threadA = take(2 * threads * bytes(A_SLOTS, 4));
      this.threadCell = take(8 * threads);
      this.threadCounts = take(8 * threads);
      this.corrStride = bytes(this.corrLength, 8);
      this.threadCorr = take(threads * this.corrStride);
      this.heldCapacity = store.capacity;
      this.heldAt = take(bytes(this.heldCapacity, 4));
      this.entryAt = take(bytes(this.heldCapacity, 4));
      this.targetAt = take(bytes(3 * this.heldCapacity, 8));
      this.anchorAt = take(bytes(3 * this.heldCapacity, 8));
    }
    return at;
  }
}
