/**
 * The store's allocation option (docs/architecture.md, "Live views: the store's allocation",
 * session 20, home27): one growable shared WebAssembly memory from which a ParticleStore takes
 * its x, p, v and invMass and the kernels that work on them (the elements module's particle
 * windows, src/wasm/paired-group.ts; the strand kernels, src/strands/strand-kernel.ts) take their
 * other regions, so that the kernels work on the arrays the store handed out before the first
 * step: nothing is moved ("homed") into a kernel memory later, and an array a user holds stays
 * live across steps. A grown shared memory keeps its old views valid (only its length grows), so
 * growing the memory for a new kernel region moves nothing either.
 *
 * Regions are first-fit, 64-byte aligned, from byte 1024 on (the first KiB stays free, as in a
 * kernel memory of its own: wasm/paired.ts Arena). What frees a region must make sure that nothing
 * reads it any more (a rebuilt kernel group rescues its sets' multipliers first).
 */

/** Pages (64 KiB) the memory may grow to: 1 GiB, as a kernel's shared memory (wasm/kernels.ts SHARED_MAX_PAGES). */
const MAX_PAGES = 16384;
const ALIGN = 64;

export class StoreMemory {
  readonly memory: WebAssembly.Memory;
  /** Every buffer the memory has had (a grow gives a new one; views made before keep theirs). */
  private readonly buffers: ArrayBufferLike[] = [];
  /** Free regions as (offset, bytes) pairs in address order; `top`: the end of the last region in use. */
  private readonly free: number[] = [];
  private readonly sizes = new Map<number, number>();
  private top = 1024;

  private constructor(memory: WebAssembly.Memory) {
    this.memory = memory;
    this.buffers.push(memory.buffer);
  }

  /** A store memory, or null where shared WebAssembly memory is missing (then the store allocates plain arrays). */
  static create(): StoreMemory | null {
    if (typeof WebAssembly === 'undefined' || typeof SharedArrayBuffer === 'undefined') return null;
    try {
      return new StoreMemory(new WebAssembly.Memory({ initial: 1, maximum: MAX_PAGES, shared: true }));
    } catch {
      return null;
    }
  }

  /** The current buffer (views of new regions are made on it). */
  get buffer(): ArrayBufferLike {
    return this.memory.buffer;
  }

  /** Whether `b` is this memory's buffer, now or before a grow (a view of it lies in the memory). */
  owns(b: ArrayBufferLike): boolean {
    const bs = this.buffers;
    for (let k = bs.length - 1; k >= 0; k--) if (bs[k] === b) return true;
    return false;
  }

  /** Notes `b` as this memory's buffer (a kernel's views made on it: owns). */
  note(b: ArrayBufferLike): void {
    if (!this.owns(b)) this.buffers.push(b);
  }

  /** A region of `bytes` bytes (its byte address), the memory grown when it does not fit. */
  alloc(bytes: number): number {
    const n = Math.max(ALIGN, (bytes + ALIGN - 1) & ~(ALIGN - 1));
    const f = this.free;
    for (let k = 0; k < f.length; k += 2) {
      if (f[k + 1] < n) continue;
      const at = f[k];
      if (f[k + 1] === n) f.splice(k, 2);
      else {
        f[k] += n;
        f[k + 1] -= n;
      }
      this.sizes.set(at, n);
      return at;
    }
    const at = this.top;
    const end = at + n;
    const have = this.memory.buffer.byteLength;
    if (end > have) {
      this.memory.grow(Math.ceil((end - have) / 65536));
      this.buffers.push(this.memory.buffer);
    }
    this.top = end;
    this.sizes.set(at, n);
    return at;
  }

  /** The bytes of the region at `at` (0: none). */
  sizeOf(at: number): number {
    return this.sizes.get(at) ?? 0;
  }

  /** Gives back the region at `at` (nothing may read it afterwards). */
  release(at: number): void {
    const n = this.sizes.get(at);
    if (n === undefined) return;
    this.sizes.delete(at);
    const f = this.free;
    let k = 0;
    while (k < f.length && f[k] < at) k += 2;
    f.splice(k, 0, at, n);
    // merge with the next and the previous free region
    if (k + 2 < f.length && f[k] + f[k + 1] === f[k + 2]) {
      f[k + 1] += f[k + 3];
      f.splice(k + 2, 2);
    }
    if (k > 0 && f[k - 2] + f[k - 1] === f[k]) {
      f[k - 1] += f[k + 1];
      f.splice(k, 2);
      k -= 2;
    }
    // a free region at the end lowers the top
    if (f.length > 0 && f[f.length - 2] + f[f.length - 1] === this.top) {
      this.top = f[f.length - 2];
      f.length -= 2;
    }
  }

  /** A Float64Array of n zeros in a new region. */
  f64(n: number): Float64Array {
    const at = this.alloc(8 * n);
    const a = new Float64Array(this.memory.buffer, at, n);
    a.fill(0);
    // (the engine may give a new buffer object of the same memory without a grow: each is noted)
    this.note(a.buffer);
    return a;
  }
}
