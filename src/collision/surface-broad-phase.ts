import type { ParticleStore } from '../core/particles.js';
import type { TaskRunner } from '../core/step-context.js';
import { clock } from '../core/timings.js';
import { Bvh } from './bvh.js';
import { type BlocksSource, BroadBlocks, itemBoxesRange, sweptRange } from './surface-broad-blocks.js';
import { type ArrayAlloc, sharedAlloc, triangleNormal } from './surface-broad-items.js';
import { RecordPack } from './surface-broad-pack.js';
import {
  addPair,
  B_MARGIN,
  B_MEAN_EDGE,
  B_SURFACES,
  type BroadArrays,
  collectDirtyPairs,
  collectPairRange,
  emptyBroadArrays,
  groupScratch,
  grow64,
  keepCleanPairs,
  type PairSink,
  vtCandidate,
} from './surface-broad-pairs.js';
import {
  PARALLEL_MIN_GROUPS,
  PARALLEL_MIN_PAIRS,
  PARALLEL_MIN_TRIANGLES,
  ParallelBroadPairs,
  ParallelBroadRebuild,
} from './surface-broad-tasks.js';
import { BroadMemory, type BroadWasm, BroadWasmHost, WasmPairTests } from './surface-broad-wasm.js';
import { inMemory } from './surface-narrow-wasm.js';
import { SurfaceSnapshots } from './surface-snapshots.js';
import { bindTopologyArrays, type SurfaceContactStats, type SurfaceTopology } from './surface-topology.js';

/**
 * Fraction of the vertices that may renew their snapshots in an incremental
 * update; beyond it the lists are built anew. An update costs about as much
 * per renewed vertex as a rebuild does per vertex times ~10 (each renewal
 * dirties ~6 triangles and ~6 edges), so 5 % measured best (25 %: ~10 % slower).
 */
const PARTIAL_LIMIT = 0.05;

/**
 * Budgets of the broad phase, so that degenerate input (copies of a cloth on
 * top of each other, a patch collapsed to a point), where every triangle
 * overlaps every other, costs work proportional to the triangles rather
 * than to their square. A triangle takes part in at most
 * MAX_PAIRS_PER_TRIANGLE overlapping triangle pairs, a free point in at
 * most MAX_TRIANGLES_PER_POINT, and a full rebuild finds at most
 * PAIR_BUDGET pairs per triangle in all; past that budget the rebuild is
 * run again with DEGENERATE_PAIRS_PER_TRIANGLE per triangle. A vertex's
 * candidates come from its owner triangle's pairs and an edge's from its
 * owner's pairs (three edges each), so the vertex–triangle and edge–edge
 * candidates, the contacts and the fail-safe's scans are bounded by the
 * same budgets. What is over budget is skipped for that update (counted in
 * `stats.capped` and `stats.overBudget`, with a one-time notice); the
 * collapse recovery, the continuous tests of the pairs kept and the
 * impact zones keep the cloth in one piece. The shipped scenes stay below
 * every budget (most per triangle: 584, collision-projectile; most per
 * triangle in all: 47; 10 coincident copies of collision-barrel's cloth:
 * 397, up to 2,141 for one triangle).
 */
export const MAX_PAIRS_PER_TRIANGLE = 1024;
export const PAIR_BUDGET = 128;
export const DEGENERATE_PAIRS_PER_TRIANGLE = 32;
export const MAX_TRIANGLES_PER_POINT = 1024;

let budgetNoticed = false;

/**
 * The broad phase of the surface contacts: lists of the vertex–triangle and
 * edge–edge pairs that can come within contact reach (or cross) before any
 * of their vertices leaves its allowance (SurfaceSnapshots).
 *
 * Boxes: each vertex's allowance sphere, each triangle's and edge's union
 * of its vertices' (grown by half the reach of its surface; an edge only
 * when it is sharp). A BVH over the triangle boxes (built once per
 * topology, refitted at every update) gives the overlapping triangle pairs
 * by a self-traversal, and each vertex and edge is owned by one of its
 * triangles (SurfaceTopology), so every (vertex, triangle) and (edge, edge)
 * pair is examined once; exact distances between the snapshots (with the
 * allowances) decide. When a few vertices stray (`PARTIAL_LIMIT`), only
 * their pairs, those of their triangles and of their edges are searched
 * again, by querying the tree with the boxes of the changed triangles.
 *
 * Each candidate keeps a lower bound of its distance (`vtDist`, `eeDist`,
 * −1: unknown), lowered every substep by the motion of its pair, so that far
 * pairs cost a comparison.
 */
