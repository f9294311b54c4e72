/**
 * Rigid bodies in scene files (src/rigid/, docs/rigid.md): a scene's
 * `rigidBodies` list, each coupled two ways with the scene's particles
 * (contacts that push back on the body; src/rigid/coupling.ts) unless
 * `couple` is false, and particles of the scene's bodies attached to points
 * of it (`attach`, hard or soft; src/rigid/rigid-attachments.ts), and a
 * particle skin that fluids feel (`skin`; src/rigid/fluid-skin.ts).
 */
import { z } from 'zod';
import type { Body } from '../../core/body.js';
import { PbdError } from '../../core/errors.js';
import type { World } from '../../core/world.js';
import { coupleRigidBody } from '../../rigid/coupling.js';
import { rigidSkin } from '../../rigid/fluid-skin.js';
import { attachToRigidBody } from '../../rigid/rigid-attachments.js';
import { RigidBody } from '../../rigid/rigid-body.js';
import type { RigidShape } from '../../rigid/shapes.js';
import { vec3 } from './common.js';

const rigidShape = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('sphere'), radius: z.number().positive().describe('m') }),
  z.strictObject({ type: z.literal('box'), halfExtents: vec3.describe('half extents (m)') }),
  z.strictObject({
    type: z.literal('capsule'),
    radius: z.number().positive(),
    halfHeight: z.number().min(0).describe('half the length of the axis segment (along local y)'),
  }),
  z.strictObject({
    type: z.literal('convex'),
    points: z.array(z.number()).min(12).describe('the hull of these points (xyz interleaved, shape frame)'),
  }),
]);

const rigidAttachment = z
  .strictObject({
    body: z.int().min(0).describe('index of a body in `bodies`'),
    vertices: z.array(z.int().min(0)).min(1).describe("the body's vertices (local indices) to attach"),
    compliance: z.number().min(0).optional().describe('m/N; 0 (default) is a hard attachment'),
  })
  .describe('particles attached, where they are, to points of the rigid body (003 Figure 8)');

export const rigidBodySpec = z
  .strictObject({
    name: z.string().optional(),
    shape: rigidShape,
    type: z.enum(['dynamic', 'kinematic', 'static']).optional().describe('default "dynamic"'),
    density: z.number().positive().optional().describe('kg/m³, default 1000'),
    mass: z.number().positive().optional().describe('kg (wins over density)'),
    position: vec3.optional().describe("position of the shape's origin (m)"),
    rotation: vec3.optional().describe('Euler angles in degrees (XYZ)'),
    velocity: vec3.optional().describe('m/s'),
    angularVelocity: vec3.optional().describe('rad/s (world)'),
    friction: z.number().min(0).optional().describe('kinetic friction μ, default 0.5'),
    staticFriction: z.number().min(0).optional().describe('static friction μs, default = friction'),
    restitution: z.number().min(0).max(1).optional().describe('default 0'),
    gravity: z.boolean().optional().describe('default true'),
    canSleep: z.boolean().optional().describe('default true'),
    group: z.int().optional(),
    mask: z.int().optional(),
    couple: z
      .boolean()
      .optional()
      .describe('particles collide with it and push back on it (two-way), default true'),
    margin: z.number().min(0).optional().describe('particles keep this far from it (m), default 0.005'),
    attach: z.array(rigidAttachment).optional(),
    skin: z
      .strictObject({
        spacing: z.number().positive().describe("m; the fluid's spacing is a good choice"),
        share: z
          .number()
          .gt(0)
          .lt(1)
          .optional()
          .describe("share of the body's mass in its skin, default 0.5"),
      })
      .optional()
      .describe('a particle skin attached to a box or sphere body, so that fluids buoy and push it'),
  })
  .describe('a rigid body (Müller et al. 2020), coupled two ways with the particles');

export const rigidSettingsSpec = z
  .strictObject({
    sleep: z.boolean().optional().describe('let resting bodies sleep, default true'),
    contactMargin: z.number().min(0).optional().describe('m, default 0.01'),
  })
  .describe('settings of the rigid-body system');

export type RigidBodySpec = z.infer<typeof rigidBodySpec>;

/** Builds the scene's rigid bodies, couples them and attaches the particles they hold. */
export function buildRigidBodies(specs: RigidBodySpec[], world: World, bodies: Body[]): RigidBody[] {
  return specs.map((s, k) => {
    const where = `rigidBodies[${k}]`;
    const { attach, couple, margin, shape, skin, ...desc } = s;
    const body = new RigidBody(world, { ...desc, shape: shape as RigidShape, name: s.name ?? `rigid${k}` });
    // not coupled: a collider that meets no particle (mask 0) still follows it, so viewers draw it
    coupleRigidBody(body, couple === false ? { margin, mask: 0 } : { margin });
    if (skin) rigidSkin(body, skin);
    (attach ?? []).forEach((a, j) => {
      const b = bodies[a.body];
      if (!b) {
        throw new PbdError(
          'scene/bad-reference',
          `${where}.attach[${j}].body`,
          `names body ${a.body}, but the scene has ${bodies.length}`,
        );
      }
      for (const v of a.vertices) {
        if (v >= b.activeCount) {
          throw new PbdError(
            'scene/bad-reference',
            `${where}.attach[${j}].vertices`,
            `names vertex ${v}, but body ${a.body} has ${b.activeCount}`,
          );
        }
        attachToRigidBody(b.offset + v, body, { compliance: a.compliance });
      }
    });
    return body;
  });
}
