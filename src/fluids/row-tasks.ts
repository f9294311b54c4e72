/**
 * The kernels of the fluid's 'fluid-rows' task (registry.ts), which every
 * thread of the pool runs on the task's shared arguments: the pair passes of
 * one row block (WebAssembly at byte addresses, or the generated JavaScript
 * twins), the slot passes of one block with the wall passes of its records,
 * the pair search's blocks (pair-blocks.ts) and the wall search's
 * (walls.ts); and the slots of the parameter block `par` they read.
 * row-blocks.ts plans the blocks and runs the passes.
 */
import { awaitBlock, markDone } from '../core/block-order.js';
import { applyDeltas, wallCorrectionPass } from './correction-passes.js';
import { initRecords, lambdaPass, samePositions, wallDensityPass } from './density-passes.js';
import { PAIR_ROWS, runPairBlock } from './pair-blocks.js';
import {
  fluidCorrectionPass,
  fluidDensityPass,
  fluidDensityPassWeighted,
  vorticityGradientPass,
  xsphVorticityPass,
} from './pair-passes.generated.js';
// the Float64 slots of `par`, written once in scripts/kernels/emit-slots.ts (FLUID_ROWS)
import * as slot from './row-slots.generated.js';
import { addVelocities, initPostRecords, vorticityForce, vorticityMagnitudes } from './velocity-passes.js';
import { WALL_COUNT, type WallArrays, wallSearchBlock } from './walls.js';
import type { FluidWasmExports } from './wasm.js';

/** Passes (slot PASS of the parameters). */
export const DENSITY = 0;
export const CORRECTION = 1;
export const XSPH = 2;
export const VORTICITY_GRADIENT = 3;
/**
 * Passes over slots (each slot on its own: any partition gives the same numbers; on the pool, one
 * block per row block; FluidRowBlocks.slotPass runs them, initRecords the first).
 */
export const INIT_RECORDS = 10;
/** The wall density (density-passes.ts wallDensityPass, with the wall records) and lambdaPass (parameters: lambdaParams). */
export const LAMBDA = 11;
/** The wall correction (correction-passes.ts, with the wall records) and applyDeltas. */
export const APPLY_DELTAS = 12;
/** initPostRecords (velocity-passes.ts) into acc (R) and post (Q). */
export const INIT_POST = 13;
/** vorticityMagnitudes (velocity-passes.ts). */
export const VORTICITY_MAGNITUDES = 14;
/** vorticityForce (velocity-passes.ts) with k = ε h (FluidRowBlocks.xsph's kVort). */
export const VORTICITY_FORCE = 15;
/** addVelocities (velocity-passes.ts). */
export const ADD_VELOCITIES = 16;

/**
 * The Float64 slots of the parameter block `par` (PASS … PAR_SLOTS, pair-blocks.ts's B_* among them),
 * written once in scripts/kernels/emit-slots.ts (FLUID_ROWS).
 */
export * from './row-slots.generated.js';
/** The passes of the reordering: the fluid's x, p, v gathered in the grid's order into scratch (p into searchP), then put back. */
export const GATHER = 24;
export const PUT = 25;

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
  /**
   * Per block: bit 1 when its slots share the inverse mass of slot 0
   * (initRecords), bit 2 when their p equal searchP (with SAME).
   */
  flags: Int32Array;
  /** Per block: start[first row] (where its part of live and of the pair buffer begins). */
  k0: Int32Array;
  /** Per block, the pair search on the pool (pair-blocks.ts): region, its length, count, pairs before it. */
  pb: Int32Array;
  /**
   * The tables of the chains of passes run as one job each (PHASE −1,
   * FluidRowBlocks.chain; a fused pair pass is a chain of one), each from
   * par[slot.CHAIN_AT]: [items, each item's pass << CHAIN_SHIFT | block in the
   * serial order, per item the start of its dependencies (items + 1), the
   * dependencies (earlier items)]; and per item the epoch of the last job
   * in which it finished.
   */
  fused: Int32Array;
  done: Int32Array;
  /** The wall records (walls.ts), whose passes run with the slot passes, block by block. */
  walls?: WallArrays;
  /**
   * The reordering: the store index each slot takes its particle from (the
   * grid's sorted list, which PUT leaves as the identity), and room for 6
   * doubles per slot (x and v; p goes through searchP).
   */
  order?: Int32Array;
  scratch?: Float64Array;
  /**
   * The reordering's part of Fluid.permute: the id maps (Fluid.ids, slotOf)
   * with room for the n new ids, and the per-particle constants that GATHER
   * checks for uniformity, block by block, into `uniform` (UNIFORM_* bits).
   */
  ids?: Int32Array;
  slotOf?: Int32Array;
  newIds?: Int32Array;
  mass?: Float64Array;
  radius?: Float64Array;
  group?: Int32Array;
  mask?: Int32Array;
  uniform?: Int32Array;
  /** The fluid's positions at the search by slot (FluidDensity.searchP): PUT writes them, INIT_RECORDS compares. */
  searchP?: Float64Array;
  /** The fluid module and its shared memory, where the arrays above live in it (threads run it too). */
  module?: WebAssembly.Module;
  memory?: WebAssembly.Memory;
}

