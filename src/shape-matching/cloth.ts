/**
 * Shape-matching cloth (survey 000 §4.6, seed 001 §4.6): 2D shape matching
 * of triangle regions (Stumpp et al. 2008), fiber clusters, and
 * multi-resolution shape matching in a V-cycle (Bender et al. 2013,
 * Algorithm 2, Figure 21). The regions of one level and their matching pass
 * are in cloth-level.ts, the fiber clusters in cloth-fibers.ts, the
 * transfer operators between levels in cloth-transfer.ts.
 *
 * Multi-resolution (Algorithm 2): levels 0 (coarsest) … L (finest = the
 * particles); each substep the coarse positions are restricted from the
 * finest level; every projection runs the V-cycle
 *   for l = L … 1: x̂ ← x_l; match(l); x_{l−1} += I_l^{l−1} (x_l − x̂)
 *   for l = 0 … L: x̂ ← x_l; match(l); x_{l+1} += I_l^{l+1} (x_l − x̂)  (l ≠ L)
 * with barycentric restriction and prolongation. On the coarse levels the
 * goals resist stretching but allow compression (so that wrinkles of the
 * fine level survive): the principal stretches of the region's linear
 * deformation are clamped to at most 1 instead of being set to 1.
 *
 * The V-cycle yields goal positions for the particles, which are applied
 * with the world's rule like every shape-matching set (PBD stiffness or XPBD
 * compliance, one kernel).
 */
import { DihedralBending } from '../cloth/dihedral-bending.js';
import { Body, type Tunable } from '../core/body.js';
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { bodyDensity, PbdError, requireIntegerIn } from '../core/errors.js';
import { type ConstraintParams, ProjectionRule } from '../core/solver.js';
import type { World } from '../core/world.js';
import { gridMesh } from '../mesh/generators.js';
import { buildBendingQuads, buildEdgeTopology, type TriangleMesh } from '../mesh/triangle-mesh.js';
import { ClothLevel, dist } from './cloth-level.js';
import { Transfer } from './cloth-transfer.js';
import { applyGoals, ruleTunables } from './region-shape-matching.js';

export { ClothLevel } from './cloth-level.js';
export { Transfer } from './cloth-transfer.js';

export interface ShapeMatchingClothOptions {
  name?: string;
  /** The finest mesh (placed in world space). For multi-resolution, use `grid` instead. */
  mesh?: TriangleMesh;
  /** A grid cloth (the coarser levels are coarser grids of the same size). */
  grid?: { width: number; height: number; cols: number; rows: number; plane?: 'xy' | 'xz' };
  /** Translation of a grid cloth. */
  translate?: [number, number, number];
  /** Area density (kg/m²). Default 0.1. */
  density?: number;
  /** Triangle regions: the triangle alone, or extended by its neighbours' outer corners (bending). Default 'extended'. */
  regions?: 'triangle' | 'extended';
  /** Edge regions (Bender et al. 2013). Default true. */
  edges?: boolean;
  /** Fiber clusters (Stumpp et al. 2008). Default false. */
  fibers?: boolean;
  /** Resolution levels of multi-resolution shape matching (1 = single level). Grids only. Default 1. */
  levels?: number;
  /** PBD stiffness / XPBD compliance (s²) of the pull to the V-cycle goals. */
  stiffness?: number;
  compliance?: number;
  /** Dihedral bending on the finest level (003 §4.1), or false. Default false. */
  bend?: ConstraintParams | false;
  radius?: number;
  group?: number;
  mask?: number;
}

/** A cloth simulated by shape matching (see the file comment). */
export class ShapeMatchingCloth extends Body {
  readonly type = 'shape-matching-cloth';
  /** Levels from the coarsest (0) to the finest (the particles). */
  readonly levels: ClothLevel[];
  readonly matching: ClothShapeMatching;
  readonly bend: DihedralBending | null;
  readonly restPositions: Float64Array;

