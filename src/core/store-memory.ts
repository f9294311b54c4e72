/**
 * The store's allocation option (docs/architecture.md, "Live views: the store's allocation",
 * session 20, home27): one growable shared WebAssembly memory from which a ParticleStore takes
 * its x, p, v and invMass and the kernels that work on them (the elements module's particle
 * windows, src/wasm/paired-group.ts; the strand kernels, src/strands/strand-kernel.ts) take their
 * other regions, so that the kernels work on the arrays the store handed out before the first
 * step: nothing is moved ("homed") into a kernel memory later, and an array a user holds stays
 * live across steps. A threaded world's is a growable shared memory: a grown shared memory keeps
 * its old views valid (only its length grows), so growing it for a new region moves nothing. A
 * one-thread world's is a plain memory of PLAIN_PAGES that never grows (a plain memory's grow
 * would detach every view): the one-thread kernels on a shared memory cost 3–5 % of CPU on
 * cloth-201-fall-f32 (measured, session 20), a plain memory nothing; its untouched pages cost no
 * physical memory. When it is full, `alloc` says so (−1) and the store allocates plain arrays,
 * which the kernels home at the next step as without a store memory (`version` goes up).
 *
 * Regions are first-fit, 64-byte aligned, from byte 1024 on (the first KiB stays free, as in a
 * kernel memory of its own: wasm/paired.ts Arena). What frees a region must make sure that nothing
 * reads it any more (a rebuilt kernel group rescues its sets' multipliers first).
 */

/** Pages (64 KiB) the memory may grow to: 1 GiB, as a kernel's shared memory (wasm/kernels.ts SHARED_MAX_PAGES). */
const MAX_PAGES = 16384;
/** Pages of a one-thread store's plain memory: 256 MiB of address space, never grown. */
const PLAIN_PAGES = 4096;
const ALIGN = 64;

export class StoreMemory {
  readonly memory: WebAssembly.Memory;
  /** Every buffer the memory has had (a grow gives a new one; views made before keep theirs). */
  private readonly buffers: ArrayBufferLike[] = [];
  /** Free regions as (offset, bytes) pairs in address order; `top`: the end of the last region in use. */
  private readonly free: number[] = [];
  private readonly sizes = new Map<number, number>();
  private top = 1024;

  private constructor(
    memory: WebAssembly.Memory,
    /** Whether it is shared (a threaded world's: its kernels' modules import a shared memory). */
    readonly shared: boolean,
  ) {
    this.memory = memory;
    this.buffers.push(memory.buffer);
  }

  /**
   * A store memory, shared (growable) for a threaded world's store, else plain (never grown); null
   * where WebAssembly (shared: shared WebAssembly memory) is missing: the store allocates plain arrays.
   */
  static create(shared: boolean): StoreMemory | null {
    if (typeof WebAssembly === 'undefined' || (shared && typeof SharedArrayBuffer === 'undefined'))
      return null;
    try {
      return shared
        ? new StoreMemory(new WebAssembly.Memory({ initial: 1, maximum: MAX_PAGES, shared: true }), true)
        : new StoreMemory(new WebAssembly.Memory({ initial: PLAIN_PAGES, maximum: PLAIN_PAGES }), false);
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

  /**
   * A region of `bytes` bytes (its byte address), a shared memory grown when it does not fit; −1
   * where it cannot (a plain memory full, or a shared one at its maximum).
   */
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
      const pages = Math.ceil((end - have) / 65536);
      if (!this.shared || have / 65536 + pages > MAX_PAGES) return -1;
      this.memory.grow(pages);
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

  /** A Float64Array of n zeros in a new region, or null where none fits (alloc). */
  f64(n: number): Float64Array | null {
    const at = this.alloc(8 * n);
    if (at < 0) return null;
    const a = new Float64Array(this.memory.buffer, at, n);
    a.fill(0);
    // (the engine may give a new buffer object of the same memory without a grow: each is noted)
    this.note(a.buffer);
    return a;
  }
}
