import { colorConstraints, permuteRecords } from '../core/coloring.js';
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { PbdError } from '../core/errors.js';
import type { ParticleStore } from '../core/particles.js';
import { ProjectionRule } from '../core/solver.js';
import { type FemClothKernel, femClothKernel } from '../wasm/fem-cloth-kernels.js';
import { type MembraneMaterial, triangleEnergy, triangleRestShape, triangleStress } from './energy.js';
import {
  isotropicMembraneTensor,
  type MaterialOptions,
  type OrthotropicOptions,
  orthotropicTensor,
  resolveMaterial,
} from './material.js';
import { PSI_TOLERANCE } from './tet-fem.js';

export interface TriangleFemOptions {
  /** An isotropic material (plane stress: λ* = kν/(1 − ν²)). */
  material?: MaterialOptions;
  /** The orthotropic StVK membrane of 002 §4.3 (instead of `material`). */
  orthotropic?: OrthotropicOptions;
  /** PBD stiffness k ∈ [0, 1]. Default 1. */
  stiffness?: number;
  /** XPBD constraint damping β ≥ 0 (s). Default 0. */
  damping?: number;
  where?: string;
}

/** Builds the membrane material of a triangle set from its options. */
export function membraneMaterial(o: TriangleFemOptions, where: string): MembraneMaterial {
  if (o.material && o.orthotropic) {
    throw new PbdError(
      'fem/two-materials',
      where,
      'has both an isotropic material and an orthotropic one',
      'keep one of material / orthotropic',
    );
  }
  if (o.orthotropic) {
    return {
      model: 'stvk',
      tensor: orthotropicTensor(o.orthotropic, `${where}.orthotropic`),
      mu: 0,
      lambda: 0,
      isotropic: false,
      clamp: 1 / Math.sqrt(3),
    };
  }
  if (!o.material) {
    throw new PbdError(
      'fem/no-material',
      where,
      'needs a material',
      'give { youngsModulus, poissonRatio } or an orthotropic material',
    );
  }
  const m = resolveMaterial(o.material, `${where}.material`, true);
  return {
    model: m.model,
    tensor: isotropicMembraneTensor(m.youngsModulus, m.poissonRatio),
    mu: m.mu,
    lambda: m.lambda,
    isotropic: true,
    clamp: m.clamp,
  };
}

/**
 * Energy constraints C = E on triangles (002 §3, §4.3): the membrane strain
 * energy E = A Ψ(F) of each triangle in its own plane, StVK (isotropic or
 * orthotropic) or Neo-Hookean, with the same PBD / XPBD unification as
 * TetFemConstraints (C = E under PBD, C = √(2E) with α = 1 under XPBD).
 */
export class TriangleFemConstraints implements ConstraintSet {
  readonly kind = 'fem-triangle';
  readonly order = 0;
  enabled = true;
  readonly rule: ProjectionRule;
  readonly material: MembraneMaterial;
  indices: Int32Array;
  /** D_m⁻¹ per triangle (4, row-major), in the weft-aligned frame of the rest triangle. */
  restShape: Float64Array;
  area: Float64Array;
  lambda: Float64Array;
  colorOffsets: Int32Array;
  readonly count: number;
  readonly colors: number;
  /**
   * 'auto' projects StVK elements without XPBD damping with the WebAssembly
   * SIMD kernel (wasm/fem-cloth.ts, bit-identical to the JavaScript kernel;
   * elements that need the clamped stress go to the JavaScript kernel), 'js'
   * always with the JavaScript kernel.
   */
  backend: 'auto' | 'js' = 'auto';
  private simd: FemClothKernel | null = null;
  private m = 0;
  private readonly fs = new Float64Array(6);
  private readonly ps = new Float64Array(6);
  private readonly g = new Float64Array(9);

