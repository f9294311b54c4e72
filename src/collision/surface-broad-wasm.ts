import { threadIndex } from '../core/block-order.js';
import { SHARED_MAX_PAGES, sharedKernel, wasmKernel } from '../wasm/kernels.js';
import { threadInstance } from '../wasm/thread-instance.js';
import { ARRAYS, GROUP_SLOTS, TREE_ARRAYS } from './broad-slots.generated.js';
import type { Bvh } from './bvh.js';
import type { ArrayAlloc } from './surface-broad-items.js';
import {
  B_MARGIN,
  B_MEAN_EDGE,
  B_SURFACES,
  type BroadArrays,
  collectPairRange,
  grow32,
  type PairSink,
} from './surface-broad-pairs.js';

// ARRAYS (the BroadArrays the candidate tests read), TREE_ARRAYS and GROUP_SLOTS: the module's address
// table, written once with wasm/surfaces.ts's globals in scripts/kernels/emit-slots.ts (BROAD)

/** The first ARRAYS that a topology fixes (copied into the memory once per topology version). */
export const TOPOLOGY_ARRAYS = 10;
const SLOTS = ARRAYS.length + TREE_ARRAYS.length + GROUP_SLOTS;

export interface SurfaceExports {
  setArrays(table: number, surfaces: number, margin: number, meanEdge: number): void;
  recordBytes(nv: number, ne: number): number;
  setRecords(rec: number, recAt: number): void;
  packRecords(list: number, k0: number, k1: number): void;
  setOut(vt: number, vtCap: number, ee: number, eeCap: number): void;
  vtCount(): number;
  eeCount(): number;
  collectPairRange(pairs: number, k0: number, k1: number, partial: number): number;
  selfPairsOfNodes(
    a: number,
    b: number,
    out: number,
    n: number,
    cap: number,
    st: number,
    stCap: number,
  ): number;
  selfPairsBounded(
    n: number,
    nodes: number,
    perItem: number,
    maxPairs: number,
    ip: number,
    open: number,
    out: number,
    cap: number,
    st: number,
    stCap: number,
  ): number;
  counted(k: number): number;
  dirtyPairs(
    gFrom: number,
    gTo: number,
    per: number,
    out: number,
    cap: number,
    res: number,
    resCap: number,
    st: number,
    stCap: number,
  ): number;
}

const PAGE = 65536;

/**
 * A shared WebAssembly memory that holds the surface broad phase's arrays (docs/collision.md, "Tenth
 * round"): its snapshots, allowances and vertex boxes, the triangle and edge boxes and spheres, the sharp
 * edges and the dirty flags are allocated here (bump allocation, zeroed, never freed: the broad phase makes
 * a new memory when its topology changes), so the module's instances on every thread of the pool test
 * candidates where the arrays are, with no copy. What lives elsewhere (the topology's arrays, the store's
 * groups and masks, the per-surface values) is copied into slots of it before a run (the topology's once
 * per version).
 */
export class BroadMemory implements ArrayAlloc {
  readonly memory: WebAssembly.Memory;
  private top = 64;
  /** Every buffer object of the memory (a new one after each growth): an array on one of them is resident. */
  private readonly buffers = new WeakSet<ArrayBufferLike>();

  private constructor(bytes: number) {
    const pages = Math.ceil((bytes + 64) / PAGE);
    this.memory = new WebAssembly.Memory({ initial: pages, maximum: SHARED_MAX_PAGES, shared: true });
    this.buffers.add(this.memory.buffer);
  }

  /** A memory of at least `bytes`, or null where there is no shared WebAssembly memory. */
  static create(bytes: number): BroadMemory | null {
    if (typeof WebAssembly === 'undefined' || typeof SharedArrayBuffer === 'undefined') return null;
    try {
      return new BroadMemory(bytes);
    } catch {
      return null;
    }
  }