/** Each thread's instance of the shared fluid module, by task arguments. */
export const instances = new WeakMap<object, FluidWasmExports>();

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

/**
 * Block b of pass `pass` (by default the one in `par`): rows (a pair pass,
 * runRowBlock) or slots (a slot pass, runSlotBlock) [b size, (b + 1) size)
 * of the n, with size and n from `par`; x is the thread's instance (null:
 * the JavaScript kernels), which only the pair passes use.
 */
export function runBlock(
  A: RowArrays,
  x: FluidWasmExports | null,
  b: number,
  pass: number = A.par[slot.PASS],
): void {
  const P = A.par;
  const size = P[slot.SIZE],
    n = P[slot.N];
  const a0 = b * size,
    a1 = Math.min(n, a0 + size);
  if (a0 >= a1) return;
  if (pass >= INIT_RECORDS) runSlotBlock(A, pass, b, a0, a1);
  else runRowBlock(A, x, pass, b, a0, a1);
}

/**
 * Rows [a0, a1) of pair pass `pass`, block b (runBlock): in WebAssembly
 * with the instance x (the same offsets, as byte addresses of the
 * instance's buffers, from `par`), else with the generated JavaScript
 * kernels on A's arrays; the two give the same numbers.
 */
function runRowBlock(
  A: RowArrays,
  x: FluidWasmExports | null,
  pass: number,
  b: number,
  a0: number,
  a1: number,
): void {
  const P = A.par;
  const rows = a1 - a0,
    off = P[slot.OFF],
    h = P[slot.H],
    allInside = P[slot.ALL_INSIDE] !== 0;
  if (x !== null) {
    rowBlockWasm(x, P, A.k0[b], a0, b, rows, off, h, allInside, pass);
    return;
  }
  const sorted = A.sorted.subarray(a0),
    start = A.start.subarray(a0);
  const live = A.live.subarray(A.start[a0]),
    liveStart = A.liveStart.subarray(a0 + b);
  switch (pass) {
    case DENSITY:
      if (Number.isNaN(P[slot.WU]))
        fluidDensityPassWeighted(
          rows,
          off,
          sorted,
          start,
          A.nbr,
          A.invMass,
          P[slot.MF],
          h,
          P[slot.WCOEF],
          P[slot.GCOEF],
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
          P[slot.WU],
          h,
          P[slot.WCOEF],
          P[slot.GCOEF],
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
        P[slot.GCOEF],
        P[slot.NCORR],
        P[slot.QREST3],
        P[slot.INVQD3],
        P[slot.CORRSCALE],
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
        P[slot.CW],
        P[slot.GCOEF],
        P[slot.VORT] !== 0,
        A.post,
        live,
        liveStart,
      );
      return;
    case VORTICITY_GRADIENT:
      vorticityGradientPass(rows, off, sorted, liveStart, live, A.acc, h, P[slot.GCOEF]);
      return;
  }
}

/**
 * density-passes.ts wallDensityPass over wall records [r0, r1) with the
 * wall numbers of the parameter block P: a block's records on the pool
 * (runSlotBlock), all of them on the calling thread (row-blocks.ts slotPass, LAMBDA).
 */
export function wallDensityRecords(
  P: Float64Array,
  W: Pick<WallArrays, 'slot' | 'n' | 'c' | 'g' | 'v' | 'P'>,
  r0: number,
  r1: number,
  off: number,
  p: Float64Array,
  acc: Float64Array,
): void {
  wallDensityPass(
    r0,
    r1,
    W.slot,
    W.n,
    W.c,
    W.g,
    W.v,
    W.P,
    off,
    p,
    P[slot.W_D],
    P[slot.H],
    P[slot.W_RHO],
    P[slot.W_GRAD],
    P[slot.W_RHO0],
    acc,
  );
}

