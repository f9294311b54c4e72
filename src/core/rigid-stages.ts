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
 *   Δq ← q q_prev⁻¹,  ω ← 2 [Δq_x, Δq_y, Δq_z] / h,  ω ← Δq_w ≥ 0 ? ω : −ω
 * A body whose pose became non-finite gets its previous pose back and stops
 * (`stats.recoveries`). Bodies flagged RIGID_DISABLED are skipped. A body
 * with inverse mass 0 is kinematic: its velocities are inputs, which the
 * prediction integrates and the update leaves as they are.
 */
import { gyroscopicStep } from './orientation-stages.js';
import { Channels, RangeStage } from './pipeline.js';
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
        // Euler's equations without external torque (a body with an immovable axis has no gyroscopic term)
        if (invInertia[i3] !== 0 && invInertia[i3 + 1] !== 0 && invInertia[i3 + 2] !== 0) {
          gyroscopicStep(omega, i3, q, i4, inertia, invInertia, i3, h);
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
      // q ← q + ½ h [ω, 0] q, then normalised
      const hx = 0.5 * h * omega[i3],
        hy = 0.5 * h * omega[i3 + 1],
        hz = 0.5 * h * omega[i3 + 2];
      const nx = qx + (hx * qw + hy * qz - hz * qy),
        ny = qy + (hy * qw + hz * qx - hx * qz),
        nz = qz + (hz * qw + hx * qy - hy * qx),
        nw = qw - (hx * qx + hy * qy + hz * qz);
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

  runRange(ctx: StepContext, from: number, to: number): void {
    const { x, q, xPrev, qPrev, v, omega, invMass, flags } = ctx.rigids;
    const stats = ctx.world.stats;
    const invH = ctx.invH;
    for (let i = from; i < to; i++) {
      if ((flags[i] & RIGID_DISABLED) !== 0) continue;
      const i3 = 3 * i,
        i4 = 4 * i;
      const px = x[i3],
        py = x[i3 + 1],
        pz = x[i3 + 2];
      const ax = q[i4],
        ay = q[i4 + 1],
        az = q[i4 + 2],
        aw = q[i4 + 3];
      if (px - px !== 0 || py - py !== 0 || pz - pz !== 0 || ax - ax + ay - ay + az - az + aw - aw !== 0) {
        // a non-finite pose: back to the last good one, at rest
        for (let k = 0; k < 3; k++) {
          x[i3 + k] = xPrev[i3 + k];
          v[i3 + k] = omega[i3 + k] = 0;
        }
        for (let k = 0; k < 4; k++) q[i4 + k] = qPrev[i4 + k];
        stats.recoveries++;
        continue;
      }
      if (invMass[i] === 0) continue;
      v[i3] = (px - xPrev[i3]) * invH;
      v[i3 + 1] = (py - xPrev[i3 + 1]) * invH;
      v[i3 + 2] = (pz - xPrev[i3 + 2]) * invH;
      // Δq = q q_prev⁻¹
      const bx = -qPrev[i4],
        by = -qPrev[i4 + 1],
        bz = -qPrev[i4 + 2],
        bw = qPrev[i4 + 3];
      const dx = aw * bx + ax * bw + ay * bz - az * by,
        dy = aw * by - ax * bz + ay * bw + az * bx,
        dz = aw * bz + ax * by - ay * bx + az * bw,
        dw = aw * bw - ax * bx - ay * by - az * bz;
      const s = dw >= 0 ? 2 * invH : -2 * invH;
      omega[i3] = dx * s;
      omega[i3 + 1] = dy * s;
      omega[i3 + 2] = dz * s;
    }
  }
}
