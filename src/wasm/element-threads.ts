/**
 * The element sets' WebAssembly kernels on a threaded world's worker pool
 * (docs/solver.md, "Threads"): a set's paired copy (paired.ts) lives on a
 * shared memory, every thread instantiates the elements module on that
 * memory (its import rewritten as shared: kernels.ts sharedKernel), and a
 * sweep runs as data-parallel tasks (StepContext.tasks): the particle
 * window copied in by blocks of particles, each colour's groups (pairs of
 * f64x2, quads of the f32 mode's f32x4) by blocks claimed by whichever
 * thread is free, the window copied out by blocks. The constraints of a
 * colour share no particle, so a block's result does not depend on which
 * thread runs it or when (000 §3.8, parallelisation by graph colouring),
 * and each block runs the very code of the one-thread sweep on its groups:
 * the bits are those of one thread. The f32 mode gathers a block's
 * particles into its own part of the colour's scratch (64 · arity bytes per
 * quad, at the block's first quad). Constraints a kernel defers (off its
 * closed-form path) are listed by each block at its first group's slot of
 * the list and projected on the calling thread after the colour, with the
 * set's JavaScript kernel, as the one-thread sweep does.
 */

import { awaitBlock, claimBlock, markDone, nextEpoch, threadIndex } from '../core/block-order.js';
import { nextProjection } from '../core/particle-tasks.js';
import type { ParticleStore } from '../core/particles.js';
import { MAX_BLOCKS, type SharedTask, type TaskRunner } from '../core/step-context.js';
import { type BulkOps, bulkOn } from '../core/store-memory.js';
import type { ElementArgs } from './element-args.js';
import {
  ELEMENT_IMPORTS,
  type ElementExports,
  elementBlock,
  elementBlockF32,
} from './element-kernels.generated.js';
import { idsInLaneOrder, zeroLaneRange } from './element-lambda.js';
import {
  awaitTimed,
  FUSED_COLOUR,
  FUSED_COLOUR2,
  FUSED_LOAD,
  fusedStats,
  isShared,
  type JointArgs,
  partTable,
  readyBlock,
  sharedF64,
  sharedI32,
  sharedTable,
  timedBlock,
  timedStart,
} from './element-order.js';
import { blockedJointArgs, fusedTables } from './element-threads-small.js';

export { partTable };

import {
  type DeferringSet,
  loadAos4,
  type PairedCopy,
  type ParticleWindow,
  saveAos4,
  type ThreadedSweeps,
} from './paired.js';
import {
  armPredictInLoad,
  armSweepPass,
  PASS_PARAMS,
  passViews,
  predictBlock,
  sweepPassBlock,
  sweepPassDone,
  UPDATE_PREDICT,
} from './window-pass-threads.js';
import { DeferredPrediction, MAX_PLACES, PAR_SLOTS, PREDICT } from './window-predict.js';

/** Slots of the shared parameter block. */
const OP = 0;
const KERNEL = 1;
const FIRST = 2;
/** The fused sweep's number (its blocks mark themselves done with it). */
const EPOCH = 3;
/** 1: the fused sweep's colour blocks zero their constraints' multipliers first (λ⁰ = 0, 001 Eq. 17). */
const ZERO = 4;
/** 1: the fused sweep's job has one item per part (`parts`), each thread running its own part first; 0: one item per block. */
const PARTED = 5;
/** 1: the sweep's window copy in (NO_LOAD) or out (NO_SAVE) is skipped: the window is held (ParticleStore.held). */
const NO_LOAD = 6;
const NO_SAVE = 7;
/**
 * The particle pass of the fused sweep's copy-out blocks (window-pass-threads.ts: 1 the velocity
 * update after the copy out, 2 the fused update and prediction on the held window; parameters in
 * ElementArgs.pass); each block's counts at 2·block of `counts`.
 */
const UPDATE = 8;
/**
 * A joint sweep (session 16, pool21: this set's sweep and the next one's of another set on the same
 * window in one job, ElementArgs.join): 1 both forward, 2 both backward, 0 none; the second set's
 * kernel (KERNEL2) and λ⁰ = 0 flag (ZERO2).
 */
const JOINED = 11;
const KERNEL2 = 12;
const ZERO2 = 13;
/** 1: the fused sweep's blocks time themselves into `stats` (session 17, thr22: bench/thread-profile.ts). */
const TIMING = 14;

