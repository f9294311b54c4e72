import type { SharedTask, TaskRunner } from '../core/step-context.js';
import { ARRAYS } from './broad-slots.generated.js';
import type { Bvh } from './bvh.js';
import {
  type BvhNodes,
  frontierPartPairs,
  partPairsScratch,
  selfPairsFrontier,
  selfPairsOfNodes,
} from './bvh-self-pairs.js';
import { pairsToArena } from './pair-arena.js';
import {
  type BroadArrays,
  collectDirtyPairs,
  collectPairRange,
  emptyBroadArrays,
  type GroupScratch,
  groupScratch,
  grow32,
  type PairSink,
} from './surface-broad-pairs.js';
import { type Shareable, shared, shareInto, TOPOLOGY_KEYS } from './surface-broad-share.js';
import { closeTally, openTally, tallyFor, tallyPairs } from './surface-broad-tally.js';
import {
  type BroadWasm,
  groupsInModule,
  partsInModule,
  TOPOLOGY_ARRAYS,
  testPairs,
} from './surface-broad-wasm.js';

/**
 * The candidate tests of a full broad-phase rebuild on the worker pool
 * (docs/solver.md, "Threads"): the overlapping triangle pairs of the tree
 * are cut into blocks; each block runs collectPairRange into its own part
 * of a shared output, and the calling thread joins the parts in block
 * order, so the candidate lists are those of the serial loop, in the same
 * order, for every thread count. A block whose part fills up is run again
 * by the calling thread into the lists themselves (same tests, same order),
 * and the parts grow for the next step.
 */

/** Arguments of the 'surface-broad-pairs' task: shared copies of what the tests read, and the outputs. */
interface BroadPairsArgs {
  A: BroadArrays;
  /** Overlapping triangle pairs (t1, t2) of the rebuild. */
  pairs: Int32Array;
  /** Candidates found by block b: vertex–triangle pairs from 2 capV b, edge pairs from 2 capE b. */
  vtOut: Int32Array;
  eeOut: Int32Array;
  capV: number;
  capE: number;
  /** Per block: vertex–triangle and edge–edge candidates found, 1 when its part filled up. */
  counts: Int32Array;
}

/** The task's kernel: block `block` = triangle pairs [from, to). */
export function broadPairsTask(args: BroadPairsArgs, from: number, to: number, block: number): void {
  const capV = args.capV,
    capE = args.capE;
  const sink: PairSink = {
    vt: args.vtOut.subarray(2 * capV * block, 2 * capV * (block + 1)),
    vtCount: 0,
    ee: args.eeOut.subarray(2 * capE * block, 2 * capE * (block + 1)),
    eeCount: 0,
    grow: false,
    full: false,
  };
  collectPairRange(args.A, args.pairs, from, to, sink);
  const c = args.counts;
  c[3 * block] = sink.vtCount;
  c[3 * block + 1] = sink.eeCount;
  c[3 * block + 2] = sink.full ? 1 : 0;
}

/** Triangle pairs below which a rebuild tests its candidates on the calling thread. */
export const PARALLEL_MIN_PAIRS = 4096;
/** Blocks per thread (small blocks even out pairs of uneven cost). */
const BLOCKS_PER_THREAD = 8;
const MAX_BLOCKS = 128;

/** The shared copies and outputs of one broad phase's rebuild task. */
export class ParallelBroadPairs {
  readonly task: SharedTask = { kind: 'surface-broad-pairs', args: {}, version: 0 };
  private A: BroadArrays = emptyBroadArrays();
  private pairs: Int32Array = new Int32Array(0);
  private vtOut: Int32Array = new Int32Array(0);
  private eeOut: Int32Array = new Int32Array(0);
  private counts: Int32Array = new Int32Array(0);
  private capV = 1024;
  private capE = 1024;
  private blocks = 0;
  private stale = true;
  /** Rebuilds whose tests ran on the pool (statistics, tests). */
  runs = 0;

