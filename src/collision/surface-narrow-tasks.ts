import type { ParticleStore } from '../core/particles.js';
import type { SharedTask, TaskRunner } from '../core/step-context.js';
import type { SurfaceBroadPhase } from './surface-broad-phase.js';
import { N_MARGIN, N_MEAN_EDGE, N_RESCAN, N_TANGLED, type NarrowArrays } from './surface-narrow-scan.js';
import {
  scanEdgeEdgeCrossings,
  scanEdgeEdges,
  scanVertexTriangleCrossings,
  scanVertexTriangles,
} from './surface-narrow-scans.generated.js';
import { narrowInstance, WasmNarrow, type WasmNarrowArgs } from './surface-narrow-wasm.js';
import { bindTopologyArrays, emptyTopologyArrays, type SurfaceTopology } from './surface-topology.js';
import type { Untangler } from './untangle.js';

/**
 * The narrow phase's detection scans (surface-narrow-scan.ts) on the worker
 * pool (docs/solver.md, "Threads"). The candidates are cut into fixed
 * blocks (NARROW_BLOCK candidates, more where there are over 255 blocks: a
 * function of the candidate count, never of the thread count); block b
 * writes its hits from the slot of its first candidate and its count, and
 * each candidate's distance bound is its own slot. The calling thread joins
 * the blocks' hits in block order, so the contacts are those of one serial
 * scan, in the same order, and every thread count gives the same bits.
 */

/**
 * Arguments of the 'surface-narrow-pair' task: the JavaScript scans' shared arrays (A, vtHits,
 * eeHits), or the WebAssembly module's memory (W; its hits stay there); the plan of the job
 * (`plan`, P_*); each block's count into `counts` (vertex–triangle blocks from 0, edge–edge
 * blocks from MAX_TASK_BLOCKS).
 */
interface NarrowArgs {
  A?: NarrowArrays;
  vtHits?: Int32Array;
  eeHits?: Int32Array;
  W?: WasmNarrowArgs;
  counts: Int32Array;
  plan: Int32Array;
}

/**
 * The plan of one job: plan[0] crossings (1) or proximity (0); from P_VT and from P_EE each scan's
 * candidates, block size and blocks (plan1).
 */
const P_VT = 1;
const P_EE = 4;

/**
 * Blocks [from, to) of one job that runs both scans of a substep phase (the proximity scans, or
 * the fail-safe's crossing scans): blocks k < plan[P_VT + 2] are the vertex–triangle scan's, in
 * candidate order, the rest the edge–edge scan's. One job instead of two per phase (session
 * 18): the blocks and their hits are those of the two jobs, so the join gives the same lists.
 */
export function narrowPairTask(args: NarrowArgs, from: number, to: number): void {
  const plan = args.plan,
    counts = args.counts,
    W = args.W;
  const cross = plan[0] !== 0,
    kv = plan[P_VT + 2];
  const ex = W !== undefined ? narrowInstance(W) : null;
  for (let k = from; k < to; k++) {
    const vt = k < kv;
    const b = vt ? k : k - kv;
    const at = vt ? P_VT : P_EE;
    const n = plan[at],
      B = plan[at + 1];
    const a = b * B,
      z = Math.min(n, a + B);
    let c: number;
    if (ex !== null) {
      const t = (W as WasmNarrowArgs).table;
      if (vt) c = cross ? ex.crossVt(t, a, z) : ex.scanVt(t, a, z);
      else c = cross ? ex.crossEe(t, a, z) : ex.scanEe(t, a, z);
    } else {
      const A = args.A as NarrowArrays;
      if (vt)
        c = (cross ? scanVertexTriangleCrossings : scanVertexTriangles)(A, a, z, args.vtHits as Int32Array);
      else c = (cross ? scanEdgeEdgeCrossings : scanEdgeEdges)(A, a, z, args.eeHits as Int32Array);
    }
    counts[vt ? b : MAX_TASK_BLOCKS + b] = c;
  }
}

/** Candidates per block, and the fewest candidates worth sending to the pool. */
const NARROW_BLOCK = 1024;
const NARROW_MIN = 4096;
const MAX_TASK_BLOCKS = 255;

type Shareable = Int32Array | Float64Array | Uint8Array | Uint16Array;

/** One scan's hits: (candidate, flags | SIDE_NEG) at hits[2i], hits[2i + 1], i < count. */
export class NarrowHits {
  hits: Int32Array = new Int32Array(0);
  count = 0;
}

