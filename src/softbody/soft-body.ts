import { PressureConstraint } from '../cloth/pressure.js';
import { DistanceConstraints } from '../constraints/distance.js';
import { HierarchicalSolver, type HierarchyOptions } from '../constraints/hierarchy.js';
import { TetVolumeConstraints, tetVolume } from '../constraints/volume.js';
import { EmbeddedBody } from '../continuum/embedded-body.js';
import { type EmbeddingMode, RenderEmbedding } from '../continuum/embedding.js';
import type { MaterialOptions } from '../continuum/material.js';
import { type PlasticityOptions, TetFemConstraints } from '../continuum/tet-fem.js';
import type { Attachments } from '../core/attachments.js';
import { complianceTunable, stiffnessTunable, type Tunable } from '../core/body.js';
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { RigidModeDamping } from '../core/damping.js';
import { bodyDensity, PbdError } from '../core/errors.js';
import type { ConstraintParams } from '../core/solver.js';
import type { World } from '../core/world.js';
import { polarDecomposition } from '../math/polar.js';
import type { TriangleMesh } from '../mesh/triangle-mesh.js';
import { type TetMesh, tetEdges, tetSurface, validateTetMesh } from './tet-mesh.js';

/**
 * Where a soft body starts: at rest, or deformed as in 002 Figure 6
 * (flattened, mirrored), or scrambled (every vertex at a random point of the
 * rest bounding box, as in Irving et al.'s invertible elements).
 */
export type InitialState = 'rest' | 'flattened' | 'mirrored' | 'scrambled';

export interface SoftBodyOptions {
  /** The tetrahedral mesh in world space (its rest shape). Validated and oriented. */
  mesh: TetMesh;
  name?: string;
  /** Density ρ (kg/m³); each vertex gets ρV/4 of each of its tets. Default 1000. */
  density?: number;
  /**
   * 'fem' (default): energy constraints C = E per tet (002 §3–4).
   * 'geometric': distance constraints on the edges and volume constraints on the tets (000 §3.4.4).
   */
  model?: 'fem' | 'geometric';
  /** Material of the 'fem' model. Default StVK, k = 1e5 Pa, ν = 0.3. */
  material?: MaterialOptions;
  /** 'fem': PBD stiffness k ∈ [0, 1] (default 1) and XPBD damping β (s, default 0). */
  stiffness?: number;
  damping?: number;
  /** 'fem' + StVK: plasticity (002 §4.2). */
  plasticity?: PlasticityOptions;
  /** 'geometric': edge distance and tet volume constraint parameters. */
  edges?: ConstraintParams;
  volume?: ConstraintParams;
  /**
   * 'geometric' with hard tet volumes (compliance 0, stiffness 1): also hold the
   * body's total volume as one constraint solved with the collider contacts, so
   * that a body squeezed by a plate keeps its volume (docs/continuum.md, "Volume
   * under load"). Default: true exactly when the tet volumes are hard (the
   * default); false leaves it out. With soft tet volumes it is an error.
   */
  totalVolume?: boolean;
  /** A high-resolution render mesh in world space at rest, embedded in the tets or attached to the surface (002 §5). */
  render?: { mesh: TriangleMesh; embed?: EmbeddingMode };
  /**
   * Start deformed: 'flattened' (every y set to the lowest y) or 'mirrored' (reflected in x), 002 Figure 6;
   * 'scrambled': every vertex at a random point of the rest bounding box (see `deform`).
   */
  initial?: InitialState;
  /** Rigid-mode damping (003 §3.5), k ∈ [0, 1]. */
  globalDamping?: number;
  /**
   * The hierarchical solver (Müller 2008, HPBD) on the tet mesh's edges:
   * coarse levels whose unilateral distance constraints carry corrections
   * across the body, one V-cycle per iteration (docs/solver.md). For stiff
   * bodies (hard edges, stiff FEM): the coarse levels stop stretch beyond the
   * rest distances. Default off.
   */
  hierarchy?: boolean | HierarchyOptions;
  /** Contact radius of each vertex (m). Default 0. */
  radius?: number;
  group?: number;
  mask?: number;
}

/**
 * A volumetric soft body: a tet mesh whose vertices are particles, driven by
 * FEM energy constraints (002) or by geometric edge + volume constraints
 * (000 §3.4.4). Renders its tet boundary, or an embedded render mesh.
 */
