import { complianceTunable, stiffnessTunable, type Tunable } from '../core/body.js';
import { RigidModeDamping } from '../core/damping.js';
import { bodyDensity } from '../core/errors.js';
import type { ConstraintParams } from '../core/solver.js';
import type { World } from '../core/world.js';
import { lumpedTriangleMasses } from '../mesh/lumped-mass.js';
import { buildBendingQuads, type TriangleMesh, validateTriangleMesh } from '../mesh/triangle-mesh.js';
import {
  type StrainLimitOptions,
  type StrainLimitSets,
  strainLimiting,
} from '../strain-limiting/cloth-limits.js';
import type { LongRangeAttachments, LongRangeOptions } from '../strain-limiting/long-range-attachments.js';
import { EmbeddedBody } from './embedded-body.js';
import { RenderEmbedding } from './embedding.js';
import { IsometricBending } from './isometric-bending.js';
import type { MaterialOptions, OrthotropicOptions } from './material.js';
import { TriangleFemConstraints } from './triangle-fem.js';

export interface FemClothOptions {
  /** The cloth's triangle mesh in world space (its rest shape). Must be manifold. */
  mesh: TriangleMesh;
  name?: string;
  /** Area density ρ (kg/m²). Default 0.1. */
  density?: number;
  /** Isotropic membrane material (plane stress). Default StVK, k = 1000, ν = 0.3. */
  material?: MaterialOptions;
  /** Orthotropic StVK membrane (002 §4.3), instead of `material`. */
  orthotropic?: OrthotropicOptions;
  /** PBD stiffness k ∈ [0, 1] of the membrane (default 1) and XPBD damping β (s). */
  stiffness?: number;
  damping?: number;
  /** Isometric bending (002 §4.3): PBD stiffness, or XPBD compliance = 1 / bending stiffness. `false` disables it. */
  bend?: ConstraintParams | false;
  /** A high-resolution render mesh at rest, attached to the cloth surface (002 §5). */
  render?: TriangleMesh;
  /** Strain limits (000 §3.5) on the edges and / or the triangles' principal stretches. */
  strainLimit?: StrainLimitOptions;
  /** Long Range Attachments (000 §3.5): every free vertex tethered to the cloth's pins. */
  longRangeAttachments?: LongRangeOptions;
  globalDamping?: number;
  radius?: number;
  group?: number;
  mask?: number;
}

/**
 * Cloth as a continuum (002 §4.3): membrane energy constraints on the
 * triangles (StVK isotropic or orthotropic, or Neo-Hookean) and isometric
 * bending on the interior edges.
 */
export class FemCloth extends EmbeddedBody {
  readonly type = 'fem-cloth';
  readonly triangles: Uint32Array;
  readonly restPositions: Float64Array;
  readonly membrane: TriangleFemConstraints;
  readonly bend: IsometricBending | null;
  readonly damping: RigidModeDamping | null;
  readonly embedding: RenderEmbedding | null;
  /** Edge and triangle strain limits (each null when not asked for). */
  readonly strainLimits: StrainLimitSets;
  /** Long Range Attachments to the cloth's pins, or null. */
  readonly longRange: LongRangeAttachments | null;

  constructor(world: World, o: FemClothOptions) {
    const where = o.name ? `fem-cloth '${o.name}'` : 'fem-cloth';
    const topo = validateTriangleMesh(o.mesh, `${where}.mesh`);
    const nv = o.mesh.positions.length / 3;
    super(world, o.name ?? '', nv);
    const density = bodyDensity(o.density, 0.1, 'kg/m²', 'fem-cloth', where);
    this.triangles = new Uint32Array(o.mesh.triangles);
    this.restPositions = new Float64Array(o.mesh.positions);
    const store = world.store;
    const off = this.offset;
    this.place(o.mesh.positions);
    const m = lumpedTriangleMasses(
      this.restPositions,
      this.triangles,
      density,
      nv,
      'fem-cloth/unused-vertex',
      `${where}.mesh`,
    );
    for (let i = 0; i < nv; i++) {
      store.setMass(off + i, m[i]);
      store.radius[off + i] = o.radius ?? 0;
      if (o.group !== undefined) store.group[off + i] = o.group;
      if (o.mask !== undefined) store.mask[off + i] = o.mask;
    }
    const global = new Uint32Array(this.triangles.length);
    for (let k = 0; k < global.length; k++) global[k] = this.triangles[k] + off;
    this.membrane = this.addSet(
      new TriangleFemConstraints(store, global, {
        material: o.orthotropic ? undefined : (o.material ?? { youngsModulus: 1000, poissonRatio: 0.3 }),
        orthotropic: o.orthotropic,
        stiffness: o.stiffness,
        damping: o.damping,
        where: `${where}.membrane`,
      }),
    );
    if (o.bend === false) this.bend = null;
    else {
      const quads = buildBendingQuads(this.triangles, topo);
      // buildBendingQuads gives (edge a, edge b, opposite c, opposite d): the stencil order of 002 Figure 3
      for (let k = 0; k < quads.length; k++) quads[k] += off;
      this.bend = this.addSet(
        new IsometricBending(store, quads, o.bend ?? { stiffness: 0.5, compliance: 100 }),
      );
    }
    const limiting = strainLimiting(world, this, o, where);
    this.strainLimits = limiting.limits;
    this.longRange = limiting.longRange;
    for (const set of limiting.sets) this.addSet(set);
    this.damping = o.globalDamping ? this.addSet(new RigidModeDamping(off, nv, o.globalDamping)) : null;
    this.embedding = o.render
      ? RenderEmbedding.onSurface(
          o.render,
          this.restPositions,
          this.triangles,
          store.float64(o.render.positions.length),
        )
      : null;
  }

  protected override ownTriangles(): Uint32Array {
    return this.triangles;
  }

  override tunables(): Tunable[] {
    const out = [stiffnessTunable('membrane.stiffness', this.membrane.rule)];
    const b = this.bend;
    if (b)
      out.push(
        stiffnessTunable('bend.stiffness', b.rule),
        complianceTunable('bend.compliance', b.rule, 1e-4, 1e3),
      );
    return out;
  }
}
