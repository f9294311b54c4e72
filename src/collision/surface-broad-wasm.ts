import { wasmKernel } from '../wasm/kernels.js';
import {
  B_MARGIN,
  B_MEAN_EDGE,
  B_SURFACES,
  type BroadArrays,
  grow32,
  type PairSink,
} from './surface-broad-pairs.js';

/** The BroadArrays a full rebuild's candidate tests read, in the order of the module's address table (wasm/surfaces.ts setArrays). */
const ARRAYS = [
  'tri',
  'edge',
  'vertex',
  'vertexSurface',
  'triSurface',
  'edgeSurface',
  'ownVStart',
  'ownV',
  'ownEStart',
  'ownE',
  'halfReach',
  'thickness',
  'pairOn',
  'snap',
  'delta',
  'vBox',
  'tBox',
  'tSphere',
  'eBox',
  'eHalf',
  'sharp',
  'group',
  'mask',
] as const;

interface SurfaceExports {
  setArrays(table: number, surfaces: number, margin: number, meanEdge: number): void;
  setOut(vt: number, vtCap: number, ee: number, eeCap: number): void;
  vtCount(): number;
  eeCount(): number;
  collectPairRange(pairs: number, k0: number, k1: number): number;
}

const PAGE = 65536;

/**
 * The candidate tests of a full rebuild's triangle pairs in WebAssembly
 * (wasm/surfaces.ts, a port of collectPairRange that gives the same lists,
 * entry for entry): each run copies the arrays the tests read (~3 MB for a
 * 6,000-vertex cloth) and the triangle pairs into the module's memory, runs
 * the tests there and appends the candidates to the sink. Used where the
 * JavaScript loop would run on the calling thread; `run` returns false
 * (nothing appended) where the module is missing (no WebAssembly or SIMD,
 * `useWasmKernels(false)`) or the tests met a degenerate triangle, and the
 * JavaScript loop runs instead. docs/collision.md, "Ninth round".
 */
export class WasmPairTests {
  private memory: WebAssembly.Memory | null = null;
  private k: SurfaceExports | null = null;
  /** Output room (candidate pairs of each kind), grown when a run fills it (0: 4 per triangle, at least 1,024). */
  private vtRoom: number;
  private eeRoom: number;
  /** Runs that gave the lists (statistics, tests). */
  runs = 0;

  constructor(room = 0) {
    this.vtRoom = this.eeRoom = room;
  }

  run(A: BroadArrays, pairs: Int32Array, np: number, out: PairSink): boolean {
    const mod = wasmKernel('surfaces');
    if (mod === null) return false;
    if (this.vtRoom === 0) this.vtRoom = this.eeRoom = Math.max(1024, 4 * (A.tri.length / 3));
    for (;;) {
      // the address table, the arrays, the pairs, the outputs: 8-byte aligned
      let at = 64 + 4 * ARRAYS.length;
      const addr = new Int32Array(ARRAYS.length);
      for (let i = 0; i < ARRAYS.length; i++) {
        at = (at + 7) & ~7;
        addr[i] = at;
        at += A[ARRAYS[i]].byteLength;
      }
      at = (at + 7) & ~7;
      const pairsAt = at;
      at += 8 * np;
      const vtAt = at;
      at += 8 * this.vtRoom;
      const eeAt = at;
      at += 8 * this.eeRoom;
      const k = this.instance(mod, at);
      const buf = this.memory!.buffer;
      const bytes = new Uint8Array(buf);
      new Int32Array(buf, 64, ARRAYS.length).set(addr);
      for (let i = 0; i < ARRAYS.length; i++) {
        const a = A[ARRAYS[i]];
        bytes.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), addr[i]);
      }
      new Int32Array(buf, pairsAt, 2 * np).set(pairs.subarray(0, 2 * np));
      const s = A.scalars;
      k.setArrays(64, s[B_SURFACES] | 0, s[B_MARGIN], s[B_MEAN_EDGE]);
      k.setOut(vtAt, this.vtRoom, eeAt, this.eeRoom);
      const status = k.collectPairRange(pairsAt, 0, np);
      if (status === 2) return false;
      if (status === 1) {
        // an output filled up: more room, and the same run again
        if (k.vtCount() >= this.vtRoom) this.vtRoom *= 2;
        if (k.eeCount() >= this.eeRoom) this.eeRoom *= 2;
        continue;
      }
      append(out, true, new Int32Array(buf, vtAt, 2 * k.vtCount()));
      append(out, false, new Int32Array(buf, eeAt, 2 * k.eeCount()));
      this.runs++;
      return true;
    }
  }

  /** The module's instance over a memory of at least `size` bytes. */
  private instance(mod: WebAssembly.Module, size: number): SurfaceExports {
    const pages = Math.ceil(size / PAGE);
    if (this.memory === null) {
      this.memory = new WebAssembly.Memory({ initial: pages });
      this.k = new WebAssembly.Instance(mod, { env: { memory: this.memory } })
        .exports as unknown as SurfaceExports;
    } else {
      const have = this.memory.buffer.byteLength / PAGE;
      if (have < pages) this.memory.grow(pages - have);
    }
    return this.k!;
  }
}

/** Appends candidate pairs to the sink's vertex–triangle (vt) or edge–edge list, growing it. */
function append(out: PairSink, vt: boolean, from: Int32Array): void {
  const n = vt ? out.vtCount : out.eeCount;
  const need = 2 * n + from.length;
  let to = vt ? out.vt : out.ee;
  if (need > to.length) to = grow32(to, need);
  to.set(from, 2 * n);
  if (vt) {
    out.vt = to;
    out.vtCount = n + from.length / 2;
  } else {
    out.ee = to;
    out.eeCount = n + from.length / 2;
  }
}
