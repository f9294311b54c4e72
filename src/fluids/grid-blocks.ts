/**
 * The fluid grid's data-parallel parts on a threaded world's worker pool
 * (docs/solver.md "Threads"; the grid: neighbour-grid.ts): the bounds of the
 * range (and its largest displacement since x) and each particle's cell, in
 * fixed blocks of particles (a function of the particle count alone). A
 * block's bounds are combined in block order with the comparisons of the
 * one-walk loop, so the box is that loop's, bit for bit (a minimum or a
 * maximum does not round); a particle's cell depends on its position alone.
 * The counting sort (NeighbourGrid.insertCells) then runs in one part of the
 * cells per thread (at most SORT_PARTS): each part counts the particles of its cells
 * (walking every particle's cell), the calling thread adds the parts' counts
 * up in part order, and each part writes its cells' ends from there and
 * scatters its particles backwards into them: the sort of one thread, entry
 * for entry (a stable counting sort has one result), with each cell written
 * by one part.
 */
import { writeBox } from '../collision/boxes.js';
import { blocksRun, POOL_MIN_PARTICLES, particleBlocks } from '../core/particle-tasks.js';
import { MAX_BLOCKS, type SharedTask, type TaskRunner } from '../core/step-context.js';
import { clampedCell, type NeighbourGrid } from './neighbour-grid.js';

/** Slots of the parameter block. */
const OP = 0;
const OFF = 1;
const MX = 2;
const MY = 3;
const MZ = 4;
const INV = 5;
const NX = 6;
const NY = 7;
const NZ = 8;
/** OP: the bounds of a block, or its particles' cells. */
const BOUNDS = 0;
const CELLS = 1;
/** OP: the counting sort's parts, count and scatter (SORT_PARTS items). */
const SORT_COUNT = 2;
const SORT_SCATTER = 3;
/** Slots of the parameter block: particles, cells, the number of parts. */
const SN = 9;
const SCELLS = 10;
const SPARTS = 11;
/**
 * The most parts of the counting sort. A sort runs in one part per thread (GridBlocks.sort): each part
 * walks every particle's cell, so that 8 parts on 2 threads walked the 0.5 MB of cells 4 times on each
 * thread (session 25); the order is the same for any number of parts (one stable counting sort).
 */
export const SORT_PARTS = 8;
/** Numbers per block of the bounds: x0, y0, z0, x1, y1, z1, the largest squared displacement. */
const PER_BLOCK = 7;

/** The arguments of the 'fluid-grid' task (shared arrays). */
export interface GridArgs {
  p: Float64Array;
  x: Float64Array;
  par: Float64Array;
  /** PER_BLOCK numbers per block (BOUNDS). */
  out: Float64Array;
  /** The cell of each slot (CELLS). */
  cells: Int32Array;
  /** The grid's arrays the counting sort writes (sort; absent until a grid is bound). */
  cellStart?: Int32Array;
  sorted?: Int32Array;
  sortedCell?: Int32Array;
  /** Per part of the sort: its particles (SORT_COUNT), then the particles of the parts before it. */
  parts?: Int32Array;
}

/** The first cell of part j of `parts` of the sort over `cells` cells. */
function partStart(j: number, cells: number, parts: number): number {
  return Math.floor((j * cells) / parts);
}

/**
 * Part j of the counting sort: SORT_COUNT counts the particles of its cells
 * into cellStart; SORT_SCATTER turns the counts into each cell's end (from
 * the particles of the parts before), then fills each of its cells from the
 * end walking the particles backwards (NeighbourGrid's sortByCells on this
 * part's cells), which leaves cellStart at the cells' first positions.
 */
function sortPart(A: GridArgs, j: number): void {
  const q = A.par,
    cellOf = A.cells,
    start = A.cellStart as Int32Array;
  const n = q[SN],
    cells = q[SCELLS],
    off = q[OFF],
    np = q[SPARTS];
  const c0 = partStart(j, cells, np),
    c1 = partStart(j + 1, cells, np);
  const parts = A.parts as Int32Array;
  if (q[OP] === SORT_COUNT) {
    start.fill(0, c0, c1);
    let m = 0;
    for (let k = 0; k < n; k++) {
      const c = cellOf[k];
      if (c >= c0 && c < c1) {
        start[c]++;
        m++;
      }
    }
    parts[j] = m;
    return;
  }
  let run = parts[SORT_PARTS + j];
  for (let c = c0; c < c1; c++) {
    run += start[c];
    start[c] = run;
  }
  const sorted = A.sorted as Int32Array,
    sortedCell = A.sortedCell as Int32Array;
  for (let k = n - 1; k >= 0; k--) {
    const c = cellOf[k];
    if (c >= c0 && c < c1) {
      const at = --start[c];
      sorted[at] = off + k;
      sortedCell[at] = c;
    }
  }
}

