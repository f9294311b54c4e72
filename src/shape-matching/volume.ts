/**
 * Volume conservation for surface-only shape matching (Diziol, Bender,
 * Bayer 2011; survey 000 §4.5.1, seed 001 §4.5.1 eqs. 32–34).
 *
 * The enclosed volume by the divergence theorem (eq. 12):
 *   V(X) = (1/9) Σ_t A_t (x_t1 + x_t2 + x_t3)ᵀ n_t = (1/6) Σ_t (x_t1 × x_t2) · x_t3,
 * the constraint C = V(X) − V(X̄), and the weighted position correction
 * (eq. 13)
 *   Δx_i = − w_i C / (Σ_j w_j |∇_j C|²) ∇_i C,   ∇_i C = (1/3) Σ_{t ∋ i} A_t n_t.
 * (The survey calls the gradient an approximation; for a closed mesh it is
 * exact: the terms of (1/6) Σ x_t2 × x_t3 that differ cancel around each
 * vertex fan.)
 *
 * Weights: w_i = (1 − α) w_i^l + α w_i^g with w_i^l = |Δx_i| / Σ_j |Δx_j| (the
 * position change of the shape matching step: strongly deformed particles
 * take a larger share) and w_i^g = 1/n. The weights are smoothed by a
 * Laplacian filter over the mesh; pinned particles get weight zero.
 *
 * Colliding particles keep their weight. The survey sets it to zero "to
 * ensure that a collision constraint is not violated"; here the contact sets
 * are projected after every material set in each iteration (order ≥ 100), so
 * the collision constraints hold at the end of every iteration anyway, and a
 * zero weight there does harm together with the momentum correction below:
 * the net translation of a correction that leaves the contact patch out is
 * removed from the free particles only, which shifts the ring next to the
 * patch into the collider every projection; those particles then alternate
 * between colliding (weight 0) and free, and the contacts push them out with
 * velocity. That fed a body at rest on the ground (shape-matching-squeeze's
 * local-conservation sphere: 0.04–0.9 J from 5 s to 10 s; with the weights
 * kept 6·10⁻⁵ J at 10 s; docs/shape-matching.md).
 *
 * Velocity correction: after the velocity update, v_i −= w_i (dC/dt) /
 * (Σ_j w_j |∇_j C|²) ∇_i C with dC/dt = Σ_j ∇_j C · v_j, so the velocity field
 * does not change the volume (∂C/∂t = 0).
 *
 * Momentum: with non-uniform weights (local conservation, or particles in
 * contact held at zero) Σ_i m_i Δx_i ≠ 0, and a squeezed body would propel
 * itself. We remove that net translation from the particles that move
 * (w_i > 0), so each correction conserves linear momentum exactly; the
 * volume change this leaves is corrected by the next projection. (With
 * local weights and particles held in contact Σ_i m_i Δx_i ≠ 0 as well.)
 */

import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { PbdError } from '../core/errors.js';
import type { ParticleStore } from '../core/particles.js';
import type { World } from '../core/world.js';
import type { Adjacency } from './mesh-paths.js';
import type { RegionShapeMatching } from './region-shape-matching.js';

export interface VolumeOptions {
  /** α ∈ [0, 1]: 0 local, 1 global volume conservation. Default 1. */
  alpha?: number;
  /** Laplacian smoothing passes over the weights. Default 2. */
  smoothing?: number;
  /** Fraction of the volume error corrected per projection, ∈ (0, 1]. Default 1. */
  stiffness?: number;
  /** Project the velocities so that dV/dt = 0 after each substep. Default true. */
  velocityCorrection?: boolean;
}

export class SurfaceVolumeConservation implements ConstraintSet {
  readonly kind = 'surface-volume';
  readonly violationUnit = 'relative';
  readonly order = 0;
  enabled = true;
  readonly count = 1;
  readonly colors = 1;
  alpha: number;
  smoothing: number;
  stiffness: number;
  velocityCorrection: boolean;
  /** V(X̄) (m³). */
  readonly restVolume: number;
  /** Volume at the last projection (m³). */
  volume = 0;
  private readonly offset: number;
  private readonly n: number;
  private readonly triangles: Uint32Array;
  private readonly adj: Adjacency;
  private readonly matching: RegionShapeMatching;
  /** ∇_i V of the last evaluation (xyz per particle). */
  readonly grad: Float64Array;
  private readonly weight: Float64Array;
  private readonly tmp: Float64Array;

  constructor(
    world: World,
    offset: number,
    triangles: Uint32Array,
    adj: Adjacency,
    matching: RegionShapeMatching,
    o: VolumeOptions = {},
    where = 'surface body',
  ) {
    this.offset = offset;
    this.n = adj.start.length - 1;
    this.triangles = triangles;
    this.adj = adj;
    this.matching = matching;
    this.alpha = o.alpha ?? 1;
    this.smoothing = o.smoothing ?? 2;
    this.stiffness = o.stiffness ?? 1;
    this.velocityCorrection = o.velocityCorrection ?? true;
    if (!(this.alpha >= 0 && this.alpha <= 1)) {
      throw new PbdError(
        'volume/alpha',
        `${where}.volume.alpha`,
        `must lie in [0, 1], got ${this.alpha}`,
        '0 is local, 1 global volume conservation',
      );
    }
    if (!(this.stiffness > 0 && this.stiffness <= 1)) {
      throw new PbdError(
        'volume/stiffness',
        `${where}.volume.stiffness`,
        `must lie in (0, 1], got ${this.stiffness}`,
      );
    }
    if (!(Number.isInteger(this.smoothing) && this.smoothing >= 0)) {
      throw new PbdError(
        'volume/smoothing',
        `${where}.volume.smoothing`,
        `must be an integer ≥ 0, got ${this.smoothing}`,
      );
    }
    this.grad = new Float64Array(3 * this.n);
    this.weight = new Float64Array(this.n);
    this.tmp = new Float64Array(this.n);
    this.restVolume = this.gradient(world.store.x);
    this.volume = this.restVolume;
  }

