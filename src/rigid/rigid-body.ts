/**
 * Rigid bodies as users hold them: a handle over one entry of the World's
 * RigidStore, built from a descriptor (a shape, a density or mass, a pose,
 * velocities, materials), in the manner of Rapier's JS API — and joints
 * between them (RigidJoint, created by `createJoint`). The pose a handle
 * reports and takes is the shape's frame; the store holds the principal
 * frame at the centre of mass (see Shape).
 */
import { PbdError } from '../core/errors.js';
import type { Vec3Tuple } from '../core/motion.js';
import { RIGID_DISABLED, RIGID_NO_GRAVITY } from '../core/rigid-store.js';
import type { World } from '../core/world.js';
import { quatFromEulerDegrees, quatMultiply, quatRotate } from '../math/quat.js';
import {
  BALL,
  DISTANCE,
  HINGE,
  JOINT_TYPES,
  type JointType,
  MOTOR_OFF,
  MOTOR_POSITION,
  MOTOR_VELOCITY,
  PRISMATIC,
} from './joints.js';
import { RigidBodies } from './rigid-bodies.js';
import { MESH, type RigidShape, Shape } from './shapes.js';
import { applyVelocityImpulse } from './xpbd.js';

/** How a body moves: under forces and contacts, along its given velocities, or not at all. */
export type RigidBodyType = 'dynamic' | 'kinematic' | 'static';

/** A rigid body's descriptor. */
export interface RigidBodyDesc {
  shape: RigidShape;
  /** Default 'dynamic'. */
  type?: RigidBodyType;
  /** Density (kg/m³), default 1000; or the mass (kg), which wins. */
  density?: number;
  mass?: number;
  /** Position of the shape's origin (m) and its orientation: a quaternion (x, y, z, w) or Euler angles in degrees (XYZ). */
  position?: Vec3Tuple;
  orientation?: [number, number, number, number];
  rotation?: Vec3Tuple;
  /** Linear velocity of the centre of mass (m/s) and angular velocity (rad/s, world). */
  velocity?: Vec3Tuple;
  angularVelocity?: Vec3Tuple;
  /** Kinetic friction μ (default 0.5), static friction μs (default μ), restitution e ∈ [0, 1] (default 0). */
  friction?: number;
  staticFriction?: number;
  restitution?: number;
  /** Gravity acts on it. Default true. */
  gravity?: boolean;
  /** It may sleep when at rest. Default true. */
  canSleep?: boolean;
  /** Collision group bits and the groups it collides with. Default 1 and all. */
  group?: number;
  mask?: number;
  name?: string;
}

const tmp = new Float64Array(4);
const tmp2 = new Float64Array(4);

export class RigidBody {
  readonly world: World;
  readonly system: RigidBodies;
  /** Index in world.rigids. */
  readonly index: number;
  readonly shape: Shape;
  readonly type: RigidBodyType;
  name: string;

