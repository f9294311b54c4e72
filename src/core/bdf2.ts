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
import type { ParticleHistory, StepContext } from './step-context.js';

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

/**
 * The BDF2 prediction of particles [from, to) (with gravity, point damping
 * and the speed limit as in ParticlePredictionStage): v ← v̂, p ← x̃ for the
 * particles with a history, the implicit-Euler prediction for the others.
 */
export function predictBdf2(ctx: StepContext, hist: ParticleHistory, from: number, to: number): void {
  const h = ctx.h;
  const store = ctx.store;
  const world = ctx.world;
  hist.ensure(store.count);
  const x = store.x;
  const p = store.p;
  const v = store.v;
  const w = store.invMass;
  const { xPrev, vPrev, xLast, vLast, has, second } = hist;
  const gx = world.gravity[0] * h;
  const gy = world.gravity[1] * h;
  const gz = world.gravity[2] * h;
  const f = world.damping > 0 ? Math.exp(-world.damping * h) : 1;
  const vmax = world.maxSpeed;
  const vmax2 = vmax * vmax;
  const k = (2 / 3) * h;
  for (let i = from; i < to; i++) {
    const i3 = 3 * i;
    let vx = v[i3];
    let vy = v[i3 + 1];
    let vz = v[i3 + 2];
    // a teleport (x moved since the last update), a new particle or a pinned one: first order
    const two =
      has[i] === 1 &&
      w[i] !== 0 &&
      x[i3] === xLast[i3] &&
      x[i3 + 1] === xLast[i3 + 1] &&
      x[i3 + 2] === xLast[i3 + 2];
    second[i] = two ? 1 : 0;
    if (w[i] !== 0) {
      if (two) {
        // v̂ = 4/3 v_n − 1/3 v_{n−1} + 2/3 h a_ext; the forces hooks added h a to v this substep
        const ax = vx - vLast[i3] + gx;
        const ay = vy - vLast[i3 + 1] + gy;
        const az = vz - vLast[i3 + 2] + gz;
        vx = ((4 * vLast[i3] - vPrev[i3]) / 3 + (2 / 3) * ax) * f;
        vy = ((4 * vLast[i3 + 1] - vPrev[i3 + 1]) / 3 + (2 / 3) * ay) * f;
        vz = ((4 * vLast[i3 + 2] - vPrev[i3 + 2]) / 3 + (2 / 3) * az) * f;
      } else {
        vx = (vx + gx) * f;
        vy = (vy + gy) * f;
        vz = (vz + gz) * f;
      }
      const s2 = vx * vx + vy * vy + vz * vz;
      if (s2 > vmax2) {
        const c = vmax / Math.sqrt(s2);
        vx *= c;
        vy *= c;
        vz *= c;
      }
      v[i3] = vx;
      v[i3 + 1] = vy;
      v[i3 + 2] = vz;
    }
    if (two) {
      // x̃ = 4/3 x_n − 1/3 x_{n−1} + 2/3 h v̂
      p[i3] = (4 * x[i3] - xPrev[i3]) / 3 + k * vx;
      p[i3 + 1] = (4 * x[i3 + 1] - xPrev[i3 + 1]) / 3 + k * vy;
      p[i3 + 2] = (4 * x[i3 + 2] - xPrev[i3 + 2]) / 3 + k * vz;
    } else {
      p[i3] = x[i3] + h * vx;
      p[i3 + 1] = x[i3 + 1] + h * vy;
      p[i3 + 2] = x[i3 + 2] + h * vz;
    }
  }
}

/**
 * The BDF2 velocity update of particles [from, to), with the guards of
 * ParticleVelocityStage (a non-finite state is reset, a move is held to
 * maxSpeed · h): v_{n+1} = (3 x_{n+1} − 4 x_n + x_{n−1}) / (2h) where the
 * prediction was second order, (x_{n+1} − x_n)/h elsewhere; then the history
 * moves on (x_{n−1} ← x_n, v_{n−1} ← v_n) and x ← p.
 */
export function updateBdf2(ctx: StepContext, hist: ParticleHistory, from: number, to: number): void {
  const store = ctx.store;
  const stats = ctx.world.stats;
  hist.ensure(store.count);
  const x = store.x;
  const p = store.p;
  const v = store.v;
  const invH = ctx.invH;
  const half = 0.5 * ctx.invH;
  const reach = ctx.world.maxSpeed * ctx.h;
  const reach2 = reach * reach;
  const { xPrev, vPrev, xLast, vLast, has, second } = hist;
  for (let i = from; i < to; i++) {
    const i3 = 3 * i;
    let px = p[i3];
    let py = p[i3 + 1];
    let pz = p[i3 + 2];
    if (px - px !== 0 || py - py !== 0 || pz - pz !== 0) {
      v[i3] = v[i3 + 1] = v[i3 + 2] = 0;
      p[i3] = x[i3];
      p[i3 + 1] = x[i3 + 1];
      p[i3 + 2] = x[i3 + 2];
      has[i] = 0;
      stats.recoveries++;
      continue;
    }
    let dx = px - x[i3];
    let dy = py - x[i3 + 1];
    let dz = pz - x[i3 + 2];
    const d2 = dx * dx + dy * dy + dz * dz;
    if (d2 > reach2) {
      const c = reach / Math.sqrt(d2);
      dx *= c;
      dy *= c;
      dz *= c;
      px = x[i3] + dx;
      py = x[i3 + 1] + dy;
      pz = x[i3 + 2] + dz;
      stats.speedClamps++;
    }
    let vx: number;
    let vy: number;
    let vz: number;
    if (second[i] === 1) {
      vx = (3 * px - 4 * x[i3] + xPrev[i3]) * half;
      vy = (3 * py - 4 * x[i3 + 1] + xPrev[i3 + 1]) * half;
      vz = (3 * pz - 4 * x[i3 + 2] + xPrev[i3 + 2]) * half;
    } else {
      vx = dx * invH;
      vy = dy * invH;
      vz = dz * invH;
    }
    xPrev[i3] = x[i3];
    xPrev[i3 + 1] = x[i3 + 1];
    xPrev[i3 + 2] = x[i3 + 2];
    vPrev[i3] = vLast[i3];
    vPrev[i3 + 1] = vLast[i3 + 1];
    vPrev[i3 + 2] = vLast[i3 + 2];
    v[i3] = vLast[i3] = vx;
    v[i3 + 1] = vLast[i3 + 1] = vy;
    v[i3 + 2] = vLast[i3 + 2] = vz;
    x[i3] = xLast[i3] = px;
    x[i3 + 1] = xLast[i3 + 1] = py;
    x[i3 + 2] = xLast[i3 + 2] = pz;
    has[i] = 1;
  }
  if (to > from) hist.started = true;
}
