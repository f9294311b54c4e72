import type { StepContext } from '../core/constraint-set.js';
import type { SharedTask, TaskRunner } from '../core/step-context.js';
import { grownArray } from '../math/arrays.js';
import { quatRotate } from '../math/quat.js';
import type { FluidBody } from './fluid-body.js';
import { wallCount, wallFill } from './wall-search.generated.js';

/**
 * What the wall passes read and the wall search writes, on SharedArrayBuffer
 * in a threaded world (the arguments of the pool's 'fluid-rows' task).
 */
export interface WallArrays {
  /** Fluid slot, unit normal n (3 each), plane offset c, gradient G and kernel fraction V of each record. */
  slot: Int32Array;
  n: Float64Array;
  c: Float64Array;
  g: Float64Array;
  v: Float64Array;
  /** Per slot: Π (1 − V_k) over the walls near it (scratch of wallDensityPass). */
  P: Float64Array;
  /** Row block b's records are [start[b], start[b + 1]) (slot-major order: a block's slots' records). */
  start: Int32Array;
  /** The search's numbers (T_*) and its planes, 4 each (nx, ny, nz, c) from T_PLANES. */
  table: Float64Array;
}

/** The passes of the wall search on the pool (slot 0 of the parameter block; row-blocks.ts dispatches). */
export const WALL_COUNT = 22;
export const WALL_FILL = 23;
/** Slots of WallArrays.table: planes, reach, fluid offset, particles, rows per block; the planes from T_PLANES. */
const T_NP = 0,
  T_REACH = 1,
  T_OFF = 2,
  T_N = 3,
  T_SIZE = 4,
  T_PLANES = 8;
/** The most planes the pool's search takes (more: the calling thread searches). */
const MAX_PLANES = 64;
/** The most row blocks (row-blocks.ts / wasm.ts MAX_ROW_BLOCKS). */
const MAX_BLOCKS = 128;

function f64(n: number, shared: boolean): Float64Array {
  return new Float64Array(shared ? new SharedArrayBuffer(8 * n) : new ArrayBuffer(8 * n));
}

function i32(n: number, shared: boolean): Int32Array {
  return new Int32Array(shared ? new SharedArrayBuffer(4 * n) : new ArrayBuffer(4 * n));
}

/**
 * Wall records of a fluid for one substep: the fluid particles within reach
 * of a collider, with the collider's tangent plane at the particle, s(p) =
 * n·p − c, the distance to the collider surface grown by its margin (see
 * wallLayers in kernels.ts). The density passes read them as the wall part
 * of each particle's density (wallDensityPass, wallCorrectionPass).
 *
 * Records are in slot order, and a slot's records in collider order: the
 * wall passes combine a slot's walls in that order and nothing else, so a
 * slot's numbers do not depend on how the records are cut. The records of
 * each row block of the pair passes (row-blocks.ts) are contiguous
 * (`arrays.start`), so the wall passes run block by block on the pool with
 * the slot passes; where every collider in reach is a plane, the search
 * itself runs there too: each block counts its records, the calling thread
 * adds the counts up in block order, and each block writes its own.
 */
export class FluidWalls {
  /** Records this substep. */
  count = 0;
  readonly arrays: WallArrays = {
    slot: new Int32Array(0),
    n: new Float64Array(0),
    c: new Float64Array(0),
    g: new Float64Array(0),
    v: new Float64Array(0),
    P: new Float64Array(0),
    start: new Int32Array(MAX_BLOCKS + 1),
    table: new Float64Array(T_PLANES + 4 * MAX_PLANES),
  };
  /** The arrays are on SharedArrayBuffer (a threaded world). */
  private shared = false;
  /** Searches run on the pool so far (statistics, tests). */
  pooled = 0;
  private readonly nrm = new Float64Array(3);
  /** Per collider of the search: its plane's index in the table, or −1 (a collider searched here), or −2 (none). */
  private kinds = new Int32Array(0);

  /** Room for the per-slot scratch of `slots` fluid slots. */
  ensureSlots(slots: number): void {
    if (this.arrays.P.length < slots) this.arrays.P = f64(slots, this.shared);
  }

  /** Moves the arrays onto SharedArrayBuffer (a threaded world); true when they were moved. */
  share(): boolean {
    if (this.shared) return false;
    this.shared = true;
    const A = this.arrays;
    A.P = f64(A.P.length, true);
    A.start = i32(A.start.length, true);
    A.table = f64(A.table.length, true);
    this.grow(A.slot.length);
    return true;
  }