/**
 * The bounds of slots [from, to) of the range at OFF into out[7·block …]:
 * the loop of FluidDensity.fluidBounds, on a block.
 */
function boundsRange(A: GridArgs, from: number, to: number, block: number): void {
  const o = PER_BLOCK * block;
  A.out[o + 6] = boundsOf(A.p, A.x, A.par[OFF], from, to, A.out, o);
}

/**
 * The box of the positions `pos` of slots [from, to) of the range at particle `off` into
 * out[o … o + 5] (x0 y0 z0 x1 y1 z1), and the largest squared displacement from `x`, returned: one
 * block of the pool's bounds, or all of them on the calling thread (FluidDensity's fluidBounds).
 */
export function boundsOf(
  pos: Float64Array,
  x: Float64Array,
  off: number,
  from: number,
  to: number,
  out: Float64Array,
  o: number,
): number {
  let d2 = 0;
  let x0 = Number.POSITIVE_INFINITY,
    y0 = x0,
    z0 = x0,
    x1 = Number.NEGATIVE_INFINITY,
    y1 = x1,
    z1 = x1;
  for (let s = from; s < to; s++) {
    const i3 = 3 * (off + s);
    const px = pos[i3],
      py = pos[i3 + 1],
      pz = pos[i3 + 2];
    if (px < x0) x0 = px;
    if (px > x1) x1 = px;
    if (py < y0) y0 = py;
    if (py > y1) y1 = py;
    if (pz < z0) z0 = pz;
    if (pz > z1) z1 = pz;
    const ex = px - x[i3],
      ey = py - x[i3 + 1],
      ez = pz - x[i3 + 2];
    const e2 = ex * ex + ey * ey + ez * ez;
    if (e2 > d2) d2 = e2;
  }
  writeBox(out, o, x0, y0, z0, x1, y1, z1);
  return d2;
}

/** The clamped cell of slots [from, to): the cell loop of NeighbourGrid.insert. */
function cellsRange(A: GridArgs, from: number, to: number): void {
  const q = A.par,
    pos = A.p,
    cells = A.cells;
  const off = q[OFF],
    mx = q[MX],
    my = q[MY],
    mz = q[MZ],
    inv = q[INV],
    nx = q[NX],
    ny = q[NY],
    nz = q[NZ];
  for (let k = from; k < to; k++) cells[k] = clampedCell(pos, 3 * (off + k), mx, my, mz, inv, nx, ny, nz);
}

/** The 'fluid-grid' task (src/parallel/registry.ts): block `block` = slots [from, to). */
export function fluidGridTask(A: GridArgs, from: number, to: number, block: number): void {
  const op = A.par[OP];
  if (op === BOUNDS) boundsRange(A, from, to, block);
  else if (op === CELLS) cellsRange(A, from, to);
  else for (let j = from; j < to; j++) sortPart(A, j);
}

/** Runs the bounds and the cells of a fluid's range on the pool (see the module's comment). */
export class GridBlocks {
  private readonly task: SharedTask = { kind: 'fluid-grid', args: {}, version: 0 };
  /** Counting sorts run on the pool so far (statistics, tests). */
  pooledSorts = 0;
  /** The parts of the last sort on the pool (statistics, tests). */
  parts = 0;
  /** Parts of a sort (0: one a thread, at most SORT_PARTS; tests and A/B runs set others: the same order). */
  static sortParts = 0;
  private args: GridArgs | null = null;

  /** The arguments for store arrays p and x and n slots (new ones, sent at the next step, when they changed). */
  private bind(p: Float64Array, x: Float64Array, n: number): GridArgs | null {
    if (!(p.buffer instanceof SharedArrayBuffer) || !(x.buffer instanceof SharedArrayBuffer)) return null;
    let A = this.args;
    if (A !== null && A.p === p && A.x === x && A.cells.length >= n) return A;
    A = {
      p,
      x,
      parts: A?.parts ?? new Int32Array(new SharedArrayBuffer(4 * 2 * SORT_PARTS)),
      par: A?.par ?? new Float64Array(new SharedArrayBuffer(8 * 16)),
      out: A?.out ?? new Float64Array(new SharedArrayBuffer(8 * PER_BLOCK * MAX_BLOCKS)),
      cells:
        A !== null && A.cells.length >= n
          ? A.cells
          : new Int32Array(new SharedArrayBuffer(4 * Math.ceil(1.25 * n + 16))),
    };
    this.args = A;
    this.task.args = A as unknown as Record<string, unknown>;
    this.task.version++;
    return A;
  }

