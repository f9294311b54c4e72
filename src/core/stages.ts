/**
 * The core's stages of one substep (Algorithm 1 of seed 003): the moves of
 * kinematic colliders, the constraint sets' hooks, the particle prediction
 * and velocity update, and the projection loop. World puts them in its
 * pipeline (see pipeline.ts for the phases, and docs/architecture.md).
 */
import { predictBdf2, updateBdf2 } from './bdf2.js';
import type { ConstraintSet } from './constraint-set.js';
import {
  nextProjection,
  ParticleTasks,
  predictRange,
  UpdateInSweep,
  updateInSweep,
  updateRange,
} from './particle-tasks.js';
import { Channels, ParticleRangeStage, type Phase, type Scheduler, type Stage } from './pipeline.js';
import type { StepContext } from './step-context.js';
import { clock, type StepTimings } from './timings.js';
import {
  dropPredicted,
  followWindow,
  PredictionArgs,
  passInSweep,
  predictionWindow,
  predictsAheadOnPool,
  predictsInSweep,
  updatePredictStaged,
  WindowViews,
  type WindowWorld,
} from './window-passes.js';

const { x: X, p: P, v: V, mass: M, qp: QP, rigidPose: POSE, colliders: COLLIDERS, sets: SETS } = Channels;
/** Everything a stage can name: what a set's hook may touch. */
const ALL: readonly string[] = Object.values(Channels);

/** The timing slot `what:kind` of each set (cached per set: no string is built per call). */
class SetLabels {
  private readonly what: string;
  private slots = new WeakMap<ConstraintSet, number>();
  private timings: StepTimings | null = null;

  constructor(what: string) {
    this.what = what;
  }

  slotOf(set: ConstraintSet, timings: StepTimings): number {
    if (this.timings !== timings) {
      this.timings = timings;
      this.slots = new WeakMap();
    }
    let k = this.slots.get(set);
    if (k === undefined) {
      k = timings.slot(`${this.what}:${set.kind}`);
      this.slots.set(set, k);
    }
    return k;
  }
}

/** Kinematic colliders move to their pose at the end of the substep and record their velocity. */
export class ColliderMotionStage implements Stage {
  readonly name = 'colliders.move';
  readonly phase = 'begin';
  readonly reads = [COLLIDERS];
  readonly writes = [COLLIDERS];

  run(ctx: StepContext): void {
    const cols = ctx.world.colliders;
    for (let c = 0; c < cols.length; c++) cols[c].update(ctx.time, ctx.h);
  }
}

/** The hooks a constraint set may have besides `project`, and the phase each runs in. */
export type SetHook = 'applyForces' | 'dampVelocities' | 'beginStep' | 'endStep';

const hookPlace: Record<SetHook, { phase: Phase; order: number }> = {
  // line 5 (forces) before line 6 (damping schemes); both before gravity, with which they commute
  applyForces: { phase: 'forces', order: 0 },
  dampVelocities: { phase: 'forces', order: 1 },
  beginStep: { phase: 'prepare', order: 0 },
  endStep: { phase: 'finish', order: 0 },
};

/**
 * One hook of every enabled constraint set, in the sets' order. What a hook
 * touches is the set's business, so the stage declares every channel as
 * read and written, and runs whole.
 */
export class SetHookStage implements Stage {
  readonly name: string;
  readonly phase: Phase;
  readonly order: number;
  readonly reads = ALL;
  readonly writes = ALL;
  private readonly hook: SetHook;
  private readonly sets: readonly ConstraintSet[];

  /** `sets` is the World's sorted list, read afresh at every run. */
  constructor(hook: SetHook, sets: readonly ConstraintSet[]) {
    this.hook = hook;
    this.sets = sets;
    this.labels = new SetLabels(hook);
    this.name = `sets.${hook}`;
    this.phase = hookPlace[hook].phase;
    this.order = hookPlace[hook].order;
  }

