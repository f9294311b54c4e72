/**
 * The fluid pairs built on the worker pool (docs/solver.md, "Threads"): the
 * neighbour search's pair rows (buildForwardPairRows of pair-search.rows.ts,
 * the WebAssembly twin) cut into the fixed row blocks of the
 * pair passes (row-blocks.ts: a function of the particle count only).
 *
 * Once the grid is sorted and the range is in cell order, a row's partners
 * depend on its cell alone, so the blocks are independent: block b writes
 * its rows' partners into its own region of a scratch buffer (the listed
 * rows `live`, which the density pass fills only later) and its rows' ends,
 * counted from its region's start, into `start`. The calling thread adds
 * the counts up in block order, and a second job moves each block's
 * partners to their place in `nbr` and shifts its row ends by the pairs
 * before it. The lists are those of one walk over all rows, entry for
 * entry, on every thread count (test/threads-fluids.test.ts). A block whose
 * region is too small is built again on the calling thread into the room
 * left behind the regions (its rows' lists do not depend on where they are
 * written); a substep the workers cannot take, or a block that does not fit
 * there either, builds the pairs on the calling thread in one walk, as one
 * thread does.
 */
import type { SharedTask, TaskRunner } from '../core/step-context.js';
import type { NeighbourGrid } from './neighbour-grid.js';
import {
  B_CELLSTART,
  B_N,
  B_NBR,
  B_NX,
  B_NY,
  B_NZ,
  B_POS,
  B_R2,
  B_RANGES,
  B_REACH,
  B_SCRATCH,
  B_SIZE,
  B_START,
  PASS,
} from './row-slots.generated.js';
import { type FluidWasm, type FluidWasmExports, MAX_ROW_BLOCKS, RANGE_BYTES } from './wasm.js';

/** The fields of row-tasks.ts's RowArrays read here (declared here, since row-tasks.ts imports this file). */
interface RowArrays {
  par: Float64Array;
  pb: Int32Array;
  memory?: WebAssembly.Memory;
}

/** The passes of this file (slot 0 of the parameter block, which row-blocks.ts's task reads first). */
export const PAIR_ROWS = 20;
export const PAIR_JOIN = 21;
// PASS and the Float64 slots B_SIZE … B_RANGES of the parameter block `par` (after row-tasks.ts's) are
// written once, with row-tasks.ts's, in scripts/kernels/emit-slots.ts (FLUID_ROWS).
/** Int32 entries per block of the block table `pb`: region start, region length, count, pairs before it. */
export const PB_STRIDE = 4;

/** Block b of a pass of this file (the 'fluid-rows' task, on any thread). */
export function runPairBlock(x: FluidWasmExports, P: Float64Array, pb: Int32Array, b: number): void {
  const size = P[B_SIZE],
    n = P[B_N];
  const a0 = b * size,
    a1 = Math.min(n, a0 + size);
  const e = PB_STRIDE * b;
  const src = P[B_SCRATCH] + 4 * pb[e];
  if (P[PASS] === PAIR_ROWS) {
    pb[e + 2] = x.buildForwardPairRows(
      P[B_POS],
      0,
      0,
      P[B_CELLSTART],
      P[B_NX],
      P[B_NY],
      P[B_NZ],
      P[B_REACH],
      P[B_R2],
      a0,
      a1,
      P[B_START],
      src,
      pb[e + 1],
      P[B_RANGES] + RANGE_BYTES * b,
    );
    return;
  }
  x.joinPairRows(P[B_START], a0, a1, P[B_NBR], src, pb[e + 2], pb[e + 3]);
}

/**
 * Per row block: the pairs of the last build (the next regions' sizes), and
 * the runner of a build on the pool.
 */
export class PairBlocks {
  /** Pairs of each row block at the last build (0: not known yet). */
  readonly counts = new Int32Array(MAX_ROW_BLOCKS);
  /** Builds made on the pool so far (statistics, tests). */
  pooled = 0;
  /** Blocks of those builds that outgrew their regions and were built again on the calling thread (statistics, tests). */
  rebuilt = 0;
  /** Builds that found the positions in the instance already (the pooled reordering wrote them; statistics, tests). */
  staged = 0;

