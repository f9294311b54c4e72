/**
 * The store's allocation option (docs/architecture.md, "Live views: the store's allocation",
 * session 20, home27): one growable shared WebAssembly memory from which a ParticleStore takes
 * its x, p, v and invMass and the kernels that work on them (the elements module's particle
 * windows, src/wasm/paired-group.ts; the strand kernels, src/strands/strand-kernel.ts) take their
 * other regions, so that the kernels work on the arrays the store handed out before the first
 * step: nothing is moved ("homed") into a kernel memory later, and an array a user holds stays
 * live across steps. Every world's is a growable shared memory, made with room for the store's
 * first arrays (session 20, home27b): a grown shared memory keeps its old views valid (only its
 * length grows), so growing it for a new region moves nothing, and making one costs next to
 * nothing (0.009 ms; a grow 0.14 ms, hence the room and grows by half the size at least; home27's
 * one-thread plain memory of 4096 pages, which never grew, made `new World` 19.6 ms: V8 counts its
 * 256 MiB as external memory and ran a full GC almost every world). The one-thread kernels run on
 * it as fast as on a plain memory once the multipliers' fills and the window's copies to p go
 * through wasm's bulk operations (zeroFill, copyRange: a typed array's fill or set on a shared
 * buffer is 4–10× slower in V8). Where shared memory is missing (a page without cross-origin
 * isolation) there is none: the store allocates plain arrays, which the kernels home at the first
 * step (`version` goes up). When it is full (1 GiB), or a plain one made for a test, `alloc` says
 * so (−1) and the store falls back to plain arrays as well.
 *
 * Regions are first-fit, 64-byte aligned, from byte 1024 on (the first KiB stays free, as in a
 * kernel memory of its own: wasm/paired.ts Arena). What frees a region must make sure that nothing
 * reads it any more (a rebuilt kernel group rescues its sets' multipliers first).
 */

/** Pages (64 KiB) the memory may grow to: 1 GiB, as a kernel's shared memory (wasm/kernels.ts SHARED_MAX_PAGES). */
const MAX_PAGES = 16384;
const ALIGN = 64;

/** The bulk module's exports: wasm's memory.fill (zeros) and memory.copy on the store's memory. */
export interface BulkOps {
  fill(at: number, bytes: number): void;
  copy(to: number, from: number, bytes: number): void;
}

/**
 * The bulk module (hand-assembled, 92 bytes): imports env.memory (shared, 1 to MAX_PAGES pages),
 * exports fill(at, bytes) = memory.fill(at, 0, bytes) and copy(to, from, bytes) = memory.copy.
 * A typed array's fill or set on a SharedArrayBuffer costs 4–10× a plain buffer's in V8 (it stores
 * word by word with relaxed atomics; 120 k f32 zeroed: 28 µs against 3, measured session 20,
 * home27b), which made a one-thread world on the shared store memory 1.03–1.05× the CPU of a plain
 * one on cloth-201-fall-f32 (ten multiplier fills a step); wasm's bulk operations run at memset's speed
 * on a shared memory too (2.8 µs).
 */
// biome-ignore format: the module's bytes, a section or two a line
const BULK = [
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  // types: (i32 i32) -> (), (i32 i32 i32) -> ()
  0x01, 0x0c, 0x02, 0x60, 0x02, 0x7f, 0x7f, 0x00, 0x60, 0x03, 0x7f, 0x7f, 0x7f, 0x00,
  // import env.memory: shared, min 1, max 16384 (MAX_PAGES)
  0x02, 0x12, 0x01, 0x03, 0x65, 0x6e, 0x76, 0x06, 0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79,
  0x02, 0x03, 0x01, 0x80, 0x80, 0x01,
  // functions: fill (type 0), copy (type 1); exports "fill", "copy"
  0x03, 0x03, 0x02, 0x00, 0x01,
  0x07, 0x0f, 0x02, 0x04, 0x66, 0x69, 0x6c, 0x6c, 0x00, 0x00, 0x04, 0x63, 0x6f, 0x70, 0x79, 0x00, 0x01,
  // code: memory.fill(at, 0, bytes); memory.copy(to, from, bytes)
  0x0a, 0x1a, 0x02,
  0x0b, 0x00, 0x20, 0x00, 0x41, 0x00, 0x20, 0x01, 0xfc, 0x0b, 0x00, 0x0b,
  0x0c, 0x00, 0x20, 0x00, 0x20, 0x01, 0x20, 0x02, 0xfc, 0x0a, 0x00, 0x00, 0x0b,
];
let bulkModule: WebAssembly.Module | undefined;
/** The shared store memory each buffer object belongs to (zeroFill, copyRange). */
const owners = new WeakMap<ArrayBufferLike, StoreMemory>();

