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
import {
  estimateCloth,
  estimateFemCloth,
  estimateFluid,
  estimateGranular,
  estimateMeshCollider,
  estimateShapeMatching,
  estimateSoftBody,
  estimateStrands,
} from './estimates.js';
import { buildFluid, fluidBody } from './fluids.js';
import { guardSceneJson } from './guard.js';
import { Budget, type SceneLimits } from './limits.js';
import { meshFiles } from './meshes.js';
import { buildRigidBodies, rigidBodySpec, rigidSettingsSpec } from './rigid.js';
import { shapeMatchingBodies, shapeMatchingBuilders } from './shape-matching.js';
import { buildStrands, strandsBody } from './strands.js';
import { bodyWork, checkStepWork, THREADS_WORTH_WORK, threadsForWork, type WorkShare } from './work.js';

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

type EstimateMap = {
  [K in BodySpec['type']]: (spec: Extract<BodySpec, { type: K }>, where: string, budget: Budget) => void;
};

/**
 * What each body type will allocate, declared from its JSON before anything
 * is built (limits.ts, estimates.ts): a new body type must add its estimate.
 */
export const bodyEstimates: EstimateMap = {
  cloth: estimateCloth,
  softbody: estimateSoftBody,
  'fem-cloth': estimateFemCloth,
  'lattice-shape': estimateShapeMatching,
  'surface-shape': estimateShapeMatching,
  'rigid-cluster': estimateShapeMatching,
  'oriented-particles': estimateShapeMatching,
  'shape-matching-cloth': estimateShapeMatching,
  fluid: estimateFluid,
  granular: estimateGranular,
  strands: estimateStrands,
};

/** What a collider will allocate (the analytic colliders: nothing worth counting). */
function estimateCollider(spec: ColliderSpec, where: string, budget: Budget): void {
  if (spec.type === 'mesh') estimateMeshCollider(spec, where, budget);
}

/**
 * Declares on a budget what a scene will allocate; throws a PbdError naming
 * the JSON field, the amount and the limit when the scene is too large.
 */
export function estimateScene(spec: SceneSpec, budget: Budget): WorkShare[] {
  budget.count('maxBodies', spec.bodies.length, 'bodies');
  budget.count('maxBodies', spec.rigidBodies?.length ?? 0, 'rigidBodies');
  budget.count('maxColliders', spec.colliders?.length ?? 0, 'colliders');
  (spec.colliders ?? []).forEach((c, k) => {
    estimateCollider(c, `colliders[${k}]`, budget);
  });
  const substeps = spec.world?.substeps ?? 10;
  const iterations = spec.world?.iterations ?? 1;
  const shares: WorkShare[] = [];
  spec.bodies.forEach((b, k) => {
    const estimate = bodyEstimates[b.type] as (spec: BodySpec, where: string, budget: Budget) => void;
    const where = `bodies[${k}]`;
    const { particles, elements } = budget.used;
    const inert = budget.inert;
    budget.mark(where);
    estimate(b, where, budget);
    const p = budget.used.particles - particles;
    const e = budget.used.elements - elements - (budget.inert - inert);
    const kind = { fluid: b.type === 'fluid', contacts: spec.collision !== undefined && b.type !== 'fluid' };
    const work = bodyWork(p, e, substeps, iterations, kind);
    shares.push({ body: where, field: budget.largest.field, work, particles: p, elements: e, kind });
  });
  // the step's cost, checked before anything is built (work.ts)
  checkStepWork(shares, substeps, iterations, budget);
  return shares;
}

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
    solve: z
      .enum(['gauss-seidel', 'jacobi'])
      .optional()
      .describe('iteration: Gauss–Seidel by colour, or Jacobi with averaging; default "gauss-seidel"'),
    relaxation: z.number().gt(0).lt(2).optional().describe('relaxation ω of the Jacobi passes, default 1'),
    precision: z
      .enum(['f64', 'f32'])
      .optional()
      .describe(
        'precision of the distance and dihedral bending kernels: "f32" runs them four per f32x4 instruction (the same bits in JavaScript); default "f64"',
      ),
    integrator: z
      .enum(['implicit-euler', 'bdf2'])
      .optional()
      .describe(
        'time integrator of the particles: implicit Euler, or second-order BDF2 (seed 004); default "implicit-euler"',
      ),
    gravity: vec3.optional().describe('m/s², default [0, -9.81, 0]'),
    damping: z.number().min(0).optional().describe('point damping rate (1/s), default 0'),
    maxSpeed: z.number().positive().optional().describe('speed limit (m/s), default 200'),
    threads: z
      .int()
      .min(1)
      .max(256)
      .optional()
      .describe('threads the step computes on (same results for every count), default 1; the CLI: all cores'),
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
export function parseSceneText(text: string, file = 'scene.json', limits?: Partial<SceneLimits>): SceneSpec {
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
  return parseScene(json, file, limits);
}