export class SoftBody extends EmbeddedBody {
  readonly type = 'softbody';
  /** Tets in body-local vertex indices (positively oriented at rest). */
  readonly tets: Uint32Array;
  /** Boundary triangles of the tet mesh, body-local, outward. */
  readonly surface: Uint32Array;
  /** Rest positions, body-local. */
  readonly restPositions: Float64Array;
  readonly fem: TetFemConstraints | null;
  readonly edges: DistanceConstraints | null;
  /** The hierarchical solver's coarse levels, or null (SoftBodyOptions.hierarchy). */
  readonly hierarchy: HierarchicalSolver | null;
  readonly volume: TetVolumeConstraints | null;
  /** 'geometric' with hard tet volumes: the total volume, solved with the contacts (see the constructor). */
  readonly bodyVolume: PressureConstraint | null = null;
  readonly damping: RigidModeDamping | null;
  readonly embedding: RenderEmbedding | null;
  readonly density: number;

  constructor(world: World, o: SoftBodyOptions) {
    const where = o.name ? `softbody '${o.name}'` : 'softbody';
    const mesh = validateTetMesh(o.mesh, `${where}.mesh`);
    const nv = mesh.positions.length / 3;
    super(world, o.name ?? '', nv);
    this.density = bodyDensity(o.density, 1000, 'kg/m³', 'softbody', where, 'rubber is about 1100 kg/m³');
    this.tets = mesh.tets;
    this.restPositions = mesh.positions;
    this.surface = tetSurface(mesh);
    const store = world.store;
    const off = this.offset;
    this.place(mesh.positions);
    for (let i = 0; i < nv; i++) {
      store.radius[off + i] = o.radius ?? 0;
      if (o.group !== undefined) store.group[off + i] = o.group;
      if (o.mask !== undefined) store.mask[off + i] = o.mask;
    }
    // lumped masses: ρV/4 per tet corner
    const m = new Float64Array(nv);
    const t = this.tets;
    for (let k = 0; k < t.length; k += 4) {
      const vol = tetVolume(mesh.positions, t[k], t[k + 1], t[k + 2], t[k + 3]);
      for (let j = 0; j < 4; j++) m[t[k + j]] += (this.density * vol) / 4;
    }
    for (let i = 0; i < nv; i++) store.setMass(off + i, m[i]);

    const global = new Uint32Array(t.length);
    for (let k = 0; k < t.length; k++) global[k] = t[k] + off;
    const model = o.model ?? 'fem';
    if (model !== 'fem' && model !== 'geometric') {
      throw new PbdError(
        'softbody/model',
        `${where}.model`,
        `unknown model '${model}'`,
        "use 'fem' or 'geometric'",
      );
    }
    if (model === 'fem') {
      this.fem = this.addSet(
        new TetFemConstraints(store, global, {
          material: o.material ?? { youngsModulus: 1e5, poissonRatio: 0.3 },
          stiffness: o.stiffness,
          damping: o.damping,
          plasticity: o.plasticity,
          where: `${where}.fem`,
        }),
      );
      this.edges = null;
      this.volume = null;
    } else {
      const e = tetEdges(t);
      for (let k = 0; k < e.length; k++) e[k] += off;
      this.edges = this.addSet(
        new DistanceConstraints(store, e, undefined, o.edges ?? {}, { kind: 'softbody-edge' }),
      );
      this.volume = this.addSet(new TetVolumeConstraints(store, global, o.volume ?? {}));
      this.fem = null;
      // hard tet volumes imply a constant total volume: that one constraint over the surface,
      // projected after the contacts and holding contact vertices (PressureConstraint, k = 1),
      // carries the volume a collider squeezes out to the free surface in the same iteration,
      // which the tets alone pass on one layer per sweep (a coarse correction, 004's hierarchy)
      const vol = o.volume ?? {};
      const hardVolumes = (vol.compliance ?? 0) === 0 && (vol.stiffness ?? 1) === 1;
      if (o.totalVolume ?? hardVolumes) {
        if (!hardVolumes) {
          throw new PbdError(
            'softbody/total-volume',
            `${where}.totalVolume`,
            'holds the total volume of hard tet volumes, but volume.compliance is not 0 or volume.stiffness not 1',
            'make the tet volumes hard (compliance 0, stiffness 1) or leave totalVolume out',
          );
        }
        const surf = new Uint32Array(this.surface.length);
        for (let k = 0; k < surf.length; k++) surf[k] = this.surface[k] + off;
        this.bodyVolume = this.addSet(
          new PressureConstraint(store, surf, 1, {}, undefined, world, 'body-volume', true),
        );
      }
    }
    if (o.hierarchy) {
      const e = tetEdges(t);
      for (let k = 0; k < e.length; k++) e[k] += off;
      const options = o.hierarchy === true ? {} : o.hierarchy;
      this.hierarchy = this.addSet(
        new HierarchicalSolver(store, off, nv, e, this.restPositions, options, `${where}.hierarchy`),
      );
    } else this.hierarchy = null;
    this.damping = o.globalDamping ? this.addSet(new RigidModeDamping(off, nv, o.globalDamping)) : null;
    this.embedding = o.render
      ? (o.render.embed ?? 'tets') === 'tets'
        ? RenderEmbedding.inTets(
            o.render.mesh,
            mesh.positions,
            t,
            store.float64(o.render.mesh.positions.length),
          )
        : RenderEmbedding.onSurface(
            o.render.mesh,
            mesh.positions,
            this.surface,
            store.float64(o.render.mesh.positions.length),
          )
      : null;
    // start deformed (002 Figure 6): after the rest data is built
    const init = o.initial ?? 'rest';
    if (init !== 'rest') this.deform(init);
  }