  constructor(world: World, o: RigidBodyDesc) {
    const where = `rigid body${o?.name ? ` '${o.name}'` : ` ${world.rigids.count}`}`;
    if (!o || typeof o !== 'object') throw new PbdError('rigid/invalid', where, 'needs options with a shape');
    this.world = world;
    this.system = RigidBodies.of(world);
    this.type = o.type ?? 'dynamic';
    if (!['dynamic', 'kinematic', 'static'].includes(this.type)) {
      throw new PbdError(
        'rigid/invalid',
        `${where}.type`,
        `unknown type '${this.type}'`,
        "use 'dynamic', 'kinematic' or 'static'",
      );
    }
    this.shape = new Shape(o.shape, `${where}.shape`);
    if (this.shape.kind === MESH && this.type === 'dynamic') {
      throw new PbdError(
        'rigid/dynamic-mesh',
        `${where}.shape`,
        'a triangle mesh has no inside to weigh, so it cannot be dynamic',
        "make the body 'static' or 'kinematic', or give it a 'convex' shape (the hull of the mesh's vertices)",
      );
    }
    const num = (v: number | undefined, name: string, def: number, lo: number, hi = Infinity): number => {
      if (v === undefined) return def;
      if (!(v >= lo && v <= hi) || !Number.isFinite(v)) {
        throw new PbdError(
          'rigid/invalid',
          `${where}.${name}`,
          `must be a number in [${lo}, ${hi}], got ${v}`,
        );
      }
      return v;
    };
    const friction = num(o.friction, 'friction', 0.5, 0);
    const staticFriction = num(o.staticFriction, 'staticFriction', friction, 0);
    const restitution = num(o.restitution, 'restitution', 0, 0, 1);
    let mass = Infinity;
    const inertia = [Infinity, Infinity, Infinity];
    if (this.type === 'dynamic') {
      if (o.mass !== undefined) {
        if (!(o.mass > 0) || !Number.isFinite(o.mass))
          throw new PbdError('rigid/invalid', `${where}.mass`, `must be > 0 (kg), got ${o.mass}`);
        mass = o.mass;
      } else mass = num(o.density, 'density', 1000, 1e-12) * this.shape.volume;
      const rho = mass / this.shape.volume;
      for (let k = 0; k < 3; k++) inertia[k] = rho * this.shape.unitInertia[k];
    }
    if (o.orientation && o.rotation) {
      throw new PbdError(
        'rigid/invalid',
        `${where}.rotation`,
        'is given together with orientation',
        'give one of them',
      );
    }
    const q = new Float64Array([0, 0, 0, 1]);
    if (o.orientation) {
      if (
        o.orientation.length !== 4 ||
        !o.orientation.every(Number.isFinite) ||
        Math.hypot(...o.orientation) === 0
      ) {
        throw new PbdError(
          'rigid/invalid',
          `${where}.orientation`,
          'must be a non-zero quaternion (x, y, z, w)',
        );
      }
      const l = Math.hypot(...o.orientation);
      for (let k = 0; k < 4; k++) q[k] = o.orientation[k] / l;
    } else if (o.rotation) quatFromEulerDegrees(q, 0, o.rotation[0], o.rotation[1], o.rotation[2]);
    // body frame = shape frame ⊗ principal rotation, centre of mass = origin + R c
    const qb = new Float64Array(4);
    quatMultiply(qb, 0, q, 0, this.shape.rotation, 0);
    const p = o.position ?? [0, 0, 0];
    const c = new Float64Array(3);
    quatRotate(c, 0, q, 0, this.shape.offset[0], this.shape.offset[1], this.shape.offset[2]);
    this.index = world.rigids.add({
      mass,
      inertia: inertia as Vec3Tuple,
      position: [p[0] + c[0], p[1] + c[1], p[2] + c[2]],
      orientation: [qb[0], qb[1], qb[2], qb[3]],
      velocity: o.velocity,
      angularVelocity: o.angularVelocity,
      flags: o.gravity === false ? RIGID_NO_GRAVITY : 0,
    });
    this.name = o.name ?? `rigid${this.index}`;
    const s = this.system;
    const i = this.index;
    s.ensure(i);
    s.shapes[i] = this.shape;
    s.friction[i] = friction;
    s.staticFriction[i] = staticFriction;
    s.restitution[i] = restitution;
    s.group[i] = o.group ?? 1;
    s.mask[i] = o.mask ?? -1;
    s.canSleep[i] = o.canSleep === false ? 0 : 1;
    s.movable[i] = this.type === 'dynamic' ? 1 : 0;
  }

  /** Mass (kg); Infinity for static and kinematic bodies. */
  get mass(): number {
    return this.world.rigids.mass[this.index];
  }

  /** Principal moments of inertia (kg m²) in the body frame. */
  inertia(): Float64Array {
    return this.world.rigids.inertia.slice(3 * this.index, 3 * this.index + 3);
  }

  /** The centre of mass (world). */
  centerOfMass(out = new Float64Array(3)): Float64Array {
    out.set(this.world.rigids.x.subarray(3 * this.index, 3 * this.index + 3));
    return out;
  }

  /** Orientation of the shape's frame (x, y, z, w). */
  orientation(out = new Float64Array(4)): Float64Array {
    const r = this.world.rigids;
    const s = this.shape.rotation;
    tmp[0] = -s[0];
    tmp[1] = -s[1];
    tmp[2] = -s[2];
    tmp[3] = s[3];
    quatMultiply(out, 0, r.q, 4 * this.index, tmp, 0);
    return out;
  }

