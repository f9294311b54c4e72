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
import type { SharedTask, TaskRunner } from '../core/step-context.js';
import { applyDeltas } from './correction-passes.js';
import { initRecords, lambdaPass } from './density-passes.js';
import type { NeighbourGrid } from './neighbour-grid.js';
import {
  fluidCorrectionPass,
  fluidDensityPass,
  fluidDensityPassWeighted,
  vorticityGradientPass,
  xsphVorticityPass,
} from './pair-passes.generated.js';
import { addVelocities, initPostRecords, vorticityForce, vorticityMagnitudes } from './velocity-passes.js';
import { type FluidWasm, type FluidWasmExports, MAX_ROW_BLOCKS } from './wasm.js';

/** Passes (slot PASS of the parameters). */
export const DENSITY = 0;
export const CORRECTION = 1;
export const XSPH = 2;
export const VORTICITY_GRADIENT = 3;
/** Passes over slots (each slot on its own: any partition gives the same numbers; on the pool, one block per row block). */
const INIT_RECORDS = 10;
const LAMBDA = 11;
const APPLY_DELTAS = 12;
const INIT_POST = 13;
const VORTICITY_MAGNITUDES = 14;
const VORTICITY_FORCE = 15;
const ADD_VELOCITIES = 16;

/** Float64 slots of the parameter block `par`. */
const PASS = 0,
  PHASE = 1,
  COLOURS = 2,
  SIZE = 3,
  N = 4,
  OFF = 5,
  ALL_INSIDE = 6,
  H = 7,
  WU = 8,
  MF = 9,
  WCOEF = 10,
  GCOEF = 11,
  NCORR = 12,
  QREST3 = 13,
  INVQD3 = 14,
  CORRSCALE = 15,
  CW = 16,
  VORT = 17,
  SELF = 18,
  INVRHO0 = 19,
  UNILATERAL = 20,
  EPS = 21,
  FULL = 22,
  HAS_COUNTS = 23,
  K_VORT = 24,
  /** 1: the pair pass runs in WebAssembly, at the byte addresses below. */
  WASM_ON = 25,
  AT_SORTED = 26,
  AT_START = 27,
  AT_NBR = 28,
  AT_LIVE = 29,
  AT_LIVESTART = 30,
  AT_ACC = 31,
  AT_POST = 32,
  AT_GBUF = 33;
const PAR_SLOTS = 40;

/** The fewest rows per block. */
const MIN_ROWS = 512;

/** What a block reads and writes: shared arrays on the pool (the arguments of the 'fluid-rows' task). */
export interface RowArrays {
  par: Float64Array;
  sorted: Int32Array;
  start: Int32Array;
  nbr: Int32Array;
  live: Int32Array;
  liveStart: Int32Array;
  /** Slot records: the density records (R of the velocity passes) and the velocity ones (Q). */
  acc: Float64Array;
  post: Float64Array;
  invMass: Float64Array;
  /** The store's positions, velocities and predicted positions; the fluid's ρ, λ and neighbour counts by slot. */
  x: Float64Array;
  v: Float64Array;
  p: Float64Array;
  rho: Float64Array;
  lambda: Float64Array;
  counts: Int32Array;
  /** Per block: 1 when its slots share the inverse mass of slot 0 (initRecords). */
  flags: Int32Array;
  /** Per block: start[first row] (where its part of live and of the pair buffer begins). */
  k0: Int32Array;
  /** The fluid module and its shared memory, where the arrays above live in it (threads run it too). */
  module?: WebAssembly.Module;
  memory?: WebAssembly.Memory;
}

/** Each thread's instance of the shared fluid module, by task arguments. */
const instances = new WeakMap<object, FluidWasmExports>();

function instanceOf(A: RowArrays): FluidWasmExports {
  let x = instances.get(A);
  if (x === undefined) {
    const inst = new WebAssembly.Instance(A.module as WebAssembly.Module, {
      env: { memory: A.memory as WebAssembly.Memory },
    });
    x = inst.exports as unknown as FluidWasmExports;
    instances.set(A, x);
  }
  return x;
}

