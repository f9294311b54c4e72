/**
 * Oriented particles (Müller & Chentanez 2011; survey 000 §4.4, seed 001
 * §4.4 eqs. 19–31).
 *
 * Each particle carries, besides x and v, a unit quaternion q, an angular
 * velocity ω, ellipsoid radii (a, b, c) and a rest orientation q̄. Its own
 * moment matrix (eq. 20, derived for a rest orientation R̄ ≠ I)
 *   A_i = ∫ ρ (R u)(R̄ u)ᵀ dV = R · (m/5) diag(a², b², c²) · R̄ᵀ
 * is added to the moment matrix of every shape-matching group it belongs
 * to (eq. 25):
 *   A = Σ_i (A_i + m_i (x_i − c)(x̄_i − c̄)ᵀ).
 * Since R is orthonormal, A_i has full rank, so A stays well conditioned
 * for one particle, for chains (collinear groups) and for sheets (coplanar
 * groups), where plain shape matching has a rank-deficient A and an
 * undetermined rotation.
 *
 * Groups: one per particle, holding it and its neighbours along the edges
 * of the (sparse) mesh. The solver runs through the groups Gauss–Seidel
 * style (coloured, reversed in the backward half of a symmetric sweep):
 * each group pulls its particles to its goal positions and replaces the
 * orientation of its centre particle by the optimal rotation, q_c = R q̄_c.
 *
 * Integration (eqs. 26–31) is the core's: q, q_p and ω live in the
 * particle store's orientation channels (ParticleStore.q, qp, omega), which
 * the World's orientation stages predict and update
 * (core/orientation-stages.ts):
 *   q_p ← [ω/|ω| sin(|ω|h/2), cos(|ω|h/2)] q   (q_p = q when |ω| < ε),
 *   ω ← axis(r) angle(r)/h with r = q_p q⁻¹, taking −r when r_w < 0 (the
 *   shorter of the two rotations), ω = 0 when angle(r) < ε; q ← q_p.
 * The body only places the orientations of pinned particles (beginStep).
 */
import { Body, type Tunable } from '../core/body.js';
import { colorVariableConstraints } from '../core/coloring.js';
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { PbdError, requirePositiveAs } from '../core/errors.js';
import type { ParticleStore } from '../core/particles.js';
import { ProjectionRule } from '../core/solver.js';
import type { World } from '../core/world.js';
import { grownArray } from '../math/arrays.js';
import { mat3FromQuat } from '../math/mat3.js';
import { quatMultiply, quatNormalize } from '../math/quat.js';
import { pullToGoal, regionCentre } from './goals.js';
import { optimalRotation, ruleTunables } from './region-shape-matching.js';
import { Skin } from './skinning.js';

export { ORIENTATION_EPSILON } from '../core/orientation-stages.js';

export interface OrientedParticlesOptions {
  name?: string;
  /** Rest (= initial) positions. */
  positions: Float64Array;
  /** Masses, or one mass for all. */
  masses: ArrayLike<number> | number;
  /** Ellipsoid radii: (a, b, c) per particle (3 numbers each), one (a, b, c) for all, or one radius for spheres. */
  radii: ArrayLike<number> | number;
  /** Rest orientations (x, y, z, w per particle); default identity. */
  orientations?: ArrayLike<number>;
  /** Pairs of body-local particle indices: particle i's group is i and its neighbours. */
  edges: ArrayLike<number>;
  /** PBD stiffness α ∈ [0, 1]. Default 1. */
  stiffness?: number;
  /** XPBD compliance (s²) of the pull to the goals, as in RegionShapeMatching. Default 0. */
  compliance?: number;
  /** Include the particles' own moment matrices A_i (eq. 25). `false` is plain shape matching. Default true. */
  particleMoments?: boolean;
  /** Collide the ellipsoids with the world's colliders. Default true. */
  collide?: boolean;
  /** Friction of the ellipsoid contacts. Default 0.5. */
  friction?: number;
  /** Drag (1/s) towards the world's wind velocity, e.g. a water current for plants. Default 0. */
  drag?: number;
  /** A render mesh (rest pose) skinned to the particles as bones (linear blend skinning). */
  skin?: { positions: Float64Array; triangles: Uint32Array; influences?: number };
  velocity?: [number, number, number];
}