/** OP: copy the window in, project a colour's groups, copy the window out; the whole sweep in one job (FIRST: 1 backward). */
const LOAD = 0;
const COLOUR = 1;
const SAVE = 2;
const FUSED = 3;

/** Groups per block aimed at, particles per block of the window copies. */
const GROUPS_PER_BLOCK = 256;
const PARTICLES_PER_BLOCK = 4096;
/** Colours with fewer groups run on the calling thread alone. */
const MIN_POOL_GROUPS = 64;

interface ThreadInstance {
  ex: ElementExports;
  P: Float64Array | Float32Array;
  W: Float64Array | Float32Array;
  /** aos4: the staging views (loadAos4, saveAos4). */
  S: Float64Array;
  SW: Float64Array;
  /** The groups' constraint ids and the multipliers (f64 by id, lam[count] the padding lanes' spare; f32x4 kernels: f32 in lane order, paired.ts). */
  EL: Int32Array;
  LAM: Float64Array | Float32Array;
  /** wasm's memory.fill on the set's memory, for λ⁰ = 0 (a typed array's fill on shared memory is 4–10× slower: store-memory.ts). */
  bulk: BulkOps | null;
}

/** Each thread's instance of the module on a set's memory, by task arguments. */
const instances = new WeakMap<object, ThreadInstance>();

function instanceOf(A: ElementArgs, ex: ElementExports | null): ThreadInstance {
  let t = instances.get(A);
  if (t === undefined) {
    if (ex === null) {
      const inst = new WebAssembly.Instance(A.module, {
        env: {
          memory: A.memory,
          ...ELEMENT_IMPORTS,
          abort() {
            throw new Error('WebAssembly kernel elements aborted');
          },
        },
      });
      ex = inst.exports as unknown as ElementExports;
    }
    const buf = A.memory.buffer;
    const n = A.range + 1;
    const none = new Float64Array(0);
    const EL = new Int32Array(buf, A.el, A.lanes * A.pairs);
    const LAM =
      A.lanes === 4
        ? new Float32Array(buf, A.lam, A.lanes * A.pairs)
        : new Float64Array(buf, A.lam, A.count + 1);
    const views =
      A.aos4 !== 0
        ? {
            ex,
            P: new Float32Array(buf, A.pAt, 4 * n),
            W: new Float32Array(0),
            S: new Float64Array(buf, A.stageAt, 3 * A.range),
            SW: new Float64Array(buf, A.stageWAt, A.range),
          }
        : A.f32 !== 0
          ? {
              ex,
              P: new Float32Array(buf, A.pAt, 3 * n),
              W: new Float32Array(buf, A.wAt, n),
              S: none,
              SW: none,
            }
          : {
              ex,
              P: new Float64Array(buf, A.pAt, 3 * n),
              W: new Float64Array(buf, A.wAt, n),
              S: none,
              SW: none,
            };
    t = { ...views, EL, LAM, bulk: bulkOn(A.memory) };
    instances.set(A, t);
  }
  return t;
}

/**
 * Block `block` = items [from, to) of the job in `par` (the 'element-wasm'
 * task, src/parallel/registry.ts): particles of the window for LOAD and
 * SAVE, groups of the colour that starts at group FIRST for COLOUR.
 */
export function elementWasmTask(A: ElementArgs, from: number, to: number, block: number): number {
  let t: ThreadInstance;
  try {
    t = instanceOf(A, null);
  } catch (e) {
    // a fused block that cannot start is done all the same, so that no thread waits for it forever
    // (run in parts, this thread claimed no block: the others run them all)
    if (A.par[OP] === FUSED && A.par[PARTED] === 0) markDone(A.done, block, A.par[EPOCH] | 0);
    throw e;
  }
  return runElementBlock(A, t, from, to, block);
}

/** Runs block `block` of the job in par (a thread's share where a fused sweep runs in parts); returns the blocks it ran. */
function runElementBlock(A: ElementArgs, t: ThreadInstance, from: number, to: number, block: number): number {
  if (A.par[OP] !== FUSED) runOp(A, t, A.par[OP], from, to, block);
  else if (A.par[PARTED] !== 0) return runParts(A, t);
  else runFused(A, t, block);
  return 1;
}

