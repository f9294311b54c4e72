import type { SharedTask, TaskRunner } from '../core/step-context.js';
import type { Bvh } from './bvh.js';
import { type BvhNodes, selfPairsFrontier, selfPairsOfNodes } from './bvh-self-pairs.js';
import {
  type BroadArrays,
  collectPairRange,
  emptyBroadArrays,
  grow32,
  type PairSink,
} from './surface-broad-pairs.js';

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

type Shareable = Int32Array | Float64Array | Uint8Array;

/** A typed array of the same kind on a SharedArrayBuffer, at least `n` long (a quarter more, to grow rarely). */
function shared<T extends Shareable>(a: T, n: number): T {
  const C = a.constructor as new (b: SharedArrayBuffer) => T;
  const len = Math.max(16, Math.ceil(1.25 * n));
  return new C(new SharedArrayBuffer(len * a.BYTES_PER_ELEMENT));
}

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

/** Arguments of the 'surface-broad-rebuild' task: the tree, what the tests read, and the outputs per block. */
interface BroadRebuildArgs {
  A: BroadArrays;
  N: BvhNodes;
  /** The frontier's node pairs: block b traverses front[2b], front[2b + 1]. */
  front: Int32Array;
  /** Block b's triangle pairs from 2 capP b, its candidates from 2 capV b and 2 capE b. */
  pOut: Int32Array;
  vtOut: Int32Array;
  eeOut: Int32Array;
  capP: number;
  capV: number;
  capE: number;
  /** Per block: triangle pairs, vertex–triangle and edge–edge candidates, 1 when a part filled up. */
  counts: Int32Array;
}

/**
 * The task's kernel: block `block` = frontier node pairs [from, to) (one
 * each): their overlapping triangle pairs (the tree's self-traversal from
 * there), then those pairs' candidate tests, into the block's parts.
 */
export function broadRebuildTask(args: BroadRebuildArgs, from: number, to: number, block: number): void {
  const { capP, capV, capE, counts: c } = args;
  const pairs = args.pOut.subarray(2 * capP * block, 2 * capP * (block + 1));
  let np = 0;
  for (let f = from; f < to && np >= 0; f++)
    np = selfPairsOfNodes(args.N, args.A.tBox, args.front[2 * f], args.front[2 * f + 1], pairs, np, capP);
  c[4 * block + 3] = 1;
  if (np < 0) return;
  const sink: PairSink = {
    vt: args.vtOut.subarray(2 * capV * block, 2 * capV * (block + 1)),
    vtCount: 0,
    ee: args.eeOut.subarray(2 * capE * block, 2 * capE * (block + 1)),
    eeCount: 0,
    grow: false,
    full: false,
  };
  collectPairRange(args.A, pairs, 0, np, sink);
  c[4 * block] = np;
  c[4 * block + 1] = sink.vtCount;
  c[4 * block + 2] = sink.eeCount;
  c[4 * block + 3] = sink.full ? 1 : 0;
}

/**
 * Node pairs of the frontier: the parts of a rebuild on the pool. A
 * constant, so the parts (and every result) are the same for any thread
 * count; enough parts of uneven size for the threads to share evenly.
 */
