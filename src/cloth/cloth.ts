import { DistanceConstraints } from '../constraints/distance.js';
import { HierarchicalSolver, type HierarchyOptions } from '../constraints/hierarchy.js';
import { Body, complianceTunable, stiffnessTunable, type Tunable } from '../core/body.js';
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { RigidModeDamping } from '../core/damping.js';
import { bodyDensity, PbdError } from '../core/errors.js';
import type { Motion } from '../core/motion.js';
import type { ConstraintParams } from '../core/solver.js';
import type { World } from '../core/world.js';
import { lumpedTriangleMasses } from '../mesh/lumped-mass.js';
import {
  buildBendingQuads,
  buildEdgeTopology,
  edgeCross,
  edgeCrossOut,
  requireEnclosing,
  type TriangleMesh,
  validateTriangleMesh,
} from '../mesh/triangle-mesh.js';
import {
  type StrainLimitOptions,
  type StrainLimitSets,
  strainLimiting,
  updateStrainLimitSets,
} from '../strain-limiting/cloth-limits.js';
import type { LongRangeAttachments, LongRangeOptions } from '../strain-limiting/long-range-attachments.js';
import { DihedralBending } from './dihedral-bending.js';
import { PressureConstraint } from './pressure.js';

export interface ClothOptions {
  /** The cloth's triangle mesh, already placed in world space. Must be manifold. */
  mesh: TriangleMesh;
  name?: string;
  /** Area density ρ (kg/m²); vertex mass = Σ ρ·A/3 over its triangles (003 §4.1). Default 0.1. */
  density?: number;
  /** Stretching: distance constraints on every edge. Default stiffness 1, compliance 0. */
  stretch?: ConstraintParams;
  /**
   * Bending on every interior edge; `false` disables it. `model` 'dihedral' (the default): the
   * dihedral angle (003 §4.1, Appendix A), default stiffness 0.1 / compliance 1e-3 (rad²/(N·m)).
   * 'distance': one distance constraint between the two vertices opposite the edge (p3–p4 of
   * its quad), the cheaper model 003 §4.1 sets against the dihedral one (ammo.js's bending links
   * and the Ten Minute Physics cloth use it), default stiffness 0.1 / compliance 1 (m/N); it
   * resists stretching across the fold as well, so bending and stretching are not independent.
   */
  bend?: ClothBendOptions | false;
  /** Balloon (003 §4.4): target volume = pressure · V0; needs a closed mesh. */
  pressure?: { pressure: number } & ConstraintParams;
  /** Tearing (003 §5): an edge stretched beyond `threshold` × rest length splits one of its vertices. */
  tear?: { threshold: number; maxNewVertices?: number; maxPerStep?: number };
  /** Aerodynamic drag and lift coefficients of each triangle in the world's wind. Default drag 1, lift 0.2 (only with wind). */
  aerodynamics?: { drag?: number; lift?: number; airDensity?: number };
  /** Damping of deviations from the rigid motion (003 §3.5), k ∈ [0, 1]. Default 0. */
  globalDamping?: number;
  /** Strain limits (000 §3.5) on the edges and / or the triangles' principal stretches. */
  strainLimit?: StrainLimitOptions;
  /** Long Range Attachments (000 §3.5): every free vertex tethered to the cloth's pins. */
  longRangeAttachments?: LongRangeOptions;
  /**
   * The hierarchical solver (Müller 2008, HPBD): coarser levels of the
   * cloth's vertices whose unilateral distance constraints carry stretch
   * corrections across the cloth in one V-cycle per iteration (docs/solver.md).
   * For stiff stretch; not with `tear`. Default off.
   */
  hierarchy?: boolean | HierarchyOptions;
  /** Contact radius of each vertex (m). Default 0. */
  radius?: number;
  /** Collision group and mask bitmasks. */
  group?: number;
  mask?: number;
}

/** ClothOptions.bend: the bending model and its parameters (in the model's units). */
export interface ClothBendOptions extends ConstraintParams {
  /** 'dihedral' (default) or 'distance' (see ClothOptions.bend). */
  model?: 'dihedral' | 'distance';
}

/**
 * Cloth (003 §4): a manifold triangle mesh whose vertices are particles,
 * with stretching and bending constraints, optional overpressure, wind,
 * rigid-mode damping and tearing.
 */