  /**
   * Appends the candidates of triangle pairs [0, np) to `out` (a sink that
   * grows) with the pool's threads; false when the pool cannot run it now
   * (the caller then runs collectPairRange itself).
   */
  run(tasks: TaskRunner, src: BroadArrays, pairs: Int32Array, np: number, out: PairSink): boolean {
    const blocks = Math.min(MAX_BLOCKS, BLOCKS_PER_THREAD * tasks.threads);
    this.share(src, pairs, np, blocks);
    if (this.stale) {
      this.task.version++;
      this.task.args = {
        A: this.A,
        pairs: this.pairs,
        vtOut: this.vtOut,
        eeOut: this.eeOut,
        capV: this.capV,
        capE: this.capE,
        counts: this.counts,
      } satisfies BroadPairsArgs;
      this.stale = false;
    }
    if (!tasks.runTask(this.task, np, blocks)) return false;
    this.runs++;
    // join the blocks in order (the pool's partition: blocks of ⌈np / blocks⌉ pairs)
    const B = Math.ceil(np / blocks);
    const total = Math.ceil(np / B);
    const c = this.counts;
    let needV = 0,
      needE = 0;
    for (let b = 0; b < total; b++) {
      if (c[3 * b + 2] !== 0) {
        // this block's part filled up: its pairs once more, here, into the growing lists
        const v0 = out.vtCount,
          e0 = out.eeCount;
        collectPairRange(src, pairs, b * B, Math.min(np, (b + 1) * B), out);
        needV = Math.max(needV, out.vtCount - v0);
        needE = Math.max(needE, out.eeCount - e0);
        continue;
      }
      const nv = c[3 * b],
        ne = c[3 * b + 1];
      if (2 * (out.vtCount + nv) > out.vt.length) out.vt = grow32(out.vt, 2 * (out.vtCount + nv));
      out.vt.set(this.vtOut.subarray(2 * this.capV * b, 2 * (this.capV * b + nv)), 2 * out.vtCount);
      out.vtCount += nv;
      if (2 * (out.eeCount + ne) > out.ee.length) out.ee = grow32(out.ee, 2 * (out.eeCount + ne));
      out.ee.set(this.eeOut.subarray(2 * this.capE * b, 2 * (this.capE * b + ne)), 2 * out.eeCount);
      out.eeCount += ne;
    }
    // parts that filled up grow for the next rebuild (the workers receive them before the next step)
    if (needV > this.capV || needE > this.capE) {
      this.capV = Math.max(this.capV, 2 * needV);
      this.capE = Math.max(this.capE, 2 * needE);
      this.vtOut = new Int32Array(0);
    }
    return true;
  }

  /** Copies what the tests read into the shared arrays (new ones, and stale = true, where they are too short). */
  private share(src: BroadArrays, pairs: Int32Array, np: number, blocks: number): void {
    const A = this.A as unknown as Record<string, Shareable>;
    const S = src as unknown as Record<string, Shareable>;
    for (const key in S) {
      const from = S[key];
      if (A[key].length < from.length || A[key].buffer.constructor !== SharedArrayBuffer) {
        A[key] = shared(from, from.length);
        this.stale = true;
      }
      A[key].set(from);
    }
    if (this.pairs.length < 2 * np) {
      this.pairs = shared(this.pairs, 2 * np);
      this.stale = true;
    }
    this.pairs.set(pairs.subarray(0, 2 * np));
    if (this.blocks !== blocks || this.vtOut.length < 2 * this.capV * blocks) {
      this.blocks = blocks;
      this.vtOut = new Int32Array(new SharedArrayBuffer(8 * this.capV * blocks));
      this.eeOut = new Int32Array(new SharedArrayBuffer(8 * this.capE * blocks));
      this.counts = new Int32Array(new SharedArrayBuffer(12 * blocks));
      this.stale = true;
    }
  }
}

