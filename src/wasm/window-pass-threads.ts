/**
 * The particle passes of a threaded sweep's copy-out blocks (docs/performance.md, "The fused
 * particle pass on threads (session 17, f32t22)"; docs/solver.md "Threads"). A pooled fused sweep
 * (element-threads.ts) ends with blocks of 4,096 window particles, each after every block that
 * touches its particles, so each runs after its particles' last projection of the sweep:
 *
 * - UPDATE_AFTER_SAVE (session 16, pool20: UpdateInSweep): the block copies its particles out to p,
 *   then runs the velocity update (003 Algorithm 1, lines 12–15; updateRange) on them, and, where
 *   the projection stage handed the next substep's prediction over with it (UpdateInSweep.ahead,
 *   session 17, thr22: window-passes.ts predictsAheadOnPool), lines 5–7 of substep s + 1
 *   (predictRange) on the v and x just written: per particle the velocity and prediction stages'
 *   operations in their order;
 * - UPDATE_PREDICT (session 17: PassInSweep): the window stays held and the block runs the elements
 *   module's fused pass (windowUpdatePredictF32, scripts/kernels/emit-window-pass.ts: lines 12–15
 *   of substep s, then 5–7 of s + 1, the prediction written into the window) on its particles: the
 *   store's x and w copied into the window's f64 staging at the block's place, the pass, x and v
 *   copied back, its counts at the block's own slot of the window's count area. The same operations
 *   in the same order per particle as the one-thread pass (ParticleWindow.updatePredict), each
 *   particle from its own state alone, so the bits do not depend on the thread or the moment.
 *
 * Each block's recoveries and speed clamps are written at 2·block of the job's counts and added
 * up in block order by the calling thread (sweepPassDone).
 */
import {
  POOL_MIN_PARTICLES,
  predictRange,
  type UpdateInSweep,
  updateInSweep,
  updateRange,
} from '../core/particle-tasks.js';
import type { ParticleStore } from '../core/particles.js';
import type { SharedTask } from '../core/step-context.js';
import { passInSweep } from '../core/window-passes.js';
import type { ElementArgs } from './element-args.js';
import type { ElementExports } from './element-kernels.generated.js';
import { FUSED_SAVE, isShared } from './element-order.js';
import { PASS_SLOTS, type ParticleWindow, particlePass, type WindowMovesF32 } from './paired.js';
import {
  DeferredPrediction,
  MAX_PLACES,
  PF,
  PGX,
  PGY,
  PGZ,
  PH,
  PLACES,
  PVAT,
  PVMAX,
  PWAT,
  PXAT,
} from './window-predict.js';

/** par[UPDATE] of a fused sweep: none, the update after the copy-out, the fused update and prediction on a held window. */
export const [UPDATE_NONE, UPDATE_AFTER_SAVE, UPDATE_PREDICT] = [0, 1, 2];

/** The pass's parameters (SweepPassArgs.pass): the mode (UPDATE_*), 1/h, reach, then the next prediction's h, h g, f, vmax. */
const [MODE, INVH, REACH, H, GX, GY, GZ, F, VMAX] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
/** 1: the store's x, v, w homed in the kernel memory (ParticleWindow.homeStore), at byte addresses XAT, VAT, WAT. */
const [HOMED, XAT, VAT, WAT] = [9, 10, 11, 12];
/** UPDATE_AFTER_SAVE: 1 where the next substep's prediction (H … VMAX) follows the update (UpdateInSweep.ahead). */
const AHEAD = 13;
/** Slots of SweepPassArgs.pass. */
export const PASS_PARAMS = 14;

/** What a copy-out block's pass reads of the sweep's arguments (element-threads.ts ElementArgs). */
export interface SweepPassArgs {
  /** The pass's parameters (MODE … VMAX), written by the calling thread before the job. */
  pass: Float64Array;
  /** The store's positions, inverse masses, x and v (shared). */
  p: Float64Array;
  w: Float64Array;
  x: Float64Array;
  v: Float64Array;
  /** aos4: the window's f64 velocities and count area (PASS_SLOTS pairs of i32), on the kernel memory. */
  V: Float64Array;
  C: Int32Array;
  pAt: number;
  /** The window's inverse masses (f64 windows: the pass writes w there too); 1 where the window is aos4, 0: f64. */
  wAt: number;
  aos4: number;
  stageAt: number;
  stageWAt: number;
  velAt: number;
  countAt: number;
  base: number;
}

