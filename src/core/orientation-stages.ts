/**
 * Prediction and velocity update of the particles' orientation channels
 * (ParticleStore.q, qp, omega): oriented particles (Müller & Chentanez 2011;
 * seed 001 §4.4, eqs. 26–31) and, with moments of inertia, rods.
 *
 * Prediction (eq. 27), after the positions' (phase `predict`):
 *   ω ← e^{−c h} ω (the world's point damping),
 *   ω ← ω + h I⁻¹ (−ω × I ω) with I = R diag(I_b) Rᵀ, when the particle has
 *     moments of inertia (Euler's equations without torque: the gyroscopic
 *     term of Müller et al. 2020, §3, which the oriented-particle paper leaves out),
 *   q_p ← [ω/|ω| sin(|ω|h/2), cos(|ω|h/2)] q, normalised (q_p = q when |ω| < ε).
 * A particle keeps its orientation (q_p = q, ω = 0) when it cannot turn: in
 * ranges without moments of inertia when its inverse mass is 0, in ranges
 * with them when its inverse moments are all 0 (an orientation clamp,
 * Attachments.clampOrientation, or a moment given as Infinity) — so a rod's
 * end pinned in place may still turn. A body or clamp that drives held
 * orientations sets q_p in its beginStep hook.
 *
 * Velocity update (eqs. 30–31), after the positions' (phase `update`):
 *   r = q_p q⁻¹, taking −r when r_w < 0 (the shorter of the two rotations),
 *   ω ← axis(r) angle(r) / h (ω = 0 when angle(r) < ε), q ← q_p.
 */
import { Channels, type Stage } from './pipeline.js';
import { updateOrientationRange } from './pose-passes.generated.js';
import type { StepContext } from './step-context.js';

/** Below this |ω| (rad/s) the prediction keeps q, and below this angle (rad) the update sets ω = 0. */
export const ORIENTATION_EPSILON = 1e-9;

const { q: Q, qp: QP, omega: OMEGA, inertia: INERTIA, mass: MASS } = Channels;

/**
 * ω ← ω + h I⁻¹ (−ω × I ω) for the rotation of q (unit quaternion at q[qo])
 * and principal moments I[io … io + 2] (inverses Iinv), computed in the
 * body frame: ω_b = Rᵀ ω, ω_b += h I_b⁻¹ (−ω_b × I_b ω_b), ω = R ω_b.
 * Shared by the orientation channels and the rigid-body store.
 */
export function gyroscopicStep(
  omega: Float64Array,
  wo: number,
  q: Float64Array,
  qo: number,
  I: Float64Array,
  Iinv: Float64Array,
  io: number,
  h: number,
): void {
  const qx = q[qo],
    qy = q[qo + 1],
    qz = q[qo + 2],
    qw = q[qo + 3];
  const wx = omega[wo],
    wy = omega[wo + 1],
    wz = omega[wo + 2];
  // ω_b = Rᵀ ω: rotate by the conjugate, v + 2 r × (r × v − w v) with r = −(qx, qy, qz)
  let tx = 2 * (qz * wy - qy * wz),
    ty = 2 * (qx * wz - qz * wx),
    tz = 2 * (qy * wx - qx * wy);
  const bx = wx + qw * tx + (qz * ty - qy * tz),
    by = wy + qw * ty + (qx * tz - qz * tx),
    bz = wz + qw * tz + (qy * tx - qx * ty);
  const lx = I[io] * bx,
    ly = I[io + 1] * by,
    lz = I[io + 2] * bz;
  // Δω_b = h I_b⁻¹ (L_b × ω_b), i.e. −ω_b × L_b
  const dx = h * Iinv[io] * (ly * bz - lz * by),
    dy = h * Iinv[io + 1] * (lz * bx - lx * bz),
    dz = h * Iinv[io + 2] * (lx * by - ly * bx);
  // ω += R Δω_b
  tx = 2 * (qy * dz - qz * dy);
  ty = 2 * (qz * dx - qx * dz);
  tz = 2 * (qx * dy - qy * dx);
  omega[wo] = wx + dx + qw * tx + (qy * tz - qz * ty);
  omega[wo + 1] = wy + dy + qw * ty + (qz * tx - qx * tz);
  omega[wo + 2] = wz + dz + qw * tz + (qx * ty - qy * tx);
}