/** Arguments of the 'surface-broad-rebuild' task: the tree, what the tests read, and the shared output. */
interface BroadRebuildArgs {
  A: BroadArrays;
  N: BvhNodes;
  /** The frontier's node pairs: block b traverses front[2b], front[2b + 1]. */
  front: Int32Array;
  /**
   * Where the blocks put what they found: each block claims one run of the
   * arena (top[0]: its first free entry, advanced atomically) and writes its
   * vertex–triangle and edge–edge candidates there, one after the other (2
   * entries each; its triangle pairs only go to the tally, since session 20).
   * top[1]: the most triangle pairs a block may find (the rebuild's total
   * budget; past it the calling thread takes over, with the budgets).
   */
  arena: Int32Array;
  top: Int32Array;
  /** Per block: its run's start, triangle pairs, vertex–triangle and edge–edge candidates, 1 when the arena was full. */
  counts: Int32Array;
  /** The module on the broad phase's memory, where the tests run in WebAssembly (surface-broad-wasm.ts). */
  W: BroadWasm | null;
  /** Each thread's count of its parts' pairs per triangle (surface-broad-tally.ts). */
  tally: Int32Array;
}

/** Slots per block in BroadRebuildArgs.counts (and BroadUpdateArgs.counts); the last: 1 where its tests ran in WebAssembly, 2 its traversal or queries too. */
const C = 6;

/** A thread's own sink for its blocks (module state: one per thread), grown as needed. */
const localSink: PairSink = {
  vt: new Int32Array(2048),
  vtCount: 0,
  ee: new Int32Array(512),
  eeCount: 0,
  grow: true,
  full: false,
};

/**
 * The task's kernel: block `block` = frontier node pairs [from, to) (one
 * each): their overlapping triangle pairs (the tree's self-traversal from
 * there) and those pairs' candidate tests, found in this thread's own
 * scratch (grown as needed) and then copied to a run of the shared arena
 * claimed for them.
 */
export function broadRebuildTask(args: BroadRebuildArgs, from: number, to: number, block: number): void {
  const c = args.counts,
    o = C * block;
  // the traversal and the tests in WebAssembly where the module runs (the same pairs and lists)
  const m = partsInModule(args.W, args.A, args.front, from, to, args.top[1]);
  if (m !== null) {
    if (m === 'budget') c[o + 4] = 1;
    else toArena(args, c, o, m.pairs, m.pairs.length >> 1, m.vt, m.vt.length >> 1, m.ee, m.ee.length >> 1, 2);
    return;
  }
  const np = frontierPartPairs(args.N, args.A.tBox, args.front, from, to, args.top[1]);
  if (np < 0) {
    // past the budget: the calling thread runs this part again, with the budgets
    c[o + 4] = 1;
    return;
  }
  const localPairs = partPairsScratch();
  const sink = localSink;
  sink.vtCount = 0;
  sink.eeCount = 0;
  const wasm = testPairs(args.W, args.A, localPairs, np, false, sink);
  toArena(args, c, o, localPairs, np, sink.vt, sink.vtCount, sink.ee, sink.eeCount, wasm ? 1 : 0);
}

/**
 * A rebuild block's nv vertex–triangle and ne edge–edge candidates copied to
 * a run of the arena claimed for them, its np triangle pairs counted per
 * triangle in this thread's tally (the join's budgets: the pairs themselves
 * are not read again, so since session 20 they are not copied), and its
 * counts (`how`: 0 tested in JavaScript, 1 in WebAssembly, 2 traversed there
 * too).
 */
function toArena(
  args: BroadRebuildArgs,
  c: Int32Array,
  o: number,
  pairs: Int32Array,
  np: number,
  vt: Int32Array,
  nv: number,
  ee: Int32Array,
  ne: number,
  how: number,
): void {
  c[o + 1] = np;
  c[o + 2] = nv;
  c[o + 3] = ne;
  c[o + 5] = how;
  if (pairsToArena(args.top, args.arena, c, o, 4, vt, nv, ee, ne)) tallyPairs(args.tally, pairs, np);
}

