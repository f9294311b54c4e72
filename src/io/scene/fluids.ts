import { z } from 'zod';
import { PbdError } from '../../core/errors.js';
import { boxSurfaceParticles } from '../../fluids/boundary.js';
import { Fluid } from '../../fluids/fluid.js';
import { type BuildContext, vec3 } from './common.js';

const block = z
  .strictObject({
    min: vec3.describe('min corner (m)'),
    max: vec3.describe('max corner (m)'),
    velocity: vec3.optional().describe('initial velocity (m/s)'),
  })
  .describe('a box filled with particles on a cubic lattice of the fluid spacing');

const emitter = z
  .strictObject({
    position: vec3.describe('centre of the nozzle (m)'),
    direction: vec3.optional().describe('direction of the stream, default [0, -1, 0]'),
    speed: z.number().positive().describe('speed of the stream (m/s)'),
    radius: z.number().positive().optional().describe('nozzle radius (m); give this or rate'),
    rate: z.number().positive().optional().describe('volume flow (m³/s); sets the nozzle radius'),
    start: z.number().min(0).optional().describe('time the stream starts (s), default 0'),
    end: z.number().min(0).optional().describe('time the stream stops (s), default never'),
  })
  .describe('a stream of particles');

const boundaryBox = z
  .strictObject({
    min: vec3,
    max: vec3,
    faces: z
      .array(z.enum(['-x', '+x', '-y', '+y', '-z', '+z']))
      .optional()
      .describe('faces to sample, default all six (leave out "+y" for an open tank)'),
    spacing: z
      .number()
      .positive()
      .optional()
      .describe('particle spacing on the faces, default the fluid spacing'),
  })
  .describe('static boundary particles on the faces of a box (Akinci et al. 2012)');

export const fluidBody = z
  .strictObject({
    type: z.literal('fluid'),
    name: z.string().optional(),
    spacing: z
      .number()
      .positive()
      .describe('particle spacing d (m): the resolution; other lengths default to multiples of it'),
    restDensity: z.number().positive().optional().describe('rest density ρ0 (kg/m³), default 1000'),
    kernelRadius: z.number().positive().optional().describe('SPH kernel radius h (m), default 2d'),
    blocks: z.array(block).optional(),
    emitters: z.array(emitter).optional(),
    capacity: z
      .int()
      .min(1)
      .optional()
      .describe('particles reserved (initial + emitted); default from the emitters'),
    relaxation: z
      .number()
      .min(0)
      .optional()
      .describe('ε of PBF eq. 11 (m⁻²), default 0.1 · S0 (S0: Σ|∇C|² of a rest lattice)'),
    unilateral: z
      .boolean()
      .optional()
      .describe(
        'density constraint only pushes particles apart (default true); false: PBF eq. 1 as an equality',
      ),
    artificialPressure: z
      .union([
        z.strictObject({
          k: z.number().min(0).optional().describe('default 0.1'),
          n: z.int().min(1).optional().describe('default 4'),
          deltaQ: z.number().min(0).lt(1).optional().describe('|Δq| / h, default 0.2'),
        }),
        z.literal(false),
      ])
      .optional()
      .describe('s_corr of PBF eq. 13; false disables it'),
    viscosity: z.number().min(0).max(1).optional().describe('XSPH c of PBF eq. 17, default 0.01'),
    vorticity: z
      .number()
      .min(0)
      .optional()
      .describe('vorticity confinement ε of PBF eq. 16 (m/s), default 0'),
    couple: z
      .union([z.enum(['all', 'none']), z.array(z.string())])
      .optional()
      .describe('bodies the fluid pushes and is pushed by: "all" (default), "none" or a list of body names'),
    boundary: z.array(boundaryBox).optional(),
    group: z.int().optional(),
    mask: z.int().optional(),
  })
  .describe('position based fluid (Macklin & Müller 2013; 000 §3.4.6)');

export type FluidBodySpec = z.infer<typeof fluidBody>;

export function buildFluid(spec: FluidBodySpec, ctx: BuildContext): Fluid {
  const boundary: number[] = [];
  (spec.boundary ?? []).forEach((b, k) => {
    try {
      const pts = boxSurfaceParticles(b.min, b.max, b.spacing ?? spec.spacing, b.faces);
      for (let i = 0; i < pts.length; i++) boundary.push(pts[i]);
    } catch (e) {
      if (e instanceof PbdError) throw e.within(`${ctx.where}.boundary[${k}]`);
      throw e;
    }
  });
  return new Fluid(ctx.world, {
    name: spec.name,
    spacing: spec.spacing,
    restDensity: spec.restDensity,
    kernelRadius: spec.kernelRadius,
    blocks: spec.blocks,
    emitters: spec.emitters,
    capacity: spec.capacity,
    relaxation: spec.relaxation,
    unilateral: spec.unilateral,
    artificialPressure: spec.artificialPressure,
    viscosity: spec.viscosity,
    vorticity: spec.vorticity,
    couple: spec.couple,
    boundaryParticles: boundary,
    group: spec.group,
    mask: spec.mask,
    where: ctx.where,
  });
}