  /** Position of the shape's origin (world). */
  position(out = new Float64Array(3)): Float64Array {
    const r = this.world.rigids;
    this.orientation(tmp2);
    const c = this.shape.offset;
    quatRotate(out, 0, tmp2, 0, c[0], c[1], c[2]);
    for (let k = 0; k < 3; k++) out[k] = r.x[3 * this.index + k] - out[k];
    return out;
  }

  /** Moves the body (teleport: no velocity results); wakes it. */
  setPosition(p: Vec3Tuple): void {
    const r = this.world.rigids;
    this.orientation(tmp2);
    const c = new Float64Array(3);
    quatRotate(c, 0, tmp2, 0, this.shape.offset[0], this.shape.offset[1], this.shape.offset[2]);
    for (let k = 0; k < 3; k++) r.x[3 * this.index + k] = r.xPrev[3 * this.index + k] = p[k] + c[k];
    this.wake();
  }

  /** Turns the body about its centre of mass to the orientation q of its shape's frame; wakes it. */
  setOrientation(q: [number, number, number, number]): void {
    const r = this.world.rigids;
    const l = Math.hypot(...q);
    if (!(l > 0))
      throw new PbdError('rigid/invalid', `${this.name}.orientation`, 'must be a non-zero quaternion');
    const u = Float64Array.from(q, (v) => v / l);
    const i4 = 4 * this.index;
    quatMultiply(r.q, i4, u, 0, this.shape.rotation, 0);
    for (let k = 0; k < 4; k++) r.qPrev[i4 + k] = r.q[i4 + k];
    this.wake();
  }

  linearVelocity(out = new Float64Array(3)): Float64Array {
    out.set(this.world.rigids.v.subarray(3 * this.index, 3 * this.index + 3));
    return out;
  }

  angularVelocity(out = new Float64Array(3)): Float64Array {
    out.set(this.world.rigids.omega.subarray(3 * this.index, 3 * this.index + 3));
    return out;
  }

  setLinearVelocity(v: Vec3Tuple): void {
    this.world.rigids.v.set(v, 3 * this.index);
    this.wake();
  }

  setAngularVelocity(w: Vec3Tuple): void {
    this.world.rigids.omega.set(w, 3 * this.index);
    this.wake();
  }

  /** Velocity of the body's material point at the world point p: v + ω × (p − x). */
  pointVelocity(p: ArrayLike<number>, out = new Float64Array(3)): Float64Array {
    const r = this.world.rigids,
      i3 = 3 * this.index;
    const rx = p[0] - r.x[i3],
      ry = p[1] - r.x[i3 + 1],
      rz = p[2] - r.x[i3 + 2];
    const w = r.omega;
    out[0] = r.v[i3] + w[i3 + 1] * rz - w[i3 + 2] * ry;
    out[1] = r.v[i3 + 1] + w[i3 + 2] * rx - w[i3] * rz;
    out[2] = r.v[i3 + 2] + w[i3] * ry - w[i3 + 1] * rx;
    return out;
  }

  /** Applies the impulse J (N s) at the world point p (default: the centre of mass); wakes the body. */
  applyImpulse(J: Vec3Tuple, p?: Vec3Tuple): void {
    if (this.type !== 'dynamic') return;
    this.wake();
    const r = this.world.rigids,
      i3 = 3 * this.index;
    const rx = p ? p[0] - r.x[i3] : 0,
      ry = p ? p[1] - r.x[i3 + 1] : 0,
      rz = p ? p[2] - r.x[i3 + 2] : 0;
    applyVelocityImpulse(r, this.index, rx, ry, rz, J[0], J[1], J[2], 1);
  }

  /** Kinetic energy ½ m v² + ½ ωᵀ I ω (J). */
  kineticEnergy(): number {
    return this.type === 'dynamic' ? this.world.rigids.kineticEnergy(this.index) : 0;
  }

  get isSleeping(): boolean {
    return this.system.sleeping[this.index] === 1;
  }

  /** Wakes the body and the bodies it sleeps with. */
  wake(): void {
    this.system.wake(this.index);
  }

  /** Puts the body to sleep now (it wakes when touched). */
  sleep(): void {
    if (this.type === 'dynamic') this.system.sleepNow(this.index);
  }

