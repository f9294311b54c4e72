import { colorConstraints, permuteRecords } from '../core/coloring.js';
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { PbdError } from '../core/errors.js';
import type { ParticleStore } from '../core/particles.js';
import { ProjectionRule } from '../core/solver.js';
import { wasmKernel, worthPairing } from '../wasm/kernels.js';
import { tetEnergy, tetGreenStrain, tetRestShape, tetStress } from './energy.js';
import { type MaterialOptions, type ResolvedMaterial, resolveMaterial } from './material.js';
import { TetFemWasm } from './tet-fem-wasm.js';

/**
 * Energy densities below PSI_TOLERANCE · μ (strains below about 1e-7) are
 * treated as zero: at rest the energy is round-off, and projecting C = E on
 * round-off would move particles in random directions.
 */
export const PSI_TOLERANCE = 1e-14;

/** Largest Frobenius norm of the plastic strain, whatever γ_max (see TetFemConstraints.endStep). */
export const PLASTIC_STRAIN_LIMIT = 0.5;

/** Plasticity of 002 §4.2 (after Müller and Gross / O'Brien et al.). */
export interface PlasticityOptions {
  /** γ_yield: plastic flow starts when the Frobenius norm of the deviatoric elastic strain exceeds it. */
  yield: number;
  /** γ_creep (1/s): rate at which the plastic strain absorbs the deviatoric elastic strain. */
  creep: number;
  /** γ_max: largest Frobenius norm of the plastic strain. */
  max: number;
}

export interface TetFemOptions {
  material: MaterialOptions;
  /** PBD stiffness k ∈ [0, 1] (scales each correction, 003 §3.3). Default 1. */
  stiffness?: number;
  /** XPBD constraint damping β ≥ 0 (s). Default 0. */
  damping?: number;
  /** Elastoplasticity (StVK only). */
  plasticity?: PlasticityOptions;
  /** Name for messages. */
  where?: string;
}

/**
 * Energy constraints C = E on tetrahedra (002 §3, §4.2): the strain energy
 * E = V Ψ(F) of each element is driven toward zero by the position-based
 * solver, ∇C = V P(F) D_m⁻ᵀ (eq. 9).
 *
 * Projection rules: under PBD the constraint is C = E exactly as in the
 * paper (eq. 3, scaled by k′). Under XPBD it is C = √(2E) with compliance
 * α = 1, so the XPBD potential ½ C²/α is the strain energy itself and the
 * step approximates implicit Euler on the FEM model — Young's modulus then
 * has its physical meaning. Both come from the same kernel:
 * s = 1/√(2E·m + 1 − m), C = (1 + m) E s, ∇C = s ∇E, with m = 1 under
 * XPBD and 0 under PBD.
 *
 * Inverted and degenerate elements (002 §4.2): elements whose singular
 * values all exceed the clamp use closed forms; the others are evaluated
 * through the SVD with the reflection on the smallest singular value and
 * the clamped stress of Figure 2 (energy.ts).
 */
export class TetFemConstraints implements ConstraintSet {
  readonly kind = 'fem-tet';
  readonly order = 0;
  enabled = true;
  readonly rule: ProjectionRule;
  readonly material: ResolvedMaterial;
  /** Four particle indices per tet, sorted by colour. */
  indices: Int32Array;
  /** D_m⁻¹ per tet (9, row-major). */
  restShape: Float64Array;
  /** Rest volume per tet. */
  volume: Float64Array;
  lambda: Float64Array;
  colorOffsets: Int32Array;
  readonly count: number;
  readonly colors: number;
  /** Plastic Green strain per tet (xx, yy, zz, xy, xz, yz), when plastic. */
  readonly plastic: Float64Array | null;
  plasticity: PlasticityOptions | null;
  /**
   * 'auto' projects elements without plasticity or damping with the
   * WebAssembly SIMD kernel when the engine has one (tet-fem-wasm.ts; the
   * numbers are bit-identical to the JavaScript kernel's), 'js' always with
   * the JavaScript kernel.
   */
  backend: 'auto' | 'js' = 'auto';
  private wasm: TetFemWasm | null = null;
  private m = 0;
  private readonly g = new Float64Array(12);
  private readonly fs = new Float64Array(9);
  private readonly ps = new Float64Array(9);
  private readonly strain = new Float64Array(6);

