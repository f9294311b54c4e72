import {
  buildForwardPairRows,
  buildForwardPairRowsSorted,
  closePartnersSorted,
} from './pair-search.generated.js';

/**
 * The cell ix + nx (iy + ny iz) of the point pos[i3 … i3 + 2] in a grid of
 * nx × ny × nz cells from (mx, my, mz) with 1/cellSize = inv, each coordinate
 * clamped to the grid (outliers fall in the border cells). One definition for
 * NeighbourGrid.insert and the pooled cell blocks (grid-blocks.ts).
 */
export function clampedCell(
  pos: Float64Array,
  i3: number,
  mx: number,
  my: number,
  mz: number,
  inv: number,
  nx: number,
  ny: number,
  nz: number,
): number {
  let f = (pos[i3] - mx) * inv;
  const ix = f >= 0 ? (f < nx ? f | 0 : nx - 1) : 0;
  f = (pos[i3 + 1] - my) * inv;
  const iy = f >= 0 ? (f < ny ? f | 0 : ny - 1) : 0;
  f = (pos[i3 + 2] - mz) * inv;
  const iz = f >= 0 ? (f < nz ? f | 0 : nz - 1) : 0;
  return ix + nx * (iy + ny * iz);
}

/**
 * Neighbour search on a uniform grid with a counting sort (the usual SPH
 * set-up; PBF, Macklin & Müller 2013, finds neighbours on a grid each step).
 *
 * Cells are cubes of side ≥ r / R for the search radius r and R =
 * `reach` (`cellsPerRadius`, 2 by default, or 1 once the cells had to grow
 * to r), so every pair closer than r lies within R cells of each other along
 * each axis. Building is O(n + cells): one pass
 * computes each item's cell, a counting sort orders the items by cell
 * (stable, so the result is deterministic), and pairs are read from the
 * "forward" half of each cell's (2R + 1)³ neighbourhood, so each unordered
 * pair is found once. Cells along x are consecutive in the linear order, so
 * a row of 2R + 1 cells is one contiguous range of the sorted items: the
 * search walks 2R² + 2R + 1 ranges per cell instead of 62 cells. Half-size
 * cells (R = 2) test about 1.7 times fewer candidates than cells of side r.
 *
 * The grid covers a box given by the caller (the fluid's bounds). Items
 * outside are clamped into the border cells: clamping never increases the
 * distance between cell coordinates, so pairs closer than r still lie
 * within R cells and the search stays exact, only slower for the clamped
 * outliers. When the box would need more than `maxCells` cells, the cell
 * side grows, which keeps memory O(n).
 *
 * Positions are read as pos[3·item], pos[3·item + 1], pos[3·item + 2] for
 * the store indices given in `items`.
 */
export class NeighbourGrid {
  /** Cell side (m), ≥ radius / cellsPerRadius. */
  cellSize = 1;
  /** How many cells the search radius spans (the stencil reaches this many cells each way). */
  reach = 2;
  /** The preferred reach (cells per search radius) when the grid is not limited by maxCells. */
  readonly cellsPerRadius: number;
  /** Grid origin (min corner). */
  minX = 0;
  minY = 0;
  minZ = 0;
  nx = 1;
  ny = 1;
  nz = 1;
  /** Items (store indices) in cell order, `count` of them. */
  sorted: Int32Array = new Int32Array(0);
  /** cellStart[c] … cellStart[c + 1] − 1 are the positions in `sorted` of the items of cell c. */
  cellStart: Int32Array = new Int32Array(2);
  /** The cell of each item, by its position in `sorted`. */
  sortedCell: Int32Array = new Int32Array(0);
  /** Items inserted by the last `insert`. */
  count = 0;
  /**
   * Whether sorted, sortedCell and cellStart live on SharedArrayBuffers from
   * their next allocation on (a threaded world's fluid sorts on the pool: grid-blocks.ts).
   */
  shared = false;
  private invCell = 1;
  private cellOfInput = new Int32Array(0);