export class SurfaceBroadPhase {
  /** Candidate vertex–triangle pairs: (surface vertex, triangle). */
  vtCand: Int32Array = new Int32Array(0);
  vtCount = 0;
  /** Candidate edge–edge pairs: (edge, edge). */
  eeCand: Int32Array = new Int32Array(0);
  eeCount = 0;
  /** Lower bound of the distance at x of each candidate pair (−1: unknown). */
  vtDist: Float64Array = new Float64Array(0);
  eeDist: Float64Array = new Float64Array(0);
  /** Swept boxes x → p of the surface vertices in the current substep (sweptBoxes). */
  sv: Float64Array = new Float64Array(0);
  /** |p − x| of every surface vertex relative to their mean displacement, in the current substep. */
  motion: Float64Array = new Float64Array(0);
  /** Edges that are sharp (creased by more than 30°, or on a boundary): only they get edge–edge proximity contacts. */
  sharp: Uint8Array = new Uint8Array(0);
  readonly snapshots: SurfaceSnapshots;

  private readonly topo: SurfaceTopology;
  private readonly stats: SurfaceContactStats;
  private sharpVersion = -1;
  private tBox: Float64Array = new Float64Array(0);
  /** Bounding sphere of each triangle's snapshot (centroid xyz, radius), a cheap lower bound of vertex distances. */
  private tSphere: Float64Array = new Float64Array(0);
  /** Half the length of each edge's snapshot (the radius of its bounding sphere). */
  private eHalf: Float64Array = new Float64Array(0);
  private eBox: Float64Array = new Float64Array(0);
  /** (its nodes on shared memory, the broad phase's WebAssembly memory where there is one: the pool's and the module's runs read it where it is) */
  private tree = new Bvh(4, true);
  /** The rebuilds' candidate tests in WebAssembly where the arrays are not in a shared WebAssembly memory (surface-broad-wasm.ts). */
  readonly wasmTests = new WasmPairTests();
  /**
   * The shared WebAssembly memory that holds the snapshots, boxes, sharp edges and dirty flags
   * (null where there is no shared memory), and the module's runs on it on every thread.
   */
  wasmHost: BroadWasmHost | null = null;
  private alloc: ArrayAlloc = sharedAlloc;
  private treeVersion = -1;
  private vDirty: Uint8Array = new Uint8Array(0);
  private tDirty: Uint8Array = new Uint8Array(0);
  private eDirty: Uint8Array = new Uint8Array(0);
  private dirtyTris: Int32Array = new Int32Array(0);
  /** Ends of the groups of dirtyTris (the triangles each violator made dirty), for the partial update's queries. */
  private dirtyGroupEnd: Int32Array = new Int32Array(0);
  private dirtyEdges = new Int32Array(0);
  /** The partial update's query scratch on the calling thread. */
  private readonly groups = groupScratch();
  /** What the candidate tests read (bind) and where they write. */
  private readonly arrays: BroadArrays = emptyBroadArrays();
  private readonly sink: PairSink = {
    vt: new Int32Array(0),
    vtCount: 0,
    ee: new Int32Array(0),
    eeCount: 0,
    grow: true,
    full: false,
  };

  /** The pair budget per triangle of the last full rebuild (MAX_PAIRS_PER_TRIANGLE, or DEGENERATE_PAIRS_PER_TRIANGLE). */
  private perTriangle = MAX_PAIRS_PER_TRIANGLE;

  constructor(topology: SurfaceTopology, stats: SurfaceContactStats) {
    this.topo = topology;
    this.stats = stats;
    this.snapshots = new SurfaceSnapshots(topology);
  }

  /** Sizes the arrays for the current topology (the lists are built anew at the next update). */
  resize(): void {
    const t = this.topo;
    const nv = t.vertexCount;
    // the arrays the candidate tests read in a new shared WebAssembly memory where there is one (the
    // module's instances on every thread read them there), else on shared memory (the pool's tasks
    // read them where they are); room for them, the topology's copies and two threads' regions
    const mem = BroadMemory.create(200 * (nv + t.triCount + t.edgeCount) + 65536);
    this.wasmHost = mem === null ? null : new BroadWasmHost(mem);
    const alloc = (this.alloc = mem ?? sharedAlloc);
    this.tree = new Bvh(4, mem ?? true);
    this.treeVersion = -1;
    this.snapshots.resize(alloc);
    // (the swept boxes and motions too: the narrow module reads them there, docs/collision.md "Seventeenth round")
    this.sv = alloc.f64(6 * nv);
    this.motion = alloc.f64(nv);
    this.tBox = alloc.f64(6 * t.triCount);
    this.tSphere = alloc.f64(4 * t.triCount);
    this.eHalf = alloc.f64(t.edgeCount);
    this.eBox = alloc.f64(6 * t.edgeCount);
    this.vDirty = alloc.u8(nv);
    this.tDirty = alloc.u8(t.triCount);
    this.eDirty = alloc.u8(t.edgeCount);
    this.dirtyTris = mem?.i32(t.triCount) ?? new Int32Array(t.triCount);
    this.dirtyGroupEnd = mem?.i32(t.triCount) ?? new Int32Array(t.triCount);
    this.dirtyEdges = new Int32Array(t.edgeCount);
  }