  /**
   * Moves the body into a deformed start (rest data unchanged): the flattened
   * or mirrored state of 002 Figure 6, or a scrambled one — every vertex at a
   * uniformly random point of the rest bounding box, drawn by a xorshift32
   * stream from `seed` (deterministic).
   */
  deform(state: InitialState, seed = 1): void {
    const x = this.world.store.x,
      p = this.world.store.p;
    const r = this.restPositions;
    const off = this.offset,
      n = this.count;
    const lo = [Infinity, Infinity, Infinity],
      hi = [-Infinity, -Infinity, -Infinity];
    let cx = 0;
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < 3; k++) {
        lo[k] = Math.min(lo[k], r[3 * i + k]);
        hi[k] = Math.max(hi[k], r[3 * i + k]);
      }
      cx += r[3 * i] / n;
    }
    let s = (Math.trunc(seed) ^ 0x9e3779b9) >>> 0 || 1;
    for (let i = 0; i < n; i++) {
      const g = 3 * (off + i);
      x[g] = r[3 * i];
      x[g + 1] = r[3 * i + 1];
      x[g + 2] = r[3 * i + 2];
      if (state === 'flattened') x[g + 1] = lo[1];
      else if (state === 'mirrored') x[g] = 2 * cx - x[g];
      else if (state === 'scrambled') {
        for (let k = 0; k < 3; k++) {
          s ^= s << 13;
          s ^= s >>> 17;
          s ^= s << 5;
          x[g + k] = lo[k] + ((s >>> 0) / 4294967296) * (hi[k] - lo[k]);
        }
      }
      p[g] = x[g];
      p[g + 1] = x[g + 1];
      p[g + 2] = x[g + 2];
    }
  }

  override restShape(): Float64Array {
    return this.restPositions;
  }

  protected override ownTriangles(): Uint32Array {
    return this.surface;
  }

  /** The tet mesh's boundary, whatever is drawn. */
  override contactTriangles(): Uint32Array {
    return this.surface;
  }

  /** Releases the given pinned vertices (body-local) at simulated time `time`. */
  releaseAt(time: number, vertices: number[]): void {
    this.addSet(
      new TimedRelease(
        time,
        vertices.map((v) => v + this.offset),
        this.world.attachments,
      ),
    );
  }

  /** Total volume of the tets at the current positions (m³). */
  currentVolume(): number {
    let v = 0;
    for (let k = 0; k < this.tets.length; k += 4) v += this.tetVolumeAt(k);
    return v;
  }

  /** Signed volume of the tet at tets[k … k + 3] at the current positions. */
  private tetVolumeAt(k: number): number {
    const t = this.tets,
      off = this.offset;
    return tetVolume(this.world.store.x, off + t[k], off + t[k + 1], off + t[k + 2], off + t[k + 3]);
  }

  /**
   * How far the body is from its rest shape, whatever its position and
   * orientation: the vertices' distances to the rest shape after the best
   * rigid fit (a proper rotation and a translation, the Kabsch solution
   * through the signed SVD — a mirrored body does not fit), as the root mean
   * square and the largest over the vertices, relative to the rest bounding
   * box's diagonal (the body's size).
   */
  shapeError(): { rms: number; max: number } {
    const x = this.world.store.x,
      r = this.restPositions;
    const off = this.offset,
      n = this.count;
    const cx = [0, 0, 0],
      cr = [0, 0, 0],
      lo = [Infinity, Infinity, Infinity],
      hi = [-Infinity, -Infinity, -Infinity];
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < 3; k++) {
        cx[k] += x[3 * (off + i) + k] / n;
        cr[k] += r[3 * i + k] / n;
        lo[k] = Math.min(lo[k], r[3 * i + k]);
        hi[k] = Math.max(hi[k], r[3 * i + k]);
      }
    }
    // A = Σ (x − c_x)(X − c_X)ᵀ; its rotational part maps the rest shape onto the current one
    const A = new Float64Array(9),
      R = new Float64Array(9);
    for (let i = 0; i < n; i++) {
      for (let a = 0; a < 3; a++) {
        const d = x[3 * (off + i) + a] - cx[a];
        for (let b = 0; b < 3; b++) A[3 * a + b] += d * (r[3 * i + b] - cr[b]);
      }
    }
    polarDecomposition(A, 0, R, 0);
    let sum = 0,
      max = 0;
    for (let i = 0; i < n; i++) {
      const q0 = r[3 * i] - cr[0],
        q1 = r[3 * i + 1] - cr[1],
        q2 = r[3 * i + 2] - cr[2];
      let d2 = 0;
      for (let a = 0; a < 3; a++) {
        const e = R[3 * a] * q0 + R[3 * a + 1] * q1 + R[3 * a + 2] * q2 + cx[a] - x[3 * (off + i) + a];
        d2 += e * e;
      }
      sum += d2;
      if (d2 > max) max = d2;
    }
    const size = Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
    if (!(size > 0) || n === 0) return { rms: 0, max: 0 };
    return { rms: Math.sqrt(sum / n) / size, max: Math.sqrt(max) / size };
  }

  /** Number of tets with non-positive volume at the current positions. */
  invertedTets(): number {
    let n = 0;
    for (let k = 0; k < this.tets.length; k += 4) if (!(this.tetVolumeAt(k) > 0)) n++;
    return n;
  }

  override saveState(): unknown {
    return null;
  }

  override tunables(): Tunable[] {
    const out: Tunable[] = [];
    const fem = this.fem;
    if (fem) {
      out.push(
        {
          name: 'youngsModulus',
          min: 1e3,
          max: 1e8,
          log: true,
          get: () => fem.material.youngsModulus,
          set: (v) => fem.setMaterial(v, fem.material.poissonRatio),
        },
        {
          name: 'poissonRatio',
          min: 0,
          max: 0.49,
          get: () => fem.material.poissonRatio,
          set: (v) => fem.setMaterial(fem.material.youngsModulus, v),
        },
        stiffnessTunable('fem.stiffness', fem.rule),
      );
    }
    const e = this.edges,
      vol = this.volume;
    if (e && vol) {
      out.push(
        complianceTunable('edges.compliance', e.rule, 0, 1e-2),
        complianceTunable('volume.compliance', vol.rule, 0, 1e-2),
        stiffnessTunable('edges.stiffness', e.rule),
        stiffnessTunable('volume.stiffness', vol.rule),
      );
    }
    const d = this.damping;
    if (d) out.push({ name: 'globalDamping', min: 0, max: 1, get: () => d.k, set: (v) => (d.k = v) });
    return out;
  }
}

/** Detaches a list of particles once the simulated time reaches `time`. */
class TimedRelease implements ConstraintSet {
  readonly kind = 'timed-release';
  readonly order = -20;
  readonly count = 0;
  enabled = true;
  private done = false;
  constructor(
    private readonly time: number,
    private readonly particles: number[],
    private readonly attachments: Attachments,
  ) {}
  project(): void {}
  endStep(ctx: StepContext): void {
    if (this.done || ctx.time < this.time - 1e-12) return;
    this.done = true;
    for (const i of this.particles) if (this.attachments.isAttached(i)) this.attachments.detach(i);
  }
  saveState(): unknown {
    return this.done;
  }
  loadState(state: unknown): void {
    this.done = state === true;
  }
}
