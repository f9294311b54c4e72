/**
 * The rigid-body system of a World: the shapes and materials of the rigid
 * bodies in the world's RigidStore, the collision stage that finds their
 * contacts once per step (broad phase: sweep and prune over the bodies'
 * boxes grown by how far they can move in the step, Müller et al. 2020's
 * "k Δt v" with k = 2; narrow phase: narrow-phase.ts), the contact set that
 * solves them every substep (contact-set.ts), the joints (joints.ts), and
 * sleeping: a group of bodies connected by contacts and joints that has
 * been at rest for `sleepTime` seconds stops being integrated (the store's
 * RIGID_DISABLED) until something touches it.
 *
 * Installed once per world by `RigidBodies.of(world)` (a SystemKind);
 * `new RigidBody(world, …)` (rigid-body.ts) does that for you.
 */
import { findRoot, unionRoots } from '../collision/union-find.js';
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { PbdError } from '../core/errors.js';
import { Channels, type Stage } from '../core/pipeline.js';
import { RIGID_DISABLED } from '../core/rigid-store.js';
import type { SystemKind, World } from '../core/world.js';
import { grownArray } from '../math/arrays.js';
import { type ContactMaterials, RigidContacts } from './contact-set.js';
import { RigidJoints } from './joints.js';
import { NarrowPhase } from './narrow-phase.js';
import { CAPSULE, type Shape, shapeBounds } from './shapes.js';

/**
 * A pair of bodies keeps last step's manifold while its relative pose stays
 * within this fraction of the smaller shape's bounding radius and this many
 * radians of the pose the manifold was built at (ContactStore.keep).
 */
const KEEP_TOLERANCE = 1e-3;

/** Settings of the rigid-body system (RigidBodies.configure). */
export interface RigidSettings {
  /** Contacts are made for shapes closer than this (m), besides the motion allowance. Default 0.01. */
  contactMargin?: number;
  /** Let resting groups of bodies sleep. Default true. */
  sleep?: boolean;
  /** Seconds at rest before a group sleeps. Default 0.5. */
  sleepTime?: number;
  /** Below these speeds (m/s, rad/s) a body counts as at rest. Default 0.05 and 0.05. */
  sleepLinear?: number;
  sleepAngular?: number;
}

/** What a checkpoint carries of the system: who sleeps, for how long things rested, the sleeping groups. */
interface SleepState {
  sleeping: Uint8Array;
  still: Float64Array;
  island: Int32Array;
}

export class RigidBodies implements ContactMaterials {
  readonly world: World;
  /** Per store index: the shape (null for bodies added to the store directly, which collide with nothing). */
  readonly shapes: (Shape | null)[] = [];
  /** Per store index: kinetic and static friction, restitution, collision group and mask, may it sleep, is it removed. */
  friction = new Float64Array(16);
  staticFriction = new Float64Array(16);
  restitution = new Float64Array(16);
  group = new Int32Array(16);
  mask = new Int32Array(16);
  canSleep = new Uint8Array(16);
  removed = new Uint8Array(16);
  /** Per store index: 1 when the body sleeps; the seconds it has been at rest; the group it sleeps with. */
  sleeping = new Uint8Array(16);
  still = new Float64Array(16);
  island = new Int32Array(16);
  /** Per store index: may contacts and joints move it this step (dynamic, awake, present). */
  movable = new Uint8Array(16);
  readonly contacts: RigidContacts;
  readonly joints: RigidJoints;
  readonly narrow: NarrowPhase;
  contactMargin = 0.01;
  sleep = true;
  sleepTime = 0.5;
  sleepLinear = 0.05;
  sleepAngular = 0.05;
  /** Body pairs (i < j) in contact in the last step, and body–collider contacts, for the sleeping groups. */
  private pairs: number[] = [];
  private boxes = new Float64Array(96);
  private order = new Int32Array(16);
  /** How many bodies of `order` the last step sorted; per body, whether this step's broad phase takes it. */
  private sorted = 0;
  private included = new Uint8Array(16);
  /** The step's length, for pairOf. */
  private stepDt = 0;
  private parent = new Int32Array(16);
  private ready = new Uint8Array(16);
  private readonly stage: Stage;
  private readonly sleepSet: ConstraintSet;

