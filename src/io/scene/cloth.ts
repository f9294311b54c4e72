import { z } from 'zod';
import { Cloth } from '../../cloth/cloth.js';
import { PbdError } from '../../core/errors.js';
import {
  type BuildContext,
  boxPins,
  constraintParams,
  globalDamping,
  listedPins,
  meshSource,
  pinGroups,
  pinSpec,
  placement,
  readPins,
} from './common.js';
import { resolveMesh } from './meshes.js';
import { longRangeSpec, strainLimitSpec } from './strands.js';

/** The `hierarchy` option of cloth and soft bodies (Müller 2008, HPBD). */
export const hierarchySpec = z
  .union([
    z.boolean(),
    z.strictObject({
      parents: z.int().min(1).max(6).optional().describe('coarse parents of every fine vertex, default 2'),
      maxLevels: z.int().min(1).max(16).optional().describe('most coarse levels, default 8'),
      minParticles: z.int().min(2).optional().describe('no coarser level below this size, default 32'),
    }),
  ])
  .describe('hierarchical solver (Müller 2008): coarse levels, one V-cycle per iteration; for stiff stretch');

export const clothBody = z
  .strictObject({
    type: z.literal('cloth'),
    name: z.string().optional(),
    mesh: meshSource,
    transform: placement.optional(),
    density: z.number().positive().optional().describe('area density ρ (kg/m²), default 0.1'),
    stretch: constraintParams.optional().describe('distance constraints on the edges (003 §4.1)'),
    bend: z
      .union([
        constraintParams.extend({
          model: z
            .enum(['dihedral', 'distance'])
            .optional()
            .describe(
              '"dihedral" (default): the dihedral angle; "distance": one distance constraint between the two vertices opposite each interior edge (003 §4.1), compliance in m/N',
            ),
        }),
        z.literal(false),
      ])
      .optional()
      .describe('dihedral bending (003 §4.1, Appendix A), or distance bending (model); false disables it'),
    pressure: z
      .strictObject({ pressure: z.number().min(0).describe('k_pressure: target volume / rest volume') })
      .extend(constraintParams.shape)
      .optional()
      .describe('balloon overpressure (003 §4.4); needs a closed mesh'),
    tear: z
      .strictObject({
        threshold: z.number().gt(1).describe('stretch ratio at which an edge tears, e.g. 1.6'),
        maxNewVertices: z.int().min(0).optional(),
        maxPerStep: z.int().min(1).optional(),
      })
      .optional()
      .describe('tearing (003 §5)'),
    aerodynamics: z
      .strictObject({
        drag: z.number().min(0).optional(),
        lift: z.number().min(0).optional(),
        airDensity: z.number().min(0).optional(),
      })
      .optional(),
    globalDamping,
    strainLimit: strainLimitSpec.optional(),
    longRangeAttachments: longRangeSpec.optional(),
    hierarchy: hierarchySpec.optional(),
    radius: z.number().min(0).optional().describe('contact radius of each vertex (m)'),
    group: z.int().optional(),
    mask: z.int().optional(),
    pins: pinGroups(pinSpec).optional(),
  })
  .describe('a cloth (003 §4)');

export type ClothBodySpec = z.infer<typeof clothBody>;

export function buildCloth(spec: ClothBodySpec, ctx: BuildContext): Cloth {
  const mesh = resolveMesh(spec.mesh, spec.transform, ctx.readFile, `${ctx.where}.mesh`);
  const cloth = locateClothErrors(
    spec,
    ctx,
    () =>
      new Cloth(ctx.world, {
        mesh,
        name: spec.name,
        density: spec.density,
        stretch: spec.stretch,
        bend: spec.bend,
        pressure: spec.pressure,
        tear: spec.tear,
        aerodynamics: spec.aerodynamics,
        globalDamping: spec.globalDamping,
        strainLimit: spec.strainLimit,
        longRangeAttachments: spec.longRangeAttachments,
        hierarchy: spec.hierarchy,
        radius: spec.radius,
        group: spec.group,
        mask: spec.mask,
      }),
  );
  const cols = 'grid' in spec.mesh ? spec.mesh.grid.cols : 0;
  const rows = 'grid' in spec.mesh ? spec.mesh.grid.rows : 0;
  readPins(
    spec.pins,
    ctx.where,
    { noun: 'vertex', hint: 'check the indices or the box' },
    (pin, where) => pinnedVertices(cloth.positions(), cloth.activeCount, pin, cols, rows, where),
    (vertices, motion, pin) => {
      for (const v of vertices) {
        ctx.world.attachments.attach(cloth.offset + v, { motion, compliance: pin.compliance });
      }
    },
  );
  return cloth;
}