export class OrientedParticles extends Body {
  readonly type = 'oriented-particles';
  /** Rest orientation q̄ (4 per particle). */
  readonly qRest: Float64Array;
  /** Ellipsoid radii a, b, c (3 per particle). */
  readonly radii: Float64Array;
  readonly restPositions: Float64Array;
  readonly matching: OrientedShapeMatching;
  readonly contacts: EllipsoidContacts | null;
  readonly skin: Skin | null;
  /** Per particle: the orientation each pinned particle keeps (its q at pin time). */
  private readonly pinnedOrientation: Float64Array;
  private readonly rotations: Float64Array;
  drag: number;

  constructor(world: World, o: OrientedParticlesOptions) {
    const where = o.name ? `oriented particles '${o.name}'` : 'oriented particles';
    const n = o.positions.length / 3;
    if (!(n >= 1) || !Number.isInteger(n)) throw new PbdError('oriented/empty', where, 'has no particles');
    super(world, o.name ?? '', n);
    const store = world.store;
    const off = this.offset;
    this.restPositions = Float64Array.from(o.positions);
    this.place(o.positions);
    this.radii = new Float64Array(3 * n);
    this.qRest = new Float64Array(4 * n);
    this.pinnedOrientation = new Float64Array(4 * n);
    this.rotations = new Float64Array(9 * n);
    this.drag = o.drag ?? 0;
    const radii = o.radii;
    if (typeof radii !== 'number' && radii.length !== 3 && radii.length !== 3 * n) {
      throw new PbdError(
        'oriented/radii',
        `${where}.radii`,
        `has ${radii.length} numbers for ${n} particles`,
        'give one radius, one (a, b, c) for all, or (a, b, c) per particle',
      );
    }
    if (typeof o.masses !== 'number' && o.masses.length !== n) {
      throw new PbdError(
        'oriented/masses',
        `${where}.masses`,
        `has ${o.masses.length} masses for ${n} particles`,
      );
    }
    for (let j = 0; j < n; j++) {
      const m = typeof o.masses === 'number' ? o.masses : o.masses[j];
      store.setMass(off + j, m);
      for (let k = 0; k < 3; k++) {
        const r = typeof radii === 'number' ? radii : radii.length === 3 ? radii[k] : radii[3 * j + k];
        requirePositiveAs(
          r,
          'a positive radius (m)',
          'oriented/radius',
          `${where}: particle ${j}`,
          'every ellipsoid radius must be > 0',
        );
        this.radii[3 * j + k] = r;
      }
      if (o.orientations) for (let k = 0; k < 4; k++) this.qRest[4 * j + k] = o.orientations[4 * j + k];
      else this.qRest[4 * j + 3] = 1;
      quatNormalize(this.qRest, 4 * j);
      store.radius[off + j] = Math.max(this.radii[3 * j], this.radii[3 * j + 1], this.radii[3 * j + 2]);
      // the world's sphere contacts would treat the ellipsoid as its bounding sphere: EllipsoidContacts handles colliders
      store.mask[off + j] = 0;
      if (o.velocity) store.v.set(o.velocity, 3 * (off + j));
    }
    store.addOrientations(off, n);
    store.q.set(this.qRest, 4 * off);
    store.qp.set(this.qRest, 4 * off);
    this.pinnedOrientation.set(this.qRest);
    this.matching = this.addSet(new OrientedShapeMatching(this, o, where));
    this.contacts = o.collide === false ? null : this.addSet(new EllipsoidContacts(this, o.friction ?? 0.5));
    this.skin = o.skin
      ? Skin.nearest(
          o.skin.positions,
          o.skin.triangles,
          this.restPositions,
          o.skin.influences ?? 4,
          store.float64(o.skin.positions.length),
        )
      : null;
  }

  /** Orientation q at the start of the substep (4 per particle): a view of the store's channel. */
  get q(): Float64Array {
    return this.world.store.q.subarray(4 * this.offset, 4 * (this.offset + this.count));
  }

