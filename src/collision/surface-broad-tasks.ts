import type { SharedTask, TaskRunner } from '../core/step-context.js';
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