  run(ctx: StepContext): void {
    const sets = this.sets;
    const hook = this.hook;
    // chained readings, as in Pipeline.run: a set's time runs from the last reading to its end
    let t0 = clock();
    for (let k = 0; k < sets.length; k++) {
      const s = sets[k];
      if (!s.enabled || !s[hook]) continue;
      s[hook](ctx);
      const t1 = clock();
      ctx.timings.add(this.labels.slotOf(s, ctx.timings), t1 - t0);
      t0 = t1;
    }
  }

  /** `hook:kind` per set, for the step's timings. */
  private readonly labels: SetLabels;
}

/**
 * Lines 5–7 fused in one pass over the particles: gravity, point damping,
 * the speed limit, prediction p = x + h v. (Gravity after rigid-mode damping
 * is exact: a uniform velocity change is a rigid translation, which that
 * damping keeps.) Particles with w = 0 keep their velocity and move with it.
 */
export class ParticlePredictionStage extends ParticleRangeStage {
  readonly name = 'particles.predict';
  readonly phase = 'predict';
  readonly reads = [X, V, M];
  readonly writes = [V, P];
  /** The pass on a threaded world's pool (fixed blocks of particles: the one-thread bits). */
  private readonly pool = new ParticleTasks();
  /**
   * A window swept on the pool, the store homed in its memory: each step's first prediction by the
   * module into the window on the calling thread (true, session 21), or to p on the pool, which the
   * sweep's copy-in blocks load (false: before; the A/B and the tests). The same bits.
   */
  static moduleOnPool = true;
  /** The World, for the prediction into a kernel's window (core/window-passes.ts); null: never. */
  private readonly world: WindowWorld | null;
  /** The store's arrays from that window's first particle on, and the pass's parameters. */
  private readonly views = new WindowViews();
  private readonly args = new PredictionArgs();

  constructor(world: WindowWorld | null = null) {
    super();
    this.world = world;
  }

  override run(ctx: StepContext): void {
    const n = ctx.store.count;
    if (ctx.store.predictedAhead) {
      this.predictedAhead(ctx);
      return;
    }
    dropPredicted(ctx.store);
    if (this.predictIntoWindow(ctx)) return;
    this.predictAll(ctx, n);
  }

  /** On one thread, the pass into the f32 window of the first projection (core/window-passes.ts); false where it does not apply. */
  private predictIntoWindow(ctx: StepContext): boolean {
    const store = ctx.store;
    store.predictedWindow = null;
    store.updateFromWindow = false;
    const win = this.world === null ? null : predictionWindow(ctx, this.world);
    if (win === null) return false;
    const { x, p, v, invMass: w, count: n } = store;
    const q = this.args.fill(ctx);
    const { h, hg, f, vmax } = q;
    const gx = hg[0];
    const gy = hg[1];
    const gz = hg[2];
    const b = win.base;
    const r = win.range;
    const e = b + r;
    const on = this.views.bind(store, win);
    if (ctx.tasks && win.pool != null) {
      // swept on the pool: where the store is homed in the window's memory, the module's pass into
      // the window here, as on one thread (session 21, cl28: at 201 × 201 f32 0.1 ms on this thread
      // against the pool's JavaScript pass into p and the sweep's copy-in blocks); else p by the
      // pool's blocks (the sweep's copy-in blocks load it). Either way the substep's last sweep
      // updates and predicts into the window (PassInSweep, session 17)
      // (session 24, sub31) where its sweep can, in that sweep's copy-in blocks instead (window-predict.ts)
      if (
        !ParticlePredictionStage.moduleOnPool ||
        updateInSweep(store).predicted ||
        !(
          (predictsInSweep(this.world!) && win.predictInSweep?.(on, q) === true) ||
          win.predict?.(on, q) === true
        )
      ) {
        this.predictAll(ctx, n);
        store.predictedWindow = win;
        followWindow(ctx, this.world!, win, q);
        return true;
      }
    } else if (!win.predict?.(on, q)) {
      // in the kernel module into the window where the store is homed there (wasm/paired.ts), else
      // the window's particles into its f64 staging, then rounded in as its load would round p
      predictRange(on.x, win.S, on.v, on.w, h, gx, gy, gz, f, vmax, 0, r);
      win.SW.set(on.w);
      win.demoteStaged();
    }
    // the particles the window leaves out (on the pool few: predictionWindow)
    predictRange(x, p, v, w, h, gx, gy, gz, f, vmax, 0, b);
    predictRange(x, p, v, w, h, gx, gy, gz, f, vmax, e, n);
    store.held = win;
    store.predictedWindow = win;
    // the step's last substep ends on p (the caller and the tearing read it)
    followWindow(ctx, this.world!, win, q);
    return true;
  }