  /** The world's rigid-body system, installed on first use. */
  static of(world: World): RigidBodies {
    return world.system(rigidBodiesKind);
  }

  constructor(world: World) {
    this.world = world;
    this.contacts = new RigidContacts(world.rigids, world.colliders, this);
    this.joints = new RigidJoints(world.rigids, this);
    this.narrow = new NarrowPhase(this.contacts);
    this.stage = new RigidCollisionStage(this);
    world.addStage(this.stage);
    world.addConstraintSet(this.joints);
    world.addConstraintSet(this.contacts);
    // carries the sleeping state in checkpoints
    this.sleepSet = {
      kind: 'rigid-sleep',
      order: 100,
      enabled: true,
      count: 0,
      project() {},
      saveState: (): SleepState => this.saveSleep(),
      loadState: (s: unknown) => this.loadSleep(s as SleepState),
    };
    world.addConstraintSet(this.sleepSet);
  }

  /** Changes the settings (validated). */
  configure(o: RigidSettings): void {
    const num = (v: number | undefined, name: string, ok: boolean): number | undefined => {
      if (v === undefined) return undefined;
      if (!ok || !Number.isFinite(v))
        throw new PbdError('rigid/invalid', `rigid.${name}`, `must be a finite number ≥ 0, got ${v}`);
      return v;
    };
    this.contactMargin =
      num(o.contactMargin, 'contactMargin', (o.contactMargin ?? 0) >= 0) ?? this.contactMargin;
    this.sleepTime = num(o.sleepTime, 'sleepTime', (o.sleepTime ?? 0) >= 0) ?? this.sleepTime;
    this.sleepLinear = num(o.sleepLinear, 'sleepLinear', (o.sleepLinear ?? 0) >= 0) ?? this.sleepLinear;
    this.sleepAngular = num(o.sleepAngular, 'sleepAngular', (o.sleepAngular ?? 0) >= 0) ?? this.sleepAngular;
    if (o.sleep !== undefined) {
      this.sleep = o.sleep;
      if (!o.sleep) for (let i = 0; i < this.world.rigids.count; i++) if (this.sleeping[i]) this.wake(i);
    }
  }

  /** Makes room for store index i in the per-body arrays. */
  ensure(i: number): void {
    if (i < this.friction.length) return;
    const cap = Math.max(2 * this.friction.length, i + 1);
    this.friction = grownArray(this.friction, cap);
    this.staticFriction = grownArray(this.staticFriction, cap);
    this.restitution = grownArray(this.restitution, cap);
    this.group = grownArray(this.group, cap);
    this.mask = grownArray(this.mask, cap);
    this.canSleep = grownArray(this.canSleep, cap);
    this.removed = grownArray(this.removed, cap);
    this.sleeping = grownArray(this.sleeping, cap);
    this.still = grownArray(this.still, cap);
    this.island = grownArray(this.island, cap);
    this.movable = grownArray(this.movable, cap);
  }

  /** Wakes body i and the group it sleeps with. */
  wake(i: number): void {
    if (!this.sleeping[i]) return;
    const r = this.world.rigids;
    const id = this.island[i];
    for (let j = 0; j < r.count; j++) {
      if (!this.sleeping[j] || this.island[j] !== id) continue;
      this.sleeping[j] = 0;
      this.still[j] = 0;
      r.flags[j] &= ~RIGID_DISABLED;
      this.movable[j] = r.invMass[j] !== 0 ? 1 : 0;
    }
  }

  /** Puts body i to sleep alone (it wakes when touched). */
  sleepNow(i: number): void {
    if (this.sleeping[i] || this.removed[i]) return;
    this.fallAsleep(i, i);
  }