  constructor(cellsPerRadius = 2) {
    if (!(Number.isInteger(cellsPerRadius) && cellsPerRadius >= 1 && cellsPerRadius <= 4)) {
      throw new RangeError(`cellsPerRadius must be an integer in 1…4, got ${cellsPerRadius}`);
    }
    this.cellsPerRadius = cellsPerRadius;
    this.reach = cellsPerRadius;
  }

  get cells(): number {
    return this.nx * this.ny * this.nz;
  }

  /**
   * Sets the grid box [min, max] and the cell side (radius / reach, larger
   * when the box would need more than maxCells cells).
   */
  setGeometry(
    minX: number,
    minY: number,
    minZ: number,
    maxX: number,
    maxY: number,
    maxZ: number,
    radius: number,
    maxCells: number,
  ): void {
    if (!(maxX >= minX) || !(maxY >= minY) || !(maxZ >= minZ)) {
      minX = minY = minZ = 0;
      maxX = maxY = maxZ = 0;
    }
    const ex = maxX - minX,
      ey = maxY - minY,
      ez = maxZ - minZ;
    let cs = radius / this.cellsPerRadius;
    let nx = Math.floor(ex / cs) + 1,
      ny = Math.floor(ey / cs) + 1,
      nz = Math.floor(ez / cs) + 1;
    // grow the cells until the grid fits (each pass at least doubles the side)
    while (nx * ny * nz > maxCells || !(nx * ny * nz > 0)) {
      cs *= Math.max(2, Math.cbrt((nx * ny * nz) / maxCells));
      nx = Math.floor(ex / cs) + 1;
      ny = Math.floor(ey / cs) + 1;
      nz = Math.floor(ez / cs) + 1;
      if (!Number.isFinite(cs)) {
        nx = ny = nz = 1;
        cs = Number.MAX_VALUE;
        break;
      }
    }
    this.cellSize = cs;
    this.invCell = 1 / cs;
    // the fewest cells that still span the radius (1 once the cells have grown to it)
    this.reach = Math.max(1, Math.min(this.cellsPerRadius, Math.ceil(radius / cs - 1e-9)));
    this.minX = minX;
    this.minY = minY;
    this.minZ = minZ;
    this.nx = nx;
    this.ny = ny;
    this.nz = nz;
    const cells = nx * ny * nz;
    // a shared grid takes room for the most cells at once: a new array must reach the workers (grid-blocks.ts)
    if (this.cellStart.length < cells + 1)
      this.cellStart = this.ints(Math.max(Math.ceil((cells + 1) * 1.5), this.shared ? maxCells + 1 : 0));
  }

  /** Puts sorted, sortedCell and cellStart on SharedArrayBuffers (copies) from now on, where they exist. */
  share(): void {
    if (this.shared || typeof SharedArrayBuffer === 'undefined') return;
    this.shared = true;
    const copy = (a: Int32Array): Int32Array => {
      const b = this.ints(a.length);
      b.set(a);
      return b;
    };
    this.sorted = copy(this.sorted);
    this.sortedCell = copy(this.sortedCell);
    this.cellStart = copy(this.cellStart);
  }

  /** n Int32 values, on a SharedArrayBuffer when `shared`. */
  private ints(n: number): Int32Array {
    return this.shared && typeof SharedArrayBuffer !== 'undefined'
      ? new Int32Array(new SharedArrayBuffer(4 * n))
      : new Int32Array(n);
  }

  /** Takes the box and cells of another grid (so that two item sets share cells). */
  copyGeometry(g: NeighbourGrid): void {
    this.reach = g.reach;
    this.cellSize = g.cellSize;
    this.invCell = 1 / g.cellSize;
    this.minX = g.minX;
    this.minY = g.minY;
    this.minZ = g.minZ;
    this.nx = g.nx;
    this.ny = g.ny;
    this.nz = g.nz;
    const cells = g.nx * g.ny * g.nz;
    if (this.cellStart.length < cells + 1) this.cellStart = new Int32Array(Math.ceil((cells + 1) * 1.5));
  }