export class Cloth extends Body {
  readonly type = 'cloth';
  /** Triangles in body-local vertex indices (changes when the cloth tears). */
  triangles: Uint32Array;
  /** Rest (material) positions of the vertices, body-local, used for rest lengths and angles. */
  readonly restPositions: Float64Array;
  /** Texture coordinates (two per vertex), when the mesh had them. */
  readonly uvs: Float64Array | null;
  readonly stretch: DistanceConstraints;
  /** The hierarchical solver's coarse levels, or null (ClothOptions.hierarchy). */
  readonly hierarchy: HierarchicalSolver | null;
  /** The dihedral bending (ClothOptions.bend, model 'dihedral'), or null. */
  readonly bend: DihedralBending | null;
  /**
   * The distance bending (ClothOptions.bend, model 'distance'): per interior edge one distance
   * constraint between the two vertices opposite it, in the order of the dihedral quads; or null.
   */
  readonly bendLinks: DistanceConstraints | null;
  readonly pressure: PressureConstraint | null;
  readonly damping: RigidModeDamping | null;
  /** Edge and triangle strain limits (each null when not asked for). */
  readonly strainLimits: StrainLimitSets;
  /** Long Range Attachments to the cloth's pins, or null. */
  readonly longRange: LongRangeAttachments | null;
  readonly density: number;
  /** Vertices in use; tearing adds vertices from the spare range up to `count`. */
  private active: number;
  private readonly tearThreshold: number;
  private readonly tearPerStep: number;
  private readonly aero: { drag: number; lift: number; airDensity: number };