  /** The byte address of `bytes` new (zeroed) bytes, 8-aligned; the memory grows as needed. */
  alloc(bytes: number): number {
    const at = (this.top + 7) & ~7;
    const end = at + bytes;
    const have = this.memory.buffer.byteLength;
    if (end > have) this.memory.grow(Math.ceil((end - have) / PAGE));
    this.top = end;
    return at;
  }

  private buffer(): ArrayBufferLike {
    const b = this.memory.buffer;
    this.buffers.add(b);
    return b;
  }

  f64(n: number): Float64Array {
    const at = this.alloc(8 * n);
    return new Float64Array(this.buffer(), at, n);
  }

  u8(n: number): Uint8Array {
    const at = this.alloc(n);
    return new Uint8Array(this.buffer(), at, n);
  }

  i32(n: number): Int32Array {
    const at = this.alloc(4 * n);
    return new Int32Array(this.buffer(), at, n);
  }

  /** Whether `a` lies in this memory. */
  holds(a: ArrayBufferView): boolean {
    return this.buffers.has(a.buffer);
  }
}

/** Slots of BroadWasm.lay: the address table, the threads with a region, the triangles' records and their offsets; per thread t from L_THREAD + L_STRIDE t, its region. */
const L_TABLE = 0,
  L_REGIONS = 1,
  L_REC = 2,
  L_REC_AT = 3,
  L_THREAD = 4,
  L_STRIDE = 15;
/** Most threads with a region (more run the JavaScript tests). */
const MAX_REGIONS = 64;

/**
 * What a thread needs to run the module on the broad phase's memory (sent once to the workers in the
 * rebuild's, update's and records' task records): the shared module, the memory, and `lay` (shared), where
 * the calling thread keeps the address table's address and each thread's region for its pairs and
 * candidates up to date between runs.
 */
export interface BroadWasm {
  module: WebAssembly.Module;
  memory: WebAssembly.Memory;
  lay: Int32Array;
}

/**
 * A thread's region in BroadWasm.lay, from its slot r: for its triangle pairs, its vertex–triangle
 * and edge–edge candidates, the traversal's stack and a tree query's results, each at r + the buffer's first slot: the
 * address, its room (pairs, candidates, entries) and the room a run on the thread found too small
 * (the calling thread grows it before the next run; the candidates' need at VT).
 */
const PAIRS = 0,
  VT = 3,
  EE = 6,
  STACK = 9,
  RES = 12;

/** Each thread's instance of the module, by the BroadWasm record it came with. */
const instances = new WeakMap<BroadWasm, SurfaceExports>();

export function instanceOf(W: BroadWasm): SurfaceExports {
  return threadInstance(instances, W);
}

/** The instance pointed at the address table, the scalars of A (or s) and the triangles' records (lay). */
export function bindInstance(k: SurfaceExports, L: Int32Array, A: BroadArrays | null, s = A!.scalars): void {
  k.setArrays(L[L_TABLE], s[B_SURFACES] | 0, s[B_MARGIN], s[B_MEAN_EDGE]);
  k.setRecords(L[L_REC], L[L_REC_AT]);
}

/** The byte offsets of the triangles' records (wasm/surfaces.ts packRecords) into at[0 … nt] from the ownership; returns their total bytes. */
function recordOffsets(k: SurfaceExports, A: BroadArrays, at: Int32Array, nt: number): number {
  const ovs = A.ownVStart,
    oes = A.ownEStart;
  let o = 0;
  for (let t = 0; t < nt; t++) {
    at[t] = o;
    o += k.recordBytes(ovs[t + 1] - ovs[t], oes[t + 1] - oes[t]);
  }
  at[nt] = o;
  return o;
}

/**
 * The candidate tests of triangle pairs[0 … np) (a full rebuild's, or with `partial` an update's:
 * collectPairRange) on this thread: in the module, over the memory, in this thread's region (the pairs copied
 * in, the candidates appended to `out`); where the region is too small (its need is noted for the calling
 * thread), the module met a degenerate triangle or W is null, the JavaScript loop runs instead. The same
 * lists either way. True where the module ran them.
 */