  /**
   * Brings the candidate lists up to date for the motion x → p (full rebuild or incremental update). With
   * `slack` > 0 vertices renew their snapshot that much before their allowance runs out, so that the solver's
   * corrections rarely force another update after the solve. With `sweep` it also computes the swept boxes
   * x → p (sweptBoxes), on the pool in the check's job: the update reads neither them nor the motions.
   * `lead`: the calling thread's work while that job runs, where it runs on the pool (session 23).
   */
  update(
    store: ParticleStore,
    x: Float64Array,
    p: Float64Array,
    slack = 0,
    tasks: TaskRunner | null = null,
    sweep = false,
    lead: (() => void) | null = null,
  ): void {
    const t0 = clock();
    const blocks = this.blocksFor(tasks);
    if (sweep && blocks !== null) {
      const c = this.meanDisplacement(x, p);
      blocks.alsoSwept(c[0], c[1], c[2]);
    }
    const src = blocks === null ? null : this.blocksSource();
    const n = this.snapshots.check(x, p, slack, tasks, blocks, src, lead);
    const swept = sweep && blocks?.endSwept() === true;
    const t1 = clock();
    const ms = this.ms;
    ms.check += t1 - t0;
    const c = this.causes;
    if (n < 0 || n > PARTIAL_LIMIT * this.topo.vertexCount) {
      if (n < 0) c.invalid++;
      else if (slack > 0) c.renewals++;
      else c.afterSolve++;
      if (n > 0) c.renewed += n;
      this.fullRebuild(store, x, p, tasks);
      ms.rebuild += clock() - t1;
    } else if (n > 0) {
      this.partialUpdate(store, x, p, n, tasks);
      ms.update += clock() - t1;
    }
    if (sweep && !swept) this.sweptBoxes(x, p, tasks);
  }

  /**
   * Milliseconds of the broad phase's parts since the owner last reset them
   * (SurfaceContacts adds them to `world.timings` every substep): the
   * snapshot checks, full rebuilds (of them: the set-up — snapshots, item
   * boxes, refit —, the tree's self-traversal and the candidate tests of
   * its triangle pairs) and incremental updates.
   */
  readonly ms = { check: 0, rebuild: 0, setup: 0, traversal: 0, tests: 0, update: 0 };

  /**
   * Why each full rebuild since the start fired: the snapshots were invalid
   * (first update, new topology), more than PARTIAL_LIMIT of the vertices
   * left their allowance before the solve (`renewals`) or after it (the
   * fail-safe's update, `afterSolve`); `renewed`: the strays those rebuilds
   * replaced, in all; `pairs`: the overlapping triangle pairs their
   * traversals met, in all.
   */
  readonly causes = { invalid: 0, renewals: 0, afterSolve: 0, renewed: 0, pairs: 0 };

  /** Builds the candidate lists anew from x (snapshots of every vertex). */
  private fullRebuild(
    store: ParticleStore,
    x: Float64Array,
    p: Float64Array,
    tasks: TaskRunner | null,
  ): void {
    this.stats.rebuilds++;
    // the pool's shared copies are in step again only if this rebuild shares them (ParallelBroadRebuild.run)
    if (this.parallelRebuild !== null) this.parallelRebuild.synced = false;
    const t0 = clock();
    const blocks = this.blocksFor(tasks);
    const src = blocks === null ? null : this.blocksSource();
    this.snapshots.takeAll(x, p, tasks, blocks, src);
    this.itemBoxes(false, tasks, x, p);
    // a refit (the tree built for this topology) while the pool packs the records (surface-broad-pack.ts)
    const refit = this.treeVersion === this.topo.version && this.tree.itemCount === this.topo.triCount;
    if (
      !refit ||
      tasks === null ||
      this.topo.triCount < PARALLEL_MIN_TRIANGLES ||
      !this.packOnPool(store, tasks)
    )
      this.fitTree();
    this.ms.setup += clock() - t0;
    this.vtCount = 0;
    this.eeCount = 0;
    this.collectPairs(store, false, 0, tasks);
    this.listsChanged();
  }

