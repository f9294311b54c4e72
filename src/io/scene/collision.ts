/**
 * Scene-file parts of the collision family: the `mesh` collider, the
 * `granular` body and the top-level `collision` section (contacts between
 * and within bodies, with per-body and per-pair switches).
 */
import { z } from 'zod';
import { CollisionSystem } from '../../collision/collision-system.js';
import { Granular } from '../../collision/granular.js';
import { MeshCollider } from '../../collision/mesh-collider.js';
import type { Body } from '../../core/body.js';
import { PbdError } from '../../core/errors.js';
import type { World } from '../../core/world.js';
import { colliderCommon } from './colliders.js';
import { type BuildContext, meshSource, placement, vec3 } from './common.js';
import { resolveMesh } from './meshes.js';

export const meshCollider = z
  .strictObject({
    type: z.literal('mesh'),
    mesh: meshSource.describe('a closed (watertight) mesh, in the collider frame'),
    transform: placement.optional().describe('placement of the mesh in the collider frame'),
    resolution: z
      .int()
      .min(4)
      .max(512)
      .optional()
      .describe('distance-field cells along the longest side, default 64'),
    inside: z.boolean().optional().describe('the free space is inside the mesh (a container, e.g. a barrel)'),
    ...colliderCommon,
  })
  .describe('a static or kinematic triangle mesh collider (signed distance field, exact near the surface)');

export type MeshColliderSpec = z.infer<typeof meshCollider>;

export function buildMeshCollider(
  spec: MeshColliderSpec,
  world: World,
  where: string,
  readFile: (path: string) => string,
): MeshCollider {
  const { type: _t, mesh: source, transform, ...opts } = spec;
  const mesh = resolveMesh(source, transform, readFile, `${where}.mesh`);
  try {
    return world.addCollider(new MeshCollider({ ...opts, mesh }, where));
  } catch (e) {
    // a problem inside a mesh file (a degenerate or non-manifold triangle) names the file too
    const at = `${where}.mesh`;
    if (!('file' in source) || !(e instanceof PbdError) || !e.where.startsWith(at)) throw e;
    throw new PbdError(e.code, `${at} (${source.file})${e.where.slice(at.length)}`, e.detail, e.hint);
  }
}

export const granularBody = z
  .strictObject({
    type: z.literal('granular'),
    name: z.string().optional(),
    box: z.strictObject({ min: vec3, max: vec3 }).describe('the box filled with particles (m)'),
    spacing: z.number().positive().describe('lattice spacing (m)'),
    radius: z.number().positive().optional().describe('particle radius (m), default spacing / 2'),
    density: z.number().positive().optional().describe('material density (kg/m³), default 1500'),
    jitter: z.number().min(0).max(0.5).optional().describe('random offset, fraction of the spacing'),
    velocity: vec3.optional().describe('initial velocity (m/s)'),
    group: z.int().optional(),
    mask: z.int().optional(),
  })
  .describe('free particles with radii (granular material): needs the collision section for contacts');

export type GranularBodySpec = z.infer<typeof granularBody>;

export function buildGranular(spec: GranularBodySpec, ctx: BuildContext): Granular {
  const { type: _t, ...o } = spec;
  return new Granular(ctx.world, o);
}

const bodyContact = z
  .strictObject({
    self: z.boolean().optional().describe('self collision of this body'),
    between: z.boolean().optional().describe('contact with other bodies'),
    particles: z.boolean().optional().describe('particle–particle contact of its particles with radii'),
    colliders: z.boolean().optional().describe('contact with the colliders, default true'),
    thickness: z.number().positive().optional().describe('thickness h of its surface (m)'),
    friction: z.number().min(0).optional(),
    staticFriction: z.number().min(0).optional(),
    restitution: z.number().min(0).max(1).optional(),
  })
  .describe('contact settings of one body');

export const collisionSettings = z
  .strictObject({
    thickness: z.number().positive().optional().describe('cloth thickness h (m), default 0.01 (003 §4.3)'),
    friction: z.number().min(0).optional().describe('kinetic friction μ of body contacts, default 0.3'),
    staticFriction: z.number().min(0).optional().describe('static friction μs, default = friction'),
    restitution: z.number().min(0).max(1).optional().describe('restitution of body contacts, default 0'),
    self: z.boolean().optional().describe('self collision of every cloth, default true'),
    between: z.boolean().optional().describe('contact between different bodies, default true'),
    particles: z.boolean().optional().describe('contact between particles with radii, default true'),
    untangle: z.boolean().optional().describe('resolve existing intersections, default true'),
    untangleEvery: z.int().min(1).optional().describe('untangling analysis every n steps, default 4'),
    failsafe: z.boolean().optional().describe('crossing check after the solver, default true'),
    colliderFeatures: z
      .boolean()
      .optional()
      .describe("mesh colliders' own vertices against the bodies' triangles (thin features), default true"),
    detectEvery: z
      .int()
      .min(1)
      .optional()
      .describe(
        'generate body contacts every n substeps (faster; the state is checked at the end of each n), default 1',
      ),
    bodies: z.record(z.string(), bodyContact).optional().describe('per-body settings, by body name'),
    pairs: z
      .array(
        z.strictObject({
          bodies: z
            .tuple([z.string(), z.string()])
            .describe('two body names (the same name twice: its self contact)'),
          contact: z.boolean(),
        }),
      )
      .optional()
      .describe('switch contact between two bodies'),
  })
  .describe('contacts between and within bodies: self collision, body–body, particles (issue 4)');

export type CollisionSettings = z.infer<typeof collisionSettings>;

/** Creates the world's collision system and registers every body with its settings. */
export function buildCollision(
  spec: CollisionSettings,
  world: World,
  bodies: Body[],
  where = 'collision',
): CollisionSystem {
  const { bodies: perBody, pairs, ...options } = spec;
  const sys = new CollisionSystem(world, options);
  const byName = new Map<string, Body>();
  for (const b of bodies) {
    if (byName.has(b.name)) {
      if (perBody?.[b.name] || pairs?.some((p) => p.bodies.includes(b.name))) {
        throw new PbdError(
          'scene/ambiguous-body',
          where,
          `two bodies are named '${b.name}'`,
          'give the bodies distinct names to refer to them',
        );
      }
    }
    byName.set(b.name, b);
  }
  const known = () => [...byName.keys()].map((n) => `'${n}'`).join(', ');
  for (const name of Object.keys(perBody ?? {})) {
    if (!byName.has(name))
      throw new PbdError(
        'scene/unknown-body',
        `${where}.bodies.${name}`,
        `there is no body named '${name}'`,
        `known: ${known()}`,
      );
  }
  for (const b of bodies) sys.add(b, perBody?.[b.name] ?? {});
  (pairs ?? []).forEach((p, k) => {
    const [a, b] = p.bodies.map((n, j) => {
      const body = byName.get(n);
      if (!body)
        throw new PbdError(
          'scene/unknown-body',
          `${where}.pairs[${k}].bodies[${j}]`,
          `there is no body named '${n}'`,
          `known: ${known()}`,
        );
      return body;
    });
    sys.setPair(a, b, p.contact);
  });
  return sys;
}
