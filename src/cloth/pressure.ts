import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { PbdError } from '../core/errors.js';
import type { ParticleStore } from '../core/particles.js';
import { type ConstraintParams, ProjectionRule } from '../core/solver.js';

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
 */
export class PressureConstraint implements ConstraintSet {
  readonly kind = 'pressure';
  readonly violationUnit = 'm³';
  readonly order = 0;
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
  private lambda = 0;
  /** Volume at the last projection (m³). */
  volume = 0;

  /**
   * @param triangles three global particle indices per triangle, outward (counter-clockwise) winding
   */
  constructor(
    store: ParticleStore,
    triangles: ArrayLike<number>,
    pressure = 1,
    params: ConstraintParams = {},
    restVolume?: number,
  ) {
    this.rule = new ProjectionRule(params, 'pressure');
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
    this.rule.update(ctx.solver, ctx.h, ctx.passes);
    this.lambda = 0;
  }

  project(ctx: StepContext): void {
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
    let wG = 0;
    let gd = 0;
    const gamma = this.rule.gamma;
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
    if (!(denom > 1e-30)) return;
    const dl = (this.rule.kPrime * (-C - at * this.lambda - gamma * gd)) / denom;
    this.lambda += dl;
    for (let j = 0; j < v.length; j++) {
      const i = v[j];
      const s = (w[i] * dl) / 6;
      p[3 * i] += g[3 * j] * s;
      p[3 * i + 1] += g[3 * j + 1] * s;
      p[3 * i + 2] += g[3 * j + 2] * s;
    }
  }

  maxViolation(store: ParticleStore): number {
    return Math.abs(this.computeVolume(store.x) - this.pressure * this.restVolume);
  }
}
