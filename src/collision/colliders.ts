import { PbdError } from '../core/errors.js';
import { Motion, type MotionSpec, type Vec3Tuple } from '../core/motion.js';
import type { World } from '../core/world.js';
import { ColliderSettings, type WorldCollider } from '../core/world-collider.js';
import { quatFromEulerDegrees, quatMultiply, quatRotate, quatRotateInverse } from '../math/quat.js';
import { colliderContactsOf } from './collider-contacts.js';

/** Options common to every collider. */
export interface ColliderOptions {
  /** Position of the collider's origin (m). Default 0. */
  position?: Vec3Tuple;
  /** Orientation as Euler angles in degrees (XYZ). Default 0. */
  rotation?: Vec3Tuple;
  /** Kinetic (dynamic) friction coefficient μ. Default 0.4. */
  friction?: number;
  /** Static friction coefficient μs (≥ μ). Default: equal to `friction`. */
  staticFriction?: number;
  /** Coefficient of restitution e ∈ [0, 1]. Default 0. */
  restitution?: number;
  /** Collision margin (m): particles are kept this far outside the surface. Default 0.005. */
  margin?: number;
  /** Scripted motion: the collider is kinematic and drives what touches it. */
  motion?: MotionSpec;
  /** Collision groups this collider belongs to (bitmask). Default 1. */
  group?: number;
  /** Particle groups it collides with (bitmask). Default all. */
  mask?: number;
  /** A name for messages and the gallery. */
  name?: string;
}

const tmp = new Float64Array(3);

/**
 * A static or kinematic collision shape (003 §3.4). Shapes are defined in a
 * local frame; `position`/`rotation` give the current pose. The collision
 * queries work in world space and allocate nothing.
 */
export abstract class Collider extends ColliderSettings implements WorldCollider {
  abstract readonly type: string;
  // (name, friction, staticFriction, restitution, margin, group, mask: ColliderSettings's, set below)
  enabled = true;
  readonly motion: Motion | null;
  /** The rigid body this collider follows (see WorldCollider.rigid; set by coupleRigidBody), or −1. */
  rigid = -1;

  /** Current pose. */
  readonly position = new Float64Array(3);
  readonly rotation = new Float64Array([0, 0, 0, 1]);
  /** Pose at t = 0. */
  readonly initialPosition = new Float64Array(3);
  readonly initialRotation = new Float64Array([0, 0, 0, 1]);
  /** Velocity of the pose over the last substep: v(q) = linearVelocity + angularVelocity × (q − position). */
  readonly linearVelocity = new Float64Array(3);
  readonly angularVelocity = new Float64Array(3);
  /** The pose at the start of the current substep (kinematic colliders; equal to the pose otherwise). */
  readonly prevPosition = new Float64Array(3);
  readonly prevRotation = new Float64Array([0, 0, 0, 1]);
  private readonly dq = new Float64Array(4);

  constructor(opts: ColliderOptions, where: string) {
    super();
    this.name = opts.name ?? '';
    this.friction = opts.friction ?? 0.4;
    this.staticFriction = opts.staticFriction ?? this.friction;
    this.restitution = opts.restitution ?? 0;
    this.margin = opts.margin ?? 0.005;
    this.group = opts.group ?? 1;
    this.mask = opts.mask ?? -1;
    for (const [k, v] of [
      ['friction', this.friction],
      ['staticFriction', this.staticFriction],
      ['margin', this.margin],
    ] as const) {
      if (!(v >= 0) || !Number.isFinite(v)) {
        throw new PbdError('collider/invalid', `${where}.${k}`, `must be a finite number ≥ 0, got ${v}`);
      }
    }
    if (!(this.restitution >= 0 && this.restitution <= 1)) {
      throw new PbdError(
        'collider/invalid',
        `${where}.restitution`,
        `must lie in [0, 1], got ${this.restitution}`,
      );
    }
    if (opts.position) this.initialPosition.set(opts.position);
    if (opts.rotation)
      quatFromEulerDegrees(this.initialRotation, 0, opts.rotation[0], opts.rotation[1], opts.rotation[2]);
    this.motion = opts.motion ? new Motion(opts.motion, `${where}.motion`) : null;
    this.position.set(this.initialPosition);
    this.rotation.set(this.initialRotation);
    this.prevPosition.set(this.position);
    this.prevRotation.set(this.rotation);
  }

  /** Called by World.addCollider: particles collide with colliders through the world's ColliderContacts. */
  addedTo(world: World): void {
    colliderContactsOf(world);
  }

