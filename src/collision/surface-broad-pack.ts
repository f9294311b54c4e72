import type { SharedTask, TaskRunner } from '../core/step-context.js';
import type { BroadArrays } from './surface-broad-pairs.js';
import { type BroadWasm, type BroadWasmHost, bindInstance, instanceOf } from './surface-broad-wasm.js';

/**
 * A full rebuild's triangle records packed on the pool while the calling
 * thread refits the tree (docs/collision.md, "Eighteenth round (session 23,
 * self30)"). The module's candidate tests read one record per triangle
 * (wasm/surfaces.ts packRecords: copies of its box, corners, sphere, owned
 * vertices' and edges' boxes), which the calling thread packed alone before
 * the rebuild's job, after refitting the tree alone. The two read only the
 * item boxes and the topology and write disjoint memory (the records, the
 * tree's node boxes), so they can run at once: the records' job is opened,
 * the calling thread refits (the job's `lead`, WorkerPool.run) while the
 * workers pack, then it packs the blocks left. Each record is its own
 * bytes, whoever packs it: the same records, lists and bits.
 */

/** Blocks of the records' job per thread (11,682 triangles on the bench's cloth: ~730 a block on two threads). */
const BLOCKS_PER_THREAD = 8;

/** What the workers read: the module on the broad phase's memory and the broad scalars (surfaces, margin, mean edge). */
export interface RecordPackArgs {
  W: BroadWasm;
  scalars: Float64Array;
}

/** The records of triangles [from, to) in this thread's instance of the module (its address table set by `ready`). */
export function broadPackTask(args: RecordPackArgs, from: number, to: number): void {
  const k = instanceOf(args.W);
  bindInstance(k, args.W.lay, null, args.scalars);
  k.packRecords(0, from, to);
}

export class RecordPack {
  readonly task: SharedTask = { kind: 'surface-broad-pack', args: {}, version: 0 };
  private scalars: Float64Array = new Float64Array(0);
  private W: BroadWasm | null = null;
  /** Rebuilds whose records the pool packed (statistics, tests). */
  runs = 0;

  /**
   * Lays out A's records (`ready` with `defer`) and packs them on the pool,
   * `lead` (the refit) running on the calling thread meanwhile. False when
   * the job did not run (no module, or arguments just sent): then neither ran,
   * and the caller refits and `ready` packs as before.
   */
  run(H: BroadWasmHost, tasks: TaskRunner, A: BroadArrays, topology: number, lead: () => void): boolean {
    H.defer = true;
    const W = H.ready(A, topology, tasks.threads);
    H.defer = false;
    if (W === null) return false;
    const s = A.scalars;
    if (W !== this.W || this.scalars.length !== s.length) {
      this.W = W;
      this.scalars = new Float64Array(new SharedArrayBuffer(8 * Math.max(1, s.length))).subarray(0, s.length);
      this.task.args = { W, scalars: this.scalars } satisfies RecordPackArgs;
      this.task.version++;
    }
    this.scalars.set(s);
    if (!tasks.runTask(this.task, A.tri.length / 3, BLOCKS_PER_THREAD * tasks.threads, lead)) return false;
    H.packed = true;
    this.runs++;
    return true;
  }
}