  /**
   * The pairs of rows [0, n) of the range (in the cell order of `grid`) on
   * the pool, into the instance's start and nbr; returns their number, or −1
   * when it cannot run them there now (the caller builds them on its thread:
   * the same lists). `staged`: the positions of the search where the pooled
   * reordering wrote them (FluidDensity.searchP), or null.
   */
  build(
    tasks: TaskRunner,
    task: SharedTask,
    w: FluidWasm,
    grid: NeighbourGrid,
    p: Float64Array,
    off: number,
    n: number,
    radius: number,
    slots: number,
    size: number,
    staged: Float64Array | null = null,
  ): number {
    const blocks = Math.ceil(n / size);
    // the workers hold the instance's memory once a step has shared it (row-blocks.ts shareLocal)
    const A = task.args as unknown as RowArrays;
    if (blocks < 2 || blocks > MAX_ROW_BLOCKS || A.memory !== w.memory) return -1;
    const pb = A.pb,
      counts = this.counts;
    // regions sized from the blocks' recent counts (record), half as much again
    let total = 0;
    for (let b = 0; b < blocks; b++) {
      if (counts[b] <= 0) return -1;
      const e = PB_STRIDE * b;
      pb[e] = total;
      pb[e + 1] = Math.ceil(1.5 * counts[b]) + 1024;
      total += pb[e + 1];
    }
    // an eighth more behind the regions: room for the blocks that outgrow theirs (below)
    if (!w.reserve(slots, total + (total >> 3))) return -1;
    // the pooled reordering wrote the positions into the instance's own (FluidDensity.searchP is its
    // posView, unless this reserve moved it): the cell starts alone, else both (3 MB of 128k positions
    // on the calling thread, 1 ms a step of wave-pool-128k's serial part; session 23)
    if (staged !== null && staged === w.posView) {
      w.stageCells(grid);
      this.staged++;
    } else w.stage(grid, p, off, n);
    const P = A.par;
    P[B_SIZE] = size;
    P[B_N] = n;
    P[B_NX] = grid.nx;
    P[B_NY] = grid.ny;
    P[B_NZ] = grid.nz;
    P[B_REACH] = grid.reach;
    P[B_R2] = radius * radius;
    P[B_POS] = w.pos;
    P[B_CELLSTART] = w.cellStart;
    P[B_START] = w.start;
    P[B_NBR] = w.nbr;
    P[B_SCRATCH] = w.live;
    P[B_RANGES] = w.ranges;
    P[PASS] = PAIR_ROWS;
    if (!tasks.runTask(task, blocks, blocks)) return -1;
    let k = 0;
    for (let b = 0; b < blocks; b++) {
      const e = PB_STRIDE * b;
      if (pb[e + 2] < 0) {
        // the block outgrew its region (a grid whose cells changed size moves rows between blocks): it is
        // built again here, into the room behind the regions, rather than the whole search in one walk
        pb[e] = total;
        pb[e + 1] = w.pairCapacity - total;
        runPairBlock(w.x, P, pb, b);
        if (pb[e + 2] < 0) return -1;
        total += pb[e + 2];
        this.rebuilt++;
      }
      pb[e + 3] = k;
      k += pb[e + 2];
    }
    P[PASS] = PAIR_JOIN;
    if (!tasks.runTask(task, blocks, blocks)) {
      for (let b = 0; b < blocks; b++) runPairBlock(w.x, P, pb, b);
    }
    w.startView[0] = 0;
    this.pooled++;
    return k;
  }

  /**
   * Records each block's pairs (start: the row starts of the last build) for
   * the next regions: the larger of them and the block's earlier figure less
   * a sixteenth, since a block's pairs swing by up to 2× from one substep to
   * the next when the grid's cells change size (a splash widens its box) and
   * the cell order moves rows between blocks.
   */
  record(start: Int32Array, n: number, size: number): void {
    const blocks = Math.min(MAX_ROW_BLOCKS, Math.ceil(n / size));
    const counts = this.counts;
    for (let b = 0; b < blocks; b++) {
      const k = start[Math.min(n, (b + 1) * size)] - start[b * size];
      counts[b] = Math.max(k, counts[b] - (counts[b] >> 4));
    }
  }
}
