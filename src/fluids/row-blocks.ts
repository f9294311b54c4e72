/**
 * The fluid pair passes in fixed row blocks (docs/solver.md, "Threads"), so
 * that they can run on the worker pool and give the same numbers, bit for
 * bit, on every thread count.
 *
 * The pair rows are "forward" (neighbour-grid.ts buildForwardPairs): row a
 * lists partners after a only, and a pass adds each pair's terms to both of
 * its particles. With the fluid's range in cell order (FluidDensity.search
 * reorders it), slot = row, and the partners of a row lie within the reach
 * of the grid's forward stencil: at most R (1 + nx + nx ny) cells further.
 * The rows are cut into blocks of `size` rows — a function of the particle
 * count only, never of the thread count — and block b writes only the rows
 * [b·size, reach_b), its own and those of its partners. Blocks whose indices
 * differ by `colours` = 1 + ⌈max_b (reach_b − end_b) / size⌉ or more write
 * disjoint rows, so the blocks of one colour (b mod colours) may run at
 * once, in any order and on any thread, and the colours run in turn: each
 * record receives the same additions in the same order for every thread
 * count. (The order differs from one walk over all rows: a row of an early
 * colour adds its own row's sums before the partners of a block of a later
 * colour add theirs.) A fluid whose range is not in cell order (an attached
 * particle) is one block, the single walk.
 *
 * Each block walks its rows with the kernels of pair-passes.rows.ts on
 * offset arrays: its rows of `sorted` and `start`, its own part of `live`
 * (from start[a0], where its listed pairs fit) and of `liveStart` (from
 * a0 + b: one entry more per block, so that no two blocks write the same
 * entry). They run as WebAssembly where available (FluidWasm: the same
 * offsets as byte addresses) — on the pool, every thread's instance of the
 * module on the fluid's shared memory (wasm.ts sharedFluidModule) — else as
 * the generated JavaScript twins, which give the same numbers bit for bit.
 */

import { nextEpoch } from '../core/block-order.js';
import type { SharedTask, TaskRunner } from '../core/step-context.js';
import { applyDeltas, wallCorrectionPass } from './correction-passes.js';
import { initRecords, lambdaPass } from './density-passes.js';
import type { NeighbourGrid } from './neighbour-grid.js';
import { PairBlocks, PB_STRIDE } from './pair-blocks.js';
import {
  ADD_VELOCITIES,
  ALL_INSIDE,
  APPLY_DELTAS,
  AT_ACC,
  AT_GBUF,
  AT_LIVE,
  AT_LIVESTART,
  AT_NBR,
  AT_POST,
  AT_SORTED,
  AT_START,
  COLOURS,
  CORRSCALE,
  CW,
  EPS,
  FULL,
  FUSED_EPOCH,
  GATHER,
  GCOEF,
  H,
  HAS_COUNTS,
  INIT_POST,
  INIT_RECORDS,
  INVQD3,
  INVRHO0,
  instances,
  K_VORT,
  LAMBDA,
  MF,
  N,
  NCORR,
  OFF,
  PAR_SLOTS,
  PASS,
  PHASE,
  PUT,
  QREST3,
  R_IDENTITY,
  R_N,
  R_OFF,
  R_SIZE,
  type RowArrays,
  reorderBlock,
  runRowBlockJs,
  runRowBlockWasm,
  SAME,
  SELF,
  SIZE,
  UNIFORM_ALL,
  UNILATERAL,
  VORT,
  VORTICITY_FORCE,
  VORTICITY_MAGNITUDES,
  W_D,
  W_GRAD,
  W_RHO,
  W_RHO0,
  WALLS,
  WASM_ON,
  WCOEF,
  WU,
  wallDensityRecords,
} from './row-tasks.js';
import { addVelocities, initPostRecords, vorticityForce, vorticityMagnitudes } from './velocity-passes.js';
import type { FluidWalls } from './walls.js';
import { type FluidWasm, type FluidWasmExports, MAX_ROW_BLOCKS } from './wasm.js';

export {
  CORRECTION,
  DENSITY,
  fluidRowsTask,
  type RowArrays,
  runRowBlockJs,
  UNIFORM_ALL,
  VORTICITY_GRADIENT,
  XSPH,
} from './row-tasks.js';