  /** Predicted orientation q_p (4 per particle): a view of the store's channel. */
  get qp(): Float64Array {
    return this.world.store.qp.subarray(4 * this.offset, 4 * (this.offset + this.count));
  }

  /** Angular velocity ω (3 per particle, rad/s): a view of the store's channel. */
  get omega(): Float64Array {
    return this.world.store.omega.subarray(3 * this.offset, 3 * (this.offset + this.count));
  }

  /** Pins particle j (position and orientation) where it is. */
  pin(j: number): void {
    if (!(Number.isInteger(j) && j >= 0 && j < this.count)) {
      throw new PbdError('oriented/bad-particle', `body '${this.name}'`, `has no particle ${j}`);
    }
    this.world.attachments.attach(this.offset + j);
    const q = this.world.store.q;
    for (let k = 0; k < 4; k++) this.pinnedOrientation[4 * j + k] = q[4 * (this.offset + j) + k];
  }

  /**
   * Orientation a pinned particle must have at this substep: its pinned
   * orientation, turned by the rotation of the attachment's scripted motion.
   */
  pinnedTarget(j: number, out: Float64Array, oo: number): void {
    const att = this.world.attachments;
    const gi = this.offset + j;
    for (let e = 0; e < att.count; e++) {
      if (att.particle[e] !== gi) continue;
      const m = att.motions[e];
      if (m) {
        quatMultiply(out, oo, m.rotation, 0, this.pinnedOrientation, 4 * j);
        return;
      }
      break;
    }
    for (let k = 0; k < 4; k++) out[oo + k] = this.pinnedOrientation[4 * j + k];
  }

  /** Rotation from the rest pose to now of each particle, R(q) R(q̄)ᵀ (9 per particle). */
  particleRotations(): Float64Array {
    const R = this.rotations,
      t = tmpM;
    const q = this.world.store.q;
    for (let j = 0; j < this.count; j++) {
      mat3FromQuat(t, 0, q, 4 * (this.offset + j));
      mat3FromQuat(t, 9, this.qRest, 4 * j);
      for (let a = 0; a < 3; a++)
        for (let b = 0; b < 3; b++)
          R[9 * j + 3 * a + b] =
            t[3 * a] * t[9 + 3 * b] + t[3 * a + 1] * t[9 + 3 * b + 1] + t[3 * a + 2] * t[9 + 3 * b + 2];
    }
    return R;
  }

  /** The skin's triangles; none without a skin (the particles are drawn). */
  override renderTriangles(): Uint32Array {
    return this.skin ? this.skin.triangles : super.renderTriangles();
  }

  /**
   * The skinned render mesh brought up to date (linear blend skinning with
   * the particles as bones, 000 §4.4), or the particle positions.
   */
  override renderPositions(): Float64Array {
    const skin = this.skin;
    if (!skin) return this.positions();
    skin.update(this.world.store.x, this.offset, this.particleRotations());
    return skin.positions;
  }

  override get hasRenderMesh(): boolean {
    return this.skin !== null;
  }

  override tunables(): Tunable[] {
    const r = this.matching.rule;
    return [
      ...ruleTunables(r, 1),
      { name: 'drag', min: 0, max: 20, get: () => this.drag, set: (v) => (this.drag = v) },
    ];
  }
}

const tmpM = new Float64Array(18);

/** The shape-matching groups of oriented particles, with the orientation integration (see the file comment). */
export class OrientedShapeMatching implements ConstraintSet {
  readonly kind = 'oriented-shape-matching';
  readonly order = 0;
  enabled = true;
  readonly rule: ProjectionRule;
  readonly body: OrientedParticles;
  /** Include the particles' moment matrices (false: plain shape matching, for comparison). */
  particleMoments: boolean;
  /** Groups sorted by colour: centre particle, members (body-local) in groupMembers[groupStart[g] …). */
  readonly center: Int32Array;
  readonly groupStart: Int32Array;
  readonly groupMembers: Int32Array;
  readonly colorOffsets: Int32Array;
  readonly colors: number;
  /** Per group: total fit weight and rest centre c̄. */
  private readonly groupMass: Float64Array;
  /** Per particle: its mass, the weight in the fits. */
  private readonly fitMass: Float64Array;
  private readonly restCenter: Float64Array;
  /** Per particle: E_j = (m_j/5) diag(a², b², c²) R̄_jᵀ, so that A_j = R(q_j) E_j. */
  private readonly E: Float64Array;
  /** Per group: warm start of the rotation extraction. */
  private readonly groupRotation: Float64Array;
  /** XPBD multipliers per member entry (xyz, per unit mass). */
  private readonly lambda: Float64Array;
  private readonly A = new Float64Array(27);
  private readonly wind = new Float64Array(3);