  private fallAsleep(i: number, id: number): void {
    const r = this.world.rigids;
    this.sleeping[i] = 1;
    this.island[i] = id;
    this.movable[i] = 0;
    r.flags[i] |= RIGID_DISABLED;
    for (let k = 0; k < 3; k++) {
      r.v[3 * i + k] = r.omega[3 * i + k] = 0;
      r.xPrev[3 * i + k] = r.x[3 * i + k];
    }
    for (let k = 0; k < 4; k++) r.qPrev[4 * i + k] = r.q[4 * i + k];
  }

  /**
   * Start of a step: sleeping groups, then the broad and narrow phases. The
   * bodies' boxes are grown by 2 dt (|v| + |ω| r) and the contact margin.
   */
  detect(dt: number): void {
    const r = this.world.rigids;
    const n = r.count;
    this.ensure(n);
    if (this.sleep) this.updateSleep(dt);
    for (let i = 0; i < n; i++) {
      this.movable[i] =
        r.invMass[i] !== 0 && !this.sleeping[i] && (r.flags[i] & RIGID_DISABLED) === 0 ? 1 : 0;
    }
    this.contacts.clear();
    this.pairs.length = 0;
    if (this.boxes.length < 6 * n) this.boxes = new Float64Array(12 * n);
    if (this.order.length < n) this.order = grownArray(this.order, 2 * n);
    if (this.included.length < n) this.included = new Uint8Array(2 * n);
    const B = this.boxes;
    const inc = this.included;
    for (let i = 0; i < n; i++) {
      const s = this.shapes[i];
      inc[i] = 0;
      if (!s || this.removed[i] || ((r.flags[i] & RIGID_DISABLED) !== 0 && !this.sleeping[i])) continue;
      shapeBounds(s, r.x, 3 * i, r.q, 4 * i, 0.5 * this.contactMargin + 2 * dt * this.reach(i), B, 6 * i);
      inc[i] = 1;
    }
    // sweep and prune along x, the order kept from the last step (the boxes move little from step to
    // step): last step's bodies that are still in, then new ones, then an insertion sort by the boxes'
    // lower x (ties by index), which has little to do on a nearly sorted order. The order it ends in
    // is the same whatever it starts from (a strict total order), so the pairs are too.
    const order = this.order;
    let m = 0;
    for (let a = 0; a < this.sorted; a++) {
      const i = order[a];
      if (i < n && inc[i] === 1) {
        order[m++] = i;
        inc[i] = 2;
      }
    }
    for (let i = 0; i < n; i++) if (inc[i] === 1) order[m++] = i;
    this.sorted = m;
    for (let a = 1; a < m; a++) {
      const i = order[a];
      const lo = B[6 * i];
      let b = a - 1;
      while (b >= 0 && (B[6 * order[b]] > lo || (B[6 * order[b]] === lo && order[b] > i))) {
        order[b + 1] = order[b];
        b--;
      }
      order[b + 1] = i;
    }
    this.stepDt = dt;
    for (let a = 0; a < m; a++) {
      const i = order[a];
      const hx = B[6 * i + 3];
      for (let b = a + 1; b < m; b++) {
        const j = order[b];
        if (B[6 * j] > hx) break;
        if (
          B[6 * j + 1] > B[6 * i + 4] ||
          B[6 * j + 4] < B[6 * i + 1] ||
          B[6 * j + 2] > B[6 * i + 5] ||
          B[6 * j + 5] < B[6 * i + 2]
        )
          continue;
        this.pairOf(Math.min(i, j), Math.max(i, j));
      }
    }
    // bodies against the world's colliders
    const cols = this.world.colliders;
    for (let a = 0; a < m; a++) {
      const i = order[a];
      if (!this.movable[i] && !this.sleeping[i]) continue;
      const s = this.shapes[i]!;
      for (let k = 0; k < cols.length; k++) {
        const c = cols[k];
        // a collider that follows a rigid body (coupling.ts) is for particles: bodies meet bodies here
        if ((c.rigid ?? -1) >= 0) continue;
        if (!c.enabled || (c.group & this.mask[i]) === 0 || (this.group[i] & c.mask) === 0) continue;
        const o = 6 * i;
        if (c.boxDistanceBound(B[o], B[o + 1], B[o + 2], B[o + 3], B[o + 4], B[o + 5]) > 0) continue;
        if (this.sleeping[i]) {
          if (!c.kinematic) continue;
          this.wake(i);
        }
        const before = this.contacts.count;
        // a polyhedron whose pose relative to the collider stayed keeps its manifold, as a pair of bodies does
        if (
          s.kind <= CAPSULE ||
          !this.contacts.keep(i, -1 - k, KEEP_TOLERANCE * s.boundingRadius, KEEP_TOLERANCE)
        )
          this.narrow.collider(r, i, s, k, c, this.marginOf(i, -1, dt));
        if (this.contacts.count > before) this.pairs.push(i, -1);
      }
    }
  }