/** The store's arrays that the reordering moves or checks (ParticleStore's). */
export interface ReorderArrays {
  x: Float64Array;
  p: Float64Array;
  v: Float64Array;
  mass: Float64Array;
  invMass: Float64Array;
  radius: Float64Array;
  group: Int32Array;
  mask: Int32Array;
}

/** The fewest rows per block. */
const MIN_ROWS = 512;

/** Rows per block of a fluid of n particles in cell order: a function of n only (at most 64 blocks). */
export function rowBlockSize(n: number): number {
  return Math.max(MIN_ROWS, Math.ceil(n / 64));
}

/** A SharedArrayBuffer typed array of `n` elements where shared memory exists, else a plain one. */
function sharedOf<T extends Int32Array | Float64Array>(kind: 'i32' | 'f64', n: number): T {
  const bytes = kind === 'i32' ? 4 : 8;
  const buf =
    typeof SharedArrayBuffer === 'undefined' ? new ArrayBuffer(bytes * n) : new SharedArrayBuffer(bytes * n);
  return (kind === 'i32' ? new Int32Array(buf) : new Float64Array(buf)) as T;
}

/** Slot records of n doubles: on a SharedArrayBuffer for a threaded world (`shared`), else plain. */
export function records(n: number, shared: boolean): Float64Array {
  return shared ? sharedOf<Float64Array>('f64', n) : new Float64Array(n);
}

/** n Int32 values: on a SharedArrayBuffer for a threaded world (`shared`), else plain. */
export function shared32(n: number, shared: boolean): Int32Array {
  return shared ? sharedOf<Int32Array>('i32', n) : new Int32Array(n);
}

/**
 * The block plan of one fluid's substep and the runner of its passes: on
 * the pool (a TaskRunner) over shared copies of the rows, or on this thread
 * (WebAssembly or JavaScript), always block by block in the same order.
 */
export class FluidRowBlocks {
  /** The parameters of the pass that runs (shared with the workers). */
  readonly par: Float64Array = sharedOf<Float64Array>('f64', PAR_SLOTS);
  /** Rows per block, blocks, colours of the current substep. */
  size = 1;
  blocks = 0;
  colours = 1;
  /** The shared arrays of the pool (threaded worlds); their acc, post, live and liveStart are the fluid's own then. */
  readonly shared: RowArrays = {
    par: this.par,
    sorted: new Int32Array(0),
    start: new Int32Array(0),
    nbr: new Int32Array(0),
    live: new Int32Array(0),
    liveStart: new Int32Array(0),
    acc: new Float64Array(0),
    post: new Float64Array(0),
    invMass: new Float64Array(0),
    x: new Float64Array(0),
    v: new Float64Array(0),
    p: new Float64Array(0),
    rho: new Float64Array(0),
    lambda: new Float64Array(0),
    counts: new Int32Array(0),
    flags: sharedOf<Int32Array>('i32', MAX_ROW_BLOCKS),
    k0: sharedOf<Int32Array>('i32', MAX_ROW_BLOCKS),
    pb: sharedOf<Int32Array>('i32', PB_STRIDE * MAX_ROW_BLOCKS),
    fused: sharedOf<Int32Array>('i32', 2 + 2 * MAX_ROW_BLOCKS + MAX_ROW_BLOCKS * MAX_ROW_BLOCKS),
    done: sharedOf<Int32Array>('i32', MAX_ROW_BLOCKS),
  };
  /** Per block of the current substep: the end of the rows it writes (its own and its partners'). */
  private readonly reach = new Int32Array(MAX_ROW_BLOCKS);
  /** The fused pair passes' number (FUSED_EPOCH). */
  private epoch = 0;
  /** Whether the pair passes on the pool run as one job each (fusedOrder) rather than one per colour; the bits are the same. */
  static fused = true;
  /** The pair search in row blocks on the pool (pair-blocks.ts). */
  readonly pairBlocks = new PairBlocks();
  /** The fluid's wall records, whose passes run with λ and with Δp (set by the owner). */
  walls: FluidWalls | null = null;
  /** This thread's instance of the shared fluid module (shareLocal). */
  private localX: FluidWasmExports | null = null;