/** Arguments of the 'surface-broad-update' task: the rebuild's shared copies, the update's groups, the arena. */
interface BroadUpdateArgs {
  A: BroadArrays;
  N: BvhNodes;
  /** The dirty triangles and the ends of their groups (SurfaceBroadPhase.partialUpdate). */
  dirty: Int32Array;
  ends: Int32Array;
  /** The rebuild's arena; top[0]: its first free entry, top[2]: the pair budget per triangle. */
  arena: Int32Array;
  top: Int32Array;
  /** Per block: its run's start, triangles or queries past their budget, vertex–triangle and edge–edge candidates, 1 when the arena was full. */
  counts: Int32Array;
  /** As BroadRebuildArgs.W. */
  W: BroadWasm | null;
}

/** A thread's own query scratch for its update blocks (module state: one per thread). */
const localGroups: GroupScratch = groupScratch();

/**
 * The update task's kernel: block `block` = groups [from, to) of an
 * incremental update (collectDirtyPairs and their tests), found in this thread's own sink
 * and copied to a run of the shared arena claimed for them.
 */
export function broadUpdateTask(args: BroadUpdateArgs, from: number, to: number, block: number): void {
  const c = args.counts,
    o = C * block;
  // the queries, filter and tests in WebAssembly where the module runs (the same pairs and lists)
  const m = groupsInModule(args.W, args.A, from, to, args.top[2]);
  if (m !== null) {
    c[o + 5] = 2;
    updateToArena(args, c, o, m.over, m.vt, m.vt.length >> 1, m.ee, m.ee.length >> 1);
    return;
  }
  const sink = localSink;
  sink.vtCount = 0;
  sink.eeCount = 0;
  const S = localGroups;
  const over = collectDirtyPairs(args.A, args.N, args.dirty, args.ends, from, to, args.top[2], S);
  c[o + 5] = testPairs(args.W, args.A, S.pairs, S.count, true, sink) ? 1 : 0;
  updateToArena(args, c, o, over, sink.vt, sink.vtCount, sink.ee, sink.eeCount);
}

/** An update block's nv vertex–triangle and ne edge–edge candidates copied to a run of the arena claimed for them, and its counts. */
function updateToArena(
  args: BroadUpdateArgs,
  c: Int32Array,
  o: number,
  over: number,
  vt: Int32Array,
  nv: number,
  ee: Int32Array,
  ne: number,
): void {
  c[o + 1] = over;
  c[o + 2] = nv;
  c[o + 3] = ne;
  pairsToArena(args.top, args.arena, c, o, 4, vt, nv, ee, ne);
}

/** Groups below which an incremental update runs on the calling thread. */
export const PARALLEL_MIN_GROUPS = 16;
/** Most blocks of an incremental update (a block is a run of groups). */
const UPDATE_BLOCKS = 64;

/**
 * Node pairs of the frontier: the parts of a rebuild on the pool. A
 * constant, so the parts (and every result) are the same for any thread
 * count; enough parts of uneven size for the threads to share evenly.
 */
const FRONTIER = 96;
/** Largest arena (entries): 32 MB. A rebuild that needs more runs its surplus parts on the calling thread. */
const MAX_ARENA = 1 << 23;
/** Triangles below which a rebuild runs its traversal on the calling thread. */
export const PARALLEL_MIN_TRIANGLES = 2048;

/**
 * A full rebuild of the candidate lists on the worker pool: the tree's
 * self-traversal cut at a frontier of node pairs (bvh-self-pairs.ts), each
 * part traversed and its triangle pairs tested (collectPairRange) by
 * whichever thread claims it, the parts joined in frontier order: the
 * lists of the serial rebuild, entry for entry. The traversal runs without
 * the pair budgets of `Bvh.selfPairsBounded`; the join counts the pairs of
 * every triangle and, where one reached its budget or all of them the
 * total, gives up (the caller then runs the serial rebuild, which applies
 * the budgets).
 *
 * Each part's results go to one shared arena, to a run of it claimed when
 * the part is done (so parts of any size fit, and the arena is about as
 * large as one rebuild's results: parts of uneven size had been given
 * output of the largest one's size each, 38 MB, and the parts beyond that
 * — the self pairs of a heap's nodes — ran again on the calling thread).
 * When the arena is full, the parts that found no room run again on the
 * calling thread and the arena grows for the next rebuild.
 */