  /**
   * The bounds of slots [0, n) of the range at `off` into b[0..5] (min, max)
   * and the largest squared displacement from x, or −1 where the pool did
   * not take it (the caller walks the range itself).
   */
  bounds(
    tasks: TaskRunner | null,
    p: Float64Array,
    x: Float64Array,
    off: number,
    n: number,
    b: Float64Array,
  ): number {
    if (tasks === null || tasks.threads < 2 || n < POOL_MIN_PARTICLES) return -1;
    const A = this.bind(p, x, n);
    if (A === null) return -1;
    A.par[OP] = BOUNDS;
    A.par[OFF] = off;
    const blocks = particleBlocks(n);
    if (!tasks.runTask(this.task, n, blocks)) return -1;
    const out = A.out;
    // the blocks' boxes merged into b, in block order with the one walk's comparisons: its box, bit for bit
    b[0] = b[1] = b[2] = Number.POSITIVE_INFINITY;
    b[3] = b[4] = b[5] = Number.NEGATIVE_INFINITY;
    let d2 = 0;
    const run = blocksRun(n, blocks);
    for (let k = 0; k < run; k++) {
      const o = PER_BLOCK * k;
      if (out[o] < b[0]) b[0] = out[o];
      if (out[o + 3] > b[3]) b[3] = out[o + 3];
      if (out[o + 1] < b[1]) b[1] = out[o + 1];
      if (out[o + 4] > b[4]) b[4] = out[o + 4];
      if (out[o + 2] < b[2]) b[2] = out[o + 2];
      if (out[o + 5] > b[5]) b[5] = out[o + 5];
      if (out[o + 6] > d2) d2 = out[o + 6];
    }
    return d2;
  }

  /**
   * The cells of slots [0, n) of the range at `off` in `grid` (its geometry
   * set), or null where the pool did not take them.
   */
  cells(
    tasks: TaskRunner | null,
    grid: NeighbourGrid,
    p: Float64Array,
    off: number,
    n: number,
  ): Int32Array | null {
    if (tasks === null || tasks.threads < 2 || n < POOL_MIN_PARTICLES) return null;
    const A = this.args;
    // the bounds job bound the arguments this substep; anything else: here
    if (A === null || A.p !== p || A.cells.length < n) return null;
    const q = A.par;
    q[OP] = CELLS;
    q[OFF] = off;
    q[MX] = grid.minX;
    q[MY] = grid.minY;
    q[MZ] = grid.minZ;
    q[INV] = grid.inverseCell;
    q[NX] = grid.nx;
    q[NY] = grid.ny;
    q[NZ] = grid.nz;
    return tasks.runTask(this.task, n, particleBlocks(n)) ? A.cells : null;
  }

  /**
   * The counting sort of slots [0, n) of the range at `off` into `grid` by
   * the cells of the last `cells` call, on the pool (see the module's
   * comment): false where the pool did not take it (the caller sorts them:
   * the same order). The grid's arrays must be shared (NeighbourGrid.shared);
   * new ones are sent to the workers for the next substep.
   */
  sort(tasks: TaskRunner | null, grid: NeighbourGrid, off: number, n: number): boolean {
    const A = this.args;
    if (tasks === null || A === null || A.cells.length < n || !grid.shared) return false;
    grid.ensure(n);
    if (
      !(grid.cellStart.buffer instanceof SharedArrayBuffer) ||
      !(grid.sorted.buffer instanceof SharedArrayBuffer)
    )
      return false;
    if (A.cellStart !== grid.cellStart || A.sorted !== grid.sorted || A.sortedCell !== grid.sortedCell) {
      A.cellStart = grid.cellStart;
      A.sorted = grid.sorted;
      A.sortedCell = grid.sortedCell;
      this.task.args = { ...A } as unknown as Record<string, unknown>;
      this.args = this.task.args as unknown as GridArgs;
      this.task.version++;
      return false;
    }
    const q = A.par;
    const cells = grid.cells;
    const np = Math.min(SORT_PARTS, Math.max(1, GridBlocks.sortParts || tasks.threads));
    q[OFF] = off;
    q[SN] = n;
    q[SCELLS] = cells;
    q[SPARTS] = np;
    this.parts = np;
    q[OP] = SORT_COUNT;
    if (!tasks.runTask(this.task, np, np)) return false;
    const parts = A.parts as Int32Array;
    let before = 0;
    for (let j = 0; j < np; j++) {
      parts[SORT_PARTS + j] = before;
      before += parts[j];
    }
    q[OP] = SORT_SCATTER;
    if (!tasks.runTask(this.task, np, np)) for (let j = 0; j < np; j++) sortPart(A, j);
    grid.cellStart[cells] = n;
    this.pooledSorts++;
    return true;
  }
}