  constructor(world: World, o: ClothOptions) {
    const where = o.name ? `cloth '${o.name}'` : 'cloth';
    const meshTopology = validateTriangleMesh(o.mesh, `${where}.mesh`);
    const nv = o.mesh.positions.length / 3;
    const spare = o.tear ? (o.tear.maxNewVertices ?? Math.ceil(nv / 2)) : 0;
    super(world, o.name ?? '', nv + spare);
    this.active = nv;
    this.density = bodyDensity(
      o.density,
      0.1,
      'kg/m²',
      'cloth',
      where,
      'a cloth needs mass: typical fabrics are 0.05–0.5 kg/m²',
    );
    this.triangles = new Uint32Array(o.mesh.triangles);
    this.restPositions = new Float64Array(3 * (nv + spare));
    this.restPositions.set(o.mesh.positions);
    this.uvs = o.mesh.uvs ? new Float64Array(2 * (nv + spare)) : null;
    if (this.uvs && o.mesh.uvs) this.uvs.set(o.mesh.uvs);
    const store = world.store;
    const off = this.offset;
    for (let i = 0; i < nv; i++) {
      store.x[3 * (off + i)] = o.mesh.positions[3 * i];
      store.x[3 * (off + i) + 1] = o.mesh.positions[3 * i + 1];
      store.x[3 * (off + i) + 2] = o.mesh.positions[3 * i + 2];
      store.radius[off + i] = o.radius ?? 0;
      if (o.group !== undefined) store.group[off + i] = o.group;
      if (o.mask !== undefined) store.mask[off + i] = o.mask;
    }
    store.p.set(store.x.subarray(3 * off, 3 * (off + nv)), 3 * off);
    // spare vertices stay inert (mass 0 ⇒ w = 0) until tearing activates them
    for (let i = nv; i < nv + spare; i++) {
      store.radius[off + i] = o.radius ?? 0;
      store.group[off + i] = o.group ?? 1;
      store.mask[off + i] = o.mask ?? -1;
    }
    this.assignMasses(where);

    const { edges, quads } = this.topology(meshTopology);
    this.stretch = this.addSet(
      new DistanceConstraints(store, edges, undefined, o.stretch ?? {}, { kind: 'stretch' }),
    );
    if (o.hierarchy && o.tear) {
      throw new PbdError(
        'cloth/hierarchy-tear',
        `${where}.hierarchy`,
        'cannot be used with tearing: the coarse levels would hold torn pieces together',
        'remove hierarchy or tear',
      );
    }
    this.hierarchy = o.hierarchy
      ? this.addSet(
          new HierarchicalSolver(
            store,
            off,
            nv,
            edges,
            this.restPositions,
            o.hierarchy === true ? {} : o.hierarchy,
            `${where}.hierarchy`,
          ),
        )
      : null;
    const model = o.bend === false ? null : (o.bend?.model ?? 'dihedral');
    if (model !== null && model !== 'dihedral' && model !== 'distance') {
      throw new PbdError(
        'cloth/bend-model',
        `${where}.bend.model`,
        `must be 'dihedral' or 'distance', got ${String(model)}`,
        "'distance' links the two vertices opposite each interior edge (003 §4.1)",
      );
    }
    this.bend =
      model === 'dihedral'
        ? this.addSet(
            new DihedralBending(
              store,
              quads,
              undefined,
              bendParams(o.bend) ?? { stiffness: 0.1, compliance: 1e-3 },
            ),
          )
        : null;
    // 003 §4.1: "adding a distance constraint between points p3 and p4" of each pair of adjacent
    // triangles, rest length their distance in the mesh as given (eqs. 10–11 project it)
    this.bendLinks =
      model === 'distance'
        ? this.addSet(
            new DistanceConstraints(
              store,
              oppositePairs(quads),
              undefined,
              bendParams(o.bend) ?? { stiffness: 0.1, compliance: 1 },
              { kind: 'distance-bending' },
            ),
          )
        : null;
    if (o.pressure) {
      requireEnclosing(meshTopology, o.mesh, 'cloth', `${where}.pressure`, 'a balloon');
      this.pressure = this.addSet(
        new PressureConstraint(
          store,
          this.globalTriangles(),
          o.pressure.pressure,
          o.pressure,
          undefined,
          world,
        ),
      );
    } else {
      this.pressure = null;
    }
    const limiting = strainLimiting(world, this, o, where);
    this.strainLimits = limiting.limits;
    this.longRange = limiting.longRange;
    for (const set of limiting.sets) this.addSet(set);
    this.damping = o.globalDamping
      ? this.addSet(new RigidModeDamping(off, nv + spare, o.globalDamping))
      : null;
    this.aero = {
      drag: o.aerodynamics?.drag ?? 1,
      lift: o.aerodynamics?.lift ?? 0.2,
      airDensity: o.aerodynamics?.airDensity ?? 1.2,
    };
    this.addSet(new ClothForces(this));
    this.tearThreshold = o.tear?.threshold ?? 0;
    if (o.tear && !(o.tear.threshold > 1)) {
      throw new PbdError(
        'cloth/tear',
        `${where}.tear.threshold`,
        `must be > 1 (a stretch ratio), got ${o.tear.threshold}`,
        'e.g. 1.6 tears edges stretched to 160 % of their rest length',
      );
    }
    this.tearPerStep = o.tear?.maxPerStep ?? 4;
  }

  override get activeCount(): number {
    return this.active;
  }

  override restShape(): Float64Array {
    return this.restPositions;
  }

  override renderTriangles(): Uint32Array {
    return this.triangles;
  }

  /** Triangles in global particle indices. */
  globalTriangles(): Uint32Array {
    const out = new Uint32Array(this.triangles.length);
    for (let k = 0; k < out.length; k++) out[k] = this.triangles[k] + this.offset;
    return out;
  }

  /** The stretch edges and bending quads, in store indices (`topo`: the triangles' edge topology). */
  private topology(topo = buildEdgeTopology(this.triangles)): { edges: Uint32Array; quads: Uint32Array } {
    const edges = new Uint32Array(topo.edges.length);
    for (let k = 0; k < edges.length; k++) edges[k] = topo.edges[k] + this.offset;
    const q = buildBendingQuads(this.triangles, topo);
    for (let k = 0; k < q.length; k++) q[k] += this.offset;
    return { edges, quads: q };
  }

  /** 003 §4.1: each vertex gets one third of the mass ρA of each adjacent triangle. */
  private assignMasses(where: string): void {
    const store = this.world.store;
    const m = lumpedTriangleMasses(
      this.restPositions,
      this.triangles,
      this.density,
      this.active,
      'cloth/unused-vertex',
      `${where}.mesh`,
    );
    const att = this.world.attachments;
    for (let i = 0; i < this.active; i++) {
      const gi = this.offset + i;
      if (att.isAttached(gi) && store.invMass[gi] === 0) {
        store.mass[gi] = m[i];
        att.setSavedInvMass(gi, 1 / m[i]);
      } else {
        store.setMass(gi, m[i]);
      }
    }
  }

