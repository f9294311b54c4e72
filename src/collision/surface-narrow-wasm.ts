import { SHARED_MAX_PAGES, sharedKernel, wasmKernel } from '../wasm/kernels.js';
import { threadInstance } from '../wasm/thread-instance.js';
import {
  T_EE,
  T_EED,
  T_EEHITS,
  T_HR,
  T_LABEL,
  T_MOTION,
  T_P,
  T_RECHECK,
  T_SCALARS,
  T_SHARP,
  T_SLOTS,
  T_SV,
  T_THICK,
  T_VT,
  T_VTD,
  T_VTHITS,
  T_W,
  T_X,
} from './narrow-slots.generated.js';
import type { BroadMemory } from './surface-broad-wasm.js';
import { N_MARGIN, N_MEAN_EDGE, N_RESCAN, N_TANGLED, type NarrowArrays } from './surface-narrow-scan.js';

/**
 * The narrow phase's detection scans in WebAssembly (wasm/narrow.ts, a port
 * of surface-narrow-scan.ts that writes the same hits and distance bounds,
 * entry for entry; docs/collision.md, "Tenth round, the narrow phase").
 * Each scan copies what it reads into the module's memory (the topology
 * only when it changed), runs there, on the calling thread or in blocks on
 * the pool (each thread's instance over the same shared memory), and copies
 * the distance bounds and the hits back. Unavailable (`ready` false) where
 * WebAssembly or SIMD is missing or `useWasmKernels(false)`: the JavaScript
 * scans run then, with the same results.
 *
 * On the broad phase's memory (`ready(home)`, where the broad phase has a
 * shared WebAssembly memory: docs/collision.md, "Seventeenth round"), the
 * module runs on that memory instead of its own: the arrays that lie there
 * (the swept boxes, the motions, the sharp edges, the candidates and their
 * bounds) are read and written where they are, with no copy in and no copy
 * of the bounds back; only the others (x, p and the inverse masses of the
 * store's particles, the per-surface reaches and thicknesses, the topology
 * once per version) are copied into slots allocated in that memory.
 */

/** The module's scans, by byte address of the address table (wasm/narrow.ts T_*). */
export interface NarrowExports {
  scanVt(table: number, k0: number, k1: number): number;
  scanEe(table: number, k0: number, k1: number): number;
  crossVt(table: number, k0: number, k1: number): number;
  crossEe(table: number, k0: number, k1: number): number;
}

/** What a pool task needs to run a scan's blocks: the module, its memory, the table's address. */
export interface WasmNarrowArgs {
  module: WebAssembly.Module;
  memory: WebAssembly.Memory;
  table: number;
}

/** Each thread's instance of the module on a memory, by task arguments. */
const instances = new WeakMap<WasmNarrowArgs, NarrowExports>();

export function narrowInstance(W: WasmNarrowArgs): NarrowExports {
  return threadInstance(instances, W);
}

/**
 * The arrays in the order of the module's address table (T_TRI … T_EEHITS, then the scalars), which
 * is written once for this file and wasm/narrow.ts in scripts/kernels/emit-slots.ts (NARROW).
 */
const TOPO = ['tri', 'edge', 'vertex', 'vertexSurface', 'triSurface', 'edgeSurface'] as const;
const TABLE = 64;
const SCALARS = 192;
const FIRST = 256;
const PAGE = 65536;

export class WasmNarrow {
  private memory: WebAssembly.Memory | null = null;
  private ex: NarrowExports | null = null;
  /** Bytes each slot holds, and its address. */
  private readonly cap = new Float64Array(T_SLOTS);
  private readonly addr = new Int32Array(T_SLOTS);
  private readonly need = new Float64Array(T_SLOTS);
  private topoVersion = -1;
  private topoArrays: Int32Array | null = null;
  /** The task arguments for this memory (made again when the memory is new). */
  args: WasmNarrowArgs | null = null;
  /** Scans that ran in WebAssembly (statistics, tests). */
  runs = 0;
  /** The broad phase's memory the module runs on (null: its own memory), and the slots resident there (1: read in place). */
  private home: BroadMemory | null = null;
  private readonly resident = new Uint8Array(T_SLOTS);
  /** Per slot: its copy's address on the broad phase's memory, and the array a scan reads there. */
  private readonly slotAt = new Int32Array(T_SLOTS);
  private readonly src: (ArrayBufferView | null)[] = new Array(T_SLOTS).fill(null);
  /** Bytes copied into the memory by the last `load` (tests: none for the arrays resident on the broad phase's memory). */
  copied = 0;
  /** Per slot: the array `preload` copied there for the next `load`, and its bytes (session 23). */
  private readonly pre: (ArrayBufferView | null)[] = new Array(T_SLOTS).fill(null);
  private readonly preLen = new Int32Array(T_SLOTS);
  /** Loads that found x, p and the inverse masses copied ahead (statistics, tests). */
  preloaded = 0;