export class ParallelBroadRebuild {
  readonly task: SharedTask = { kind: 'surface-broad-rebuild', args: {}, version: 0 };
  private A: BroadArrays = emptyBroadArrays();
  private N: BvhNodes = {
    box: new Float64Array(0),
    right: new Int32Array(0),
    start: new Int32Array(0),
    count: new Int32Array(0),
    items: new Int32Array(0),
  };
  private front: Int32Array = new Int32Array(0);
  private scratch = new Int32Array(2 * (FRONTIER + 2));
  private arena: Int32Array = new Int32Array(0);
  private top: Int32Array = new Int32Array(0);
  private counts: Int32Array = new Int32Array(0);
  /** Entries the arena should hold (grown when a rebuild needed more). */
  private arenaSize: number;
  private stale = true;
  /** Triangle pairs of each triangle (the budget check), the threads' counts of them, and the pairs of a part run again here. */
  private perItem = new Int32Array(0);
  private tally: Int32Array = new Int32Array(0);
  private local = new Int32Array(1024);
  /** Rebuilds that ran on the pool (statistics, tests). */
  runs = 0;
  /** Blocks of those rebuilds and updates whose candidate tests ran in WebAssembly, and in JavaScript (statistics, tests). */
  wasmBlocks = 0;
  jsBlocks = 0;
  /** Parts of those rebuilds whose tree traversal ran in WebAssembly too, and blocks of the updates whose queries did (statistics, tests). */
  wasmTraversals = 0;
  wasmQueries = 0;
  /** The module on the broad phase's memory that the tasks' tests run in (null: the JavaScript tests). */
  private W: BroadWasm | null = null;
  /** Parts that found the arena full and ran again on the calling thread (statistics, tests). */
  reruns = 0;

  /** `arena`: the arena's first size in entries (0: 64 per triangle; tests start it small to fill it). */
  constructor(arena = 0) {
    this.arenaSize = arena;
  }

  /**
   * Appends the candidates of a full rebuild over `tree` (refitted to
   * src.tBox) to `out` (a sink that grows), on the pool; false when it did
   * not (the pool could not run it now, or a budget was reached: `out` is
   * then as it was and the caller runs the serial rebuild).
   */
  run(
    tasks: TaskRunner,
    src: BroadArrays,
    tree: Bvh,
    perItem: number,
    maxPairs: number,
    out: PairSink,
    W: BroadWasm | null = null,
    topology = -1,
  ): boolean {
    if (tree.itemCount < 2) return false;
    this.share(src, tree, topology);
    if (W !== this.W) {
      this.W = W;
      this.stale = this.updateStale = true;
    }
    this.synced = true;
    const nf = selfPairsFrontier(this.N, FRONTIER, this.front, this.scratch);
    const tally = tallyFor(this.tally, tasks.threads, tree.itemCount);
    if (tally !== this.tally) this.stale = true;
    this.tally = tally;
    openTally(tally, tree.itemCount);
    const args = this.stale
      ? ({
          A: this.A,
          N: this.N,
          front: this.front,
          arena: this.arena,
          top: this.top,
          counts: this.counts,
          W: this.W,
          tally,
        } satisfies BroadRebuildArgs)
      : null;
    const sent = startFrontierTask(tasks, this.task, args, this.top, maxPairs, nf);
    this.stale = false;
    if (!sent) return false;
    const v0 = out.vtCount,
      e0 = out.eeCount;
    const c = this.counts,
      arena = this.arena;
    // the pairs per triangle of the parts the pool ran, summed over the threads' counts (the budgets below)
    const ip = this.perItem;
    let total = 0,
      over = closeTally(tally, ip, perItem);
    for (let b = 0; b < nf && !over; b++) {
      const o = C * b;
      let pairs = arena,
        np = c[o + 1];
      if (c[o + 4] !== 0) {
        // the arena was full (or the part reached the budget): this part traversed and tested once more, here, into the growing lists
        this.reruns++;
        const fa = this.front[2 * b],
          fb = this.front[2 * b + 1];
        // (never more than the pairs left in the total budget: past it the serial rebuild takes over)
        const left = maxPairs > 0 ? maxPairs - total : 0x3fffffff;
        // traversed again into a list twice as large while it overflows and the budget allows more
        for (;;) {
          np = selfPairsOfNodes(
            this.N,
            this.A.tBox,
            fa,
            fb,
            this.local,
            0,
            Math.min(left, this.local.length >> 1),
          );
          if (np >= 0 || this.local.length >> 1 >= left) break;
          this.local = new Int32Array(Math.min(2 * left, 2 * this.local.length));
        }
        if (np < 0) {
          over = true;
          break;
        }
        pairs = this.local;
        collectPairRange(src, pairs, 0, np, out);
      } else {
        appendFromArena(out, arena, c[o], c[o + 2], c[o + 3]);
        if (c[o + 5] !== 0) this.wasmBlocks++;
        else this.jsBlocks++;
        if (c[o + 5] === 2) this.wasmTraversals++;
      }
      // the budgets of Bvh.selfPairsBounded: below them its pairs are these, in this order
      total += np;
      if (maxPairs > 0 && total >= maxPairs) over = true;
      if (pairs !== arena)
        for (let k = 0; k < 2 * np && !over; k++) if (++ip[pairs[k]] >= perItem) over = true;
    }
    // an arena that was too small grows for the next rebuild (the workers receive it before the next step)
    const used = Atomics.load(this.top, 0);
    if (used > this.arena.length && this.arenaSize < MAX_ARENA) {
      this.arenaSize = Math.min(MAX_ARENA, Math.ceil(1.25 * used));
      this.arena = new Int32Array(0);
    }
    if (over) {
      out.vtCount = v0;
      out.eeCount = e0;
      return false;
    }
    this.runs++;
    return true;
  }