  /** Speculative margin of a pair: what the two can close in a step, plus the contact margin. */
  private marginOf(i: number, j: number, dt: number): number {
    return this.contactMargin + 2 * dt * (this.reach(i) + (j >= 0 ? this.reach(j) : 0));
  }

  /** How fast a point of body i's shape can move: |v| + |ω| r. */
  private reach(i: number): number {
    const r = this.world.rigids;
    const i3 = 3 * i;
    return (
      Math.sqrt(r.v[i3] ** 2 + r.v[i3 + 1] ** 2 + r.v[i3 + 2] ** 2) +
      Math.sqrt(r.omega[i3] ** 2 + r.omega[i3 + 1] ** 2 + r.omega[i3 + 2] ** 2) *
        this.shapes[i]!.boundingRadius
    );
  }

  /**
   * A pair from the broad phase: filters, wakes, and runs the narrow phase
   * (the step's length is read from stepDt: a floating-point argument of a
   * call that is not inlined is a heap number allocated per call).
   */
  private pairOf(i: number, j: number): void {
    const r = this.world.rigids;
    const dt = this.stepDt;
    const dynI = r.invMass[i] !== 0,
      dynJ = r.invMass[j] !== 0;
    if (!dynI && !dynJ) return;
    if ((this.group[i] & this.mask[j]) === 0 || (this.group[j] & this.mask[i]) === 0) return;
    if (this.joints.excludes(i, j)) return;
    const si = this.sleeping[i],
      sj = this.sleeping[j];
    if (si && sj) return;
    if ((si && !dynJ) || (sj && !dynI)) {
      // a sleeping body by a static or kinematic one: only a moving kinematic body wakes it
      const other = si ? j : i;
      const o3 = 3 * other;
      const moving =
        r.v[o3] ** 2 +
          r.v[o3 + 1] ** 2 +
          r.v[o3 + 2] ** 2 +
          r.omega[o3] ** 2 +
          r.omega[o3 + 1] ** 2 +
          r.omega[o3 + 2] ** 2 >
        0;
      if (!moving) return;
    }
    if (si) this.wake(i);
    if (sj) this.wake(j);
    let a = i,
      b = j;
    let sa = this.shapes[i]!,
      sb = this.shapes[j]!;
    // body 2 is the one that does not move when only one does (as a collider is): equal kinds may swap
    if (sa.kind > sb.kind || (sa.kind === sb.kind && !dynI && dynJ)) {
      a = j;
      b = i;
      const t = sa;
      sa = sb;
      sb = t;
    }
    const before = this.contacts.count;
    // a pair that kept its relative pose keeps its manifold (ContactStore.keep): within a thousandth of
    // the smaller shape's bounding radius and a milliradian of where its patch was found
    // (polyhedra only: a kept manifold has no core radii, and a round core's contact is not a material point)
    const tol = KEEP_TOLERANCE * Math.min(sa.boundingRadius, sb.boundingRadius);
    if (sa.kind <= CAPSULE || sb.kind <= CAPSULE || !this.contacts.keep(a, b, tol, KEEP_TOLERANCE))
      this.narrow.bodies(r, a, sa, b, sb, this.marginOf(i, j, dt));
    if (this.contacts.count > before) this.pairs.push(i, j);
  }