export function testPairs(
  W: BroadWasm | null,
  A: BroadArrays,
  pairs: Int32Array,
  np: number,
  partial: boolean,
  out: PairSink,
): boolean {
  if (W !== null) {
    const ti = threadIndex();
    const L = W.lay;
    if (ti < L[L_REGIONS] && runRegion(W, A, L_THREAD + L_STRIDE * ti, pairs, np, partial, out) === 0)
      return true;
  }
  collectPairRange(A, pairs, 0, np, out, partial);
  return false;
}

/** Slots of a buffer in a region (see PAIRS). */
const CAP = 1,
  NEED = 2;

/** What partsInModule found, in this thread's region: triangle pairs, vertex–triangle and edge–edge candidates. */
export interface ModuleParts {
  pairs: Int32Array;
  vt: Int32Array;
  ee: Int32Array;
}

/**
 * A pooled rebuild's frontier parts from … to − 1 (node pairs front[2f],
 * front[2f + 1]) in the module on this thread: the tree's self-traversal
 * from each (bvh-self-pairs.ts frontierPartPairs: the same pairs in the same
 * order, at most `most` in all) into the region, and those pairs' candidate
 * tests (collectPairRange) straight from there, no copy in between (the tree's
 * nodes are in the memory: `ready` with them). 'budget' where `most` was
 * reached; null where the region was too small (its need noted for the
 * calling thread), the module met a degenerate triangle or is not here:
 * the caller then runs the JavaScript traversal and testPairs.
 */
export function partsInModule(
  W: BroadWasm | null,
  A: BroadArrays,
  front: Int32Array,
  from: number,
  to: number,
  most: number,
): ModuleParts | 'budget' | null {
  if (W === null) return null;
  const L = W.lay;
  const ti = threadIndex();
  if (ti >= L[L_REGIONS]) return null;
  const r = L_THREAD + L_STRIDE * ti;
  const k = instanceOf(W);
  bindInstance(k, L, A);
  const cap = Math.min(most, L[r + PAIRS + CAP]),
    P = L[r + PAIRS];
  let np = 0;
  for (let f = from; f < to && np >= 0; f++)
    np = k.selfPairsOfNodes(front[2 * f], front[2 * f + 1], P, np, cap, L[r + STACK], L[r + STACK + CAP]);
  if (np === -1 && cap === most) return 'budget';
  if (np === -1) {
    L[r + PAIRS + NEED] = Math.max(L[r + PAIRS + NEED], 2 * cap);
    return null;
  }
  if (np < 0) {
    L[r + STACK + NEED] = Math.max(L[r + STACK + NEED], 2 * L[r + STACK + CAP]);
    return null;
  }
  k.setOut(L[r + VT], L[r + VT + CAP], L[r + EE], L[r + EE + CAP]);
  const status = k.collectPairRange(P, 0, np, 0);
  if (status === 1)
    L[r + VT + NEED] = Math.max(L[r + VT + NEED], 2 * Math.max(L[r + VT + CAP], L[r + EE + CAP]));
  if (status !== 0) return null;
  const buf = W.memory.buffer;
  return {
    pairs: new Int32Array(buf, P, 2 * np),
    vt: new Int32Array(buf, L[r + VT], 2 * k.vtCount()),
    ee: new Int32Array(buf, L[r + EE], 2 * k.eeCount()),
  };
}

/** What groupsInModule found: the candidates, and the triangles or queries past their budget. */
export interface ModuleGroups {
  vt: Int32Array;
  ee: Int32Array;
  over: number;
}

/**
 * An incremental update's groups from … to − 1 in the module, in the region
 * at lay[r …] (after `ready` with the dirty triangles and their ends): the
 * tree queries and per-triangle filter (wasm/surfaces.ts dirtyPairs, the
 * pairs of surface-broad-pairs.ts collectDirtyPairs in its order) into the
 * region, and their tests in partial mode straight from there. Returns the
 * pair count (`over` in `k.counted(0)`, the candidates at the region's
 * VT and EE), −1 where a buffer was too small (its need noted for the
 * calling thread), −2 where a degenerate triangle handed the tests back.
 */
