/**
 * The JSON scene format: a schema (zod, exported as JSON Schema in
 * schema/scene.schema.json), a parser whose errors name the JSON path, and
 * a builder that turns a scene into a World.
 *
 * A method family plugs in by adding its body schema to `bodySchemas` and
 * its builder to `bodyBuilders` (and, for new collider types, the same in
 * `colliderSchemas` / `colliderBuilders`).
 */
import { z } from 'zod';
import type { Collider } from '../../collision/colliders.js';
import type { Body } from '../../core/body.js';
import { PbdError } from '../../core/errors.js';
import { World } from '../../core/world.js';
import { RigidBodies } from '../../rigid/rigid-bodies.js';
import type { RigidBody } from '../../rigid/rigid-body.js';
import { jsonErrorOffset, lineColumn } from '../json-position.js';
import { buildCloth, clothBody } from './cloth.js';
import { buildCoreCollider, coreColliderSchemas } from './colliders.js';
import {
  buildCollision,
  buildGranular,
  buildMeshCollider,
  collisionSettings,
  granularBody,
  meshCollider,
} from './collision.js';
import { type BuildContext, formatPath, SceneError, type SceneIssue, vec3 } from './common.js';
import { buildFemCloth, buildSoftBody, continuumFiles, femCloth, softBody } from './continuum.js';
import { buildFluid, fluidBody } from './fluids.js';
import { meshFiles } from './meshes.js';
import { buildRigidBodies, rigidBodySpec, rigidSettingsSpec } from './rigid.js';
import { shapeMatchingBodies, shapeMatchingBuilders } from './shape-matching.js';
import { buildStrands, strandsBody } from './strands.js';

// ---- the registry -------------------------------------------------------

/** Every body type a scene can hold. */
export const bodySchemas = [
  clothBody,
  softBody,
  femCloth,
  ...shapeMatchingBodies,
  fluidBody,
  granularBody,
  strandsBody,
] as const;
/** Every collider type a scene can hold. */
export const colliderSchemas = [...coreColliderSchemas, meshCollider] as const;

export type BodySpec = z.infer<(typeof bodySchemas)[number]>;
export type ColliderSpec = z.infer<(typeof colliderSchemas)[number]>;

type BuilderMap = {
  [K in BodySpec['type']]: (spec: Extract<BodySpec, { type: K }>, ctx: BuildContext) => Body;
};

export const bodyBuilders: BuilderMap = {
  cloth: buildCloth,
  softbody: buildSoftBody,
  'fem-cloth': buildFemCloth,
  ...shapeMatchingBuilders,
  fluid: buildFluid,
  granular: buildGranular,
  strands: buildStrands,
};

function buildCollider(
  spec: ColliderSpec,
  world: World,
  where: string,
  readFile: (path: string) => string,
): Collider {
  if (spec.type === 'mesh') return buildMeshCollider(spec, world, where, readFile);
  return buildCoreCollider(spec, world, where);
}

// ---- the schema ------------------------------------------------------------

export const worldSettings = z
  .strictObject({
    dt: z.number().positive().max(1).optional().describe('step length (s), default 1/60'),
    substeps: z.int().min(1).max(1000).optional().describe('substeps per step, default 10'),
    iterations: z.int().min(1).max(1000).optional().describe('solver iterations per substep, default 1'),
    solver: z.enum(['xpbd', 'pbd']).optional().describe('projection rule, default "xpbd"'),
    sweep: z
      .enum(['symmetric', 'forward'])
      .optional()
      .describe('Gauss–Seidel sweep order, default "symmetric"'),
    gravity: vec3.optional().describe('m/s², default [0, -9.81, 0]'),
    damping: z.number().min(0).optional().describe('point damping rate (1/s), default 0'),
    maxSpeed: z.number().positive().optional().describe('speed limit (m/s), default 200'),
    wind: z
      .strictObject({
        velocity: vec3.describe('m/s'),
        gust: z.number().min(0).optional().describe('relative gust strength'),
        gustFrequency: z.number().positive().optional().describe('Hz'),
      })
      .optional(),
  })
  .describe('world settings');

export const outputSettings = z
  .strictObject({
    frames: z.int().min(1).optional().describe('frames to bake, default 120'),
    stepsPerFrame: z.int().min(1).optional().describe('world steps per frame, default 1'),
  })
  .describe('bake settings for the pbdkit command');

export const sceneSchema = z
  .strictObject({
    $schema: z.string().optional(),
    title: z.string().min(1).describe('a human title'),
    description: z.string().optional(),
    family: z
      .string()
      .min(1)
      .describe('method family, e.g. "cloth", "softbody", "fluids" (groups the gallery)'),
    figure: z.string().optional().describe('the paper figure the scene reproduces, e.g. "003 Figure 3"'),
    camera: z
      .strictObject({
        position: vec3,
        target: vec3,
        follow: z
          .array(z.string().min(1))
          .min(1)
          .optional()
          .describe(
            "the bodies whose action the gallery frames (default: all); others may leave the view, as a projectile's grains that fly off after the impact",
          ),
      })
      .optional()
      .describe(
        'view direction for the gallery and renders: the gallery looks from position toward target and moves the camera back until the action fits the view',
      ),
    offline: z
      .string()
      .min(1)
      .optional()
      .describe(
        'why this scene cannot run in real time on one core (its physics takes longer than dt per step); the gallery shows it in slow motion and says so',
      ),
    world: worldSettings.optional(),
    bodies: z.array(z.discriminatedUnion('type', bodySchemas)).min(1),
    colliders: z.array(z.discriminatedUnion('type', colliderSchemas)).optional(),
    collision: collisionSettings.optional(),
    rigidBodies: z
      .array(rigidBodySpec)
      .optional()
      .describe('rigid bodies, coupled two ways with the particles (docs/rigid.md)'),
    rigid: rigidSettingsSpec.optional(),
    output: outputSettings.optional(),
  })
  .describe('a pbdkit scene');

