/**
 * Region-based shape matching as a constraint set (survey 000 §4.1–4.3,
 * §4.5.2; seed 001 §4 eqs. 14–17).
 *
 * Every projection (line 9 of Algorithm 1, so it combines with every other
 * constraint of the world):
 *
 * 1. per particle j the values f_j = [m̃_j p_j, m̃_j p_j x̄_jᵀ] (eqs. 7–8,
 *    with the modified masses m̃_j = m_j / |ℜ_j| of Rivers & James);
 * 2. region sums by the body's RegionSummation (naive, FastLSM lattice,
 *    octree, mesh paths): c_r = Σ m̃ p / M̃_r and
 *    A_r = Σ m̃ p x̄ᵀ − M̃_r c_r c̄_rᵀ (eq. 8);
 * 3. the optimal rotation R_r of A_r (polar decomposition, src/math/polar.ts:
 *    the warm-started iteration of Müller et al. 2016, which always returns
 *    a rotation — also for one particle, collinear or coplanar regions, and
 *    singular or reflected A_r — and keeps the previous rotation about
 *    directions A_r says nothing about); with plasticity the rest shape is
 *    r̄ = S_p (x̄ − c̄), so A_r becomes A_r S_pᵀ (§4.5.2);
 * 4. the blended goal positions g_j = (1/|ℜ_j|) Σ_{r ∋ j} T_r [x̄_j; 1] with
 *    T_r = [R_r S_p, c_r − R_r S_p c̄_r] (§4.2), summed by the same
 *    structure (scatter);
 * 5. the move Δp_j = α (g_j − p_j) (§4.1).
 *
 * Stiffness. Under the world's PBD rule α is `stiffness` mapped to
 * k′ = 1 − (1 − α)^(1/n_s) like every PBD constraint. Under XPBD each particle
 * is held to its goal by the energy ½ (m_j / c) |p_j − g_j|² with
 * `compliance` c in s² (1/c is the squared angular frequency of the pull, so
 * the response does not depend on the particle masses): with the vector
 * multiplier λ̂_j per unit mass, Δλ̂ = (g − p − α̃ λ̂)/(1 + α̃), α̃ = c/h². One
 * kernel serves both (α̃ = 0 and k′ < 1 under PBD). Region energies add up
 * to exactly this blended form: ∂/∂p_j Σ_r Σ_{i∈ℜ_r} m̃_i |p_i − g_{r,i}|²/2 =
 * m_j (p_j − g_j).
 *
 * Momentum: every region's own goals satisfy Σ m̃ (g − p) = 0 and, because
 * R_r is optimal, Σ m̃ (p − c) × (g − p) = 0; summed over regions with the
 * modified masses this gives Σ m_j (g_j − p_j) = 0 and Σ m_j p_j × (g_j − p_j)
 * = 0, so each projection conserves linear and angular momentum.
 *
 * The projection is a Jacobi step over the regions (all goals from the
 * same positions), so ctx.reverse changes nothing.
 */
import { complianceTunable, stiffnessTunable, type Tunable } from '../core/body.js';
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { PbdError, requireAtLeast, requirePositiveAs } from '../core/errors.js';
import type { ParticleStore } from '../core/particles.js';
import { ProjectionRule } from '../core/solver.js';
import { invert3, mat3FromQuat, mul3, mul3Bt } from '../math/mat3.js';
import { extractRotation, polarDecomposition, quatFromMat3, spectralNorm3 } from '../math/polar.js';
import { svd3 } from '../math/svd3.js';
import { pullToGoal } from './goals.js';
import { membershipCounts, type RegionSummation } from './summation.js';

/** Plastic flow of the regions (000 §4.5.2, after Müller et al. 2005 / O'Brien et al. 2002). */
export interface PlasticityOptions {
  /** c_yield: plastic flow starts when ‖S − I‖₂ exceeds it. */
  yield: number;
  /** c_creep (1/s): the rate at which S_p absorbs the elastic deformation. */
  creep: number;
  /** c_max: bound on ‖S_p − I‖₂. */
  max: number;
}