  /** Updates the candidate lists for the violating vertices only. */
  private partialUpdate(
    store: ParticleStore,
    x: Float64Array,
    p: Float64Array,
    n: number,
    tasks: TaskRunner | null,
  ): void {
    this.stats.partialUpdates++;
    const snaps = this.snapshots;
    const viol = snaps.violators;
    const vd = this.vDirty,
      td = this.tDirty,
      ed = this.eDirty;
    // re-snapshot the violators; their triangles and edges change boxes
    for (let k = 0; k < n; k++) {
      const v = viol[k];
      snaps.take(v, x, p, snaps.vertexMinAllowance(v));
      vd[v] = 1;
    }
    let nt = 0,
      ne = 0;
    const vts = this.topo.vtStart,
      vtl = this.topo.vtList,
      ves = this.topo.veStart,
      vel = this.topo.veList;
    let ng = 0;
    for (let k = 0; k < n; k++) {
      const v = viol[k];
      for (let j = vts[v]; j < vts[v + 1]; j++) {
        const t = vtl[j];
        if (td[t] === 0) {
          td[t] = 1;
          this.dirtyTris[nt++] = t;
        }
      }
      // the triangles this violator made dirty form one group (they are neighbours)
      if (nt > (ng === 0 ? 0 : this.dirtyGroupEnd[ng - 1])) this.dirtyGroupEnd[ng++] = nt;
      for (let j = ves[v]; j < ves[v + 1]; j++) {
        const e = vel[j];
        if (ed[e] === 0) {
          ed[e] = 1;
          this.dirtyEdges[ne++] = e;
        }
      }
    }
    this.itemBoxes(true, tasks, x, p);
    this.tree.refitItems(this.tBox, this.dirtyTris, nt);
    // the pool's task records follow (threaded worlds)
    this.parallelRebuild?.patch(this.bind(store), this.tree);
    // drop the pairs that involve a changed item (the distance bounds of the others stay)
    this.vtCount = keepCleanPairs(this.vtCand, this.vtDist, this.vtCount, vd, td);
    this.eeCount = keepCleanPairs(this.eeCand, this.eeDist, this.eeCount, ed, ed);
    // and find their pairs again
    this.collectPairs(store, true, ng, tasks);
    for (let k = 0; k < n; k++) vd[viol[k]] = 0;
    for (let k = 0; k < nt; k++) td[this.dirtyTris[k]] = 0;
    for (let k = 0; k < ne; k++) ed[this.dirtyEdges[k]] = 0;
    this.listsChanged();
  }

  private listsChanged(): void {
    this.stats.vertexTriangleCandidates = this.vtCount;
    this.stats.edgeEdgeCandidates = this.eeCount;
  }

  /** Triangle and edge boxes from the vertex boxes: all of them, or those of the dirty items; in blocks on the pool where it can. */
  private itemBoxes(dirty: boolean, tasks: TaskRunner | null, x: Float64Array, p: Float64Array): void {
    const src = this.blocksSource();
    const blocks = this.blocksFor(tasks);
    if (tasks && blocks?.items(tasks, src, x, p, dirty)) return;
    const nt = this.topo.triCount;
    itemBoxesRange(src.A, nt, 0, nt + this.topo.edgeCount, dirty);
  }

  private blocks: BroadBlocks | null = null;
  private readonly blocksSrc = {} as BlocksSource;

  /** The loops' runner on the pool (surface-broad-blocks.ts), in a threaded world where there is shared memory. */
  private blocksFor(tasks: TaskRunner | null): BroadBlocks | null {
    if (tasks === null || tasks.threads < 2 || typeof SharedArrayBuffer === 'undefined') return null;
    this.blocks ??= new BroadBlocks();
    return this.blocks;
  }

  /** What the loops read and write, pointed at the current arrays. */
  private blocksSource(): BlocksSource {
    const s = this.blocksSrc;
    s.A = this.bindArrays();
    s.topology = this.topo.version;
    s.forced = this.snapshots.forcedFlag;
    s.sv = this.sv;
    s.motion = this.motion;
    return s;
  }

  /** Loops of the broad phase that ran in blocks on the pool (statistics, tests). */
  get pooledLoops(): number {
    return this.blocks?.runs ?? 0;
  }

  /** Of them, snapshot checks whose job also computed the swept boxes (update with `sweep`). */
  get pooledCheckSwept(): number {
    return this.blocks?.fused ?? 0;
  }

