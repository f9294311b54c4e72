import { grownArray } from '../math/arrays.js';
import { quatMultiply, quatNormalize } from '../math/quat.js';
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

/** How a particle's orientation is clamped (`Attachments.clampOrientation`). */
export interface OrientationClampOptions {
  /** Target orientation (unit quaternion x, y, z, w). Default: the particle's orientation now. */
  orientation?: [number, number, number, number];
  /** Scripted motion: the target is the motion's rotation R(t) applied to that orientation. */
  motion?: Motion;
}

/** Entry `last` of `a` (`stride` values each) copied over entry e: the swap of a removal. */
function moveEntry(a: Float64Array | Int32Array, stride: number, e: number, last: number): void {
  a.copyWithin(stride * e, stride * last, stride * last + stride);
}

/**
 * The removal of particle i's entry e from a table of `last` + 1 entries (`last` is its count
 * after the removal): the last entry moves into e, in `particle`, `motions` and every array of
 * `fields` (with its stride), and the map from particles to entries follows.
 */
function removeEntry<M>(
  entryOf: Map<number, number>,
  particle: Int32Array,
  motions: M[],
  i: number,
  e: number,
  last: number,
  fields: [Float64Array | Int32Array, number][],
): void {
  entryOf.delete(i);
  if (e !== last) {
    moveEntry(particle, 1, e, last);
    for (const [a, stride] of fields) moveEntry(a, stride, e, last);
    motions[e] = motions[last];
    entryOf.set(particle[e], e);
  }
  motions.length = last;
}

/**
 * Attachments of particles to fixed points, to scripted (kinematic) targets,
 * and the mouse drag (003 §3.6). Entries live in typed arrays; pins can be
 * added and removed at run time.
 *
 * Soft attachments always use the XPBD rule, whatever the world's solver,
 * so that a drag feels the same in both modes.
 *
 * Orientation clamps are the same for the orientation channels of the
 * store (particles with orientations, e.g. the segments of a Cosserat rod):
 * a clamped particle's inverse moments of inertia are set to 0, so the
 * orientation stages and the constraints leave its orientation alone, and
 * its predicted orientation qp is put on the target (fixed, or a scripted
 * motion's rotation applied to the orientation it had when clamped) every
 * substep, so the velocity update gives it the motion's angular velocity.
 * Position and orientation clamps are independent: a rod's end can be
 * pinned and free to turn (a hinge), or clamped (a cantilever's wall).
 */
export class Attachments implements ConstraintSet {
  readonly kind = 'attachment';
  readonly order = -10;
  enabled = true;
  count = 0;
  private capacity = 0;
  particle = new Int32Array(0);
  target: Float64Array = new Float64Array(0);
  anchor: Float64Array = new Float64Array(0);
  compliance = new Float64Array(0);
  savedInvMass = new Float64Array(0);
  lambda = new Float64Array(0);
  motions: (Motion | null)[] = [];
  /** Orientation clamps: particle, target and anchor orientations (4 each), saved inverse moments (3 each). */
  orientationCount = 0;
  private orientationCapacity = 0;
  orientationParticle = new Int32Array(0);
  orientationTarget = new Float64Array(0);
  orientationAnchor = new Float64Array(0);
  savedInvInertia = new Float64Array(0);
  orientationMotions: (Motion | null)[] = [];
  private readonly orientationEntryOf = new Map<number, number>();
  private readonly entryOf = new Map<number, number>();
  private readonly store: ParticleStore;
  private alphaScale = 0;
  /**
   * Bumped when the list of attachments changes (attach, detach, loadState): a pass that keeps its
   * own list of them (src/strands/fused-pass.ts onePass) builds it again only then.
   */
  version = 0;

  constructor(store: ParticleStore) {
    this.store = store;
    this.grow(16);
  }