/** Binds the arrays the scans read, and runs them here or on the pool. */
export class SurfaceNarrowScan {
  private readonly topo: SurfaceTopology;
  private readonly broad: SurfaceBroadPhase;
  private readonly untangler: Untangler;
  /** The arrays themselves (one thread). */
  private readonly own: NarrowArrays;
  /** Shared copies for the pool, its tasks and outputs. */
  private shared: NarrowArrays | null = null;
  private sharedTopo = -1;
  /** Both scans of a phase as one pool job (the JavaScript's, the module's), and its plan (P_*). */
  private readonly pairTask: SharedTask = { kind: 'surface-narrow-pair', args: {}, version: 0 };
  private readonly plan = new Int32Array(new SharedArrayBuffer(4 * (P_EE + 3)));
  private vtOut: Int32Array = new Int32Array(0);
  private eeOut: Int32Array = new Int32Array(0);
  private counts: Int32Array = new Int32Array(0);
  private stale = true;
  /** The scans in WebAssembly (where the module runs), their pool tasks and block counts. */
  readonly wasm = new WasmNarrow();
  private readonly wasmTask: SharedTask = { kind: 'surface-narrow-pair', args: {}, version: 0 };
  private wasmArgs: WasmNarrowArgs | null = null;
  private wasmCounts: Int32Array = new Int32Array(0);
  readonly vt = new NarrowHits();
  readonly ee = new NarrowHits();
  /** Scans that ran on the pool (statistics, tests), those of them in WebAssembly. */
  runs = 0;
  pooledWasm = 0;
  /** Pool jobs those scans took (one per phase since session 18: both scans in one job). */
  jobs = 0;

  constructor(topo: SurfaceTopology, broad: SurfaceBroadPhase, untangler: Untangler) {
    this.topo = topo;
    this.broad = broad;
    this.untangler = untangler;
    const i = new Int32Array(0),
      f = new Float64Array(0);
    this.own = {
      ...emptyTopologyArrays(),
      label: i,
      sharp: new Uint8Array(0),
      invMass: f,
      x: f,
      p: f,
      sv: f,
      motion: f,
      vtCand: i,
      vtDist: f,
      eeCand: i,
      eeDist: f,
      recheck: new Uint8Array(0),
      scalars: new Float64Array(4),
    };
  }

  private aheadStore: ParticleStore | null = null;
  private aheadX: Float64Array = new Float64Array(0);
  private aheadP: Float64Array = new Float64Array(0);
  private readonly aheadLead = (): void => {
    const s = this.aheadStore as ParticleStore;
    this.wasm.preload(this.broad.wasmHost?.mem ?? null, this.aheadX, this.aheadP, s.invMass, s.count);
  };

  /**
   * The lead (WorkerPool.run) that copies x, p and the inverse masses into the module's slots ahead of
   * the next scan of x → p (WasmNarrow.preload), for the broad phase's check job, which only reads them:
   * the scan then copies neither (docs/collision.md, "Eighteenth round"). Null on one thread.
   */
  ahead(
    store: ParticleStore,
    x: Float64Array,
    p: Float64Array,
    tasks: TaskRunner | null,
  ): (() => void) | null {
    if (tasks === null) return null;
    this.aheadStore = store;
    this.aheadX = x;
    this.aheadP = p;
    return this.aheadLead;
  }

  /** Scans the vertex–triangle and edge–edge candidates of the substep x → p into `vt` and `ee`. */
  scan(store: ParticleStore, x: Float64Array, p: Float64Array, tasks: TaskRunner | null): void {
    const A = this.bind(store, x, p);
    A.scalars[N_RESCAN] = 0;
    this.run(tasks, A, store, false);
  }

  /**
   * The fail-safe's crossing scans x → p (with `rescan`, only the candidates
   * with a vertex in `recheck`) into `vt` and `ee`.
   */
  scanCrossings(
    store: ParticleStore,
    x: Float64Array,
    rescan: boolean,
    recheck: Uint8Array,
    tasks: TaskRunner | null,
  ): void {
    const A = this.bind(store, x, store.p);
    A.recheck = recheck;
    A.scalars[N_RESCAN] = rescan ? 1 : 0;
    this.run(tasks, A, store, true);
  }

  private run(tasks: TaskRunner | null, A: NarrowArrays, store: ParticleStore, crossings: boolean): void {
    const nv = this.broad.vtCount,
      ne = this.broad.eeCount;
    if (this.runWasm(tasks, A, nv, ne, crossings, store.count)) return;
    const pooled =
      tasks !== null &&
      (nv >= NARROW_MIN || ne >= NARROW_MIN) &&
      A.p === store.p &&
      A.x.buffer instanceof SharedArrayBuffer &&
      A.p.buffer instanceof SharedArrayBuffer &&
      store.invMass.buffer instanceof SharedArrayBuffer;
    if (pooled && this.runPool(tasks, A, nv, ne, crossings)) return;
    this.vt.hits = atLeast(this.vt.hits, 2 * nv);
    this.vt.count = (crossings ? scanVertexTriangleCrossings : scanVertexTriangles)(A, 0, nv, this.vt.hits);
    this.ee.hits = atLeast(this.ee.hits, 2 * ne);
    this.ee.count = (crossings ? scanEdgeEdgeCrossings : scanEdgeEdges)(A, 0, ne, this.ee.hits);
  }