export interface ShapeMatchingParams {
  /** PBD stiffness α ∈ [0, 1]: how far the particles move to their goals per projection. Default 1. */
  stiffness?: number;
  /** XPBD compliance c ≥ 0 (s²) of the pull to the goals; 0 is rigid. Default 0. */
  compliance?: number;
  /** Plastic deformation of the regions; omitted: purely elastic. */
  plasticity?: PlasticityOptions;
  /** Iterations of the rotation extraction per projection (warm-started; it stops early once converged). Default 20. */
  rotationIterations?: number;
}

const STRIDE = 12;

export class RegionShapeMatching implements ConstraintSet {
  readonly kind = 'shape-matching';
  readonly violationUnit = 'm';
  readonly order = 0;
  enabled = true;
  readonly rule: ProjectionRule;
  readonly summation: RegionSummation;
  /** First particle of the body in the store and number of particles. */
  readonly offset: number;
  readonly n: number;
  /** Rest positions x̄_j (body-local order, xyz). */
  readonly rest: Float64Array;
  /** Modified masses m̃_j = m_j / |ℜ_j| and 1/|ℜ_j|. */
  readonly modifiedMass: Float64Array;
  readonly invCount: Float64Array;
  /** Per region: M̃_r, c̄_r − ō (3), Σ m̃ r̄ r̄ᵀ at rest (9). */
  readonly regionMass: Float64Array;
  readonly restCenter: Float64Array;
  readonly restMoment: Float64Array;
  /** Per region: the rotation of the last projection (quaternion x, y, z, w; warm start of the next). */
  readonly rotation: Float64Array;
  /** Per region: T_r = R_r S_p of the last projection (row-major 3×3), for skinning and plots. */
  readonly transform: Float64Array;
  /** Per region: the plastic deformation S_p (row-major 3×3), or null. */
  readonly plastic: Float64Array | null;
  plasticity: PlasticityOptions | null;
  rotationIterations: number;
  /** |Δp_j| of the last projection (the local weights of volume conservation, §4.5.1). */
  readonly lastDelta: Float64Array;
  /** Per-particle multipliers λ̂ (xyz, per unit mass) of the XPBD rule, reset every substep. */
  readonly lambda: Float64Array;
  /** Reference point ō subtracted from rest positions (and the current first particle from p) to keep sums small. */
  private readonly restOrigin = new Float64Array(3);
  /** Rest positions minus ō (x̄_j − ō), computed once: the r̄ of every step's sums and goals. */
  private readonly restRelative: Float64Array;
  private readonly f: Float64Array;
  private readonly g: Float64Array;
  private readonly h: Float64Array;
  private readonly k: Float64Array;
  private readonly tmp = new Float64Array(36);