/**
 * Cloth names its errors `cloth 'name'.mesh …` or `cloth.density`; in a
 * scene they are located at the body's JSON path instead (with the OBJ file
 * for problems inside a mesh file).
 */
function locateClothErrors(spec: ClothBodySpec, ctx: BuildContext, build: () => Cloth): Cloth {
  try {
    return build();
  } catch (e) {
    const prefix = spec.name ? `cloth '${spec.name}'` : 'cloth';
    if (!(e instanceof PbdError) || !e.where.startsWith(prefix)) throw e;
    let where = ctx.where + e.where.slice(prefix.length);
    if ('file' in spec.mesh && where.startsWith(`${ctx.where}.mesh`)) {
      where = `${ctx.where}.mesh (${spec.mesh.file})${where.slice(ctx.where.length + 5)}`;
    }
    throw new PbdError(e.code, where, e.detail, e.hint);
  }
}

/**
 * The vertices a pin group names on a grid mesh of cols × rows vertices (cols 0: the mesh is no
 * grid): its `grid` [row, column] pairs, then its whole `rows`, then its whole `columns`, pushed
 * to `out` (the cloth's and the shape-matching cloth's pins).
 */
export function gridPins(
  pin: { grid?: [number, number][]; rows?: number[]; cols?: number[] },
  cols: number,
  rows: number,
  where: string,
  out: number[],
): void {
  for (const [r, c] of pin.grid ?? []) {
    needGrid(cols, `${where}.grid`, 'grid');
    if (r >= rows || c >= cols)
      throw new PbdError(
        'scene/bad-pin',
        `${where}.grid`,
        `[${r}, ${c}] is outside the ${rows} × ${cols} grid`,
      );
    out.push(r * cols + c);
  }
  for (const r of pin.rows ?? []) {
    needGrid(cols, `${where}.rows`, 'row');
    if (r >= rows)
      throw new PbdError('scene/bad-pin', `${where}.rows`, `row ${r} is outside the ${rows}-row grid`);
    for (let c = 0; c < cols; c++) out.push(r * cols + c);
  }
  for (const c of pin.cols ?? []) {
    needGrid(cols, `${where}.cols`, 'column');
    if (c >= cols)
      throw new PbdError('scene/bad-pin', `${where}.cols`, `column ${c} is outside the ${cols}-column grid`);
    for (let r = 0; r < rows; r++) out.push(r * cols + c);
  }
}

/** Refuses `kind` pins (grid, row, column) at `where` on a mesh that is not a { grid } (cols 0). */
function needGrid(cols: number, where: string, kind: string): void {
  if (!cols)
    throw new PbdError(
      'scene/bad-pin',
      where,
      `${kind} pins need a { grid } mesh`,
      'use vertices or box instead',
    );
}

/**
 * The vertices a pin group names among a body's n vertices at positions x: its `vertices`, then
 * (on a grid mesh of cols × rows vertices; cols 0: none) its `grid`, `rows` and `cols`, then those
 * in its `box` — the pins of the cloth, the soft body and the FEM cloth.
 */
export function pinnedVertices(
  x: ArrayLike<number>,
  n: number,
  pin: {
    vertices?: number[];
    grid?: [number, number][];
    rows?: number[];
    cols?: number[];
    box?: { min: number[]; max: number[] };
  },
  cols: number,
  rows: number,
  where: string,
): number[] {
  const out: number[] = [];
  listedPins(pin.vertices, n, where, out);
  gridPins(pin, cols, rows, where, out);
  if (pin.box) boxPins(x, n, pin.box, out);
  return out;
}
