/**
 * The second-order BDF2 integrator (WorldOptions.integrator = 'bdf2'; the
 * 2017 survey, seed 004, "Second Order Methods"):
 *
 *   x_{n+1} = 4/3 x_n − 1/3 x_{n−1} + 2/3 h v_{n+1}
 *   v_{n+1} = 4/3 v_n − 1/3 v_{n−1} + 2/3 h M⁻¹ (F_ext + F_int(x_{n+1}))
 *
 * Eliminating v_{n+1} gives the implicit-Euler problem of XPBD with the step
 * h′ = 2h/3 and the prediction
 *
 *   x̃ = 4/3 x_n − 1/3 x_{n−1} + 2/3 h v̂,  v̂ = 4/3 v_n − 1/3 v_{n−1} + 2/3 h a_ext,
 *
 * so the constraint solve is unchanged but for α̃ = α / h′² (StepContext.hSolve),
 * and after it the velocity is v_{n+1} = (x_{n+1} − 4/3 x_n + 1/3 x_{n−1}) / (2/3 h)
 * = (3 x_{n+1} − 4 x_n + x_{n−1}) / (2h). As the survey says, only the previous
 * position and velocity must be kept, here per particle with the position the
 * last update left (to notice a particle moved from outside the step) and the
 * velocity at the start of the substep, v_n (to tell the forces of this
 * substep, which the `forces` hooks add to v, from v_n).
 *
 * A particle without a history — the first substep, a particle added by an
 * emitter or tearing, one moved from outside the step (a teleport: x is not
 * what the last update left), every pinned or kinematic particle (w = 0) —
 * takes the implicit-Euler prediction and update for that substep (BDF1, the
 * usual start of BDF2). Checkpoints carry x_{n−1} and v_{n−1}
 * (WorldState.history), so a resumed run continues exactly.
 */
import { grownArray } from '../math/arrays.js';
import type { ParticleHistory } from './step-context.js';

/** Per-particle history of the BDF2 integrator. */
export class Bdf2History implements ParticleHistory {
  /** x_{n−1}, v_{n−1}: the state before the last update (3 per particle). */
  xPrev = new Float64Array(0);
  vPrev = new Float64Array(0);
  /** x_n, v_n as the last update left them (3 per particle). */
  xLast = new Float64Array(0);
  vLast = new Float64Array(0);
  /** 1 where the particle has a history (the last update was recorded). */
  has = new Uint8Array(0);
  /** 1 where this substep's prediction was second order (read by the update). */
  second = new Uint8Array(0);
  /** False until an update was recorded: the world's first substep is implicit Euler throughout (hSolve = h). */
  started = false;

  /** Grows the arrays to n particles, keeping their contents. */
  ensure(n: number): void {
    if (this.has.length >= n) return;
    const m = Math.max(n, 2 * this.has.length, 16);
    this.xPrev = grownArray(this.xPrev, 3 * m);
    this.vPrev = grownArray(this.vPrev, 3 * m);
    this.xLast = grownArray(this.xLast, 3 * m);
    this.vLast = grownArray(this.vLast, 3 * m);
    this.has = grownArray(this.has, m);
    this.second = new Uint8Array(m);
  }

  /** Forgets the history: the next substep of every particle is implicit Euler. */
  clear(): void {
    this.has.fill(0);
    this.started = false;
  }

  /** x_{n−1} and v_{n−1} of the first n particles, and which have them, for a checkpoint. */
  save(n: number): { xPrev: Float64Array; vPrev: Float64Array; has: Uint8Array } {
    this.ensure(n);
    return {
      xPrev: this.xPrev.slice(0, 3 * n),
      vPrev: this.vPrev.slice(0, 3 * n),
      has: this.has.slice(0, n),
    };
  }

  /** Restores a checkpoint's history; x_n, v_n are the checkpoint's x and v. */
  load(
    s: { xPrev: ArrayLike<number>; vPrev: ArrayLike<number>; has: ArrayLike<number> } | null | undefined,
    x: Float64Array,
    v: Float64Array,
    n: number,
  ): void {
    this.ensure(n);
    this.clear();
    if (!s) return;
    this.xPrev.set(s.xPrev);
    this.vPrev.set(s.vPrev);
    this.has.set(s.has);
    this.started = true;
    this.xLast.set(x.subarray(0, 3 * n));
    this.vLast.set(v.subarray(0, 3 * n));
  }
}

// predictBdf2 (v ← v̂, p ← x̃ where a particle has a history, the implicit-Euler prediction
// elsewhere) and updateBdf2 (v_{n+1} = (3 x_{n+1} − 4 x_n + x_{n−1}) / (2h), the history moved on)
// are printed with the other particle passes, from one definition of the prediction, the speed
// limit and the update's guards: scripts/kernels/emit-particle-passes.ts
export { predictBdf2, updateBdf2 } from './particle-passes.generated.js';