/**
 * One thread's share of a fused sweep run in parts: the blocks of its own
 * part (threadIndex mod parts) in serial order, then every block no thread
 * has claimed yet, in serial order (a late or descheduled thread's part is
 * done by the others). A block's dependencies that no thread has claimed are
 * run first by the thread that needs them (runFused), so no thread ever
 * waits for a block that nobody runs: a thread waits only on a block another
 * thread is running, and that thread waits only on blocks earlier than it.
 */
function runParts(A: ElementArgs, t: ThreadInstance): number {
  const back = A.par[FIRST] === 1;
  const J = A.par[JOINED] !== 0 ? A.join : null;
  const T = J !== null ? (A.par[JOINED] === 2 ? J.back : J.fwd) : back ? A.fusedBack : A.fused;
  const Q = J !== null ? (A.par[JOINED] === 2 ? J.partsBack : J.parts) : back ? A.partsBack : A.parts;
  const claim = J !== null ? J.claim : A.claim;
  const epoch = A.par[EPOCH] | 0;
  const own = threadIndex() % Q[0];
  let ran = 0;
  for (let i = Q[1 + own]; i < Q[2 + own]; i++) {
    const k = Q[i];
    if (claimBlock(claim, k, epoch)) ran += runFused(A, t, k);
  }
  const nb = T[0];
  for (let k = 0; k < nb; k++) if (claimBlock(claim, k, epoch)) ran += runFused(A, t, k);
  return ran;
}

/**
 * Block k of a fused sweep (element-order.ts): waits until the earlier
 * blocks that touch its particles are done in this sweep, runs its op, and
 * marks itself done (also when it threw: the error reaches the caller at
 * the job's end, and no thread waits forever). Returns the blocks it ran
 * (with the unclaimed dependencies it ran first, in parts).
 */
function runFused(A: ElementArgs, t: ThreadInstance, k: number): number {
  const J = A.par[JOINED] !== 0 ? A.join : null;
  const T = J !== null ? (A.par[JOINED] === 2 ? J.back : J.fwd) : A.par[FIRST] === 1 ? A.fusedBack : A.fused;
  const done = J !== null ? J.done : A.done;
  const claim = J !== null ? J.claim : A.claim;
  const epoch = A.par[EPOCH] | 0;
  const nb = T[0];
  const d0 = 2 + 5 * nb + T[1 + 4 * nb + k],
    d1 = 2 + 5 * nb + T[2 + 4 * nb + k];
  let ran = 1;
  const S = A.par[TIMING] !== 0 ? A.stats : null;
  try {
    if (A.par[PARTED] === 0) for (let i = d0; i < d1; i++) awaitBlock(done, T[i], epoch);
    else {
      // a dependency no thread has claimed is run here first (runParts); one that throws leaves this
      // block done all the same (finally), so that no thread waits for it
      for (let i = d0; i < d1; i++) {
        const d = T[i];
        if (Atomics.load(done, d) === epoch) continue;
        if (claimBlock(claim, d, epoch)) ran += runFused(A, t, d);
        else {
          // d runs on another thread: run blocks whose dependencies are all done first (session 19,
          // thr26: a bounded look-ahead, any thread's part), then wait only if d is still running
          for (let r = readyBlock(T, done, claim, epoch); r >= 0; r = readyBlock(T, done, claim, epoch)) {
            ran += runFused(A, t, r);
            if (Atomics.load(done, d) === epoch) break;
          }
          if (Atomics.load(done, d) !== epoch) awaitTimed(done, d, epoch, S);
        }
      }
    }
    const op = T[1 + k];
    const from = T[1 + nb + k],
      to = T[1 + 2 * nb + k];
    const t0 = S !== null ? timedStart(S) : 0;
    if (op === FUSED_COLOUR2) {
      // a block of the joint sweep's second set: its own arguments, instance and kernel on the same window
      colourBlock(
        J!.next,
        instanceOf(J!.next, null),
        A.par[KERNEL2],
        A.par[ZERO2] !== 0,
        from,
        to,
        T[1 + 3 * nb + k],
      );
    } else if (op === FUSED_COLOUR) {
      colourBlock(A, t, A.par[KERNEL], A.par[ZERO] !== 0, from, to, T[1 + 3 * nb + k]);
    } else if (op === FUSED_LOAD && A.par[PREDICT] !== 0) {
      // the substep's prediction into the held window, its particles' first reader after it (window-predict.ts)
      predictBlock(A, t.ex, t.P, from, to);
    } else if (op !== FUSED_LOAD && A.par[UPDATE] === UPDATE_PREDICT) {
      // the held window's particles updated and predicted by the module, their last projection done
      sweepPassBlock(A, from, to, t, k, J !== null ? J.counts : A.counts);
    } else if (op === FUSED_LOAD ? A.par[NO_LOAD] === 0 : A.par[NO_SAVE] === 0) {
      // a held window's copy is skipped (the block stays in the table: the dependencies are the same)
      runOp(A, t, op === FUSED_LOAD ? LOAD : SAVE, from, to, k);
      // lines 12–15 on the particles just copied out, their last projection of the substep done
      if (op !== FUSED_LOAD && A.par[UPDATE] !== 0)
        sweepPassBlock(A, from, to, t, k, J !== null ? J.counts : A.counts);
    }
    if (S !== null) timedBlock(S, op === FUSED_COLOUR ? 0 : op === FUSED_COLOUR2 ? 1 : 2, t0, to - from);
  } finally {
    markDone(done, k, epoch);
  }
  return ran;
}

