/**
 * Two-way coupling of rigid bodies with the particle families (cloth, soft
 * bodies, shape matching, strands, fluids): 003 §4.2, with the generalized
 * inverse masses of Müller et al. 2020.
 *
 * A coupled rigid body gets a collider of its shape (box, sphere, capsule;
 * a convex hull or a triangle mesh as a mesh collider) that follows its pose:
 * particles collide with it through the collision family's collider contacts
 * (ColliderContacts), which, for a collider that names a rigid body
 * (`WorldCollider.rigid`), push back on the body with its generalized
 * inverse mass at the contact point (collision/rigid-coupling.ts). The
 * rigid-body system ignores these colliders (a body does not collide with
 * its own shape; bodies meet each other through their own contacts).
 *
 * The coupling stage, run every substep right after the rigid prediction,
 * puts each such collider at its body's predicted pose with the velocity of
 * the substep (as a kinematic collider has at that point), disables the
 * colliders of removed bodies, and keeps bodies that particles touched in the
 * last substep awake: a body on a hammock rests because the cloth holds it,
 * not because it was put to sleep.
 */

import { findColliderContacts } from '../collision/collider-contacts.js';
import { BoxCollider, CapsuleCollider, type Collider, SphereCollider } from '../collision/colliders.js';
import { MeshCollider } from '../collision/mesh-collider.js';
import type { StepContext } from '../core/constraint-set.js';
import { PbdError } from '../core/errors.js';
import { Channels, type Stage } from '../core/pipeline.js';
import type { SystemKind, World } from '../core/world.js';
import { shapeMesh } from '../io/collider-meshes.js';
import { SKIN_GROUP } from './fluid-skin.js';
import { RigidBodies } from './rigid-bodies.js';
import type { RigidBody } from './rigid-body.js';
import { BOX, CAPSULE, SPHERE } from './shapes.js';

/** Options of coupleRigidBody. */
export interface RigidCouplingOptions {
  /** Particles are kept this far (m) outside the body's surface. Default 0.005. */
  margin?: number;
  /** Cells of a hull's or mesh's distance field along its longest side. Default 32. */
  resolution?: number;
  /** Collision group of the body's collider and the particle groups it meets (bitmasks). Default: the body's, less SKIN_GROUP. */
  group?: number;
  mask?: number;
}

/** The colliders of a world's coupled rigid bodies, and the stage that moves them. */
export class RigidCoupling {
  readonly world: World;
  /** The coupled bodies' colliders, and their bodies (RigidStore indices). */
  readonly colliders: Collider[] = [];
  readonly bodies: RigidBody[] = [];
  private readonly stage: CouplingStage;

  /** The world's coupling, installed on first use. */
  static of(world: World): RigidCoupling {
    return world.system(rigidCouplingKind);
  }

  constructor(world: World) {
    this.world = world;
    this.stage = new CouplingStage(this);
    world.addStage(this.stage);
  }

  /** The collider of a coupled body, or null. */
  colliderOf(body: RigidBody): Collider | null {
    const k = this.bodies.indexOf(body);
    return k < 0 ? null : this.colliders[k];
  }

  /** Puts every coupled collider at its body's pose (store frame: centre of mass, principal axes) with the velocity of the substep h. */
  sync(h: number): void {
    const r = this.world.rigids;
    const sys = RigidBodies.of(this.world);
    for (let k = 0; k < this.colliders.length; k++) {
      const c = this.colliders[k],
        b = c.rigid,
        b3 = 3 * b,
        b4 = 4 * b;
      c.enabled = sys.removed[b] === 0;
      for (let d = 0; d < 3; d++) {
        c.position[d] = r.x[b3 + d];
        c.prevPosition[d] = r.xPrev[b3 + d];
        c.linearVelocity[d] = h > 0 ? (r.x[b3 + d] - r.xPrev[b3 + d]) / h : r.v[b3 + d];
        c.angularVelocity[d] = r.omega[b3 + d];
      }
      for (let d = 0; d < 4; d++) {
        c.rotation[d] = r.q[b4 + d];
        c.prevRotation[d] = r.qPrev[b4 + d];
      }
    }
  }

  /** Bodies that particles touched in the last substep do not fall asleep (and wake if asleep). */
  keepAwake(): void {
    const cc = findColliderContacts(this.world);
    if (!cc) return;
    const sys = RigidBodies.of(this.world);
    for (let k = 0; k < cc.count; k++) {
      const b = cc.rigid[k];
      if (b < 0) continue;
      sys.still[b] = 0;
      if (sys.sleeping[b]) sys.wake(b);
    }
  }
}

/** Phase `predict`, after the rigid prediction: the coupled colliders follow their bodies. */
class CouplingStage implements Stage {
  readonly name = 'rigids.couple';
  readonly phase = 'predict';
  readonly order = 3;
  readonly reads = [Channels.rigidPose, Channels.rigidPrevPose, Channels.rigidVelocity, Channels.sets];
  readonly writes = [Channels.colliders];
  private readonly coupling: RigidCoupling;

  constructor(coupling: RigidCoupling) {
    this.coupling = coupling;
  }

  run(ctx: StepContext): void {
    this.coupling.keepAwake();
    this.coupling.sync(ctx.h);
  }
}

/** The coupling's kind (see SystemKind). */
export const rigidCouplingKind: SystemKind<RigidCoupling> = {
  name: 'rigid coupling',
  install(world) {
    return new RigidCoupling(world as World);
  },
};

/**
 * Couples a rigid body with the world's particles: they collide with its
 * shape and push back on it (see the file comment). Returns its collider
 * (frame: the body's centre of mass and principal axes). Coupling a body
 * twice returns the same collider.
 */
export function coupleRigidBody(body: RigidBody, o: RigidCouplingOptions = {}): Collider {
  const world = body.world;
  const coupling = RigidCoupling.of(world);
  const old = coupling.colliderOf(body);
  if (old) return old;
  const sys = body.system,
    i = body.index,
    s = body.shape;
  const where = `${body.name}.coupling`;
  const margin = o.margin ?? 0.005;
  if (!(margin >= 0) || !Number.isFinite(margin)) {
    throw new PbdError('rigid/invalid', `${where}.margin`, `must be a finite number ≥ 0 (m), got ${margin}`);
  }
  const base = {
    friction: sys.friction[i],
    staticFriction: Math.max(sys.staticFriction[i], sys.friction[i]),
    restitution: sys.restitution[i],
    margin,
    group: o.group ?? sys.group[i],
    // (skins lie on their own body's surface: see fluid-skin.ts)
    mask: o.mask ?? sys.mask[i] & ~SKIN_GROUP,
    name: body.name,
  };
  let col: Collider;
  if (s.kind === SPHERE) col = new SphereCollider({ ...base, radius: s.radius }, where);
  else if (s.kind === CAPSULE)
    col = new CapsuleCollider({ ...base, radius: s.radius, halfHeight: s.halfHeight }, where);
  else if (s.kind === BOX) {
    const h = s.halfExtents;
    col = new BoxCollider({ ...base, halfExtents: [h[0], h[1], h[2]] }, where);
  } else {
    // a hull's faces as triangle fans, a mesh as given (body frame)
    const { positions, triangles } = shapeMesh(s)!;
    col = new MeshCollider(
      { ...base, mesh: { positions, triangles }, resolution: o.resolution ?? 32 },
      where,
    );
  }
  col.rigid = i;
  coupling.colliders.push(col);
  coupling.bodies.push(body);
  world.addCollider(col);
  coupling.sync(0);
  return col;
}
