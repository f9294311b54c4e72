import { type ColliderContacts, findColliderContacts } from '../collision/collider-contacts.js';
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { PbdError } from '../core/errors.js';
import type { ParticleStore } from '../core/particles.js';
import { type ConstraintParams, ProjectionRule } from '../core/solver.js';
import type { World } from '../core/world.js';

/**
 * The overpressure constraint of a closed mesh (003 §4.4, eqs. 14–15):
 *   C(p_1 … p_N) = V(p) − k_pressure V0,  V = (1/6) Σ_t (p_{t1} × p_{t2}) · p_{t3}
 * with ∇_{p_i} C = (1/6) Σ over the triangles containing i of the cross
 * product of the other two corners (in winding order). The paper writes the
 * sum without the 1/6; PBD's projection is invariant to that scale, and with
 * the 1/6 the XPBD compliance has the units of volume per pressure (m⁵/N).
 *
 * One constraint over every vertex of the mesh; V is translation invariant,
 * so the gradients sum to zero and the projection conserves momentum.
 *
 * Solved with the contacts: the constraint is projected once per iteration
 * right after the particle–collider contacts (order 101), and a vertex held
 * by a collider contact does not move into that collider — its correction
 * loses its component along the contact normal when it would cross the
 * surface (an active set, found in at most four passes, each recomputing
 * Δλ with the reduced gradients). The volume a plate squeezes out then goes
 * to the free surface instead of being taken back by the contacts: a
 * balloon squeezed to 57 % of its height stays within 0.1 % of k_pressure V0
 * (2.7 % short when the contacts had the last word). The collider then
 * takes up the reaction, as it takes up the contacts'.
 */
export class PressureConstraint implements ConstraintSet {
  readonly kind: string;
  readonly violationUnit = 'm³';
  readonly order = 101;
  enabled = true;
  readonly rule: ProjectionRule;
  readonly count = 1;
  readonly colors = 1;
  /** k_pressure: the target volume is k_pressure · V0. */
  pressure: number;
  /** Rest volume V0 (m³). */
  restVolume = 0;
  private vertices: Int32Array = new Int32Array(0);
  private local: Int32Array = new Int32Array(0);
  private grad: Float64Array = new Float64Array(0);
  /** Per vertex: 1 when a collider contact held it in this projection. */
  private held: Uint8Array = new Uint8Array(0);
  private lambda = 0;
  /** Volume at the last projection (m³). */
  volume = 0;

  /**
   * @param triangles three global particle indices per triangle, outward (counter-clockwise) winding
   */
  /**
   * True for a constraint that stands for internal ones (a soft body's total volume): what
   * held vertices leave of its correction is not the colliders' to take. False for a
   * balloon's gas pressure, which the colliders do hold back (without friction on it).
   */
  readonly conserveMomentum: boolean;
  /** The world whose collider contacts the projection respects (null: none). */
  private readonly world: World | null;
  private contacts: ColliderContacts | null = null;

  /**
   * @param triangles three global particle indices per triangle, outward (counter-clockwise) winding
   * @param world     the world whose collider contacts hold vertices (see the class comment)
   */
  constructor(
    store: ParticleStore,
    triangles: ArrayLike<number>,
    pressure = 1,
    params: ConstraintParams = {},
    restVolume?: number,
    world: World | null = null,
    kind = 'pressure',
    conserveMomentum = false,
  ) {
    this.kind = kind;
    this.conserveMomentum = conserveMomentum;
    this.world = world;
    this.rule = new ProjectionRule(params, kind);
    this.pressure = pressure;
    this.setTriangles(store, triangles, restVolume);
  }

  setTriangles(store: ParticleStore, triangles: ArrayLike<number>, restVolume?: number): void {
    const map = new Map<number, number>();
    const local = new Int32Array(triangles.length);
    for (let k = 0; k < triangles.length; k++) {
      let l = map.get(triangles[k]);
      if (l === undefined) {
        l = map.size;
        map.set(triangles[k], l);
      }
      local[k] = l;
    }
    this.vertices = Int32Array.from(map.keys());
    this.local = local;
    this.grad = new Float64Array(3 * map.size);
    this.held = new Uint8Array(map.size);
    this.restVolume = restVolume ?? this.computeVolume(store.x);
    if (!(this.restVolume > 0)) {
      throw new PbdError(
        'pressure/non-positive-volume',
        'pressure',
        `the mesh encloses volume ${this.restVolume}`,
        'a balloon needs a closed mesh with outward-facing (counter-clockwise) triangles',
      );
    }
  }