/** Slots [s0, s1) of slot pass `pass`, block b (runBlock, on the pool), with the block's wall records. */
function runSlotBlock(A: RowArrays, pass: number, b: number, s0: number, s1: number): void {
  const P = A.par;
  if (pass !== INIT_RECORDS) {
    const W = A.walls;
    slotRange(A, pass, s0, s1, W, W === undefined ? 0 : W.start[b], W === undefined ? 0 : W.start[b + 1]);
    return;
  }
  const w0 = initRecords(
    s1 - s0,
    P[slot.OFF] + s0,
    A.p,
    A.invMass,
    P[slot.MF],
    P[slot.SELF],
    A.acc.subarray(8 * s0),
  );
  let f = w0 === A.invMass[P[slot.OFF]] * P[slot.MF] ? 1 : 0;
  if (P[slot.SAME] !== 0 && samePositions(s0, s1, P[slot.OFF], A.p, A.searchP as Float64Array)) f |= 2;
  A.flags[b] = f;
}

/** `a` from element k on (the array itself from 0). */
function from<T extends Float64Array | Int32Array>(a: T, k: number): T {
  return (k === 0 ? a : a.subarray(k)) as T;
}

/**
 * Slot pass `pass` (not INIT_RECORDS) over slots [s0, s1) with the parameters
 * of `par`, and the wall records [r0, r1) of W that belong to those slots:
 * a row block's on the pool (runSlotBlock), every slot on the calling
 * thread (FluidRowBlocks.slotPass). Each slot on its own: any partition
 * gives the same numbers.
 */
export function slotRange(
  A: RowArrays,
  pass: number,
  s0: number,
  s1: number,
  W: WallArrays | null | undefined,
  r0: number,
  r1: number,
): void {
  const P = A.par;
  const m = s1 - s0,
    off = P[slot.OFF] + s0,
    acc = from(A.acc, 8 * s0);
  const walls = P[slot.WALLS] !== 0 && W != null;
  switch (pass) {
    case LAMBDA:
      // the wall part of the density of the slots first (their records)
      if (walls) wallDensityRecords(P, W, r0, r1, P[slot.OFF], A.p, A.acc);
      lambdaPass(
        m,
        off,
        A.invMass,
        P[slot.MF],
        P[slot.INVRHO0],
        P[slot.UNILATERAL] !== 0,
        P[slot.EPS],
        acc,
        from(A.rho, s0),
        P[slot.HAS_COUNTS] !== 0 ? from(A.counts, s0) : null,
        P[slot.FULL],
        P[slot.KEEP] !== 0,
        // the density pass's w̃ (params, this iteration's: NaN where not shared)
        P[slot.WU],
      );
      return;
    case APPLY_DELTAS:
      if (walls) wallCorrectionPass(r0, r1, W.slot, W.n, W.g, A.acc);
      applyDeltas(m, off, A.p, acc, from(A.lambda, s0), P[slot.KEEP] !== 0);
      return;
    case INIT_POST:
      initPostRecords(m, off, A.x, A.v, acc, from(A.post, 8 * s0));
      return;
    case VORTICITY_MAGNITUDES:
      vorticityMagnitudes(m, acc, from(A.post, 8 * s0));
      return;
    case VORTICITY_FORCE:
      vorticityForce(m, P[slot.K_VORT], acc, from(A.post, 8 * s0));
      return;
    case ADD_VELOCITIES:
      addVelocities(m, off, A.invMass, A.v, from(A.post, 8 * s0));
      return;
  }
}

/**
 * The 'fluid-rows' task (registry.ts): items [from, to) are the blocks
 * phase + colours · item of a pair pass, or blocks from … to − 1 of a slot pass.
 */
