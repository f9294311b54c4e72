/**
 * Building blocks of the scene schema shared by every method family:
 * vectors, material parameters, motions, placements, mesh sources and pins.
 */
import { z } from 'zod';
import { PbdError } from '../../core/errors.js';
import { Motion, type MotionSpec } from '../../core/motion.js';
import type { World } from '../../core/world.js';
import type { Budget } from './limits.js';

export const vec3 = z.tuple([z.number(), z.number(), z.number()]).describe('[x, y, z]');

/** PBD stiffness / XPBD compliance / XPBD damping of a constraint family. */
export const constraintParams = z
  .strictObject({
    stiffness: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe('PBD stiffness k ∈ [0, 1] (used when world.solver is "pbd")'),
    compliance: z
      .number()
      .min(0)
      .optional()
      .describe('XPBD compliance α ≥ 0 in SI units; 0 is rigid (used when world.solver is "xpbd")'),
    damping: z.number().min(0).optional().describe('XPBD constraint damping β ≥ 0'),
  })
  .describe('constraint material parameters');

/** A body's global damping k ∈ [0, 1] (003 §3.5). */
export const globalDamping = z
  .number()
  .min(0)
  .max(1)
  .optional()
  .describe('damping of deviations from the rigid motion (003 §3.5)');

export const motion = z
  .strictObject({
    velocity: vec3.optional().describe('constant velocity (m/s)'),
    spin: z
      .strictObject({ axis: vec3, speed: z.number().describe('rad/s'), center: vec3.optional() })
      .optional()
      .describe('rotation about an axis through a centre'),
    oscillate: z
      .strictObject({ amplitude: vec3, frequency: z.number().min(0), phase: z.number().optional() })
      .optional()
      .describe('sinusoidal offset'),
    keyframes: z
      .strictObject({
        times: z.array(z.number()).min(1),
        translations: z.array(vec3).min(1),
        rotations: z.array(vec3).optional().describe('Euler angles in degrees'),
        center: vec3.optional(),
      })
      .optional(),
    start: z.number().min(0).optional().describe('time the motion starts (s)'),
    end: z.number().min(0).optional().describe('time the motion stops (s)'),
  })
  .describe('a scripted rigid motion');

export const placement = z
  .strictObject({
    translate: vec3.optional(),
    rotate: vec3.optional().describe('Euler angles in degrees, applied X then Y then Z'),
    scale: z.union([z.number().positive(), vec3]).optional(),
  })
  .describe('scale, then rotate, then translate');

export const gridSpec = z.strictObject({
  width: z.number().positive().describe('size along x (m)'),
  height: z.number().positive().describe('size along z (plane "xz") or y (plane "xy") (m)'),
  cols: z.int().min(2).max(4096).describe('vertices along x'),
  rows: z.int().min(2).max(4096).describe('vertices along the second axis'),
  plane: z.enum(['xz', 'xy']).optional().describe('"xz" lies flat, "xy" hangs (row 0 on top)'),
  diagonals: z.enum(['alternate', 'uniform']).optional(),
});

export const meshSource = z
  .union([
    z.strictObject({ grid: gridSpec }),
    z.strictObject({
      icosphere: z.strictObject({ radius: z.number().positive(), subdivisions: z.int().min(0).max(7) }),
    }),
    z.strictObject({ bunny: z.strictObject({ height: z.number().positive().optional() }) }),
    z.strictObject({
      sack: z.strictObject({
        radius: z.number().positive(),
        height: z.number().positive(),
        segments: z.int().min(3).max(512).optional(),
        rings: z.int().min(1).max(512).optional(),
      }),
    }),
    z.strictObject({ file: z.string().min(1).describe('path of an OBJ file, relative to the scene file') }),
  ])
  .describe(
    'a triangle mesh: { grid }, { icosphere }, { bunny } (npm package "bunny"), { sack } (an open bag) or { file } (OBJ)',
  );

/**
 * Most pin groups of one body. A group selects any number of vertices
 * (indices, rows, a box) and may move them along one motion: a scene needs
 * a few, and each costs a pass over its selection (a box: over the body).
 */
export const MAX_PIN_GROUPS = 1024;

/** A body's list of pin groups (at most MAX_PIN_GROUPS). */
export function pinGroups<T extends z.ZodType>(group: T) {
  return z
    .array(group)
    .max(MAX_PIN_GROUPS, `at most ${MAX_PIN_GROUPS} pin groups: put the vertices of one motion in one group`);
}