  /**
   * @param triangles three global particle indices per triangle
   * @param rest rest positions indexed by global particle index (default: store.x)
   */
  constructor(
    store: ParticleStore,
    triangles: ArrayLike<number>,
    options: TriangleFemOptions,
    rest?: ArrayLike<number>,
  ) {
    const where = options.where ?? 'fem';
    this.material = membraneMaterial(options, where);
    this.rule = new ProjectionRule(
      { stiffness: options.stiffness ?? 1, compliance: 1, damping: options.damping ?? 0 },
      where,
    );
    const weft = options.orthotropic?.weftDirection ?? [1, 0, 0];
    const n = triangles.length / 3;
    const X = rest ?? store.x;
    const idx = Int32Array.from(triangles);
    const B = new Float64Array(4 * n);
    const area = new Float64Array(n);
    for (let t = 0; t < n; t++) {
      for (let k = 0; k < 3; k++) {
        const i = idx[3 * t + k];
        if (!(i >= 0 && i < store.count)) {
          throw new PbdError(
            'fem/bad-index',
            `${where}: triangle ${t}`,
            `refers to particle ${i}, which does not exist`,
          );
        }
      }
      area[t] = triangleRestShape(X, idx[3 * t], idx[3 * t + 1], idx[3 * t + 2], weft, B, 4 * t);
      if (!(area[t] > 0)) {
        throw new PbdError(
          'fem/degenerate-triangle',
          `${where}: triangle ${t}`,
          'has zero rest area',
          'remove degenerate triangles from the mesh',
        );
      }
    }
    const col = colorConstraints(idx, 3, n, store.count);
    this.indices = permuteRecords(idx, 3, col.order);
    this.restShape = permuteRecords(B, 4, col.order);
    this.area = permuteRecords(area, 1, col.order);
    this.lambda = new Float64Array(n);
    this.colorOffsets = col.offsets;
    this.colors = col.colors;
    this.count = n;
  }

  beginStep(ctx: StepContext): void {
    this.rule.update(ctx.solver, ctx.h, ctx.passes);
    this.m = ctx.solver === 'xpbd' ? 1 : 0;
    this.lambda.fill(0);
  }

  /** The SIMD kernel when it applies (see `backend`), built on first use. */
  private simdKernel(): FemClothKernel | null {
    this.simd =
      this.material.model === 'stvk' ? femClothKernel(this, 3, this.restShape, this.area, this.simd) : null;
    return this.simd;
  }

  /** Which kernel projects this set now: 'wasm' (SIMD) or 'js'. */
  get activeBackend(): 'wasm' | 'js' {
    return this.simdKernel() === null ? 'js' : 'wasm';
  }

  /** Triangles the SIMD kernel has left to the JavaScript kernel so far. */
  get wasmDeferred(): number {
    return this.simd?.deferred ?? 0;
  }

  project(ctx: StepContext): void {
    const store = ctx.store;
    const simd = this.simdKernel();
    if (simd !== null) {
      const mat = this.material;
      simd.membrane(
        this,
        store,
        ctx.reverse,
        this.rule.kPrime,
        this.rule.alphaTilde,
        this.m,
        mat.tensor,
        mat.isotropic ? mat.clamp * mat.clamp : Number.NEGATIVE_INFINITY,
        PSI_TOLERANCE * (mat.isotropic ? mat.mu : Math.min(mat.tensor[0], mat.tensor[2], mat.tensor[3])),
      );
      return;
    }
    this.kernel(store.p, store.x, store.invMass, 0, null, this.count, ctx.reverse);
  }

