/**
 * Scene schemas and builders of the continuum family: soft bodies
 * ('softbody': tet meshes with FEM or geometric constraints) and FEM cloth
 * ('fem-cloth': membrane energy + isometric bending), seeds 002 and 000 §3.4.4.
 */
import { z } from 'zod';
import { FemCloth } from '../../continuum/fem-cloth.js';
import { PbdError } from '../../core/errors.js';
import { placePositions } from '../../mesh/generators.js';
import type { TriangleMesh } from '../../mesh/triangle-mesh.js';
import { SoftBody } from '../../softbody/soft-body.js';
import { type TetMesh, tetBox } from '../../softbody/tet-mesh.js';
import { tetrahedralize } from '../../softbody/tetrahedralize.js';
import { parseGmsh } from '../gmsh.js';
import { parseTetGen } from '../tetgen.js';
import { hierarchySpec, pinnedVertices } from './cloth.js';
import {
  type BuildContext,
  constraintParams,
  globalDamping,
  meshSource,
  motion,
  pinGroups,
  placement,
  readPins,
  vec3,
} from './common.js';
import { inFile, resolveMesh } from './meshes.js';
import { longRangeSpec, strainLimitSpec } from './strands.js';

const material = z
  .strictObject({
    model: z
      .enum(['stvk', 'neo-hookean'])
      .optional()
      .describe('constitutive model (002 §4.1), default "stvk"'),
    youngsModulus: z.number().positive().describe("Young's modulus k (Pa)"),
    poissonRatio: z.number().gt(-1).lt(0.5).describe('Poisson ratio ν'),
    clampStretch: z
      .number()
      .gt(0)
      .lt(1)
      .optional()
      .describe('singular value below which the stress is clamped (002 §4.2, Figure 2)'),
  })
  .describe('an isotropic material (Lamé coefficients from k and ν)');

const orthotropic = z
  .strictObject({
    weftModulus: z.number().positive(),
    warpModulus: z.number().positive(),
    shearModulus: z.number().positive(),
    weftPoisson: z.number().min(0).lt(1),
    warpPoisson: z.number().min(0).lt(1),
    weftDirection: vec3.optional().describe('rest-space weft direction, default [1, 0, 0]'),
  })
  .describe('orthotropic StVK membrane (002 §4.3)');

export const tetMeshSource = z
  .union([
    z.strictObject({
      box: z.strictObject({
        size: vec3.describe('m'),
        resolution: z
          .tuple([z.int().min(2), z.int().min(2), z.int().min(2)])
          .describe('vertices along x, y, z'),
        origin: vec3.optional().describe('minimum corner, default: centred on x and z, standing on y = 0'),
      }),
    }),
    z.strictObject({
      tetrahedralize: z.strictObject({
        mesh: meshSource.describe('a closed surface'),
        resolution: z
          .int()
          .min(1)
          .max(64)
          .optional()
          .describe('lattice cells along the longest side, default 8'),
        sliverAngle: z
          .number()
          .min(0)
          .max(30)
          .optional()
          .describe('boundary tets below this dihedral angle (°) are removed'),
      }),
    }),
    z.strictObject({ tetgen: z.strictObject({ node: z.string().min(1), ele: z.string().min(1) }) }),
    z.strictObject({ gmsh: z.string().min(1).describe('an ASCII .msh file (format 2 or 4)') }),
  ])
  .describe(
    "a tetrahedral mesh: { box }, { tetrahedralize } (pbdkit's tetrahedraliser), { tetgen } (.node/.ele) or { gmsh } (.msh)",
  );

const softPin = z
  .strictObject({
    vertices: z.array(z.int().min(0)).optional(),
    box: z
      .strictObject({ min: vec3, max: vec3 })
      .optional()
      .describe('every vertex inside this world-space box'),
    motion: motion.optional(),
    compliance: z.number().min(0).optional().describe('0 (default) pins hard; > 0 attaches softly (m/N)'),
    releaseAt: z.number().min(0).optional().describe('time (s) at which the pins let go'),
  })
  .describe('vertices to attach');