export function fluidRowsTask(A: RowArrays, from: number, to: number): void {
  const P = A.par;
  if (P[slot.PASS] >= GATHER) {
    for (let b = from; b < to; b++) reorderBlock(A, P[slot.PASS], b);
    return;
  }
  if (P[slot.PASS] >= WALL_COUNT) {
    for (let b = from; b < to; b++) wallSearchBlock(A.walls as WallArrays, A.p, P[slot.PASS], b);
    return;
  }
  if (P[slot.PASS] >= PAIR_ROWS) {
    const x = instanceOf(A);
    for (let b = from; b < to; b++) runPairBlock(x, P, A.pb, b);
    return;
  }
  if (P[slot.PASS] >= INIT_RECORDS) {
    for (let b = from; b < to; b++) runBlock(A, null, b);
    return;
  }
  const phase = P[slot.PHASE],
    colours = P[slot.COLOURS];
  if (phase < 0) {
    let x: FluidWasmExports | null = null;
    try {
      x = P[slot.WASM_ON] !== 0 && A.memory !== undefined ? instanceOf(A) : null;
    } catch (e) {
      // items that cannot start are done all the same, so that no thread waits for them forever
      for (let item = from; item < to; item++) markDone(A.done, item, P[slot.FUSED_EPOCH] | 0);
      throw e;
    }
    for (let item = from; item < to; item++) runFusedItem(A, x, item);
    return;
  }
  const x = P[slot.WASM_ON] !== 0 && A.memory !== undefined ? instanceOf(A) : null;
  for (let item = from; item < to; item++) runBlock(A, x, phase + colours * item);
}

/**
 * Item `item` of a chain of passes run as one job (FluidRowBlocks.chain: a
 * fused pair pass is a chain of one): its pass's block, once the earlier
 * items whose rows it reads or writes are done (src/core/block-order.ts);
 * marks itself done also when it threw (the error reaches the caller at the
 * job's end).
 */
function runFusedItem(A: RowArrays, x: FluidWasmExports | null, item: number): void {
  const F = A.fused;
  const at = A.par[slot.CHAIN_AT];
  const items = F[at];
  const epoch = A.par[slot.FUSED_EPOCH] | 0;
  const ds = at + 1 + items;
  const deps = at + 2 + 2 * items;
  for (let i = F[ds + item]; i < F[ds + item + 1]; i++) awaitBlock(A.done, F[deps + i], epoch);
  try {
    const code = F[at + 1 + item];
    const pass = code >> CHAIN_SHIFT,
      b = code & CHAIN_BLOCK;
    runBlock(A, x, b, pass);
  } finally {
    markDone(A.done, item, epoch);
  }
}

/** A chain table's item: pass << CHAIN_SHIFT | block. */
export const CHAIN_SHIFT = 8,
  CHAIN_BLOCK = 255;