  /**
   * The JavaScript kernel over `count` triangles — 0 … count − 1, or those
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
      area = this.area,
      lam = this.lambda;
    const kp = this.rule.kPrime,
      at = this.rule.alphaTilde,
      gamma = this.rule.gamma;
    const m = this.m,
      m1 = 1 - m;
    const mat = this.material;
    const t = mat.tensor;
    const C11 = t[0],
      C12 = t[1],
      C22 = t[2],
      C33 = t[3];
    // closed-form StVK unless the element needs the clamp (isotropic only) or is Neo-Hookean
    const fastStvk = mat.model === 'stvk';
    const clamp2 = mat.isotropic ? mat.clamp * mat.clamp : Number.NEGATIVE_INFINITY;
    const psiMin = PSI_TOLERANCE * (mat.isotropic ? mat.mu : Math.min(C11, C22, C33));
    const fs = this.fs,
      ps = this.ps;
    const step = reverse ? -1 : 1;
    const end = reverse ? -1 : count;
    for (let it = reverse ? count - 1 : 0; it !== end; it += step) {
      const c = list === null ? it : list[it];
      const q = 3 * c;
      const i0 = idx[q] - base,
        i1 = idx[q + 1] - base,
        i2 = idx[q + 2] - base;
      const w0 = w[i0],
        w1 = w[i1],
        w2 = w[i2];
      if (w0 + w1 + w2 === 0) continue;
      const a = 3 * i0,
        b = 3 * i1,
        d = 3 * i2;
      const px = p[d],
        py = p[d + 1],
        pz = p[d + 2];
      const d0x = p[a] - px,
        d0y = p[a + 1] - py,
        d0z = p[a + 2] - pz;
      const d1x = p[b] - px,
        d1y = p[b + 1] - py,
        d1z = p[b + 2] - pz;
      const o = 4 * c;
      const B0 = Bm[o],
        B1 = Bm[o + 1],
        B2 = Bm[o + 2],
        B3 = Bm[o + 3];
      // F (3 × 2) = [x0 − x2, x1 − x2] D_m⁻¹
      const f0 = d0x * B0 + d1x * B2,
        f1 = d0x * B1 + d1x * B3;
      const f2 = d0y * B0 + d1y * B2,
        f3 = d0y * B1 + d1y * B3;
      const f4 = d0z * B0 + d1z * B2,
        f5 = d0z * B1 + d1z * B3;
      const c00 = f0 * f0 + f2 * f2 + f4 * f4,
        c01 = f0 * f1 + f2 * f3 + f4 * f5,
        c11 = f1 * f1 + f3 * f3 + f5 * f5;
      let psi: number;
      let P0: number, P1: number, P2: number, P3: number, P4: number, P5: number;
      const hd = 0.5 * (c00 - c11);
      if (fastStvk && 0.5 * (c00 + c11) - Math.sqrt(hd * hd + c01 * c01) >= clamp2) {
        // StVK membrane: S = C ε (Voigt), P = F S
        const e00 = 0.5 * (c00 - 1),
          e11 = 0.5 * (c11 - 1),
          e01 = 0.5 * c01;
        const s00 = C11 * e00 + C12 * e11,
          s11 = C12 * e00 + C22 * e11,
          s01 = 2 * C33 * e01;
        P0 = f0 * s00 + f1 * s01;
        P1 = f0 * s01 + f1 * s11;
        P2 = f2 * s00 + f3 * s01;
        P3 = f2 * s01 + f3 * s11;
        P4 = f4 * s00 + f5 * s01;
        P5 = f4 * s01 + f5 * s11;
        psi = 0.5 * (s00 * e00 + s11 * e11) + s01 * e01;
      } else {
        fs[0] = f0;
        fs[1] = f1;
        fs[2] = f2;
        fs[3] = f3;
        fs[4] = f4;
        fs[5] = f5;
        psi = triangleStress(mat, fs, ps);
        P0 = ps[0];
        P1 = ps[1];
        P2 = ps[2];
        P3 = ps[3];
        P4 = ps[4];
        P5 = ps[5];
      }
      if (!(psi > psiMin)) continue; // round-off at rest, see PSI_TOLERANCE
      const A = area[c];
      const E = A * psi;
      const g0x = A * (P0 * B0 + P1 * B1),
        g0y = A * (P2 * B0 + P3 * B1),
        g0z = A * (P4 * B0 + P5 * B1);
      const g1x = A * (P0 * B2 + P1 * B3),
        g1y = A * (P2 * B2 + P3 * B3),
        g1z = A * (P4 * B2 + P5 * B3);
      const g2x = -g0x - g1x,
        g2y = -g0y - g1y,
        g2z = -g0z - g1z;
      // PBD (m = 0): C = E, s = 1 without a square root on the critical path
      const s = m === 0 ? 1 : 1 / Math.sqrt(2 * E * m + m1);
      const C = (1 + m) * E * s;
      const wG =
        s *
        s *
        (w0 * (g0x * g0x + g0y * g0y + g0z * g0z) +
          w1 * (g1x * g1x + g1y * g1y + g1z * g1z) +
          w2 * (g2x * g2x + g2y * g2y + g2z * g2z));
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
            g2x * (px - x[d]) +
            g2y * (py - x[d + 1]) +
            g2z * (pz - x[d + 2]));
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
      p[d] = px + g2x * k;
      p[d + 1] = py + g2y * k;
      p[d + 2] = pz + g2z * k;
    }
  }

  /** Energy and gradient (9 numbers) of the k-th triangle (colour order) at positions x. */
  elementEnergy(x: ArrayLike<number>, k: number, grad: Float64Array): number {
    const i = this.indices;
    return triangleEnergy(
      this.material,
      x,
      i[3 * k],
      i[3 * k + 1],
      i[3 * k + 2],
      this.restShape,
      4 * k,
      this.area[k],
      grad,
    );
  }

  /** Total membrane energy at positions x (J). */
  energy(x: ArrayLike<number>): number {
    let e = 0;
    for (let k = 0; k < this.count; k++) e += this.elementEnergy(x, k, this.g);
    return e;
  }
}