  /**
   * @param tets four global particle indices per tet, positively oriented in `rest`
   *   ((p1 − p0) × (p2 − p0) · (p3 − p0) > 0, as validateTetMesh returns them)
   * @param rest rest positions indexed by global particle index (default: store.x)
   */
  constructor(
    store: ParticleStore,
    tets: ArrayLike<number>,
    options: TetFemOptions,
    rest?: ArrayLike<number>,
  ) {
    const where = options.where ?? 'fem';
    this.material = resolveMaterial(options.material, `${where}.material`);
    this.rule = new ProjectionRule(
      { stiffness: options.stiffness ?? 1, compliance: 1, damping: options.damping ?? 0 },
      where,
    );
    if (options.plasticity) {
      if (this.material.model !== 'stvk') {
        throw new PbdError(
          'fem/plastic-model',
          `${where}.plasticity`,
          "plasticity needs the 'stvk' material (002 §4.2 decomposes the Green strain additively)",
          "set material.model to 'stvk'",
        );
      }
      const pl = options.plasticity;
      for (const k of ['yield', 'creep', 'max'] as const) {
        if (!(pl[k] >= 0) || !Number.isFinite(pl[k])) {
          throw new PbdError(
            'fem/plasticity',
            `${where}.plasticity.${k}`,
            `must be a finite number ≥ 0, got ${pl[k]}`,
          );
        }
      }
    }
    this.plasticity = options.plasticity ?? null;
    const n = tets.length / 4;
    const X = rest ?? store.x;
    // (p0, p1, p2, p3) positively oriented ((p1 − p0) × (p2 − p0) · (p3 − p0) > 0) is
    // (p1, p2, p3, p0) in the D_m = [X0 − X3, X1 − X3, X2 − X3] convention of eq. 9
    const idx = new Int32Array(4 * n);
    for (let t = 0; t < n; t++) {
      idx[4 * t] = tets[4 * t + 1];
      idx[4 * t + 1] = tets[4 * t + 2];
      idx[4 * t + 2] = tets[4 * t + 3];
      idx[4 * t + 3] = tets[4 * t];
    }
    const B = new Float64Array(9 * n);
    const vol = new Float64Array(n);
    for (let t = 0; t < n; t++) {
      for (let k = 0; k < 4; k++) {
        const i = idx[4 * t + k];
        if (!(i >= 0 && i < store.count)) {
          throw new PbdError(
            'fem/bad-index',
            `${where}: tet ${t}`,
            `refers to particle ${i}, which does not exist`,
          );
        }
      }
      const v = tetRestShape(X, idx[4 * t], idx[4 * t + 1], idx[4 * t + 2], idx[4 * t + 3], B, 9 * t);
      if (!(v > 0)) {
        throw new PbdError(
          v === 0 ? 'fem/degenerate-tet' : 'fem/inverted-tet',
          `${where}: tet ${t}`,
          v === 0 ? 'has zero rest volume' : `has negative rest volume ${v}`,
          'validate the mesh with validateTetMesh, which orients tets and names bad ones',
        );
      }
      vol[t] = v;
    }
    const col = colorConstraints(idx, 4, n, store.count);
    this.indices = permuteRecords(idx, 4, col.order);
    this.restShape = permuteRecords(B, 9, col.order);
    this.volume = permuteRecords(vol, 1, col.order);
    this.lambda = new Float64Array(n);
    this.colorOffsets = col.offsets;
    this.colors = col.colors;
    this.count = n;
    this.plastic = this.plasticity ? new Float64Array(6 * n) : null;
  }

  beginStep(ctx: StepContext): void {
    this.rule.update(ctx.solver, ctx.h, ctx.passes);
    this.m = ctx.solver === 'xpbd' ? 1 : 0;
    this.lambda.fill(0);
  }

  project(ctx: StepContext): void {
    const store = ctx.store;
    const wasm = this.wasmKernel();
    if (wasm !== null) {
      const { mu, lambda, clamp } = this.material;
      const r = this.rule;
      wasm.project(
        this,
        store,
        ctx.reverse,
        r.kPrime,
        r.alphaTilde,
        this.m,
        mu,
        lambda,
        clamp * clamp,
        PSI_TOLERANCE * mu,
        this.material.model === 'neo-hookean',
      );
      return;
    }
    this.kernel(store.p, store.x, store.invMass, 0, null, this.count, ctx.reverse);
  }