  /**
   * @param offset  first particle of the body in the store
   * @param rest    rest positions of the body's particles (xyz)
   * @param masses  particle masses m_j (the store's masses at build time when omitted)
   */
  constructor(
    store: ParticleStore,
    offset: number,
    rest: Float64Array,
    summation: RegionSummation,
    params: ShapeMatchingParams = {},
    masses?: ArrayLike<number>,
    where = 'shape matching',
  ) {
    const n = rest.length / 3;
    if (summation.particles !== n) {
      throw new PbdError(
        'shape-matching/size',
        where,
        `the regions cover ${summation.particles} particles but the body has ${n}`,
      );
    }
    this.rule = new ProjectionRule(
      { stiffness: params.stiffness ?? 1, compliance: params.compliance ?? 0 },
      where,
    );
    this.summation = summation;
    this.offset = offset;
    this.n = n;
    this.rest = Float64Array.from(rest);
    this.restOrigin.set(rest.subarray(0, 3));
    this.restRelative = new Float64Array(3 * n);
    for (let k = 0; k < 3 * n; k++) this.restRelative[k] = rest[k] - rest[k % 3];
    const counts = membershipCounts(summation);
    this.modifiedMass = new Float64Array(n);
    this.invCount = new Float64Array(n);
    for (let j = 0; j < n; j++) {
      const m = masses ? masses[j] : store.mass[offset + j];
      requirePositiveAs(
        m,
        'a positive mass (kg)',
        'shape-matching/mass',
        `${where}: particle ${j}`,
        'give every particle a positive finite mass',
      );
      if (!(counts[j] > 0)) {
        throw new PbdError(
          'shape-matching/orphan',
          `${where}: particle ${j}`,
          'belongs to no region, so nothing pulls it to a goal',
          'make the regions cover every particle',
        );
      }
      this.modifiedMass[j] = m / counts[j];
      this.invCount[j] = 1 / counts[j];
    }
    const nr = summation.regions;
    this.regionMass = new Float64Array(nr);
    this.restCenter = new Float64Array(3 * nr);
    this.restMoment = new Float64Array(9 * nr);
    this.rotation = new Float64Array(4 * nr);
    this.transform = new Float64Array(9 * nr);
    for (let r = 0; r < nr; r++) {
      this.rotation[4 * r + 3] = 1;
      this.transform[9 * r] = this.transform[9 * r + 4] = this.transform[9 * r + 8] = 1;
    }
    this.f = new Float64Array(STRIDE * n);
    this.k = new Float64Array(STRIDE * n);
    this.g = new Float64Array(STRIDE * nr);
    this.h = new Float64Array(STRIDE * nr);
    this.lastDelta = new Float64Array(n);
    this.lambda = new Float64Array(3 * n);
    this.rotationIterations = params.rotationIterations ?? 20;
    this.precomputeRest();
    this.plasticity = params.plasticity ?? null;
    if (this.plasticity) validatePlasticity(this.plasticity, where);
    this.plastic = this.plasticity ? new Float64Array(9 * nr) : null;
    if (this.plastic)
      for (let r = 0; r < nr; r++)
        this.plastic[9 * r] = this.plastic[9 * r + 4] = this.plastic[9 * r + 8] = 1;
  }

  get count(): number {
    return this.summation.regions;
  }

  readonly colors = 1;

  /** M̃_r, c̄_r and Σ m̃ r̄ r̄ᵀ of every region (rest quantities, via the summation itself). */
  private precomputeRest(): void {
    const n = this.n,
      nr = this.summation.regions;
    const f = this.f,
      g = this.g;
    const rr = this.restRelative,
      mt = this.modifiedMass;
    // [m̃, m̃ x̄ (3), m̃ x̄ x̄ᵀ (9)] minus the origin: stride 13 would not fit; do it in two passes
    for (let j = 0; j < n; j++) {
      const m = mt[j];
      const rx = rr[3 * j],
        ry = rr[3 * j + 1],
        rz = rr[3 * j + 2];
      const b = STRIDE * j;
      f[b] = m * rx;
      f[b + 1] = m * ry;
      f[b + 2] = m * rz;
      f[b + 3] = m * rx * rx;
      f[b + 4] = m * rx * ry;
      f[b + 5] = m * rx * rz;
      f[b + 6] = m * ry * rx;
      f[b + 7] = m * ry * ry;
      f[b + 8] = m * ry * rz;
      f[b + 9] = m * rz * rx;
      f[b + 10] = m * rz * ry;
      f[b + 11] = m * rz * rz;
    }
    this.summation.gather(f, g, STRIDE);
    const ones = new Float64Array(n);
    for (let j = 0; j < n; j++) ones[j] = mt[j];
    this.summation.gather(ones, this.regionMass, 1);
    for (let r = 0; r < nr; r++) {
      const M = this.regionMass[r];
      const b = STRIDE * r;
      const cx = g[b] / M,
        cy = g[b + 1] / M,
        cz = g[b + 2] / M;
      this.restCenter[3 * r] = cx;
      this.restCenter[3 * r + 1] = cy;
      this.restCenter[3 * r + 2] = cz;
      const c = [cx, cy, cz];
      for (let a = 0; a < 3; a++)
        for (let d = 0; d < 3; d++)
          this.restMoment[9 * r + 3 * a + d] = g[b + 3 + 3 * a + d] - M * c[a] * c[d];
    }
  }