/**
 * The bulk module instantiated on the shared memory `memory` (a new instance: a worker pool's thread
 * makes its own, session 21, cl28: the pooled f32 sweeps' multiplier fills), else null (a plain
 * memory, or limits the module does not import).
 */
export function bulkOn(memory: WebAssembly.Memory): BulkOps | null {
  try {
    bulkModule ??= new WebAssembly.Module(new Uint8Array(BULK));
    return new WebAssembly.Instance(bulkModule, { env: { memory } }).exports as unknown as BulkOps;
  } catch {
    return null;
  }
}

/** a.fill(0); on a shared store memory by wasm's memory.fill (the same zeros at memset's speed). */
export function zeroFill(a: Float64Array | Float32Array): void {
  const ops = owners.get(a.buffer)?.bulkOps() ?? null;
  if (ops === null) a.fill(0);
  else ops.fill(a.byteOffset, a.byteLength);
}

/**
 * dst.set(src.subarray(from, to), at) for arrays of one type; where both lie on one shared store
 * memory by wasm's memory.copy (the same values; see BULK).
 */
export function copyRange(dst: Float64Array, at: number, src: Float64Array, from: number, to: number): void {
  const m = owners.get(dst.buffer);
  const ops = m !== undefined && owners.get(src.buffer) === m ? m.bulkOps() : null;
  if (ops === null) dst.set(src.subarray(from, to), at);
  else ops.copy(dst.byteOffset + 8 * at, src.byteOffset + 8 * from, 8 * (to - from));
}

export class StoreMemory {
  readonly memory: WebAssembly.Memory;
  /** Every buffer the memory has had (a grow gives a new one; views made before keep theirs). */
  private readonly buffers: ArrayBufferLike[] = [];
  /** Free regions as (offset, bytes) pairs in address order; `top`: the end of the last region in use. */
  private readonly free: number[] = [];
  private readonly sizes = new Map<number, number>();
  private top = 1024;
  /** The end of the highest region ever handed out (the bytes past it are still zero). */
  private high = 1024;
  private bulk: BulkOps | null | undefined = undefined;

  private constructor(
    memory: WebAssembly.Memory,
    /** Whether it is shared (a threaded world's: its kernels' modules import a shared memory). */
    readonly shared: boolean,
  ) {
    this.memory = memory;
    this.buffers.push(memory.buffer);
    if (shared) owners.set(memory.buffer, this);
  }

  /**
   * A World's store memory: the growable shared one (for one thread too: session 20, home27b), with
   * room for `bytes` from the start (growing a shared memory costs 0.14 ms, making one 0.01 ms);
   * null where WebAssembly or shared WebAssembly memory is missing (a page without cross-origin
   * isolation): the store allocates plain arrays, which the kernels home at the first step.
   */
  static create(bytes = 0): StoreMemory | null {
    if (typeof WebAssembly === 'undefined' || typeof SharedArrayBuffer === 'undefined') return null;
    const initial = Math.min(MAX_PAGES, Math.ceil((1024 + bytes) / 65536));
    try {
      return new StoreMemory(new WebAssembly.Memory({ initial, maximum: MAX_PAGES, shared: true }), true);
    } catch {
      return null;
    }
  }

  /** A plain memory of `pages` that never grows (a plain memory's grow detaches every view): the tests' full memory. */
  static plain(pages: number): StoreMemory | null {
    if (typeof WebAssembly === 'undefined') return null;
    try {
      return new StoreMemory(new WebAssembly.Memory({ initial: pages, maximum: pages }), false);
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
    if (this.owns(b)) return;
    this.buffers.push(b);
    if (this.shared) owners.set(b, this);
  }

  /** The bulk module's instance on a shared memory (made at its first use), else null. */
  bulkOps(): BulkOps | null {
    if (this.bulk !== undefined) return this.bulk;
    this.bulk = this.shared ? bulkOn(this.memory) : null;
    return this.bulk;
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
      // by half its size at least (each grow of a shared memory costs 0.14 ms), up to MAX_PAGES
      this.memory.grow(Math.max(pages, Math.min(have / 131072, MAX_PAGES - have / 65536)) | 0);
      this.note(this.memory.buffer);
    }
    this.top = end;
    this.high = Math.max(this.high, end);
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
    const high = this.high;
    const at = this.alloc(8 * n);
    if (at < 0) return null;
    const a = new Float64Array(this.memory.buffer, at, n);
    // (bytes never handed out are the memory's zeros; a region handed out before is zeroed)
    if (at < high) zeroFill(a);
    // (the engine may give a new buffer object of the same memory without a grow: each is noted)
    this.note(a.buffer);
    return a;
  }
}