/** Block b of the pass in `par`, with the generated JavaScript kernels. */
export function runRowBlockJs(A: RowArrays, b: number): void {
  const P = A.par;
  const size = P[SIZE],
    n = P[N];
  const a0 = b * size,
    a1 = Math.min(n, a0 + size);
  if (a0 >= a1) return;
  const rows = a1 - a0,
    off = P[OFF],
    h = P[H],
    allInside = P[ALL_INSIDE] !== 0;
  const sorted = A.sorted.subarray(a0),
    start = A.start.subarray(a0);
  const live = A.live.subarray(A.start[a0]),
    liveStart = A.liveStart.subarray(a0 + b);
  switch (P[PASS]) {
    case DENSITY:
      if (Number.isNaN(P[WU]))
        fluidDensityPassWeighted(
          rows,
          off,
          sorted,
          start,
          A.nbr,
          A.invMass,
          P[MF],
          h,
          P[WCOEF],
          P[GCOEF],
          A.acc,
          live,
          liveStart,
          allInside,
        );
      else
        fluidDensityPass(
          rows,
          off,
          sorted,
          start,
          A.nbr,
          P[WU],
          h,
          P[WCOEF],
          P[GCOEF],
          A.acc,
          live,
          liveStart,
          allInside,
        );
      return;
    case CORRECTION:
      fluidCorrectionPass(
        rows,
        off,
        sorted,
        allInside ? start : liveStart,
        allInside ? A.nbr : live,
        h,
        P[GCOEF],
        P[NCORR],
        P[QREST3],
        P[INVQD3],
        P[CORRSCALE],
        A.acc,
      );
      return;
    case XSPH:
      xsphVorticityPass(
        rows,
        off,
        sorted,
        start,
        A.nbr,
        A.acc,
        h,
        P[CW],
        P[GCOEF],
        P[VORT] !== 0,
        A.post,
        live,
        liveStart,
      );
      return;
    case VORTICITY_GRADIENT:
      vorticityGradientPass(rows, off, sorted, liveStart, live, A.acc, h, P[GCOEF]);
      return;
  }
}

/** Slots of block b of the slot pass in `par` (on the pool). */
function runSlotBlock(A: RowArrays, b: number): void {
  const P = A.par;
  const size = P[SIZE],
    n = P[N];
  const s0 = b * size,
    s1 = Math.min(n, s0 + size);
  if (s0 >= s1) return;
  const m = s1 - s0,
    off = P[OFF] + s0,
    acc = A.acc.subarray(8 * s0);
  switch (P[PASS]) {
    case INIT_RECORDS: {
      const w0 = initRecords(m, off, A.p, A.invMass, P[MF], P[SELF], acc);
      A.flags[b] = w0 === A.invMass[P[OFF]] * P[MF] ? 1 : 0;
      return;
    }
    case LAMBDA:
      lambdaPass(
        m,
        off,
        A.invMass,
        P[MF],
        P[INVRHO0],
        P[UNILATERAL] !== 0,
        P[EPS],
        acc,
        A.rho.subarray(s0),
        P[HAS_COUNTS] !== 0 ? A.counts.subarray(s0) : null,
        P[FULL],
      );
      return;
    case APPLY_DELTAS:
      applyDeltas(m, off, A.p, acc, A.lambda.subarray(s0));
      return;
    case INIT_POST:
      initPostRecords(m, off, A.x, A.v, acc, A.post.subarray(8 * s0));
      return;
    case VORTICITY_MAGNITUDES:
      vorticityMagnitudes(m, acc, A.post.subarray(8 * s0));
      return;
    case VORTICITY_FORCE:
      vorticityForce(m, P[K_VORT], acc, A.post.subarray(8 * s0));
      return;
    case ADD_VELOCITIES:
      addVelocities(m, off, A.invMass, A.v, A.post.subarray(8 * s0));
      return;
  }
}

/**
 * The 'fluid-rows' task (registry.ts): items [from, to) are the blocks
 * phase + colours · item of a pair pass, or blocks from … to − 1 of a slot pass.
 */
export function fluidRowsTask(A: RowArrays, from: number, to: number): void {
  const P = A.par;
  if (P[PASS] >= INIT_RECORDS) {
    for (let b = from; b < to; b++) runSlotBlock(A, b);
    return;
  }
  const phase = P[PHASE],
    colours = P[COLOURS];
  if (P[WASM_ON] !== 0 && A.memory !== undefined) {
    const x = instanceOf(A);
    for (let item = from; item < to; item++) runRowBlockWasm(x, P, A.k0, phase + colours * item);
    return;
  }
  for (let item = from; item < to; item++) runRowBlockJs(A, phase + colours * item);
}