  /** Takes the body out of the world: it stops moving and colliding (its store entry stays, disabled). */
  remove(): void {
    const s = this.system;
    s.wake(this.index);
    s.removed[this.index] = 1;
    s.movable[this.index] = 0;
    this.world.rigids.flags[this.index] |= RIGID_DISABLED;
  }
}

/** A joint's descriptor (see RigidJoints for what each type holds). */
export interface JointOptions {
  type: JointType;
  bodyA: RigidBody;
  /** The other body; null or absent: the world. */
  bodyB?: RigidBody | null;
  /** The joint's point (world, at the bodies' current poses). For 'distance', anchorB is the second end (default: the same point). */
  anchor: Vec3Tuple;
  anchorB?: Vec3Tuple;
  /** The axis (world): hinge axis, slide direction, twist axis of a ball joint. Default [1, 0, 0]. */
  axis?: Vec3Tuple;
  /** Compliance of the attachment (m/N) and of the alignment (rad/(N m)). Default 0 (rigid). */
  compliance?: number;
  angularCompliance?: number;
  /** Hinge: angle limits (rad); prismatic: offset limits along the axis (m); distance: [min, max] (m). */
  limits?: [number, number];
  /** Distance joint: the rest length (m); default the anchors' distance. */
  length?: number;
  /** Ball joint: the largest swing of the twist axis (rad), and twist limits about it (rad). */
  swing?: number;
  twist?: [number, number];
  /** Hinge and prismatic motor: a target (rad or m) or a speed (rad/s or m/s), with compliance and the largest torque or force. */
  motor?: { target?: number; speed?: number; compliance?: number; maxForce?: number };
  /** Whether the two bodies collide with each other. Default false. */
  collideConnected?: boolean;
}

/** A handle over one joint of the world's RigidJoints. */
export class RigidJoint {
  readonly system: RigidBodies;
  readonly index: number;
  readonly type: JointType;

  constructor(world: World, o: JointOptions) {
    const system = RigidBodies.of(world);
    const joints = system.joints;
    const where = `joint ${joints.count}`;
    const t = JOINT_TYPES.indexOf(o?.type);
    if (t < 0)
      throw new PbdError(
        'rigid/invalid-joint',
        `${where}.type`,
        `unknown type '${o?.type}'`,
        `use one of ${JOINT_TYPES.join(', ')}`,
      );
    if (!(o.bodyA instanceof RigidBody))
      throw new PbdError('rigid/invalid-joint', `${where}.bodyA`, 'must be a RigidBody');
    const vec = (v: readonly number[] | undefined, name: string): void => {
      if (v !== undefined && (v.length !== 3 || !v.every(Number.isFinite))) {
        throw new PbdError('rigid/invalid-joint', `${where}.${name}`, 'must be three finite numbers');
      }
    };
    vec(o.anchor, 'anchor');
    if (!o.anchor)
      throw new PbdError(
        'rigid/invalid-joint',
        `${where}.anchor`,
        'is missing',
        'give the joint point in world coordinates',
      );
    vec(o.anchorB, 'anchorB');
    vec(o.axis, 'axis');
    const axis = o.axis ?? [1, 0, 0];
    const al = Math.hypot(...axis);
    if (!(al > 0)) throw new PbdError('rigid/invalid-joint', `${where}.axis`, 'must not be zero');
    // the joint frame: shortest turn of +x onto the axis
    const ux = axis[0] / al,
      uy = axis[1] / al,
      uz = axis[2] / al;
    const frame = new Float64Array(4);
    if (ux < -0.999999) frame.set([0, 0, 1, 0]);
    else {
      const l = Math.hypot(0, -uz, uy, 1 + ux);
      frame.set([0, -uz / l, uy / l, (1 + ux) / l]);
    }
    const b = o.bodyB ? o.bodyB.index : -1;
    if (b === o.bodyA.index)
      throw new PbdError(
        'rigid/invalid-joint',
        `${where}.bodyB`,
        'is bodyA',
        'join two different bodies, or a body and the world (null)',
      );
    this.system = system;
    this.type = o.type;
    this.index = joints.add(t, o.bodyA.index, b, o.anchor, frame, o.anchorB);
    const j = this.index;
    const nonNeg = (v: number | undefined, name: string): number => {
      if (v === undefined) return 0;
      if (!(v >= 0) || !Number.isFinite(v))
        throw new PbdError('rigid/invalid-joint', `${where}.${name}`, `must be ≥ 0, got ${v}`);
      return v;
    };
    joints.compliance[j] = nonNeg(o.compliance, 'compliance');
    joints.angularCompliance[j] = nonNeg(o.angularCompliance, 'angularCompliance');
    if (o.limits) this.setLimits(o.limits[0], o.limits[1]);
    if (t === DISTANCE) {
      const L = o.length ?? joints.coordinate(j);
      if (!o.limits) {
        nonNeg(L, 'length');
        joints.lo[j] = joints.hi[j] = L;
        joints.hasLimit[j] = 1;
      }
    }
    if (t === BALL) {
      if (o.swing !== undefined) {
        joints.hi[j] = nonNeg(o.swing, 'swing');
        joints.hasLimit[j] = 1;
      }
      if (o.twist) {
        if (!(o.twist[0] <= o.twist[1]))
          throw new PbdError('rigid/invalid-joint', `${where}.twist`, 'needs lo ≤ hi');
        joints.lo2[j] = o.twist[0];
        joints.hi2[j] = o.twist[1];
        joints.hasLimit2[j] = 1;
      }
    }
    if (o.motor) this.setMotor(o.motor);
    joints.setCollide(j, o.collideConnected === true);
  }