  /** True when the collider moves: a scripted motion, or a rigid body it follows. */
  get kinematic(): boolean {
    return this.motion !== null || this.rigid >= 0;
  }

  /** Moves a kinematic collider to its pose at time t and records its velocity over the substep h. */
  update(t: number, h: number): void {
    if (!this.motion) return;
    this.prevPosition.set(this.position);
    this.prevRotation.set(this.rotation);
    const m = this.motion;
    m.evaluate(t);
    m.apply(this.position, 0, this.initialPosition[0], this.initialPosition[1], this.initialPosition[2]);
    quatMultiply(this.rotation, 0, m.rotation, 0, this.initialRotation, 0);
    if (h > 0) {
      const inv = 1 / h;
      for (let k = 0; k < 3; k++) this.linearVelocity[k] = (this.position[k] - this.prevPosition[k]) * inv;
      // ω from dq = q · q_prev⁻¹ (small-angle: ω ≈ 2 vec(dq) / h)
      const pq = this.prevRotation;
      const conj = tmpQ;
      conj[0] = -pq[0];
      conj[1] = -pq[1];
      conj[2] = -pq[2];
      conj[3] = pq[3];
      quatMultiply(this.dq, 0, this.rotation, 0, conj, 0);
      const sgn = this.dq[3] < 0 ? -2 * inv : 2 * inv;
      this.angularVelocity[0] = this.dq[0] * sgn;
      this.angularVelocity[1] = this.dq[1] * sgn;
      this.angularVelocity[2] = this.dq[2] * sgn;
    }
  }

  /** Resets the pose to t = 0. */
  reset(): void {
    this.position.set(this.initialPosition);
    this.rotation.set(this.initialRotation);
    this.prevPosition.set(this.position);
    this.prevRotation.set(this.rotation);
    this.linearVelocity.fill(0);
    this.angularVelocity.fill(0);
  }

  /**
   * Signed distance from world point (x, y, z) to the surface (negative
   * inside), writing the outward unit normal of the closest surface point to
   * n[0..2].
   */
  distance(x: number, y: number, z: number, n: Float64Array): number {
    const p = this.position,
      r = this.rotation;
    if (r[0] === 0 && r[1] === 0 && r[2] === 0) return this.localDistance(x - p[0], y - p[1], z - p[2], n);
    quatRotateInverse(tmp, 0, this.rotation, 0, x - p[0], y - p[1], z - p[2]);
    const d = this.localDistance(tmp[0], tmp[1], tmp[2], n);
    quatRotate(n, 0, this.rotation, 0, n[0], n[1], n[2]);
    return d;
  }

  /**
   * distance() of the point P[i … i + 2], written to n[3] (n holds four
   * numbers): the form for hot loops. V8 boxes every double argument, and
   * the double result, of a call it does not inline; array offsets are small
   * integers. Same operations as distance(), same result.
   */
  distanceAt(P: Float64Array, i: number, n: Float64Array): void {
    const p = this.position,
      r = this.rotation;
    if (r[0] === 0 && r[1] === 0 && r[2] === 0) {
      // unturned (a plane's ground, an upright capsule): turning by (0, 0, 0, w) gives the vector
      // itself bit for bit, so the two quaternion products are skipped
      n[3] = this.localDistance(P[i] - p[0], P[i + 1] - p[1], P[i + 2] - p[2], n);
      return;
    }
    quatRotateInverse(tmp, 0, r, 0, P[i] - p[0], P[i + 1] - p[1], P[i + 2] - p[2]);
    n[3] = this.localDistance(tmp[0], tmp[1], tmp[2], n);
    quatRotate(n, 0, r, 0, n[0], n[1], n[2]);
  }

  /** raycast() of the segment A[i … i + 2] → B[i … i + 2], written to out[3] (see distanceAt). */
  raycastAt(A: Float64Array, B: Float64Array, i: number, r: number, out: Float64Array): void {
    const p = this.position;
    quatRotateInverse(tmpA, 0, this.rotation, 0, A[i] - p[0], A[i + 1] - p[1], A[i + 2] - p[2]);
    quatRotateInverse(tmpB, 0, this.rotation, 0, B[i] - p[0], B[i + 1] - p[1], B[i + 2] - p[2]);
    out[3] = this.localRaycast(tmpA, tmpB, r);
  }

  /**
   * Fraction t ∈ [0, 1] at which the segment a → b enters the shape inflated
   * by r, or −1 when it does not enter. `a` must lie outside the inflated shape.
   */
  raycast(ax: number, ay: number, az: number, bx: number, by: number, bz: number, r: number): number {
    // raycastAt of the segment put into two scratch points: the same operations, the same result
    const sa = segA,
      sb = segB;
    sa[0] = ax;
    sa[1] = ay;
    sa[2] = az;
    sb[0] = bx;
    sb[1] = by;
    sb[2] = bz;
    this.raycastAt(sa, sb, 0, r, segOut);
    return segOut[3];
  }

