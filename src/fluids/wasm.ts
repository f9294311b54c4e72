import { SHARED_MAX_PAGES, sharedKernel, wasmKernel } from '../wasm/kernels.js';
import type { NeighbourGrid } from './neighbour-grid.js';
import type { PairPassesExports } from './pair-passes.generated.js';
import type { PairSearchExports } from './pair-search.generated.js';

/**
 * The WebAssembly twins of the fluid pair passes (wasm/fluids.ts, compiled by
 * scripts/build-kernels.ts; generated with the JavaScript functions from
 * pair-passes.rows.ts): the same operations in the same order, so results
 * are identical bit for bit whichever runs; the twins are about 1.5× faster on these loops (no bound or
 * type checks per access) and keeps the spiky gradient factor of each pair
 * from the density pass for the correction pass of the same Jacobi
 * iteration (which the JavaScript loops recompute: storing it measured
 * slower there). Arguments are byte addresses in the instance's memory.
 */
export interface FluidWasmExports extends PairPassesExports, PairSearchExports {
  /** wasm/fluids.ts's own export (the join of the pool's row blocks); the others' parameter lists are printed from their definitions. */
  joinPairRows(
    start: number,
    a0: number,
    a1: number,
    nbr: number,
    src: number,
    count: number,
    prefix: number,
  ): void;
}

/** Bytes of one row block's scratch for the pair search's ranges (2 (2R + 1)² i32 for R ≤ 4). */
export const RANGE_BYTES = 4 * 2 * 81;

/**
 * The compiled module (wasm/fluids.ts through src/wasm/kernels.ts), or null
 * where WebAssembly is missing, still compiling (a browser's main thread) or
 * switched off with useWasmKernels(false): the fluid then runs the
 * JavaScript passes, with the same results.
 */
export function fluidWasmModule(): WebAssembly.Module | null {
  return wasmKernel('fluids');
}

/** The most row blocks of the pair passes (row-blocks.ts): liveStart holds n + 1 + MAX_ROW_BLOCKS entries. */
export const MAX_ROW_BLOCKS = 128;

/**
 * The fluid module with its imported memory declared shared, so that the
 * instances of the worker pool's threads can share one memory
 * (row-blocks.ts); null where that is unavailable (src/wasm/kernels.ts
 * sharedKernel).
 */
export function sharedFluidModule(): WebAssembly.Module | null {
  return sharedKernel('fluids');
}

/**
 * One fluid's WebAssembly instance and the buffers its passes work on, laid
 * out in the instance's memory: slot records (`acc`, `post`: 64 bytes per
 * slot), the pair rows of the search (`sorted`, `start`, `nbr`, copied in
 * after each search), the listed rows (`live`, `liveStart`) and the pair
 * buffer `gBuf` (one double per pair). The typed-array views are made anew
 * whenever the memory grows (which detaches the old ones).
 */
export class FluidWasm {
  readonly x: FluidWasmExports;
  /** Byte addresses of the buffers. */
  acc = 0;
  post = 0;
  sorted = 0;
  start = 0;
  liveStart = 0;
  nbr = 0;
  live = 0;
  gBuf = 0;
  pos = 0;
  cellStart = 0;
  ranges = 0;
  /** Slots and pairs the layout has room for. */
  private slots = -1;
  private pairCap = -1;
  accView = new Float64Array(0);
  postView = new Float64Array(0);
  sortedView = new Int32Array(0);
  startView = new Int32Array(0);
  liveStartView = new Int32Array(0);
  nbrView = new Int32Array(0);
  liveView = new Int32Array(0);
  posView = new Float64Array(0);
  cellStartView = new Int32Array(0);
  /** Copies of a grid's cell starts into cellStartView (statistics, tests: none where the grid sorts into it). */
  cellCopies = 0;

  /** The module and memory, which other threads instantiate too when `shared` (row-blocks.ts). */
  readonly module: WebAssembly.Module;
  readonly memory: WebAssembly.Memory;
  readonly shared: boolean;

  private constructor(module: WebAssembly.Module, shared: boolean) {
    this.module = module;
    this.shared = shared;
    this.memory = shared
      ? new WebAssembly.Memory({ initial: 1, maximum: SHARED_MAX_PAGES, shared: true })
      : new WebAssembly.Memory({ initial: 1 });
    const instance = new WebAssembly.Instance(module, { env: { memory: this.memory } });
    this.x = instance.exports as unknown as FluidWasmExports;
  }

  /**
   * A new instance, or null where the module is unavailable (see
   * fluidWasmModule); with `shared`, on a shared memory (sharedFluidModule).
   */
  static create(shared = false): FluidWasm | null {
    const module = shared ? sharedFluidModule() : fluidWasmModule();
    if (!module) return null;
    try {
      return new FluidWasm(module, shared);
    } catch {
      return null;
    }
  }