  /** Hinge: angle limits (rad); prismatic: offset limits (m); distance: [min, max] (m). */
  setLimits(lo: number, hi: number): void {
    const js = this.system.joints;
    if (!(lo <= hi) || !Number.isFinite(lo) || !Number.isFinite(hi)) {
      throw new PbdError(
        'rigid/invalid-joint',
        `joint ${this.index}.limits`,
        `need finite lo ≤ hi, got [${lo}, ${hi}]`,
      );
    }
    const t = js.type[this.index];
    if (t !== HINGE && t !== PRISMATIC && t !== DISTANCE) {
      throw new PbdError(
        'rigid/invalid-joint',
        `joint ${this.index}.limits`,
        `a ${this.type} joint has no such limits`,
        'use swing and twist for ball joints',
      );
    }
    js.lo[this.index] = lo;
    js.hi[this.index] = hi;
    js.hasLimit[this.index] = 1;
  }

  /** Sets (or, with null, removes) the motor of a hinge or prismatic joint. */
  setMotor(m: { target?: number; speed?: number; compliance?: number; maxForce?: number } | null): void {
    const js = this.system.joints;
    const j = this.index;
    if (m === null) {
      js.motor[j] = MOTOR_OFF;
      return;
    }
    const t = js.type[j];
    if (t !== HINGE && t !== PRISMATIC) {
      throw new PbdError(
        'rigid/invalid-joint',
        `joint ${j}.motor`,
        `a ${this.type} joint has no motor`,
        'use a hinge or prismatic joint',
      );
    }
    if (m.speed !== undefined) {
      js.motor[j] = MOTOR_VELOCITY;
      js.speed[j] = m.speed;
      js.target[j] = m.target ?? js.coordinate(j);
    } else {
      js.motor[j] = MOTOR_POSITION;
      js.target[j] = m.target ?? 0;
    }
    js.motorCompliance[j] = m.compliance ?? 0;
    js.maxForce[j] = m.maxForce ?? Infinity;
    if (!(js.maxForce[j] > 0))
      throw new PbdError(
        'rigid/invalid-joint',
        `joint ${j}.motor.maxForce`,
        `must be > 0, got ${m.maxForce}`,
      );
    this.system.wake(js.a[j]);
    if (js.b[j] >= 0) this.system.wake(js.b[j]);
  }

  /** Hinge angle (rad), prismatic offset (m) or distance (m) now. */
  coordinate(): number {
    return this.system.joints.coordinate(this.index);
  }

  /** Takes the joint out (its bodies move freely, and collide if they touch). */
  remove(): void {
    this.system.joints.setEnabled(this.index, false);
  }
}

/** Creates a joint (see JointOptions). */
export function createJoint(world: World, o: JointOptions): RigidJoint {
  return new RigidJoint(world, o);
}