  /**
   * The prediction of particles [0, n) to p, on the pool where it takes it; where the last sweep of
   * the substep before predicted its window's particles (UpdateInSweep.ahead), the rest.
   */
  private predictAll(ctx: StepContext, n: number): void {
    const u = updateInSweep(ctx.store);
    if (u.predicted) {
      u.predicted = false;
      if (u.nextSubstep === ctx.substep && ctx.world.history === null) {
        if (u.from > 0) this.runRange(ctx, 0, Math.min(u.from, n));
        if (u.to < n) this.runRange(ctx, u.to, n);
        return;
      }
    }
    if (ctx.world.history === null && ctx.tasks) {
      const { gravity, damping, maxSpeed } = ctx.world;
      const h = ctx.h;
      const f = damping > 0 ? Math.exp(-damping * h) : 1;
      if (this.pool.runPredict(ctx, n, gravity[0] * h, gravity[1] * h, gravity[2] * h, f, maxSpeed)) return;
    }
    this.runRange(ctx, 0, n);
  }

  /** The last velocity update predicted this substep into the held window (core/window-passes.ts). */
  private predictedAhead(ctx: StepContext): void {
    const store = ctx.store;
    store.predictedAhead = false;
    const win = store.predictedWindow;
    if (win !== null && store.held === win && predictionWindow(ctx, this.world!) === win) {
      followWindow(ctx, this.world!, win, this.args);
      return;
    }
    // another window leads now (a hook changed the sets): the prediction goes to p
    store.predictedWindow = null;
    store.updateFromWindow = false;
    store.predictNext = false;
    store.settle();
  }

  runRange(ctx: StepContext, from: number, to: number): void {
    const history = ctx.world.history;
    if (history !== null) {
      predictBdf2(ctx, history, from, to);
      return;
    }
    const h = ctx.h;
    const store = ctx.store;
    const world = ctx.world;
    const g = world.gravity;
    const f = world.damping > 0 ? Math.exp(-world.damping * h) : 1;
    predictRange(
      store.x,
      store.p,
      store.v,
      store.invMass,
      h,
      g[0] * h,
      g[1] * h,
      g[2] * h,
      f,
      world.maxSpeed,
      from,
      to,
    );
  }
}

/**
 * BDF2 only (WorldOptions.integrator): keeps v_n, the velocities at the start
 * of the substep, before the forces hooks change them (core/bdf2.ts).
 */
export class VelocityHistoryStage extends ParticleRangeStage {
  readonly name = 'particles.history';
  readonly phase = 'forces';
  readonly order = -100;
  readonly reads = [V];
  readonly writes = [V];

  runRange(ctx: StepContext, from: number, to: number): void {
    const history = ctx.world.history;
    if (history === null) return;
    history.ensure(ctx.store.count);
    history.vLast.set(ctx.store.v.subarray(3 * from, 3 * to), 3 * from);
  }
}

/**
 * Lines 9–11, the non-linear Gauss–Seidel projection, `iterations` times:
 * sets with order < 0 (attachments), then the material sets (0 ≤ order <
 * 100) forward and — with the symmetric sweep — backward (ctx.reverse),
 * then the contact sets (order ≥ 100), so that collisions have the last
 * word; contact sets with `midSweep` (the collider contacts) also between
 * the two halves, where there are material sets. Each projection goes through the scheduler.
 */
export class ProjectionStage implements Stage {
  readonly name = 'sets.project';
  readonly phase = 'solve';
  readonly reads = ALL;
  /** Sets move predicted positions and orientations, and (the rigid-body family's) rigid poses. */
  readonly writes = [P, QP, POSE, SETS];
  private readonly sets: readonly ConstraintSet[];