  /**
   * Fluid.permute on the pool, in row blocks (the range of n slots from
   * store index off takes the particles in `order`, the grid's sorted list):
   * GATHER copies x, p, v and the new ids into scratch and checks the
   * per-particle constants for uniformity block by block; PUT writes x, p,
   * v, the id maps, the positions of the search (`searchP`, by slot) and,
   * where every constant was uniform, the identity into `order`. Returns the
   * UNIFORM_* bits that hold for every block (the caller gathers the arrays
   * without theirs by `order`, then makes it the identity), or −1 when it
   * cannot run there now (the caller permutes everything: the same numbers).
   */
  reorder(
    tasks: TaskRunner | null,
    order: Int32Array,
    n: number,
    off: number,
    store: ReorderArrays,
    ids: Int32Array,
    slotOf: Int32Array,
    searchP: Float64Array,
  ): number {
    const S = this.shared;
    const size = rowBlockSize(n),
      blocks = Math.ceil(n / size);
    // the workers' x, p and v must be the store's (the task's arguments are refreshed with the buffers)
    if (tasks === null || blocks < 2 || S.x !== store.x || S.p !== store.p || S.v !== store.v) return -1;
    if (!(order.buffer instanceof SharedArrayBuffer) || !(ids.buffer instanceof SharedArrayBuffer)) return -1;
    if (searchP.length < 3 * n || !(searchP.buffer instanceof SharedArrayBuffer)) return -1;
    let stale = S.order !== order || S.ids !== ids || S.slotOf !== slotOf || S.searchP !== searchP;
    stale ||= S.mass !== store.mass || S.radius !== store.radius || S.invMass !== store.invMass;
    stale ||= S.group !== store.group || S.mask !== store.mask;
    if (stale || S.scratch === undefined || S.scratch.length < 9 * n) {
      if (S.scratch === undefined || S.scratch.length < 9 * n) {
        const room = Math.ceil(1.25 * n) + 16;
        S.scratch = sharedOf('f64', 9 * room);
        S.newIds = sharedOf('i32', room);
      }
      S.uniform ??= sharedOf('i32', MAX_ROW_BLOCKS);
      const { mass, radius, invMass, group, mask } = store;
      Object.assign(S, { order, ids, slotOf, searchP, mass, radius, invMass, group, mask });
      this.refresh();
      return -1;
    }
    const P = this.par;
    P[R_SIZE] = size;
    P[R_N] = n;
    P[R_OFF] = off;
    P[PASS] = GATHER;
    if (!tasks.runTask(this.task, blocks, blocks)) return -1;
    let u = UNIFORM_ALL;
    const U = S.uniform as Int32Array;
    for (let b = 0; b < blocks; b++) u &= U[b];
    // (where a constant differs, Fluid.permute gathers it by the order, and the caller makes it the identity)
    P[R_IDENTITY] = u === UNIFORM_ALL ? 1 : 0;
    P[PASS] = PUT;
    if (!tasks.runTask(this.task, blocks, blocks)) for (let b = 0; b < blocks; b++) reorderBlock(S, PUT, b);
    this.pooled += 2 * blocks;
    this.reorders++;
    return u;
  }

  /** Sends the task's arguments again (an array of theirs was replaced). */
  refresh(): void {
    this.task.version++;
    this.task.args = { ...this.shared } as unknown as Record<string, unknown>;
    if (this.shared.memory !== undefined && this.localX !== null) instances.set(this.task.args, this.localX);
  }

  /**
   * The numbers of the wall passes that run with λ and Δp (density-passes.ts
   * wallDensityPass): `on` when there are wall records this substep.
   */
  wallParams(on: boolean, d: number, wRho: number, wGrad: number, rho0: number): void {
    const P = this.par;
    P[WALLS] = on ? 1 : 0;
    P[W_D] = d;
    P[W_RHO] = wRho;
    P[W_GRAD] = wGrad;
    P[W_RHO0] = rho0;
  }
  readonly task: SharedTask = { kind: 'fluid-rows', args: {}, version: 0 };
  /** Blocks run on the pool so far (statistics, tests). */
  pooled = 0;

