/**
 * The particle passes of a substep — the prediction (003 Algorithm 1,
 * lines 5–7), the velocity update (lines 12–15) and the multipliers' reset
 * of XPBD (line 8; 001 Eq. 17: λ⁰ = 0) — as loops over a range of
 * particles (or multipliers), and their data-parallel tasks on a threaded
 * world's worker pool (StepContext.tasks, docs/solver.md "Threads").
 *
 * Each item is computed on its own from its own inputs, so cutting the
 * items into blocks and running the blocks on any thread in any order gives
 * the one-thread bits; the blocks are a function of the item count alone
 * (PARTICLES_PER_BLOCK). The update's counts (recoveries, speed clamps) are
 * written per block and added up in block order on the calling thread.
 */
import { claimBlock, nextEpoch, partFrom, threadIndex } from './block-order.js';
import { predictRange, updateRange } from './particle-passes.generated.js';
import type { ParticleStore } from './particles.js';
import { MAX_BLOCKS, type SharedTask, type StepContext, type TaskRunner } from './step-context.js';
import { zeroFill } from './store-memory.js';

/** Items per block of the particle tasks. */
export const PARTICLES_PER_BLOCK = 4096;
/**
 * Fewer items than this run on the calling thread: a job's barrier, and the
 * particles moving between the cores' caches, cost more than the pass (the
 * threshold of the element sets, ElementConstraints.poolMinConstraints, for
 * the same reason), and a world whose sets stay off the pool is not woken
 * for its particle passes alone.
 */
export const POOL_MIN_PARTICLES = 16_384;

/** Blocks for n items: a function of n alone. */
export function particleBlocks(n: number): number {
  return Math.min(MAX_BLOCKS, Math.ceil(n / PARTICLES_PER_BLOCK));
}

/**
 * The blocks a job of n items asked in `blocks` blocks really has (the pool
 * cuts blocks of ⌈n / blocks⌉ items, so there may be fewer): the per-block
 * outputs to join are those of blocks [0, this).
 */
export function blocksRun(n: number, blocks: number): number {
  return Math.ceil(n / Math.ceil(n / blocks));
}

// predictRange (lines 5–7) and updateRange (lines 12–15) are printed with the fused window pass and
// the WebAssembly passes from one definition, scripts/kernels/emit-particle-passes.ts
export { predictRange, updateRange };

/**
 * The velocity update handed to the substep's last sweep (session 16,
 * docs/solver.md "Threads"): where the projection stage's last projection
 * is a pooled element sweep that copies its window out, and the velocity
 * stage comes right after the projection stage, that sweep's copy-out
 * blocks run lines 12–15 (updateRange) on their particles right after
 * copying them out, so the update costs no job of its own and reads p while
 * it is in the core's cache. Each particle is updated from its own state
 * alone, after its last projection of the substep (a copy-out block waits
 * for every block that touches its particles), so the bits are those of the
 * velocity stage. One per store (`updateInSweep`).
 */
export class UpdateInSweep {
  /** Whether the projection stage may hand the update over (A/B and the tests: false keeps it in the velocity stage). */
  static enabled = true;
  /** Whether the projection stage may hand the next substep's prediction over with it (A/B and the tests). */
  static ahead = true;
  /** Set by the projection stage around its last projection: a sweep that saves its window may take the update. */
  armed = false;
  invH = 0;
  reach = 0;
  /**
   * The next substep's prediction (lines 5–7) too, in the same blocks right after the update (session
   * 17, thr22): where the hooks that run between the two passes leave the particles alone
   * (window-passes.ts predictsAheadOnPool). Its parameters, as the prediction stage computes them:
   * h, h·gravity, the damping factor, the speed limit.
   */
  ahead = false;
  readonly predict = new Float64Array(6);
  /** Set by the sweep that took the prediction too: substep `nextSubstep`'s particles [from, to) are predicted. */
  predicted = false;
  nextSubstep = -1;
  /** Set by the sweep that took it: particles [from, to) are updated, with these counts. */
  done = false;
  from = 0;
  to = 0;
  recoveries = 0;
  speedClamps = 0;
  /** Substeps whose update a sweep took (the tests). */
  taken = 0;

  /** Arms the hand-over for the next projection (or disarms it), clearing what a sweep left. */
  arm(on: boolean, invH: number, reach: number): void {
    this.armed = on;
    this.invH = invH;
    this.reach = reach;
    this.done = false;
    this.recoveries = 0;
    this.speedClamps = 0;
    this.ahead = false;
    this.predicted = false;
  }

  /** Called by the sweep that updated particles [from, to) (its counts added to recoveries and speedClamps). */
  took(from: number, to: number): void {
    this.armed = false;
    this.done = true;
    this.from = from;
    this.to = to;
    this.taken++;
    if (this.ahead) {
      this.predicted = true;
      this.aheadTaken++;
    }
  }

  /** Substeps whose next prediction a sweep took (the tests). */
  aheadTaken = 0;