export const softBody = z
  .strictObject({
    type: z.literal('softbody'),
    name: z.string().optional(),
    tetMesh: tetMeshSource,
    transform: placement.optional(),
    density: z.number().positive().optional().describe('kg/m³, default 1000'),
    model: z
      .enum(['fem', 'geometric'])
      .optional()
      .describe('"fem" (002 energy constraints, default) or "geometric" (000 §3.4.4)'),
    material: material.optional(),
    stiffness: z.number().min(0).max(1).optional().describe('PBD stiffness of the energy constraints'),
    damping: z.number().min(0).optional().describe('XPBD damping of the energy constraints (s)'),
    plasticity: z
      .strictObject({
        yield: z.number().min(0).describe('γ_yield'),
        creep: z.number().min(0).describe('γ_creep (1/s)'),
        max: z.number().min(0).describe('γ_max'),
      })
      .optional()
      .describe('plasticity (002 §4.2), StVK only'),
    edges: constraintParams.optional().describe('"geometric" model: edge distance constraints'),
    volume: constraintParams.optional().describe('"geometric" model: tet volume constraints'),
    totalVolume: z
      .boolean()
      .optional()
      .describe(
        '"geometric" model with hard tet volumes: also hold the total volume, solved with the collider contacts (a squeezed body keeps its volume); default true when the tet volumes are hard, false leaves it out',
      ),
    render: z
      .union([
        z.literal(false),
        z.strictObject({
          mesh: meshSource.optional().describe('default: the surface that was tetrahedralised'),
          embed: z
            .enum(['tets', 'surface'])
            .optional()
            .describe('002 §5: barycentric in tets (default) or on the surface with a normal offset'),
        }),
      ])
      .optional()
      .describe('an embedded render mesh; false renders the tet boundary'),
    initial: z
      .enum(['rest', 'flattened', 'mirrored', 'scrambled'])
      .optional()
      .describe(
        'start deformed (002 Figure 6; scrambled: every vertex at a random point of the rest bounding box)',
      ),
    velocity: vec3.optional().describe('initial velocity (m/s)'),
    globalDamping,
    hierarchy: hierarchySpec.optional(),
    radius: z.number().min(0).optional(),
    group: z.int().optional(),
    mask: z.int().optional(),
    pins: pinGroups(softPin).optional(),
  })
  .describe('a volumetric soft body (002, 000 §3.4.4)');

export const femCloth = z
  .strictObject({
    type: z.literal('fem-cloth'),
    name: z.string().optional(),
    mesh: meshSource,
    transform: placement.optional(),
    density: z.number().positive().optional().describe('kg/m², default 0.1'),
    material: material
      .optional()
      .describe('isotropic membrane (plane stress), default StVK k = 1000, ν = 0.3'),
    orthotropic: orthotropic.optional(),
    stiffness: z.number().min(0).max(1).optional(),
    damping: z.number().min(0).optional(),
    bend: z
      .union([constraintParams, z.literal(false)])
      .optional()
      .describe('isometric bending (002 §4.3): compliance = 1 / bending stiffness (1/J)'),
    render: z
      .strictObject({ mesh: meshSource, transform: placement.optional() })
      .optional()
      .describe('a finer render mesh attached to the cloth surface (002 §5)'),
    strainLimit: strainLimitSpec.optional(),
    longRangeAttachments: longRangeSpec.optional(),
    globalDamping,
    radius: z.number().min(0).optional(),
    group: z.int().optional(),
    mask: z.int().optional(),
    pins: pinGroups(softPin.omit({ releaseAt: true })).optional(),
  })
  .describe('cloth as a continuum: membrane energy constraints and isometric bending (002 §4.3)');

export type SoftBodySpec = z.infer<typeof softBody>;
export type FemClothSpec = z.infer<typeof femCloth>;
type FemClothPin = NonNullable<FemClothSpec['pins']>[number];

/** Builds the tet mesh a scene names, placed in world space; also returns the surface it was made from. */
export function resolveTetMesh(
  spec: SoftBodySpec,
  ctx: BuildContext,
): { mesh: TetMesh; surface: TriangleMesh | null } {
  const src = spec.tetMesh;
  const where = `${ctx.where}.tetMesh`;
  const read = (file: string, key: string) => {
    try {
      return ctx.readFile(file);
    } catch (e) {
      throw new PbdError(
        'scene/missing-file',
        `${where}.${key}`,
        `cannot read '${file}': ${(e as Error).message}`,
        'paths are relative to the scene file',
      );
    }
  };
  let mesh: TetMesh;
  let surface: TriangleMesh | null = null;
  if ('box' in src) {
    const [sx, , sz] = src.box.size;
    mesh = tetBox(
      { size: src.box.size, resolution: src.box.resolution, origin: src.box.origin ?? [-sx / 2, 0, -sz / 2] },
      `${where}.box`,
    );
  } else if ('tetrahedralize' in src) {
    surface = resolveMesh(src.tetrahedralize.mesh, undefined, ctx.readFile, `${where}.tetrahedralize.mesh`);
    mesh = tetrahedralize(
      surface,
      { resolution: src.tetrahedralize.resolution, sliverAngle: src.tetrahedralize.sliverAngle },
      `${where}.tetrahedralize`,
    ).mesh;
  } else if ('tetgen' in src) {
    const node = read(src.tetgen.node, 'tetgen.node');
    const ele = read(src.tetgen.ele, 'tetgen.ele');
    mesh = inFile(() => parseTetGen(node, ele, src.tetgen.node, src.tetgen.ele), `${where}.tetgen`);
  } else {
    const text = read(src.gmsh, 'gmsh');
    mesh = inFile(() => parseGmsh(text, src.gmsh), `${where}.gmsh`);
  }
  const t = spec.transform;
  const placed: TetMesh = { positions: placePositions(mesh.positions, t), tets: new Uint32Array(mesh.tets) };
  if (surface) surface = { positions: placePositions(surface.positions, t), triangles: surface.triangles };
  return { mesh: placed, surface };
}