/** Groups [from, to) of a fused sweep's colour that starts at group `first`, with kernel `kernel` (zero: λ⁰ = 0 first). */
function colourBlock(
  A: ElementArgs,
  t: ThreadInstance,
  kernel: number,
  zero: boolean,
  from: number,
  to: number,
  first: number,
): void {
  if (zero) {
    // λ⁰ = 0 (001 Eq. 17) for the block's constraints, right before their first projection of the substep
    const EL = t.EL,
      LAM = t.LAM,
      L = A.lanes;
    if (L === 4) {
      if (t.bulk !== null) t.bulk.fill(LAM.byteOffset + 16 * from, 16 * (to - from));
      else LAM.fill(0, 4 * from, 4 * to);
    } else if (A.idRuns !== 0) zeroLaneRange(EL, LAM as Float64Array, A.count, L * from, L * to, t.bulk);
    else for (let i = L * from; i < L * to; i++) LAM[EL[i]] = 0;
  }
  if (A.f32 !== 0) {
    // the block's gathered quads at its place in its colour's scratch (element-order.ts orders the places)
    const at = A.blk + 64 * A.arity * (from - first);
    elementBlockF32(t.ex, kernel, from, to, A, A.pAt, A.wAt, at, A.uniforms);
  } else elementBlock(t.ex, kernel, from, to, A, A.pAt, A.wAt, A.slow + 4 * A.lanes * from, A.uniforms);
}

function runOp(A: ElementArgs, t: ThreadInstance, op: number, from: number, to: number, block: number): void {
  const par = A.par;
  if (op === LOAD || op === SAVE) Atomics.add(A.moved, op === LOAD ? 0 : 1, to - from);
  if (op === LOAD && A.aos4 !== 0) loadAos4(t.ex, A, t.S, t.SW, A.p, A.w, from, to);
  else if (op === SAVE && A.aos4 !== 0) saveAos4(t.ex, A, t.S, A.p, from, to);
  else if ((op === LOAD || op === SAVE) && A.homed !== 0 && A.f32 === 0 && t.bulk !== null) {
    // an f64 window and a homed store: wasm's memory.copy (a typed array's set on a shared memory
    // copies word by word, 4–10× slower: store-memory.ts), the same values
    const b = A.base,
      n = to - from;
    if (op === LOAD) {
      t.bulk.copy(t.P.byteOffset + 24 * from, A.p.byteOffset + 24 * (b + from), 24 * n);
      t.bulk.copy(t.W.byteOffset + 8 * from, A.w.byteOffset + 8 * (b + from), 8 * n);
    } else t.bulk.copy(A.p.byteOffset + 24 * (b + from), t.P.byteOffset + 24 * from, 24 * n);
  } else if (op === LOAD) {
    const b = A.base;
    t.P.set(A.p.subarray(3 * (b + from), 3 * (b + to)), 3 * from);
    t.W.set(A.w.subarray(b + from, b + to), from);
  } else if (op === SAVE) {
    A.p.set(t.P.subarray(3 * from, 3 * to), 3 * (A.base + from));
  } else {
    const j0 = par[FIRST] + from,
      j1 = par[FIRST] + to;
    if (A.f32 !== 0) {
      elementBlockF32(t.ex, par[KERNEL], j0, j1, A, A.pAt, A.wAt, A.blk + 64 * A.arity * from, A.uniforms);
      A.listed[block] = 0;
    } else {
      A.listed[block] = elementBlock(
        t.ex,
        par[KERNEL],
        j0,
        j1,
        A,
        A.pAt,
        A.wAt,
        A.slow + 4 * A.lanes * j0,
        A.uniforms,
      );
    }
  }
}

