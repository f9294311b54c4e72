/**
 * Attachments of particles to points of rigid bodies (003 §3.6 and Figure 8:
 * cloth stripes hanging from a rotating rigid body), coupled two ways: a
 * zero-length constraint C = |p − q| between the particle p and the body
 * point q = x + R r_b (r_b fixed in the body frame), projected as one XPBD
 * positional constraint between a particle and a point of a rigid body
 * (Müller et al. 2020 eqs. 2–9 with the particle's inverse mass w on the
 * other side; 003 §4.2's impulse exchange):
 *
 *   Δλ = (C − α̃ λ) / (w + w_b + α̃),  w_b = 1/m + (r × n)ᵀ I⁻¹ (r × n),
 *   p ← p − w Δλ n,  body ← +Δλ n at q,  n = (p − q)/|p − q|,
 *
 * so the cloth pulls the body as much as the body pulls the cloth. A hard
 * attachment has compliance 0; a soft one a compliance α (m/N), α̃ = α/h²,
 * in XPBD whatever the world's rule (like the core's soft attachments). A
 * static, kinematic or removed body has w_b = 0: its point drives the
 * particle. Bodies with attached particles do not fall asleep.
 */
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { PbdError } from '../core/errors.js';
import { RIGID_DISABLED } from '../core/rigid-store.js';
import type { SystemKind, World } from '../core/world.js';
import { RigidAttachmentArrays } from './rigid-attachment-arrays.generated.js';
import { RigidBodies } from './rigid-bodies.js';
import type { RigidBody } from './rigid-body.js';
import { applyPositionalImpulse, bodyPointToWorld, positionalInverseMass, worldPointToBody } from './xpbd.js';

/** Options of attachToRigidBody. */
export interface RigidAttachOptions {
  /** The point of the body (world, at the body's current pose). Default: where the particle is now. */
  point?: [number, number, number];
  /** Compliance α (m/N); 0 (default) is a hard attachment. */
  compliance?: number;
}

const Q = new Float64Array(3);

/**
 * The world's particle–rigid attachments: a constraint set (order −5, after the core's attachments).
 * Their per-entry arrays (particle, body, local, compliance, lambda) and grow are
 * RigidAttachmentArrays', printed from one table by scripts/kernels/emit-layouts.ts.
 */
export class RigidAttachments extends RigidAttachmentArrays implements ConstraintSet {
  readonly kind = 'rigid-attachment';
  readonly order = -5;
  enabled = true;
  private readonly world: World;

  /** The world's rigid attachments, installed on first use. */
  static of(world: World): RigidAttachments {
    return world.system(rigidAttachmentsKind);
  }

  constructor(world: World) {
    super();
    this.world = world;
    this.grow(16);
  }

  /** Attaches particle i (a store index) to body b; returns the entry. */
  attach(i: number, body: RigidBody, o: RigidAttachOptions = {}): number {
    const s = this.world.store,
      r = this.world.rigids;
    const where = `attachment of particle ${i} to ${body.name}`;
    if (!(Number.isInteger(i) && i >= 0 && i < s.count)) {
      throw new PbdError('attachment/bad-index', where, `there are ${s.count} particles`);
    }
    const c = o.compliance ?? 0;
    if (!(c >= 0) || !Number.isFinite(c)) {
      throw new PbdError('attachment/bad-compliance', `${where}.compliance`, `must be ≥ 0 (m/N), got ${c}`);
    }
    const pt = o.point ?? [s.x[3 * i], s.x[3 * i + 1], s.x[3 * i + 2]];
    if (pt.length !== 3 || !pt.every(Number.isFinite)) {
      throw new PbdError('attachment/bad-point', `${where}.point`, 'must be three finite numbers (m)');
    }
    if (this.count === this.capacity) this.grow(2 * this.count);
    const k = this.count++;
    this.particle[k] = i;
    this.body[k] = body.index;
    worldPointToBody(r, body.index, pt[0], pt[1], pt[2], this.local, 3 * k);
    this.compliance[k] = c;
    this.lambda[k] = 0;
    return k;
  }