/**
 * A soft body's or an FEM cloth's pin groups (`vertices`, `box`), pinned by the body itself (hard,
 * or soft with `compliance`); a soft body's group may let go at `releaseAt`.
 */
function pinBody(
  body: SoftBody | FemCloth,
  pins: readonly (FemClothPin & { releaseAt?: number })[] | undefined,
  where: string,
): void {
  readPins(
    pins,
    where,
    { noun: 'vertex', hint: 'check the indices or the box' },
    (pin, at) => pinnedVertices(body.positions(), body.count, pin, 0, 0, at), // no grid: `vertices`, then `box`
    (vertices, m, pin) => {
      for (const v of vertices) body.pin(v, m, pin.compliance);
      if (pin.releaseAt !== undefined && body instanceof SoftBody) body.releaseAt(pin.releaseAt, vertices);
    },
  );
}

export function buildSoftBody(spec: SoftBodySpec, ctx: BuildContext): SoftBody {
  const { mesh, surface } = resolveTetMesh(spec, ctx);
  let render: { mesh: TriangleMesh; embed?: 'tets' | 'surface' } | undefined;
  if (spec.render !== false) {
    const r = spec.render;
    if (r?.mesh)
      render = {
        mesh: resolveMesh(r.mesh, spec.transform, ctx.readFile, `${ctx.where}.render.mesh`),
        embed: r.embed,
      };
    else if (surface) render = { mesh: surface, embed: r?.embed };
  }
  const body = new SoftBody(ctx.world, {
    mesh,
    name: spec.name,
    density: spec.density,
    model: spec.model,
    material: spec.material,
    stiffness: spec.stiffness,
    damping: spec.damping,
    plasticity: spec.plasticity,
    edges: spec.edges,
    volume: spec.volume,
    totalVolume: spec.totalVolume,
    render,
    initial: spec.initial,
    globalDamping: spec.globalDamping,
    hierarchy: spec.hierarchy,
    radius: spec.radius,
    group: spec.group,
    mask: spec.mask,
  });
  if (spec.velocity) {
    const v = body.velocities();
    for (let i = 0; i < body.count; i++) v.set(spec.velocity, 3 * i);
  }
  pinBody(body, spec.pins, ctx.where);

  return body;
}

export function buildFemCloth(spec: FemClothSpec, ctx: BuildContext): FemCloth {
  const mesh = resolveMesh(spec.mesh, spec.transform, ctx.readFile, `${ctx.where}.mesh`);
  const render = spec.render
    ? resolveMesh(
        spec.render.mesh,
        spec.render.transform ?? spec.transform,
        ctx.readFile,
        `${ctx.where}.render.mesh`,
      )
    : undefined;
  const cloth = new FemCloth(ctx.world, {
    mesh,
    name: spec.name,
    density: spec.density,
    material: spec.material,
    orthotropic: spec.orthotropic,
    stiffness: spec.stiffness,
    damping: spec.damping,
    bend: spec.bend,
    render,
    strainLimit: spec.strainLimit,
    longRangeAttachments: spec.longRangeAttachments,
    globalDamping: spec.globalDamping,
    radius: spec.radius,
    group: spec.group,
    mask: spec.mask,
  });
  pinBody(cloth, spec.pins, ctx.where);

  return cloth;
}

/** Files a continuum body reads (tet mesh files, OBJ surfaces). */
export function continuumFiles(spec: SoftBodySpec | FemClothSpec): string[] {
  const out: string[] = [];
  const mesh = (m: z.infer<typeof meshSource> | undefined) => {
    if (m && 'file' in m) out.push(m.file);
  };
  if (spec.type === 'softbody') {
    const s = spec.tetMesh;
    if ('tetgen' in s) out.push(s.tetgen.node, s.tetgen.ele);
    if ('gmsh' in s) out.push(s.gmsh);
    if ('tetrahedralize' in s) mesh(s.tetrahedralize.mesh);
    if (spec.render) mesh(spec.render.mesh);
  } else {
    mesh(spec.mesh);
    mesh(spec.render?.mesh);
  }
  return out;
}