  /**
   * A lower bound of the signed distance over the axis-aligned box
   * [x0, x1] × [y0, y1] × [z0, z1] (world space), for culling. The default
   * uses that a signed distance is 1-Lipschitz: distance(centre) − half
   * diagonal; shapes override it where the exact minimum is cheap.
   */
  boxDistanceBound(x0: number, y0: number, z0: number, x1: number, y1: number, z1: number): number {
    const hx = 0.5 * (x1 - x0),
      hy = 0.5 * (y1 - y0),
      hz = 0.5 * (z1 - z0);
    return this.distance(x0 + hx, y0 + hy, z0 + hz, tmpN) - Math.sqrt(hx * hx + hy * hy + hz * hz);
  }

  /** Local-frame signed distance; writes the local outward normal. */
  protected abstract localDistance(x: number, y: number, z: number, n: Float64Array): number;

  /**
   * Local-frame segment entry of a[0..2] → b[0..2] (scratch points the
   * callers fill: read them before any other query). The default samples the
   * segment and refines the first crossing of distance = r by bisection;
   * shapes override it with an exact test where one is cheap.
   */
  protected localRaycast(a: Float64Array, b: Float64Array, r: number): number {
    const len = Math.hypot(b[0] - a[0], b[1] - a[1], b[2] - a[2]);
    const samples = Math.min(16, Math.max(1, Math.ceil(len / Math.max(1e-9, 0.25 * this.featureSize()))));
    let t0 = 0;
    for (let s = 1; s <= samples; s++) {
      const t1 = s / samples;
      if (this.distanceAlong(a, b, t1) < r) {
        let lo = t0,
          hi = t1;
        for (let it = 0; it < 24; it++) {
          const mid = 0.5 * (lo + hi);
          if (this.distanceAlong(a, b, mid) < r) hi = mid;
          else lo = mid;
        }
        return hi;
      }
      t0 = t1;
    }
    return -1;
  }

  /** localDistance of the point a + (b − a) t of the local segment a → b (its normal to scratch). */
  protected distanceAlong(a: Float64Array, b: Float64Array, t: number): number {
    return this.localDistance(
      a[0] + (b[0] - a[0]) * t,
      a[1] + (b[1] - a[1]) * t,
      a[2] + (b[2] - a[2]) * t,
      tmpN,
    );
  }

  /**
   * A length typical of the shape's thinnest part, for the sampled
   * localRaycast alone (a shape with an exact localRaycast does not read it);
   * by default the bounding diameter.
   */
  protected featureSize(): number {
    return 2 * this.boundingRadius();
  }

  /** Radius of a sphere about `position` that bounds the shape (Infinity for unbounded shapes). */
  abstract boundingRadius(): number;
}

const tmpA = new Float64Array(3);
const tmpB = new Float64Array(3);
/** raycast()'s segment and answer, handed to raycastAt. */
const segA = new Float64Array(3);
const segB = new Float64Array(3);
const segOut = new Float64Array(4);
const tmpN = new Float64Array(3);
const tmpQ = new Float64Array(4);
const tmpP = new Float64Array(4);
/**
 * Writes the unit vector (x, y, z)/|(x, y, z)| to n[0..2] and returns the
 * length; where the length is 1e-12 or less (no direction), writes the unit
 * axis `axis` (0: x, 1: y) instead. The normal of a point's offset from a
 * centre, segment or gradient (spheres, capsules, a mesh's distance field).
 */
export function unitOrAxis(n: Float64Array, x: number, y: number, z: number, axis: number): number {
  const len = Math.sqrt(x * x + y * y + z * z);
  if (len > 1e-12) {
    n[0] = x / len;
    n[1] = y / len;
    n[2] = z / len;
  } else {
    n[0] = n[1] = n[2] = 0;
    n[axis] = 1;
  }
  return len;
}

/** [t0, t1] of the segment clipped so far by clipSlab. */
const slab = new Float64Array(2);

/** Clips slab[0..1] to the part of a + t d with |·| ≤ e; false when empty. */
function clipSlab(a: number, d: number, e: number): boolean {
  if (Math.abs(d) < 1e-300) return a >= -e && a <= e;
  let ta = (-e - a) / d,
    tb = (e - a) / d;
  if (ta > tb) {
    const s = ta;
    ta = tb;
    tb = s;
  }
  if (ta > slab[0]) slab[0] = ta;
  if (tb < slab[1]) slab[1] = tb;
  return slab[0] <= slab[1];
}