function groupsInRegion(
  W: BroadWasm,
  A: BroadArrays,
  r: number,
  from: number,
  to: number,
  per: number,
): number {
  const L = W.lay,
    k = instanceOf(W);
  bindInstance(k, L, A);
  const P = L[r + PAIRS];
  const np = k.dirtyPairs(
    from,
    to,
    per,
    P,
    L[r + PAIRS + CAP],
    L[r + RES],
    L[r + RES + CAP],
    L[r + STACK],
    L[r + STACK + CAP],
  );
  if (np < 0) {
    if (np === -1) L[r + PAIRS + NEED] = Math.max(L[r + PAIRS + NEED], 2 * L[r + PAIRS + CAP]);
    else if (np === -2) L[r + STACK + NEED] = Math.max(L[r + STACK + NEED], 2 * L[r + STACK + CAP]);
    else L[r + RES + NEED] = Math.max(L[r + RES + NEED], k.counted(1));
    return -1;
  }
  k.setOut(L[r + VT], L[r + VT + CAP], L[r + EE], L[r + EE + CAP]);
  const status = k.collectPairRange(P, 0, np, 1);
  if (status === 1) {
    L[r + VT + NEED] = Math.max(L[r + VT + NEED], 2 * Math.max(L[r + VT + CAP], L[r + EE + CAP]));
    return -1;
  }
  return status === 2 ? -2 : np;
}

/**
 * A pooled update's groups from … to − 1 (collectDirtyPairs and their tests)
 * in the module on this thread (groupsInRegion in its region): the
 * candidates (views on the memory) and the count past the budget; null
 * where the module is not here or did not finish (the caller runs the
 * JavaScript queries and testPairs: the same lists).
 */
export function groupsInModule(
  W: BroadWasm | null,
  A: BroadArrays,
  from: number,
  to: number,
  per: number,
): ModuleGroups | null {
  if (W === null) return null;
  const L = W.lay;
  const ti = threadIndex();
  if (ti >= L[L_REGIONS]) return null;
  const r = L_THREAD + L_STRIDE * ti;
  if (groupsInRegion(W, A, r, from, to, per) < 0) return null;
  const k = instanceOf(W);
  const buf = W.memory.buffer;
  return {
    vt: new Int32Array(buf, L[r + VT], 2 * k.vtCount()),
    ee: new Int32Array(buf, L[r + EE], 2 * k.eeCount()),
    over: k.counted(0),
  };
}

/** The module's run in the region at lay[r …]: 0 done (candidates appended to `out`), 1 too little room (noted), 2 handed back. */
function runRegion(
  W: BroadWasm,
  A: BroadArrays,
  r: number,
  pairs: Int32Array,
  np: number,
  partial: boolean,
  out: PairSink,
  inPlace = false,
): number {
  const L = W.lay;
  if (!inPlace && np > L[r + PAIRS + CAP]) {
    L[r + PAIRS + NEED] = Math.max(L[r + PAIRS + NEED], np);
    return 1;
  }
  const k = instanceOf(W);
  const buf = W.memory.buffer;
  if (!inPlace) new Int32Array(buf, L[r + PAIRS], 2 * np).set(pairs.subarray(0, 2 * np));
  bindInstance(k, L, A);
  k.setOut(L[r + VT], L[r + VT + CAP], L[r + EE], L[r + EE + CAP]);
  const status = k.collectPairRange(L[r + PAIRS], 0, np, partial ? 1 : 0);
  if (status === 2) return 2;
  if (status === 1) {
    L[r + VT + NEED] = Math.max(L[r + VT + NEED], 2 * Math.max(L[r + VT + CAP], L[r + EE + CAP]));
    return 1;
  }
  append(out, true, new Int32Array(buf, L[r + VT], 2 * k.vtCount()));
  append(out, false, new Int32Array(buf, L[r + EE], 2 * k.eeCount()));
  return 0;
}

