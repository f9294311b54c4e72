/**
 * The prediction into a body's f32 particle window and the velocity update
 * out of it (docs/performance.md, "The prediction into the f32 window
 * (session 16)"). On one thread, where the substep's first projection is an
 * f32 paired kernel's sweep (src/wasm/paired.ts, an `aos4` window: x y z w
 * per particle in its kernel memory), the prediction (003 Algorithm 1,
 * lines 5–7) writes that window itself instead of p, and the window is then
 * the store's held copy (ParticleStore.held): the sweep loads nothing. The
 * window's load rounded the same doubles to f32 (one demotion per value,
 * round to nearest), so the window holds the same bits; p, its store and
 * its write-allocate and the load's read of p are gone. Before the step's
 * last substep the projection stage leaves the window held at its end and
 * the velocity update (lines 12–15) reads it (widened, exact) instead of p:
 * the flush is gone too. Nothing between those passes reads p: the world's
 * pipeline is the core's stages and every set with a hook says so
 * (ConstraintSet.skipsPredicted).
 */
import type { ConstraintSet } from './constraint-set.js';
import { ofStore, POOL_MIN_PARTICLES, UpdateInSweep } from './particle-tasks.js';
import type { ParticleStore, PredictedWindow } from './particles.js';
import type { StepContext } from './step-context.js';

/**
 * The core's stages, in the pipeline's order (World's constructor): a plan that holds only for a
 * pipeline of exactly these (the prediction into a window here, the strands' fused substep pass).
 */
export const CORE_STAGES: readonly string[] = [
  'colliders.move',
  'sets.applyForces',
  'sets.dampVelocities',
  'particles.predict',
  'orientations.predict',
  'rigids.predict',
  'sets.beginStep',
  'sets.project',
  'particles.update',
  'orientations.update',
  'rigids.update',
  'sets.endStep',
];
const CORE: ReadonlySet<string> = new Set(CORE_STAGES);

/** What the prediction stage sees of its World (the World itself). */
export interface WindowWorld {
  readonly sets: readonly ConstraintSet[];
  readonly pipeline: { readonly stages: readonly { readonly name: string }[] };
  readonly substepPasses: readonly unknown[];
}

/**
 * The window the substep's prediction may write (see the file's comment): implicit
 * Euler, Gauss–Seidel, the core's stages only, no fused substep pass, every enabled set with a
 * hook saying that its hooks leave p alone, and the first set that projects anything (the
 * projection stage's first) an f32 set whose paired kernel's window is loaded first (its sweeps
 * on one thread, or on a threaded world's pool: ConstraintSet.predictionWindow). Else null.
 */
export function predictionWindow(ctx: StepContext, world: WindowWorld): PredictedWindow | null {
  if (ctx.world.history !== null || ctx.world.solve === 'jacobi' || world.substepPasses.length > 0)
    return null;
  const stages = world.pipeline.stages;
  for (let k = 0; k < stages.length; k++) if (!CORE.has(stages[k].name)) return null;
  const sets = world.sets;
  let lead: PredictedWindow | null = null;
  let first = true;
  for (let k = 0; k < sets.length; k++) {
    const s = sets[k];
    if (!s.enabled) continue;
    if ((s.applyForces || s.dampVelocities || s.beginStep || s.endStep) && s.skipsPredicted !== true)
      return null;
    // the projection stage's sequence opens with the enabled sets in the world's order; one that
    // shares the window and has none of its own moves nothing (ClothForces, stiff attachments)
    if (first && !(s.sharesWindow === true && (s.count === 0 || s.predictionWindow === undefined))) {
      first = false;
      lead = s.predictionWindow?.(ctx) ?? null;
      if (lead === null) return null;
    }
  }
  // threaded (session 17): a window swept on the pool (its last sweep's blocks update and predict:
  // PassInSweep) where the particles it leaves out, which the velocity stage runs on the calling
  // thread, are few (the pool's own threshold); and since session 22 a window swept off the pool
  // (its sets under the pool's size line), on the calling thread as one thread runs it (a 31 × 31
  // f64 cloth on 2 threads: 0.93 → 0.99 × of one thread)
  if (lead !== null && ctx.tasks && lead.pool != null && ctx.store.count - lead.range >= POOL_MIN_PARTICLES)
    return null;
  return lead;
}