  /**
   * Both scans in WebAssembly: on the pool where it would run the JavaScript's (blocks of each
   * thread's instance over the module's shared memory), or here; false where the module cannot
   * run (nothing was changed then).
   */
  private runWasm(
    tasks: TaskRunner | null,
    A: NarrowArrays,
    nv: number,
    ne: number,
    crossings: boolean,
    particles: number,
  ): boolean {
    const W = this.wasm;
    // on the broad phase's memory where it has one (its arrays read where they are: no copy)
    if (
      !W.ready(this.broad.wasmHost?.mem ?? null) ||
      !W.load(A, nv, ne, this.topo.version, crossings, particles)
    )
      return false;
    const pooled = tasks !== null && (nv >= NARROW_MIN || ne >= NARROW_MIN) && W.shared;
    let vtDone = false,
      eeDone = false;
    if (pooled) {
      if (this.wasmArgs !== W.args || this.wasmCounts.length === 0) {
        this.wasmArgs = W.args;
        if (this.wasmCounts.length === 0)
          this.wasmCounts = new Int32Array(new SharedArrayBuffer(8 * MAX_TASK_BLOCKS));
        const t = this.wasmTask;
        t.args = {
          W: W.args as WasmNarrowArgs,
          counts: this.wasmCounts,
          plan: this.plan,
        } satisfies NarrowArgs;
        t.version++;
      }
      vtDone = eeDone = this.runPair(
        tasks,
        this.wasmTask,
        nv,
        ne,
        crossings,
        W.hits(true, nv),
        W.hits(false, ne),
        this.wasmCounts,
      );
      if (vtDone) {
        this.runs++;
        this.pooledWasm++;
      }
    }
    const ex = W.exports,
      table = (W.args as WasmNarrowArgs).table;
    if (!vtDone) {
      const n = crossings ? ex.crossVt(table, 0, nv) : ex.scanVt(table, 0, nv);
      this.vt.hits = atLeast(this.vt.hits, 2 * nv);
      this.vt.hits.set(W.hits(true, n));
      this.vt.count = n;
    }
    if (!eeDone) {
      const n = crossings ? ex.crossEe(table, 0, ne) : ex.scanEe(table, 0, ne);
      this.ee.hits = atLeast(this.ee.hits, 2 * ne);
      this.ee.hits.set(W.hits(false, n));
      this.ee.count = n;
    }
    W.unload(A, nv, ne);
    W.runs++;
    return true;
  }

  private bind(store: ParticleStore, x: Float64Array, p: Float64Array): NarrowArrays {
    const A = this.own,
      topo = this.topo,
      broad = this.broad;
    bindTopologyArrays(A, topo);
    A.label = this.untangler.label;
    A.sharp = broad.sharp;
    A.invMass = store.invMass;
    A.x = x;
    A.p = p;
    A.sv = broad.sv;
    A.motion = broad.motion;
    A.vtCand = broad.vtCand;
    A.vtDist = broad.vtDist;
    A.eeCand = broad.eeCand;
    A.eeDist = broad.eeDist;
    A.scalars[N_MARGIN] = topo.marginFactor;
    A.scalars[N_MEAN_EDGE] = topo.meanEdge;
    A.scalars[N_TANGLED] = this.untangler.tangled ? 1 : 0;
    return A;
  }

  /** Both scans on the pool; false when the pool cannot run them now (nothing was changed then). */
  private runPool(tasks: TaskRunner, A: NarrowArrays, nv: number, ne: number, crossings: boolean): boolean {
    const S = this.share(A, nv, ne);
    if (this.stale) {
      const t = this.pairTask;
      t.version++;
      t.args = {
        A: S,
        vtHits: this.vtOut,
        eeHits: this.eeOut,
        counts: this.counts,
        plan: this.plan,
      } satisfies NarrowArgs;
      this.stale = false;
    }
    if (!this.runPair(tasks, this.pairTask, nv, ne, crossings, this.vtOut, this.eeOut, this.counts))
      return false;
    A.vtDist.set(S.vtDist.subarray(0, nv));
    A.eeDist.set(S.eeDist.subarray(0, ne));
    this.runs++;
    return true;
  }