  constructor(body: OrientedParticles, o: OrientedParticlesOptions, where: string) {
    this.body = body;
    this.rule = new ProjectionRule({ stiffness: o.stiffness ?? 1, compliance: o.compliance ?? 0 }, where);
    this.particleMoments = o.particleMoments ?? true;
    const n = body.count;
    const nb: number[][] = Array.from({ length: n }, () => []);
    for (let k = 0; k + 1 < o.edges.length; k += 2) {
      const a = o.edges[k],
        b = o.edges[k + 1];
      if (!(Number.isInteger(a) && Number.isInteger(b) && a >= 0 && b >= 0 && a < n && b < n) || a === b) {
        throw new PbdError(
          'oriented/bad-edge',
          `${where}.edges[${k / 2}]`,
          `joins ${a} and ${b}`,
          `use two distinct particles in 0…${n - 1}`,
        );
      }
      if (!nb[a].includes(b)) nb[a].push(b);
      if (!nb[b].includes(a)) nb[b].push(a);
    }
    const starts = [0],
      members: number[] = [];
    for (let j = 0; j < n; j++) {
      members.push(j, ...nb[j].sort((x, y) => x - y));
      starts.push(members.length);
    }
    const store = body.world.store;
    const global = members.map((j) => j + body.offset);
    const col = colorVariableConstraints(global, starts, n, store.count, store.invMass);
    // reorder the groups by colour
    const center = new Int32Array(n),
      gs = new Int32Array(n + 1);
    const gm: number[] = [];
    for (let k = 0; k < n; k++) {
      const g = col.order[k];
      center[k] = g;
      for (let m = starts[g]; m < starts[g + 1]; m++) gm.push(members[m]);
      gs[k + 1] = gm.length;
    }
    this.center = center;
    this.groupStart = gs;
    this.groupMembers = Int32Array.from(gm);
    this.colorOffsets = col.offsets;
    this.colors = col.colors;
    this.groupMass = new Float64Array(n);
    this.restCenter = new Float64Array(3 * n);
    this.fitMass = new Float64Array(n);
    this.E = new Float64Array(9 * n);
    this.precompute();
    this.groupRotation = new Float64Array(4 * n);
    for (let g = 0; g < n; g++) this.groupRotation[4 * g + 3] = 1;
    this.lambda = new Float64Array(3 * this.groupMembers.length);
  }

  get count(): number {
    return this.center.length;
  }

  /**
   * Fit weights (the masses), the groups' rest centres and the particles'
   * moment matrices E_j = (m_j/5) diag(a², b², c²) R̄_jᵀ.
   */
  private precompute(): void {
    const b = this.body;
    const n = b.count;
    const mass = b.world.store.mass;
    for (let j = 0; j < n; j++) this.fitMass[j] = mass[b.offset + j];
    const x = b.restPositions;
    const gs = this.groupStart;
    for (let g = 0; g < n; g++)
      this.groupMass[g] = regionCentre(
        x,
        0,
        this.groupMembers,
        gs[g],
        gs[g + 1],
        this.fitMass,
        this.restCenter,
        3 * g,
      );
    const Rb = this.A;
    for (let j = 0; j < n; j++) {
      mat3FromQuat(Rb, 0, b.qRest, 4 * j);
      const m = this.fitMass[j] / 5;
      for (let a = 0; a < 3; a++) {
        const d = m * b.radii[3 * j + a] ** 2;
        // row a of diag(d) R̄ᵀ is d_a × column a of R̄
        for (let c = 0; c < 3; c++) this.E[9 * j + 3 * a + c] = d * Rb[3 * c + a];
      }
    }
  }