  /** The SIMD kernel when it applies (see `backend`), built on first use. */
  private wasmKernel(): TetFemWasm | null {
    if (this.backend !== 'auto' || this.plastic !== null || this.rule.gamma !== 0 || this.count === 0) {
      return null;
    }
    const mod = wasmKernel('tet-fem');
    if (mod === null) return null;
    if (this.wasm === null || !this.wasm.matches(this, this.restShape, this.volume)) {
      if (!worthPairing(this, 4)) return null;
      this.wasm = new TetFemWasm(mod, this);
    }
    return this.wasm;
  }

  /** Tets the SIMD kernel has left to the JavaScript kernel so far (inverted or near-degenerate ones). */
  get wasmDeferred(): number {
    return this.wasm?.deferred ?? 0;
  }

  /** Which kernel projects this set now: 'wasm' (SIMD) or 'js'. */
  get activeBackend(): 'wasm' | 'js' {
    return this.wasmKernel() === null ? 'js' : 'wasm';
  }

  /**
   * The JavaScript kernel over `count` tets — tets 0 … count − 1, or the tets
   * listed in `list` — with particle i at p[3 (i − base)] and w[i − base].
   */
  kernel(
    p: Float64Array,
    x: Float64Array,
    w: Float64Array,
    base: number,
    list: Int32Array | null,
    count: number,
    reverse: boolean,
  ): void {
    const idx = this.indices,
      Bm = this.restShape,
      vol = this.volume,
      lam = this.lambda;
    const kp = this.rule.kPrime,
      at = this.rule.alphaTilde,
      gamma = this.rule.gamma;
    const m = this.m,
      m1 = 1 - m;
    const { model, mu, lambda, clamp } = this.material;
    const stvk = model === 'stvk';
    const clamp2 = clamp * clamp;
    const psiMin = PSI_TOLERANCE * mu;
    const plastic = this.plastic;
    const fs = this.fs,
      ps = this.ps;
    const step = reverse ? -1 : 1;
    const end = reverse ? -1 : count;
    for (let it = reverse ? count - 1 : 0; it !== end; it += step) {
      const c = list === null ? it : list[it];
      const q = 4 * c;
      const i0 = idx[q] - base,
        i1 = idx[q + 1] - base,
        i2 = idx[q + 2] - base,
        i3 = idx[q + 3] - base;
      const w0 = w[i0],
        w1 = w[i1],
        w2 = w[i2],
        w3 = w[i3];
      if (w0 + w1 + w2 + w3 === 0) continue;
      const a = 3 * i0,
        b = 3 * i1,
        cc = 3 * i2,
        d = 3 * i3;
      const px = p[d],
        py = p[d + 1],
        pz = p[d + 2];
      const d0x = p[a] - px,
        d0y = p[a + 1] - py,
        d0z = p[a + 2] - pz;
      const d1x = p[b] - px,
        d1y = p[b + 1] - py,
        d1z = p[b + 2] - pz;
      const d2x = p[cc] - px,
        d2y = p[cc + 1] - py,
        d2z = p[cc + 2] - pz;
      const o = 9 * c;
      const B0 = Bm[o],
        B1 = Bm[o + 1],
        B2 = Bm[o + 2],
        B3 = Bm[o + 3],
        B4 = Bm[o + 4],
        B5 = Bm[o + 5],
        B6 = Bm[o + 6],
        B7 = Bm[o + 7],
        B8 = Bm[o + 8];
      // F = D_s D_m⁻¹ (eq. 9)
      const f0 = d0x * B0 + d1x * B3 + d2x * B6,
        f1 = d0x * B1 + d1x * B4 + d2x * B7,
        f2 = d0x * B2 + d1x * B5 + d2x * B8;
      const f3 = d0y * B0 + d1y * B3 + d2y * B6,
        f4 = d0y * B1 + d1y * B4 + d2y * B7,
        f5 = d0y * B2 + d1y * B5 + d2y * B8;
      const f6 = d0z * B0 + d1z * B3 + d2z * B6,
        f7 = d0z * B1 + d1z * B4 + d2z * B7,
        f8 = d0z * B2 + d1z * B5 + d2z * B8;
      const c00 = f0 * f0 + f3 * f3 + f6 * f6,
        c01 = f0 * f1 + f3 * f4 + f6 * f7,
        c02 = f0 * f2 + f3 * f5 + f6 * f8;
      const c11 = f1 * f1 + f4 * f4 + f7 * f7,
        c12 = f1 * f2 + f4 * f5 + f7 * f8,
        c22 = f2 * f2 + f5 * f5 + f8 * f8;
      const cof0 = f4 * f8 - f5 * f7,
        cof1 = f5 * f6 - f3 * f8,
        cof2 = f3 * f7 - f4 * f6;
      const det = f0 * cof0 + f1 * cof1 + f2 * cof2;
      let psi: number;
      let P0: number,
        P1: number,
        P2: number,
        P3: number,
        P4: number,
        P5: number,
        P6: number,
        P7: number,
        P8: number;
      // Gershgorin bound of the smallest eigenvalue of FᵀF (see gershgorinLowerBound)
      const a01 = c01 < 0 ? -c01 : c01,
        a02 = c02 < 0 ? -c02 : c02,
        a12 = c12 < 0 ? -c12 : c12;
      if (
        plastic === null &&
        det > 0 &&
        c00 - a01 - a02 >= clamp2 &&
        c11 - a01 - a12 >= clamp2 &&
        c22 - a02 - a12 >= clamp2
      ) {
        if (stvk) {
          // StVK: P = F (2μ ε + λ tr(ε) I), Ψ = μ ε:ε + λ/2 tr(ε)² = ½ S:ε
          const e00 = 0.5 * (c00 - 1),
            e11 = 0.5 * (c11 - 1),
            e22 = 0.5 * (c22 - 1),
            e01 = 0.5 * c01,
            e02 = 0.5 * c02,
            e12 = 0.5 * c12;
          const lt = lambda * (e00 + e11 + e22),
            m2 = 2 * mu;
          const s00 = m2 * e00 + lt,
            s11 = m2 * e11 + lt,
            s22 = m2 * e22 + lt,
            s01 = m2 * e01,
            s02 = m2 * e02,
            s12 = m2 * e12;
          P0 = f0 * s00 + f1 * s01 + f2 * s02;
          P1 = f0 * s01 + f1 * s11 + f2 * s12;
          P2 = f0 * s02 + f1 * s12 + f2 * s22;
          P3 = f3 * s00 + f4 * s01 + f5 * s02;
          P4 = f3 * s01 + f4 * s11 + f5 * s12;
          P5 = f3 * s02 + f4 * s12 + f5 * s22;
          P6 = f6 * s00 + f7 * s01 + f8 * s02;
          P7 = f6 * s01 + f7 * s11 + f8 * s12;
          P8 = f6 * s02 + f7 * s12 + f8 * s22;
          psi = 0.5 * (s00 * e00 + s11 * e11 + s22 * e22) + s01 * e01 + s02 * e02 + s12 * e12;
        } else {
          // Neo-Hookean (eq. 8): P = μF + (λ log J − μ) F⁻ᵀ
          const logJ = Math.log(det);
          const k = (lambda * logJ - mu) / det;
          P0 = mu * f0 + k * cof0;
          P1 = mu * f1 + k * cof1;
          P2 = mu * f2 + k * cof2;
          P3 = mu * f3 + k * (f2 * f7 - f1 * f8);
          P4 = mu * f4 + k * (f0 * f8 - f2 * f6);
          P5 = mu * f5 + k * (f1 * f6 - f0 * f7);
          P6 = mu * f6 + k * (f1 * f5 - f2 * f4);
          P7 = mu * f7 + k * (f2 * f3 - f0 * f5);
          P8 = mu * f8 + k * (f0 * f4 - f1 * f3);
          psi = 0.5 * mu * (c00 + c11 + c22 - 3) - mu * logJ + 0.5 * lambda * logJ * logJ;
        }
      } else {
        // inversion handling (SVD, clamped stress) or plastic strain: the reference kernel
        fs[0] = f0;
        fs[1] = f1;
        fs[2] = f2;
        fs[3] = f3;
        fs[4] = f4;
        fs[5] = f5;
        fs[6] = f6;
        fs[7] = f7;
        fs[8] = f8;
        psi = tetStress(model, mu, lambda, clamp, fs, ps, plastic, 6 * c);
        P0 = ps[0];
        P1 = ps[1];
        P2 = ps[2];
        P3 = ps[3];
        P4 = ps[4];
        P5 = ps[5];
        P6 = ps[6];
        P7 = ps[7];
        P8 = ps[8];
      }
      // below ~1e-7 strain the energy is round-off (Neo-Hookean's logarithms): nothing to project
      if (!(psi > psiMin)) continue;
      const V = vol[c];
      const E = V * psi;
      // ∇E = V P D_m⁻ᵀ: g_k = V (P row · B row k); V is folded into the scalar factor below
      const g0x = P0 * B0 + P1 * B1 + P2 * B2,
        g0y = P3 * B0 + P4 * B1 + P5 * B2,
        g0z = P6 * B0 + P7 * B1 + P8 * B2;
      const g1x = P0 * B3 + P1 * B4 + P2 * B5,
        g1y = P3 * B3 + P4 * B4 + P5 * B5,
        g1z = P6 * B3 + P7 * B4 + P8 * B5;
      const g2x = P0 * B6 + P1 * B7 + P2 * B8,
        g2y = P3 * B6 + P4 * B7 + P5 * B8,
        g2z = P6 * B6 + P7 * B7 + P8 * B8;
      const g3x = -g0x - g1x - g2x,
        g3y = -g0y - g1y - g2y,
        g3z = -g0z - g1z - g2z;
      // C = E (PBD) or √(2E) (XPBD), ∇C = s ∇E = (s V) g; PBD (m = 0) has s = 1 with no
      // square root on the critical path
      const s0 = m === 0 ? 1 : 1 / Math.sqrt(2 * E * m + m1);
      const C = (1 + m) * E * s0;
      const s = s0 * V;
      const wG =
        s *
        s *
        (w0 * (g0x * g0x + g0y * g0y + g0z * g0z) +
          w1 * (g1x * g1x + g1y * g1y + g1z * g1z) +
          w2 * (g2x * g2x + g2y * g2y + g2z * g2z) +
          w3 * (g3x * g3x + g3y * g3y + g3z * g3z));
      let damp = 0;
      if (gamma !== 0) {
        damp =
          gamma *
          s *
          (g0x * (p[a] - x[a]) +
            g0y * (p[a + 1] - x[a + 1]) +
            g0z * (p[a + 2] - x[a + 2]) +
            g1x * (p[b] - x[b]) +
            g1y * (p[b + 1] - x[b + 1]) +
            g1z * (p[b + 2] - x[b + 2]) +
            g2x * (p[cc] - x[cc]) +
            g2y * (p[cc + 1] - x[cc + 1]) +
            g2z * (p[cc + 2] - x[cc + 2]) +
            g3x * (px - x[d]) +
            g3y * (py - x[d + 1]) +
            g3z * (pz - x[d + 2]));
      }
      const denom = (1 + gamma) * wG + at;
      if (!(denom > 1e-300)) continue;
      const dl = (kp * (-C - at * lam[c] - damp)) / denom;
      lam[c] += dl;
      const sd = s * dl;
      let k = w0 * sd;
      p[a] += g0x * k;
      p[a + 1] += g0y * k;
      p[a + 2] += g0z * k;
      k = w1 * sd;
      p[b] += g1x * k;
      p[b + 1] += g1y * k;
      p[b + 2] += g1z * k;
      k = w2 * sd;
      p[cc] += g2x * k;
      p[cc + 1] += g2y * k;
      p[cc + 2] += g2z * k;
      k = w3 * sd;
      p[d] = px + g3x * k;
      p[d + 1] = py + g3y * k;
      p[d + 2] = pz + g3z * k;
    }
  }