  /**
   * Hands the prediction of substep `next` over with the update (armed), with the prediction
   * stage's parameters: h, gravity (times h here, as the stage does), the damping factor, the speed limit.
   */
  armAhead(next: number, h: number, g: ArrayLike<number>, f: number, vmax: number): void {
    this.ahead = true;
    this.nextSubstep = next;
    const q = this.predict;
    q[0] = h;
    for (let k = 0; k < 3; k++) q[1 + k] = g[k] * h;
    q[4] = f;
    q[5] = vmax;
  }
}

const updates = new WeakMap<object, UpdateInSweep>();

/** The store's hand-over of the velocity update (UpdateInSweep). */
export function updateInSweep(store: ParticleStore): UpdateInSweep {
  return ofStore(updates, store, UpdateInSweep);
}

/** A store's one object of a kind, made on first use. */
export function ofStore<T>(map: WeakMap<object, T>, store: ParticleStore, Make: new () => T): T {
  let u = map.get(store);
  if (u === undefined) {
    u = new Make();
    map.set(store, u);
  }
  return u;
}

/** Slots of the particle tasks' shared parameter block. */
const H = 0;
const GX = 1;
const GY = 2;
const GZ = 3;
const F = 4;
const VMAX = 5;
const INVH = 6;
const REACH = 7;
/** The job: its items, its blocks (particleBlocks), its parts (one per thread) and its number (claims). */
const N = 8;
const BLOCKS = 9;
const PARTS = 10;
const EPOCH = 11;

/** The arguments of the 'particles-predict' and 'particles-update' tasks (all on SharedArrayBuffer). */
export interface ParticleArgs {
  x: Float64Array;
  p: Float64Array;
  v: Float64Array;
  w: Float64Array;
  /** H … EPOCH, written by the calling thread before each job. */
  par: Float64Array;
  /** Per block: recoveries, speed clamps (the update). */
  counts: Int32Array;
  /** Per block: the EPOCH of the last job in which a thread claimed it. */
  claim: Int32Array;
}

/**
 * Block b of a particle job: particles [b·size, min(n, (b + 1)·size)) with
 * size = ⌈n / blocks⌉ (the blocks of a function of n alone); the update's
 * counts at 2·b.
 */
function runParticleBlock(A: ParticleArgs, update: boolean, b: number): void {
  const q = A.par;
  const n = q[N];
  const size = Math.ceil(n / q[BLOCKS]);
  const from = b * size;
  const to = Math.min(n, from + size);
  if (update) updateRange(A.x, A.p, A.v, q[INVH], q[REACH], from, to, A.counts, 2 * b);
  else predictRange(A.x, A.p, A.v, A.w, q[H], q[GX], q[GY], q[GZ], q[F], q[VMAX], from, to);
}

/**
 * One thread's share of a particle job, which has one item per part: the
 * blocks of its own part (threadIndex mod parts, the same particles as its
 * part of the element sets' sweeps, src/wasm/element-threads.ts, so that
 * they stay in its core's cache through the substep), then any block no
 * thread has claimed yet (a late thread's part is done by the others).
 */
function runParticleParts(A: ParticleArgs, update: boolean): number {
  const q = A.par;
  const n = q[N];
  const run = blocksRun(n, q[BLOCKS]);
  const parts = q[PARTS];
  const epoch = q[EPOCH] | 0;
  const own = threadIndex() % parts;
  const claim = A.claim;
  let ran = 0;
  for (let b = partFrom(run, parts, own); b < partFrom(run, parts, own + 1); b++) {
    if (!claimBlock(claim, b, epoch)) continue;
    runParticleBlock(A, update, b);
    ran++;
  }
  for (let b = 0; b < run; b++) {
    if (!claimBlock(claim, b, epoch)) continue;
    runParticleBlock(A, update, b);
    ran++;
  }
  return ran;
}

/** The 'particles-predict' task (src/parallel/registry.ts): one item per part (runParticleParts); returns the blocks it ran. */
export function predictTask(A: ParticleArgs, _from: number, _to: number, _part: number): number {
  return runParticleParts(A, false);
}

/** The 'particles-update' task: one item per part, block b's counts at 2·b. */
export function updateTask(A: ParticleArgs, _from: number, _to: number, _part: number): number {
  return runParticleParts(A, true);
}

/** The arguments of the 'zero-f64' task: the array whose items are set to 0. */
export interface ZeroArgs {
  a: Float64Array;
}

/** The 'zero-f64' task: a[from, to) = 0. */
export function zeroTask(A: ZeroArgs, from: number, to: number, _block: number): void {
  A.a.fill(0, from, to);
}

function isShared(a: Float64Array): boolean {
  return typeof SharedArrayBuffer !== 'undefined' && a.buffer instanceof SharedArrayBuffer;
}

/**
 * A store's particle passes on the pool: owns the tasks' arguments (one
 * parameter block and one counts array, shared) and sends new ones when the
 * store's arrays change (the store grew). Each run returns false, having
 * done nothing, where the pool cannot take the pass (one thread, a store
 * off shared memory, a small store, the workers not holding these arguments
 * yet): the caller runs the range itself.
 */
