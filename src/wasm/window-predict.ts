/**
 * A threaded world's first prediction of a step in its first sweep's copy-in blocks (session 24,
 * sub31; docs/solver.md "Threads"). Where the substep's prediction goes into the window of a
 * sweep that runs on the pool (core/window-passes.ts predictionWindow, the store homed in the
 * window's memory), the prediction stage no longer runs the module's pass on the calling thread
 * (003 Algorithm 1, lines 5–7: 0.17 ms a step for a 201 × 201 cloth, the workers idle): it arms the
 * window's DeferredPrediction, and the substep's first sweep, which holds that window and so copies
 * nothing in, runs the same pass in its copy-in blocks (FUSED_LOAD), each on its particles, before
 * any block that reads them (element-order.ts's dependencies). The pass is the module's
 * windowPredictF32 (aos4) or windowPredictF64 on a range of the window: per particle the very
 * operations of the whole-window pass (ParticleWindow.predict), each from its own x, v and w, so
 * the bits do not depend on the block, the thread or the moment.
 *
 * Between the prediction and that sweep the hooks of the beginStep stage run; the stiff
 * attachments place their pinned particles in the window (ParticleWindow.place). Those placements
 * are recorded in order while the prediction waits and written by the block of their particle
 * after its pass: the values and the order of one thread's prediction and placement. Anything else
 * that reads or writes the window first (a load, a flush or settle, the staged passes, a sweep not
 * run as one job) runs the waiting prediction whole on the calling thread first
 * (ParticleWindow.settlePrediction): the path before this session, the same bits.
 */

/**
 * Slots of ElementArgs.par (element-threads.ts's own end at 14): 1 where the copy-in blocks predict,
 * then the pass's arguments (DeferredPrediction.q) and the placements' count; the blocks' functions
 * are window-pass-threads.ts's armPredictInLoad and predictBlock.
 */
export const PREDICT = 16;
/** The deferred prediction's slots after PREDICT: its arguments (DeferredPrediction.q), then the placements' count. */
export const [PXAT, PVAT, PWAT, PH, PGX, PGY, PGZ, PF, PVMAX, PLACES] = [
  17, 18, 19, 20, 21, 22, 23, 24, 25, 26,
];
/** Slots of ElementArgs.par. */
export const PAR_SLOTS = 32;
/** Placements a sweep's blocks take (ElementArgs.places: 4 numbers each); more: the prediction runs whole first. */
export const MAX_PLACES = 64;

/** A window's prediction waiting for its first sweep's copy-in blocks (ParticleWindow.deferred). */
export class DeferredPrediction {
  /** Whether a prediction waits. */
  armed = false;
  /** The pass's arguments: the byte addresses of the store's x, v, w at the window's first particle, h, h g, f, vmax. */
  readonly q = new Float64Array(9);
  /** The placements made meanwhile: window index, x, y, z each, in order. */
  places = new Float64Array(4 * 8);
  n = 0;
  /** Whether the prediction stage may defer (the A/B and the tests; off: the module's pass on the calling thread). */
  static on = true;
  /** Whether an f64 window may defer too (on by default; off: only aos4 f32 windows, for a quiet A/B of the f64 cases). */
  static f64 = true;
  /** Predictions taken by a sweep's copy-in blocks (the tests count them). */
  static inBlocks = 0;

  arm(
    on: { x: Float64Array; v: Float64Array; w: Float64Array },
    p: { h: number; hg: Float64Array; f: number; vmax: number },
  ): void {
    const q = this.q;
    q[0] = on.x.byteOffset;
    q[1] = on.v.byteOffset;
    q[2] = on.w.byteOffset;
    q[3] = p.h;
    q.set(p.hg, 4);
    q[7] = p.f;
    q[8] = p.vmax;
    this.n = 0;
    this.armed = true;
  }

  /** Particle i of the window placed on (x, y, z) while the prediction waits. */
  record(i: number, x: number, y: number, z: number): void {
    if (4 * this.n === this.places.length) {
      const more = new Float64Array(2 * this.places.length);
      more.set(this.places);
      this.places = more;
    }
    const L = this.places;
    const j = 4 * this.n++;
    L[j] = i;
    L[j + 1] = x;
    L[j + 2] = y;
    L[j + 3] = z;
  }
}