  private grow(cap: number): void {
    const n = this.count;
    this.target = grownArray(this.target, 3 * cap, 3 * n);
    this.anchor = grownArray(this.anchor, 3 * cap, 3 * n);
    this.particle = grownArray(this.particle, cap, n);
    this.compliance = grownArray(this.compliance, cap, n);
    this.savedInvMass = grownArray(this.savedInvMass, cap, n);
    this.lambda = grownArray(this.lambda, cap, n);
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
    this.version++;
    return i;
  }

  /** Removes the attachment of particle i (restoring its mass). No-op when i is not attached. */
  detach(i: number): void {
    const e = this.entryOf.get(i);
    if (e === undefined) return;
    if (this.compliance[e] === 0) this.store.invMass[i] = this.savedInvMass[e];
    removeEntry(this.entryOf, this.particle, this.motions, i, e, --this.count, [
      [this.target, 3],
      [this.anchor, 3],
      [this.compliance, 1],
      [this.savedInvMass, 1],
      [this.lambda, 1],
    ]);
    this.version++;
  }

  /**
   * Takes `target` and `anchor` (3 numbers per entry, one length, room for the count) as its
   * arrays, the present entries copied into them: a threaded strand pass's kernel memory, whose
   * blocks compute the roots' targets there (src/strands/strand-threads.ts). The capacity becomes at
   * most theirs; a later growth gives plain arrays again.
   */
  adoptAnchors(target: Float64Array, anchor: Float64Array): void {
    const n = 3 * this.count;
    if (anchor.length !== target.length || target.length < n)
      throw new RangeError(`adoptAnchors: ${target.length} / ${anchor.length} numbers for ${n}`);
    target.set(this.target.subarray(0, n));
    anchor.set(this.anchor.subarray(0, n));
    this.target = target;
    this.anchor = anchor;
    this.capacity = Math.min(this.capacity, Math.floor(target.length / 3));
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

  /**
   * Clamps the orientation of particle i (which must have orientations,
   * `ParticleStore.addOrientations`): to `orientation`, or to where it is
   * now, optionally moved by a scripted motion's rotation. Replaces an
   * existing clamp of i. Returns i.
   */
  clampOrientation(i: number, opts: OrientationClampOptions = {}): number {
    const s = this.store;
    if (!(i >= 0 && i < s.count) || !s.hasOrientation(i)) {
      throw new PbdError(
        'attachment/no-orientation',
        `orientation clamp of particle ${i}`,
        i >= 0 && i < s.count ? 'the particle has no orientation' : `there are ${s.count} particles`,
        'clamp the orientation of a particle of a body with orientations (a Cosserat rod segment)',
      );
    }
    const o = opts.orientation;
    if (o && !(o.length === 4 && o.every(Number.isFinite) && Math.hypot(o[0], o[1], o[2], o[3]) > 0)) {
      throw new PbdError(
        'attachment/bad-orientation',
        `orientation clamp of particle ${i}.orientation`,
        `must be a non-zero quaternion [x, y, z, w], got [${o.join(', ')}]`,
      );
    }
    if (this.orientationEntryOf.has(i)) this.releaseOrientation(i);
    if (this.orientationCount === this.orientationCapacity)
      this.growOrientations(Math.max(8, 2 * this.orientationCapacity));
    const e = this.orientationCount++;
    this.orientationEntryOf.set(i, e);
    this.orientationParticle[e] = i;
    for (let k = 0; k < 4; k++) this.orientationAnchor[4 * e + k] = o ? o[k] : s.q[4 * i + k];
    quatNormalize(this.orientationAnchor, 4 * e);
    for (let k = 0; k < 4; k++) this.orientationTarget[4 * e + k] = this.orientationAnchor[4 * e + k];
    const inv = s.invInertia;
    for (let k = 0; k < 3; k++) {
      this.savedInvInertia[3 * e + k] = inv.length > 0 ? inv[3 * i + k] : 0;
      if (inv.length > 0) inv[3 * i + k] = 0;
    }
    this.orientationMotions[e] = opts.motion ?? null;
    if (o) {
      // the clamp holds from now on: the orientation jumps to its target
      for (let k = 0; k < 4; k++) s.q[4 * i + k] = s.qp[4 * i + k] = this.orientationTarget[4 * e + k];
      s.omega[3 * i] = s.omega[3 * i + 1] = s.omega[3 * i + 2] = 0;
    }
    return i;
  }

  /** Releases the orientation clamp of particle i (restoring its moments of inertia). No-op when it has none. */
  releaseOrientation(i: number): void {
    const e = this.orientationEntryOf.get(i);
    if (e === undefined) return;
    const inv = this.store.invInertia;
    if (inv.length > 0) for (let k = 0; k < 3; k++) inv[3 * i + k] = this.savedInvInertia[3 * e + k];
    removeEntry(
      this.orientationEntryOf,
      this.orientationParticle,
      this.orientationMotions,
      i,
      e,
      --this.orientationCount,
      [
        [this.orientationTarget, 4],
        [this.orientationAnchor, 4],
        [this.savedInvInertia, 3],
      ],
    );
  }

  isOrientationClamped(i: number): boolean {
    return this.orientationEntryOf.has(i);
  }

  /** Sets the fixed target orientation of a clamped particle (unit quaternion; normalised). */
  setOrientationTarget(i: number, x: number, y: number, z: number, w: number): void {
    const e = this.orientationEntryOf.get(i);
    if (e === undefined) return;
    const t = this.orientationTarget;
    t[4 * e] = x;
    t[4 * e + 1] = y;
    t[4 * e + 2] = z;
    t[4 * e + 3] = w;
    quatNormalize(t, 4 * e);
    for (let k = 0; k < 4; k++) this.orientationAnchor[4 * e + k] = t[4 * e + k];
  }

  private growOrientations(cap: number): void {
    const n = this.orientationCount;
    this.orientationParticle = grownArray(this.orientationParticle, cap, n);
    this.orientationTarget = grownArray(this.orientationTarget, 4 * cap, 4 * n);
    this.orientationAnchor = grownArray(this.orientationAnchor, 4 * cap, 4 * n);
    this.savedInvInertia = grownArray(this.savedInvInertia, 3 * cap, 3 * n);
    this.orientationCapacity = cap;
  }

  /** qp of every clamped orientation on its target (after the motion's rotation at this substep's time). */
  private placeOrientations(ctx: StepContext): void {
    const qp = ctx.store.qp;
    const t = this.orientationTarget;
    for (let e = 0; e < this.orientationCount; e++) {
      const m = this.orientationMotions[e];
      if (m) {
        m.evaluate(ctx.time);
        quatMultiply(t, 4 * e, m.rotation, 0, this.orientationAnchor, 4 * e);
      }
      const i4 = 4 * this.orientationParticle[e];
      // the same rotation as the current one, on its side of the double cover (ω from qp q⁻¹ stays short)
      const q = ctx.store.q;
      const sgn =
        q[i4] * t[4 * e] + q[i4 + 1] * t[4 * e + 1] + q[i4 + 2] * t[4 * e + 2] + q[i4 + 3] * t[4 * e + 3] < 0
          ? -1
          : 1;
      for (let k = 0; k < 4; k++) qp[i4 + k] = sgn * t[4 * e + k];
    }
  }

  beginStep(ctx: StepContext): void {
    const p = ctx.store.p;
    // a window the prediction wrote instead of p (core/window-passes.ts) takes the targets in p's
    // place (an f32 one rounded, as its load would have rounded them from p)
    const win =
      ctx.store.held !== null && ctx.store.held === ctx.store.predictedWindow
        ? ctx.store.predictedWindow
        : null;
    this.alphaScale = 1 / (ctx.hSolve * ctx.hSolve);
    for (let e = 0; e < this.count; e++) {
      const m = this.motions[e];
      if (m) {
        m.evaluate(ctx.time);
        m.apply(this.target, 3 * e, this.anchor[3 * e], this.anchor[3 * e + 1], this.anchor[3 * e + 2]);
      }
      this.lambda[e] = 0;
      if (this.compliance[e] === 0) {
        const k = this.particle[e];
        if (win !== null && k >= win.base && k < win.base + win.range) {
          win.place(k - win.base, this.target[3 * e], this.target[3 * e + 1], this.target[3 * e + 2]);
          continue;
        }
        const i = 3 * k;
        p[i] = this.target[3 * e];
        p[i + 1] = this.target[3 * e + 1];
        p[i + 2] = this.target[3 * e + 2];
      }
    }
    if (this.orientationCount > 0) this.placeOrientations(ctx);
  }

  /**
   * With stiff attachments only (compliance 0: pins and moving targets, none of orientations) its
   * beginStep writes p or the window the prediction wrote (ConstraintSet.skipsPredicted).
   */
  get skipsPredicted(): boolean {
    return this.sharesWindow;
  }

  /**
   * With stiff attachments only its beginStep reads no particle and places the pinned ones in p or
   * through the window's `place` (ConstraintSet.beginsOnWindow).
   */
  get beginsOnWindow(): boolean {
    return this.sharesWindow;
  }

  /**
   * With stiff attachments only (none of orientations) its projection moves nothing (their
   * particles have w = 0 and beginStep placed them): a held kernel window stays held across it
   * (ConstraintSet.sharesWindow), and the prediction into a window looks past it (window-passes.ts).
   */
  get sharesWindow(): boolean {
    if (this.orientationCount !== 0) return false;
    for (let e = 0; e < this.count; e++) if (this.compliance[e] !== 0) return false;
    return true;
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
      orientations: {
        particle: Array.from(this.orientationParticle.subarray(0, this.orientationCount)),
        target: Array.from(this.orientationTarget.subarray(0, 4 * this.orientationCount)),
        anchor: Array.from(this.orientationAnchor.subarray(0, 4 * this.orientationCount)),
        savedInvInertia: Array.from(this.savedInvInertia.subarray(0, 3 * this.orientationCount)),
      },
    };
  }

