/**
 * Prediction and velocity update of the rigid-body store, after Müller et
 * al. 2020, "Detailed Rigid Body Simulation with Extended Position Based
 * Dynamics", §3 (Algorithm 2). Per substep of length h:
 *
 * Prediction (phase `predict`, after the particles'):
 *   x_prev ← x,  v ← v + h g,  x ← x + h v
 *   q_prev ← q,  ω ← ω + h I⁻¹ (τ_ext − ω × (I ω))  (τ_ext = 0 here),
 *   q ← q + ½ h [ω_x, ω_y, ω_z, 0] q,  q ← q / |q|
 * plus, as for particles, the world's point damping e^{−c h} on v and ω and
 * the speed limit on |v|.
 *
 * Velocity update (phase `update`), after the constraint sets moved x and q:
 *   v ← (x − x_prev) / h
 *   Δq ← q q_prev⁻¹,  Δq ← Δq_w ≥ 0 ? Δq : −Δq,  ω ← 2 [Δq_x, Δq_y, Δq_z] / (h Δq_w)
 *
 * Two departures from the paper, both so that a torque-free body keeps its
 * angular momentum to round-off instead of to first order in h:
 *
 * - The velocity update divides by Δq_w. The normalised prediction turns q
 *   by the angle 2 atan(h|ω|/2), for which 2 vec(Δq)/h = ω/√(1 + (h|ω|/2)²):
 *   the paper's update loses that factor every substep. With Δq_w the update
 *   inverts the prediction exactly (Δq = [½hω, 1]/√(1 + (h|ω|/2)²)).
 * - The gyroscopic term is implicit and conserves L exactly (a discrete
 *   Euler equation in the manner of Moser and Veselov): with ψ(ω) the half
 *   of the substep's turn about ω, the momentum carried from the last
 *   substep is L = rot(−ψ(ω₋)) I(q) ω₋, and the new ω solves
 *   rot(ψ(ω)) I(q) ω = L, by fixed-point iteration ω ← I(q)⁻¹ rot(−ψ(ω)) L
 *   (contracting by about h|ω| per iteration). rot(ψ) rotates by
 *   ψ = atan(h|ω|/2) about ω: with a = ½hω and c = 1/√(1 + |a|²),
 *   rot(±ψ) v = c v ± c a × v + a (a·v) c²/(1 + c). The momentum after the
 *   substep, rot(−ψ(ω)) I(q_next) ω = rot(ψ(ω)) I(q) ω, is then L again.
 *
 * A body whose pose became non-finite gets its previous pose back and stops
 * (`stats.recoveries`). Bodies flagged RIGID_DISABLED are skipped (removed or
 * asleep). A body with inverse mass 0 is kinematic: its velocities are
 * inputs, which the prediction integrates exactly (q turns by h|ω| about ω)
 * and the update leaves as they are.
 */
import { Channels, RangeStage } from './pipeline.js';
import { updateRigidRange } from './pose-passes.generated.js';
import { RIGID_DISABLED, RIGID_NO_GRAVITY } from './rigid-store.js';
import type { StepContext } from './step-context.js';

const { rigidPose: POSE, rigidPrevPose: PREV, rigidVelocity: VEL, rigidMass: MASS } = Channels;

/** Müller et al. 2020, Algorithm 2, lines 3–9: the predicted poses. */
export class RigidPredictionStage extends RangeStage {
  readonly name = 'rigids.predict';
  readonly phase = 'predict';
  readonly order = 2;
  readonly reads = [POSE, VEL, MASS];
  readonly writes = [POSE, PREV, VEL];

  items(ctx: StepContext): number {
    return ctx.rigids.count;
  }