/** Eq. 27: the predicted orientations q_p of the oriented particle ranges. */
export class OrientationPredictionStage implements Stage {
  readonly name = 'orientations.predict';
  readonly phase = 'predict';
  readonly order = 1;
  readonly reads = [Q, OMEGA, INERTIA, MASS];
  readonly writes = [QP, OMEGA];

  run(ctx: StepContext): void {
    const r = ctx.store.orientedRanges;
    for (let k = 0; k < r.length; k += 3) this.predict(ctx, r[k], r[k] + r[k + 1], r[k + 2] === 1);
  }

  private predict(ctx: StepContext, from: number, to: number, gyroscopic: boolean): void {
    const store = ctx.store;
    const q = store.q,
      qp = store.qp,
      om = store.omega,
      w = store.invMass,
      iI = store.invInertia,
      inertia = store.inertia;
    const h = ctx.h;
    const c = ctx.world.damping;
    const damp = c > 0 ? Math.exp(-c * h) : 1;
    for (let i = from; i < to; i++) {
      const i4 = 4 * i,
        i3 = 3 * i;
      // held: a particle of no mass, or (ranges with inertia) one whose orientation does not turn (clamped)
      if (gyroscopic ? iI[i3] === 0 && iI[i3 + 1] === 0 && iI[i3 + 2] === 0 : w[i] === 0) {
        for (let k = 0; k < 4; k++) qp[i4 + k] = q[i4 + k];
        om[i3] = om[i3 + 1] = om[i3 + 2] = 0;
        continue;
      }
      om[i3] *= damp;
      om[i3 + 1] *= damp;
      om[i3 + 2] *= damp;
      if (gyroscopic) gyroscopicStep(om, i3, q, i4, inertia, iI, i3, h);
      const wx = om[i3],
        wy = om[i3 + 1],
        wz = om[i3 + 2];
      const wl = Math.sqrt(wx * wx + wy * wy + wz * wz);
      if (wl < ORIENTATION_EPSILON) {
        for (let k = 0; k < 4; k++) qp[i4 + k] = q[i4 + k];
        continue;
      }
      const half = 0.5 * wl * h;
      const s = Math.sin(half) / wl;
      const dx = wx * s,
        dy = wy * s,
        dz = wz * s,
        dw = Math.cos(half);
      const qx = q[i4],
        qy = q[i4 + 1],
        qz = q[i4 + 2],
        qw = q[i4 + 3];
      const nx = dw * qx + dx * qw + dy * qz - dz * qy,
        ny = dw * qy - dx * qz + dy * qw + dz * qx,
        nz = dw * qz + dx * qy - dy * qx + dz * qw,
        nw = dw * qw - dx * qx - dy * qy - dz * qz;
      // normalised with a square root (Math.hypot is a call V8 does not inline: it boxed the four
      // doubles of every particle); the product of unit quaternions is never near zero
      const len = Math.sqrt(nx * nx + ny * ny + nz * nz + nw * nw);
      qp[i4] = nx / len;
      qp[i4 + 1] = ny / len;
      qp[i4 + 2] = nz / len;
      qp[i4 + 3] = nw / len;
    }
  }
}

/** Eqs. 30–31: angular velocities from the change of orientation, then q ← q_p. */
export class OrientationVelocityStage implements Stage {
  readonly name = 'orientations.update';
  readonly phase = 'update';
  readonly order = 1;
  readonly reads = [Q, QP];
  readonly writes = [Q, OMEGA];

  run(ctx: StepContext): void {
    const r = ctx.store.orientedRanges;
    for (let k = 0; k < r.length; k += 3) this.update(ctx, r[k], r[k] + r[k + 1]);
  }

  /** Eqs. 30–31 over particles [from, to), printed with the rigid bodies' update (Δq from one template): scripts/kernels/emit-pose-passes.ts. */
  private update(ctx: StepContext, from: number, to: number): void {
    const store = ctx.store;
    updateOrientationRange(store.q, store.qp, store.omega, ctx.invH, ORIENTATION_EPSILON, from, to);
  }
}