  /** `sets` is the World's sorted list, read afresh at every run. */
  constructor(sets: readonly ConstraintSet[]) {
    this.sets = sets;
  }

  run(ctx: StepContext, scheduler: Scheduler): void {
    this.t0 = clock();
    const n = this.sequence(ctx.world.sweep === 'symmetric');
    // the paired kernels keep their window's positions from one sweep to the next where the next
    // projection goes through a window too (ParticleStore.held: one copy in per run of sets on one
    // kernel memory, and the last sweep of the run copies out): in a threaded world the pool's
    // sweeps skip their blocks' copies (src/wasm/element-threads.ts) as a serial world's skip theirs
    const store = ctx.store;
    // the velocity update handed to the last projection of the last iteration where that is a pooled
    // sweep that copies out and the velocity stage comes next (UpdateInSweep: no job of its own)
    const update = updateInSweep(store);
    update.arm(false, 0, 0);
    const hand = UpdateInSweep.enabled && !!ctx.tasks && ctx.world.history === null && this.velocityNext(ctx);
    const last = hand ? this.lastLive : -1;
    // and with it the next substep's prediction, where nothing between the two passes moves a particle
    const world = ctx.world as unknown as Partial<WindowWorld>;
    const ahead =
      hand &&
      UpdateInSweep.ahead &&
      ctx.substep + 1 < ctx.substeps &&
      world.sets !== undefined &&
      world.pipeline !== undefined &&
      world.substepPasses !== undefined &&
      predictsAheadOnPool(ctx, world as WindowWorld);
    // the next projection where the window is held (a threaded sweep may join it: NextProjection)
    const following = nextProjection(store);
    try {
      for (let it = 0; it < ctx.iterations; it++) {
        ctx.iteration = it;
        const more = it + 1 < ctx.iterations;
        for (let i = 0; i < n; i++) {
          ctx.reverse = this.seqReverse[i] === 1;
          const next = this.seqNext[i];
          // the stage's last projection keeps the window for a velocity update that reads it
          const final = next < 0 || (next <= i && !more);
          store.holding = final ? store.updateFromWindow : this.seq[next].sharesWindow === true;
          // the next projection on the held window (a threaded sweep may join it: NextProjection)
          const joins = !final && store.holding;
          following.set = joins ? this.seq[next] : null;
          following.reverse = joins && this.seqReverse[next] === 1;
          if (i === last && !more) {
            update.arm(true, ctx.invH, ctx.world.maxSpeed * ctx.h);
            if (ahead) {
              const { gravity: g, damping, maxSpeed } = ctx.world;
              const h = ctx.h;
              const f = damping > 0 ? Math.exp(-damping * h) : 1;
              update.armAhead(ctx.substep + 1, h, g, f, maxSpeed);
            }
          }
          this.project(this.seq[i], ctx, scheduler);
          update.armed = false;
        }
      }
      ctx.reverse = false;
    } finally {
      update.armed = false;
      store.holding = false;
      following.set = null;
      // the window the prediction wrote stays held for the velocity update (core/window-passes.ts)
      if (!(store.updateFromWindow && store.held === store.predictedWindow)) {
        store.updateFromWindow = false;
        store.settle();
      }
    }
  }

  /** Whether the stage after this one in the world's pipeline is the velocity update (nothing between them reads or writes the particles). */
  private velocityNext(ctx: StepContext): boolean {
    const stages = (ctx.world as { pipeline?: { stages?: readonly Stage[] } }).pipeline?.stages;
    if (stages === undefined) return false;
    const k = stages.indexOf(this);
    return k >= 0 && stages[k + 1] instanceof ParticleVelocityStage;
  }

  /** The last projection of an iteration that may move something (after it only inert ones), or −1. */
  private lastLive = -1;

  /** The projections of one iteration, in order (seq, seqReverse), and each one's next that may read the positions (seqNext). */
  private seq: ConstraintSet[] = [];
  private seqReverse = new Uint8Array(16);
  private seqNext = new Int32Array(16);

