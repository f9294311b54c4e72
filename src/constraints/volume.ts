import { colorConstraints, permuteRecords } from '../core/coloring.js';
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { PbdError } from '../core/errors.js';
import type { ParticleStore } from '../core/particles.js';
import { type ConstraintParams, ProjectionRule } from '../core/solver.js';
import { sweepTetVolume, sweepTriangleArea } from '../wasm/element-kernels.generated.js';
import { type ElementKernel, elementKernel } from '../wasm/element-kernels.js';
import { projectTetVolume } from './tet-volume.generated.js';
import { projectTriangleArea } from './triangle-area.generated.js';

/**
 * Tetrahedron volume constraints (000 §3.4.4):
 *   C(p1, p2, p3, p4) = (1/6) (p2,1 × p3,1) · p4,1 − V0,
 * ∇p2 C = (1/6) p3,1 × p4,1, ∇p3 C = (1/6) p4,1 × p2,1, ∇p4 C = (1/6) p2,1 × p3,1,
 * ∇p1 C = −(∇p2 C + ∇p3 C + ∇p4 C). With distance constraints on the edges
 * this is the geometric soft body of the survey.
 */
export class TetVolumeConstraints implements ConstraintSet {
  readonly kind = 'tet-volume';
  readonly violationUnit = 'm³';
  readonly order = 0;
  enabled = true;
  readonly rule: ProjectionRule;
  indices: Int32Array;
  rest: Float64Array;
  lambda: Float64Array;
  colorOffsets: Int32Array;
  readonly count: number;
  readonly colors: number;
  /**
   * 'auto' projects with the WebAssembly SIMD kernel (generated with the
   * JavaScript kernel from tet-volume.kernel.ts, bit-identical) when the set
   * has no XPBD damping; 'js' always with the JavaScript kernel.
   */
  backend: 'auto' | 'js' = 'auto';
  private simd: ElementKernel | null = null;

  /** @param tets four particle indices per tet; rest volumes from `rest` positions (default store.x) */
  constructor(
    store: ParticleStore,
    tets: ArrayLike<number>,
    params: ConstraintParams = {},
    rest?: ArrayLike<number>,
  ) {
    this.rule = new ProjectionRule(params, 'volume');
    const n = tets.length / 4;
    const idx = Int32Array.from(tets);
    const X = rest ?? store.x;
    const r = new Float64Array(n);
    for (let t = 0; t < n; t++) {
      for (let k = 0; k < 4; k++) {
        const i = idx[4 * t + k];
        if (!(i >= 0 && i < store.count))
          throw new PbdError(
            'volume/bad-index',
            `volume constraint ${t}`,
            `refers to particle ${i}, which does not exist`,
          );
      }
      r[t] = tetVolume(X, idx[4 * t], idx[4 * t + 1], idx[4 * t + 2], idx[4 * t + 3]);
    }
    const col = colorConstraints(idx, 4, n, store.count);
    this.indices = permuteRecords(idx, 4, col.order);
    this.rest = permuteRecords(r, 1, col.order);
    this.lambda = new Float64Array(n);
    this.colorOffsets = col.offsets;
    this.colors = col.colors;
    this.count = n;
  }

  beginStep(ctx: StepContext): void {
    this.rule.update(ctx.solver, ctx.h, ctx.passes);
    this.lambda.fill(0);
  }

  /** Which kernel projects this set now: 'wasm' (SIMD) or 'js'. */
  get activeBackend(): 'wasm' | 'js' {
    return this.simdKernel() === null ? 'js' : 'wasm';
  }

  private simdKernel(): ElementKernel | null {
    this.simd = elementKernel(this, 4, null, 0, this.rest, this.simd);
    return this.simd;
  }

  /** One sweep (tet-volume.kernel.ts). */
  project(ctx: StepContext): void {
    const store = ctx.store;
    const r = this.rule;
    const simd = this.simdKernel();
    if (simd !== null) sweepTetVolume(simd, store, ctx.reverse, r.kPrime, r.alphaTilde);
    else this.projectJs(ctx, 0, this.count, ctx.reverse);
  }

  projectColorRange(ctx: StepContext, _color: number, from: number, to: number): void {
    this.projectJs(ctx, from, to, false);
  }

  /** The JavaScript kernel (tet-volume.kernel.ts) over constraints [from, to), backward when `reverse`. */
  private projectJs(ctx: StepContext, from: number, to: number, reverse: boolean): void {
    const store = ctx.store;
    const r = this.rule;
    projectTetVolume(
      store.p,
      store.x,
      store.invMass,
      this.indices,
      this.rest,
      this.lambda,
      from,
      to,
      reverse,
      r.kPrime,
      r.alphaTilde,
      r.gamma,
    );
  }

  maxViolation(store: ParticleStore): number {
    let m = 0;
    for (let c = 0; c < this.count; c++) {
      const i = this.indices;
      const v = tetVolume(store.x, i[4 * c], i[4 * c + 1], i[4 * c + 2], i[4 * c + 3]);
      m = Math.max(m, Math.abs(v - this.rest[c]));
    }
    return m;
  }
}