  constructor(world: World, o: ShapeMatchingClothOptions) {
    const where = o.name ? `shape-matching cloth '${o.name}'` : 'shape-matching cloth';
    const density = bodyDensity(o.density, 0.1, 'kg/m²', 'sm-cloth', where);
    const nLevels = o.levels ?? 1;
    requireIntegerIn(nLevels, 1, 8, 'sm-cloth/levels', `${where}.levels`);
    const meshes: TriangleMesh[] = [];
    if (o.grid) {
      const t = o.translate ?? [0, 0, 0];
      let cols = o.grid.cols,
        rows = o.grid.rows;
      for (let l = 0; l < nLevels; l++) {
        const m = gridMesh({ ...o.grid, cols, rows, diagonals: 'alternate' }, `${where}.grid`);
        for (let k = 0; k < m.positions.length; k += 3)
          for (let d = 0; d < 3; d++) m.positions[k + d] += t[d];
        meshes.unshift(m);
        if (l + 1 < nLevels && (cols < 5 || rows < 5)) {
          throw new PbdError(
            'sm-cloth/levels',
            `${where}.levels`,
            `${nLevels} levels coarsen the grid below 3 × 3 vertices`,
            'use fewer levels or a finer grid',
          );
        }
        cols = Math.ceil((cols - 1) / 2) + 1;
        rows = Math.ceil((rows - 1) / 2) + 1;
      }
    } else if (o.mesh) {
      if (nLevels > 1) {
        throw new PbdError(
          'sm-cloth/levels',
          `${where}.levels`,
          'multi-resolution needs a { grid } cloth',
          'describe the cloth as a grid',
        );
      }
      meshes.push(o.mesh);
    } else {
      throw new PbdError('sm-cloth/mesh', where, 'needs a mesh or a grid');
    }
    const finest = meshes[meshes.length - 1];
    const n = finest.positions.length / 3;
    super(world, o.name ?? '', n);
    const regions = o.regions ?? 'extended';
    this.levels = meshes.map(
      (m, l) =>
        new ClothLevel(
          m,
          density,
          {
            regions: l === meshes.length - 1 ? regions : 'triangle',
            edges: o.edges ?? true,
            fibers: l === meshes.length - 1 && (o.fibers ?? false),
          },
          `${where}.levels[${l}]`,
        ),
    );
    const store = world.store;
    const off = this.offset;
    this.restPositions = Float64Array.from(finest.positions);
    this.place(finest.positions);
    const fine = this.levels[this.levels.length - 1];
    for (let j = 0; j < n; j++) {
      store.setMass(off + j, fine.mass[j]);
      store.radius[off + j] = o.radius ?? 0;
      if (o.group !== undefined) store.group[off + j] = o.group;
      if (o.mask !== undefined) store.mask[off + j] = o.mask;
    }
    this.matching = this.addSet(new ClothShapeMatching(this, o, where));
    if (o.bend) {
      const topo = buildEdgeTopology(fine.triangles);
      const quads = buildBendingQuads(fine.triangles, topo);
      for (let k = 0; k < quads.length; k++) quads[k] += off;
      this.bend = this.addSet(new DihedralBending(store, quads, undefined, o.bend));
    } else {
      this.bend = null;
    }
  }

  override restShape(): Float64Array {
    return this.restPositions;
  }

  override renderTriangles(): Uint32Array {
    return this.levels[this.levels.length - 1].triangles;
  }

  /** Pins a vertex of the finest level where it is. */
  pin(vertex: number): void {
    if (!(Number.isInteger(vertex) && vertex >= 0 && vertex < this.count)) {
      throw new PbdError('sm-cloth/bad-vertex', `cloth '${this.name}'`, `has no vertex ${vertex}`);
    }
    this.world.attachments.attach(this.offset + vertex);
  }

  /** Largest edge length / rest length − 1 over the finest level (stretch, for plots and tests). */
  maxStretch(): number {
    const fine = this.levels[this.levels.length - 1];
    const topo = buildEdgeTopology(fine.triangles);
    const x = this.positions();
    let m = 0;
    for (let e = 0; e < topo.edges.length; e += 2) {
      const a = topo.edges[e],
        b = topo.edges[e + 1];
      m = Math.max(m, dist(x, a, b) / dist(fine.rest, a, b) - 1);
    }
    return m;
  }

  override tunables(): Tunable[] {
    return ruleTunables(this.matching.rule, 1e-2);
  }
}