/**
 * Runs a set's sweeps on a pool (see the module's comment): those of the
 * paired copy last bound (`bind`), which must be on a shared memory.
 */
export class ElementThreads implements ThreadedSweeps {
  readonly uniforms = sharedF64(32);
  private readonly task: SharedTask = { kind: 'element-wasm', args: {}, version: 0 };
  private k: PairedCopy<ElementExports> | null = null;
  private own: ThreadInstance | null = null;
  runner: TaskRunner;
  /** The fused sweeps' number (EPOCH). */
  private epoch = 0;
  /**
   * Whether f64 sweeps run as one job each (element-order.ts) rather than
   * one job per colour; read when a copy is bound. The bits are the same.
   */
  static fused = true;
  /**
   * Whether a fused sweep's job gives each thread its own part of every
   * colour first (partTable, runParts) rather than every block to whichever
   * thread claims the next one; the bits are the same.
   */
  static parts = true;
  /**
   * A large window's colour blocks per thread and colour (session 23, bk30, issue 20: a colour of
   * n groups in blocks of max(GROUPS_PER_BLOCK, ⌈n / (threads · blocksPerThread)⌉) groups;
   * element-threads-small.ts sweepBlockSizes); 0: GROUPS_PER_BLOCK alone. Read when a copy is
   * bound; the bits are the same. 0 by default: on the quiet 2-core machine (the lead, session 23,
   * docs/solver.md "bk30") 2 read 2-10 % slower on two threads in every cloth-201 case; kept as the
   * option to measure where many threads make each block's claim and waits dearer.
   */
  static blocksPerThread = 0;
  /** Whether the fused sweeps' blocks time themselves into fusedStats (bench/thread-profile.ts; a little slower). */
  static timing = false;
  /** The next sweep zeroes the multipliers first (ElementConstraints.beginStep deferred λ⁰ = 0 to it). */
  zeroFirst = false;

  /** Whether `k`'s sweeps run as one job, so that its blocks can zero the multipliers (no job of its own). */
  zeroesInSweep(k: PairedCopy<ElementExports> | null): boolean {
    return (
      k !== null &&
      k === this.k &&
      k.threads === this &&
      (this.task.args as unknown as ElementArgs).fused.length > 0
    );
  }

  /** `owner`: the set whose sweeps these are (the projection stage names the next projection's set: nextProjection). */
  constructor(runner: TaskRunner, owner: object | null = null) {
    this.runner = runner;
    if (owner !== null) ElementThreads.byOwner.set(owner, this);
  }

  /** Each set's sweeps on the pool (constructor's owner). */
  private static readonly byOwner = new WeakMap<object, ElementThreads>();
  /**
   * Whether a sweep followed by the next set's on the same window runs with it as one job (session
   * 16, pool21: jointSweepTable); the bits are the same.
   */
  static joint = true;
  /** A sweep deferred to join the next one (at most one in the process: the next sweep, save or load on a held window runs it). */
  private static pending: ElementThreads | null = null;
  /** The deferred sweep: kernel, backward, λ⁰ = 0 first, window copy in (pendLoad), and its store. */
  private readonly pend = new Int32Array(4);
  private pendStore: ParticleStore | null = null;
  /** Joint sweeps run (the tests count them). */
  joinedSweeps = 0;

  /** Runs a deferred sweep now, alone (before anything else reads or writes its window). */
  static runPending(): void {
    const q = ElementThreads.pending;
    if (q === null) return;
    ElementThreads.pending = null;
    q.runDeferred();
  }

  /** A held window's serial load (ParticleWindow.load): a deferred sweep runs first. */
  settlePending(): void {
    ElementThreads.runPending();
  }

  private runDeferred(): void {
    const store = this.pendStore!;
    this.pendStore = null;
    const q = this.pend;
    this.fusedJob(
      this.task.args as unknown as ElementArgs,
      store,
      q[0],
      q[1] === 1,
      q[2] === 1,
      q[3] === 1,
      false,
      null,
    );
  }

