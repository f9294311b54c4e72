/**
 * The particle window's moves and particle passes in the elements module (scripts/kernels/emit-simd.ts
 * windowMovesF32, emit-window-pass.ts, emit-particle-passes.ts windowPassF64): their signatures, the
 * aos4 window's copies in and out, and the passes' switches and counts (src/wasm/paired.ts
 * ParticleWindow; moved here from paired.ts in session 19, cl25, which re-exports them).
 */
import { copyRange } from '../core/store-memory.js';

/** The f32 window's moves of the elements module (scripts/kernels/emit-simd.ts, windowMovesF32). */
export interface WindowMovesF32 {
  windowLoadF32(src: number, srcW: number, dst: number, n: number): void;
  windowSaveF32(src: number, dst: number, n: number): void;
  /**
   * The fused particle pass (scripts/kernels/emit-window-pass.ts; ParticleWindow.updatePredict):
   * window, x, v, w, n, counts' addresses, then invH, reach, h, gx, gy, gz, f, vmax.
   */
  windowUpdatePredictF32?(...args: number[]): void;
  /** The prediction alone into the window: window, x, v, w, n, then h, gx, gy, gz, f, vmax. */
  windowPredictF32?(...args: number[]): void;
}

/**
 * The f64 window's particle passes of the elements module (scripts/kernels/emit-particle-passes.ts
 * windowPassF64; session 19, cl25): window p, window w, x, v, w, n, then as the f32 passes'.
 */
export interface WindowPassF64 {
  windowUpdatePredictF64(...args: number[]): void;
  windowPredictF64(...args: number[]): void;
}

/**
 * Whether an aos4 window's fused particle pass runs in the module (ParticleWindow.updatePredict;
 * on by default; off: the JavaScript loop, updatePredictStaged, with the same bits), and how many
 * module passes ran (the tests check that the module's pass is the one that runs); whether a
 * window may home the store's x, v and invMass in its memory (ParticleWindow.homeStore; off: the copies)
 * and how many module passes copied x and v (the tests check that the homed pass copies none);
 * how many substeps' predictions ran in the module (ParticleWindow.predict). Since session 19
 * (cl25) the same for f64 windows (the module's f64 passes, on a homed store only), and `pooled64`:
 * whether an f64 window swept on a pool is the prediction's window there, its substep's last
 * sweep updating and predicting in its blocks (PassInSweep; off: main's copy-out blocks with
 * UpdateInSweep, for the tests and A/B in one process).
 */
export const particlePass = { wasm: true, runs: 0, home: true, copied: 0, predicts: 0, pooled64: true };

/**
 * The blocks of a threaded sweep whose copy-out blocks may run the fused pass (each its counts at
 * its own pair of an aos4 window's count area: window-pass-threads.ts); a joint sweep's table has
 * at most 512 (element-order.ts).
 */
export const PASS_SLOTS = 512;

/**
 * Particles [from, to) of an `aos4` window in: positions p and inverse masses w of the store (from
 * particle `base` on) copied as f64 into the staging views S and SW (at the window's stageAt and
 * stageWAt), then rounded to f32 x y z w at pAt by the module (one f32x4 demotion per particle).
 */
export function loadAos4(
  ex: WindowMovesF32,
  win: { stageAt: number; stageWAt: number; pAt: number; base: number },
  S: Float64Array,
  SW: Float64Array,
  p: Float64Array,
  w: Float64Array,
  from: number,
  to: number,
): void {
  const b = win.base;
  S.set(p.subarray(3 * (b + from), 3 * (b + to)), 3 * from);
  SW.set(w.subarray(b + from, b + to), from);
  ex.windowLoadF32(win.stageAt + 24 * from, win.stageWAt + 8 * from, win.pAt + 16 * from, to - from);
}

/** Particles [from, to) of an `aos4` window out: x y z widened into the staging view S, then copied to p. */
export function saveAos4(
  ex: WindowMovesF32,
  win: { stageAt: number; pAt: number; base: number },
  S: Float64Array,
  p: Float64Array,
  from: number,
  to: number,
): void {
  ex.windowSaveF32(win.pAt + 16 * from, win.stageAt + 24 * from, to - from);
  copyRange(p, 3 * (win.base + from), S, 3 * from, 3 * to);
}
