import type { Body } from '../core/body.js';
import { PbdError } from '../core/errors.js';
import type { SystemKind, World } from '../core/world.js';
import { colliderContactsOf } from './collider-contacts.js';
import { MeshFeatureContacts } from './mesh-feature-contacts.js';
import { ParticleContacts } from './particle-contacts.js';
import { SegmentContacts } from './segment-contacts.js';
import { SurfaceContacts } from './surface-contacts.js';

/** World-wide contact settings; every body registered later starts from these. */
export interface CollisionOptions {
  /** Cloth thickness h (m) of surfaces (003 §4.3). Default 0.01. */
  thickness?: number;
  /** Kinetic friction μ of body–body and self contacts. Default 0.3. */
  friction?: number;
  /** Static friction μs. Default: equal to `friction`. */
  staticFriction?: number;
  /** Restitution e of body–body contacts. Default 0. */
  restitution?: number;
  /** Self collision of each surface (cloth). Default true. */
  self?: boolean;
  /** Contact between different bodies (a point of one through a triangle of another, 003 §3.4). Default true. */
  between?: boolean;
  /** Contact between particles with radii. Default true. */
  particles?: boolean;
  /** Detect and resolve intersections that already exist (see Untangler). Default true. */
  untangle?: boolean;
  /** Run the untangling analysis every this many steps. Default 4. */
  untangleEvery?: number;
  /** Fail-safe crossing check after the solver (see SurfaceContacts). Default true. */
  failsafe?: boolean;
  /** Generate surface contacts every this many substeps (see SurfaceContacts.detectEvery). Default 1. */
  detectEvery?: number;
  /**
   * Contacts of mesh colliders' own vertices with the bodies' triangles
   * (MeshFeatureContacts), so that a thin feature cannot pass between a
   * cloth's vertices. Default true.
   */
  colliderFeatures?: boolean;
}

/** Per-body contact settings (each switches one contact type for this body). */
export interface BodyContactOptions {
  /** Self collision of this body's surface. */
  self?: boolean;
  /** Contact of this body with other bodies (surfaces and particles). */
  between?: boolean;
  /** Contact of this body's particles (those with a radius) with other particles. */
  particles?: boolean;
  /** Contact with the world's colliders. Default true. */
  colliders?: boolean;
  /** Thickness h (m) of this body's surface; for a body of free particles the particle radius is used. */
  thickness?: number;
  friction?: number;
  staticFriction?: number;
  restitution?: number;
}

/** The registry key of a world's collision system (World.system). */
export const collisionSystemKind: SystemKind<CollisionSystem> = {
  name: 'collision system',
  install: (world) => new CollisionSystem(world),
};

/**
 * Contact between bodies and within bodies, for one world: cloth self
 * collision and body–body contact through triangle surfaces
 * (SurfaceContacts), particle–particle contact (the world's ParticleContacts), and the
 * per-body switch for collider contacts. Each contact type can be switched
 * per body (BodyContactOptions) and per pair of bodies (setPair); collision
 * groups and masks (ParticleStore.group / mask, Collider.group / mask)
 * filter every contact type as well.
 */
export class CollisionSystem {
  readonly world: World;
  readonly surfaces: SurfaceContacts;
  readonly particles: ParticleContacts;
  readonly colliderFeatures: MeshFeatureContacts;
  readonly options: Required<CollisionOptions>;
  private segmentContacts: SegmentContacts | null = null;
  private readonly registered = new Map<Body, BodyContactOptions>();

  constructor(world: World, o: CollisionOptions = {}) {
    if (world.findSystem(collisionSystemKind)) {
      throw new PbdError(
        'contact/duplicate-system',
        'CollisionSystem',
        'the world already has a collision system',
        'use collisionSystemOf(world) to reach it',
      );
    }
    this.world = world;
    const every = everyNth(o.untangleEvery ?? 4, 'untangleEvery');
    const detectEvery = everyNth(o.detectEvery ?? 1, 'detectEvery');
    this.options = {
      thickness: o.thickness ?? 0.01,
      friction: o.friction ?? 0.3,
      staticFriction: o.staticFriction ?? o.friction ?? 0.3,
      restitution: o.restitution ?? 0,
      self: o.self ?? true,
      between: o.between ?? true,
      particles: o.particles ?? true,
      untangle: o.untangle ?? true,
      untangleEvery: every,
      failsafe: o.failsafe ?? true,
      detectEvery,
      colliderFeatures: o.colliderFeatures ?? true,
    };
    this.surfaces = new SurfaceContacts();
    this.surfaces.untangle = this.options.untangle;
    this.surfaces.untangleEvery = every;
    this.surfaces.failsafe = this.options.failsafe;
    this.surfaces.detectEvery = detectEvery;
    this.particles = ParticleContacts.of(world);
    this.colliderFeatures = new MeshFeatureContacts(world);
    this.colliderFeatures.enabled = this.options.colliderFeatures;
    world.addConstraintSet(this.colliderFeatures);
    world.addConstraintSet(this.surfaces);
    world.addSystem(collisionSystemKind, this);
  }

  /**
   * Segment–segment contacts of strand bodies (capsules around their
   * segments), created and added to the world when the first body with
   * contact lines is registered.
   */
  get segments(): SegmentContacts {
    if (!this.segmentContacts) {
      this.segmentContacts = new SegmentContacts();
      this.world.addConstraintSet(this.segmentContacts);
    }
    return this.segmentContacts;
  }