  /**
   * Runs the sweeps of `k` from now on (a set's new copy after its arrays
   * changed, or its precision): new arguments for the same task, so the
   * workers replace the old copy's (and let its memory go) at the next step.
   */
  bind(k: PairedCopy<ElementExports>): void {
    this.k = k;
    k.threads = this;
    const a = k.addr,
      win = k.win;
    const args: ElementArgs = {
      module: k.module,
      memory: k.memory,
      par: sharedF64(PAR_SLOTS),
      fused: sharedI32(0),
      fusedBack: sharedI32(0),
      done: sharedI32(MAX_BLOCKS),
      claim: sharedI32(MAX_BLOCKS),
      parts: sharedI32(0),
      partsBack: sharedI32(0),
      uniforms: this.uniforms,
      listed: new Int32Array(new SharedArrayBuffer(4 * MAX_BLOCKS)),
      moved: sharedI32(2),
      p: new Float64Array(0),
      w: new Float64Array(0),
      x: new Float64Array(0),
      v: new Float64Array(0),
      counts: sharedI32(2 * MAX_BLOCKS),
      pass: sharedF64(PASS_PARAMS),
      places: sharedF64(4 * MAX_PLACES),
      velAt: win.velAt,
      countAt: win.countAt,
      ...passViews(k.memory, win),
      join: null,
      stats: fusedStats(),
      idx: a.idx,
      rec: a.rec,
      el: a.el,
      scalar: a.scalar,
      lam: a.lam,
      slow: a.slow,
      blk: a.blk,
      pAt: win.pAt,
      wAt: win.wAt,
      aos4: win.aos4 ? 1 : 0,
      stageAt: win.stageAt,
      stageWAt: win.stageWAt,
      base: win.base,
      range: win.range,
      count: k.plan.count,
      pairs: k.plan.pairs,
      lanes: k.plan.lanes,
      arity: k.plan.arity,
      f32: win.f32 ? 1 : 0,
      idRuns: k.plan.lanes !== 4 && idsInLaneOrder(k.el, k.plan.count) ? 1 : 0,
      homed: 0,
    };
    if (ElementThreads.fused) {
      // the sweep as one job (element-order.ts); the f32 blocks' places in their colour's scratch are
      // ordered too; a small window's block sizes: element-threads-small.ts
      const [fwd, back] = fusedTables(
        k,
        this.runner.threads,
        PARTICLES_PER_BLOCK,
        GROUPS_PER_BLOCK,
        ElementThreads.blocksPerThread,
      );
      args.fused = sharedTable(fwd);
      args.fusedBack = sharedTable(back);
      if (args.fused.length > 0) {
        const parts = Math.max(1, this.runner.threads);
        args.parts = sharedTable(partTable(args.fused, parts));
        args.partsBack = sharedTable(partTable(args.fusedBack, parts));
      }
    }
    this.task.args = args as unknown as Record<string, unknown>;
    this.task.version++;
    this.own = instanceOf(args, k.ex);
    // a held window (ParticleStore.held) is copied out by blocks on the pool too (saveWindow)
    win.pool = this;
  }

  /** Whether `win`'s sweeps may take its substep's prediction in their copy-in blocks (window-predict.ts). */
  predictsInLoad(win: ParticleWindow): boolean {
    return DeferredPrediction.on && this.k !== null && this.k.win === win && this.k.threads === this;
  }

  /** Copies the window out to the store by blocks on the pool (ParticleWindow.flush of a held window); false where it cannot. */
  saveWindow(store: ParticleStore, win: ParticleWindow): boolean {
    ElementThreads.runPending();
    const A = this.task.args as unknown as ElementArgs;
    // (the copy bound now must be on that window: a retired copy's window is copied out here)
    if (this.k === null || this.k.win !== win || A.p !== store.p) return false;
    A.par[OP] = SAVE;
    this.job(this.k.win.range, PARTICLES_PER_BLOCK, 0);
    return true;
  }

  /**
   * Runs items [0, n) of the job in par on the pool, or here when the pool
   * cannot (or n is small); returns the block length (StepContext.tasks'
   * blocks: block b is items [b·size, min(n, (b + 1)·size))).
   */
  private job(n: number, per: number, min: number): number {
    const blocks = Math.min(MAX_BLOCKS, Math.ceil(n / per));
    if (n >= min && blocks > 1 && this.runner.runTask(this.task, n, blocks)) return Math.ceil(n / blocks);
    runElementBlock(this.task.args as unknown as ElementArgs, this.own!, 0, n, 0);
    return n;
  }