  /**
   * Plasticity (002 §4.2), once per substep after the velocity update:
   * ε_elastic = ε − ε_plastic, its deviatoric part ε′ = ε_elastic − tr(ε_elastic)/3 I;
   * if ‖ε′‖ > γ_yield then ε_plastic += h γ_creep ε′; if ‖ε_plastic‖ > γ_max it is
   * scaled back to γ_max. The plastic strain is trace-free, and its norm is also
   * kept below PLASTIC_STRAIN_LIMIT so that the plastic rest metric I + 2ε_plastic
   * stays positive definite (its smallest eigenvalue is ≥ 1 − 2√(2/3)‖ε_plastic‖);
   * beyond that no shape has zero elastic energy and the flow would never stop.
   */
  endStep(ctx: StepContext): void {
    const pl = this.plastic;
    const prm = this.plasticity;
    if (!pl || !prm) return;
    const x = ctx.store.x;
    const idx = this.indices;
    const e = this.strain;
    const rate = ctx.h * prm.creep;
    const cap = Math.min(prm.max, PLASTIC_STRAIN_LIMIT);
    for (let t = 0; t < this.count; t++) {
      tetGreenStrain(x, idx[4 * t], idx[4 * t + 1], idx[4 * t + 2], idx[4 * t + 3], this.restShape, 9 * t, e);
      const o = 6 * t;
      const e0 = e[0] - pl[o],
        e1 = e[1] - pl[o + 1],
        e2 = e[2] - pl[o + 2];
      const e3 = e[3] - pl[o + 3],
        e4 = e[4] - pl[o + 4],
        e5 = e[5] - pl[o + 5];
      const tr = (e0 + e1 + e2) / 3;
      const v0 = e0 - tr,
        v1 = e1 - tr,
        v2 = e2 - tr;
      const dev = Math.sqrt(v0 * v0 + v1 * v1 + v2 * v2 + 2 * (e3 * e3 + e4 * e4 + e5 * e5));
      if (!(dev > prm.yield)) continue;
      pl[o] += rate * v0;
      pl[o + 1] += rate * v1;
      pl[o + 2] += rate * v2;
      pl[o + 3] += rate * e3;
      pl[o + 4] += rate * e4;
      pl[o + 5] += rate * e5;
      const norm = Math.sqrt(
        pl[o] * pl[o] +
          pl[o + 1] * pl[o + 1] +
          pl[o + 2] * pl[o + 2] +
          2 * (pl[o + 3] * pl[o + 3] + pl[o + 4] * pl[o + 4] + pl[o + 5] * pl[o + 5]),
      );
      if (norm > cap) {
        const f = cap / norm;
        for (let k = 0; k < 6; k++) pl[o + k] *= f;
      }
    }
  }