  /** V(pos) (eq. 12) of the body's surface in the store-sized array pos, leaving ∇_i V in `grad`. */
  gradient(pos: Float64Array): number {
    const g = this.grad,
      t = this.triangles,
      off3 = 3 * this.offset;
    g.fill(0);
    let six = 0;
    for (let k = 0; k < t.length; k += 3) {
      const a = 3 * t[k],
        b = 3 * t[k + 1],
        c = 3 * t[k + 2];
      const ax = pos[off3 + a],
        ay = pos[off3 + a + 1],
        az = pos[off3 + a + 2];
      const bx = pos[off3 + b],
        by = pos[off3 + b + 1],
        bz = pos[off3 + b + 2];
      const cx = pos[off3 + c],
        cy = pos[off3 + c + 1],
        cz = pos[off3 + c + 2];
      // ∂/∂a of (a × b)·c = b × c, and cyclically
      const bcx = by * cz - bz * cy,
        bcy = bz * cx - bx * cz,
        bcz = bx * cy - by * cx;
      six += ax * bcx + ay * bcy + az * bcz;
      g[a] += bcx;
      g[a + 1] += bcy;
      g[a + 2] += bcz;
      g[b] += cy * az - cz * ay;
      g[b + 1] += cz * ax - cx * az;
      g[b + 2] += cx * ay - cy * ax;
      g[c] += ay * bz - az * by;
      g[c + 1] += az * bx - ax * bz;
      g[c + 2] += ax * by - ay * bx;
    }
    for (let k = 0; k < g.length; k++) g[k] /= 6;
    return six / 6;
  }

  /** The blended, smoothed weights w_i with pinned particles at zero; returns Σ w_j |∇_j C|². */
  private weights(ctx: StepContext): number {
    const n = this.n,
      w = this.weight,
      tmp = this.tmp;
    const d = this.matching.lastDelta;
    let sum = 0;
    for (let j = 0; j < n; j++) sum += d[j];
    const a = sum > 0 ? this.alpha : 1;
    const inv = sum > 0 ? 1 / sum : 0;
    for (let j = 0; j < n; j++) w[j] = (1 - a) * d[j] * inv + a / n;
    // Laplacian smoothing: w_i ← (w_i + mean of the neighbours) / 2
    const st = this.adj.start,
      nb = this.adj.neighbors;
    for (let s = 0; s < this.smoothing; s++) {
      for (let j = 0; j < n; j++) {
        let m = 0;
        for (let k = st[j]; k < st[j + 1]; k++) m += w[nb[k]];
        const deg = st[j + 1] - st[j];
        tmp[j] = deg > 0 ? 0.5 * (w[j] + m / deg) : w[j];
      }
      w.set(tmp);
    }
    const inv3 = ctx.store.invMass;
    const g = this.grad;
    let den = 0;
    for (let j = 0; j < n; j++) {
      if (inv3[this.offset + j] === 0) w[j] = 0;
      den += w[j] * (g[3 * j] * g[3 * j] + g[3 * j + 1] * g[3 * j + 1] + g[3 * j + 2] * g[3 * j + 2]);
    }
    return den;
  }

  project(ctx: StepContext): void {
    const p = ctx.store.p;
    const V = this.gradient(p);
    this.volume = V;
    const C = V - this.restVolume;
    const den = this.weights(ctx);
    if (!(den > 1e-300)) return;
    this.applyCorrection(p, (this.stiffness * C) / den, ctx.store.mass);
  }

  /** a_j −= s w_j ∇_j C for the particles with w_j > 0, minus the net (mass-weighted) translation. */
  private applyCorrection(a: Float64Array, s: number, mass: Float64Array): void {
    const w = this.weight,
      g = this.grad,
      off = this.offset,
      off3 = 3 * off;
    let M = 0,
      px = 0,
      py = 0,
      pz = 0;
    for (let j = 0; j < this.n; j++) {
      if (w[j] === 0) continue;
      const m = mass[off + j],
        f = s * w[j];
      M += m;
      px += m * f * g[3 * j];
      py += m * f * g[3 * j + 1];
      pz += m * f * g[3 * j + 2];
    }
    if (M === 0) return;
    px /= M;
    py /= M;
    pz /= M;
    for (let j = 0; j < this.n; j++) {
      const f = s * w[j];
      if (f === 0) continue;
      a[off3 + 3 * j] -= f * g[3 * j] - px;
      a[off3 + 3 * j + 1] -= f * g[3 * j + 1] - py;
      a[off3 + 3 * j + 2] -= f * g[3 * j + 2] - pz;
    }
  }

  endStep(ctx: StepContext): void {
    if (!this.velocityCorrection) return;
    const v = ctx.store.v;
    this.gradient(ctx.store.x);
    const den = this.weights(ctx);
    if (!(den > 1e-300)) return;
    const g = this.grad,
      off3 = 3 * this.offset;
    let dVdt = 0;
    for (let j = 0; j < this.n; j++) {
      dVdt +=
        g[3 * j] * v[off3 + 3 * j] + g[3 * j + 1] * v[off3 + 3 * j + 1] + g[3 * j + 2] * v[off3 + 3 * j + 2];
    }
    this.applyCorrection(v, dVdt / den, ctx.store.mass);
  }

  /** |V − V0| / V0 at the current positions. */
  maxViolation(store: ParticleStore): number {
    return Math.abs(this.gradient(store.x) - this.restVolume) / this.restVolume;
  }
}