  applyForces(ctx: StepContext): void {
    const b = this.body;
    if (!(b.drag > 0) || !ctx.world.wind) return;
    // drag towards the flow (a water current for plants and fins): v += (1 − e^{−k h}) (u − v)
    ctx.world.windAt(ctx.time, this.wind);
    const f = 1 - Math.exp(-b.drag * ctx.h);
    const v = ctx.store.v,
      w = ctx.store.invMass;
    for (let j = 0; j < b.count; j++) {
      const i = b.offset + j;
      if (w[i] === 0) continue;
      for (let k = 0; k < 3; k++) v[3 * i + k] += f * (this.wind[k] - v[3 * i + k]);
    }
  }

  /**
   * Resets the multipliers, and places the orientations of pinned particles
   * (the World's orientation stage held them): their pinned orientation,
   * turned by the attachment's scripted motion.
   */
  beginStep(ctx: StepContext): void {
    this.rule.update(ctx.solver, ctx.hSolve, ctx.passes);
    this.lambda.fill(0);
    const b = this.body;
    const qp = ctx.store.qp,
      w = ctx.store.invMass;
    for (let j = 0; j < b.count; j++) if (w[b.offset + j] === 0) b.pinnedTarget(j, qp, 4 * (b.offset + j));
  }

  project(ctx: StepContext): void {
    const nc = this.colors;
    if (ctx.reverse) {
      for (let c = nc - 1; c >= 0; c--)
        this.projectGroups(ctx, this.colorOffsets[c + 1] - 1, this.colorOffsets[c] - 1, -1);
    } else {
      for (let c = 0; c < nc; c++) this.projectGroups(ctx, this.colorOffsets[c], this.colorOffsets[c + 1], 1);
    }
  }

  projectColorRange(ctx: StepContext, _color: number, from: number, to: number): void {
    this.projectGroups(ctx, from, to, 1);
  }

  /** Projects groups from, from + step, … up to (not including) to. */
  private projectGroups(ctx: StepContext, from: number, to: number, step: number): void {
    const b = this.body;
    const store = ctx.store;
    const p = store.p,
      w = store.invMass;
    const mass = this.fitMass;
    const off = b.offset;
    const qp = store.qp,
      qRest = b.qRest;
    const x = b.restPositions;
    const gs = this.groupStart,
      gm = this.groupMembers,
      E = this.E,
      A = this.A;
    const kp = this.rule.kPrime,
      at = this.rule.alphaTilde;
    const scale = kp / (1 + at);
    const lam = this.lambda;
    const moments = this.particleMoments;
    for (let g = from; g !== to; g += step) {
      // c = Σ m x / M (goals.ts regionCentre's sum, with M of precompute()): written out here, because
      // V8 inlines at most 920 bytecode bytes into one function and mat3FromQuat ×2, optimalRotation
      // and pullToGoal take 880 of them; the call per group measured 1.2× this projection
      const M = this.groupMass[g];
      let cx = 0,
        cy = 0,
        cz = 0;
      for (let m = gs[g]; m < gs[g + 1]; m++) {
        const i3 = 3 * (off + gm[m]);
        const mi = mass[gm[m]];
        cx += mi * p[i3];
        cy += mi * p[i3 + 1];
        cz += mi * p[i3 + 2];
      }
      cx /= M;
      cy /= M;
      cz /= M;
      const bx = this.restCenter[3 * g],
        by = this.restCenter[3 * g + 1],
        bz = this.restCenter[3 * g + 2];
      for (let k = 0; k < 9; k++) A[k] = 0;
      for (let m = gs[g]; m < gs[g + 1]; m++) {
        const j = gm[m];
        const i3 = 3 * (off + j);
        const mi = mass[j];
        const rx = mi * (p[i3] - cx),
          ry = mi * (p[i3 + 1] - cy),
          rz = mi * (p[i3 + 2] - cz);
        const sx = x[3 * j] - bx,
          sy = x[3 * j + 1] - by,
          sz = x[3 * j + 2] - bz;
        // eq. 25: m (x − c)(x̄ − c̄)ᵀ …
        A[0] += rx * sx;
        A[1] += rx * sy;
        A[2] += rx * sz;
        A[3] += ry * sx;
        A[4] += ry * sy;
        A[5] += ry * sz;
        A[6] += rz * sx;
        A[7] += rz * sy;
        A[8] += rz * sz;
        if (moments) {
          // … + A_j = R(q_j) E_j
          mat3FromQuat(A, 18, qp, 4 * (off + j));
          const e = 9 * j;
          for (let r = 0; r < 3; r++) {
            const r0 = A[18 + 3 * r],
              r1 = A[18 + 3 * r + 1],
              r2 = A[18 + 3 * r + 2];
            A[3 * r] += r0 * E[e] + r1 * E[e + 3] + r2 * E[e + 6];
            A[3 * r + 1] += r0 * E[e + 1] + r1 * E[e + 4] + r2 * E[e + 7];
            A[3 * r + 2] += r0 * E[e + 2] + r1 * E[e + 5] + r2 * E[e + 8];
          }
        }
      }
      optimalRotation(A, 0, this.groupRotation, 4 * g, 20);
      mat3FromQuat(A, 9, this.groupRotation, 4 * g);
      // goal positions and the pull towards them
      for (let m = gs[g]; m < gs[g + 1]; m++) {
        const j = gm[m];
        const i = off + j;
        if (w[i] === 0) continue;
        const i3 = 3 * i;
        const sx = x[3 * j] - bx,
          sy = x[3 * j + 1] - by,
          sz = x[3 * j + 2] - bz;
        const gx = cx + A[9] * sx + A[10] * sy + A[11] * sz;
        const gy = cy + A[12] * sx + A[13] * sy + A[14] * sz;
        const gz = cz + A[15] * sx + A[16] * sy + A[17] * sz;
        pullToGoal(p, i3, lam, 3 * m, gx, gy, gz, scale, at);
      }
      // the centre particle takes the optimal rotation: q_c = R q̄_c
      const c = this.center[g];
      if (w[off + c] !== 0) {
        quatMultiply(qp, 4 * (off + c), this.groupRotation, 4 * g, qRest, 4 * c);
        quatNormalize(qp, 4 * (off + c));
      }
    }
  }