  /** Changes Young's modulus and the Poisson ratio (live tuning); validated like the constructor's. */
  setMaterial(youngsModulus: number, poissonRatio: number): void {
    const m = resolveMaterial(
      { model: this.material.model, youngsModulus, poissonRatio, clampStretch: this.material.clamp },
      'fem.material',
    );
    Object.assign(this.material, m);
  }

  /** Energy E_t and gradient (12 numbers) of the k-th tet (in colour order) at positions x. */
  elementEnergy(x: ArrayLike<number>, k: number, grad: Float64Array): number {
    const { model, mu, lambda, clamp } = this.material;
    const i = this.indices;
    return tetEnergy(
      model,
      mu,
      lambda,
      clamp,
      x,
      i[4 * k],
      i[4 * k + 1],
      i[4 * k + 2],
      i[4 * k + 3],
      this.restShape,
      9 * k,
      this.volume[k],
      grad,
      this.plastic,
      6 * k,
    );
  }

  /** Total strain energy Σ E_t at positions x (J). */
  energy(x: ArrayLike<number>): number {
    let e = 0;
    for (let k = 0; k < this.count; k++) e += this.elementEnergy(x, k, this.g);
    return e;
  }

  /** Largest Frobenius norm of the plastic strain (0 without plasticity). */
  maxPlasticStrain(): number {
    const pl = this.plastic;
    if (!pl) return 0;
    let m = 0;
    for (let o = 0; o < pl.length; o += 6) {
      const n = Math.sqrt(
        pl[o] * pl[o] +
          pl[o + 1] * pl[o + 1] +
          pl[o + 2] * pl[o + 2] +
          2 * (pl[o + 3] * pl[o + 3] + pl[o + 4] * pl[o + 4] + pl[o + 5] * pl[o + 5]),
      );
      if (n > m) m = n;
    }
    return m;
  }

  saveState(): unknown {
    return this.plastic ? Array.from(this.plastic) : null;
  }

  loadState(state: unknown): void {
    if (this.plastic && Array.isArray(state)) this.plastic.set(state as number[]);
  }
}