  /** Pins a vertex (body-local index) to where it is, or to a scripted motion of it. */
  pin(vertex: number, motion?: Motion): void {
    this.attachVertex(vertex, 'cloth', motion ? { motion } : {});
  }

  unpin(vertex: number): void {
    this.checkVertex(vertex, 'cloth');
    this.world.attachments.detach(this.offset + vertex);
  }

  /** Applies drag and lift of the world's wind to each triangle (line 5 of Algorithm 1). */
  applyWind(ctx: StepContext, wind: Float64Array): void {
    const { v, x, invMass } = ctx.store;
    const tris = this.triangles,
      off = this.offset,
      h = ctx.h;
    const { drag, lift, airDensity } = this.aero;
    const nt = tris.length / 3;
    for (let t = 0; t < nt; t++) {
      const a = off + tris[3 * t],
        b = off + tris[3 * t + 1],
        c = off + tris[3 * t + 2];
      const a3 = 3 * a,
        b3 = 3 * b,
        c3 = 3 * c;
      edgeCross(x, a3, b3, c3);
      let nx = edgeCrossOut[0],
        ny = edgeCrossOut[1],
        nz = edgeCrossOut[2];
      const n2 = Math.sqrt(nx * nx + ny * ny + nz * nz);
      if (n2 < 1e-20) continue;
      const area = 0.5 * n2;
      nx /= n2;
      ny /= n2;
      nz /= n2;
      const rx = wind[0] - (v[a3] + v[b3] + v[c3]) / 3;
      const ry = wind[1] - (v[a3 + 1] + v[b3 + 1] + v[c3 + 1]) / 3;
      const rz = wind[2] - (v[a3 + 2] + v[b3 + 2] + v[c3 + 2]) / 3;
      const vn = rx * nx + ry * ny + rz * nz;
      // drag along the normal ∝ (v·n)|v·n|, lift along the tangential flow ∝ |v·n|
      const q = 0.5 * airDensity * area;
      const fd = q * drag * vn * Math.abs(vn);
      const fl = q * lift * Math.abs(vn);
      const fx = fd * nx + fl * (rx - vn * nx),
        fy = fd * ny + fl * (ry - vn * ny),
        fz = fd * nz + fl * (rz - vn * nz);
      const s = h / 3;
      let wi = invMass[a] * s;
      v[a3] += fx * wi;
      v[a3 + 1] += fy * wi;
      v[a3 + 2] += fz * wi;
      wi = invMass[b] * s;
      v[b3] += fx * wi;
      v[b3 + 1] += fy * wi;
      v[b3 + 2] += fz * wi;
      wi = invMass[c] * s;
      v[c3] += fx * wi;
      v[c3 + 1] += fy * wi;
      v[c3 + 2] += fz * wi;
    }
  }

  /**
   * Tearing (003 §5): for the most overstretched edges beyond the threshold,
   * split one end vertex with the plane through it perpendicular to the edge;
   * triangles on the far side go to a new vertex. Constraints and masses are
   * rebuilt from the new topology. Returns the number of splits.
   */
  tear(): number {
    if (this.tearThreshold <= 1 || this.active >= this.count) return 0;
    const store = this.world.store;
    const x = store.x;
    const st = this.stretch;
    // the worst edges first
    const cand: number[] = [];
    for (let c = 0; c < st.count; c++) {
      const a = st.indices[2 * c],
        b = st.indices[2 * c + 1];
      const len = Math.hypot(x[3 * a] - x[3 * b], x[3 * a + 1] - x[3 * b + 1], x[3 * a + 2] - x[3 * b + 2]);
      if (len > this.tearThreshold * st.rest[c]) cand.push(c, len / st.rest[c]);
    }
    if (cand.length === 0) return 0;
    const order: number[] = [];
    for (let k = 0; k < cand.length; k += 2) order.push(k);
    order.sort((i, j) => cand[j + 1] - cand[i + 1] || cand[i] - cand[j]);
    let splits = 0;
    const edgesSplit: [number, number][] = [];
    for (const k of order) {
      if (splits >= this.tearPerStep || this.active >= this.count) break;
      const c = cand[k];
      edgesSplit.push([st.indices[2 * c] - this.offset, st.indices[2 * c + 1] - this.offset]);
      splits++;
    }
    let done = 0;
    for (const [a, b] of edgesSplit) if (this.splitVertexOfEdge(a, b)) done++;
    if (done > 0) this.rebuild();
    return done;
  }