  runRange(ctx: StepContext, from: number, to: number): void {
    const r = ctx.rigids;
    const { x, q, xPrev, qPrev, v, omega, invMass, inertia, invInertia, flags } = r;
    const world = ctx.world;
    const h = ctx.h;
    const g = world.gravity;
    const f = world.damping > 0 ? Math.exp(-world.damping * h) : 1;
    const vmax = world.maxSpeed;
    for (let i = from; i < to; i++) {
      const fl = flags[i];
      if ((fl & RIGID_DISABLED) !== 0) continue;
      const i3 = 3 * i,
        i4 = 4 * i;
      let vx = v[i3],
        vy = v[i3 + 1],
        vz = v[i3 + 2];
      if (invMass[i] !== 0) {
        if ((fl & RIGID_NO_GRAVITY) === 0) {
          vx += h * g[0];
          vy += h * g[1];
          vz += h * g[2];
        }
        vx *= f;
        vy *= f;
        vz *= f;
        const s = Math.sqrt(vx * vx + vy * vy + vz * vz);
        if (s > vmax) {
          const k = vmax / s;
          vx *= k;
          vy *= k;
          vz *= k;
        }
        v[i3] = vx;
        v[i3 + 1] = vy;
        v[i3 + 2] = vz;
        omega[i3] *= f;
        omega[i3 + 1] *= f;
        omega[i3 + 2] *= f;
        // Euler's equations without external torque, implicit and momentum-conserving (a body with an
        // immovable axis has no gyroscopic term, nor has one with equal principal moments, a cube or a
        // sphere: with I = cE, ω × Iω = 0 and the solve's answer is ω itself, rot(ψ(ω)) ω = ω)
        const iso = inertia[i3] === inertia[i3 + 1] && inertia[i3] === inertia[i3 + 2];
        if (!iso && invInertia[i3] !== 0 && invInertia[i3 + 1] !== 0 && invInertia[i3 + 2] !== 0) {
          gyroscopicSolve(omega, q, inertia, invInertia, i3, i4, h);
        }
      }
      xPrev[i3] = x[i3];
      xPrev[i3 + 1] = x[i3 + 1];
      xPrev[i3 + 2] = x[i3 + 2];
      x[i3] += h * vx;
      x[i3 + 1] += h * vy;
      x[i3 + 2] += h * vz;
      const qx = q[i4],
        qy = q[i4 + 1],
        qz = q[i4 + 2],
        qw = q[i4 + 3];
      qPrev[i4] = qx;
      qPrev[i4 + 1] = qy;
      qPrev[i4 + 2] = qz;
      qPrev[i4 + 3] = qw;
      let hx = 0.5 * h * omega[i3],
        hy = 0.5 * h * omega[i3 + 1],
        hz = 0.5 * h * omega[i3 + 2];
      let hw = 1;
      if (invMass[i] === 0) {
        // kinematic: exactly the turn h|ω| about ω, [sin(h|ω|/2) ω/|ω|, cos(h|ω|/2)]
        const a = Math.sqrt(hx * hx + hy * hy + hz * hz);
        if (a > 0) {
          const s = Math.sin(a) / a;
          hx *= s;
          hy *= s;
          hz *= s;
          hw = Math.cos(a);
        }
      }
      // q ← [½ h ω, 1] q (dynamic), or the exact turn (kinematic), then normalised
      const nx = hw * qx + (hx * qw + hy * qz - hz * qy),
        ny = hw * qy + (hy * qw + hz * qx - hx * qz),
        nz = hw * qz + (hz * qw + hx * qy - hy * qx),
        nw = hw * qw - (hx * qx + hy * qy + hz * qz);
      const inv = 1 / Math.sqrt(nx * nx + ny * ny + nz * nz + nw * nw);
      q[i4] = nx * inv;
      q[i4 + 1] = ny * inv;
      q[i4 + 2] = nz * inv;
      q[i4 + 3] = nw * inv;
    }
  }
}

/** Müller et al. 2020, Algorithm 2, lines 12–15: velocities from the change of pose. */
export class RigidVelocityStage extends RangeStage {
  readonly name = 'rigids.update';
  readonly phase = 'update';
  readonly order = 2;
  readonly reads = [POSE, PREV];
  readonly writes = [POSE, VEL];

  items(ctx: StepContext): number {
    return ctx.rigids.count;
  }

  /** The loop is printed with the oriented particles' update (Δq from one template): scripts/kernels/emit-pose-passes.ts. */
  runRange(ctx: StepContext, from: number, to: number): void {
    updateRigidRange(ctx.rigids, ctx.world.stats, ctx.invH, from, to);
  }
}