  /** Enclosed volume V of the mesh at positions `pos`. */
  computeVolume(pos: Float64Array): number {
    const v = this.vertices,
      l = this.local;
    let sum = 0;
    for (let k = 0; k < l.length; k += 3) {
      const a = 3 * v[l[k]],
        b = 3 * v[l[k + 1]],
        c = 3 * v[l[k + 2]];
      sum +=
        (pos[a + 1] * pos[b + 2] - pos[a + 2] * pos[b + 1]) * pos[c] +
        (pos[a + 2] * pos[b] - pos[a] * pos[b + 2]) * pos[c + 1] +
        (pos[a] * pos[b + 1] - pos[a + 1] * pos[b]) * pos[c + 2];
    }
    return sum / 6;
  }

  beginStep(ctx: StepContext): void {
    // projected once per iteration, after the collider contacts
    this.rule.update(ctx.solver, ctx.hSolve, ctx.iterations);
    this.lambda = 0;
    this.contacts = this.world ? findColliderContacts(this.world) : null;
  }

  /**
   * Removes, from the gradient of each vertex held by a collider contact,
   * the normal component that would carry it across the surface under the
   * multiplier step the current gradients give (an active set: up to four
   * passes). `num` is the numerator of Δλ.
   */
  private holdContacts(
    p: Float64Array,
    w: Float64Array,
    num: number,
    denomExtra: number,
    gamma: number,
  ): boolean {
    const co = this.contacts;
    if (co === null || co.count === 0) return false;
    const of = co.contactOf,
      cn = co.n,
      q = co.q;
    const v = this.vertices,
      g = this.grad;
    let held = false;
    for (let pass = 0; pass < 4; pass++) {
      let wG = 0;
      for (let j = 0; j < v.length; j++) {
        const gx = g[3 * j] / 6,
          gy = g[3 * j + 1] / 6,
          gz = g[3 * j + 2] / 6;
        wG += w[v[j]] * (gx * gx + gy * gy + gz * gz);
      }
      const denom = (1 + gamma) * wG + denomExtra;
      if (!(denom > 1e-30)) return held;
      const dl = num / denom;
      let changed = false;
      for (let j = 0; j < v.length; j++) {
        const i = v[j];
        const k = i < of.length ? of[i] : -1;
        if (k < 0 || w[i] === 0) continue;
        const nx = cn[3 * k],
          ny = cn[3 * k + 1],
          nz = cn[3 * k + 2];
        const d = g[3 * j] * nx + g[3 * j + 1] * ny + g[3 * j + 2] * nz;
        if (d === 0) continue;
        const i3 = 3 * i;
        const gap =
          (p[i3] - q[3 * k]) * nx + (p[i3 + 1] - q[3 * k + 1]) * ny + (p[i3 + 2] - q[3 * k + 2]) * nz;
        if (gap + (w[i] * d * dl) / 6 >= 0) continue;
        g[3 * j] -= d * nx;
        g[3 * j + 1] -= d * ny;
        g[3 * j + 2] -= d * nz;
        this.held[j] = 1;
        changed = true;
        held = true;
      }
      if (!changed) return held;
    }
    return held;
  }

  project(ctx: StepContext): void {
    // a hard constraint (α̃ = 0, k′ = 1) is projected onto its manifold: V is cubic in the
    // positions, and a large correction (a squeeze) leaves a quadratic residual after one step
    const hard = this.rule.alphaTilde === 0 && this.rule.kPrime === 1 && this.rule.gamma === 0;
    for (let newton = 0; newton < (hard ? 3 : 1); newton++) {
      const C = this.projectOnce(ctx);
      if (!(Math.abs(C) > 1e-9 * this.restVolume)) break;
    }
  }

