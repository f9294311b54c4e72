/**
 * A collider's name and contact settings: declared once here, for the
 * WorldCollider contract and for the collision family's Collider class
 * (src/collision/colliders.ts), which extends this class and sets them from
 * its options.
 */
export abstract class ColliderSettings {
  /** A name for messages and the gallery. */
  name!: string;
  /** Kinetic and static friction coefficients μ and μs, restitution e ∈ [0, 1]. */
  friction!: number;
  staticFriction!: number;
  restitution!: number;
  /** Particles are kept this far (m) outside the surface. */
  margin!: number;
  /** Collision groups the collider belongs to, and the particle groups it collides with (bitmasks). */
  group!: number;
  mask!: number;
}

/**
 * A collider as the World sees it: a static or kinematic shape that
 * particles collide with (003 §3.4). The World keeps a list of them, moves
 * kinematic ones at the start of every substep, and saves their poses in
 * checkpoints; constraint sets query them. The core knows no shape: the
 * collision family's colliders (src/collision/colliders.ts) implement this
 * contract, and the contacts that act on them (ColliderContacts) are
 * installed by the collider itself when it is added to a world (`addedTo`).
 */
export interface WorldCollider extends ColliderSettings {
  /** 'plane', 'sphere', 'box', 'capsule', 'mesh' … */
  readonly type: string;
  enabled: boolean;
  /** Current pose: position and unit quaternion (x, y, z, w). */
  readonly position: Float64Array;
  readonly rotation: Float64Array;
  /** Velocity of the pose over the last substep: v(q) = linearVelocity + angularVelocity × (q − position). */
  readonly linearVelocity: Float64Array;
  readonly angularVelocity: Float64Array;

  /** True when the collider moves (a scripted, kinematic collider). */
  readonly kinematic: boolean;
  /**
   * The rigid body (its index in the world's RigidStore) whose pose this
   * collider follows, or −1: particles' contacts with it push back on the
   * body (two-way coupling, 003 §4.2). Absent: −1.
   */
  readonly rigid?: number;

  /** Moves a kinematic collider to its pose at time t, recording its velocity over the substep h. */
  update(t: number, h: number): void;
  /** Signed distance from (x, y, z) to the surface (negative inside); writes the outward unit normal to n[0..2]. */
  distance(x: number, y: number, z: number, n: Float64Array): number;
  /** distance() of P[i … i + 2], written to n[3]: the form for hot loops (no boxed doubles). */
  distanceAt(P: Float64Array, i: number, n: Float64Array): void;
  /** Fraction t ∈ [0, 1] at which the segment a → b enters the shape grown by r, or −1. */
  raycast(ax: number, ay: number, az: number, bx: number, by: number, bz: number, r: number): number;
  /** raycast() of A[i … i + 2] → B[i … i + 2], written to out[3]. */
  raycastAt(A: Float64Array, B: Float64Array, i: number, r: number, out: Float64Array): void;
  /** A lower bound of the signed distance over an axis-aligned box, for culling. */
  boxDistanceBound(x0: number, y0: number, z0: number, x1: number, y1: number, z1: number): number;
  /** Radius of a sphere about `position` that bounds the shape (Infinity when unbounded). */
  boundingRadius(): number;
  /**
   * Called by `World.addCollider`: installs, through the world's registry
   * of systems, what makes particles collide with it. `world` is that World
   * (typed loosely here because the core's contracts sit below the World
   * class; implementations declare it as `World`).
   */
  addedTo?(world: object): void;
}