/**
 * Validates a parsed JSON value against the scene schema. With `limits`,
 * more bodies or colliders than they allow are refused before the schema
 * spends time on each.
 */
export function parseScene(json: unknown, file = 'scene.json', limits?: Partial<SceneLimits>): SceneSpec {
  if (json && typeof json === 'object') {
    const { bodies, colliders, rigidBodies } = json as {
      bodies?: unknown;
      colliders?: unknown;
      rigidBodies?: unknown;
    };
    try {
      const budget = new Budget(limits);
      if (Array.isArray(bodies)) budget.count('maxBodies', bodies.length, 'bodies');
      if (Array.isArray(rigidBodies)) budget.count('maxBodies', rigidBodies.length, 'rigidBodies');
      if (Array.isArray(colliders)) budget.count('maxColliders', colliders.length, 'colliders');
    } catch (e) {
      throw e instanceof PbdError ? e.within(file) : e;
    }
  }
  // depth and magnitudes first: the schema and the messages below recurse into the value
  const guarded = guardSceneJson(json, Object.keys(sceneSchema.shape));
  if (guarded.length > 0 && guarded[0].message.includes('nested')) throw new SceneError(file, guarded);
  const r = sceneSchema.safeParse(json);
  if (r.success && guarded.length === 0) return r.data;
  const issues: SceneIssue[] = [...guarded];
  const reported = new Set(guarded.map((i) => i.path));
  for (const i of r.error?.issues ?? []) {
    const path = formatPath(i.path);
    if (reported.has(path)) continue;
    if (issues.length >= MAX_REPORTED_ISSUES) {
      issues.push({ path: '', message: `and ${r.error!.issues.length - issues.length} more problems` });
      break;
    }
    const inner = unionBranchIssue(i);
    const at = inner ? formatPath(inner.path) : path;
    if (reported.has(at)) continue;
    reported.add(path);
    reported.add(at);
    issues.push({ path: at, message: describeIssue(inner ?? i, json) });
  }
  throw new SceneError(file, issues);
}

/**
 * For a union that the value fails (a schema `anyOf`: e.g. `bend` is an
 * object or `false`), the problem inside the one branch whose type the
 * value has, with its full path, so that the message names the field and
 * what it allows (`bodies[0].bend.model: expected one of "dihedral" |
 * "distance"`) instead of "does not match any allowed form". Null when no
 * branch, or more than one, took the value's type.
 */
function unionBranchIssue(issue: z.core.$ZodIssue): z.core.$ZodIssue | null {
  if (issue.code !== 'invalid_union' || 'discriminator' in issue || !issue.errors) return null;
  const depth = issue.path.length;
  const typed = issue.errors.filter(
    (branch) =>
      branch.length > 0 &&
      !branch.some((b) => b.code === 'invalid_type' && b.path.length === 0) &&
      !branch.some((b) => b.code === 'invalid_value' && b.path.length === 0),
  );
  if (typed.length !== 1) return null;
  const first = typed[0][0];
  const full = { ...first, path: [...issue.path, ...first.path] } as z.core.$ZodIssue;
  return full.path.length > depth ? (unionBranchIssue(full) ?? full) : null;
}

/**
 * What a union allows, from its branches' own complaints at its root
 * ("expected object or false"); null when a branch failed deeper.
 */