  /**
   * Copies x, p and the inverse masses w (their first `particles`) into their slots on `home` ahead of the
   * next `load`, which then does not copy them again where it reads the same arrays (docs/collision.md,
   * "Eighteenth round": the lead of the broad phase's check job, which reads them and writes none of them,
   * before a scan of the same x and p). Nothing where the module is not on `home`.
   */
  preload(
    home: BroadMemory | null,
    x: Float64Array,
    p: Float64Array,
    w: Float64Array,
    particles: number,
  ): void {
    if (home === null || this.home !== home) return;
    const bytes = new Uint8Array(home.memory.buffer);
    for (let k = 0; k < 3; k++) {
      const i = k === 0 ? T_X : k === 1 ? T_P : T_W,
        a = k === 0 ? x : k === 1 ? p : w;
      const len = Math.min(a.byteLength, (k === 2 ? 8 : 24) * particles);
      if (home.holds(a)) continue;
      if (len > this.cap[i] && !this.slot(home, i, len)) return;
      bytes.set(new Uint8Array(a.buffer, a.byteOffset, len), this.slotAt[i]);
      this.pre[i] = a;
      this.preLen[i] = len;
    }
  }

  /** Forgets what `preload` copied (every `load` uses it once at most); false. */
  private unpreload(): false {
    this.pre.fill(null);
    return false;
  }

  /** A new slot i of room for `need` bytes (a quarter more) on home; false where the memory cannot grow. */
  private slot(home: BroadMemory, i: number, need: number): boolean {
    this.cap[i] = Math.max(64, 8 * Math.ceil((1.25 * need) / 8));
    try {
      this.slotAt[i] = home.alloc(this.cap[i]);
    } catch {
      this.cap[i] = 0;
      return false;
    }
    return true;
  }

  /**
   * Whether the module can run (loads it, with a shared memory where the engine has one): on `home`
   * (the broad phase's memory) where it is given and the module can import a shared memory.
   */
  ready(home: BroadMemory | null = null): boolean {
    const shared = home !== null ? sharedKernel('narrow') : null;
    if (home !== null && shared !== null) {
      if (this.home !== home) this.moveTo(home, shared);
      return true;
    }
    if (this.home !== null) {
      // the broad phase has no memory now (or the module is off): the module's own again
      this.home = null;
      this.memory = null;
      this.ex = null;
      this.args = null;
    }
    if (this.ex !== null && wasmKernel('narrow') !== null) return true;
    if (this.memory !== null) return false;
    const own = sharedKernel('narrow');
    const mod = own ?? wasmKernel('narrow');
    if (mod === null) return false;
    this.memory =
      own !== null
        ? new WebAssembly.Memory({ initial: 1, maximum: SHARED_MAX_PAGES, shared: true })
        : new WebAssembly.Memory({ initial: 1 });
    this.args = { module: mod, memory: this.memory, table: TABLE };
    this.ex = narrowInstance(this.args);
    this.cap.fill(0);
    this.resident.fill(0);
    this.topoVersion = -1;
    return true;
  }

  /** The module on the broad phase's memory: its table, scalars and slots allocated there (the slots at the next `load`). */
  private moveTo(home: BroadMemory, mod: WebAssembly.Module): void {
    this.home = home;
    this.pre.fill(null);
    this.memory = home.memory;
    const table = home.alloc(4 * T_SLOTS + 32);
    this.addr[T_SCALARS] = (table + 4 * T_SLOTS + 7) & ~7;
    this.args = { module: mod, memory: home.memory, table };
    this.ex = narrowInstance(this.args);
    this.cap.fill(0);
    this.resident.fill(0);
    this.topoVersion = -1;
  }

