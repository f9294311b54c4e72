import type { ConstraintSet, StepContext } from './constraint-set.js';
import { PbdError } from './errors.js';
import type { Motion } from './motion.js';
import type { ParticleStore } from './particles.js';

/** How a particle is attached. */
export interface AttachOptions {
  /** Fixed target (world, m). Default: where the particle is now. */
  target?: [number, number, number];
  /** Scripted motion: the target is motion(t) applied to the anchor (default: the particle's current position). */
  motion?: Motion;
  /**
   * 0 (default): a hard attachment (003 §3.6): the particle gets inverse mass
   * 0 and is placed on its target every substep. > 0: a soft attachment, a
   * zero-length XPBD distance constraint of this compliance (m/N) to the target.
   */
  compliance?: number;
}

/**
 * Attachments of particles to fixed points, to scripted (kinematic) targets,
 * and the mouse drag (003 §3.6). Entries live in typed arrays; pins can be
 * added and removed at run time.
 *
 * Soft attachments always use the XPBD rule, whatever the world's solver,
 * so that a drag feels the same in both modes.
 */
export class Attachments implements ConstraintSet {
  readonly kind = 'attachment';
  readonly order = -10;
  enabled = true;
  count = 0;
  private capacity = 0;
  particle = new Int32Array(0);
  target = new Float64Array(0);
  anchor = new Float64Array(0);
  compliance = new Float64Array(0);
  savedInvMass = new Float64Array(0);
  lambda = new Float64Array(0);
  motions: (Motion | null)[] = [];
  private readonly entryOf = new Map<number, number>();
  private readonly store: ParticleStore;
  private alphaScale = 0;

  constructor(store: ParticleStore) {
    this.store = store;
    this.grow(16);
  }

  private grow(cap: number): void {
    const g = <T extends Float64Array | Int32Array>(a: T, stride: number): T => {
      const b = new (a.constructor as new (n: number) => T)(cap * stride);
      b.set(a.subarray(0, this.count * stride));
      return b;
    };
    this.particle = g(this.particle, 1);
    this.target = g(this.target, 3);
    this.anchor = g(this.anchor, 3);
    this.compliance = g(this.compliance, 1);
    this.savedInvMass = g(this.savedInvMass, 1);
    this.lambda = g(this.lambda, 1);
    this.capacity = cap;
  }

  /** Attaches particle i; replaces an existing attachment of i. Returns i. */
  attach(i: number, opts: AttachOptions = {}): number {
    const s = this.store;
    if (!(i >= 0 && i < s.count)) {
      throw new PbdError(
        'attachment/bad-index',
        `attachment of particle ${i}`,
        `there are ${s.count} particles`,
      );
    }
    const compliance = opts.compliance ?? 0;
    if (!(compliance >= 0) || !Number.isFinite(compliance)) {
      throw new PbdError(
        'attachment/bad-compliance',
        `attachment of particle ${i}`,
        `compliance must be ≥ 0, got ${compliance}`,
      );
    }
    if (this.entryOf.has(i)) this.detach(i);
    if (this.count === this.capacity) this.grow(this.capacity * 2);
    const e = this.count++;
    this.entryOf.set(i, e);
    this.particle[e] = i;
    const ax = s.x[3 * i],
      ay = s.x[3 * i + 1],
      az = s.x[3 * i + 2];
    this.anchor[3 * e] = ax;
    this.anchor[3 * e + 1] = ay;
    this.anchor[3 * e + 2] = az;
    const t = opts.target ?? [ax, ay, az];
    this.target[3 * e] = t[0];
    this.target[3 * e + 1] = t[1];
    this.target[3 * e + 2] = t[2];
    this.compliance[e] = compliance;
    this.savedInvMass[e] = s.invMass[i];
    this.lambda[e] = 0;
    this.motions[e] = opts.motion ?? null;
    if (compliance === 0) s.invMass[i] = 0;
    return i;
  }

  /** Removes the attachment of particle i (restoring its mass). No-op when i is not attached. */
  detach(i: number): void {
    const e = this.entryOf.get(i);
    if (e === undefined) return;
    if (this.compliance[e] === 0) this.store.invMass[i] = this.savedInvMass[e];
    const last = --this.count;
    this.entryOf.delete(i);
    if (e !== last) {
      this.particle[e] = this.particle[last];
      for (let k = 0; k < 3; k++) {
        this.target[3 * e + k] = this.target[3 * last + k];
        this.anchor[3 * e + k] = this.anchor[3 * last + k];
      }
      this.compliance[e] = this.compliance[last];
      this.savedInvMass[e] = this.savedInvMass[last];
      this.lambda[e] = this.lambda[last];
      this.motions[e] = this.motions[last];
      this.entryOf.set(this.particle[e], e);
    }
    this.motions.length = this.count;
  }