  /**
   * Lays out one iteration's projections (see the class's comment) and returns how many; seqNext[i]
   * is the next one (wrapping to the next iteration's first: an index ≤ i) that is not a set known
   * to move nothing (sharesWindow with no constraints: ClothForces, an empty attachment set), or −1.
   */
  private sequence(symmetric: boolean): number {
    const sets = this.sets;
    const seq = this.seq;
    this.seqLength = 0;
    let k = 0;
    for (; k < sets.length && (sets[k].order ?? 0) < 0; k++) this.push(sets[k], false);
    const first = k;
    for (; k < sets.length && (sets[k].order ?? 0) < 100; k++) this.push(sets[k], false);
    const end = k;
    if (symmetric) {
      // the backward half opens with the contact sets that have midSweep (the collider contacts): a
      // contact is projected as often as a material constraint, and the forward half's push on a
      // resting base is corrected before the backward half carries it on (docs/collision.md, "The
      // contacts in the sweep")
      if (end > first) for (let j = end; j < sets.length; j++) if (sets[j].midSweep) this.push(sets[j], true);
      for (let j = end - 1; j >= first; j--) this.push(sets[j], true);
    }
    for (; k < sets.length; k++) this.push(sets[k], false);
    const n = this.seqLength;
    seq.length = n;
    // next: the first that is not inert, where the next iteration starts
    let next = -1;
    for (let i = n - 1; i >= 0; i--) if (!inert(seq[i])) next = i;
    for (let i = n - 1; i >= 0; i--) {
      this.seqNext[i] = next;
      if (!inert(seq[i])) next = i;
    }
    this.lastLive = -1;
    for (let i = n - 1; i >= 0 && this.lastLive < 0; i--) if (!inert(seq[i])) this.lastLive = i;
    return n;
  }

  private seqLength = 0;

  private push(s: ConstraintSet, reverse: boolean): void {
    if (!s.enabled) return;
    const n = this.seqLength;
    if (n === this.seqReverse.length) {
      const r = new Uint8Array(2 * n);
      r.set(this.seqReverse);
      this.seqReverse = r;
      this.seqNext = new Int32Array(2 * n);
    }
    this.seq[n] = s;
    this.seqReverse[n] = reverse ? 1 : 0;
    this.seqLength = n + 1;
  }

  /** `project:kind` per set, for the step's timings. */
  private readonly labels = new SetLabels('project');

  /** The last clock reading: chained as in Pipeline.run, a projection's time runs from it to the projection's end. */
  private t0 = 0;

  private project(set: ConstraintSet, ctx: StepContext, scheduler: Scheduler): void {
    if (!set.enabled) return;
    if (ctx.store.held !== null && set.sharesWindow !== true) ctx.store.settle();
    if (ctx.world.solve === 'jacobi' && set.projectJacobi) set.projectJacobi(ctx);
    else scheduler.project(set, ctx);
    const t1 = clock();
    ctx.timings.add(this.labels.slotOf(set, ctx.timings), t1 - this.t0);
    this.t0 = t1;
  }
}

/** A set known to move nothing (sharesWindow with no constraints: ClothForces, an empty attachment set). */
function inert(s: ConstraintSet): boolean {
  return s.sharesWindow === true && s.count === 0;
}

/**
 * Lines 12–15: v = (p − x)/h, x = p, with two guards: a particle whose state
 * became non-finite keeps its last good position and stops
 * (`stats.recoveries`), and one that would move faster than maxSpeed is held
 * back to it (`stats.speedClamps`), so the energy stays bounded whatever the input.
 */
export class ParticleVelocityStage extends ParticleRangeStage {
  readonly name = 'particles.update';
  readonly phase = 'update';
  readonly reads = [X, P];
  readonly writes = [X, P, V];
  /** The pass on a threaded world's pool (fixed blocks of particles, counts added in block order). */
  private readonly pool = new ParticleTasks();
  /** One block's counts when run here (recoveries, speed clamps). */
  private readonly counts = new Int32Array(2);
  /** The store's arrays from the predicted window's first particle on (core/window-passes.ts), and the prediction's parameters. */
  private readonly views = new WindowViews();
  private readonly args = new PredictionArgs();