export class ParticleTasks {
  private readonly predict: SharedTask = { kind: 'particles-predict', args: {}, version: 0 };
  private readonly update: SharedTask = { kind: 'particles-update', args: {}, version: 0 };
  private args: ParticleArgs | null = null;
  /** The jobs' number (EPOCH: the blocks' claims). */
  private epoch = 0;

  /** Runs particles [0, n) in their fixed blocks as one item per thread's part (runParticleParts). */
  private runParts(tasks: TaskRunner, task: SharedTask, A: ParticleArgs, n: number): boolean {
    const q = A.par;
    const parts = tasks.threads;
    q[N] = n;
    q[BLOCKS] = particleBlocks(n);
    q[PARTS] = parts;
    this.epoch = nextEpoch(this.epoch);
    q[EPOCH] = this.epoch;
    return tasks.runTask(task, parts, parts);
  }

  private bind(store: ParticleStore): ParticleArgs | null {
    let A = this.args;
    if (A !== null && A.x === store.x && A.p === store.p && A.v === store.v && A.w === store.invMass)
      return A;
    if (!isShared(store.x) || !isShared(store.p) || !isShared(store.v) || !isShared(store.invMass))
      return null;
    A = {
      x: store.x,
      p: store.p,
      v: store.v,
      w: store.invMass,
      par: A?.par ?? new Float64Array(new SharedArrayBuffer(8 * 12)),
      counts: A?.counts ?? new Int32Array(new SharedArrayBuffer(4 * 2 * MAX_BLOCKS)),
      claim: A?.claim ?? new Int32Array(new SharedArrayBuffer(4 * MAX_BLOCKS)),
    };
    this.args = A;
    this.predict.args = A as unknown as Record<string, unknown>;
    this.update.args = A as unknown as Record<string, unknown>;
    this.predict.version++;
    this.update.version++;
    return A;
  }

  /** The prediction of particles [0, n) on the pool (see predictRange); false: run it here. */
  runPredict(
    ctx: StepContext,
    n: number,
    gx: number,
    gy: number,
    gz: number,
    f: number,
    vmax: number,
  ): boolean {
    const tasks = ctx.tasks ?? null;
    if (tasks === null || tasks.threads < 2 || n < POOL_MIN_PARTICLES) return false;
    const A = this.bind(ctx.store);
    if (A === null) return false;
    const q = A.par;
    q[H] = ctx.h;
    q[GX] = gx;
    q[GY] = gy;
    q[GZ] = gz;
    q[F] = f;
    q[VMAX] = vmax;
    return this.runParts(tasks, this.predict, A, n);
  }

  /**
   * The velocity update of particles [0, n) on the pool (see updateRange);
   * false: run it here. `out` receives the counts, added in block order.
   */
  runUpdate(
    ctx: StepContext,
    n: number,
    reach: number,
    out: { recoveries: number; speedClamps: number },
  ): boolean {
    const tasks = ctx.tasks ?? null;
    if (tasks === null || tasks.threads < 2 || n < POOL_MIN_PARTICLES) return false;
    const A = this.bind(ctx.store);
    if (A === null) return false;
    A.par[INVH] = ctx.invH;
    A.par[REACH] = reach;
    const blocks = particleBlocks(n);
    if (!this.runParts(tasks, this.update, A, n)) return false;
    const c = A.counts;
    const run = blocksRun(n, blocks);
    for (let b = 0; b < run; b++) {
      out.recoveries += c[2 * b];
      out.speedClamps += c[2 * b + 1];
    }
    return true;
  }
}

/**
 * Sets a Float64Array to zero on the pool in fixed blocks (an XPBD set's
 * multipliers at the step's start), or here where the pool cannot take it.
 */
export class ZeroTask {
  private readonly task: SharedTask = { kind: 'zero-f64', args: { a: null }, version: 0 };

  run(ctx: StepContext, a: Float64Array): void {
    const tasks = ctx.tasks ?? null;
    const n = a.length;
    if (tasks !== null && tasks.threads > 1 && n >= POOL_MIN_PARTICLES && isShared(a)) {
      const args = this.task.args as unknown as ZeroArgs;
      if (args.a !== a) {
        args.a = a;
        this.task.version++;
      }
      if (tasks.runTask(this.task, n, particleBlocks(n))) return;
    }
    // (on the store's shared memory by wasm's memory.fill: StoreMemory's BULK)
    zeroFill(a);
  }
}

/**
 * The projection the stage runs next, where it goes through a window too (src/core/stages.ts sets
 * it around each projection while the store is holding): a threaded element sweep defers to it when
 * it is another set's sweep on the same window, and that sweep runs both as one job
 * (src/wasm/element-threads.ts, session 16, pool21). One per store (`nextProjection`).
 */
export class NextProjection {
  /** The next set's object, or null. */
  set: object | null = null;
  /** Whether it projects backward (the symmetric sweep's second half). */
  reverse = false;
}

const nexts = new WeakMap<object, NextProjection>();

/** The store's next projection (NextProjection). */
export function nextProjection(store: ParticleStore): NextProjection {
  return ofStore(nexts, store, NextProjection);
}