/** The V-cycle of Algorithm 2 as a constraint set. */
export class ClothShapeMatching implements ConstraintSet {
  readonly kind = 'cloth-shape-matching';
  readonly order = 0;
  enabled = true;
  readonly colors = 1;
  readonly rule: ProjectionRule;
  private readonly cloth: ShapeMatchingCloth;
  /** Coarse level positions (levels 0 … L − 1). */
  readonly positions: Float64Array[];
  /** restrict[l]: level l + 1 → l; prolong[l]: level l → l + 1. */
  private readonly restrict: Transfer[];
  private readonly prolong: Transfer[];
  private readonly goals: Float64Array;
  private readonly lambda: Float64Array;
  private readonly diff: Float64Array[];
  /**
   * Coarse levels: 0 for a vertex that stands on a pinned particle (its
   * restriction is dominated by a pinned vertex of the finer level), else 1.
   * Pinned vertices neither move in a level's matching nor take corrections,
   * so coarse levels hold at the pins as the finest level does.
   */
  private readonly free: Float64Array[];

  constructor(cloth: ShapeMatchingCloth, o: ShapeMatchingClothOptions, where: string) {
    this.cloth = cloth;
    this.rule = new ProjectionRule({ stiffness: o.stiffness ?? 1, compliance: o.compliance ?? 0 }, where);
    const L = cloth.levels;
    this.positions = L.slice(0, -1).map((lv) => Float64Array.from(lv.rest));
    this.restrict = [];
    this.prolong = [];
    for (let l = 0; l + 1 < L.length; l++) {
      this.restrict.push(new Transfer(L[l + 1], L[l]));
      this.prolong.push(new Transfer(L[l], L[l + 1]));
    }
    this.diff = L.map((lv) => new Float64Array(3 * lv.vertices));
    this.free = L.slice(0, -1).map((lv) => new Float64Array(lv.vertices).fill(1));
    this.goals = new Float64Array(3 * cloth.count);
    this.lambda = new Float64Array(3 * cloth.count);
  }

  get count(): number {
    let c = 0;
    for (const lv of this.cloth.levels) c += lv.triangles.length / 3 + lv.edgeRest.length + lv.fibers;
    return c;
  }

  beginStep(ctx: StepContext): void {
    this.rule.update(ctx.solver, ctx.hSolve, ctx.passes);
    this.lambda.fill(0);
    // coarse positions from the finest by restriction, and the pins of every level
    const L = this.cloth.levels.length;
    for (let l = L - 2; l >= 0; l--) {
      const src = l === L - 2 ? ctx.store.p : this.positions[l + 1];
      const soff = l === L - 2 ? this.cloth.offset : 0;
      this.restrict[l].apply(src, soff, this.positions[l], 0, false, null);
      const flags = l === L - 2 ? ctx.store.invMass : this.free[l + 1];
      this.restrict[l].dominant(flags, soff, this.free[l]);
    }
  }

  project(ctx: StepContext): void {
    const levels = this.cloth.levels;
    const L = levels.length - 1;
    const store = ctx.store;
    const off = this.cloth.offset;
    const n = this.cloth.count;
    const p = store.p;
    // the V-cycle runs on a copy of the particle positions, which becomes the goal
    const goal = this.goals;
    for (let k = 0; k < 3 * n; k++) goal[k] = p[3 * off + k];
    const inv = store.invMass;
    // pinned particles (w = 0) stay where they are on the finest level
    const free = this.free;
    for (let l = L; l >= 1; l--) {
      const x = l === L ? goal : this.positions[l];
      const d = this.diff[l];
      d.set(x);
      levels[l].match(x, 0, l === L ? inv : free[l], l === L ? off : 0, l !== L);
      for (let k = 0; k < d.length; k++) d[k] = x[k] - d[k];
      this.restrict[l - 1].apply(d, 0, this.positions[l - 1], 0, true, free[l - 1]);
    }
    for (let l = 0; l <= L; l++) {
      const x = l === L ? goal : this.positions[l];
      const d = this.diff[l];
      d.set(x);
      levels[l].match(x, 0, l === L ? inv : free[l], l === L ? off : 0, l !== L);
      if (l !== L) {
        for (let k = 0; k < d.length; k++) d[k] = x[k] - d[k];
        const next = l + 1 === L ? goal : this.positions[l + 1];
        this.prolong[l].apply(d, 0, next, 0, true, l + 1 === L ? inv : free[l + 1], l + 1 === L ? off : 0);
      }
    }
    // apply the goals with the world's rule
    applyGoals(p, inv, off, n, goal, this.lambda, this.rule, null);
  }
}