  saveState(): unknown {
    return { groupRotation: Array.from(this.groupRotation) };
  }

  loadState(state: unknown): void {
    this.groupRotation.set((state as { groupRotation: number[] }).groupRotation);
  }
}

/**
 * Ellipsoid–collider contacts of oriented particles (000 §4.4, Figure 19):
 * the collider's signed distance d and outward normal n at the particle
 * centre, and the ellipsoid's support extent along n, e(n) = √(nᵀ R D² Rᵀ n)
 * (D = diag(a, b, c)), give C = d − e(n) ≥ 0; the centre is pushed along n
 * (the tangent plane of the collider at the nearest point approximates its
 * surface, which is exact for planes). Friction removes the tangential
 * motion relative to the collider up to μ times the push.
 */
export class EllipsoidContacts implements ConstraintSet {
  readonly kind = 'ellipsoid-contact';
  readonly violationUnit = 'm';
  readonly order = 100;
  enabled = true;
  count = 0;
  friction: number;
  private readonly body: OrientedParticles;
  private particle = new Int32Array(64);
  private collider = new Int32Array(64);
  private normal = new Float64Array(192);
  private point = new Float64Array(192);
  private readonly nrm = new Float64Array(3);
  private readonly R = new Float64Array(9);

  constructor(body: OrientedParticles, friction: number) {
    this.body = body;
    this.friction = friction;
  }

  /** Support extent of ellipsoid j (orientation q_p) along the unit vector n. */
  extent(j: number, nx: number, ny: number, nz: number): number {
    const R = this.R;
    mat3FromQuat(R, 0, this.body.world.store.qp, 4 * (this.body.offset + j));
    // n in the particle frame: Rᵀ n
    const lx = R[0] * nx + R[3] * ny + R[6] * nz,
      ly = R[1] * nx + R[4] * ny + R[7] * nz,
      lz = R[2] * nx + R[5] * ny + R[8] * nz;
    const r = this.body.radii;
    return Math.sqrt((r[3 * j] * lx) ** 2 + (r[3 * j + 1] * ly) ** 2 + (r[3 * j + 2] * lz) ** 2);
  }