  /** One projection; returns C before it. */
  private projectOnce(ctx: StepContext): number {
    const p = ctx.store.p,
      x = ctx.store.x,
      w = ctx.store.invMass;
    const v = this.vertices,
      l = this.local,
      g = this.grad;
    g.fill(0);
    let sum = 0;
    for (let k = 0; k < l.length; k += 3) {
      const la = 3 * l[k],
        lb = 3 * l[k + 1],
        lc = 3 * l[k + 2];
      const a = 3 * v[l[k]],
        b = 3 * v[l[k + 1]],
        c = 3 * v[l[k + 2]];
      const ax = p[a],
        ay = p[a + 1],
        az = p[a + 2];
      const bx = p[b],
        by = p[b + 1],
        bz = p[b + 2];
      const cx = p[c],
        cy = p[c + 1],
        cz = p[c + 2];
      // eq. 15: ∇_a += b × c, ∇_b += c × a, ∇_c += a × b
      const abx = ay * bz - az * by,
        aby = az * bx - ax * bz,
        abz = ax * by - ay * bx;
      sum += abx * cx + aby * cy + abz * cz;
      g[la] += by * cz - bz * cy;
      g[la + 1] += bz * cx - bx * cz;
      g[la + 2] += bx * cy - by * cx;
      g[lb] += cy * az - cz * ay;
      g[lb + 1] += cz * ax - cx * az;
      g[lb + 2] += cx * ay - cy * ax;
      g[lc] += abx;
      g[lc + 1] += aby;
      g[lc + 2] += abz;
    }
    this.volume = sum / 6;
    const C = this.volume - this.pressure * this.restVolume;
    const gamma = this.rule.gamma;
    this.held.fill(0);
    const held =
      gamma === 0 &&
      this.holdContacts(
        p,
        w,
        this.rule.kPrime * (-C - this.rule.alphaTilde * this.lambda),
        this.rule.alphaTilde,
        0,
      );
    let wG = 0;
    let gd = 0;
    for (let j = 0; j < v.length; j++) {
      const i = 3 * v[j];
      const gx = g[3 * j] / 6,
        gy = g[3 * j + 1] / 6,
        gz = g[3 * j + 2] / 6;
      wG += w[v[j]] * (gx * gx + gy * gy + gz * gz);
      if (gamma !== 0) gd += gx * (p[i] - x[i]) + gy * (p[i + 1] - x[i + 1]) + gz * (p[i + 2] - x[i + 2]);
    }
    const at = this.rule.alphaTilde;
    const denom = (1 + gamma) * wG + at;
    if (!(denom > 1e-30)) return 0;
    const dl = (this.rule.kPrime * (-C - at * this.lambda - gamma * gd)) / denom;
    this.lambda += dl;
    // with conserveMomentum, the net momentum Σ m Δp that held vertices leave is taken from the
    // others, so that the constraint supports nothing: the colliders' reaction stays with the
    // contacts and their friction
    let sx = 0,
      sy = 0,
      sz = 0;
    if (held && this.conserveMomentum) {
      const m = ctx.store.mass;
      let px = 0,
        py = 0,
        pz = 0,
        mFree = 0;
      for (let j = 0; j < v.length; j++) {
        const i = v[j];
        if (w[i] === 0) continue;
        px += g[3 * j];
        py += g[3 * j + 1];
        pz += g[3 * j + 2];
        if (this.held[j] === 0) mFree += m[i];
      }
      if (mFree > 0) {
        const f = dl / 6 / mFree;
        sx = px * f;
        sy = py * f;
        sz = pz * f;
      }
    }
    for (let j = 0; j < v.length; j++) {
      const i = v[j];
      const s = (w[i] * dl) / 6;
      const free = this.held[j] === 0 && w[i] !== 0 ? 1 : 0;
      p[3 * i] += g[3 * j] * s - free * sx;
      p[3 * i + 1] += g[3 * j + 1] * s - free * sy;
      p[3 * i + 2] += g[3 * j + 2] * s - free * sz;
    }
    return C;
  }

  maxViolation(store: ParticleStore): number {
    return Math.abs(this.computeVolume(store.x) - this.pressure * this.restVolume);
  }
}