  /** Rest centre c̄_r of region r in world units (into out[0..2]). */
  restCenterOf(r: number, out: Float64Array): void {
    for (let k = 0; k < 3; k++) out[k] = this.restCenter[3 * r + k] + this.restOrigin[k];
  }

  beginStep(ctx: StepContext): void {
    this.rule.update(ctx.solver, ctx.hSolve, ctx.passes);
    this.lambda.fill(0);
  }

  /**
   * f_j = [m̃_j p_j, m̃_j p_j x̄_jᵀ] (eqs. 7–8) for the positions `pos` (store
   * sized), into `f`; both relative to reference points (the first particle,
   * and ō for the rest positions) so that the sums stay small.
   */
  private particleValues(pos: Float64Array): void {
    const f = this.f,
      rr = this.restRelative,
      mt = this.modifiedMass;
    const off3 = 3 * this.offset;
    const ox = pos[off3],
      oy = pos[off3 + 1],
      oz = pos[off3 + 2];
    for (let j = 0; j < this.n; j++) {
      const m = mt[j];
      const j3 = off3 + 3 * j;
      const px = (pos[j3] - ox) * m,
        py = (pos[j3 + 1] - oy) * m,
        pz = (pos[j3 + 2] - oz) * m;
      const rx = rr[3 * j],
        ry = rr[3 * j + 1],
        rz = rr[3 * j + 2];
      const b = STRIDE * j;
      f[b] = px;
      f[b + 1] = py;
      f[b + 2] = pz;
      f[b + 3] = px * rx;
      f[b + 4] = px * ry;
      f[b + 5] = px * rz;
      f[b + 6] = py * rx;
      f[b + 7] = py * ry;
      f[b + 8] = py * rz;
      f[b + 9] = pz * rx;
      f[b + 10] = pz * ry;
      f[b + 11] = pz * rz;
    }
  }