/** Scratch of the gyroscopic solve: the vector being turned (L), the body's orientation (Q) and ½hω (A). */
const L = new Float64Array(3);
const Q = new Float64Array(4);
const A = new Float64Array(3);

/**
 * The implicit, momentum-conserving gyroscopic step of a body with finite
 * moments (see the header): L = rot(−ψ(ω)) I(q) ω, then ω ← I(q)⁻¹ rot(−ψ(ω)) L
 * until it no longer changes (at most 12 iterations). Writes omega[i3 …].
 * Vectors pass through the scratch arrays: a call V8 does not inline boxes
 * its double arguments.
 */
export function gyroscopicSolve(
  omega: Float64Array,
  q: Float64Array,
  inertia: Float64Array,
  invInertia: Float64Array,
  i3: number,
  i4: number,
  h: number,
): void {
  Q[0] = q[i4];
  Q[1] = q[i4 + 1];
  Q[2] = q[i4 + 2];
  Q[3] = q[i4 + 3];
  let wx = omega[i3],
    wy = omega[i3 + 1],
    wz = omega[i3 + 2];
  if (wx === 0 && wy === 0 && wz === 0) return;
  const s = 0.5 * h;
  // I(q) ω = R (I_b ⊙ Rᵀ ω)
  L[0] = wx;
  L[1] = wy;
  L[2] = wz;
  worldDiagonal(inertia, i3);
  A[0] = s * wx;
  A[1] = s * wy;
  A[2] = s * wz;
  halfTurnBack();
  const lx = L[0],
    ly = L[1],
    lz = L[2];
  for (let it = 0; it < 12; it++) {
    L[0] = lx;
    L[1] = ly;
    L[2] = lz;
    A[0] = s * wx;
    A[1] = s * wy;
    A[2] = s * wz;
    halfTurnBack();
    worldDiagonal(invInertia, i3);
    const dx = L[0] - wx,
      dy = L[1] - wy,
      dz = L[2] - wz;
    wx = L[0];
    wy = L[1];
    wz = L[2];
    if (dx * dx + dy * dy + dz * dz <= 1e-32 * (wx * wx + wy * wy + wz * wz)) break;
  }
  omega[i3] = wx;
  omega[i3 + 1] = wy;
  omega[i3 + 2] = wz;
}

/** L ← R(Q) (D[o …] ⊙ R(Q)ᵀ L): a diagonal body-frame tensor applied in the world frame. */
function worldDiagonal(D: Float64Array, o: number): void {
  const qx = Q[0],
    qy = Q[1],
    qz = Q[2],
    qw = Q[3];
  const vx = L[0],
    vy = L[1],
    vz = L[2];
  // Rᵀ v: rotation by the conjugate
  let tx = 2 * (qz * vy - qy * vz),
    ty = 2 * (qx * vz - qz * vx),
    tz = 2 * (qy * vx - qx * vy);
  const bx = D[o] * (vx + qw * tx + (qz * ty - qy * tz)),
    by = D[o + 1] * (vy + qw * ty + (qx * tz - qz * tx)),
    bz = D[o + 2] * (vz + qw * tz + (qy * tx - qx * ty));
  tx = 2 * (qy * bz - qz * by);
  ty = 2 * (qz * bx - qx * bz);
  tz = 2 * (qx * by - qy * bx);
  L[0] = bx + qw * tx + (qy * tz - qz * ty);
  L[1] = by + qw * ty + (qz * tx - qx * tz);
  L[2] = bz + qw * tz + (qx * ty - qy * tx);
}

/** L ← rot(−ψ) L: the turn back by ψ = atan(|a|) about a = A (see the header). */
function halfTurnBack(): void {
  const ax = A[0],
    ay = A[1],
    az = A[2];
  const s = ax * ax + ay * ay + az * az;
  const c = 1 / Math.sqrt(1 + s);
  const vx = L[0],
    vy = L[1],
    vz = L[2];
  const k = (c * c * (ax * vx + ay * vy + az * vz)) / (1 + c);
  L[0] = c * vx - c * (ay * vz - az * vy) + k * ax;
  L[1] = c * vy - c * (az * vx - ax * vz) + k * ay;
  L[2] = c * vz - c * (ax * vy - ay * vx) + k * az;
}