  private packs: RecordPack | null = null;
  private readonly refitLead = (): void => this.fitTree();
  /** A rebuild's records packed on the pool while this thread refits (surface-broad-pack.ts); false where not. */
  private packOnPool(store: ParticleStore, tasks: TaskRunner): boolean {
    if (this.wasmHost === null || tasks.threads < 2) return false;
    this.packs ??= new RecordPack();
    return this.packs.run(this.wasmHost, tasks, this.bind(store), this.topo.version, this.refitLead);
  }

  /** Builds the triangle tree (once per topology) or refits it to the current triangle boxes. */
  private fitTree(): void {
    if (this.treeVersion !== this.topo.version || this.tree.itemCount !== this.topo.triCount) {
      this.tree.build(this.tBox, this.topo.triCount);
      this.treeVersion = this.topo.version;
    } else this.tree.refit(this.tBox);
  }

  /**
   * Collects the candidate pairs from the overlapping triangle pairs of the
   * tree: the vertices each triangle owns against the other triangle, and
   * the edges each owns against the other's (every pair once, as every
   * vertex and edge has one owner). Free points query the tree on their
   * own. `partial`: only the pairs with a changed (dirty) vertex, triangle
   * or edge, found by querying the tree with the boxes of the dirty
   * triangles (a dirty vertex or edge makes its triangles dirty), in
   * `nDirty` groups (see dirtyGroupEnd), in time proportional to them rather
   * than to the whole tree.
   */
  private collectPairs(
    store: ParticleStore,
    partial: boolean,
    nDirty: number,
    tasks: TaskRunner | null = null,
  ): void {
    const A = this.bind(store);
    const out = this.sink;
    const kept = this.vtCount,
      keptEE = this.eeCount;
    out.vt = this.vtCand;
    out.vtCount = kept;
    out.ee = this.eeCand;
    out.eeCount = keptEE;
    // the module on the broad phase's memory, for this thread and the pool's (null: JavaScript tests),
    // with the tree and an update's groups (in that memory: nothing copied)
    const tree = this.tree;
    const pooled = !partial && tasks !== null && this.topo.triCount >= PARALLEL_MIN_TRIANGLES;
    const nt = partial && nDirty > 0 ? this.dirtyGroupEnd[nDirty - 1] : 0;
    const W =
      this.wasmHost?.ready(
        A,
        this.topo.version,
        tasks === null ? 1 : tasks.threads,
        tree,
        partial ? [this.dirtyTris.subarray(0, nt), this.dirtyGroupEnd.subarray(0, nDirty)] : null,
      ) ?? null;
    if (!partial) {
      const budget = PAIR_BUDGET * this.topo.triCount;
      this.perTriangle = MAX_PAIRS_PER_TRIANGLE;
      // traversal and tests on the worker pool in a threaded world (the same lists in the same order)
      if (
        tasks !== null &&
        pooled &&
        this.poolRebuild().run(tasks, A, tree, MAX_PAIRS_PER_TRIANGLE, budget, out, W, this.topo.version)
      ) {
        this.collected(partial, kept, keptEE);
        return;
      }
      const t0 = clock();
      // the bounded traversal in the module where it runs (the same pairs in the same order, into the
      // calling thread's region, where its tests read them), else the tree's
      const H = W === null ? null : (this.wasmHost as BroadWasmHost);
      let np =
        H !== null
          ? H.bounded(W as BroadWasm, A, tree, MAX_PAIRS_PER_TRIANGLE, budget)
          : tree.selfPairsBounded(this.tBox, MAX_PAIRS_PER_TRIANGLE, budget);
      if (H !== null ? H.truncated : tree.truncated) {
        // coincident or collapsed geometry: every triangle gets a smaller share
        this.stats.overBudget++;
        this.perTriangle = DEGENERATE_PAIRS_PER_TRIANGLE;
        np =
          H !== null
            ? H.bounded(W as BroadWasm, A, tree, DEGENERATE_PAIRS_PER_TRIANGLE, 0)
            : tree.selfPairsBounded(this.tBox, DEGENERATE_PAIRS_PER_TRIANGLE, 0);
      }
      const saturated = H !== null ? H.saturated : tree.saturated;
      if (saturated > 0) this.overBudget(saturated);
      this.causes.pairs += np;
      const t1 = clock();
      this.ms.traversal += t1 - t0;
      const pairs = H !== null ? H.boundedPairs(W as BroadWasm, np) : tree.pairs;
      // on the worker pool in a threaded world, else in WebAssembly where the module runs (both: the same lists)
      if (
        (tasks === null || np < PARALLEL_MIN_PAIRS || !this.pool(tasks).run(tasks, A, pairs, np, out)) &&
        !(H !== null
          ? H.run(W as BroadWasm, A, pairs, np, false, out, true)
          : this.testHere(W, pairs, np, false))
      )
        collectPairRange(A, H !== null ? H.boundedPairs(W as BroadWasm, np) : pairs, 0, np, out);
      this.ms.tests += clock() - t1;
    } else {
      // each dirty triangle against the triangles its box overlaps (collectDirtyPairs), on the pool
      // in a threaded world (blocks of groups joined in order: the same lists), else here
      const per = this.perTriangle;
      let over = -1;
      if (tasks !== null && nDirty >= PARALLEL_MIN_GROUPS)
        over = this.poolRebuild().runPartial(
          tasks,
          A,
          this.tree,
          this.dirtyTris,
          this.dirtyGroupEnd,
          nDirty,
          per,
          out,
          W,
        );
      // the queries and their tests in the module where it runs (the same pairs and lists), else in JavaScript
      if (over < 0 && W !== null) over = (this.wasmHost as BroadWasmHost).groups(W, A, nDirty, per, out);
      if (over < 0) {
        // the triangle pairs, then their tests (in WebAssembly where the module runs)
        const S = this.groups;
        over = collectDirtyPairs(A, this.tree, this.dirtyTris, this.dirtyGroupEnd, 0, nDirty, per, S);
        if (!this.testHere(W, S.pairs, S.count, true)) collectPairRange(A, S.pairs, 0, S.count, out, true);
      }
      if (over > 0) this.overBudget(over);
    }
    this.collected(partial, kept, keptEE);
  }