/**
 * The calling thread's side of the module on the broad phase's memory:
 * the address table (`ready` before each rebuild or update), the threads'
 * regions (grown where a run found one too small), and runs on the calling
 * thread (`run`, which grows its region and runs again when it was small).
 */
export class BroadWasmHost {
  readonly mem: BroadMemory;
  private W: BroadWasm | null = null;
  private table = 0;
  /** Per ARRAYS entry not resident: its copy's address and room (bytes), the array and topology version copied. */
  private readonly slotAt = new Int32Array(SLOTS);
  private readonly slotCap = new Int32Array(SLOTS);
  private readonly slotSrc: (ArrayBufferView | null)[] = new Array(SLOTS).fill(null);
  private readonly slotVersion = new Int32Array(SLOTS).fill(-1);
  /** Runs on the calling thread that gave the lists (statistics, tests). */
  runs = 0;
  /** The last `bounded`'s items that reached their budget, whether it stopped at the total; its runs (tests). */
  saturated = 0;
  truncated = false;
  boundedRuns = 0;
  /** The bounded traversal's scratch in the memory: pairs per item, open items per node (address, room in entries). */
  private scratchAt = 0;
  private scratchCap = 0;

  constructor(mem: BroadMemory) {
    this.mem = mem;
  }

  /**
   * The record for this run (null where the module is not available: no SIMD, `useWasmKernels(false)`): the
   * address table written for `A`, for `tree`'s arrays and for an update's dirty triangles and their groups'
   * ends (the arrays not in the memory copied in), regions for `threads` threads.
   */
  ready(
    A: BroadArrays,
    topology: number,
    threads: number,
    tree: Bvh | null = null,
    groups: readonly [dirty: Int32Array, ends: Int32Array] | null = null,
  ): BroadWasm | null {
    const module = wasmKernel('surfaces') === null ? null : sharedKernel('surfaces');
    if (module === null) return null;
    const mem = this.mem;
    if (this.W === null || this.W.module !== module) {
      this.table = mem.alloc(4 * SLOTS);
      const lay = new Int32Array(new SharedArrayBuffer(4 * (L_THREAD + L_STRIDE * MAX_REGIONS)));
      lay[L_TABLE] = this.table;
      this.W = { module, memory: mem.memory, lay };
    }
    const addr = new Int32Array(mem.memory.buffer, this.table, SLOTS);
    for (let i = 0; i < ARRAYS.length; i++) addr[i] = this.place(i, A[ARRAYS[i]], topology);
    if (tree !== null) this.placeTree(tree);
    const G = ARRAYS.length + TREE_ARRAYS.length;
    if (groups !== null) {
      addr[G] = this.place(G, groups[0], -1);
      addr[G + 1] = this.place(G + 1, groups[1], -1);
    }
    this.regions(Math.min(MAX_REGIONS, Math.max(1, threads)), A.tri.length / 3);
    this.records(A, groups === null ? -1 : addr[G], groups === null ? 0 : groups[0].length);
    return this.W;
  }

  /** The ownership (ownVStart) whose records are laid out. */
  private recOwn: Int32Array | null = null;
  /** A rebuild's `ready` lays its records out, leaves them to the pool (`defer`); `packed`: the pool did (surface-broad-pack.ts). */
  defer = false;
  packed = false;
  /**
   * The triangles' records (wasm/surfaces.ts packRecords) after the item boxes: laid out once per ownership, all
   * rewritten for a rebuild (dirty −1: unless deferred or packed), else the n dirty triangles' at address `dirty`
   * (only dirty items get new boxes, and a dirty vertex or edge makes its triangles dirty, its owner among them).
   */
  private records(A: BroadArrays, dirty: number, n: number): void {
    const W = this.W as BroadWasm,
      L = W.lay,
      k = instanceOf(W);
    const nt = A.tri.length / 3;
    let all = dirty < 0;
    let skip = all && (this.defer || this.packed);
    this.packed = false;
    if (this.recOwn !== A.ownVStart) {
      const at = this.mem.i32(nt + 1);
      L[L_REC] = this.mem.alloc(recordOffsets(k, A, at, nt));
      L[L_REC_AT] = at.byteOffset;
      this.recOwn = A.ownVStart;
      all = true;
      skip = this.defer;
    }
    bindInstance(k, L, A);
    if (!skip) k.packRecords(all ? 0 : dirty, 0, all ? nt : n);
  }

