import type { ParticleStore } from '../core/particles.js';
import { type ConstraintParams, ProjectionRule } from '../core/solver.js';
import { sweepTetVolume, sweepTriangleArea } from '../wasm/element-kernels.generated.js';
import type { ElementKernel } from '../wasm/element-kernels.js';
import { ElementConstraints } from './element-set.js';
import { projectTetVolume } from './tet-volume.generated.js';
import { projectTriangleArea } from './triangle-area.generated.js';

/**
 * Tetrahedron volume constraints (000 §3.4.4):
 *   C(p1, p2, p3, p4) = (1/6) (p2,1 × p3,1) · p4,1 − V0,
 * ∇p2 C = (1/6) p3,1 × p4,1, ∇p3 C = (1/6) p4,1 × p2,1, ∇p4 C = (1/6) p2,1 × p3,1,
 * ∇p1 C = −(∇p2 C + ∇p3 C + ∇p4 C). With distance constraints on the edges
 * this is the geometric soft body of the survey.
 */
export class TetVolumeConstraints extends ElementConstraints {
  readonly kind = 'tet-volume';
  readonly violationUnit = 'm³';
  /** Rest volume per tet (indices: four per tet). */
  rest: Float64Array;

  /** @param tets four particle indices per tet; rest volumes from `rest` positions (default store.x) */
  constructor(
    store: ParticleStore,
    tets: ArrayLike<number>,
    params: ConstraintParams = {},
    rest?: ArrayLike<number>,
  ) {
    super(4, new ProjectionRule(params, 'volume'));
    const n = tets.length / 4;
    const idx = Int32Array.from(tets);
    const X = rest ?? store.x;
    const r = new Float64Array(n);
    this.checkIndices(store, idx, 'volume/bad-index', 'volume constraint');
    for (let t = 0; t < n; t++)
      r[t] = tetVolume(X, idx[4 * t], idx[4 * t + 1], idx[4 * t + 2], idx[4 * t + 3]);
    [this.rest] = this.setElements(store, idx, [[r, 1]]);
  }

  protected pairedScalar(): Float64Array {
    return this.rest;
  }

  protected sweep(k: ElementKernel, store: ParticleStore, reverse: boolean): void {
    sweepTetVolume(k, store, reverse, this.rule.kPrime, this.rule.alphaTilde);
  }

  /** The JavaScript kernel (tet-volume.kernel.ts). */
  kernel(
    p: Float64Array,
    x: Float64Array,
    w: Float64Array,
    _base: number,
    _list: Int32Array | null,
    from: number,
    to: number,
    reverse: boolean,
  ): void {
    const r = this.rule;
    projectTetVolume(p, x, w, this, this.rest, from, to, reverse, r.kPrime, r.alphaTilde, r.gamma);
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
export class TriangleAreaConstraints extends ElementConstraints {
  readonly kind = 'triangle-area';
  readonly violationUnit = 'm²';
  /** Rest area per triangle (indices: three per triangle). */
  rest: Float64Array;

  constructor(
    store: ParticleStore,
    triangles: ArrayLike<number>,
    params: ConstraintParams = {},
    rest?: ArrayLike<number>,
  ) {
    super(3, new ProjectionRule(params, 'area'));
    const n = triangles.length / 3;
    const idx = Int32Array.from(triangles);
    const X = rest ?? store.x;
    const r = new Float64Array(n);
    this.checkIndices(store, idx, 'area/bad-index', 'area constraint');
    for (let t = 0; t < n; t++) r[t] = triangleAreaOf(X, idx[3 * t], idx[3 * t + 1], idx[3 * t + 2]);
    [this.rest] = this.setElements(store, idx, [[r, 1]]);
  }

  protected pairedScalar(): Float64Array {
    return this.rest;
  }

  protected sweep(k: ElementKernel, store: ParticleStore, reverse: boolean): void {
    sweepTriangleArea(k, store, reverse, this.rule.kPrime, this.rule.alphaTilde);
  }

  /** The JavaScript kernel (triangle-area.kernel.ts). */
  kernel(
    p: Float64Array,
    x: Float64Array,
    w: Float64Array,
    _base: number,
    _list: Int32Array | null,
    from: number,
    to: number,
    reverse: boolean,
  ): void {
    const r = this.rule;
    projectTriangleArea(p, x, w, this, this.rest, from, to, reverse, r.kPrime, r.alphaTilde, r.gamma);
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