/** runRowBlock's WebAssembly kernels: block b (rows a0 …, k0 = start[a0]) of pair pass `pass`. */
function rowBlockWasm(
  x: FluidWasmExports,
  P: Float64Array,
  k0: number,
  a0: number,
  b: number,
  rows: number,
  off: number,
  h: number,
  allInside: boolean,
  pass: number,
): void {
  const sorted = P[slot.AT_SORTED] + 4 * a0,
    start = P[slot.AT_START] + 4 * a0;
  const live = P[slot.AT_LIVE] + 4 * k0,
    liveStart = P[slot.AT_LIVESTART] + 4 * (a0 + b);
  // the pair buffer follows the rows walked: all of nbr (absolute) or this block's part of live
  const gBuf = P[slot.AT_GBUF],
    gLive = gBuf + 8 * k0;
  const nbr = P[slot.AT_NBR],
    acc = P[slot.AT_ACC];
  switch (pass) {
    case DENSITY:
      x.fluidDensityPass(
        rows,
        off,
        sorted,
        start,
        nbr,
        P[slot.WU],
        h,
        P[slot.WCOEF],
        P[slot.GCOEF],
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
        P[slot.NCORR],
        P[slot.QREST3],
        P[slot.INVQD3],
        P[slot.CORRSCALE],
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
        P[slot.CW],
        P[slot.GCOEF],
        P[slot.VORT] !== 0,
        P[slot.AT_POST],
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

/**
 * Block b of the reordering (Fluid.permute's x, p and v): GATHER copies the
 * x and v of the store index order[s] into slot s of scratch's two halves
 * (3 doubles a slot each) and its p straight into slot s of searchP (the
 * search's positions by slot, which nothing reads before PUT: session 25),
 * PUT copies each half's run of the block's slots to the range's x and v,
 * and searchP's to its p, as whole runs (session 24: a copy of runs instead
 * of one loop over nine streams). Blocks write disjoint slots.
 */
export function reorderBlock(A: RowArrays, pass: number, b: number): void {
  const P = A.par;
  const size = P[slot.R_SIZE],
    off = P[slot.R_OFF];
  const s0 = b * size,
    s1 = Math.min(P[slot.R_N], s0 + size);
  const order = A.order as Int32Array,
    sc = A.scratch as Float64Array;
  const { x, p, v } = A;
  const ids = A.ids as Int32Array,
    newIds = A.newIds as Int32Array;
  const sp = A.searchP as Float64Array;
  // the halves of scratch: x from 0, v from T
  const T = (sc.length / 2) | 0;
  if (pass === GATHER) {
    for (let s = s0; s < s1; s++) {
      const j = order[s],
        j3 = 3 * j,
        o = 3 * s;
      sc[o] = x[j3];
      sc[o + 1] = x[j3 + 1];
      sc[o + 2] = x[j3 + 2];
      sp[o] = p[j3];
      sp[o + 1] = p[j3 + 1];
      sp[o + 2] = p[j3 + 2];
      sc[T + o] = v[j3];
      sc[T + o + 1] = v[j3 + 1];
      sc[T + o + 2] = v[j3 + 2];
      newIds[s] = ids[j - off];
    }
    // Fluid.permute's uniformity checks on the block's slots (all equal to slot 0's: NaN never is)
    const m = A.mass as Float64Array,
      r = A.radius as Float64Array;
    (A.uniform as Int32Array)[b] = uniformBits(
      m,
      A.invMass,
      r,
      A.group as Int32Array,
      A.mask as Int32Array,
      off,
      s0,
      s1,
    );
    return;
  }
  const slotOf = A.slotOf as Int32Array;
  const a = 3 * s0,
    e = 3 * s1,
    i0 = 3 * (off + s0);
  x.set(sc.subarray(a, e), i0);
  p.set(sp.subarray(a, e), i0);
  v.set(sc.subarray(T + a, T + e), i0);
  for (let s = s0; s < s1; s++) {
    const id = newIds[s];
    ids[s] = id;
    slotOf[id] = s;
  }
  // the grid's order becomes the identity (the range is in cell order now), unless Fluid.permute still gathers by it
  if (P[slot.R_IDENTITY] !== 0) for (let s = s0; s < s1; s++) order[s] = off + s;
}

/** Bits of RowArrays.uniform: the store array is the same for every slot of the block as for slot 0. */
export const UNIFORM_MASS = 1,
  UNIFORM_INV_MASS = 2,
  UNIFORM_RADIUS = 4,
  UNIFORM_GROUP = 8,
  UNIFORM_MASK = 16,
  UNIFORM_ALL = 31;

/**
 * The UNIFORM_* bits of the store's per-particle constants over slots
 * [s0, s1) of the range from store index `off`: a bit where every slot's
 * value equals slot 0's (allEqual). Where all five are uniform (the usual
 * case) one walk over the five arrays, else each array by itself: the same
 * bits. Session 25: the five walks were ~1.4 ms a step of the reordering on
 * one thread at 128k (a compare and a branch a value), the one walk ~0.4.
 */
export function uniformBits(
  mass: Float64Array,
  invMass: Float64Array,
  radius: Float64Array,
  group: Int32Array,
  mask: Int32Array,
  off: number,
  s0: number,
  s1: number,
): number {
  const m0 = mass[off],
    w0 = invMass[off],
    r0 = radius[off],
    g0 = group[off],
    k0 = mask[off];
  const e = off + s1;
  let i = off + s0;
  while (
    i < e &&
    mass[i] === m0 &&
    invMass[i] === w0 &&
    radius[i] === r0 &&
    group[i] === g0 &&
    mask[i] === k0
  )
    i++;
  if (i === e) return UNIFORM_ALL;
  let u = 0;
  if (allEqual(mass, off, s0, s1)) u |= UNIFORM_MASS;
  if (allEqual(invMass, off, s0, s1)) u |= UNIFORM_INV_MASS;
  if (allEqual(radius, off, s0, s1)) u |= UNIFORM_RADIUS;
  if (allEqualInt(group, off, s0, s1)) u |= UNIFORM_GROUP;
  if (allEqualInt(mask, off, s0, s1)) u |= UNIFORM_MASK;
  return u;
}

/** True when a[off + s] === a[off] for s in [s0, s1) (false where a[off] is NaN). */
function allEqual(a: Float64Array, off: number, s0: number, s1: number): boolean {
  const v = a[off];
  for (let s = s0; s < s1; s++) if (a[off + s] !== v) return false;
  return true;
}

/** allEqual for Int32Arrays. */
function allEqualInt(a: Int32Array, off: number, s0: number, s1: number): boolean {
  const v = a[off];
  for (let s = s0; s < s1; s++) if (a[off + s] !== v) return false;
  return true;
}