  /** Whether the memory is shared (the pool's threads can scan it). */
  get shared(): boolean {
    return this.memory !== null && this.memory.buffer instanceof SharedArrayBuffer;
  }

  get exports(): NarrowExports {
    return this.ex as NarrowExports;
  }

  /**
   * Copies what a scan of nv vertex–triangle and ne edge–edge candidates reads into the memory
   * (the topology when `topoVersion` changed or the layout moved; on the broad phase's memory,
   * only the arrays that do not lie there; of the store's x, p and inverse masses only the first
   * `particles`: the surfaces' vertices are among them, the rest is room); false where the memory
   * cannot grow that far.
   */
  load(
    A: NarrowArrays,
    nv: number,
    ne: number,
    topoVersion: number,
    crossings: boolean,
    particles = Number.POSITIVE_INFINITY,
  ): boolean {
    const need = this.need,
      src = this.src;
    for (let i = 0; i < TOPO.length; i++) {
      src[i] = A[TOPO[i]];
      need[i] = A[TOPO[i]].byteLength;
    }
    src[T_HR] = A.halfReach;
    src[T_THICK] = A.thickness;
    // (the labels are read as 32-bit integers: other arrays are converted into a slot)
    src[T_LABEL] = A.label instanceof Int32Array ? A.label : null;
    src[T_SHARP] = A.sharp;
    src[T_W] = A.invMass;
    src[T_X] = A.x;
    src[T_P] = A.p;
    src[T_SV] = A.sv;
    src[T_MOTION] = A.motion;
    src[T_VT] = A.vtCand;
    src[T_VTD] = A.vtDist;
    src[T_EE] = A.eeCand;
    src[T_EED] = A.eeDist;
    src[T_RECHECK] = A.recheck;
    src[T_VTHITS] = src[T_EEHITS] = null;
    for (let i = TOPO.length; i < T_SCALARS; i++) need[i] = src[i]?.byteLength ?? 0;
    need[T_W] = Math.min(need[T_W], 8 * particles);
    need[T_X] = Math.min(need[T_X], 24 * particles);
    need[T_P] = Math.min(need[T_P], 24 * particles);
    need[T_LABEL] = 4 * A.label.length;
    need[T_VT] = need[T_VTD] = need[T_VTHITS] = 8 * nv;
    need[T_EE] = need[T_EED] = need[T_EEHITS] = 8 * ne;
    let moved = false;
    if (this.home !== null) {
      const m = this.placeAtHome();
      if (m === null) return this.unpreload();
      moved = m;
    } else {
      for (let i = 0; i < T_SCALARS; i++) if (need[i] > this.cap[i]) moved = true;
      if (moved && !this.layout()) return this.unpreload();
    }
    const memory = this.memory as WebAssembly.Memory;
    const buf = memory.buffer;
    const bytes = new Uint8Array(buf);
    const addr = this.addr;
    this.copied = 0;
    if (moved || topoVersion !== this.topoVersion || this.topoArrays !== A.tri) {
      for (let i = 0; i < TOPO.length; i++) this.put(bytes, i);
      this.topoVersion = topoVersion;
      this.topoArrays = A.tri;
    }
    this.put(bytes, T_HR);
    this.put(bytes, T_THICK);
    if (A.scalars[N_TANGLED] !== 0) {
      // the labels are read only on a tangled surface
      if (src[T_LABEL] !== null) this.put(bytes, T_LABEL);
      else {
        new Int32Array(buf, addr[T_LABEL], A.label.length).set(A.label);
        this.copied += need[T_LABEL];
      }
    }
    for (let i = T_SHARP; i < T_RECHECK; i++) this.put(bytes, i);
    this.unpreload();
    if (crossings && A.scalars[N_RESCAN] !== 0) this.put(bytes, T_RECHECK);
    const s = new Float64Array(buf, addr[T_SCALARS], 4);
    s[0] = A.scalars[N_MARGIN];
    s[1] = A.scalars[N_MEAN_EDGE];
    s[2] = A.scalars[N_TANGLED];
    s[3] = A.scalars[N_RESCAN];
    return true;
  }