  /**
   * Finds the fluid particles within 1.5 h of a collider (enabled, and whose
   * group and mask match the fluid's) and records the collider's tangent
   * plane there. Planes take a fast path (one dot product per particle);
   * `bounds` (min xyz, max xyz of the predicted positions) skips planes out
   * of reach of the whole fluid. The records of each of the substep's row
   * blocks (`rows`) are contiguous; with `tasks`, a search over planes alone
   * runs on the pool.
   */
  build(
    ctx: StepContext,
    fluid: FluidBody,
    bounds: Float64Array,
    rows: {
      readonly size: number;
      readonly blocks: number;
      readonly par: Float64Array;
      readonly task: SharedTask;
      refresh(): void;
    },
    tasks: TaskRunner | null,
  ): void {
    this.count = 0;
    const size = rows.size,
      blocks = rows.blocks;
    const A = this.arrays;
    const start = A.start;
    start.fill(0, 0, blocks + 1);
    const cols = ctx.world.colliders;
    if (cols.length === 0) return;
    const store = ctx.store;
    const n = fluid.activeCount;
    const off = fluid.offset;
    const reach = 1.5 * fluid.kernelRadius;
    const fg = store.group[off],
      fm = store.mask[off];
    const nrm = this.nrm;
    const b = bounds;
    const T = A.table;
    if (this.kinds.length < cols.length) this.kinds = new Int32Array(cols.length);
    const kinds = this.kinds;
    let np = 0,
      others = 0;
    for (let c = 0; c < cols.length; c++) {
      const col = cols[c];
      kinds[c] = -2;
      if (!col.enabled || (fm & col.group) === 0 || (col.mask & fg) === 0) continue;
      if (col.type !== 'plane') {
        kinds[c] = -1;
        others++;
        continue;
      }
      quatRotate(nrm, 0, col.rotation, 0, 0, 1, 0);
      const nx = nrm[0],
        ny = nrm[1],
        nz = nrm[2];
      const cc = nx * col.position[0] + ny * col.position[1] + nz * col.position[2] + col.margin;
      // the whole fluid is out of reach when its bounding box is
      const lo =
        (nx > 0 ? nx * b[0] : nx * b[3]) +
        (ny > 0 ? ny * b[1] : ny * b[4]) +
        (nz > 0 ? nz * b[2] : nz * b[5]);
      if (lo - cc >= reach) continue;
      if (np === MAX_PLANES) {
        kinds[c] = -1;
        others++;
        continue;
      }
      const t = T_PLANES + 4 * np;
      T[t] = nx;
      T[t + 1] = ny;
      T[t + 2] = nz;
      T[t + 3] = cc;
      kinds[c] = np++;
    }
    if (np === 0 && others === 0) return;
    T[T_NP] = np;
    T[T_REACH] = reach;
    T[T_OFF] = off;
    T[T_N] = n;
    T[T_SIZE] = size;
    if (others === 0 && tasks !== null && blocks >= 2) {
      const P = rows.par;
      P[0] = WALL_COUNT;
      if (tasks.runTask(rows.task, blocks, blocks)) {
        for (let q = 0; q < blocks; q++) start[q + 1] += start[q];
        const total = start[blocks];
        if (total > A.slot.length) {
          this.grow(Math.max(2 * A.slot.length, total + 256));
          rows.refresh();
        }
        P[0] = WALL_FILL;
        if (!tasks.runTask(rows.task, blocks, blocks)) {
          for (let q = 0; q < blocks; q++) wallSearchBlock(A, store.p, WALL_FILL, q);
        }
        this.count = total;
        this.pooled++;
        return;
      }
    }
    // one walk over the slots, each slot's records in collider order
    let k = 0;
    const p = store.p;
    for (let s = 0; s < n; s++) {
      if (s % size === 0) start[s / size] = k;
      // room for a record per collider
      if (k + cols.length > A.slot.length) {
        this.grow(Math.max(2 * A.slot.length, k + cols.length + 256));
        if (tasks !== null) rows.refresh();
      }
      const i3 = 3 * (off + s);
      const px = p[i3],
        py = p[i3 + 1],
        pz = p[i3 + 2];
      for (let c = 0; c < cols.length; c++) {
        const kind = kinds[c];
        if (kind === -2) continue;
        if (kind >= 0) {
          const t = T_PLANES + 4 * kind;
          const nx = T[t],
            ny = T[t + 1],
            nz = T[t + 2],
            cc = T[t + 3];
          const sd = nx * px + ny * py + nz * pz - cc;
          if (sd >= reach) continue;
          A.slot[k] = s;
          A.n[3 * k] = nx;
          A.n[3 * k + 1] = ny;
          A.n[3 * k + 2] = nz;
          A.c[k] = cc;
          k++;
          continue;
        }
        const col = cols[c];
        const R = col.boundingRadius() + col.margin + reach;
        const ex = px - col.position[0],
          ey = py - col.position[1],
          ez = pz - col.position[2];
        if (ex * ex + ey * ey + ez * ez > R * R) continue;
        const sd = col.distance(px, py, pz, nrm) - col.margin;
        if (sd >= reach) continue;
        A.slot[k] = s;
        A.n[3 * k] = nrm[0];
        A.n[3 * k + 1] = nrm[1];
        A.n[3 * k + 2] = nrm[2];
        A.c[k] = nrm[0] * px + nrm[1] * py + nrm[2] * pz - sd;
        k++;
      }
    }
    for (let q = Math.ceil(n / size); q <= blocks; q++) start[q] = k;
    this.count = k;
  }

  private grow(cap: number): void {
    const A = this.arrays;
    const sh = this.shared;
    // each record array with room for cap records, its first records kept (math/arrays.ts)
    const g = <T extends Float64Array | Int32Array>(a: T, stride: number): T =>
      grownArray(a, cap * stride, Math.min(a.length, cap * stride), sh);
    A.slot = g(A.slot, 1);
    A.n = g(A.n, 3);
    A.c = g(A.c, 1);
    A.g = g(A.g, 1);
    A.v = g(A.v, 1);
  }
}

/**
 * Block b of the pool's wall search over the planes of the table: WALL_COUNT
 * leaves its number of records in start[b + 1], WALL_FILL writes them from
 * start[b] (the counts added up in block order by the calling thread). The
 * loops are wall-search.rows.ts wallCount and its variant wallFill.
 */
export function wallSearchBlock(A: WallArrays, p: Float64Array, pass: number, b: number): void {
  const T = A.table;
  const np = T[T_NP],
    reach = T[T_REACH],
    off = T[T_OFF],
    size = T[T_SIZE];
  const s0 = b * size,
    s1 = Math.min(T[T_N], s0 + size);
  if (pass === WALL_FILL) wallFill(T, T_PLANES, np, reach, off, s0, s1, p, A.slot, A.n, A.c, A.start[b]);
  else A.start[b + 1] = wallCount(T, T_PLANES, np, reach, off, s0, s1, p, A.slot, A.n, A.c, 0);
}