  loadState(state: unknown): void {
    const s = state as {
      particle: number[];
      target: number[];
      anchor: number[];
      compliance: number[];
      savedInvMass: number[];
      orientations?: { particle: number[]; target: number[]; anchor: number[]; savedInvInertia: number[] };
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
    this.version++;
    this.loadOrientations(s.orientations ?? { particle: [], target: [], anchor: [], savedInvInertia: [] });
  }

  private loadOrientations(o: {
    particle: number[];
    target: number[];
    anchor: number[];
    savedInvInertia: number[];
  }): void {
    const motionOf = new Map<number, Motion | null>();
    for (let e = 0; e < this.orientationCount; e++)
      motionOf.set(this.orientationParticle[e], this.orientationMotions[e]);
    this.orientationEntryOf.clear();
    const n = o.particle.length;
    if (this.orientationCapacity < n) this.growOrientations(Math.max(8, n));
    const inv = this.store.invInertia;
    for (let e = 0; e < n; e++) {
      const i = o.particle[e];
      this.orientationParticle[e] = i;
      for (let k = 0; k < 4; k++) {
        this.orientationTarget[4 * e + k] = o.target[4 * e + k];
        this.orientationAnchor[4 * e + k] = o.anchor[4 * e + k];
      }
      for (let k = 0; k < 3; k++) {
        this.savedInvInertia[3 * e + k] = o.savedInvInertia[3 * e + k];
        // the world restored the moments from the state: a clamped particle's stay 0
        if (inv.length > 0) inv[3 * i + k] = 0;
      }
      this.orientationMotions[e] = motionOf.get(i) ?? null;
      this.orientationEntryOf.set(i, e);
    }
    this.orientationCount = n;
    this.orientationMotions.length = n;
  }
}
