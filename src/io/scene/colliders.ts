import { z } from 'zod';
import {
  BoxCollider,
  CapsuleCollider,
  type Collider,
  PlaneCollider,
  SphereCollider,
} from '../../collision/colliders.js';
import type { World } from '../../core/world.js';
import { motion, vec3 } from './common.js';

/** The fields every collider of a scene has (the mesh collider of collision.ts too). */
export const colliderCommon = {
  name: z.string().optional(),
  position: vec3.optional().describe('position of the collider (m)'),
  rotation: vec3.optional().describe('Euler angles in degrees'),
  friction: z.number().min(0).optional().describe('kinetic friction μ, default 0.4'),
  staticFriction: z.number().min(0).optional().describe('static friction μs, default = friction'),
  restitution: z.number().min(0).max(1).optional().describe('coefficient of restitution, default 0'),
  margin: z.number().min(0).optional().describe('collision margin (m), default 0.005'),
  motion: motion.optional().describe('scripted motion: the collider is kinematic'),
  group: z.int().optional(),
  mask: z.int().optional(),
};

export const planeCollider = z.strictObject({
  type: z.literal('plane'),
  normal: vec3.optional().describe('default [0, 1, 0]'),
  ...colliderCommon,
});
export const sphereCollider = z.strictObject({
  type: z.literal('sphere'),
  radius: z.number().positive(),
  ...colliderCommon,
});
export const boxCollider = z.strictObject({ type: z.literal('box'), halfExtents: vec3, ...colliderCommon });
export const capsuleCollider = z.strictObject({
  type: z.literal('capsule'),
  radius: z.number().positive(),
  halfHeight: z.number().min(0).describe('half the length of the axis segment (along local y)'),
  ...colliderCommon,
});

/** Collider types of the core; families add theirs (e.g. mesh colliders) to `colliderSchemas` in scene.ts. */
export const coreColliderSchemas = [planeCollider, sphereCollider, boxCollider, capsuleCollider] as const;

type CoreColliderSpec = z.infer<(typeof coreColliderSchemas)[number]>;

export function buildCoreCollider(spec: CoreColliderSpec, world: World, where: string): Collider {
  const { type: _type, ...opts } = spec;
  switch (spec.type) {
    case 'plane':
      return world.addCollider(
        new PlaneCollider(opts as ConstructorParameters<typeof PlaneCollider>[0], where),
      );
    case 'sphere':
      return world.addCollider(
        new SphereCollider(opts as ConstructorParameters<typeof SphereCollider>[0], where),
      );
    case 'box':
      return world.addCollider(new BoxCollider(opts as ConstructorParameters<typeof BoxCollider>[0], where));
    case 'capsule':
      return world.addCollider(
        new CapsuleCollider(opts as ConstructorParameters<typeof CapsuleCollider>[0], where),
      );
  }
}