  private splitVertexOfEdge(a: number, b: number): boolean {
    const att = this.world.attachments;
    // prefer the vertex that is not pinned; then the one with more triangles
    const tris = this.triangles;
    const fan = (v: number) => {
      const out: number[] = [];
      for (let t = 0; t < tris.length / 3; t++)
        if (tris[3 * t] === v || tris[3 * t + 1] === v || tris[3 * t + 2] === v) out.push(t);
      return out;
    };
    const candidates = [a, b].filter((v) => !att.isAttached(this.offset + v));
    for (const v of candidates) {
      const other = v === a ? b : a;
      if (this.splitVertex(v, other, fan(v))) return true;
    }
    return false;
  }

  private splitVertex(v: number, other: number, fan: number[]): boolean {
    const store = this.world.store;
    const x = store.x;
    const gv = this.offset + v,
      go = this.offset + other;
    const dx = x[3 * go] - x[3 * gv],
      dy = x[3 * go + 1] - x[3 * gv + 1],
      dz = x[3 * go + 2] - x[3 * gv + 2];
    const tris = this.triangles;
    const stay: number[] = [],
      move: number[] = [];
    for (const t of fan) {
      let cx = 0,
        cy = 0,
        cz = 0;
      for (let k = 0; k < 3; k++) {
        const g = 3 * (this.offset + tris[3 * t + k]);
        cx += x[g];
        cy += x[g + 1];
        cz += x[g + 2];
      }
      const side = (cx / 3 - x[3 * gv]) * dx + (cy / 3 - x[3 * gv + 1]) * dy + (cz / 3 - x[3 * gv + 2]) * dz;
      (side >= 0 ? stay : move).push(t);
    }
    if (stay.length === 0 || move.length === 0) return false;
    const nv = this.active++;
    const gn = this.offset + nv;
    for (let k = 0; k < 3; k++) {
      x[3 * gn + k] = x[3 * gv + k];
      store.p[3 * gn + k] = store.p[3 * gv + k];
      store.v[3 * gn + k] = store.v[3 * gv + k];
      this.restPositions[3 * nv + k] = this.restPositions[3 * v + k];
    }
    if (this.uvs) {
      this.uvs[2 * nv] = this.uvs[2 * v];
      this.uvs[2 * nv + 1] = this.uvs[2 * v + 1];
    }
    for (const t of move) {
      for (let k = 0; k < 3; k++) if (tris[3 * t + k] === v) tris[3 * t + k] = nv;
    }
    return true;
  }

  /** Rebuilds masses and constraints after a topology change. */
  private rebuild(): void {
    const where = `cloth '${this.name}'`;
    this.assignMasses(where);
    const store = this.world.store;
    const { edges, quads } = this.topology();
    const rp = this.restPositions,
      off = this.offset;
    this.stretch.setConstraints(store, edges, restLengths(rp, edges, off));
    if (this.bend) {
      // rest angles from the rest positions: evaluate on a scratch copy of x
      const saved = store.x.slice(3 * off, 3 * (off + this.active));
      store.x.set(rp.subarray(0, 3 * this.active), 3 * off);
      this.bend.setConstraints(store, quads);
      store.x.set(saved, 3 * off);
    }
    if (this.bendLinks) {
      const pairs = oppositePairs(quads);
      this.bendLinks.setConstraints(store, pairs, restLengths(rp, pairs, off));
    }
    if (this.pressure) {
      this.pressure.setTriangles(store, this.globalTriangles(), this.pressure.restVolume);
    }
    updateStrainLimitSets(this.strainLimits, store, off, this.triangles, rp);
    this.longRange?.invalidate();
    this.topologyVersion++;
  }

  override saveState(): unknown {
    if (this.tearThreshold <= 1) return null;
    return {
      active: this.active,
      triangles: Array.from(this.triangles),
      rest: Array.from(this.restPositions.subarray(0, 3 * this.active)),
      uvs: this.uvs ? Array.from(this.uvs.subarray(0, 2 * this.active)) : null,
    };
  }