  /** Bodies at rest accumulate time; a connected group all at rest for sleepTime falls asleep. */
  private updateSleep(dt: number): void {
    const r = this.world.rigids;
    const n = r.count;
    const vl = this.sleepLinear ** 2,
      va = this.sleepAngular ** 2;
    for (let i = 0; i < n; i++) {
      if (this.sleeping[i] || r.invMass[i] === 0) continue;
      const i3 = 3 * i;
      const v2 = r.v[i3] ** 2 + r.v[i3 + 1] ** 2 + r.v[i3 + 2] ** 2;
      const w2 = r.omega[i3] ** 2 + r.omega[i3 + 1] ** 2 + r.omega[i3 + 2] ** 2;
      this.still[i] = v2 < vl && w2 < va && this.canSleep[i] ? this.still[i] + dt : 0;
    }
    if (this.parent.length < n) this.parent = new Int32Array(2 * n);
    const parent = this.parent;
    for (let i = 0; i < n; i++) parent[i] = i;
    const P = this.pairs;
    for (let k = 0; k < P.length; k += 2) {
      const i = P[k],
        j = P[k + 1];
      if (j >= 0 && r.invMass[i] !== 0 && r.invMass[j] !== 0) unionRoots(parent, i, j);
    }
    this.joints.unite(parent);
    // a group sleeps when every dynamic member has rested long enough
    if (this.ready.length < n) this.ready = new Uint8Array(2 * n);
    const ready = this.ready;
    ready.fill(1, 0, n);
    for (let i = 0; i < n; i++) {
      if (r.invMass[i] === 0 || this.sleeping[i] || this.removed[i] || (r.flags[i] & RIGID_DISABLED) !== 0)
        continue;
      if (this.still[i] < this.sleepTime) ready[findRoot(parent, i)] = 0;
    }
    for (let i = 0; i < n; i++) {
      if (r.invMass[i] === 0 || this.sleeping[i] || this.removed[i] || (r.flags[i] & RIGID_DISABLED) !== 0)
        continue;
      const root = findRoot(parent, i);
      if (ready[root]) this.fallAsleep(i, root);
    }
  }

  private saveSleep(): SleepState {
    const n = this.world.rigids.count;
    return {
      sleeping: this.sleeping.slice(0, n),
      still: this.still.slice(0, n),
      island: this.island.slice(0, n),
    };
  }

  private loadSleep(s: SleepState): void {
    this.ensure(s.sleeping.length);
    this.sleeping.set(s.sleeping);
    this.still.set(s.still);
    this.island.set(s.island);
  }
}

/** The contacts of the step, found at its first substep before anything moves (phase `begin`). */
class RigidCollisionStage implements Stage {
  readonly name = 'rigids.collide';
  readonly phase = 'begin';
  readonly order = -1;
  readonly reads = [Channels.rigidPose, Channels.rigidVelocity, Channels.colliders];
  readonly writes = [Channels.sets, Channels.rigidPose];
  private readonly system: RigidBodies;

  constructor(system: RigidBodies) {
    this.system = system;
  }

  run(ctx: StepContext): void {
    if (ctx.substep !== 0) return;
    this.system.detect(ctx.h * ctx.substeps);
  }
}

/** The rigid-body system's kind (see SystemKind). */
export const rigidBodiesKind: SystemKind<RigidBodies> = {
  name: 'rigid bodies',
  install(world) {
    return new RigidBodies(world);
  },
};