/** The views of an aos4 window's f64 velocities and count area on its kernel memory (SweepPassArgs V, C; else empty). */
export function passViews(
  memory: WebAssembly.Memory,
  win: ParticleWindow,
): { V: Float64Array; C: Int32Array } {
  const buf = memory.buffer;
  // an f64 window (session 19, cl25): its count area only (its pass runs on the homed store alone)
  if (!win.aos4)
    return {
      V: new Float64Array(0),
      C: win.f32 ? new Int32Array(0) : new Int32Array(buf, win.countAt, 2 * PASS_SLOTS),
    };
  return {
    V: new Float64Array(buf, win.velAt, 3 * win.range),
    C: new Int32Array(buf, win.countAt, 2 * PASS_SLOTS),
  };
}

/**
 * Block k's particle pass, window particles [from, to), after its copy out (UPDATE_AFTER_SAVE) or
 * instead of it (UPDATE_PREDICT: `t` the thread's module on the kernel memory and its views of the
 * window's f64 staging); its counts at 2·k of `counts`.
 */
export function sweepPassBlock(
  A: SweepPassArgs,
  from: number,
  to: number,
  t: { ex: ElementExports; S: Float64Array; SW: Float64Array },
  k: number,
  counts: Int32Array,
): void {
  const q = A.pass;
  const b = A.base;
  if (q[MODE] === UPDATE_AFTER_SAVE) {
    updateRange(A.x, A.p, A.v, q[INVH], q[REACH], b + from, b + to, counts, 2 * k);
    if (q[AHEAD] !== 0)
      predictRange(A.x, A.p, A.v, A.w, q[H], q[GX], q[GY], q[GZ], q[F], q[VMAX], b + from, b + to);
    return;
  }
  // the store in the kernel memory: the pass on it in place; else x and w of the block copied into
  // the staging at its place (v is written, not read: line 13), and x and v back after
  const homed = q[HOMED] === 1;
  const i = b + from;
  if (!homed) {
    t.S.set(A.x.subarray(3 * i, 3 * (b + to)), 3 * from);
    t.SW.set(A.w.subarray(i, b + to), from);
  }
  // an f64 window (session 19, cl25; only on the homed store: armSweepPass): the module's f64 pass,
  // which takes the window's w last (the f32 one, w beside p, drops it)
  const f64 = A.aos4 === 0;
  const pass: (...a: number[]) => void = f64 ? t.ex.windowUpdatePredictF64 : t.ex.windowUpdatePredictF32;
  pass(
    A.pAt + (f64 ? 24 : 16) * from,
    homed ? q[XAT] + 24 * i : A.stageAt + 24 * from,
    homed ? q[VAT] + 24 * i : A.velAt + 24 * from,
    homed ? q[WAT] + 8 * i : A.stageWAt + 8 * from,
    to - from,
    A.countAt + 8 * k,
    q[INVH],
    q[REACH],
    q[H],
    q[GX],
    q[GY],
    q[GZ],
    q[F],
    q[VMAX],
    A.wAt + 8 * from,
  );
  if (!homed) {
    A.x.set(t.S.subarray(3 * from, 3 * to), 3 * i);
    A.v.set(A.V.subarray(3 * from, 3 * to), 3 * i);
  }
  counts[2 * k] = A.C[2 * k];
  counts[2 * k + 1] = A.C[2 * k + 1];
}

/**
 * The pass a fused sweep's copy-out blocks run (UPDATE_*), its parameters written into A.pass and
 * the store's x and v into A (a new version of `task` where they changed). The update goes to the
 * blocks where the projection stage handed it over (UpdateInSweep armed: this is the substep's
 * last projection) and the particles the window leaves out are few (the velocity stage runs them);
 * after a copy out (`save`), or on the held window the prediction stage armed (PassInSweep) whose
 * table fits the window's count slots (`blocks`) and whose module has the pass.
 */
export function armSweepPass(
  task: SharedTask,
  A: SweepPassArgs,
  store: ParticleStore,
  win: ParticleWindow,
  save: boolean,
  blocks: number,
  ex: ElementExports,
): number {
  const u = updateInSweep(store);
  const range = win.range;
  if (
    !u.armed ||
    store.count - range >= POOL_MIN_PARTICLES ||
    win.base + range > store.count ||
    !isShared(store.x) ||
    !isShared(store.v)
  )
    return UPDATE_NONE;
  const pass = passInSweep(store);
  const mode = save
    ? UPDATE_AFTER_SAVE
    : pass.armed &&
        pass.win === win &&
        store.predictedWindow === win &&
        blocks <= PASS_SLOTS &&
        particlePass.wasm &&
        (win.aos4
          ? typeof ex.windowUpdatePredictF32 === 'function'
          : // an f64 window (session 19, cl25): the module's f64 pass, on the homed store only
            !win.f32 && typeof ex.windowUpdatePredictF64 === 'function' && win.homes(store))
      ? UPDATE_PREDICT
      : UPDATE_NONE;
  if (mode === UPDATE_NONE) return mode;
  if (A.x !== store.x || A.v !== store.v) {
    A.x = store.x;
    A.v = store.v;
    task.version++;
  }
  const q = A.pass;
  q[MODE] = mode;
  q[INVH] = u.invH;
  q[REACH] = u.reach;
  // the next substep's prediction: h, h g, f, vmax (after the update where UpdateInSweep.ahead)
  q[AHEAD] = mode === UPDATE_AFTER_SAVE && u.ahead ? 1 : 0;
  if (q[AHEAD] === 1) q.set(u.predict, H);
  if (mode === UPDATE_PREDICT) {
    q.set(pass.next, H);
    q[HOMED] = win.homes(store) ? 1 : 0;
    q[XAT] = store.x.byteOffset;
    q[VAT] = store.v.byteOffset;
    q[WAT] = store.invMass.byteOffset;
  }
  return mode;
}