/** Block b of the pass in `par` in WebAssembly (same offsets, as byte addresses of the instance's buffers). */
function runRowBlockWasm(x: FluidWasmExports, P: Float64Array, k0s: Int32Array, b: number): void {
  const size = P[SIZE],
    n = P[N];
  const a0 = b * size,
    a1 = Math.min(n, a0 + size);
  if (a0 >= a1) return;
  const rows = a1 - a0,
    off = P[OFF],
    h = P[H],
    allInside = P[ALL_INSIDE] !== 0;
  const sorted = P[AT_SORTED] + 4 * a0,
    start = P[AT_START] + 4 * a0;
  const k0 = k0s[b];
  const live = P[AT_LIVE] + 4 * k0,
    liveStart = P[AT_LIVESTART] + 4 * (a0 + b);
  // the pair buffer follows the rows walked: all of nbr (absolute) or this block's part of live
  const gBuf = P[AT_GBUF],
    gLive = gBuf + 8 * k0;
  const nbr = P[AT_NBR],
    acc = P[AT_ACC];
  switch (P[PASS]) {
    case DENSITY:
      x.fluidDensityPass(
        rows,
        off,
        sorted,
        start,
        nbr,
        P[WU],
        h,
        P[WCOEF],
        P[GCOEF],
        acc,
        live,
        liveStart,
        allInside,
        allInside ? gBuf : gLive,
      );
      return;
    case CORRECTION:
      x.fluidCorrectionPass(
        rows,
        off,
        sorted,
        allInside ? start : liveStart,
        allInside ? nbr : live,
        h,
        P[NCORR],
        P[QREST3],
        P[INVQD3],
        P[CORRSCALE],
        acc,
        allInside ? gBuf : gLive,
      );
      return;
    case XSPH:
      x.xsphVorticityPass(
        rows,
        off,
        sorted,
        start,
        nbr,
        acc,
        h,
        P[CW],
        P[GCOEF],
        P[VORT] !== 0,
        P[AT_POST],
        live,
        liveStart,
        gLive,
      );
      return;
    case VORTICITY_GRADIENT:
      x.vorticityGradientPass(rows, off, sorted, liveStart, live, acc, gLive);
      return;
  }
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
  };
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
      const size = Math.max(MIN_ROWS, Math.ceil(n / 64));
      const blocks = Math.ceil(n / size);
      // a row's partners lie in cells up to R (1 + nx + nx·ny) further on in the linear order
      const cells = grid.nx * grid.ny * grid.nz;
      const ahead = grid.reach * (1 + grid.nx + grid.nx * grid.ny);
      let over = 0;
      for (let b = 0; b < blocks; b++) {
        const end = Math.min(n, (b + 1) * size);
        const last = Math.min(cells - 1, grid.sortedCell[end - 1] + ahead);
        const reach = grid.cellStart[last + 1];
        if (reach - end > over) over = reach - end;
      }
      this.size = size;
      this.blocks = blocks;
      this.colours = Math.min(blocks, 1 + Math.ceil(over / size));
    }
    P[SIZE] = this.size;
    P[N] = n;
    P[COLOURS] = this.colours;
    const k0 = this.shared.k0;
    for (let b = 0; b < this.blocks; b++) k0[b] = start[b * this.size];
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
      if (key === 'par' || key === 'flags' || key === 'k0') continue;
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
  initRecords(tasks: TaskRunner | null, A: RowArrays, off: number, mF: number, self: number): number {
    const n = this.par[N];
    this.par[MF] = mF;
    this.par[SELF] = self;
    if (!this.slots(tasks, INIT_RECORDS, off)) return initRecords(n, off, A.p, A.invMass, mF, self, A.acc);
    for (let b = 0; b < this.blocks; b++) if (this.shared.flags[b] === 0) return Number.NaN;
    return n > 0 ? A.invMass[off] * mF : 1;
  }

  /** lambdaPass (density-passes.ts) for the n slots: on the pool where it can, else whole. */
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

  /** applyDeltas (correction-passes.ts) for the n slots: on the pool where it can, else whole. */
  applyDeltas(tasks: TaskRunner | null, A: RowArrays, off: number): void {
    if (!this.slots(tasks, APPLY_DELTAS, off)) applyDeltas(this.par[N], off, A.p, A.acc, A.lambda);
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