  /**
   * Whether the tasks' records hold what the broad phase's arrays hold: set
   * by every full rebuild that shares them (run), kept by the incremental
   * updates (patch); the broad phase clears it at every full rebuild that
   * does not come here.
   */
  synced = false;
  private readonly updateTask: SharedTask = { kind: 'surface-broad-update', args: {}, version: 0 };
  private updateStale = true;
  private dirty: Int32Array = new Int32Array(0);
  private ends: Int32Array = new Int32Array(0);
  private readonly groups = groupScratch();
  /** Incremental updates that ran on the pool (statistics, tests). */
  updates = 0;

  /**
   * Keeps the tasks' records in step after an incremental update (before
   * its queries): the small arrays (per-surface values; sharp edges, groups
   * and masks where they are not shared) and the tree's node boxes where
   * they are not shared are copied again. The snapshots, item boxes and
   * dirty flags must be the broad phase's own arrays on shared memory (an
   * update changes them in place); where they are not, the records are
   * marked out of step and the updates run on the calling thread until the
   * next rebuild on the pool. Nothing when not in step.
   */
  patch(src: BroadArrays, tree: Bvh): void {
    if (!this.synced) return;
    const A = this.A;
    const small = {
      sharp: src.sharp,
      group: src.group,
      mask: src.mask,
      thickness: src.thickness,
      pairOn: src.pairOn,
      halfReach: src.halfReach,
      scalars: src.scalars,
    };
    if (shareInto(A as unknown as Record<string, Shareable>, small)) this.stale = this.updateStale = true;
    if (
      shareInto(this.N as unknown as Record<string, Shareable>, {
        box: tree.box.subarray(0, 6 * tree.nodeCount),
      })
    )
      this.stale = this.updateStale = true;
    this.synced =
      A.snap === src.snap &&
      A.delta === src.delta &&
      A.vBox === src.vBox &&
      A.vDirty === src.vDirty &&
      A.tBox === src.tBox &&
      A.tSphere === src.tSphere &&
      A.tDirty === src.tDirty &&
      A.eBox === src.eBox &&
      A.eHalf === src.eHalf &&
      A.eDirty === src.eDirty;
  }