  /**
   * The candidate tests of pairs[0 … np) on the calling thread in WebAssembly: on the broad phase's
   * memory (W), or (a full rebuild) with the arrays copied into the module's own memory where they
   * are not in one; false where it did not run (the caller runs the JavaScript loop).
   */
  private testHere(W: BroadWasm | null, pairs: Int32Array, np: number, partial: boolean): boolean {
    // (collectPairs' arrays and sink)
    const A = this.arrays,
      out = this.sink;
    if (W !== null) return (this.wasmHost as BroadWasmHost).run(W, A, pairs, np, partial, out);
    return !partial && this.wasmTests.run(A, pairs, np, out);
  }

  /** Ends collectPairs: the free points' pairs, the lists taken from the sink, no bounds for the new candidates. */
  private collected(partial: boolean, kept: number, keptEE: number): void {
    const A = this.arrays,
      out = this.sink,
      vd = this.vDirty;
    const free = this.topo.freeV;
    for (let k = 0; k < free.length; k++) {
      const q = free[k];
      this.collectForVertex(A, q, partial && vd[q] === 0);
    }
    // the lists and their bounds on the broad phase's memory where there is one, moved there when they
    // grew elsewhere (the narrow module reads and lowers them where they are: docs/collision.md,
    // "Seventeenth round")
    const mem = this.wasmHost?.mem ?? null;
    this.vtCand = out.vt = inMemory(mem, out.vt);
    this.vtCount = out.vtCount;
    this.eeCand = out.ee = inMemory(mem, out.ee);
    this.eeCount = out.eeCount;
    // new candidates start without a distance bound
    if (this.vtDist.length < this.vtCand.length / 2)
      this.vtDist = grow64(this.vtDist, this.vtCand.length / 2);
    if (this.eeDist.length < this.eeCand.length / 2)
      this.eeDist = grow64(this.eeDist, this.eeCand.length / 2);
    this.vtDist = inMemory(mem, this.vtDist);
    this.eeDist = inMemory(mem, this.eeDist);
    this.vtDist.fill(-1, kept, this.vtCount);
    this.eeDist.fill(-1, keptEE, this.eeCount);
  }

  /** Counts `n` triangles or points that reached their pair budget, with a one-time notice. */
  private overBudget(n: number): void {
    this.stats.capped += n;
    if (budgetNoticed || typeof console === 'undefined') return;
    budgetNoticed = true;
    console.warn(
      `pbdkit: surface contacts: triangles met more than ${MAX_PAIRS_PER_TRIANGLE} others (or ${PAIR_BUDGET} each in all) in the broad phase: coincident or collapsed geometry (bodies started on top of each other?); the pairs beyond were skipped (stats.capped)`,
    );
  }

  private parallel: ParallelBroadPairs | null = null;

  /** Full rebuilds whose candidate tests ran on the worker pool (threaded worlds). */
  private parallelRebuild: ParallelBroadRebuild | null = null;

  /** Full rebuilds whose candidate tests ran on the pool (statistics, tests). */
  get pooledRebuilds(): number {
    return (this.parallel?.runs ?? 0) + (this.parallelRebuild?.runs ?? 0);
  }