/**
 * Whether a threaded world's prediction into a window swept on the pool may wait for that sweep's
 * copy-in blocks (session 24, sub31: src/wasm/window-predict.ts), past the hooks of the beginStep
 * stage between them: every enabled set with a beginStep hook says that it reads no particle and
 * writes the window only through its `place` (ConstraintSet.beginsOnWindow). Called by the
 * prediction, which has checked predictionWindow (the core's stages only: nothing else runs between).
 */
export function predictsInSweep(world: WindowWorld): boolean {
  const sets = world.sets;
  for (let k = 0; k < sets.length; k++) {
    const s = sets[k];
    if (s.enabled && s.beginStep && s.beginsOnWindow !== true) return false;
  }
  return true;
}

/**
 * Whether the velocity update of substep ctx.substep may predict the next substep in the same
 * pass over the window (updatePredictStaged; the same bits): not across the step's end (the
 * caller may move particles between steps), and every enabled set with an applyForces,
 * dampVelocities or endStep hook (the hooks that run between the two passes; the orientation and
 * rigid stages and the colliders' moves touch no particle) says that they leave x, v and p alone
 * (ConstraintSet.leavesParticles). Called by the prediction, which has checked predictionWindow.
 */
export function predictsAhead(ctx: StepContext, world: WindowWorld): boolean {
  if (ctx.substep + 1 >= ctx.substeps) return false;
  const sets = world.sets;
  for (let k = 0; k < sets.length; k++) {
    const s = sets[k];
    if (!s.enabled || !(s.applyForces || s.dampVelocities || s.endStep)) continue;
    if (s.leavesParticles?.(ctx) !== true) return false;
  }
  return true;
}

// updatePredictStaged, lines 12–15 of substep s and 5–7 of s + 1 in one pass over a window's f64
// staging, is printed with the other particle passes from one definition,
// scripts/kernels/emit-particle-passes.ts
export { updatePredictStaged } from './particle-passes.generated.js';

/**
 * The store's x, v and w from a window's first particle on (views made once per window and
 * store arrays: the passes run predictRange and updateRange on them with the window's staging).
 */
export class WindowViews {
  x: Float64Array = new Float64Array(0);
  v: Float64Array = new Float64Array(0);
  w: Float64Array = new Float64Array(0);
  private of: PredictedWindow | null = null;
  private version = -1;
  private store: ParticleStore | null = null;

  /** Binds the views to `win` over `store` (anew only when either changed). */
  bind(store: ParticleStore, win: PredictedWindow): this {
    if (this.of === win && this.store === store && this.version === store.version) return this;
    const b = win.base;
    const r = win.range;
    this.x = store.x.subarray(3 * b, 3 * (b + r));
    this.v = store.v.subarray(3 * b, 3 * (b + r));
    this.w = store.invMass.subarray(b, b + r);
    this.of = win;
    this.store = store;
    this.version = store.version;
    return this;
  }
}

/** A substep's parameters of the prediction (predictRange's h, h g, f and vmax), filled by `fill`. */
export class PredictionArgs {
  /** The velocity gravity adds in a substep, h g (m/s). */
  readonly hg = new Float64Array(3);
  h = 0;
  /** The point damping's factor e^(−c h) (003 §3.5; 1 without damping), and the speed limit. */
  f = 1;
  vmax = 0;

  fill(ctx: StepContext): this {
    const world = ctx.world;
    const h = ctx.h;
    for (let k = 0; k < 3; k++) this.hg[k] = world.gravity[k] * h;
    this.h = h;
    this.f = world.damping > 0 ? Math.exp(-world.damping * h) : 1;
    this.vmax = world.maxSpeed;
    return this;
  }
}