  /** The clamped cell coordinates of a point into out[0..2]. */
  cellCoords(x: number, y: number, z: number, out: Int32Array): void {
    const inv = this.invCell;
    let f = (x - this.minX) * inv;
    out[0] = f >= 0 ? (f < this.nx ? f | 0 : this.nx - 1) : 0;
    f = (y - this.minY) * inv;
    out[1] = f >= 0 ? (f < this.ny ? f | 0 : this.ny - 1) : 0;
    f = (z - this.minZ) * inv;
    out[2] = f >= 0 ? (f < this.nz ? f | 0 : this.nz - 1) : 0;
  }

  /** 1 / cellSize. */
  get inverseCell(): number {
    return this.invCell;
  }

  /**
   * Room for `count` items (whose sort the caller then fills in: grid-blocks.ts); `sorted` may be
   * an array of the caller's (FluidDensity.search: a fluid WebAssembly instance's), so the others are
   * checked by themselves.
   */
  ensure(count: number): void {
    const cap = Math.ceil(count * 1.25) + 16;
    if (this.sorted.length < count) this.sorted = this.ints(cap);
    if (this.sortedCell.length < count || this.cellOfInput.length < count) {
      this.sortedCell = this.ints(cap);
      this.cellOfInput = new Int32Array(cap);
    }
    this.count = count;
  }

  /** Sorts `count` items (store indices) into the cells by a stable counting sort. */
  insert(pos: Float64Array, items: Int32Array, count: number): void {
    this.ensure(count);
    const nx = this.nx,
      ny = this.ny,
      nz = this.nz,
      inv = this.invCell,
      mx = this.minX,
      my = this.minY,
      mz = this.minZ;
    const cellOf = this.cellOfInput;
    for (let k = 0; k < count; k++) cellOf[k] = clampedCell(pos, 3 * items[k], mx, my, mz, inv, nx, ny, nz);
    this.sortByCells(items, count, cellOf);
  }

  /**
   * Sorts `count` items into the cells given per item (cellOf[k], the
   * clamped cell of items[k], as insert computes it; grid-blocks.ts computes
   * them on the worker pool), by the same stable counting sort.
   */
  insertCells(items: Int32Array, count: number, cellOf: Int32Array): void {
    this.ensure(count);
    this.sortByCells(items, count, cellOf);
  }

  private sortByCells(items: Int32Array, count: number, cellOf: Int32Array): void {
    const cells = this.nx * this.ny * this.nz;
    const start = this.cellStart;
    start.fill(0, 0, cells + 1);
    for (let k = 0; k < count; k++) start[cellOf[k]]++;
    // inclusive prefix: start[c] is the end of cell c
    for (let c = 1; c < cells; c++) start[c] += start[c - 1];
    start[cells] = count;
    // stable scatter: walk the input backwards, filling each cell from its end, which leaves
    // start[c] at the cell's first position (the order of a forward walk from the starts, and
    // no pass over the cells to shift them back)
    const sorted = this.sorted,
      sortedCell = this.sortedCell;
    for (let k = count - 1; k >= 0; k--) {
      const c = cellOf[k];
      const at = --start[c];
      sorted[at] = items[k];
      sortedCell[at] = c;
    }
  }
}

/** A growable list of pairs in compressed rows: row a holds nbr[start[a] … start[a + 1] − 1]. */
export class PairList {
  /** Row starts (rows + 1 entries). */
  start = new Int32Array(1);
  /** The partner (store index) of each pair. */
  nbr = new Int32Array(0);
  /** Pairs in use. */
  count = 0;
  /** Rows in use. */
  rows = 0;

  /** Makes room for `rows` rows; keeps nothing. */
  reset(rows: number): void {
    if (this.start.length < rows + 1) this.start = new Int32Array(Math.ceil(rows * 1.25) + 2);
    this.rows = rows;
    this.count = 0;
    this.start[0] = 0;
  }

  /** Ensures room for `n` pairs, keeping the first `count`. */
  reserve(n: number): void {
    if (this.nbr.length >= n) return;
    const b = new Int32Array(Math.max(n, Math.ceil(this.nbr.length * 1.5) + 64));
    b.set(this.nbr.subarray(0, this.count));
    this.nbr = b;
  }
}

/** Scratch for the row ranges of one cell: [lo, hi) of `sorted` per row (buildForwardPairRows). */
let rangeScratch = new Int32Array(50);