  /**
   * Registers a body for contacts: its triangles (if it has any) join the
   * surface contacts, its particles with a radius join the particle contacts,
   * its contact lines (strands) with a radius join the segment contacts.
   */
  add(body: Body, o: BodyContactOptions = {}): this {
    if (body.world !== this.world)
      throw new PbdError(
        'contact/foreign-body',
        `contacts of '${body.name}'`,
        'the body belongs to another world',
      );
    if (this.registered.has(body))
      throw new PbdError('contact/duplicate', `contacts of '${body.name}'`, 'already added');
    this.registered.set(body, o);
    const d = this.options;
    const between = o.between ?? d.between;
    const friction = o.friction ?? d.friction;
    const staticFriction = o.staticFriction ?? o.friction ?? d.staticFriction;
    const restitution = o.restitution ?? d.restitution;
    const store = this.world.store;
    const hasTriangles = body.contactTriangles().length > 0;
    let maxRadius = 0;
    for (let i = body.offset; i < body.offset + body.activeCount; i++)
      maxRadius = Math.max(maxRadius, store.radius[i]);
    if (hasTriangles || between) {
      // a body of free particles takes part in surface contacts as points of thickness 2r (pair: r + h/2)
      const thickness = o.thickness ?? (hasTriangles ? d.thickness : 2 * maxRadius);
      if (hasTriangles || thickness > 0) {
        this.surfaces.addSurface(body, {
          thickness,
          self: hasTriangles ? (o.self ?? d.self) : false,
          others: between,
          friction,
          staticFriction,
          restitution,
        });
      }
    }
    const hasLines = body.contactLines().length > 0 && maxRadius > 0;
    if (hasLines) {
      // strands: their segments collide as capsules (with themselves unless self is off), not their particles
      this.segments.addBody(body, { self: o.self ?? d.self, friction, staticFriction });
      for (const other of this.registered.keys()) {
        if (other === body || !this.segments.has(other)) continue;
        if (!between || !(this.registered.get(other)!.between ?? d.between))
          this.segments.setPair(body, other, false);
      }
    }
    if ((o.particles ?? d.particles) && maxRadius > 0) {
      this.particles.addBody(body, {
        self: !hasTriangles && !hasLines,
        friction,
        staticFriction,
        restitution,
      });
      if (hasLines) {
        // two strand bodies meet through their segments only
        for (const other of this.registered.keys()) {
          if (other !== body && this.segments.has(other) && this.isParticleBody(other))
            this.particles.setPair(body, other, false);
        }
      }
      for (const other of this.registered.keys()) {
        if (other === body || !this.isParticleBody(other)) continue;
        if (!between || !(this.registered.get(other)!.between ?? d.between))
          this.particles.setPair(body, other, false);
      }
    }
    if (hasTriangles) this.colliderFeatures.addBody(body, o.thickness ?? d.thickness);
    if (o.colliders === false) this.setColliders(body, false);
    return this;
  }

  private isParticleBody(b: Body): boolean {
    const o = this.registered.get(b);
    if (!o || !(o.particles ?? this.options.particles)) return false;
    const s = this.world.store;
    for (let i = b.offset; i < b.offset + b.activeCount; i++) if (s.radius[i] > 0) return true;
    return false;
  }

  /** Switches every contact type between two registered bodies (a === b: the body's self contacts). */
  setPair(a: Body, b: Body, enabled: boolean): this {
    for (const body of [a, b]) {
      if (!this.registered.has(body))
        throw new PbdError(
          'contact/unknown-body',
          `contact pair ('${a.name}', '${b.name}')`,
          `'${body.name}' is not registered for contacts`,
          'add it with collisions.add(body) first',
        );
    }
    if (this.surfaces.surfaceOf(a) && this.surfaces.surfaceOf(b)) this.surfaces.setPair(a, b, enabled);
    if (this.isParticleBody(a) && this.isParticleBody(b)) this.particles.setPair(a, b, enabled);
    if (this.segmentContacts?.has(a) && this.segmentContacts.has(b))
      this.segmentContacts.setPair(a, b, enabled);
    return this;
  }

  /** Switches contact between a body's particles and the world's colliders. */
  setColliders(body: Body, enabled: boolean): this {
    const c = colliderContactsOf(this.world);
    const need = body.id + 1;
    if (!c.disabledBody || c.disabledBody.length < need) {
      const grown = new Uint8Array(Math.max(need, 2 * (c.disabledBody?.length ?? 0), 8));
      if (c.disabledBody) grown.set(c.disabledBody);
      c.disabledBody = grown;
    }
    c.disabledBody[body.id] = enabled ? 0 : 1;
    return this;
  }
}

/** The world's collision system, created on first use with the given options. */
export function enableCollisions(world: World, options: CollisionOptions = {}): CollisionSystem {
  return world.findSystem(collisionSystemKind) ?? new CollisionSystem(world, options);
}

/** The world's collision system, or null when none was created. */
export function collisionSystemOf(world: World): CollisionSystem | null {
  return world.findSystem(collisionSystemKind);
}

/** A period in substeps (the option `collision.<field>`), refused unless an integer ≥ 1 (contact/invalid). */
function everyNth(n: number, field: string): number {
  if (!(Number.isInteger(n) && n >= 1))
    throw new PbdError('contact/invalid', `collision.${field}`, `must be an integer ≥ 1, got ${n}`);
  return n;
}
