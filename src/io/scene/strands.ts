/**
 * Scene schema of strain limiting (the cloth options) and of strand bodies
 * (hair on a head-like sphere, or explicit polylines).
 */
import { z } from 'zod';
import { Collider } from '../../collision/colliders.js';
import { PbdError } from '../../core/errors.js';
import { Motion } from '../../core/motion.js';
import { hairOnSphere } from '../../strands/hair.js';
import { Strands } from '../../strands/strands.js';
import { helix, overhandKnot } from '../../strands/thread.js';
import { type BuildContext, constraintParams, motion, vec3 } from './common.js';

const stretchRange = {
  min: z.number().min(0).max(1).optional().describe('smallest stretch ratio, default 0 (no limit)'),
  max: z.number().min(1).optional().describe('largest stretch ratio, default 1.1'),
};

/** The `strainLimit` option of cloth and fem-cloth bodies. */
export const strainLimitSpec = z
  .strictObject({
    edges: z
      .strictObject({ ...stretchRange })
      .extend(constraintParams.shape)
      .optional()
      .describe('every edge within [min, max] × its rest length (a unilateral pair of distance constraints)'),
    triangles: z
      .strictObject({ ...stretchRange })
      .extend(constraintParams.shape)
      .optional()
      .describe("every triangle's principal stretches within [min, max] (Wang et al. 2010)"),
  })
  .describe('strain limiting (000 §3.5)');

/** The `longRangeAttachments` option of cloth and fem-cloth bodies. */
export const longRangeSpec = z
  .strictObject({
    rest: z
      .enum(['euclidean', 'geodesic'])
      .optional()
      .describe('rest lengths: the rest-state distance (default) or along the mesh'),
    scale: z.number().min(1).optional().describe('rest lengths × this, default 1'),
    maxPerParticle: z.int().min(1).optional().describe('tether each vertex to its nearest pins only'),
  })
  .extend(constraintParams.shape)
  .describe('Long Range Attachments (000 §3.5): every free vertex tethered to each pin');

/** Generated centrelines of one strand: a straight line, a helix, a loosely tied overhand knot. */
const shapeSpec = z
  .discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('line'),
      from: vec3.describe('first end (m)'),
      to: vec3.describe('last end (m)'),
      segments: z.int().min(1).max(100_000),
    }),
    z.strictObject({
      type: z.literal('helix'),
      radius: z.number().positive().describe('coil radius (m)'),
      pitch: z.number().positive().describe('rise per turn (m)'),
      turns: z.number().positive(),
      segment: z.number().positive().describe('segment length (m)'),
      top: vec3.optional().describe('top end, default the origin; the helix goes down from it'),
      lead: z
        .number()
        .min(0)
        .optional()
        .describe('straight lead from the top into the first coil (m), default 0'),
    }),
    z.strictObject({
      type: z.literal('overhand-knot'),
      size: z.number().positive().describe('knot scale a (m): the loop spans about 6 a'),
      tail: z.number().positive().describe('length of each straight tail (m)'),
      segment: z.number().positive().describe('segment length (m)'),
      clearance: z
        .number()
        .min(0)
        .optional()
        .describe('how far the loop ends pass each other (m), default 1.5 a'),
      center: vec3.optional(),
    }),
  ])
  .describe('one strand from a generated centreline (root first)');

/** The `rod` option: Cosserat rods (Kugelstadt & Schömer 2016) with their material. */
const rodSpec = z
  .strictObject({
    youngsModulus: z.number().positive().describe("Young's modulus E (Pa)"),
    shearModulus: z.number().positive().optional().describe('shear modulus G (Pa), default E / (2 (1 + ν))'),
    poissonRatio: z.number().min(0).max(0.5).optional().describe("Poisson's ratio, default 0.5"),
    radius: z.number().positive().optional().describe('cross-section radius (m), default the contact radius'),
    density: z.number().positive().optional().describe('density (kg/m³), instead of linearDensity'),
    extensible: z.boolean().optional().describe('stretch and shear from the material (default) or rigid'),
    damping: z.number().min(0).optional().describe('Kelvin–Voigt retardation time (s), default 0'),
    stiffness: z.number().min(0).max(1).optional().describe("PBD stiffness under the 'pbd' rule, default 1"),
    gyrationRadius: z
      .number()
      .positive()
      .optional()
      .describe("segments' radius of gyration (m), default their length"),
    clampRoots: z.boolean().optional().describe('clamp the rod at each pinned root, default true'),
    restShape: z
      .enum(['initial', 'straight'])
      .optional()
      .describe("rest curvature and twist: the initial centreline's (default) or none"),
    normal: vec3.optional().describe("first segment's material axis d1"),
    solver: z
      .enum(['gauss-seidel', 'direct'])
      .optional()
      .describe(
        "'gauss-seidel' (default) or 'direct': each rod's linearised system solved exactly per iteration",
      ),
  })
  .describe('Cosserat rods: per-segment orientations, stretch–shear and bend–twist from E and G');