  /**
   * Whether this fused sweep (holding its window: the next projection goes through a window too)
   * defers to the next projection's: that of another set on this window, on this pool, in the same
   * direction, whose sweep runs both as one job (joins).
   */
  private defers(A: ElementArgs, store: ParticleStore, reverse: boolean): boolean {
    if (!ElementThreads.joint || A.parts[0] < 2 || !ElementThreads.parts) return false;
    const next = nextProjection(store);
    if (next.set === null || next.reverse !== reverse) return false;
    const q = ElementThreads.byOwner.get(next.set);
    if (q === undefined || q === this || q.runner !== this.runner || q.k === null || q.k.threads !== q)
      return false;
    return q.k.win === this.k!.win && this.jointWith(q) !== null;
  }

  /** Whether this sweep (fused: set null, its precision that of the copy) runs `pend`'s deferred one with it. */
  private joins(
    q: ElementThreads,
    A: ElementArgs,
    store: ParticleStore,
    reverse: boolean,
    f32: boolean,
  ): boolean {
    // (q's sweep found the store's arrays shared; the window the same: the same memory)
    if (q === this || q.pendStore !== store || q.pend[1] !== (reverse ? 1 : 0) || q.runner !== this.runner)
      return false;
    if (this.k === null || q.k === null || q.k.win !== this.k.win || f32 !== (A.f32 !== 0)) return false;
    return (reverse ? A.fusedBack : A.fused).length > 0 && q.jointWith(this) !== null;
  }

  /** The joint tables of this set's sweep then `q`'s (built when first needed, and after either copy changes), or null where they do not fit. */
  private jointWith(q: ElementThreads): JointArgs<ElementArgs> | null {
    const A = this.task.args as unknown as ElementArgs;
    const B = q.task.args as unknown as ElementArgs;
    if (A.join !== null && A.join.next === B) return A.join;
    if (this.jointFailed === B) return null;
    const join = blockedJointArgs(
      this.k!,
      q.k!,
      B,
      this.runner.threads,
      PARTICLES_PER_BLOCK,
      GROUPS_PER_BLOCK,
      ElementThreads.blocksPerThread,
    );
    if (join === null) {
      this.jointFailed = B;
      return null;
    }
    A.join = join;
    this.task.version++;
    return A.join;
  }

  private jointFailed: object | null = null;

  /**
   * The sweep as one job (element-order.ts), each block waiting only for the blocks it depends on;
   * with `second`, this set's deferred sweep then second's, on this set's arguments (A.join).
   */
  private fusedJob(
    A: ElementArgs,
    store: ParticleStore,
    id: number,
    reverse: boolean,
    zero: boolean,
    load: boolean,
    save: boolean,
    second: ElementThreads | null,
  ): void {
    const k = this.k!;
    const par = A.par;
    const range = k.win.range;
    const J = second !== null ? A.join! : null;
    const table = J !== null ? (reverse ? J.back : J.fwd) : reverse ? A.fusedBack : A.fused;
    par[ZERO] = zero ? 1 : 0;
    par[NO_LOAD] = load ? 0 : 1;
    par[NO_SAVE] = save ? 0 : 1;
    par[OP] = FUSED;
    par[KERNEL] = id;
    par[FIRST] = reverse ? 1 : 0;
    par[JOINED] = J === null ? 0 : reverse ? 2 : 1;
    this.epoch = nextEpoch(this.epoch);
    par[EPOCH] = this.epoch;
    const nb = table[0];
    const parts = J !== null ? J.parts[0] : ElementThreads.parts ? A.parts[0] : 0;
    par[PARTED] = parts > 1 ? 1 : 0;
    par[TIMING] = ElementThreads.timing ? 1 : 0;
    // the velocity update (and the next prediction) in the copy-out blocks where the projection
    // stage handed it over (window-pass-threads.ts)
    const update = armSweepPass(this.task, A, store, k.win, save, nb, this.own!.ex);
    par[UPDATE] = update;
    // the substep's prediction in the copy-in blocks where the prediction stage left it (window-predict.ts)
    par[PREDICT] = armPredictInLoad(A, k.win, load, this.own!.ex);
    const items = parts > 1 ? parts : nb;
    if (!this.runner.runTask(this.task, items, items)) {
      const own = this.own!;
      for (let b = 0; b < nb; b++) runFused(A, own, b);
    }
    // the copy-out blocks' counts, added up in block order
    if (update !== 0)
      sweepPassDone(store, update, table, J !== null ? J.counts : A.counts, k.win.base, range);
    if (second !== null) second.joinedSweeps++;
  }