  /** The tree's arrays in the address table: where they are (the broad phase's tree allocates them in the memory), else copies. */
  private placeTree(tree: Bvh): void {
    const nodes = tree.nodeCount,
      n = tree.itemCount;
    const addr = new Int32Array(this.mem.memory.buffer, this.table, SLOTS);
    const N0 = ARRAYS.length;
    addr[N0] = this.place(N0, tree.box.subarray(0, 6 * nodes), -1);
    addr[N0 + 1] = this.place(N0 + 1, tree.right.subarray(0, nodes), -1);
    addr[N0 + 2] = this.place(N0 + 2, tree.start.subarray(0, nodes), -1);
    addr[N0 + 3] = this.place(N0 + 3, tree.count.subarray(0, nodes), -1);
    addr[N0 + 4] = this.place(N0 + 4, tree.items.subarray(0, n), -1);
    addr[N0 + 5] = this.place(N0 + 5, tree.parent.subarray(0, nodes), -1);
    addr[N0 + 6] = this.place(N0 + 6, tree.leafOf.subarray(0, n), -1);
    this.treeCopied = !this.mem.holds(tree.box);
  }

  /** Whether the last `placeTree` copied the tree in (its arrays not in the memory; tests). */
  treeCopied = false;

  /** The address of array `a` (slot i of the table) in the memory: its own, or its copy's (made again unless a topology array of the same version is there already). */
  private place(i: number, a: ArrayBufferView, topology: number): number {
    const mem = this.mem;
    if (mem.holds(a)) return a.byteOffset;
    const n = a.byteLength;
    if (
      i < TOPOLOGY_ARRAYS &&
      this.slotSrc[i] === a &&
      this.slotVersion[i] === topology &&
      this.slotCap[i] >= n
    )
      return this.slotAt[i];
    if (this.slotCap[i] < n) {
      this.slotCap[i] = Math.max(64, Math.ceil(1.25 * n));
      this.slotAt[i] = mem.alloc(this.slotCap[i]);
    }
    new Uint8Array(mem.memory.buffer).set(new Uint8Array(a.buffer, a.byteOffset, n), this.slotAt[i]);
    this.slotSrc[i] = a;
    this.slotVersion[i] = topology;
    return this.slotAt[i];
  }

  /** Regions for threads [0, n): new ones where missing or where a run found one too small. */
  private regions(n: number, triangles: number): void {
    const L = (this.W as BroadWasm).lay;
    for (let t = 0; t < n; t++) {
      const r = L_THREAD + L_STRIDE * t;
      const needP = L[r + PAIRS + NEED],
        needO = L[r + VT + NEED],
        needS = L[r + STACK + NEED],
        needR = L[r + RES + NEED];
      if (t < L[L_REGIONS] && needP === 0 && needO === 0 && needS === 0 && needR === 0) continue;
      const capS = Math.max(L[r + STACK + CAP], 2 * needS, 1024);
      if (capS > L[r + STACK + CAP]) {
        L[r + STACK] = this.mem.alloc(4 * capS);
        L[r + STACK + CAP] = capS;
      }
      // (a query's results: at most the pair budget per triangle times a group's triangles)
      const capR = Math.max(L[r + RES + CAP], needR, 8192);
      if (capR > L[r + RES + CAP]) {
        L[r + RES] = this.mem.alloc(4 * capR);
        L[r + RES + CAP] = capR;
      }
      // (at first what a whole rebuild finds, ~24 triangle pairs and ~4 candidates of each kind per
      // triangle, as one thread's blocks may be the heaviest: a run that finds it small hands back)
      const capP = Math.max(L[r + PAIRS + CAP], needP > 0 ? 2 * needP : 0, 1024, 24 * Math.ceil(triangles));
      const capO = Math.max(L[r + VT + CAP], needO, 1024, 4 * Math.ceil(triangles));
      if (capP > L[r + PAIRS + CAP]) {
        L[r + PAIRS] = this.mem.alloc(8 * capP);
        L[r + PAIRS + CAP] = capP;
      }
      if (capO > L[r + VT + CAP]) {
        L[r + VT] = this.mem.alloc(8 * capO);
        L[r + EE] = this.mem.alloc(8 * capO);
        L[r + VT + CAP] = L[r + EE + CAP] = capO;
      }
      L[r + PAIRS + NEED] = L[r + VT + NEED] = L[r + STACK + NEED] = L[r + RES + NEED] = 0;
    }
    L[L_REGIONS] = Math.max(L[L_REGIONS], n);
  }