  /** Copies the distance bounds back into A's arrays (not those read and written where they are). */
  unload(A: NarrowArrays, nv: number, ne: number): void {
    const buf = (this.memory as WebAssembly.Memory).buffer;
    if (nv > 0 && this.resident[T_VTD] === 0) A.vtDist.set(new Float64Array(buf, this.addr[T_VTD], nv));
    if (ne > 0 && this.resident[T_EED] === 0) A.eeDist.set(new Float64Array(buf, this.addr[T_EED], ne));
  }

  /** Copies slot i's array (its `need` bytes) to its address, unless the module reads it where it is. */
  private put(bytes: Uint8Array, i: number): void {
    const a = this.src[i],
      len = this.need[i];
    if (this.resident[i] !== 0 || a === null || len <= 0) return;
    if (this.pre[i] === a && this.preLen[i] === len && this.addr[i] === this.slotAt[i]) {
      // (copied ahead by `preload`: the same array and bytes in this slot)
      this.copied += len;
      if (i === T_X) this.preloaded++;
      return;
    }
    bytes.set(new Uint8Array(a.buffer, a.byteOffset, len), this.addr[i]);
    this.copied += len;
  }

  /**
   * The addresses on the broad phase's memory: an array's own where it lies there (read in place),
   * else its slot there (allocated anew, with a quarter more room, where small); writes the table.
   * Whether a topology array has a new place (copy it again), or null where the memory cannot grow.
   */
  private placeAtHome(): boolean | null {
    const home = this.home as BroadMemory,
      need = this.need,
      cap = this.cap,
      addr = this.addr,
      src = this.src,
      res = this.resident;
    let moved = false;
    for (let i = 0; i < T_SCALARS; i++) {
      const a = src[i];
      if (a !== null && a.byteLength >= need[i] && home.holds(a)) {
        res[i] = 1;
        addr[i] = a.byteOffset;
        continue;
      }
      if (res[i] !== 0 || need[i] > cap[i]) {
        if (i < TOPO.length) moved = true;
        if (need[i] > cap[i] && !this.slot(home, i, need[i])) return null;
      }
      res[i] = 0;
      addr[i] = this.slotAt[i];
    }
    new Int32Array(home.memory.buffer, (this.args as WasmNarrowArgs).table, T_SLOTS).set(addr);
    return moved;
  }

  /** The hits a scan wrote (vertex–triangle or edge–edge), 2 Int32 per candidate slot. */
  hits(vt: boolean, n: number): Int32Array {
    const buf = (this.memory as WebAssembly.Memory).buffer;
    return new Int32Array(buf, this.addr[vt ? T_VTHITS : T_EEHITS], 2 * n);
  }

  /** New addresses with room for `need` (and a quarter more), the memory grown; writes the table. */
  private layout(): boolean {
    const need = this.need,
      cap = this.cap,
      addr = this.addr;
    let at = FIRST;
    for (let i = 0; i < T_SCALARS; i++) {
      cap[i] = Math.max(64, 8 * Math.ceil((1.25 * need[i]) / 8));
      addr[i] = at;
      at += cap[i] + 16;
      at = (at + 15) & ~15;
    }
    const memory = this.memory as WebAssembly.Memory;
    const pages = Math.ceil(at / PAGE);
    const have = memory.buffer.byteLength / PAGE;
    if (pages > have) {
      if (this.shared && pages > SHARED_MAX_PAGES) return false;
      memory.grow(pages - have);
    }
    addr[T_SCALARS] = SCALARS;
    new Int32Array(memory.buffer, TABLE, T_SLOTS).set(addr);
    this.topoVersion = -1;
    return true;
  }
}

/**
 * `a` where it lies in `mem` (or where there is no such memory), else a copy of it there of the
 * same length (the broad phase's lists when they grew elsewhere: docs/collision.md, "Seventeenth round").
 */
export function inMemory<T extends Int32Array | Float64Array>(mem: BroadMemory | null, a: T): T {
  if (mem === null || mem.holds(a)) return a;
  const b = a instanceof Int32Array ? mem.i32(a.length) : mem.f64(a.length);
  (b as Int32Array).set(a as Int32Array);
  return b as T;
}