/** An infinite plane; in its local frame the plane is y = 0 with normal +y. */
export class PlaneCollider extends Collider {
  readonly type = 'plane';

  /** `normal` orients the plane (overrides `rotation`); `position` is a point on it. */
  constructor(opts: ColliderOptions & { normal?: Vec3Tuple } = {}, where = 'plane') {
    super(opts, where);
    if (opts.normal) {
      const [nx, ny, nz] = opts.normal;
      const len = Math.hypot(nx, ny, nz);
      if (!(len > 0))
        throw new PbdError('collider/invalid', `${where}.normal`, 'the plane normal must not be zero');
      // shortest rotation taking +y to n
      const ux = nx / len,
        uy = ny / len,
        uz = nz / len;
      if (uy < -0.999999) {
        this.initialRotation.set([1, 0, 0, 0]);
      } else {
        // q = (y × n, 1 + y·n) normalised
        const qx = uz,
          qy = 0,
          qz = -ux,
          qw = 1 + uy;
        const ql = Math.hypot(qx, qy, qz, qw);
        this.initialRotation.set([qx / ql, qy / ql, qz / ql, qw / ql]);
      }
      this.rotation.set(this.initialRotation);
    }
  }

  protected localDistance(_x: number, y: number, _z: number, n: Float64Array): number {
    n[0] = 0;
    n[1] = 1;
    n[2] = 0;
    return y;
  }

  /** The exact minimum of n · (q − position) over the box's corners. */
  override boxDistanceBound(x0: number, y0: number, z0: number, x1: number, y1: number, z1: number): number {
    const n = tmpN;
    quatRotate(n, 0, this.rotation, 0, 0, 1, 0);
    const p = this.position;
    return (
      n[0] * ((n[0] > 0 ? x0 : x1) - p[0]) +
      n[1] * ((n[1] > 0 ? y0 : y1) - p[1]) +
      n[2] * ((n[2] > 0 ? z0 : z1) - p[2])
    );
  }

  protected override localRaycast(a: Float64Array, b: Float64Array, r: number): number {
    const ay = a[1],
      by = b[1];
    if (ay < r || by >= r) return -1;
    return (ay - r) / (ay - by);
  }

  boundingRadius(): number {
    return Number.POSITIVE_INFINITY;
  }
}

export class SphereCollider extends Collider {
  readonly type = 'sphere';
  radius: number;

  constructor(opts: ColliderOptions & { radius: number }, where = 'sphere') {
    super(opts, where);
    if (!(opts.radius > 0))
      throw new PbdError('collider/invalid', `${where}.radius`, `must be > 0, got ${opts.radius}`);
    this.radius = opts.radius;
  }

  protected localDistance(x: number, y: number, z: number, n: Float64Array): number {
    return unitOrAxis(n, x, y, z, 1) - this.radius;
  }

  /**
   * The sphere's fast path (the hot loop of the collider contacts, hair on a
   * head): a sphere's distance and normal do not depend on its rotation, so
   * the point is not turned into the local frame and back — one square root,
   * no quaternion products. At the centre (no direction) the generic query
   * gives the turned local +y.
   */
  override distanceAt(P: Float64Array, i: number, n: Float64Array): void {
    const c = this.position;
    const x = P[i] - c[0],
      y = P[i + 1] - c[1],
      z = P[i + 2] - c[2];
    const len = Math.sqrt(x * x + y * y + z * z);
    if (len > 1e-12) {
      n[0] = x / len;
      n[1] = y / len;
      n[2] = z / len;
      n[3] = len - this.radius;
    } else super.distanceAt(P, i, n);
  }

  /** The entry of A[i …] → B[i …] into the sphere grown by r, without turning the segment (see distanceAt). */
  override raycastAt(A: Float64Array, B: Float64Array, i: number, r: number, out: Float64Array): void {
    const c = this.position;
    for (let k = 0; k < 3; k++) {
      tmpA[k] = A[i + k] - c[k];
      tmpB[k] = B[i + k] - c[k];
    }
    out[3] = this.localRaycast(tmpA, tmpB, r);
  }

  override distance(x: number, y: number, z: number, n: Float64Array): number {
    const t = tmpP;
    t[0] = x;
    t[1] = y;
    t[2] = z;
    this.distanceAt(t, 0, t);
    n[0] = t[0];
    n[1] = t[1];
    n[2] = t[2];
    return t[3];
  }