  isAttached(i: number): boolean {
    return this.entryOf.has(i);
  }

  /** Inverse mass particle i has when not hard-attached. */
  freeInvMass(i: number): number {
    const e = this.entryOf.get(i);
    return e !== undefined && this.compliance[e] === 0 ? this.savedInvMass[e] : this.store.invMass[i];
  }

  /** Moves the target of an attached particle (e.g. the mouse drag). */
  setTarget(i: number, x: number, y: number, z: number): void {
    const e = this.entryOf.get(i);
    if (e === undefined) return;
    this.target[3 * e] = x;
    this.target[3 * e + 1] = y;
    this.target[3 * e + 2] = z;
  }

  /** Sets the mass a hard-attached particle gets back when detached. */
  setSavedInvMass(i: number, w: number): void {
    const e = this.entryOf.get(i);
    if (e !== undefined) this.savedInvMass[e] = w;
  }

  beginStep(ctx: StepContext): void {
    const p = ctx.store.p;
    this.alphaScale = 1 / (ctx.h * ctx.h);
    for (let e = 0; e < this.count; e++) {
      const m = this.motions[e];
      if (m) {
        m.evaluate(ctx.time);
        m.apply(this.target, 3 * e, this.anchor[3 * e], this.anchor[3 * e + 1], this.anchor[3 * e + 2]);
      }
      this.lambda[e] = 0;
      if (this.compliance[e] === 0) {
        const i = 3 * this.particle[e];
        p[i] = this.target[3 * e];
        p[i + 1] = this.target[3 * e + 1];
        p[i + 2] = this.target[3 * e + 2];
      }
    }
  }

  project(ctx: StepContext): void {
    const p = ctx.store.p,
      w = ctx.store.invMass;
    for (let e = 0; e < this.count; e++) {
      const alpha = this.compliance[e];
      if (alpha === 0) continue;
      const i = this.particle[e];
      const wi = w[i];
      if (wi === 0) continue;
      const i3 = 3 * i;
      const dx = p[i3] - this.target[3 * e],
        dy = p[i3 + 1] - this.target[3 * e + 1],
        dz = p[i3 + 2] - this.target[3 * e + 2];
      const C = Math.sqrt(dx * dx + dy * dy + dz * dz);
      if (C < 1e-12) continue;
      const at = alpha * this.alphaScale;
      const dl = (-C - at * this.lambda[e]) / (wi + at);
      this.lambda[e] += dl;
      const s = (wi * dl) / C;
      p[i3] += dx * s;
      p[i3 + 1] += dy * s;
      p[i3 + 2] += dz * s;
    }
  }

  saveState(): unknown {
    const n = this.count;
    return {
      particle: Array.from(this.particle.subarray(0, n)),
      target: Array.from(this.target.subarray(0, 3 * n)),
      anchor: Array.from(this.anchor.subarray(0, 3 * n)),
      compliance: Array.from(this.compliance.subarray(0, n)),
      savedInvMass: Array.from(this.savedInvMass.subarray(0, n)),
    };
  }

  loadState(state: unknown): void {
    const s = state as {
      particle: number[];
      target: number[];
      anchor: number[];
      compliance: number[];
      savedInvMass: number[];
    };
    // motions are not serialisable: entries keep the motion of the same particle when it is still attached
    const motionOf = new Map<number, Motion | null>();
    for (let e = 0; e < this.count; e++) motionOf.set(this.particle[e], this.motions[e]);
    this.entryOf.clear();
    this.count = 0;
    if (this.capacity < s.particle.length) this.grow(Math.max(16, s.particle.length));
    for (let e = 0; e < s.particle.length; e++) {
      this.particle[e] = s.particle[e];
      for (let k = 0; k < 3; k++) {
        this.target[3 * e + k] = s.target[3 * e + k];
        this.anchor[3 * e + k] = s.anchor[3 * e + k];
      }
      this.compliance[e] = s.compliance[e];
      this.savedInvMass[e] = s.savedInvMass[e];
      this.motions[e] = motionOf.get(s.particle[e]) ?? null;
      this.entryOf.set(s.particle[e], e);
    }
    this.count = s.particle.length;
    this.motions.length = this.count;
  }
}