function unionForms(issue: z.core.$ZodIssue): string | null {
  if (issue.code !== 'invalid_union' || !issue.errors) return null;
  const forms: string[] = [];
  for (const branch of issue.errors) {
    const root = branch.find((b) => b.path.length === 0);
    if (root?.code === 'invalid_type') forms.push(root.expected);
    else if (root?.code === 'invalid_value')
      forms.push(root.values.map((v) => JSON.stringify(v)).join(' or '));
    else return null;
  }
  return `expected ${[...new Set(forms)].join(' or ')}`;
}

/** Most schema problems listed for one scene. */
const MAX_REPORTED_ISSUES = 50;

function describeIssue(issue: z.core.$ZodIssue, json: unknown): string {
  const got = valueAt(json, issue.path);
  const shown = got === undefined ? 'nothing' : preview(got);
  switch (issue.code) {
    case 'unrecognized_keys':
      return `unknown option${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')} (check the spelling; see schema/scene.schema.json)`;
    case 'invalid_union':
      if ('discriminator' in issue) return `${issue.message}, got ${shown}`;
      return `${unionForms(issue) ?? 'does not match any allowed form'} (got ${shown})`;
    case 'invalid_type':
      return `expected ${issue.expected}, got ${shown}`;
    default:
      return `${issue.message} (got ${shown})`;
  }
}

/**
 * A short JSON preview of a value (about 60 characters): at most 8 items or
 * keys and 3 levels of it are looked at, so a huge or deeply nested value
 * costs nothing.
 */
function preview(v: unknown, depth = 0): string {
  if (Array.isArray(v)) {
    if (depth >= 3) return v.length ? '[…]' : '[]';
    const items = v.slice(0, 8).map((x) => preview(x, depth + 1));
    return `[${items.join(',')}${v.length > 8 ? `, … ${v.length} items` : ''}]`.slice(0, 60);
  }
  if (v && typeof v === 'object') {
    if (depth >= 3) return '{…}';
    const keys = Object.keys(v);
    const items = keys
      .slice(0, 8)
      .map((k) => `${JSON.stringify(k)}:${preview((v as Record<string, unknown>)[k], depth + 1)}`);
    return `{${items.join(',')}${keys.length > 8 ? ', …' : ''}}`.slice(0, 60);
  }
  return (JSON.stringify(v) ?? String(v)).slice(0, 60);
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
  /** What the scene may allocate (limits.ts; defaults in defaultSceneLimits). */
  limits?: Partial<SceneLimits>;
  /** Threads of the world (overrides the scene's world.threads; see WorldOptions.threads). */
  threads?: number;
  /**
   * Threads where neither `threads` nor the scene's world.threads says, for a
   * scene whose estimated step work reaches THREADS_WORTH_WORK (work.ts): at
   * most this many, and one per WORK_PER_THREAD units of work, at least two
   * (`threadsForWork`); the CLI passes all cores. Default 1.
   */
  defaultThreads?: number;
}

/**
 * Whether the fused strand pass (src/strands/fused-pass.ts) will run a scene, as far as the scene
 * says: strands with Follow-The-Leader and no other constraint, rod or shape matching, no rigid
 * bodies, at most one collider and that a sphere, no collision settings, implicit Euler,
 * Gauss–Seidel. Its JavaScript form runs on the calling thread of any world and took what the
 * pipeline took on two threads (12.1 against 12.1 ms, session 12), so the CLI's thread default passes
 * such a scene by unless `fusedStrandOnePass` says its one-pass form runs: that form runs as
 * WebAssembly kernels, on one thread (hair-10k 6.6 ms per step, session 14) and, since session 15,
 * in blocks of strands on a threaded world's pool (src/strands/strand-threads.ts; docs/strands.md).
 * Where this says yes and the pass's own plan says no, the scene merely runs on one thread.
 */