  /**
   * The blocks of n rows: `contiguous` when slot = row (the range is in
   * the cell order of `grid`); else one block.
   */
  plan(n: number, grid: NeighbourGrid, contiguous: boolean, start: Int32Array): void {
    const P = this.par;
    if (!contiguous || n <= MIN_ROWS) {
      this.size = Math.max(1, n);
      this.blocks = n > 0 ? 1 : 0;
      this.colours = 1;
    } else {
      const size = rowBlockSize(n);
      const blocks = Math.ceil(n / size);
      // a row's partners lie in cells up to R (1 + nx + nx·ny) further on in the linear order
      const cells = grid.nx * grid.ny * grid.nz;
      const ahead = grid.reach * (1 + grid.nx + grid.nx * grid.ny);
      let over = 0;
      for (let b = 0; b < blocks; b++) {
        const end = Math.min(n, (b + 1) * size);
        const last = Math.min(cells - 1, grid.sortedCell[end - 1] + ahead);
        const reach = grid.cellStart[last + 1];
        this.reach[b] = Math.max(end, reach);
        if (reach - end > over) over = reach - end;
      }
      this.size = size;
      this.blocks = blocks;
      this.colours = Math.min(blocks, 1 + Math.ceil(over / size));
    }
    if (this.colours > 1) this.fusedOrder();
    P[SIZE] = this.size;
    P[N] = n;
    P[COLOURS] = this.colours;
    const k0 = this.shared.k0;
    for (let b = 0; b < this.blocks; b++) k0[b] = start[b * this.size];
  }

  /**
   * The fused pair pass's table (RowArrays.fused): the blocks in the serial
   * order (colour after colour, b = c, c + colours, …), each depending on
   * every earlier block whose rows [b·size, reach_b) overlap its own. So the
   * blocks that add to a record run in the serial order, whatever thread
   * runs them (a record's additions are then the same, in the same order:
   * the bits of the colour-by-colour pass), and a block of the next colour
   * starts as soon as the two or three blocks around it are done instead
   * of waiting for the whole colour.
   */
  private fusedOrder(): void {
    const F = this.shared.fused;
    const B = this.blocks,
      C = this.colours,
      size = this.size,
      reach = this.reach;
    F[0] = B;
    let item = 0;
    for (let c = 0; c < C; c++) for (let b = c; b < B; b += C) F[1 + item++] = b;
    const ds = 1 + B,
      deps = 2 + 2 * B;
    let at = 0;
    for (let k = 0; k < B; k++) {
      F[ds + k] = at;
      const b = F[1 + k];
      for (let e = 0; e < k; e++) {
        const d = F[1 + e];
        if (d * size < reach[b] && b * size < reach[d]) F[deps + at++] = e;
      }
    }
    F[ds + B] = at;
  }

  /**
   * Makes the shared arrays hold (copies of) the rows of this substep and
   * room for n slots and `pairs` pairs; `acc`, `post` are the fluid's own
   * (already shared). Bumps the task's version when an array was replaced.
   */
  share(
    n: number,
    sorted: Int32Array,
    start: Int32Array,
    nbr: Int32Array,
    pairs: number,
    acc: Float64Array,
    post: Float64Array,
    invMass: Float64Array,
    x: Float64Array,
    v: Float64Array,
    p: Float64Array,
    rho: Float64Array,
    lambda: Float64Array,
    counts: Int32Array,
  ): void {
    const S = this.shared;
    let stale = S.acc !== acc || S.post !== post || S.invMass !== invMass || S.p !== p;
    stale ||= S.x !== x || S.v !== v || S.memory !== undefined;
    S.memory = undefined;
    S.module = undefined;
    S.x = x;
    S.v = v;
    stale ||= S.rho !== rho || S.lambda !== lambda || S.counts !== counts;
    S.p = p;
    S.rho = rho;
    S.lambda = lambda;
    S.counts = counts;
    if (S.sorted.length < n) {
      S.sorted = sharedOf('i32', Math.ceil(1.25 * n) + 16);
      S.start = sharedOf('i32', S.sorted.length + 1);
      S.liveStart = sharedOf('i32', S.sorted.length + 1 + MAX_ROW_BLOCKS);
      stale = true;
    }
    if (S.nbr.length < pairs) {
      S.nbr = sharedOf('i32', Math.ceil(1.25 * pairs) + 1024);
      S.live = sharedOf('i32', S.nbr.length);
      stale = true;
    }
    S.sorted.set(sorted.subarray(0, n));
    S.start.set(start.subarray(0, n + 1));
    if (S.nbr !== nbr) S.nbr.set(nbr.subarray(0, pairs));
    S.acc = acc;
    S.post = post;
    S.invMass = invMass;
    if (stale) {
      this.task.version++;
      this.task.args = { ...S } as unknown as Record<string, unknown>;
    }
  }