  override run(ctx: StepContext): void {
    const n = ctx.store.count;
    if (ctx.store.updateFromWindow) {
      this.updateFromWindow(ctx);
      return;
    }
    if (ctx.world.history === null && ctx.tasks) {
      const u = updateInSweep(ctx.store);
      if (u.done) {
        // the last sweep's copy-out blocks updated its window's particles (UpdateInSweep): the rest here
        u.done = false;
        const stats = ctx.world.stats;
        stats.recoveries += u.recoveries;
        stats.speedClamps += u.speedClamps;
        if (u.from > 0) this.runRange(ctx, 0, Math.min(u.from, n));
        if (u.to < n) this.runRange(ctx, u.to, n);
        return;
      }
      if (this.pool.runUpdate(ctx, n, ctx.world.maxSpeed * ctx.h, ctx.world.stats)) return;
    }
    this.runRange(ctx, 0, n);
  }

  runRange(ctx: StepContext, from: number, to: number): void {
    const history = ctx.world.history;
    if (history !== null) {
      updateBdf2(ctx, history, from, to);
      return;
    }
    const store = ctx.store;
    const stats = ctx.world.stats;
    const c = this.counts;
    updateRange(store.x, store.p, store.v, ctx.invH, ctx.world.maxSpeed * ctx.h, from, to, c, 0);
    stats.recoveries += c[0];
    stats.speedClamps += c[1];
  }

  /** The pass reading the held window the prediction wrote (core/window-passes.ts); it stays held, p stale in its range. */
  private updateFromWindow(ctx: StepContext): void {
    const store = ctx.store;
    store.updateFromWindow = false;
    const win = store.predictedWindow!;
    // where it can, the store's x and v move into the window's kernel memory (once; wasm/paired.ts)
    if (store.predictNext) win.homeStore?.(store);
    const { x, p, v, count: n } = store;
    const stats = ctx.world.stats;
    const c = this.counts;
    const invH = ctx.invH;
    const reach = ctx.world.maxSpeed * ctx.h;
    const b = win.base;
    const e = b + win.range;
    const on = this.views.bind(store, win);
    updateRange(x, p, v, invH, reach, 0, b, c, 0);
    let r = c[0];
    let k = c[1];
    const pass = passInSweep(store);
    if (store.predictNext) {
      // and the next substep's prediction in the same pass (its hooks between move nothing)
      store.predictNext = false;
      store.predictedAhead = true;
      const q = this.args.fill(ctx);
      const { h, hg, f, vmax } = q;
      const gx = hg[0];
      const gy = hg[1];
      const gz = hg[2];
      const w = store.invMass;
      // in the last sweep's blocks on the pool (PassInSweep), else in the kernel module on the window
      // itself where it can (wasm/paired.ts), else: the window widened into its f64 staging (the
      // values its flush would have written to p), the pass, back
      if (pass.done) {
        c[0] = pass.recoveries;
        c[1] = pass.speedClamps;
      } else if (!win.updatePredict?.(on, invH, reach, q, c)) {
        win.widenStaged();
        win.SW.set(on.w);
        updatePredictStaged(on.x, on.v, on.w, win.S, invH, reach, h, gx, gy, gz, f, vmax, win.range, c);
        win.demoteStaged();
      }
      r += c[0];
      k += c[1];
      updateRange(x, p, v, invH, reach, e, n, c, 0);
      predictRange(x, p, v, w, h, gx, gy, gz, f, vmax, 0, b);
      predictRange(x, p, v, w, h, gx, gy, gz, f, vmax, e, n);
    } else {
      win.widenStaged();
      updateRange(on.x, win.S, on.v, invH, reach, 0, win.range, c, 0);
      r += c[0];
      k += c[1];
      updateRange(x, p, v, invH, reach, e, n, c, 0);
    }
    pass.armPass(null, null);
    stats.recoveries += r + c[0];
    stats.speedClamps += k + c[1];
  }
}