/** A gripper: a rod's segment clamped (both particles and its orientation), where it is or moved by a motion. */
const gripperSpec = z.strictObject({
  segment: z
    .int()
    .describe(
      "the segment's first particle (body-local); negative counts from the end: −2 is the last segment",
    ),
  motion: motion.optional().describe('scripted motion of the gripper'),
});

export const strandsBody = z
  .strictObject({
    type: z.literal('strands'),
    name: z.string().optional(),
    hair: z
      .strictObject({
        center: vec3.describe('centre of the head (m)'),
        radius: z.number().positive().describe('radius of the head (m)'),
        count: z.int().min(1).max(200_000).describe('strands'),
        segments: z.int().min(1).max(1000).describe('segments per strand'),
        length: z.number().positive().describe('strand length (m)'),
        coverage: z
          .number()
          .gt(0)
          .max(180)
          .optional()
          .describe('roots down to this angle from the crown (degrees), default 100'),
        fall: z.number().min(0).optional().describe('how fast strands turn down (1/m), default 12'),
        lift: z.number().min(0).optional().describe('roots above the surface (m), default 0'),
        style: z
          .strictObject({
            type: z.enum(['straight', 'wavy', 'curly']).optional(),
            amplitude: z.number().min(0).optional().describe('wave or curl radius (m), default 0.02'),
            period: z.number().positive().optional().describe('wave length or curl pitch (m), default 0.08'),
          })
          .optional(),
      })
      .optional()
      .describe('a hairstyle on a head-like sphere'),
    strands: z.array(z.array(vec3).min(2)).min(1).optional().describe('explicit polylines, root first'),
    shape: shapeSpec.optional(),
    rod: rodSpec.optional(),
    grippers: z.array(gripperSpec).optional().describe('clamped rod segments (kinematic grippers)'),
    linearDensity: z.number().positive().optional().describe('kg/m, default 0.01'),
    radius: z.number().min(0).optional().describe('contact radius of every particle (m), default 0'),
    roots: z
      .strictObject({
        pinned: z.boolean().optional().describe('pin the roots, default true'),
        follow: z.string().optional().describe('name of a collider whose scripted motion the roots follow'),
        motion: motion.optional().describe('a scripted motion of the roots'),
      })
      .optional(),
    ftl: z
      .union([
        z.strictObject({
          damping: z.number().min(0).max(1).optional().describe("DFTL's s_damping, default 0.9; 0 is FTL"),
          maxStretch: z
            .number()
            .min(1)
            .optional()
            .describe('strain limit toward the root, default 1 (exact)'),
        }),
        z.literal(false),
      ])
      .optional()
      .describe('Follow-The-Leader inextensibility (000 §3.5), default { damping: 0.9 }'),
    stretch: constraintParams.optional().describe('distance constraints on the segments'),
    bend: constraintParams.optional().describe('distance constraints between particles two apart'),
    shapeMatching: z
      .strictObject({
        regionWidth: z
          .int()
          .min(1)
          .optional()
          .describe('particles on each side of a region centre, default 2'),
        stiffness: z.number().min(0).max(1).optional(),
        compliance: z.number().min(0).optional(),
      })
      .optional()
      .describe('hair by region shape matching of overlapping chain regions (000 §6)'),
    velocity: vec3.optional(),
    group: z.int().optional(),
    mask: z.int().optional(),
  })
  .describe('strands: hair, fur, ropes (000 §3.5, §6)');

export type StrandsSpec = z.infer<typeof strandsBody>;