  /**
   * Makes the task's arguments the instance's own arrays (`local`: views of
   * its shared memory, and the store's and the fluid's shared arrays), for
   * a threaded world whose fluid instance is on a shared memory; bumps the
   * task's version when an array was replaced.
   */
  shareLocal(local: RowArrays, w: FluidWasm): void {
    const S = this.shared as unknown as Record<string, unknown>;
    const L = local as unknown as Record<string, unknown>;
    let stale = S.memory !== w.memory;
    for (const key in L) {
      if (key === 'par' || key === 'flags' || key === 'k0' || key === 'pb') continue;
      if (S[key] !== L[key]) stale = true;
      S[key] = L[key];
    }
    S.memory = w.memory;
    S.module = w.module;
    if (stale) {
      this.task.version++;
      this.task.args = { ...S };
      // this thread runs its blocks with the fluid's own instance
      instances.set(this.task.args, w.x);
      this.localX = w.x;
    }
  }

  /** Sets the scalar parameters of the next pass (see the slots above). */
  params(
    pass: number,
    off: number,
    allInside: boolean,
    h: number,
    wU: number,
    mF: number,
    wCoef: number,
    gCoef: number,
  ): Float64Array {
    const P = this.par;
    P[PASS] = pass;
    P[OFF] = off;
    P[ALL_INSIDE] = allInside ? 1 : 0;
    P[H] = h;
    P[WU] = wU;
    P[MF] = mF;
    P[WCOEF] = wCoef;
    P[GCOEF] = gCoef;
    return P;
  }

  /** The parameters of the correction pass (after params). */
  correction(nCorr: number, qRest3: number, invQd3: number, corrScale: number): void {
    const P = this.par;
    P[NCORR] = nCorr;
    P[QREST3] = qRest3;
    P[INVQD3] = invQd3;
    P[CORRSCALE] = corrScale;
  }

  /** The parameters of the XSPH and vorticity pass (after params). */
  xsph(cW: number, vort: boolean): void {
    this.par[CW] = cW;
    this.par[VORT] = vort ? 1 : 0;
  }

  /** Runs slot pass `pass` on the pool, one block per row block; false when it cannot (the caller runs it whole). */
  private slots(tasks: TaskRunner | null, pass: number, off: number): boolean {
    if (tasks === null || this.blocks < 2) return false;
    this.par[PASS] = pass;
    this.par[OFF] = off;
    if (!tasks.runTask(this.task, this.blocks, this.blocks)) return false;
    this.pooled += this.blocks;
    return true;
  }

  /**
   * initRecords (density-passes.ts) for the n slots from store index off:
   * on the pool where it can, else whole. Returns the shared w̃ or NaN.
   */
  initRecords(
    tasks: TaskRunner | null,
    A: RowArrays,
    off: number,
    mF: number,
    self: number,
    searchP: Float64Array,
  ): number {
    const n = this.par[N];
    this.par[MF] = mF;
    this.par[SELF] = self;
    // each block compares its p with the search's too where the workers hold searchP
    this.par[SAME] = this.shared.searchP === searchP && searchP.length >= 3 * n ? 1 : 0;
    this.same = null;
    if (!this.slots(tasks, INIT_RECORDS, off)) return initRecords(n, off, A.p, A.invMass, mF, self, A.acc);
    const F = this.shared.flags;
    if (this.par[SAME] !== 0) {
      let all = 2;
      for (let b = 0; b < this.blocks; b++) all &= F[b];
      this.same = all !== 0;
    }
    for (let b = 0; b < this.blocks; b++) if ((F[b] & 1) === 0) return Number.NaN;
    return n > 0 ? A.invMass[off] * mF : 1;
  }

  /**
   * Whether the last initRecords on the pool found p equal to the positions
   * of the search in every block (samePositions), or null when it did not check.
   */
  same: boolean | null = null;
  /** Reorderings run on the pool (statistics, tests). */
  reorders = 0;

  /**
   * The wall density (density-passes.ts wallDensityPass, with the wall
   * records) and lambdaPass for the n slots: on the pool where it can, else whole.
   */
  lambda(
    tasks: TaskRunner | null,
    A: RowArrays,
    off: number,
    mF: number,
    invRho0: number,
    unilateral: boolean,
    eps: number,
    counts: boolean,
    full: number,
  ): void {
    const P = this.par;
    P[MF] = mF;
    P[INVRHO0] = invRho0;
    P[UNILATERAL] = unilateral ? 1 : 0;
    P[EPS] = eps;
    P[HAS_COUNTS] = counts ? 1 : 0;
    P[FULL] = full;
    if (this.slots(tasks, LAMBDA, off)) return;
    const W = this.walls;
    if (P[WALLS] !== 0 && W !== null) wallDensityRecords(P, W, 0, W.count, off, A.p, A.acc);
    lambdaPass(
      P[N],
      off,
      A.invMass,
      mF,
      invRho0,
      unilateral,
      eps,
      A.acc,
      A.rho,
      counts ? A.counts : null,
      full,
    );
  }