  override loadState(state: unknown): void {
    if (!state) return;
    const s = state as { active: number; triangles: number[]; rest: number[]; uvs: number[] | null };
    this.active = s.active;
    this.triangles = Uint32Array.from(s.triangles);
    this.restPositions.set(s.rest);
    if (this.uvs && s.uvs) this.uvs.set(s.uvs);
    this.rebuild();
  }

  override tunables(): Tunable[] {
    const t = [
      stiffnessTunable('stretch.stiffness', this.stretch.rule),
      complianceTunable('stretch.compliance', this.stretch.rule, 0, 1e-2),
    ];
    const bend = this.bend ?? this.bendLinks;
    if (bend)
      t.push(
        stiffnessTunable('bend.stiffness', bend.rule),
        complianceTunable('bend.compliance', bend.rule, 0, 10),
      );
    const pr = this.pressure;
    if (pr)
      t.push({ name: 'pressure', min: 0, max: 4, get: () => pr.pressure, set: (v) => (pr.pressure = v) });
    const d = this.damping;
    if (d) t.push({ name: 'globalDamping', min: 0, max: 1, get: () => d.k, set: (v) => (d.k = v) });
    return t;
  }
}

/** The bending options' constraint parameters without `model` (undefined: the model's defaults). */
function bendParams(o: ClothBendOptions | false | undefined): ConstraintParams | undefined {
  if (o === undefined || o === false) return undefined;
  const { model, ...params } = o;
  // `{ model }` alone: the model's defaults; `{}` stays the rule's defaults (stiffness 1, compliance 0)
  return model !== undefined && Object.keys(params).length === 0 ? undefined : params;
}

/** The two vertices opposite the shared edge of each bending quad (a, b, c, d): c, d per quad. */
function oppositePairs(quads: Uint32Array): Uint32Array {
  const n = quads.length / 4;
  const out = new Uint32Array(2 * n);
  for (let k = 0; k < n; k++) {
    out[2 * k] = quads[4 * k + 2];
    out[2 * k + 1] = quads[4 * k + 3];
  }
  return out;
}

/** The cloth's hooks into the step loop: wind (line 5) and tearing (after the velocity update). */
class ClothForces implements ConstraintSet {
  readonly kind = 'cloth-forces';
  readonly order = 0;
  readonly count = 0;
  /** Its projection moves nothing: a held kernel window stays held across it (ConstraintSet.sharesWindow). */
  readonly sharesWindow = true;
  /** Wind reads x and v; tearing runs after the step's last substep (ConstraintSet.skipsPredicted). */
  readonly skipsPredicted = true;
  enabled = true;
  private readonly cloth: Cloth;
  private readonly wind = new Float64Array(3);

  constructor(cloth: Cloth) {
    this.cloth = cloth;
  }

  /** Without wind its hooks move nothing before the step's last substep (ConstraintSet.leavesParticles). */
  leavesParticles(ctx: StepContext): boolean {
    return !ctx.world.wind && ctx.substep + 1 < ctx.substeps;
  }

  applyForces(ctx: StepContext): void {
    if (!ctx.world.wind) return;
    ctx.world.windAt(ctx.time, this.wind);
    this.cloth.applyWind(ctx, this.wind);
  }

  project(): void {}

  endStep(ctx: StepContext): void {
    // tearing is checked once per step, after its last substep: a rebuild per substep would cost
    // more than it gains, and an edge overstretched for a fraction of a frame still tears
    if (ctx.substep === ctx.substeps - 1) this.cloth.tear();
  }
}

/** The rest length of each pair (a, b) of `pairs` (world indices, offset `off`) in the rest positions rp. */
function restLengths(rp: Float64Array, pairs: ArrayLike<number>, off: number): Float64Array {
  const rl = new Float64Array(pairs.length / 2);
  for (let c = 0; c < rl.length; c++) {
    const a = 3 * (pairs[2 * c] - off),
      b = 3 * (pairs[2 * c + 1] - off);
    rl[c] = Math.hypot(rp[a] - rp[b], rp[a + 1] - rp[b + 1], rp[a + 2] - rp[b + 2]);
  }
  return rl;
}