/**
 * After the job: the copy-out blocks' counts (at 2·block of `counts`, the table's FUSED_SAVE
 * blocks) added up in block order into the hand-over the mode answers (UpdateInSweep, or
 * PassInSweep), which is marked taken.
 */
export function sweepPassDone(
  store: ParticleStore,
  mode: number,
  table: Int32Array,
  counts: Int32Array,
  base: number,
  range: number,
): void {
  const to: UpdateInSweep = mode === UPDATE_PREDICT ? passInSweep(store) : updateInSweep(store);
  const nb = table[0];
  for (let b = 0; b < nb; b++) {
    if (table[1 + b] !== FUSED_SAVE) continue;
    to.recoveries += counts[2 * b];
    to.speedClamps += counts[2 * b + 1];
  }
  // (the update is taken too where the pass is: the sweep holds the window, the velocity stage reads nothing of it)
  if (mode === UPDATE_PREDICT) updateInSweep(store).armed = false;
  to.took(base, base + range);
}

/**
 * At a pooled sweep's start (element-threads.ts fusedJob): 1 where its copy-in blocks take the
 * window's waiting prediction (the window held, so they copy nothing; the placements fit, the
 * module has the pass), its arguments and placements written into A; else 0, the waiting
 * prediction (if any) run whole here first (ParticleWindow.settlePrediction).
 */
export function armPredictInLoad(
  A: ElementArgs,
  win: { readonly deferred: DeferredPrediction; settlePrediction(): void },
  load: boolean,
  ex: ElementExports,
): number {
  const d = win.deferred;
  if (!d.armed) return 0;
  const pass = A.aos4 !== 0 ? (ex as unknown as WindowMovesF32).windowPredictF32 : ex.windowPredictF64;
  if (load || d.n > MAX_PLACES || typeof pass !== 'function') {
    win.settlePrediction();
    return 0;
  }
  const par = A.par;
  par.set(d.q, PXAT);
  par[PLACES] = d.n;
  A.places.set(d.places.subarray(0, 4 * d.n));
  d.armed = false;
  d.n = 0;
  DeferredPrediction.inBlocks++;
  particlePass.predicts++;
  return 1;
}

/**
 * Window particles [from, to) of a sweep whose copy-in blocks predict (PREDICT): the module's
 * pass on them (P the thread's view of the window), then the placements among them, in order.
 */
export function predictBlock(
  A: ElementArgs,
  ex: ElementExports,
  P: Float64Array | Float32Array,
  from: number,
  to: number,
): void {
  const q = A.par;
  const aos4 = A.aos4 !== 0;
  const pass = aos4 ? (ex as unknown as Required<WindowMovesF32>).windowPredictF32 : ex.windowPredictF64;
  // (the f64 pass takes the window's w last; the f32 one, w beside p, drops it)
  const h = q[PH],
    f = q[PF],
    vmax = q[PVMAX];
  const x = q[PXAT] + 24 * from,
    v = q[PVAT] + 24 * from,
    w = q[PWAT] + 8 * from;
  pass(
    A.pAt + (aos4 ? 16 : 24) * from,
    x,
    v,
    w,
    to - from,
    h,
    q[PGX],
    q[PGY],
    q[PGZ],
    f,
    vmax,
    A.wAt + 8 * from,
  );
  const L = A.places;
  const n = q[PLACES];
  const s = aos4 ? 4 : 3;
  for (let j = 0; j < n; j++) {
    const i = L[4 * j];
    if (i < from || i >= to) continue;
    P[s * i] = L[4 * j + 1];
    P[s * i + 1] = L[4 * j + 2];
    P[s * i + 2] = L[4 * j + 3];
  }
}