  beginStep(ctx: StepContext): void {
    this.count = 0;
    const b = this.body;
    const cols = ctx.world.colliders;
    const p = ctx.store.p,
      x = ctx.store.x,
      w = ctx.store.invMass;
    const nrm = this.nrm;
    for (let c = 0; c < cols.length; c++) {
      const col = cols[c];
      if (!col.enabled) continue;
      for (let j = 0; j < b.count; j++) {
        const i = b.offset + j;
        if (w[i] === 0) continue;
        const i3 = 3 * i;
        const rmax = ctx.store.radius[i];
        const move = Math.hypot(p[i3] - x[i3], p[i3 + 1] - x[i3 + 1], p[i3 + 2] - x[i3 + 2]);
        const d = col.distance(p[i3], p[i3 + 1], p[i3 + 2], nrm);
        if (d > rmax + col.margin + move) continue;
        if (this.count === this.particle.length) this.grow();
        const k = this.count++;
        this.particle[k] = j;
        this.collider[k] = c;
        for (let a = 0; a < 3; a++) {
          this.normal[3 * k + a] = nrm[a];
          this.point[3 * k + a] = p[i3 + a] - d * nrm[a];
        }
      }
    }
  }

  private grow(): void {
    const n = this.particle.length * 2;
    this.particle = grownArray(this.particle, n);
    this.collider = grownArray(this.collider, n);
    this.normal = grownArray(this.normal, 3 * n);
    this.point = grownArray(this.point, 3 * n);
  }

  project(ctx: StepContext): void {
    const b = this.body;
    const p = ctx.store.p,
      x = ctx.store.x;
    const cols = ctx.world.colliders;
    const h = ctx.h;
    for (let k = 0; k < this.count; k++) {
      const j = this.particle[k];
      const i3 = 3 * (b.offset + j);
      const nx = this.normal[3 * k],
        ny = this.normal[3 * k + 1],
        nz = this.normal[3 * k + 2];
      const col = cols[this.collider[k]];
      const e = this.extent(j, nx, ny, nz) + col.margin;
      const C = this.separation(p, i3, k) - e;
      if (C >= 0) continue;
      p[i3] -= C * nx;
      p[i3 + 1] -= C * ny;
      p[i3 + 2] -= C * nz;
      // friction: tangential displacement relative to the collider's motion over the substep
      const lv = col.linearVelocity;
      let tx = p[i3] - x[i3] - lv[0] * h,
        ty = p[i3 + 1] - x[i3 + 1] - lv[1] * h,
        tz = p[i3 + 2] - x[i3 + 2] - lv[2] * h;
      const tn = tx * nx + ty * ny + tz * nz;
      tx -= tn * nx;
      ty -= tn * ny;
      tz -= tn * nz;
      const tl = Math.sqrt(tx * tx + ty * ty + tz * tz);
      if (tl < 1e-15) continue;
      const f = Math.min(1, (this.friction * -C) / tl);
      p[i3] -= tx * f;
      p[i3 + 1] -= ty * f;
      p[i3 + 2] -= tz * f;
    }
  }

  /** (pos_i − c_k) · n_k: how far the particle at i3 of `pos` stands off contact k's plane. */
  private separation(pos: Float64Array, i3: number, k: number): number {
    return (
      (pos[i3] - this.point[3 * k]) * this.normal[3 * k] +
      (pos[i3 + 1] - this.point[3 * k + 1]) * this.normal[3 * k + 1] +
      (pos[i3 + 2] - this.point[3 * k + 2]) * this.normal[3 * k + 2]
    );
  }

  maxViolation(store: ParticleStore): number {
    const b = this.body;
    const x = store.x;
    let m = 0;
    for (let k = 0; k < this.count; k++) {
      const j = this.particle[k];
      const i3 = 3 * (b.offset + j);
      const C =
        this.separation(x, i3, k) -
        this.extent(j, this.normal[3 * k], this.normal[3 * k + 1], this.normal[3 * k + 2]);
      if (-C > m) m = -C;
    }
    return m;
  }
}
