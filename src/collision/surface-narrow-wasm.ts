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

type Bytes = { buffer: ArrayBufferLike; byteOffset: number; byteLength: number };

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

  /** Whether the module can run (loads it, with a shared memory where the engine has one). */
  ready(): boolean {
    if (this.ex !== null && wasmKernel('narrow') !== null) return true;
    if (this.memory !== null) return false;
    const shared = sharedKernel('narrow');
    const mod = shared ?? wasmKernel('narrow');
    if (mod === null) return false;
    this.memory =
      shared !== null
        ? new WebAssembly.Memory({ initial: 1, maximum: SHARED_MAX_PAGES, shared: true })
        : new WebAssembly.Memory({ initial: 1 });
    this.args = { module: mod, memory: this.memory, table: TABLE };
    this.ex = narrowInstance(this.args);
    return true;
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
   * (the topology when `topoVersion` changed or the layout moved); false where the memory
   * cannot grow that far.
   */
  load(A: NarrowArrays, nv: number, ne: number, topoVersion: number, crossings: boolean): boolean {
    const need = this.need;
    for (let i = 0; i < TOPO.length; i++) need[i] = A[TOPO[i]].byteLength;
    need[T_HR] = A.halfReach.byteLength;
    need[T_THICK] = A.thickness.byteLength;
    need[T_LABEL] = 4 * A.label.length;
    need[T_SHARP] = A.sharp.byteLength;
    need[T_W] = A.invMass.byteLength;
    need[T_X] = A.x.byteLength;
    need[T_P] = A.p.byteLength;
    need[T_SV] = A.sv.byteLength;
    need[T_MOTION] = A.motion.byteLength;
    need[T_VT] = 8 * nv;
    need[T_VTD] = 8 * nv;
    need[T_EE] = 8 * ne;
    need[T_EED] = 8 * ne;
    need[T_RECHECK] = A.recheck.byteLength;
    need[T_VTHITS] = 8 * nv;
    need[T_EEHITS] = 8 * ne;
    let fits = true;
    for (let i = 0; i < T_SCALARS; i++) if (need[i] > this.cap[i]) fits = false;
    if (!fits && !this.layout()) return false;
    const memory = this.memory as WebAssembly.Memory;
    const buf = memory.buffer;
    const bytes = new Uint8Array(buf);
    const addr = this.addr;
    if (!fits || topoVersion !== this.topoVersion || this.topoArrays !== A.tri) {
      for (let i = 0; i < TOPO.length; i++) put(bytes, addr[i], A[TOPO[i]], need[i]);
      this.topoVersion = topoVersion;
      this.topoArrays = A.tri;
    }
    put(bytes, addr[T_HR], A.halfReach, need[T_HR]);
    put(bytes, addr[T_THICK], A.thickness, need[T_THICK]);
    const tangled = A.scalars[N_TANGLED] !== 0;
    if (tangled) {
      // the labels are read only on a tangled surface, as 32-bit integers
      if (A.label instanceof Int32Array) put(bytes, addr[T_LABEL], A.label, need[T_LABEL]);
      else new Int32Array(buf, addr[T_LABEL], A.label.length).set(A.label);
    }
    put(bytes, addr[T_SHARP], A.sharp, need[T_SHARP]);
    put(bytes, addr[T_W], A.invMass, need[T_W]);
    put(bytes, addr[T_X], A.x, need[T_X]);
    put(bytes, addr[T_P], A.p, need[T_P]);
    put(bytes, addr[T_SV], A.sv, need[T_SV]);
    put(bytes, addr[T_MOTION], A.motion, need[T_MOTION]);
    put(bytes, addr[T_VT], A.vtCand, need[T_VT]);
    put(bytes, addr[T_VTD], A.vtDist, need[T_VTD]);
    put(bytes, addr[T_EE], A.eeCand, need[T_EE]);
    put(bytes, addr[T_EED], A.eeDist, need[T_EED]);
    if (crossings && A.scalars[N_RESCAN] !== 0) put(bytes, addr[T_RECHECK], A.recheck, need[T_RECHECK]);
    const s = new Float64Array(buf, SCALARS, 4);
    s[0] = A.scalars[N_MARGIN];
    s[1] = A.scalars[N_MEAN_EDGE];
    s[2] = A.scalars[N_TANGLED];
    s[3] = A.scalars[N_RESCAN];
    return true;
  }

  /** Copies the distance bounds back into A's arrays. */
  unload(A: NarrowArrays, nv: number, ne: number): void {
    const buf = (this.memory as WebAssembly.Memory).buffer;
    if (nv > 0) A.vtDist.set(new Float64Array(buf, this.addr[T_VTD], nv));
    if (ne > 0) A.eeDist.set(new Float64Array(buf, this.addr[T_EED], ne));
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

/** Copies len bytes of a to `at`. */
function put(bytes: Uint8Array, at: number, a: Bytes, len: number): void {
  if (len > 0) bytes.set(new Uint8Array(a.buffer, a.byteOffset, len), at);
}