  /**
   * The wall correction (correction-passes.ts, with the wall records) and
   * applyDeltas for the n slots: on the pool where it can, else whole.
   */
  applyDeltas(tasks: TaskRunner | null, A: RowArrays, off: number): void {
    if (this.slots(tasks, APPLY_DELTAS, off)) return;
    const W = this.walls;
    if (this.par[WALLS] !== 0 && W !== null) wallCorrectionPass(0, W.count, W.slot, W.n, W.g, A.acc);
    applyDeltas(this.par[N], off, A.p, A.acc, A.lambda);
  }

  /** initPostRecords (velocity-passes.ts) into acc (R) and post (Q): on the pool where it can, else whole. */
  initPost(tasks: TaskRunner | null, A: RowArrays, off: number): void {
    if (!this.slots(tasks, INIT_POST, off)) initPostRecords(this.par[N], off, A.x, A.v, A.acc, A.post);
  }

  /** vorticityMagnitudes (velocity-passes.ts): on the pool where it can, else whole. */
  vorticityMagnitudes(tasks: TaskRunner | null, A: RowArrays, off: number): void {
    if (!this.slots(tasks, VORTICITY_MAGNITUDES, off)) vorticityMagnitudes(this.par[N], A.acc, A.post);
  }

  /** vorticityForce (velocity-passes.ts) with k = ε h: on the pool where it can, else whole. */
  vorticityForce(tasks: TaskRunner | null, A: RowArrays, off: number, k: number): void {
    this.par[K_VORT] = k;
    if (!this.slots(tasks, VORTICITY_FORCE, off)) vorticityForce(this.par[N], k, A.acc, A.post);
  }

  /** addVelocities (velocity-passes.ts): on the pool where it can, else whole. */
  addVelocities(tasks: TaskRunner | null, A: RowArrays, off: number): void {
    if (!this.slots(tasks, ADD_VELOCITIES, off)) addVelocities(this.par[N], off, A.invMass, A.v, A.post);
  }

  /**
   * Runs the pass in `par` over every block, colour after colour: on the
   * pool with `tasks` (blocks of the shared arrays), else here — in
   * WebAssembly with `w` (the instance's buffers hold the rows), else in
   * JavaScript on `local`.
   */
  run(tasks: TaskRunner | null | undefined, w: FluidWasm | null, local: RowArrays): void {
    const C = this.colours,
      B = this.blocks;
    const P = this.par;
    P[WASM_ON] = w !== null ? 1 : 0;
    if (w !== null) {
      P[AT_SORTED] = w.sorted;
      P[AT_START] = w.start;
      P[AT_NBR] = w.nbr;
      P[AT_LIVE] = w.live;
      P[AT_LIVESTART] = w.liveStart;
      P[AT_ACC] = w.acc;
      P[AT_POST] = w.post;
      P[AT_GBUF] = w.gBuf;
    }
    // the pool: its arrays are the shared copies, or the instance's (local) on a shared memory
    const pool = tasks && (w === null || w.shared) ? tasks : null;
    if (pool && C > 1 && FluidRowBlocks.fused) {
      // every colour in one job, each block waiting only for the blocks it overlaps (fusedOrder)
      P[PHASE] = -1;
      this.epoch = nextEpoch(this.epoch);
      P[FUSED_EPOCH] = this.epoch;
      if (pool.runTask(this.task, B, B)) {
        this.pooled += B;
        return;
      }
    }
    for (let c = 0; c < C; c++) {
      P[PHASE] = c;
      const items = Math.ceil((B - c) / C);
      if (items <= 0) continue;
      if (pool && items > 1 && pool.runTask(this.task, items, items)) {
        this.pooled += items;
        continue;
      }
      const A = tasks && w === null ? this.shared : local;
      for (let b = c; b < B; b += C) {
        if (w !== null) runRowBlockWasm(w.x, P, this.shared.k0, b);
        else runRowBlockJs(A, b);
      }
    }
  }
}