  sweep(id: number, store: ParticleStore, reverse: boolean, f32: boolean, set: DeferringSet | null): boolean {
    const A = this.task.args as unknown as ElementArgs;
    // a sweep deferred to join this one (another set's on this window): joined below, else run first
    const pend = ElementThreads.pending;
    ElementThreads.pending = null;
    const joined = pend !== null && set === null && this.joins(pend, A, store, reverse, f32) ? pend : null;
    if (pend !== null && joined === null) pend.runDeferred();
    // a pending λ⁰ = 0 (zeroFirst): in the fused sweep's blocks, else whole here first
    const zero = this.zeroFirst;
    this.zeroFirst = false;
    if (A.p !== store.p || A.w !== store.invMass) {
      if (!isShared(store.p) || !isShared(store.invMass)) {
        if (zero) this.own!.LAM.fill(0);
        return false;
      }
      A.p = store.p;
      A.w = store.invMass;
      // the store's p and invMass on the set's memory (homed): an f64 window's copies by memory.copy
      const m = store.memory;
      A.homed = m !== null && m.memory === A.memory && m.owns(A.p.buffer) && m.owns(A.w.buffer) ? 1 : 0;
      this.task.version++;
    }
    const k = this.k!;
    const par = A.par;
    const range = k.win.range;
    // the window held between sweeps (src/core/stages.ts, ParticleStore.held): this sweep copies in
    // unless it is the held one (another held window is copied out first), and copies out unless
    // the store is holding (the next projection goes through a window too); the skipped copies
    // would move the values the window already has (f32: widened exactly, rounded back exactly)
    if (store.held !== null && store.held !== k.win) store.settle();
    const load = store.held !== k.win;
    const save = !store.holding;
    store.held = save ? null : k.win;
    const table = reverse ? A.fusedBack : A.fused;
    if (set === null && f32 === (A.f32 !== 0) && table.length > 0) {
      if (joined !== null) {
        // the deferred sweep and this one as one job, on the deferred set's arguments (its window copy in)
        const J = joined.task.args as unknown as ElementArgs;
        J.par[KERNEL2] = id;
        J.par[ZERO2] = zero ? 1 : 0;
        const q = joined.pend;
        joined.fusedJob(J, store, q[0], reverse, q[2] === 1, q[3] === 1, save, this);
        joined.pendStore = null;
        return true;
      }
      if (!save && this.defers(A, store, reverse)) {
        // the next projection is another set's sweep on this window: it runs this one with its own
        this.pend.set([id, reverse ? 1 : 0, zero ? 1 : 0, load ? 1 : 0]);
        this.pendStore = store;
        ElementThreads.pending = this;
        return true;
      }
      this.fusedJob(A, store, id, reverse, zero, load, save, null);
      return true;
    }
    if (zero) this.own!.LAM.fill(0);
    k.win.settlePrediction();
    // a job the pool cannot take (the first of a new version only queues the arguments) runs here
    if (load) {
      par[OP] = LOAD;
      this.job(range, PARTICLES_PER_BLOCK, 0);
    }
    par[KERNEL] = id;
    const cp = k.plan.colorPairs;
    const colours = cp.length - 1;
    const L = k.plan.lanes;
    for (let s = 0; s < colours; s++) {
      const c = reverse ? colours - 1 - s : s;
      const n = cp[c + 1] - cp[c];
      if (n === 0) continue;
      par[OP] = COLOUR;
      par[FIRST] = cp[c];
      const size = this.job(n, GROUPS_PER_BLOCK, f32 ? MIN_POOL_GROUPS / 2 : MIN_POOL_GROUPS);
      if (set === null) continue;
      // the listed constraints (off the closed-form path) right after their colour, in JavaScript
      for (let b = 0; b * size < n; b++) {
        const listed = A.listed[b];
        if (listed === 0) continue;
        const at = L * (cp[c] + b * size);
        set.kernel(k.win.P, store.x, k.win.W, k.win.base, k.slowAll, at, at + listed, false);
        k.deferred += listed;
      }
    }
    if (save) {
      par[OP] = SAVE;
      this.job(range, PARTICLES_PER_BLOCK, 0);
    }
    return true;
  }
}