  /**
   * Bvh.selfPairsBounded(tBox, perItem, maxPairs) of `tree` on the calling
   * thread in the module (after `ready`): the same pairs in the same order
   * (wasm/surfaces.ts selfPairsBounded) into the calling thread's region,
   * where `testBounded` tests them with no copy; `saturated` and `truncated`
   * as the tree's. The tree's nodes, parents and leaves are read where they
   * are (copied in where the tree is not in the memory); the region and the
   * stack grow and the walk runs again while they are small. Returns the
   * pair count. docs/collision.md, "Eleventh round".
   */
  bounded(W: BroadWasm, A: BroadArrays, tree: Bvh, perItem: number, maxPairs: number): number {
    const nodes = tree.nodeCount,
      n = tree.itemCount;
    this.placeTree(tree);
    if (this.scratchCap < n + nodes) {
      this.scratchCap = Math.ceil(1.25 * (n + nodes));
      this.scratchAt = this.mem.alloc(4 * this.scratchCap);
    }
    const L = W.lay,
      k = instanceOf(W);
    bindInstance(k, L, A);
    for (;;) {
      const ip = this.scratchAt;
      const np = k.selfPairsBounded(
        n,
        nodes,
        perItem,
        maxPairs,
        ip,
        ip + 4 * n,
        L[L_THREAD + PAIRS],
        L[L_THREAD + PAIRS + CAP],
        L[L_THREAD + STACK],
        L[L_THREAD + STACK + CAP],
      );
      if (np >= 0) {
        this.saturated = k.counted(0);
        this.truncated = k.counted(1) !== 0;
        this.boundedRuns++;
        return np;
      }
      if (np === -1) L[L_THREAD + PAIRS + NEED] = 2 * L[L_THREAD + PAIRS + CAP];
      else L[L_THREAD + STACK + NEED] = 2 * L[L_THREAD + STACK + CAP];
      this.regions(1, A.tri.length / 3);
    }
  }

  /** Incremental updates whose queries ran in the module on the calling thread (statistics, tests). */
  groupRuns = 0;

  /**
   * An incremental update's groups [0, ng) on the calling thread in the
   * module (after `ready` with its dirty triangles and ends): the queries,
   * filter and tests of groupsInRegion, the candidates appended to `out`;
   * the region grows and the run starts again while it is too small.
   * Returns the triangles or queries past their budget (collectDirtyPairs'
   * count), or −1 (nothing appended) where a degenerate triangle handed
   * the tests back: the caller runs the JavaScript.
   */
  groups(W: BroadWasm, A: BroadArrays, ng: number, per: number, out: PairSink): number {
    for (;;) {
      const np = groupsInRegion(W, A, L_THREAD, 0, ng, per);
      if (np === -2) return -1;
      if (np >= 0) break;
      this.regions(1, A.tri.length / 3);
    }
    const L = W.lay,
      k = instanceOf(W),
      buf = W.memory.buffer;
    append(out, true, new Int32Array(buf, L[L_THREAD + VT], 2 * k.vtCount()));
    append(out, false, new Int32Array(buf, L[L_THREAD + EE], 2 * k.eeCount()));
    this.runs++;
    this.groupRuns++;
    return k.counted(0);
  }