  /**
   * Goal positions g_j (absolute, xyz into `goals`) of every particle for the
   * positions `pos` (the store's p or x). Leaves R_r and T_r in `rotation`
   * and `transform`.
   */
  computeGoals(pos: Float64Array, goals: Float64Array): void {
    const n = this.n,
      nr = this.summation.regions;
    const off3 = 3 * this.offset;
    const g = this.g,
      hv = this.h,
      kv = this.k;
    const rr = this.restRelative;
    // the current reference point: the first particle
    const ox = pos[off3],
      oy = pos[off3 + 1],
      oz = pos[off3 + 2];
    this.particleValues(pos);
    this.summation.gather(this.f, g, STRIDE);
    const A = this.tmp;
    const rot = this.rotation,
      tr = this.transform,
      rc = this.restCenter,
      RM = this.regionMass;
    const Sp = this.plastic;
    const iters = this.rotationIterations;
    for (let r = 0; r < nr; r++) {
      const b = STRIDE * r;
      const M = RM[r];
      const cx = g[b] / M,
        cy = g[b + 1] / M,
        cz = g[b + 2] / M;
      const bx = rc[3 * r],
        by = rc[3 * r + 1],
        bz = rc[3 * r + 2];
      // eq. 8: A_r = Σ m̃ p x̄ᵀ − M̃ c c̄ᵀ
      A[0] = g[b + 3] - M * cx * bx;
      A[1] = g[b + 4] - M * cx * by;
      A[2] = g[b + 5] - M * cx * bz;
      A[3] = g[b + 6] - M * cy * bx;
      A[4] = g[b + 7] - M * cy * by;
      A[5] = g[b + 8] - M * cy * bz;
      A[6] = g[b + 9] - M * cz * bx;
      A[7] = g[b + 10] - M * cz * by;
      A[8] = g[b + 11] - M * cz * bz;
      if (Sp) {
        // §4.5.2: r̄ = S_p (x̄ − c̄) ⇒ A_r ← A_r S_pᵀ
        const s = 9 * r;
        for (let i = 0; i < 3; i++) {
          const a0 = A[3 * i],
            a1 = A[3 * i + 1],
            a2 = A[3 * i + 2];
          A[9 + 3 * i] = a0 * Sp[s] + a1 * Sp[s + 1] + a2 * Sp[s + 2];
          A[9 + 3 * i + 1] = a0 * Sp[s + 3] + a1 * Sp[s + 4] + a2 * Sp[s + 5];
          A[9 + 3 * i + 2] = a0 * Sp[s + 6] + a1 * Sp[s + 7] + a2 * Sp[s + 8];
        }
        optimalRotation(A, 9, rot, 4 * r, iters);
      } else {
        optimalRotation(A, 0, rot, 4 * r, iters);
      }
      // T_r = R_r (S_p)
      const t = 9 * r;
      if (Sp) {
        mat3FromQuat(A, 18, rot, 4 * r);
        for (let i = 0; i < 3; i++)
          for (let c = 0; c < 3; c++)
            tr[t + 3 * i + c] =
              A[18 + 3 * i] * Sp[t + c] +
              A[18 + 3 * i + 1] * Sp[t + 3 + c] +
              A[18 + 3 * i + 2] * Sp[t + 6 + c];
      } else {
        mat3FromQuat(tr, t, rot, 4 * r);
      }
      // h_r = [t_r, T_r] with t_r = c − T c̄ (both relative to the reference points)
      hv[b] = cx - (tr[t] * bx + tr[t + 1] * by + tr[t + 2] * bz);
      hv[b + 1] = cy - (tr[t + 3] * bx + tr[t + 4] * by + tr[t + 5] * bz);
      hv[b + 2] = cz - (tr[t + 6] * bx + tr[t + 7] * by + tr[t + 8] * bz);
      for (let k = 0; k < 9; k++) hv[b + 3 + k] = tr[t + k];
    }
    this.summation.scatter(hv, kv, STRIDE);
    const ic = this.invCount;
    for (let j = 0; j < n; j++) {
      const b = STRIDE * j;
      const rx = rr[3 * j],
        ry = rr[3 * j + 1],
        rz = rr[3 * j + 2];
      const s = ic[j];
      goals[3 * j] = ox + s * (kv[b] + kv[b + 3] * rx + kv[b + 4] * ry + kv[b + 5] * rz);
      goals[3 * j + 1] = oy + s * (kv[b + 1] + kv[b + 6] * rx + kv[b + 7] * ry + kv[b + 8] * rz);
      goals[3 * j + 2] = oz + s * (kv[b + 2] + kv[b + 9] * rx + kv[b + 10] * ry + kv[b + 11] * rz);
    }
  }

  project(ctx: StepContext): void {
    const store = ctx.store;
    const p = store.p,
      w = store.invMass;
    const gl = this.goalBuffer();
    this.computeGoals(p, gl);
    applyGoals(p, w, this.offset, this.n, gl, this.lambda, this.rule, this.lastDelta);
  }

  private goalStore: Float64Array | null = null;
  private saved: Float64Array | null = null;
  private violationGoals: Float64Array | null = null;
  private goalBuffer(): Float64Array {
    if (!this.goalStore) this.goalStore = new Float64Array(3 * this.n);
    return this.goalStore;
  }

  /** Goals of the last projection (absolute positions, xyz per particle). */
  get goals(): Float64Array {
    return this.goalBuffer();
  }