  /**
   * Appends the candidates of an incremental update's groups [0, ng) to
   * `out` (collectDirtyPairs with the tree and `src`, and their tests: the same entries in
   * the same order) on the pool, after `patch`. Returns how many triangles
   * or queries reached their budget, or −1 when it did not run (not synced,
   * or the pool could not run it now: the caller runs them itself).
   */
  runPartial(
    tasks: TaskRunner,
    src: BroadArrays,
    tree: Bvh,
    dirty: Int32Array,
    ends: Int32Array,
    ng: number,
    per: number,
    out: PairSink,
    W: BroadWasm | null = null,
  ): number {
    if (!this.synced || ng === 0) return -1;
    if (W !== this.W) {
      this.W = W;
      this.stale = this.updateStale = true;
    }
    const nt = ends[ng - 1];
    if (this.arena.length < this.arenaSize) {
      // (grown after a rebuild or update that filled it)
      this.arena = new Int32Array(new SharedArrayBuffer(4 * this.arenaSize));
      this.stale = this.updateStale = true;
    }
    if (dirty.buffer instanceof SharedArrayBuffer && ends.buffer instanceof SharedArrayBuffer) {
      // (the broad phase's own, in its memory: read where they are)
      if (this.dirty !== dirty || this.ends !== ends) {
        this.dirty = dirty;
        this.ends = ends;
        this.updateStale = true;
      }
    } else {
      if (this.dirty.length < nt || this.ends.length < ng) {
        this.dirty = new Int32Array(new SharedArrayBuffer(4 * Math.max(nt, dirty.length)));
        this.ends = new Int32Array(new SharedArrayBuffer(4 * Math.max(ng, ends.length)));
        this.updateStale = true;
      }
      this.dirty.set(dirty.subarray(0, nt));
      this.ends.set(ends.subarray(0, ng));
    }
    if (this.updateStale) {
      this.updateTask.version++;
      this.updateTask.args = {
        A: this.A,
        N: this.N,
        dirty: this.dirty,
        ends: this.ends,
        arena: this.arena,
        top: this.top,
        counts: this.counts,
        W: this.W,
      } satisfies BroadUpdateArgs;
      this.updateStale = false;
    }
    Atomics.store(this.top, 0, 0);
    Atomics.store(this.top, 2, per);
    const blocks = Math.min(UPDATE_BLOCKS, ng, BLOCKS_PER_THREAD * tasks.threads);
    if (!tasks.runTask(this.updateTask, ng, blocks)) return -1;
    this.updates++;
    // join the blocks in order (the pool's partition: blocks of ⌈ng / blocks⌉ groups)
    const B = Math.ceil(ng / blocks);
    const total = Math.ceil(ng / B);
    const c = this.counts,
      arena = this.arena;
    let over = 0;
    for (let b = 0; b < total; b++) {
      const o = C * b;
      if (c[o + 4] !== 0) {
        // the arena was full: this block's groups once more, here, into the growing lists
        this.reruns++;
        const S = this.groups;
        over += collectDirtyPairs(src, tree, dirty, ends, b * B, Math.min(ng, (b + 1) * B), per, S);
        collectPairRange(src, S.pairs, 0, S.count, out, true);
        continue;
      }
      over += c[o + 1];
      appendFromArena(out, arena, c[o], c[o + 2], c[o + 3]);
      if (c[o + 5] !== 0) this.wasmBlocks++;
      else this.jsBlocks++;
      if (c[o + 5] === 2) this.wasmQueries++;
    }
    const used = Atomics.load(this.top, 0);
    if (used > arena.length && this.arenaSize < MAX_ARENA) {
      this.arenaSize = Math.min(MAX_ARENA, Math.ceil(1.25 * used));
      this.arena = new Int32Array(0);
    }
    return over;
  }

  /** The topology version (−1: none) and arrays whose copies the shared arrays hold; rebuilds that copied them (statistics, tests). */
  private topology = -1;
  topologyCopies = 0;
  private readonly topoSrc: (Shareable | null)[] = new Array(TOPOLOGY_ARRAYS).fill(null);