  /**
   * Makes room for `slots` slot records and `pairs` pairs; the contents of
   * every buffer are undefined afterwards when the layout changed (they are
   * scratch, refilled every step). Returns false when the memory cannot grow.
   */
  reserve(slots: number, pairs: number): boolean {
    if (slots <= this.slots && pairs <= this.pairCap) return true;
    const s = Math.max(slots, this.slots);
    const p = Math.max(pairs, Math.ceil(1.25 * this.pairCap)) + 1024;
    let at = 0;
    const take = (bytes: number): number => {
      const r = at;
      at += Math.ceil(bytes / 64) * 64;
      return r;
    };
    const acc = take(64 * s),
      post = take(64 * s),
      sorted = take(4 * s),
      start = take(4 * (s + 1)),
      liveStart = take(4 * (s + 1 + MAX_ROW_BLOCKS));
    // the positions and (NeighbourGrid.setGeometry keeps the cells at most max(4096, 8 n)) the cell
    // starts: on a shared memory before the pairs' regions, so that they stay where they are while the
    // pairs grow and a threaded world's FluidDensity.searchP can be posView (session 23); else after
    // them, as before
    const cells = 4 * (Math.max(4096, 8 * s) + 1);
    let pos = this.shared ? take(24 * s) : 0,
      cellStart = this.shared ? take(cells) : 0;
    const nbr = take(4 * p),
      live = take(4 * p),
      gBuf = take(8 * p);
    if (!this.shared) {
      pos = take(24 * s);
      cellStart = take(cells);
    }
    // one scratch per row block (the pool's threads build blocks at once, pair-blocks.ts), one for the whole
    const ranges = take(RANGE_BYTES * (MAX_ROW_BLOCKS + 1));
    const have = this.memory.buffer.byteLength;
    if (at > have) {
      try {
        this.memory.grow(Math.ceil((at - have) / 65536));
      } catch {
        return false;
      }
    }
    // a shared memory's old views stay valid as it grows: the positions' view is kept where they stay put
    const keepPos = this.shared && pos === this.pos && this.posView.length === 3 * s;
    // and so are the cell starts' and the sorted list's (a threaded world's grid sorts into them:
    // FluidDensity.search, session 25)
    const keepCells = this.shared && cellStart === this.cellStart && this.cellStartView.length === cells / 4;
    const keepSorted = this.shared && sorted === this.sorted && this.sortedView.length === s;
    this.slots = s;
    this.pairCap = p;
    this.acc = acc;
    this.post = post;
    this.sorted = sorted;
    this.start = start;
    this.liveStart = liveStart;
    this.nbr = nbr;
    this.live = live;
    this.gBuf = gBuf;
    this.pos = pos;
    this.cellStart = cellStart;
    this.ranges = ranges;
    const buf = this.memory.buffer;
    this.accView = new Float64Array(buf, acc, 8 * s);
    this.postView = new Float64Array(buf, post, 8 * s);
    if (!keepSorted) this.sortedView = new Int32Array(buf, sorted, s);
    this.startView = new Int32Array(buf, start, s + 1);
    this.liveStartView = new Int32Array(buf, liveStart, s + 1 + MAX_ROW_BLOCKS);
    this.nbrView = new Int32Array(buf, nbr, p);
    this.liveView = new Int32Array(buf, live, p);
    if (!keepPos) this.posView = new Float64Array(buf, pos, 3 * s);
    if (!keepCells) this.cellStartView = new Int32Array(buf, cellStart, cells / 4);
    return true;
  }

  /**
   * The fluid pairs of neighbour-grid.ts buildForwardPairs (contiguous: the
   * range `off` … `off + n − 1` of `p` is in the grid's cell order), built in
   * the instance's memory into `start` and `nbr` (room for `slots` slots).
   * Returns the number of pairs, or −1 when the memory cannot grow.
   */
  buildPairs(
    grid: NeighbourGrid,
    p: Float64Array,
    off: number,
    n: number,
    radius: number,
    slots: number,
  ): number {
    let cap = this.pairCap > 0 ? this.pairCap : 16 * slots;
    for (;;) {
      if (!this.reserve(slots, cap)) return -1;
      this.stage(grid, p, off, n);
      // all the rows as one block, into start and nbr themselves (the block's start[0] is 0)
      this.startView[0] = 0;
      const k = this.x.buildForwardPairRows(
        this.pos,
        0,
        0,
        this.cellStart,
        grid.nx,
        grid.ny,
        grid.nz,
        grid.reach,
        radius * radius,
        0,
        n,
        this.start,
        this.nbr,
        this.pairCap,
        this.ranges + RANGE_BYTES * MAX_ROW_BLOCKS,
      );
      if (k >= 0) return k;
      cap = 2 * this.pairCap;
    }
  }

  /** Copies the positions of the range (in cell order) and the grid's cell starts into the instance's memory. */
  stage(grid: NeighbourGrid, p: Float64Array, off: number, n: number): void {
    this.posView.set(p.subarray(3 * off, 3 * (off + n)));
    this.stageCells(grid);
  }

  /**
   * Copies the grid's cell starts alone (the positions are in `posView` already: pair-blocks.ts build);
   * nothing where the grid sorted into the instance's own (FluidDensity.search on a shared instance).
   */
  stageCells(grid: NeighbourGrid): void {
    if (grid.cellStart === this.cellStartView) return;
    this.cellStartView.set(grid.cellStart.subarray(0, grid.cells + 1));
    this.cellCopies++;
  }

  /** Pairs the layout has room for (0 before the first reserve). */
  get pairCapacity(): number {
    return Math.max(0, this.pairCap);
  }
}