  /** Full rebuilds whose tree traversal ran on the pool too (statistics, tests). */
  get pooledTraversals(): number {
    return this.parallelRebuild?.runs ?? 0;
  }

  /** Incremental updates whose queries and candidate tests ran on the pool (statistics, tests). */
  get pooledUpdates(): number {
    return this.parallelRebuild?.updates ?? 0;
  }

  /** Parts of those rebuilds (and blocks of those updates) that found the shared output full and ran again on the calling thread. */
  get pooledReruns(): number {
    return this.parallelRebuild?.reruns ?? 0;
  }

  /**
   * Blocks of the pooled rebuilds and updates whose candidate tests ran in WebAssembly (`wasm`) and in
   * JavaScript (`js`), and parts of the rebuilds whose tree traversal ran in WebAssembly too (statistics, tests).
   */
  get pooledModule(): { wasm: number; js: number; traversals: number; queries: number } {
    const r = this.parallelRebuild;
    const traversals = r?.wasmTraversals ?? 0;
    return { wasm: r?.wasmBlocks ?? 0, js: r?.jsBlocks ?? 0, traversals, queries: r?.wasmQueries ?? 0 };
  }

  private poolRebuild(): ParallelBroadRebuild {
    this.parallelRebuild ??= new ParallelBroadRebuild();
    return this.parallelRebuild;
  }

  private pool(_tasks: TaskRunner): ParallelBroadPairs {
    this.parallel ??= new ParallelBroadPairs();
    return this.parallel;
  }

  /** The arrays the candidate tests read (surface-broad-pairs.ts), pointed at the current ones. */
  private bind(store: ParticleStore): BroadArrays {
    const A = this.bindArrays();
    A.group = store.group;
    A.mask = store.mask;
    return A;
  }

  /** The same, but for the store's groups and masks. */
  private bindArrays(): BroadArrays {
    const A = this.arrays,
      topo = this.topo,
      snaps = this.snapshots;
    bindTopologyArrays(A, topo);
    A.ownVStart = topo.ownVStart;
    A.ownV = topo.ownV;
    A.ownEStart = topo.ownEStart;
    A.ownE = topo.ownE;
    A.pairOn = topo.pairTable;
    A.scalars[B_SURFACES] = topo.surfaces.length;
    A.scalars[B_MARGIN] = topo.marginFactor;
    A.scalars[B_MEAN_EDGE] = topo.meanEdge;
    A.snap = snaps.snap;
    A.delta = snaps.delta;
    A.vBox = snaps.vBox;
    A.tBox = this.tBox;
    A.tSphere = this.tSphere;
    A.eBox = this.eBox;
    A.eHalf = this.eHalf;
    A.sharp = this.sharp;
    A.vDirty = this.vDirty;
    A.tDirty = this.tDirty;
    A.eDirty = this.eDirty;
    return A;
  }

  /** Adds the pairs (q, t) for all triangles t near vertex q. */
  private collectForVertex(A: BroadArrays, q: number, dirtyOnly: boolean): void {
    const o = 6 * q,
      vb = this.snapshots.vBox;
    const g = this.topo.halfReach[this.topo.vertexSurface[q]];
    const m = this.tree.query(
      this.tBox,
      vb[o] - g,
      vb[o + 1] - g,
      vb[o + 2] - g,
      vb[o + 3] + g,
      vb[o + 4] + g,
      vb[o + 5] + g,
      MAX_TRIANGLES_PER_POINT,
    );
    if (this.tree.truncated) this.overBudget(1);
    const res = this.tree.result;
    const td = this.tDirty;
    for (let k = 0; k < m; k++) {
      const t = res[k];
      if (dirtyOnly && td[t] === 0) continue;
      if (vtCandidate(A, q, t)) addPair(this.sink, true, q, t);
    }
  }

  /**
   * Marks the sharp edges: boundary edges, and edges whose two triangles turn
   * by more than 30° against each other (at x, once per step, and after a
   * topology change). An edge turning sharp needs its contact candidates
   * within reach: its end points renew their snapshots at the next update.
   */
  classifyEdges(x: Float64Array, always: boolean): void {
    const topo = this.topo;
    if (!always && this.sharpVersion === topo.version) return;
    const ne = topo.edgeCount;
    const fresh = this.sharpVersion === topo.version && this.sharp.length === ne;
    if (this.sharp.length !== ne) this.sharp = this.alloc.u8(ne);
    const sharp = this.sharp;
    const et = topo.edgeTris,
      tri = topo.tri,
      vert = topo.vertex;
    const cos30 = Math.cos(Math.PI / 6);
    for (let e = 0; e < ne; e++) {
      const t0 = et[2 * e],
        t1 = et[2 * e + 1];
      if (t1 < 0) {
        sharp[e] = 1;
        continue;
      }
      triangleNormal(x, vert, tri, t0, nA);
      triangleNormal(x, vert, tri, t1, nB);
      // consistently wound neighbours have normals that agree on a flat edge
      const now = nA[0] * nB[0] + nA[1] * nB[1] + nA[2] * nB[2] < cos30 ? 1 : 0;
      if (now === 1 && sharp[e] === 0 && fresh) {
        this.snapshots.force(topo.edge[2 * e]);
        this.snapshots.force(topo.edge[2 * e + 1]);
      }
      sharp[e] = now;
    }
    this.sharpVersion = topo.version;
  }