export function buildStrands(spec: StrandsSpec, ctx: BuildContext): Strands {
  const where = ctx.where;
  const given = (spec.hair ? 1 : 0) + (spec.strands ? 1 : 0) + (spec.shape ? 1 : 0);
  if (given !== 1) {
    throw new PbdError(
      'scene/strands',
      where,
      given > 1 ? 'has more than one of hair, strands and shape' : 'has neither hair, strands nor shape',
      'give a hairstyle ({ hair }), explicit polylines ({ strands }) or a generated centreline ({ shape })',
    );
  }
  let geometry: { positions: Float64Array; strandStart: Int32Array };
  if (spec.hair) {
    const h = spec.hair;
    geometry = hairOnSphere(
      {
        center: h.center,
        radius: h.radius,
        count: h.count,
        segments: h.segments,
        length: h.length,
        coverage: h.coverage,
        fall: h.fall,
        lift: h.lift,
        style: h.style,
      },
      `${where}.hair`,
    );
  } else if (spec.shape) {
    const sh = spec.shape;
    let pts: number[];
    if (sh.type === 'line') {
      pts = [];
      for (let j = 0; j <= sh.segments; j++)
        for (let k = 0; k < 3; k++) pts.push(sh.from[k] + ((sh.to[k] - sh.from[k]) * j) / sh.segments);
    } else if (sh.type === 'helix') pts = helix(sh, `${where}.shape`);
    else pts = overhandKnot(sh, `${where}.shape`);
    geometry = { positions: Float64Array.from(pts), strandStart: Int32Array.from([0, pts.length / 3]) };
  } else {
    const lines = spec.strands!;
    const start = new Int32Array(lines.length + 1);
    for (let s = 0; s < lines.length; s++) start[s + 1] = start[s] + lines[s].length;
    const positions = new Float64Array(3 * start[lines.length]);
    for (let s = 0; s < lines.length; s++) {
      for (let j = 0; j < lines[s].length; j++) positions.set(lines[s][j], 3 * (start[s] + j));
    }
    geometry = { positions, strandStart: start };
  }
  const roots = spec.roots ?? {};
  let rootMotion: Motion | undefined;
  if (roots.follow !== undefined) {
    const found = ctx.world.colliders.find((c) => c.name === roots.follow);
    const collider = found instanceof Collider ? found : null;
    if (!collider) {
      throw new PbdError(
        'scene/strands-follow',
        `${where}.roots.follow`,
        `names no collider '${roots.follow}'`,
        `the colliders are ${ctx.world.colliders.map((c) => `'${c.name}'`).join(', ') || 'none'}`,
      );
    }
    if (!collider.motion) {
      throw new PbdError(
        'scene/strands-follow',
        `${where}.roots.follow`,
        `collider '${roots.follow}' has no scripted motion to follow`,
        'give the collider a motion, or leave roots.follow out',
      );
    }
    rootMotion = collider.motion;
  } else if (roots.motion) {
    rootMotion = new Motion(roots.motion, `${where}.roots.motion`);
  }
  const body = locate(
    where,
    spec.name,
    () =>
      new Strands(ctx.world, {
        name: spec.name,
        ...geometry,
        linearDensity: spec.linearDensity,
        radius: spec.radius,
        pinRoots: roots.pinned ?? true,
        rootMotion,
        ftl: spec.ftl,
        stretch: spec.stretch,
        bend: spec.bend,
        shapeMatching: spec.shapeMatching,
        rod: spec.rod,
        velocity: spec.velocity,
        group: spec.group,
        mask: spec.mask,
      }),
  );
  (spec.grippers ?? []).forEach((g, k) => {
    const n = body.count;
    const first = g.segment < 0 ? n + g.segment : g.segment;
    const m = g.motion ? new Motion(g.motion, `${where}.grippers[${k}].motion`) : undefined;
    locate(`${where}.grippers[${k}]`, spec.name, () => {
      if (!(first >= 0 && first + 1 < n))
        throw new PbdError(
          'scene/strands-gripper',
          `${where}.grippers[${k}].segment`,
          `names no segment (${g.segment}) of a body of ${n} particles`,
          'give a first particle in [0, count − 2], or −2 for the last segment',
        );
      body.clamp(first, m);
      return body;
    });
  });
  return body;
}

/** Strands name their errors `strands 'name'…`; in a scene they are located at the body's JSON path. */
function locate(where: string, name: string | undefined, build: () => Strands): Strands {
  try {
    return build();
  } catch (e) {
    const prefix = name ? `strands '${name}'` : 'strands';
    if (!(e instanceof PbdError) || !e.where.startsWith(prefix)) throw e;
    throw new PbdError(e.code, where + e.where.slice(prefix.length), e.detail, e.hint);
  }
}