/** Signed volume (1/6)(p2 − p1) × (p3 − p1) · (p4 − p1) of a tet. */
export function tetVolume(x: ArrayLike<number>, i1: number, i2: number, i3: number, i4: number): number {
  const a = 3 * i1,
    b = 3 * i2,
    c = 3 * i3,
    d = 3 * i4;
  const ux = x[b] - x[a],
    uy = x[b + 1] - x[a + 1],
    uz = x[b + 2] - x[a + 2];
  const vx = x[c] - x[a],
    vy = x[c + 1] - x[a + 1],
    vz = x[c + 2] - x[a + 2];
  const tx = x[d] - x[a],
    ty = x[d + 1] - x[a + 1],
    tz = x[d + 2] - x[a + 2];
  return ((uy * vz - uz * vy) * tx + (uz * vx - ux * vz) * ty + (ux * vy - uy * vx) * tz) / 6;
}

/**
 * Triangle area constraints (000 §3.4.4): C(p1, p2, p3) = ½ |p2,1 × p3,1| − A0,
 * with ∇p2 C = ½ (p3,1 × n̂), ∇p3 C = ½ (n̂ × p2,1),
 * n̂ the unit normal, and ∇p1 C = −(∇p2 C + ∇p3 C).
 */
export class TriangleAreaConstraints implements ConstraintSet {
  readonly kind = 'triangle-area';
  readonly violationUnit = 'm²';
  readonly order = 0;
  enabled = true;
  readonly rule: ProjectionRule;
  indices: Int32Array;
  rest: Float64Array;
  lambda: Float64Array;
  colorOffsets: Int32Array;
  readonly count: number;
  readonly colors: number;
  /** 'auto': the WebAssembly SIMD kernel where it applies (triangle-area.kernel.ts); 'js': always JavaScript. */
  backend: 'auto' | 'js' = 'auto';
  private simd: ElementKernel | null = null;

  constructor(
    store: ParticleStore,
    triangles: ArrayLike<number>,
    params: ConstraintParams = {},
    rest?: ArrayLike<number>,
  ) {
    this.rule = new ProjectionRule(params, 'area');
    const n = triangles.length / 3;
    const idx = Int32Array.from(triangles);
    const X = rest ?? store.x;
    const r = new Float64Array(n);
    for (let t = 0; t < n; t++) {
      for (let k = 0; k < 3; k++) {
        const i = idx[3 * t + k];
        if (!(i >= 0 && i < store.count))
          throw new PbdError(
            'area/bad-index',
            `area constraint ${t}`,
            `refers to particle ${i}, which does not exist`,
          );
      }
      r[t] = triangleAreaOf(X, idx[3 * t], idx[3 * t + 1], idx[3 * t + 2]);
    }
    const col = colorConstraints(idx, 3, n, store.count);
    this.indices = permuteRecords(idx, 3, col.order);
    this.rest = permuteRecords(r, 1, col.order);
    this.lambda = new Float64Array(n);
    this.colorOffsets = col.offsets;
    this.colors = col.colors;
    this.count = n;
  }

  beginStep(ctx: StepContext): void {
    this.rule.update(ctx.solver, ctx.h, ctx.passes);
    this.lambda.fill(0);
  }

  /** Which kernel projects this set now: 'wasm' (SIMD) or 'js'. */
  get activeBackend(): 'wasm' | 'js' {
    return this.simdKernel() === null ? 'js' : 'wasm';
  }

  private simdKernel(): ElementKernel | null {
    this.simd = elementKernel(this, 3, null, 0, this.rest, this.simd);
    return this.simd;
  }

  /** One sweep (triangle-area.kernel.ts). */
  project(ctx: StepContext): void {
    const store = ctx.store;
    const r = this.rule;
    const simd = this.simdKernel();
    if (simd !== null) sweepTriangleArea(simd, store, ctx.reverse, r.kPrime, r.alphaTilde);
    else this.projectJs(ctx, 0, this.count, ctx.reverse);
  }

  projectColorRange(ctx: StepContext, _color: number, from: number, to: number): void {
    this.projectJs(ctx, from, to, false);
  }

  /** The JavaScript kernel (triangle-area.kernel.ts) over constraints [from, to), backward when `reverse`. */
  private projectJs(ctx: StepContext, from: number, to: number, reverse: boolean): void {
    const store = ctx.store;
    const r = this.rule;
    projectTriangleArea(
      store.p,
      store.x,
      store.invMass,
      this.indices,
      this.rest,
      this.lambda,
      from,
      to,
      reverse,
      r.kPrime,
      r.alphaTilde,
      r.gamma,
    );
  }

  maxViolation(store: ParticleStore): number {
    let m = 0;
    const i = this.indices;
    for (let c = 0; c < this.count; c++) {
      m = Math.max(m, Math.abs(triangleAreaOf(store.x, i[3 * c], i[3 * c + 1], i[3 * c + 2]) - this.rest[c]));
    }
    return m;
  }
}

/** Area ½ |(p2 − p1) × (p3 − p1)| of a triangle. */
export function triangleAreaOf(x: ArrayLike<number>, i1: number, i2: number, i3: number): number {
  const a = 3 * i1,
    b = 3 * i2,
    c = 3 * i3;
  const ux = x[b] - x[a],
    uy = x[b + 1] - x[a + 1],
    uz = x[b + 2] - x[a + 2];
  const vx = x[c] - x[a],
    vy = x[c + 1] - x[a + 1],
    vz = x[c + 2] - x[a + 2];
  return 0.5 * Math.hypot(uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx);
}