  /** Swept boxes x → p and the motion of every surface vertex (see relativeMotion); in blocks on the pool where it can. */
  sweptBoxes(x: Float64Array, p: Float64Array, tasks: TaskRunner | null = null): void {
    const c = this.meanDisplacement(x, p);
    const blocks = this.blocksFor(tasks);
    if (tasks && blocks?.swept(tasks, this.blocksSource(), x, p, c[0], c[1], c[2])) return;
    sweptRange(this.topo.vertex, x, p, this.sv, this.motion, c[0], c[1], c[2], 0, this.topo.vertexCount);
  }

  /** The mean displacement p − x of the surface vertices (summed in vertex order), into `mean`. */
  private meanDisplacement(x: Float64Array, p: Float64Array): Float64Array {
    const nv = this.topo.vertexCount;
    const vert = this.topo.vertex;
    let cx = 0,
      cy = 0,
      cz = 0;
    for (let v = 0; v < nv; v++) {
      const g = 3 * vert[v];
      cx += p[g] - x[g];
      cy += p[g + 1] - x[g + 1];
      cz += p[g + 2] - x[g + 2];
    }
    const inv = 1 / Math.max(1, nv);
    const c = this.mean;
    c[0] = cx * inv;
    c[1] = cy * inv;
    c[2] = cz * inv;
    return c;
  }

  private readonly mean = new Float64Array(3);

  /**
   * The motion |(p − x) − c| of every surface vertex relative to the mean
   * displacement c of all of them. Along straight paths x → p the distance
   * of a vertex–triangle (or edge–edge) pair changes by at most the sum of
   * the relative motions of its vertex and of the fastest vertex of the
   * other side: the common c cancels in q − Σ bᵢ pᵢ because Σ bᵢ = 1. So
   * the distance bounds of falling or drifting cloth decay only by how fast
   * its parts move against each other.
   */
  private relativeMotion(x: Float64Array, p: Float64Array): void {
    const c = this.meanDisplacement(x, p);
    const cx = c[0],
      cy = c[1],
      cz = c[2];
    const vert = this.topo.vertex,
      motion = this.motion;
    for (let v = 0; v < this.topo.vertexCount; v++) {
      const g = 3 * vert[v];
      const mx = p[g] - x[g] - cx,
        my = p[g + 1] - x[g + 1] - cy,
        mz = p[g + 2] - x[g + 2] - cz;
      motion[v] = Math.sqrt(mx * mx + my * my + mz * mz);
    }
  }

  /**
   * The distance bounds of the candidates hold at x; x moves to p at the end
   * of the substep, so each bound drops by the motion of its pair.
   */
  decayBounds(x: Float64Array, p: Float64Array): void {
    const motion = this.motion;
    this.relativeMotion(x, p);
    const tri = this.topo.tri,
      edge = this.topo.edge,
      vt = this.vtCand,
      ee = this.eeCand,
      vtDist = this.vtDist,
      eeDist = this.eeDist;
    for (let k = 0; k < this.vtCount; k++) {
      const lb = vtDist[k];
      if (lb < 0) continue;
      const t = vt[2 * k + 1];
      const d =
        lb - motion[vt[2 * k]] - Math.max(motion[tri[3 * t]], motion[tri[3 * t + 1]], motion[tri[3 * t + 2]]);
      vtDist[k] = d > 0 ? d : -1;
    }
    for (let k = 0; k < this.eeCount; k++) {
      const lb = eeDist[k];
      if (lb < 0) continue;
      const e = ee[2 * k],
        f = ee[2 * k + 1];
      const d =
        lb -
        Math.max(motion[edge[2 * e]], motion[edge[2 * e + 1]]) -
        Math.max(motion[edge[2 * f]], motion[edge[2 * f + 1]]);
      eeDist[k] = d > 0 ? d : -1;
    }
  }
}

const nA = new Float64Array(3);
const nB = new Float64Array(3);