export const pinSpec = z
  .strictObject({
    vertices: z.array(z.int().min(0)).optional().describe('vertex indices'),
    grid: z
      .array(z.tuple([z.int().min(0), z.int().min(0)]))
      .optional()
      .describe('[row, col] of a grid mesh'),
    rows: z
      .array(z.int().min(0))
      .optional()
      .describe('whole rows of a grid mesh (row 0 is the top of an "xy" grid)'),
    cols: z.array(z.int().min(0)).optional().describe('whole columns of a grid mesh'),
    box: z
      .strictObject({ min: vec3, max: vec3 })
      .optional()
      .describe('every vertex inside this world-space box'),
    motion: motion.optional().describe('move the pinned vertices along a scripted motion'),
    compliance: z.number().min(0).optional().describe('0 (default) pins hard; > 0 attaches softly (m/N)'),
  })
  .describe('vertices to attach (003 §3.6)');

export type Vec3 = z.infer<typeof vec3>;

/** What a body builder gets besides its own spec. */
export interface BuildContext {
  world: World;
  /** Reads a file named in the scene (relative to the scene file). */
  readFile: (path: string) => string;
  /** JSON path of the body, for messages, e.g. `bodies[2]`. */
  where: string;
  /** What the scene may still allocate (limits.ts): builders declare what only they can count. */
  budget: Budget;
}

/** A validation problem: where in the JSON and what is wrong. */
export interface SceneIssue {
  path: string;
  message: string;
}

/** A scene that failed validation; `issues` lists every problem found. */
export class SceneError extends PbdError {
  readonly issues: SceneIssue[];

  constructor(file: string, issues: SceneIssue[]) {
    const lines = issues.map((i) => `${i.path || '(root)'}: ${i.message}`);
    super(
      'scene/invalid',
      file,
      issues.length === 1 ? lines[0] : `${issues.length} problems:\n  ${lines.join('\n  ')}`,
    );
    this.issues = issues;
  }
}

/** Formats a zod path like ['bodies', 0, 'mesh'] as `bodies[0].mesh`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const k of path) {
    if (typeof k === 'number') out += `[${k}]`;
    else out += out ? `.${String(k)}` : String(k);
  }
  return out;
}

/** Appends a pin group's listed vertex indices to `out`, refusing one past the body's n vertices (scene/bad-pin at `where`.vertices). */
export function listedPins(
  vertices: readonly number[] | undefined,
  n: number,
  where: string,
  out: number[],
): void {
  for (const v of vertices ?? []) {
    if (v >= n)
      throw new PbdError(
        'scene/bad-pin',
        `${where}.vertices`,
        `vertex ${v} does not exist (the mesh has ${n})`,
      );
    out.push(v);
  }
}

/** Appends the vertices 0 … n − 1 of positions x (xyz interleaved) that lie inside the box [min, max] (bounds included). */
export function boxPins(
  x: ArrayLike<number>,
  n: number,
  box: { min: readonly number[]; max: readonly number[] },
  out: number[],
): void {
  const { min, max } = box;
  for (let i = 0; i < n; i++) {
    const px = x[3 * i],
      py = x[3 * i + 1],
      pz = x[3 * i + 2];
    if (px >= min[0] && px <= max[0] && py >= min[1] && py <= max[1] && pz >= min[2] && pz <= max[2])
      out.push(i);
  }
}

/**
 * Reads a body's pin groups, the one reader of every family's `pins`: group k is located at
 * `where`.pins[k]; `select` gives its vertices (a group that selects none is refused,
 * scene/empty-pin: `selects no ${noun}`, with `hint`), its motion is read at `….motion`, and
 * `attach` pins the vertices along it.
 */
export function readPins<P extends { motion?: MotionSpec }>(
  pins: readonly P[] | undefined,
  where: string,
  empty: { noun: string; hint?: string },
  select: (pin: P, where: string) => number[],
  attach: (vertices: number[], motion: Motion | undefined, pin: P) => void,
): void {
  (pins ?? []).forEach((pin, k) => {
    const at = `${where}.pins[${k}]`;
    const vertices = select(pin, at);
    if (vertices.length === 0)
      throw new PbdError('scene/empty-pin', at, `selects no ${empty.noun}`, empty.hint);
    attach(vertices, pin.motion ? new Motion(pin.motion, `${at}.motion`) : undefined, pin);
  });
}