export function fusedStrandScene(spec: SceneSpec): boolean {
  const w = spec.world ?? {};
  if (
    (w.integrator ?? 'implicit-euler') !== 'implicit-euler' ||
    (w.solve ?? 'gauss-seidel') !== 'gauss-seidel'
  )
    return false;
  if ((spec.rigidBodies?.length ?? 0) > 0 || spec.collision !== undefined) return false;
  const colliders = spec.colliders ?? [];
  if (colliders.length > 1 || colliders.some((c) => c.type !== 'sphere')) return false;
  return spec.bodies.every(
    (b) =>
      b.type === 'strands' &&
      b.ftl !== false &&
      b.rod === undefined &&
      b.stretch === undefined &&
      b.bend === undefined &&
      b.shapeMatching === undefined,
  );
}

/**
 * Whether a scene that fusedStrandScene accepts runs the pass's one-pass form (fused-pass.ts
 * onePass), which the worker pool runs in blocks of strands: one iteration, and a substep h long
 * enough that the colliders' depenetration speed (10 m/s: the scene sets no collision) times h
 * reaches the sphere's radius plus its margin plus the largest particle radius. Those scenes get the
 * CLI's thread default (the roots' soft attachments, which the spec does not make, would also
 * decide it: the plan then runs the JavaScript form).
 */
export function fusedStrandOnePass(spec: SceneSpec): boolean {
  if (!fusedStrandScene(spec)) return false;
  const w = spec.world ?? {};
  if ((w.iterations ?? 1) !== 1) return false;
  const h = (w.dt ?? 1 / 60) / (w.substeps ?? 10);
  let r = 0;
  for (const b of spec.bodies) r = Math.max(r, (b as { radius?: number }).radius ?? 0);
  return (spec.colliders ?? []).every((c) => {
    const sphere = c as { radius: number; margin?: number };
    return 10 * h >= sphere.radius + (sphere.margin ?? 0.005) + r;
  });
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
    const budget = new Budget(options.limits);
    const shares = estimateScene(spec, budget);
    const substeps = spec.world?.substeps ?? 10;
    const iterations = spec.world?.iterations ?? 1;
    const world = new World({
      ...(options.defaultThreads !== undefined &&
      budget.work >= THREADS_WORTH_WORK &&
      (!fusedStrandScene(spec) || fusedStrandOnePass(spec))
        ? { threads: threadsForWork(budget.work, options.defaultThreads) }
        : {}),
      ...(spec.world ?? {}),
      sharedMemory: options.sharedMemory,
      ...(options.threads !== undefined ? { threads: options.threads } : {}),
    });
    const colliders = (spec.colliders ?? []).map((c, k) =>
      buildCollider(c, world, `colliders[${k}]`, readFile),
    );
    const bodies = spec.bodies.map((b, k) => {
      const ctx: BuildContext = { world, readFile, where: `bodies[${k}]`, budget };
      const build = bodyBuilders[b.type] as (spec: BodySpec, ctx: BuildContext) => Body;
      const particles = world.store.count;
      const constraints = world.constraintCount();
      const body = locate(() => build(b, ctx), ctx.where);
      budget.settleParticles(world.store.count, ctx.where);
      // what only the built body tells (a mesh file's size, a lattice in a mesh): its work at least that of
      // its particles and constraints (three per element, as a cloth triangle has)
      const share = shares[k];
      const p = world.store.count - particles;
      const e = (world.constraintCount() - constraints) / 3;
      if (p > share.particles || e > share.elements) {
        share.particles = Math.max(p, share.particles);
        share.elements = Math.max(e, share.elements);
        share.work = bodyWork(share.particles, share.elements, substeps, iterations, share.kind);
        checkStepWork(shares, substeps, iterations, budget);
      }
      return body;
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

/**
 * Runs a body's builder; an error that a library class located by its own
 * name (`softbody.mesh: tet 2 …`) is located at the body's JSON path too:
 * `bodies[1] (softbody.mesh: tet 2)`.
 */
function locate<T>(build: () => T, where: string): T {
  try {
    return build();
  } catch (e) {
    if (!(e instanceof PbdError) || e instanceof SceneError || e.where.startsWith(where)) throw e;
    throw new PbdError(e.code, e.where ? `${where} (${e.where})` : where, e.detail, e.hint);
  }
}

/** Parses and builds a scene from JSON text. */
export function loadScene(text: string, options: BuildOptions = {}): SceneInstance {
  return buildScene(parseSceneText(text, options.file, options.limits), options);
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