  /** Plastic flow (§4.5.2), once per substep after the velocity update. */
  endStep(ctx: StepContext): void {
    const pl = this.plasticity,
      Sp = this.plastic;
    if (!pl || !Sp) return;
    const x = ctx.store.x;
    // A_r0 = Σ m̃ x (x̄ − c̄)ᵀ for every region, from the gathered sums
    const nr = this.summation.regions;
    const g = this.g;
    this.particleValues(x);
    this.summation.gather(this.f, g, STRIDE);
    const T = this.tmp; // 0: A_r0, 9: A_pq, 18: A_qq, 27: scratch
    const Ainv = plasticScratch;
    for (let r = 0; r < nr; r++) {
      const b = STRIDE * r,
        s = 9 * r;
      const M = this.regionMass[r];
      const rc = this.restCenter;
      for (let i = 0; i < 3; i++) {
        const ci = g[b + i] / M;
        for (let d = 0; d < 3; d++) T[3 * i + d] = g[b + 3 + 3 * i + d] - M * ci * rc[3 * r + d];
      }
      // A_pq = A_r0 S_pᵀ, A_qq = S_p Q0 S_pᵀ, A = A_pq A_qq⁻¹ (Müller et al. 2005: the linear fit, dimensionless)
      mul3Bt(T, 9, T, 0, Sp, s);
      mul3(T, 27, Sp, s, this.restMoment, s);
      mul3Bt(T, 18, T, 27, Sp, s);
      if (!invert3(Ainv, 0, T, 18, 1e-12)) continue;
      mul3(T, 27, T, 9, Ainv, 0);
      // A = U Σ Vᵀ = R S with R = U Vᵀ, S = V Σ Vᵀ, so ‖S − I‖₂ = max_k |σ_k − 1|
      svd3(T, 27, svdU, 0, svdS, 0, svdV, 0);
      const dev = Math.max(Math.abs(svdS[0] - 1), Math.abs(svdS[1] - 1), Math.abs(svdS[2] - 1));
      // ‖S − I‖₂ > c_yield ⇒ S_p ← [I + h c_creep (S − I)] S_p
      if (!(dev > pl.yield)) continue;
      for (let i = 0; i < 3; i++)
        for (let j = 0; j < 3; j++) {
          let v = 0;
          for (let k = 0; k < 3; k++) v += svdV[3 * i + k] * (svdS[k] - 1) * svdV[3 * j + k];
          Ainv[27 + 3 * i + j] = v;
        }
      const hc = ctx.h * pl.creep;
      for (let k = 0; k < 9; k++) Ainv[k] = (k % 4 === 0 ? 1 : 0) + hc * Ainv[27 + k];
      mul3(Ainv, 9, Ainv, 0, Sp, s);
      // volume preservation: S_p / ∛det S_p
      const det =
        Ainv[9] * (Ainv[13] * Ainv[17] - Ainv[14] * Ainv[16]) -
        Ainv[10] * (Ainv[12] * Ainv[17] - Ainv[14] * Ainv[15]) +
        Ainv[11] * (Ainv[12] * Ainv[16] - Ainv[13] * Ainv[15]);
      if (!(det > 1e-6)) continue;
      const inv = 1 / Math.cbrt(det);
      for (let k = 0; k < 9; k++) Ainv[9 + k] *= inv;
      // ‖S_p − I‖₂ ≤ c_max
      for (let k = 0; k < 9; k++) Ainv[27 + k] = Ainv[9 + k] - (k % 4 === 0 ? 1 : 0);
      const norm = spectralNorm3(Ainv, 27);
      if (norm > pl.max) {
        const f2 = pl.max / norm;
        for (let k = 0; k < 9; k++) Ainv[9 + k] = (k % 4 === 0 ? 1 : 0) + f2 * Ainv[27 + k];
      }
      for (let k = 0; k < 9; k++) Sp[s + k] = Ainv[9 + k];
    }
  }