  /** The calling thread's pairs of the last `bounded` (a view on the memory, valid until its next run). */
  boundedPairs(W: BroadWasm, np: number): Int32Array {
    return new Int32Array(W.memory.buffer, W.lay[L_THREAD + PAIRS], 2 * np);
  }

  /**
   * The tests of pairs[0 … np) on the calling thread in the module (after
   * `ready`), the candidates appended to `out`; its region grows and the
   * run starts again while it is too small. False (nothing appended) where
   * the module met a degenerate triangle: the caller runs the JavaScript.
   */
  run(
    W: BroadWasm,
    A: BroadArrays,
    pairs: Int32Array,
    np: number,
    partial: boolean,
    out: PairSink,
    inPlace = false,
  ): boolean {
    for (;;) {
      const status = runRegion(W, A, L_THREAD, pairs, np, partial, out, inPlace);
      if (status === 2) return false;
      if (status === 0) {
        this.runs++;
        return true;
      }
      this.regions(1, A.tri.length / 3);
    }
  }
}

/**
 * The candidate tests of a full rebuild's triangle pairs in WebAssembly
 * where the broad phase's arrays are not in a shared WebAssembly memory (no
 * shared memory on this host): each run copies the arrays the tests read
 * (~3 MB for a 6,000-vertex cloth) and the triangle pairs into the module's
 * own memory, runs the tests there and appends the candidates to the sink.
 * `run` returns false (nothing appended) where the module is missing (no
 * WebAssembly or SIMD, `useWasmKernels(false)`) or the tests met a
 * degenerate triangle, and the JavaScript loop runs instead.
 * docs/collision.md, "Ninth round".
 */
export class WasmPairTests {
  private memory: WebAssembly.Memory | null = null;
  private k: SurfaceExports | null = null;
  /** Output room (candidate pairs of each kind), grown when a run fills it (0: 4 per triangle, at least 1,024). */
  private vtRoom: number;
  private eeRoom: number;
  /** Runs that gave the lists (statistics, tests). */
  runs = 0;
  /** The records' offsets (wasm/surfaces.ts packRecords), laid out for the ownership `recOwn` (ownVStart). */
  private recAt = new Int32Array(0);
  private recOwn: Int32Array | null = null;

  constructor(room = 0) {
    this.vtRoom = this.eeRoom = room;
  }

  run(A: BroadArrays, pairs: Int32Array, np: number, out: PairSink, partial = false): boolean {
    const mod = wasmKernel('surfaces');
    if (mod === null) return false;
    const nt = A.tri.length / 3;
    if (this.vtRoom === 0) this.vtRoom = this.eeRoom = Math.max(1024, 4 * nt);
    if (this.recOwn !== A.ownVStart) {
      this.recAt = new Int32Array(nt + 1);
      recordOffsets(this.instance(mod, PAGE), A, this.recAt, nt);
      this.recOwn = A.ownVStart;
    }
    for (;;) {
      // the address table, the arrays, the records' offsets and records, the pairs, the outputs: 8-byte aligned
      let at = 64 + 4 * ARRAYS.length;
      const addr = new Int32Array(ARRAYS.length);
      for (let i = 0; i < ARRAYS.length; i++) {
        at = (at + 7) & ~7;
        addr[i] = at;
        at += A[ARRAYS[i]].byteLength;
      }
      at = (at + 7) & ~7;
      const recAtAt = at,
        recAt = (at + 4 * (nt + 1) + 7) & ~7;
      at = recAt + this.recAt[nt];
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
      new Int32Array(buf, recAtAt, nt + 1).set(this.recAt);
      const s = A.scalars;
      k.setArrays(64, s[B_SURFACES] | 0, s[B_MARGIN], s[B_MEAN_EDGE]);
      k.setRecords(recAt, recAtAt);
      k.packRecords(0, 0, nt);
      k.setOut(vtAt, this.vtRoom, eeAt, this.eeRoom);
      const status = k.collectPairRange(pairsAt, 0, np, partial ? 1 : 0);
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
