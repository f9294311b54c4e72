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
import { initRecords } from './density-passes.js';
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
  CHAIN_AT,
  CHAIN_SHIFT,
  COLOURS,
  CORRECTION,
  CORRSCALE,
  CW,
  DENSITY,
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
  KEEP,
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
  runBlock,
  SAME,
  SELF,
  SIZE,
  slotRange,
  UNIFORM_ALL,
  UNILATERAL,
  VORT,
  VORTICITY_FORCE,
  VORTICITY_GRADIENT,
  VORTICITY_MAGNITUDES,
  W_D,
  W_GRAD,
  W_RHO,
  W_RHO0,
  WALLS,
  WASM_ON,
  WCOEF,
  WU,
  XSPH,
} from './row-tasks.js';
import type { FluidWalls } from './walls.js';
import { type FluidWasm, type FluidWasmExports, MAX_ROW_BLOCKS } from './wasm.js';

export {
  ADD_VELOCITIES,
  APPLY_DELTAS,
  CORRECTION,
  DENSITY,
  fluidRowsTask,
  INIT_POST,
  LAMBDA,
  PASS,
  type RowArrays,
  runBlock,
  UNIFORM_ALL,
  VORTICITY_FORCE,
  VORTICITY_GRADIENT,
  VORTICITY_MAGNITUDES,
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

/** The most passes in one chain (FluidRowBlocks.chain). */
const MAX_CHAIN = 8;

/** The passes of one Jacobi iteration after the records' set-up (PBF Algorithm 1, lines 10–19), where no solid pass runs between them. */
export const ITERATION_CHAIN: readonly number[] = [DENSITY, LAMBDA, CORRECTION, APPLY_DELTAS];
/** The same with the records' set-up first (FluidDensity: the second and later iterations of a substep, session 24). */
export const ITERATION_CHAIN_INIT: readonly number[] = [
  INIT_RECORDS,
  DENSITY,
  LAMBDA,
  CORRECTION,
  APPLY_DELTAS,
];
/** The velocity post-process (PBF Algorithm 1, line 22: XSPH and vorticity confinement, eqs. 15–17). */
export const POST_CHAIN: readonly number[] = [
  INIT_POST,
  XSPH,
  VORTICITY_MAGNITUDES,
  VORTICITY_GRADIENT,
  VORTICITY_FORCE,
  ADD_VELOCITIES,
];
/** The velocity post-process without vorticity confinement. */
export const POST_CHAIN_XSPH: readonly number[] = [INIT_POST, XSPH, ADD_VELOCITIES];
/** Each pair pass alone (a fused pair pass: a chain of one). */
const SINGLE: readonly (readonly number[])[] = [[DENSITY], [CORRECTION], [XSPH], [VORTICITY_GRADIENT]];

/** A number that names a chain of passes (each below 31, at most 6 of them). */
function chainKey(passes: readonly number[]): number {
  let key = 0;
  for (let i = 0; i < passes.length; i++) key = key * 32 + passes[i] + 1;
  return key;
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
    fused: sharedOf<Int32Array>('i32', 1 << 16),
    done: sharedOf<Int32Array>('i32', MAX_CHAIN * MAX_ROW_BLOCKS),
  };
  /** Per block of the current substep: the end of the rows it writes (its own and its partners'). */
  private readonly reach = new Int32Array(MAX_ROW_BLOCKS);
  /** The fused pair passes' and chains' number (FUSED_EPOCH). */
  private epoch = 0;
  /** Whether the pair passes on the pool run as one job each (a chain of one) rather than one per colour; the bits are the same. */
  static fused = true;
  /** Whether chain() runs several passes as one job (else the caller runs them one by one); the bits are the same. */
  static chained = true;
  /** Where each chain's table starts in `shared.fused` this substep (by chainKey), and the end of the tables. */
  private readonly chainAt = new Map<number, number>();
  private chainEnd = 0;
  /** Per item of the chain being built: the first and last row + 1 it reads or writes. */
  private readonly lo = new Int32Array(MAX_CHAIN * MAX_ROW_BLOCKS);
  private readonly hi = new Int32Array(MAX_CHAIN * MAX_ROW_BLOCKS);
  /** A chain's table while it is built. */
  private table = new Int32Array(0);
  /** The pair search in row blocks on the pool (pair-blocks.ts). */
  readonly pairBlocks = new PairBlocks();
  /** The fluid's wall records, whose passes run with λ and with Δp (set by the owner). */
  walls: FluidWalls | null = null;
  /** This thread's instance of the shared fluid module (shareLocal). */
  private localX: FluidWasmExports | null = null;

  /**
   * Fluid.permute on the pool, in row blocks (the range of n slots from
   * store index off takes the particles in `order`, the grid's sorted list):
   * GATHER copies x, v and the new ids into scratch and p into the positions
   * of the search (`searchP`, by slot), and checks the per-particle constants
   * for uniformity block by block; PUT writes x, p, v, the id maps and,
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
    if (stale || S.scratch === undefined || S.scratch.length < 6 * n) {
      if (S.scratch === undefined || S.scratch.length < 6 * n) {
        const room = Math.ceil(1.25 * n) + 16;
        // x and v, 3 doubles a slot each (GATHER writes p into searchP itself)
        S.scratch = sharedOf('f64', 6 * room);
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
    this.chainAt.clear();
    this.chainEnd = 0;
    P[SIZE] = this.size;
    P[N] = n;
    P[COLOURS] = this.colours;
    const k0 = this.shared.k0;
    for (let b = 0; b < this.blocks; b++) k0[b] = start[b * this.size];
  }

  /**
   * The table of a chain of passes (RowArrays.fused, from the returned
   * index; built once a substep): the items of each pass in its serial order
   * (a pair pass's blocks colour after colour, b = c, c + colours, …; a slot
   * pass's in block order), each depending on every earlier item of its own
   * pass (pair passes) or of the pass before whose rows overlap its own: a
   * pair block reads and writes the rows [b·size, reach_b), a slot block its
   * own. So the blocks that add to a record run in the serial order,
   * whatever thread runs them (a record's additions are then the same, in
   * the same order: the bits of the colour-by-colour pass), each slot pass
   * sees its slots' sums complete and every pair block the slots of the
   * pass before done; an item of a later pass overlapping one two passes
   * back does so through an item of the pass between (whose rows cover its
   * own), and a block of the next colour or pass starts as soon as the few
   * blocks around it are done instead of waiting for the whole pass.
   */
  chainTable(passes: readonly number[]): number {
    const key = chainKey(passes);
    const known = this.chainAt.get(key);
    if (known !== undefined) return known;
    const B = this.blocks,
      C = this.colours,
      size = this.size,
      n = this.par[N];
    const lo = this.lo,
      hi = this.hi;
    const items = passes.length * B;
    // built here (at most every earlier item of the pass and every item of the pass before), then copied
    const need = 2 + 2 * items + passes.length * B * 2 * B;
    if (this.table.length < need) this.table = new Int32Array(need);
    const T = this.table;
    T[0] = items;
    const ds = 1 + items,
      deps = 2 + 2 * items;
    let k = 0,
      d = 0;
    for (let i = 0; i < passes.length; i++) {
      const pass = passes[i],
        pair = pass < INIT_RECORDS,
        first = i * B;
      for (let c = 0; c < (pair ? C : 1); c++) {
        for (let b = pair ? c : 0; b < B; b += pair ? C : 1) {
          T[1 + k] = (pass << CHAIN_SHIFT) | b;
          lo[k] = b * size;
          hi[k] = pair ? this.reach[b] : Math.min(n, (b + 1) * size);
          T[ds + k] = d;
          // the pass before (all of it), then this pass's earlier items where blocks can overlap (pair passes)
          for (let e = i > 0 ? first - B : first; e < (pair ? k : first); e++)
            if (lo[e] < hi[k] && lo[k] < hi[e]) T[deps + d++] = e;
          k++;
        }
      }
    }
    T[ds + items] = d;
    const at = this.chainEnd,
      len = deps + d;
    let F = this.shared.fused;
    if (F.length < at + len) {
      // (rare: the next job sends the task's arguments again and runs its passes one by one)
      const grown = sharedOf<Int32Array>('i32', 2 * (at + len));
      grown.set(F.subarray(0, at));
      this.shared.fused = F = grown;
      this.refresh();
    }
    F.set(T.subarray(0, len), at);
    this.chainEnd = at + len;
    this.chainAt.set(key, at);
    return at;
  }

  /**
   * Runs `passes` (pair and slot passes of one chain, e.g. ITERATION_CHAIN,
   * their parameters set and not in conflict: one `par` serves them all) as
   * one job on the pool, items ordered by chainTable; the numbers of running
   * them one by one. False when it cannot (no pool, one block, WebAssembly
   * not on the shared memory): the caller runs them one by one.
   */
  chain(tasks: TaskRunner | null, w: FluidWasm | null, passes: readonly number[]): boolean {
    if (!FluidRowBlocks.chained || !this.canPool(tasks, w)) return false;
    if (!this.runChain(tasks as TaskRunner, w, passes)) return false;
    this.chains++;
    return true;
  }

  /** Whether a chain on the pool can run (chain()). */
  canPool(tasks: TaskRunner | null | undefined, w: FluidWasm | null): boolean {
    return tasks != null && this.blocks >= 2 && (w === null || w.shared);
  }

  private runChain(pool: TaskRunner, w: FluidWasm | null, passes: readonly number[]): boolean {
    const P = this.par;
    this.addresses(w);
    P[PHASE] = -1;
    P[CHAIN_AT] = this.chainTable(passes);
    this.epoch = nextEpoch(this.epoch);
    P[FUSED_EPOCH] = this.epoch;
    const items = passes.length * this.blocks;
    if (!pool.runTask(this.task, items, items)) return false;
    this.pooled += items;
    return true;
  }

  /** Chains run on the pool (statistics, tests). */
  chains = 0;

  /** The WebAssembly byte addresses of the pair passes (WASM_ON 0 without an instance). */
  private addresses(w: FluidWasm | null): void {
    const P = this.par;
    P[WASM_ON] = w !== null ? 1 : 0;
    if (w === null) return;
    P[AT_SORTED] = w.sorted;
    P[AT_START] = w.start;
    P[AT_NBR] = w.nbr;
    P[AT_LIVE] = w.live;
    P[AT_LIVESTART] = w.liveStart;
    P[AT_ACC] = w.acc;
    P[AT_POST] = w.post;
    P[AT_GBUF] = w.gBuf;
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
      if (
        key === 'par' ||
        key === 'flags' ||
        key === 'k0' ||
        key === 'pb' ||
        key === 'fused' ||
        key === 'done'
      )
        continue;
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

  /** The parameters of the XSPH and vorticity pass (after params), and the vorticity force's k = ε h. */
  xsph(cW: number, vort: boolean, kVort: number): void {
    this.par[CW] = cW;
    this.par[VORT] = vort ? 1 : 0;
    this.par[K_VORT] = kVort;
  }

  /** Runs slot pass `pass` on the pool, one block per row block; false when it cannot (the caller runs it whole). */
  private slots(tasks: TaskRunner | null, pass: number, off: number): boolean {
    this.par[PASS] = pass;
    this.par[OFF] = off;
    if (tasks === null || this.blocks < 2) return false;
    if (!tasks.runTask(this.task, this.blocks, this.blocks)) return false;
    this.pooled += this.blocks;
    return true;
  }

  /**
   * Slot pass `pass` (row-tasks.ts slotRange; LAMBDA … ADD_VELOCITIES, each after its parameters) on
   * the n slots from store index off: on the pool where it can, else whole on A.
   */
  slotPass(tasks: TaskRunner | null, A: RowArrays, pass: number, off: number): void {
    if (this.slots(tasks, pass, off)) return;
    const W = this.walls;
    slotRange(A, pass, 0, this.par[N], W === null ? null : W.arrays, 0, W === null ? 0 : W.count);
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
    this.recordJobs++;
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
  /** The records' set-ups run on the pool as a job of their own (statistics, tests; ITERATION_CHAIN_INIT runs the others). */
  recordJobs = 0;

  /**
   * The parameters of lambdaPass (density-passes.ts; the lambda pass's, after params); `keep`:
   * the λ and Δp passes copy ρ and λ by slot (the substep's last iteration).
   */
  lambdaParams(
    mF: number,
    invRho0: number,
    unilateral: boolean,
    eps: number,
    counts: boolean,
    full: number,
    keep: boolean,
  ): void {
    const P = this.par;
    P[KEEP] = keep ? 1 : 0;
    P[MF] = mF;
    P[INVRHO0] = invRho0;
    P[UNILATERAL] = unilateral ? 1 : 0;
    P[EPS] = eps;
    P[HAS_COUNTS] = counts ? 1 : 0;
    P[FULL] = full;
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
    this.addresses(w);
    // the pool: its arrays are the shared copies, or the instance's (local) on a shared memory
    const pool = tasks && (w === null || w.shared) ? tasks : null;
    // every colour in one job, each block waiting only for the blocks it overlaps (chainTable)
    if (pool && C > 1 && FluidRowBlocks.fused && this.runChain(pool, w, SINGLE[P[PASS]])) return;
    for (let c = 0; c < C; c++) {
      P[PHASE] = c;
      const items = Math.ceil((B - c) / C);
      if (items <= 0) continue;
      if (pool && items > 1 && pool.runTask(this.task, items, items)) {
        this.pooled += items;
        continue;
      }
      const A = tasks && w === null ? this.shared : local;
      for (let b = c; b < B; b += C) runBlock(A, w !== null ? w.x : null, b);
    }
  }
}