  /** Largest distance |x_j − g_j| of a particle from its goal at the current positions (m). */
  maxViolation(store: ParticleStore): number {
    if (!this.violationGoals) this.violationGoals = new Float64Array(3 * this.n);
    const gl = this.violationGoals;
    // statistics must not disturb the simulation: keep the warm starts and transforms
    if (!this.saved) this.saved = new Float64Array(this.rotation.length + this.transform.length);
    this.saved.set(this.rotation, 0);
    this.saved.set(this.transform, this.rotation.length);
    this.computeGoals(store.x, gl);
    this.rotation.set(this.saved.subarray(0, this.rotation.length));
    this.transform.set(this.saved.subarray(this.rotation.length));
    let m = 0;
    const x = store.x,
      off3 = 3 * this.offset;
    for (let j = 0; j < this.n; j++) {
      const d = Math.hypot(
        x[off3 + 3 * j] - gl[3 * j],
        x[off3 + 3 * j + 1] - gl[3 * j + 1],
        x[off3 + 3 * j + 2] - gl[3 * j + 2],
      );
      if (d > m) m = d;
    }
    return m;
  }

  saveState(): unknown {
    return { rotation: Array.from(this.rotation), plastic: this.plastic ? Array.from(this.plastic) : null };
  }

  loadState(state: unknown): void {
    const s = state as { rotation: number[]; plastic: number[] | null };
    this.rotation.set(s.rotation);
    if (this.plastic && s.plastic) this.plastic.set(s.plastic);
  }
}

const plasticScratch = new Float64Array(36);

/** The gallery's controls of a shape-matching set's rule: PBD stiffness and XPBD compliance (0 … maxCompliance s²). */
export function ruleTunables(r: ProjectionRule, maxCompliance: number): Tunable[] {
  return [stiffnessTunable('stiffness', r), complianceTunable('compliance', r, 0, maxCompliance)];
}

/**
 * The pull of particles [offset, offset + n) towards their goals with the
 * world's rule (one kernel for PBD and XPBD): Δ = k′ (g − p − α̃ λ̂)/(1 + α̃),
 * λ̂ += Δ (per unit mass). Particles of inverse mass 0 stay. When `delta` is
 * given it receives |Δ| per particle.
 */
export function applyGoals(
  p: Float64Array,
  invMass: Float64Array,
  offset: number,
  n: number,
  goals: Float64Array,
  lambda: Float64Array,
  rule: ProjectionRule,
  delta: Float64Array | null,
): void {
  const at = rule.alphaTilde;
  const scale = rule.kPrime / (1 + at);
  for (let j = 0; j < n; j++) {
    const i = offset + j;
    if (invMass[i] === 0) {
      if (delta) delta[j] = 0;
      continue;
    }
    const i3 = 3 * i,
      j3 = 3 * j;
    const d2 = pullToGoal(p, i3, lambda, j3, goals[j3], goals[j3 + 1], goals[j3 + 2], scale, at);
    if (delta) delta[j] = Math.sqrt(d2);
  }
}
const polarR = new Float64Array(9);
const svdU = new Float64Array(9);
const svdV = new Float64Array(9);
const svdS = new Float64Array(3);

/**
 * The rotational part of A (at ao) into the quaternion q (at qo): Müller et
 * al.'s iteration warm-started from q, and — when it has not converged
 * within `iterations` (a large rotation within one projection) — the exact
 * polar decomposition through the SVD.
 */
export function optimalRotation(
  A: Float64Array,
  ao: number,
  q: Float64Array,
  qo: number,
  iterations: number,
): void {
  if (extractRotation(A, ao, q, qo, iterations) < iterations) return;
  polarDecomposition(A, ao, polarR, 0);
  quatFromMat3(q, qo, polarR, 0);
}

export function validatePlasticity(p: PlasticityOptions, where: string): void {
  for (const k of ['yield', 'creep', 'max'] as const) {
    requireAtLeast(
      p[k],
      0,
      'shape-matching/plasticity',
      `${where}.plasticity.${k}`,
      'c_yield and c_max bound ‖S − I‖₂ (dimensionless), c_creep is a rate (1/s)',
    );
  }
}