/**
 * Drops a window the last velocity update read (held, p stale in its range) before a prediction
 * that writes every p; any other held window is copied out.
 */
export function dropPredicted(store: ParticleStore): void {
  const h = store.held;
  if (h === null) return;
  if (h === store.predictedWindow) store.held = null;
  else store.settle();
}

/**
 * Whether a threaded world's last sweep of substep ctx.substep may predict the next substep in its
 * copy-out blocks right after the velocity update (UpdateInSweep.ahead, session 17): implicit
 * Euler, the core's stages only (nothing but the hooks runs between the two passes), no fused
 * substep pass, not across the step's end, and every hook between them leaving the particles alone
 * (predictsAhead).
 */
export function predictsAheadOnPool(ctx: StepContext, world: WindowWorld): boolean {
  if (ctx.world.history !== null || world.substepPasses.length > 0) return false;
  const stages = world.pipeline.stages;
  for (let k = 0; k < stages.length; k++) if (!CORE.has(stages[k].name)) return false;
  return predictsAhead(ctx, world);
}

/**
 * A threaded world's fused particle pass in the last sweep of a substep (session 17, f32t22;
 * docs/performance.md "The fused particle pass on threads"). Where the prediction's window is
 * swept on the pool (ParticleWindow.pool), the substep's last sweep holds it, and the velocity
 * update predicts the next substep (predictsAhead), that sweep's copy-out blocks run the module's
 * updatePredict on their particles instead of copying them out (src/wasm/window-pass-threads.ts):
 * lines 12–15 of substep s and 5–7 of s + 1, each block after every block that touches its
 * particles (their last projection of the substep done), its counts at its own slot, added up in
 * block order. The velocity stage then runs only the particles the window leaves out. One per
 * store (`passInSweep`).
 */
export class PassInSweep extends UpdateInSweep {
  /** Whether the A/B and the tests allow it (false: the velocity stage runs the pass on the calling thread). */
  static on = true;
  /** The window whose substep's last sweep may take the pass (armed by the prediction stage). */
  win: PredictedWindow | null = null;
  /** The next substep's prediction parameters (PredictionArgs): h, h g (3), f, vmax. */
  readonly next = new Float64Array(6);

  /** Arms the pass for this substep's last sweep on `win` (or disarms it: win null), clearing what a sweep left. */
  armPass(win: PredictedWindow | null, q: PredictionArgs | null): void {
    this.arm(win !== null && q !== null && PassInSweep.on, 0, 0);
    this.win = win;
    if (q === null) return;
    const t = this.next;
    t[0] = q.h;
    t.set(q.hg, 1);
    t[4] = q.f;
    t[5] = q.vmax;
  }
}

const passes = new WeakMap<object, PassInSweep>();

/** The store's PassInSweep. */
export function passInSweep(store: ParticleStore): PassInSweep {
  return ofStore(passes, store, PassInSweep);
}

/**
 * After the prediction of substep ctx.substep into (or ahead of) `win`: whether the velocity
 * update reads the window and predicts the next substep with it. One thread: the update reads
 * it before every substep but the last (the step ends on p), predicting where predictsAhead. On a
 * threaded world's pool both go together (a window read without the prediction would be widened
 * on the calling thread alone: there the last sweep copies out and its blocks update, as before),
 * and the pass is armed for the substep's last sweep (PassInSweep).
 */
export function followWindow(
  ctx: StepContext,
  world: WindowWorld,
  win: PredictedWindow,
  q: PredictionArgs,
): void {
  const store = ctx.store;
  const more = ctx.substep + 1 < ctx.substeps;
  const next = more && predictsAhead(ctx, world);
  const pooled = !!ctx.tasks && win.pool != null;
  store.updateFromWindow = pooled ? next : more;
  store.predictNext = next;
  passInSweep(store).armPass(pooled && next ? win : null, q.fill(ctx));
}