  /** Removes every attachment of particle i. */
  detach(i: number): void {
    let m = 0;
    for (let k = 0; k < this.count; k++) {
      if (this.particle[k] === i) continue;
      this.particle[m] = this.particle[k];
      this.body[m] = this.body[k];
      for (let d = 0; d < 3; d++) this.local[3 * m + d] = this.local[3 * k + d];
      this.compliance[m] = this.compliance[k];
      m++;
    }
    this.count = m;
  }

  /** The world point of entry k at its body's current pose, into Q. */
  private place(k: number): void {
    const L = this.local;
    bodyPointToWorld(this.world.rigids, this.body[k], L[3 * k], L[3 * k + 1], L[3 * k + 2], Q);
  }

  beginStep(ctx: StepContext): void {
    this.lambda.fill(0, 0, this.count);
    if (ctx.substep !== 0 || this.count === 0) return;
    // bodies that carry particles stay awake
    const sys = RigidBodies.of(this.world);
    for (let k = 0; k < this.count; k++) {
      const b = this.body[k];
      if (ctx.store.invMass[this.particle[k]] === 0) continue;
      sys.still[b] = 0;
      if (sys.sleeping[b]) sys.wake(b);
    }
  }

  project(ctx: StepContext): void {
    const p = ctx.store.p,
      wp = ctx.store.invMass,
      r = ctx.rigids;
    const ih2 = 1 / (ctx.h * ctx.h);
    for (let k = 0; k < this.count; k++) {
      const i3 = 3 * this.particle[k],
        b = this.body[k],
        b3 = 3 * b;
      this.place(k);
      const dx = p[i3] - Q[0],
        dy = p[i3 + 1] - Q[1],
        dz = p[i3 + 2] - Q[2];
      const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
      if (!(len > 1e-12)) continue;
      const nx = dx / len,
        ny = dy / len,
        nz = dz / len;
      const rx = Q[0] - r.x[b3],
        ry = Q[1] - r.x[b3 + 1],
        rz = Q[2] - r.x[b3 + 2];
      const movable = r.invMass[b] !== 0 && (r.flags[b] & RIGID_DISABLED) === 0;
      const w = wp[this.particle[k]];
      const wb = movable ? positionalInverseMass(r, b, rx, ry, rz, nx, ny, nz) : 0;
      const at = this.compliance[k] * ih2;
      const den = w + wb + at;
      if (!(den > 0)) continue;
      const dl = (len - at * this.lambda[k]) / den;
      this.lambda[k] += dl;
      p[i3] -= w * dl * nx;
      p[i3 + 1] -= w * dl * ny;
      p[i3 + 2] -= w * dl * nz;
      if (movable) applyPositionalImpulse(r, b, rx, ry, rz, dl * nx, dl * ny, dl * nz, 1);
    }
  }

  readonly violationUnit = 'm';

  maxViolation(): number {
    const p = this.world.store.x;
    let m = 0;
    for (let k = 0; k < this.count; k++) {
      const i3 = 3 * this.particle[k];
      this.place(k);
      m = Math.max(m, Math.hypot(p[i3] - Q[0], p[i3 + 1] - Q[1], p[i3 + 2] - Q[2]));
    }
    return m;
  }
}

/** The set's kind (see SystemKind). */
export const rigidAttachmentsKind: SystemKind<RigidAttachments> = {
  name: 'rigid attachments',
  install(world) {
    const a = new RigidAttachments(world as World);
    (world as World).addConstraintSet(a);
    return a;
  },
};

/**
 * Attaches particle i (a store index: `body.offset + vertex`) to a point of
 * a rigid body, hard (compliance 0) or soft; see RigidAttachments.
 */
export function attachToRigidBody(i: number, body: RigidBody, o: RigidAttachOptions = {}): number {
  return RigidAttachments.of(body.world).attach(i, body, o);
}