  /**
   * Both scans of a phase (nv vertex–triangle, ne edge–edge candidates) as one job on the pool:
   * each scan cut into the blocks it had as a job of its own, the vertex–triangle blocks first;
   * their hits joined in block order into `vt` and `ee`. False when the pool cannot run it now.
   */
  private runPair(
    tasks: TaskRunner,
    task: SharedTask,
    nv: number,
    ne: number,
    crossings: boolean,
    vtOut: Int32Array,
    eeOut: Int32Array,
    counts: Int32Array,
  ): boolean {
    const plan = this.plan;
    const kv = plan1(plan, P_VT, nv),
      ke = plan1(plan, P_EE, ne);
    plan[0] = crossings ? 1 : 0;
    if (kv + ke === 0 || !tasks.runTask(task, kv + ke, kv + ke)) return false;
    this.jobs++;
    join(this.vt, vtOut, counts, 0, nv, plan[P_VT + 1], kv);
    join(this.ee, eeOut, counts, MAX_TASK_BLOCKS, ne, plan[P_EE + 1], ke);
    return true;
  }

  /** Shared copies of what the scans read (topology only when it changed); stale = true where one is new. */
  private share(A: NarrowArrays, nv: number, ne: number): NarrowArrays {
    if (this.shared === null) {
      this.shared = { ...A, scalars: new Float64Array(new SharedArrayBuffer(8 * A.scalars.length)) };
      this.stale = true;
      this.sharedTopo = -1;
    }
    const S = this.shared as unknown as Record<string, Shareable>;
    const src = A as unknown as Record<string, Shareable>;
    const copy = (key: string, len: number) => {
      const a = src[key];
      if (
        S[key].length < len ||
        !(S[key].buffer instanceof SharedArrayBuffer) ||
        S[key].constructor !== a.constructor
      ) {
        const C = a.constructor as new (b: SharedArrayBuffer) => Shareable;
        S[key] = new C(new SharedArrayBuffer(Math.max(16, Math.ceil(1.25 * len)) * a.BYTES_PER_ELEMENT));
        this.stale = true;
      }
      S[key].set(len === a.length ? a : a.subarray(0, len));
    };
    if (this.sharedTopo !== this.topo.version || this.stale) {
      for (const key of ['tri', 'edge', 'vertex', 'vertexSurface', 'triSurface', 'edgeSurface'])
        copy(key, src[key].length);
      this.sharedTopo = this.topo.version;
    }
    for (const key of ['halfReach', 'thickness', 'label', 'sharp', 'sv', 'motion', 'recheck'])
      copy(key, src[key].length);
    copy('vtCand', 2 * nv);
    copy('vtDist', nv);
    copy('eeCand', 2 * ne);
    copy('eeDist', ne);
    this.shared.scalars.set(A.scalars);
    // the store's own arrays (shared memory in a threaded world)
    for (const key of ['invMass', 'x', 'p'] as const) {
      if (this.shared[key] !== A[key]) {
        this.shared[key] = A[key];
        this.stale = true;
      }
    }
    const need = 2 * Math.max(nv, ne, 1);
    if (this.vtOut.length < 2 * nv || this.eeOut.length < 2 * ne || this.counts.length === 0) {
      const len = Math.ceil(1.25 * need);
      this.vtOut = new Int32Array(new SharedArrayBuffer(4 * Math.max(len, this.vtOut.length)));
      this.eeOut = new Int32Array(new SharedArrayBuffer(4 * Math.max(len, this.eeOut.length)));
      this.counts = new Int32Array(new SharedArrayBuffer(8 * MAX_TASK_BLOCKS));
      this.stale = true;
    }
    return this.shared;
  }
}

/** One scan's n candidates in plan[at], its block size in plan[at + 1], its blocks in plan[at + 2] (returned). */
function plan1(plan: Int32Array, at: number, n: number): number {
  const blocks = Math.min(MAX_TASK_BLOCKS, Math.ceil(n / NARROW_BLOCK));
  const B = blocks > 0 ? Math.ceil(n / blocks) : 1;
  plan[at] = n;
  plan[at + 1] = B;
  plan[at + 2] = blocks > 0 ? Math.ceil(n / B) : 0;
  return plan[at + 2];
}

/** The hits of one scan's `blocks` blocks of B candidates (counts from counts[at]) joined in block order into `into`. */
function join(
  into: NarrowHits,
  out: Int32Array,
  counts: Int32Array,
  at: number,
  n: number,
  B: number,
  blocks: number,
): void {
  into.hits = atLeast(into.hits, 2 * n);
  let m = 0;
  for (let b = 0; b < blocks; b++) {
    const c = counts[at + b];
    into.hits.set(out.subarray(2 * b * B, 2 * (b * B + c)), 2 * m);
    m += c;
  }
  into.count = m;
}

/** `a`, or a larger array when it holds fewer than n entries. */
function atLeast(a: Int32Array, n: number): Int32Array {
  return a.length >= n ? a : new Int32Array(Math.max(64, Math.ceil(1.25 * n)));
}