  protected override localRaycast(a: Float64Array, b: Float64Array, r: number): number {
    const ax = a[0],
      ay = a[1],
      az = a[2];
    const R = this.radius + r;
    const dx = b[0] - ax,
      dy = b[1] - ay,
      dz = b[2] - az;
    const qa = dx * dx + dy * dy + dz * dz;
    if (qa === 0) return -1;
    const qb = 2 * (ax * dx + ay * dy + az * dz);
    const qc = ax * ax + ay * ay + az * az - R * R;
    if (qc < 0) return -1; // starts inside
    const disc = qb * qb - 4 * qa * qc;
    if (disc < 0) return -1;
    const t = (-qb - Math.sqrt(disc)) / (2 * qa);
    return t >= 0 && t <= 1 ? t : -1;
  }

  boundingRadius(): number {
    return this.radius;
  }
}

export class BoxCollider extends Collider {
  readonly type = 'box';
  readonly halfExtents: Float64Array;

  constructor(opts: ColliderOptions & { halfExtents: Vec3Tuple }, where = 'box') {
    super(opts, where);
    const h = opts.halfExtents;
    if (!(h[0] > 0 && h[1] > 0 && h[2] > 0)) {
      throw new PbdError(
        'collider/invalid',
        `${where}.halfExtents`,
        `every half extent must be > 0, got [${h.join(', ')}]`,
      );
    }
    this.halfExtents = new Float64Array(h);
  }

  protected localDistance(x: number, y: number, z: number, n: Float64Array): number {
    const h = this.halfExtents;
    const qx = Math.abs(x) - h[0],
      qy = Math.abs(y) - h[1],
      qz = Math.abs(z) - h[2];
    if (qx > 0 || qy > 0 || qz > 0) {
      const ox = Math.max(qx, 0),
        oy = Math.max(qy, 0),
        oz = Math.max(qz, 0);
      const len = Math.hypot(ox, oy, oz);
      n[0] = (Math.sign(x) * ox) / len;
      n[1] = (Math.sign(y) * oy) / len;
      n[2] = (Math.sign(z) * oz) / len;
      return len;
    }
    // inside: the nearest face
    n[0] = n[1] = n[2] = 0;
    if (qx >= qy && qx >= qz) {
      n[0] = x >= 0 ? 1 : -1;
      return qx;
    }
    if (qy >= qz) {
      n[1] = y >= 0 ? 1 : -1;
      return qy;
    }
    n[2] = z >= 0 ? 1 : -1;
    return qz;
  }

  protected override localRaycast(a: Float64Array, b: Float64Array, r: number): number {
    // slab test against the box grown by r (corners treated as sharp)
    const h = this.halfExtents;
    slab[0] = 0;
    slab[1] = 1;
    if (
      !clipSlab(a[0], b[0] - a[0], h[0] + r) ||
      !clipSlab(a[1], b[1] - a[1], h[1] + r) ||
      !clipSlab(a[2], b[2] - a[2], h[2] + r)
    ) {
      return -1;
    }
    const t0 = slab[0];
    return t0 > 0 ? t0 : -1;
  }

  boundingRadius(): number {
    return Math.hypot(this.halfExtents[0], this.halfExtents[1], this.halfExtents[2]);
  }
}

/** A capsule along its local y axis: a segment from (0, −halfHeight, 0) to (0, halfHeight, 0) swept by `radius`. */
export class CapsuleCollider extends Collider {
  readonly type = 'capsule';
  radius: number;
  halfHeight: number;

  constructor(opts: ColliderOptions & { radius: number; halfHeight: number }, where = 'capsule') {
    super(opts, where);
    if (!(opts.radius > 0))
      throw new PbdError('collider/invalid', `${where}.radius`, `must be > 0, got ${opts.radius}`);
    if (!(opts.halfHeight >= 0)) {
      throw new PbdError('collider/invalid', `${where}.halfHeight`, `must be ≥ 0, got ${opts.halfHeight}`);
    }
    this.radius = opts.radius;
    this.halfHeight = opts.halfHeight;
  }

  protected localDistance(x: number, y: number, z: number, n: Float64Array): number {
    const cy = Math.min(Math.max(y, -this.halfHeight), this.halfHeight);
    const dx = x,
      dy = y - cy,
      dz = z;
    return unitOrAxis(n, dx, dy, dz, 0) - this.radius; // (a square root, not Math.hypot)
  }

  protected override featureSize(): number {
    return this.radius * 2;
  }

  boundingRadius(): number {
    return this.radius + this.halfHeight;
  }
}