/**
 * Every unordered pair of items of `grid` closer than `radius` (|p_a − p_b|
 * < radius, with radius ≤ reach · cellSize), once each, in compressed rows
 * over the sorted order: row a (the item grid.sorted[a]) lists the partners
 * that come after it in its own cell and the cells after it along x (up to
 * `reach`), and all partners in the rows of cells (dy, dz) that come after
 * its row. Partners are written as store index − `base` (0: store indices;
 * a body's offset: slots of its range). O(n + cells + pairs); deterministic.
 * The walk is buildForwardPairRows of pair-search.rows.ts (generated, with
 * its WebAssembly twin, from that one definition).
 *
 * With `contiguous`, the caller guarantees grid.sorted[a] = base + a (a body
 * range already reordered by cell, see FluidDensity.search): the partner
 * slot is then the sorted position itself, which spares a load per
 * candidate (about 15 % faster).
 */
export function buildForwardPairs(
  grid: NeighbourGrid,
  pos: Float64Array,
  radius: number,
  out: PairList,
  base = 0,
  contiguous = false,
): void {
  const n = grid.count;
  out.reset(n);
  const r2 = radius * radius;
  const R = grid.reach;
  if (rangeScratch.length < 2 * (2 * R + 1) ** 2) rangeScratch = new Int32Array(2 * (2 * R + 1) ** 2);
  const rs = rangeScratch;
  // one call per search: the walk over the range's slots in cell order (their positions from slot 0), or
  // over the store indices in grid.sorted
  const walk = contiguous ? buildForwardPairRows : buildForwardPairRowsSorted;
  const p = contiguous && base > 0 ? pos.subarray(3 * base) : pos;
  const g = grid,
    o = out;
  for (;;) {
    const cap = o.nbr.length;
    const k = walk(p, base, g.sorted, g.cellStart, g.nx, g.ny, g.nz, R, r2, 0, n, o.start, o.nbr, cap, rs);
    if (k >= 0) {
      o.count = k;
      return;
    }
    // a cell's worst case passed the room: more, and the walk again (the same lists)
    o.reserve(Math.max(2 * cap, 16 * n + 64));
  }
}

const cellScratch = new Int32Array(3);

/**
 * Every pair (q, item of `grid`) closer than `radius` for the `count`
 * query points `queries` (store indices): row q lists the grid items near
 * queries[q], in sorted order. Used for fluid–solid pairs and the boundary
 * volumes.
 */
export function buildCrossPairs(
  grid: NeighbourGrid,
  pos: Float64Array,
  queries: Int32Array,
  count: number,
  radius: number,
  out: PairList,
): void {
  out.reset(count);
  const r2 = radius * radius;
  const R = grid.reach;
  const sorted = grid.sorted,
    cellStart = grid.cellStart;
  const nx = grid.nx,
    ny = grid.ny,
    nz = grid.nz;
  const start = out.start;
  let nbr = out.nbr;
  let k = 0;
  for (let q = 0; q < count; q++) {
    const i3 = 3 * queries[q];
    const px = pos[i3],
      py = pos[i3 + 1],
      pz = pos[i3 + 2];
    grid.cellCoords(px, py, pz, cellScratch);
    const ix = cellScratch[0],
      iy = cellScratch[1],
      iz = cellScratch[2];
    const x0 = Math.max(ix - R, 0);
    const x1 = Math.min(ix + R, nx - 1);
    for (let dz = -R; dz <= R; dz++) {
      const cz = iz + dz;
      if (cz < 0 || cz >= nz) continue;
      for (let dy = -R; dy <= R; dy++) {
        const cy = iy + dy;
        if (cy < 0 || cy >= ny) continue;
        const base = nx * (cy + ny * cz);
        const e = cellStart[base + x1 + 1];
        const lo = cellStart[base + x0];
        if (nbr.length < k + (e - lo) + 1) {
          out.count = k;
          out.reserve(k + (e - lo) + 1);
          nbr = out.nbr;
        }
        k = closePartnersSorted(pos, 0, sorted, px, py, pz, lo, e, r2, nbr, k);
      }
    }
    start[q + 1] = k;
  }
  out.count = k;
}