  /**
   * Copies the tree and what the tests read into the shared arrays (new ones, and stale = true, where
   * too short); the topology's arrays only when its version (−1: always) or the arrays changed, as
   * BroadWasmHost.place does (they were 0.6 MB a rebuild of the bench's cloth; session 22).
   */
  private share(src: BroadArrays, tree: Bvh, topology: number): void {
    const S = src as unknown as Record<string, Shareable>;
    let held = topology >= 0 && topology === this.topology;
    for (let i = 0; i < TOPOLOGY_ARRAYS; i++) {
      held &&= this.topoSrc[i] === S[ARRAYS[i]];
      this.topoSrc[i] = S[ARRAYS[i]];
    }
    this.topology = topology;
    if (!held) this.topologyCopies++;
    if (shareInto(this.A as unknown as Record<string, Shareable>, S, held ? TOPOLOGY_KEYS : null))
      this.stale = this.updateStale = true;
    const N = this.N as unknown as Record<string, Shareable>;
    const nodes = tree.nodeCount;
    const from: Record<string, Shareable> = {
      box: tree.box.subarray(0, 6 * nodes),
      right: tree.right.subarray(0, nodes),
      start: tree.start.subarray(0, nodes),
      count: tree.count.subarray(0, nodes),
      items: tree.items.subarray(0, tree.itemCount),
    };
    if (shareInto(N, from)) this.stale = this.updateStale = true;
    if (this.front.length < 2 * (FRONTIER + 2)) {
      this.front = new Int32Array(new SharedArrayBuffer(8 * (FRONTIER + 2)));
      this.top = new Int32Array(new SharedArrayBuffer(16));
      this.counts = new Int32Array(new SharedArrayBuffer(4 * C * (FRONTIER + 2)));
      this.stale = this.updateStale = true;
    }
    if (this.perItem.length < tree.itemCount) this.perItem = new Int32Array(tree.itemCount);
    // (at first about what a flat sheet's rebuild needs: ~20 triangle pairs and ~6 candidates per triangle)
    if (this.arenaSize === 0) this.arenaSize = Math.min(MAX_ARENA, 64 * tree.itemCount);
    if (this.arena.length < this.arenaSize) {
      this.arena = new Int32Array(new SharedArrayBuffer(4 * this.arenaSize));
      this.stale = this.updateStale = true;
    }
  }
}

/**
 * Runs a task over the nf node pairs of a frontier, one block each, with
 * the pair budget maxPairs (0: none) in top[1] and the arena empty; new
 * `args` (where the record was stale) are sent first (the task then runs
 * from the next step on: false, as when the pool cannot run it now).
 */
export function startFrontierTask(
  tasks: TaskRunner,
  task: SharedTask,
  args: Record<string, unknown> | null,
  top: Int32Array,
  maxPairs: number,
  nf: number,
): boolean {
  if (args !== null) {
    task.version++;
    task.args = args;
  }
  Atomics.store(top, 0, 0);
  Atomics.store(top, 1, maxPairs > 0 ? maxPairs : 0x3fffffff);
  return tasks.runTask(task, nf, nf);
}

/** Appends to `out` the nv vertex–triangle and then ne edge–edge candidates stored in the arena from entry v. */
function appendFromArena(out: PairSink, arena: Int32Array, v: number, nv: number, ne: number): void {
  const e = v + 2 * nv;
  if (2 * (out.vtCount + nv) > out.vt.length) out.vt = grow32(out.vt, 2 * (out.vtCount + nv));
  out.vt.set(arena.subarray(v, v + 2 * nv), 2 * out.vtCount);
  out.vtCount += nv;
  if (2 * (out.eeCount + ne) > out.ee.length) out.ee = grow32(out.ee, 2 * (out.eeCount + ne));
  out.ee.set(arena.subarray(e, e + 2 * ne), 2 * out.eeCount);
  out.eeCount += ne;
}