const FRONTIER = 96;
/** Largest part (pairs of each kind) of a block's output: 3 × 98 × 16,384 pairs = 38 MB at most. */
const MAX_PART = 16384;
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
 * the budgets). A part whose output filled up is run again on the calling
 * thread, and the parts grow for the next rebuild.
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
  private pOut: Int32Array = new Int32Array(0);
  private vtOut: Int32Array = new Int32Array(0);
  private eeOut: Int32Array = new Int32Array(0);
  private counts: Int32Array = new Int32Array(0);
  private capP = 2048;
  private capV = 1024;
  private capE = 256;
  private stale = true;
  /** Triangle pairs of each triangle (the budget check) and of a part run again here. */
  private perItem = new Int32Array(0);
  private local = new Int32Array(1024);
  /** Rebuilds that ran on the pool (statistics, tests). */
  runs = 0;

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
  ): boolean {
    if (tree.itemCount < 2) return false;
    this.share(src, tree);
    const nf = selfPairsFrontier(this.N, FRONTIER, this.front, this.scratch);
    if (this.stale) {
      this.task.version++;
      this.task.args = {
        A: this.A,
        N: this.N,
        front: this.front,
        pOut: this.pOut,
        vtOut: this.vtOut,
        eeOut: this.eeOut,
        capP: this.capP,
        capV: this.capV,
        capE: this.capE,
        counts: this.counts,
      } satisfies BroadRebuildArgs;
      this.stale = false;
    }
    if (!tasks.runTask(this.task, nf, nf)) return false;
    const v0 = out.vtCount,
      e0 = out.eeCount;
    const c = this.counts;
    const ip = this.perItem;
    ip.fill(0, 0, tree.itemCount);
    let total = 0,
      over = false,
      needP = 0,
      needV = 0,
      needE = 0;
    for (let b = 0; b < nf && !over; b++) {
      let pairs = this.pOut,
        p0 = 2 * this.capP * b,
        np = c[4 * b];
      if (c[4 * b + 3] !== 0) {
        // this part filled up: traversed and tested once more, here, into the growing lists
        const fa = this.front[2 * b],
          fb = this.front[2 * b + 1];
        // (never more than the pairs left in the total budget: past it the serial rebuild takes over)
        const left = maxPairs > 0 ? maxPairs - total : 0x3fffffff;
        np = selfPairsOfNodes(
          this.N,
          this.A.tBox,
          fa,
          fb,
          this.local,
          0,
          Math.min(left, this.local.length >> 1),
        );
        while (np < 0 && this.local.length >> 1 < left) {
          this.local = new Int32Array(Math.min(2 * left, 2 * this.local.length));
          np = selfPairsOfNodes(
            this.N,
            this.A.tBox,
            fa,
            fb,
            this.local,
            0,
            Math.min(left, this.local.length >> 1),
          );
        }
        if (np < 0) {
          over = true;
          break;
        }
        pairs = this.local;
        p0 = 0;
        const vb = out.vtCount,
          eb = out.eeCount;
        collectPairRange(src, pairs, 0, np, out);
        needP = Math.max(needP, np);
        needV = Math.max(needV, out.vtCount - vb);
        needE = Math.max(needE, out.eeCount - eb);
      } else {
        const nv = c[4 * b + 1],
          ne = c[4 * b + 2];
        if (2 * (out.vtCount + nv) > out.vt.length) out.vt = grow32(out.vt, 2 * (out.vtCount + nv));
        out.vt.set(this.vtOut.subarray(2 * this.capV * b, 2 * (this.capV * b + nv)), 2 * out.vtCount);
        out.vtCount += nv;
        if (2 * (out.eeCount + ne) > out.ee.length) out.ee = grow32(out.ee, 2 * (out.eeCount + ne));
        out.ee.set(this.eeOut.subarray(2 * this.capE * b, 2 * (this.capE * b + ne)), 2 * out.eeCount);
        out.eeCount += ne;
      }
      // the budgets of Bvh.selfPairsBounded: below them its pairs are these, in this order
      total += np;
      if (maxPairs > 0 && total >= maxPairs) over = true;
      for (let k = p0; k < p0 + 2 * np && !over; k++) if (++ip[pairs[k]] >= perItem) over = true;
    }
    // parts that filled up grow for the next rebuild (the workers receive them before the next step)
    // (up to MAX_PART: a part larger than that, degenerate input, is always run here)
    if (
      (needP > this.capP && this.capP < MAX_PART) ||
      (needV > this.capV && this.capV < MAX_PART) ||
      (needE > this.capE && this.capE < MAX_PART)
    ) {
      this.capP = Math.min(MAX_PART, Math.max(this.capP, 2 * needP));
      this.capV = Math.min(MAX_PART, Math.max(this.capV, 2 * needV));
      this.capE = Math.min(MAX_PART, Math.max(this.capE, 2 * needE));
      this.pOut = new Int32Array(0);
    }
    if (over) {
      out.vtCount = v0;
      out.eeCount = e0;
      return false;
    }
    this.runs++;
    return true;
  }

  /** Copies the tree and what the tests read into the shared arrays (new ones, and stale = true, where too short). */
  private share(src: BroadArrays, tree: Bvh): void {
    if (
      shareInto(this.A as unknown as Record<string, Shareable>, src as unknown as Record<string, Shareable>)
    )
      this.stale = true;
    const N = this.N as unknown as Record<string, Shareable>;
    const nodes = tree.nodeCount;
    const from: Record<string, Shareable> = {
      box: tree.box.subarray(0, 6 * nodes),
      right: tree.right.subarray(0, nodes),
      start: tree.start.subarray(0, nodes),
      count: tree.count.subarray(0, nodes),
      items: tree.items.subarray(0, tree.itemCount),
    };
    if (shareInto(N, from)) this.stale = true;
    if (this.front.length < 2 * (FRONTIER + 2)) {
      this.front = new Int32Array(new SharedArrayBuffer(8 * (FRONTIER + 2)));
      this.stale = true;
    }
    if (this.perItem.length < tree.itemCount) this.perItem = new Int32Array(tree.itemCount);
    const blocks = FRONTIER + 2;
    if (this.pOut.length < 2 * this.capP * blocks) {
      this.pOut = new Int32Array(new SharedArrayBuffer(8 * this.capP * blocks));
      this.vtOut = new Int32Array(new SharedArrayBuffer(8 * this.capV * blocks));
      this.eeOut = new Int32Array(new SharedArrayBuffer(8 * this.capE * blocks));
      this.counts = new Int32Array(new SharedArrayBuffer(16 * blocks));
      this.stale = true;
    }
  }
}

/** Copies each array of `from` into the same key of `to` (a new shared array where it is too short); true when one was new. */
function shareInto(to: Record<string, Shareable>, from: Record<string, Shareable>): boolean {
  let fresh = false;
  for (const key in from) {
    const a = from[key];
    if (to[key].length < a.length || to[key].buffer.constructor !== SharedArrayBuffer) {
      to[key] = shared(a, a.length);
      fresh = true;
    }
    to[key].set(a);
  }
  return fresh;
}
