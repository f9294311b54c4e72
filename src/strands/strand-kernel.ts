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
 * the workers hold) stays as it is, and so does a world without
 * WebAssembly or with `useWasmKernels(false)`: the pass then calls the
 * JavaScript functions, whose numbers the kernels reproduce bit for bit
 * (test/strands-wasm.test.ts).
 */
import type { ParticleStore } from '../core/particles.js';
import { wasmKernel } from '../wasm/kernels.js';
import type { FollowTheLeader } from './follow-the-leader.js';

/** The exports of wasm/strands.ts (byte addresses in the kernel memory, then the numbers). */
interface StrandExports {
  predict(
    x: number,
    p: number,
    v: number,
    w: number,
    h: number,
    gx: number,
    gy: number,
    gz: number,
    f: number,
    vmax: number,
    from: number,
    to: number,
  ): void;
  ftl(
    p: number,
    x: number,
    w: number,
    start: number,
    rest: number,
    corr: number,
    limit: number,
    first: number,
    from: number,
    to: number,
    corrFrom: number,
  ): void;
  update(x: number, p: number, v: number, invH: number, reach: number, from: number, to: number, counts: number): void;
  dftl(v: number, w: number, start: number, corr: number, k: number, from: number, to: number, corrFrom: number): void;
}

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
  /** Byte addresses of each FTL set's start and rest, in the order of `sets`. */
  start: number[] = [];
  rest: number[] = [];
  /** The update's counts (recoveries, clamps), a view of `counts`. */
  count: Int32Array = new Int32Array(2);
  private memory: WebAssembly.Memory | null = null;
  private sets: FollowTheLeader[] = [];
  private ax: Float64Array | null = null;
  private ap: Float64Array | null = null;
  private av: Float64Array | null = null;
  private aw: Float64Array | null = null;
  private corrLength = 0;

  /**
   * Whether the kernels can run a substep of these sets: the module is there and the store is not
   * shared. Moves the store's arrays and the sets' layouts into kernel memory when they are not
   * there (first call, a grown store, other sets); `corrNumbers` is the block scratch's size.
   */
  ready(store: ParticleStore, sets: FollowTheLeader[], corrNumbers: number): boolean {
    if (store.shared) return false;
    const mod = wasmKernel('strands');
    if (mod === null) return false;
    if (this.holds(store, sets, corrNumbers)) return true;
    this.adopt(mod, store, sets, corrNumbers);
    return true;
  }

  private holds(store: ParticleStore, sets: FollowTheLeader[], corrNumbers: number): boolean {
    if (this.k === null || store.x !== this.ax || store.p !== this.ap || store.v !== this.av) return false;
    if (store.invMass !== this.aw || corrNumbers > this.corrLength || sets.length !== this.sets.length)
      return false;
    const buf = this.memory!.buffer;
    for (let k = 0; k < sets.length; k++) {
      const s = sets[k];
      if (s !== this.sets[k] || s.start.buffer !== buf || s.rest.buffer !== buf) return false;
    }
    return true;
  }

  /** A new memory holding the store's x, p, v, invMass and the sets' start and rest; the arrays replaced by its views. */
  private adopt(mod: WebAssembly.Module, store: ParticleStore, sets: FollowTheLeader[], corrNumbers: number): void {
    const cap = store.capacity;
    let at = 64;
    const take = (n: number) => {
      const a = at;
      at += n;
      return a;
    };
    this.x = take(bytes(3 * cap, 8));
    this.p = take(bytes(3 * cap, 8));
    this.v = take(bytes(3 * cap, 8));
    this.w = take(bytes(cap, 8));
    this.corrLength = Math.max(corrNumbers, 3 * 17 * 16);
    this.corr = take(bytes(this.corrLength, 8));
    this.counts = take(8);
    this.start.length = this.rest.length = 0;
    for (const s of sets) {
      this.start.push(take(bytes(s.start.length, 4)));
      this.rest.push(take(bytes(s.rest.length, 8)));
    }
    const memory = new WebAssembly.Memory({ initial: Math.ceil(at / 65536) });
    const instance = new WebAssembly.Instance(mod, { env: { memory } });
    const buf = memory.buffer;
    const f64 = (a: Float64Array, addr: number) => {
      const b = new Float64Array(buf, addr, a.length);
      b.set(a);
      return b;
    };
    store.x = this.ax = f64(store.x, this.x);
    store.p = this.ap = f64(store.p, this.p);
    store.v = this.av = f64(store.v, this.v);
    store.invMass = this.aw = f64(store.invMass, this.w);
    store.version++;
    for (let k = 0; k < sets.length; k++) {
      const s = sets[k];
      const st = new Int32Array(buf, this.start[k], s.start.length);
      st.set(s.start);
      s.start = st;
      s.rest = f64(s.rest, this.rest[k]);
    }
    this.sets = sets.slice();
    this.count = new Int32Array(buf, this.counts, 2);
    this.memory = memory;
    this.k = instance.exports as unknown as StrandExports;
  }
}