export type SceneSpec = z.infer<typeof sceneSchema>;

// ---- parsing -------------------------------------------------------------

/** Parses JSON text; a syntax error names the file, line and column. */
export function parseSceneText(text: string, file = 'scene.json'): SceneSpec {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    const at = jsonErrorOffset(text);
    let where = file;
    let near = '';
    if (at >= 0) {
      const { line, column } = lineColumn(text, at);
      where = `${file}:${line}:${column}`;
      near = ` near "${text.slice(at, at + 12).split('\n')[0]}"`;
    }
    throw new PbdError(
      'scene/json',
      where,
      `is not valid JSON${near} (${(e as Error).message.split('\n')[0]})`,
      'JSON has no NaN, Infinity, comments or trailing commas',
    );
  }
  return parseScene(json, file);
}

/** Validates a parsed JSON value against the scene schema. */
export function parseScene(json: unknown, file = 'scene.json'): SceneSpec {
  const r = sceneSchema.safeParse(json);
  if (r.success) return r.data;
  const issues: SceneIssue[] = r.error.issues.map((i) => ({
    path: formatPath(i.path),
    message: describeIssue(i, json),
  }));
  throw new SceneError(file, issues);
}

function describeIssue(issue: z.core.$ZodIssue, json: unknown): string {
  const got = valueAt(json, issue.path);
  const shown = got === undefined ? 'nothing' : JSON.stringify(got)?.slice(0, 60);
  switch (issue.code) {
    case 'unrecognized_keys':
      return `unknown option${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')} (check the spelling; see schema/scene.schema.json)`;
    case 'invalid_union':
      if ('discriminator' in issue) return `${issue.message}, got ${shown}`;
      return `does not match any allowed form (got ${shown})`;
    case 'invalid_type':
      return `expected ${issue.expected}, got ${shown}`;
    default:
      return `${issue.message} (got ${shown})`;
  }
}

function valueAt(json: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = json;
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

// ---- building ------------------------------------------------------------

export interface SceneInstance {
  spec: SceneSpec;
  world: World;
  /** Bodies in scene order. */
  bodies: Body[];
  colliders: Collider[];
  /** Rigid bodies in scene order. */
  rigidBodies: RigidBody[];
  /** Frames to bake and world steps per frame. */
  frames: number;
  stepsPerFrame: number;
}

export interface BuildOptions {
  /** Reads a file named by the scene (OBJ meshes …), relative to the scene file. Default: none can be read. */
  readFile?: (path: string) => string;
  /** Scene file name for messages. */
  file?: string;
  /** Allocate particles on SharedArrayBuffer. */
  sharedMemory?: boolean;
}

/** Builds a World from a validated scene. Errors name the scene file and the JSON path. */
export function buildScene(spec: SceneSpec, options: BuildOptions = {}): SceneInstance {
  const file = options.file ?? 'scene.json';
  const readFile =
    options.readFile ??
    ((path: string) => {
      throw new Error(`no file reader was given to load '${path}'`);
    });
  try {
    const world = new World({ ...(spec.world ?? {}), sharedMemory: options.sharedMemory });
    const colliders = (spec.colliders ?? []).map((c, k) =>
      buildCollider(c, world, `colliders[${k}]`, readFile),
    );
    const bodies = spec.bodies.map((b, k) => {
      const ctx: BuildContext = { world, readFile, where: `bodies[${k}]` };
      const build = bodyBuilders[b.type] as (spec: BodySpec, ctx: BuildContext) => Body;
      return build(b, ctx);
    });
    if (spec.collision) buildCollision(spec.collision, world, bodies);
    spec.camera?.follow?.forEach((name, k) => {
      if (!bodies.some((b) => b.name === name))
        throw new PbdError(
          'scene/unknown-body',
          `camera.follow[${k}]`,
          `there is no body named '${name}'`,
          `known: ${bodies.map((b) => `'${b.name}'`).join(', ')}`,
        );
    });
    const rigidBodies = buildRigidBodies(spec.rigidBodies ?? [], world, bodies);
    if (spec.rigid) RigidBodies.of(world).configure(spec.rigid);
    return {
      spec,
      world,
      bodies,
      colliders,
      rigidBodies,
      frames: spec.output?.frames ?? 120,
      stepsPerFrame: spec.output?.stepsPerFrame ?? 1,
    };
  } catch (e) {
    if (e instanceof PbdError && !(e instanceof SceneError)) throw e.within(file);
    throw e;
  }
}

/** Parses and builds a scene from JSON text. */
export function loadScene(text: string, options: BuildOptions = {}): SceneInstance {
  return buildScene(parseSceneText(text, options.file), options);
}

/** Files a scene reads besides itself (for loaders that must fetch them first). */
export function sceneFiles(spec: SceneSpec): string[] {
  const out: string[] = [];
  for (const b of spec.bodies) {
    if (b.type === 'softbody' || b.type === 'fem-cloth') out.push(...continuumFiles(b));
    else if ('mesh' in b && b.mesh) out.push(...meshFiles(b.mesh));
  }
  for (const c of spec.colliders ?? []) if (c.type === 'mesh') out.push(...meshFiles(c.mesh));
  return out;
}

/** The JSON Schema of scene files (what schema/scene.schema.json holds). */
export function sceneJsonSchema(): object {
  return z.toJSONSchema(sceneSchema, { io: 'input', unrepresentable: 'any' });
}
