import type { ParticleStore } from '../core/particles.js';
import { type ConstraintParams, ProjectionRule } from '../core/solver.js';
import type { ElementGlue } from '../kernels/glue.js';
import { edgeCross, edgeCrossOut } from '../mesh/triangle-mesh.js';
import { ElementConstraints } from './element-set.js';
import { type TetVolumeArgs, tetVolumeGlue } from './tet-volume.generated.js';
import { triangleAreaGlue } from './triangle-area.generated.js';

/** The arguments of a measure set's definition (tet-volume.kernel.ts, triangle-area.kernel.ts): the rest measures. */
type MeasureArgs = TetVolumeArgs;

/**
 * A set holding one measure of each element at its rest value, C = measure − rest (a tet's
 * volume, a triangle's area; 000 §3.4.4): the rest measures, the kernels and the violation,
 * with the measure, its kernels and its error names given by the kind.
 */
abstract class MeasureConstraints extends ElementConstraints<MeasureArgs> {
  /** Rest measure per element. */
  rest: Float64Array;

  /**
   * @param elements `arity` particle indices per element; rest measures from `rest` positions
   * (default store.x)
   */
  constructor(
    store: ParticleStore,
    elements: ArrayLike<number>,
    params: ConstraintParams = {},
    rest?: ArrayLike<number>,
  ) {
    const [rule, code, label] = new.target.names;
    super(new ProjectionRule(params, rule));
    const n = elements.length / this.arity;
    const idx = Int32Array.from(elements);
    const X = rest ?? store.x;
    const r = new Float64Array(n);
    this.checkIndices(store, idx, code, label);
    for (let t = 0; t < n; t++) r[t] = this.measure(X, idx, t);
    [this.rest] = this.setElements(store, idx, [[r, 1]]);
  }

  /** The kind's names: of its ProjectionRule's messages, its bad-index error code, its label in that error. */
  static readonly names: readonly [rule: string, code: string, label: string];

  // The kind's measure is a method of its class, not a field: a worker's copy of the set
  // (src/parallel/mirror.ts) has the class's prototype but no function fields.
  /** The measure of element e (its particles idx[arity e …]) at positions x. */
  protected abstract measure(x: ArrayLike<number>, idx: Int32Array, e: number): number;

  protected kernelArgs(a: MeasureArgs): void {
    a.rest = this.rest;
  }

  maxViolation(store: ParticleStore): number {
    let m = 0;
    for (let c = 0; c < this.count; c++)
      m = Math.max(m, Math.abs(this.measure(store.x, this.indices, c) - this.rest[c]));
    return m;
  }
}

/**
 * Tetrahedron volume constraints (000 §3.4.4):
 *   C(p1, p2, p3, p4) = (1/6) (p2,1 × p3,1) · p4,1 − V0,
 * ∇p2 C = (1/6) p3,1 × p4,1, ∇p3 C = (1/6) p4,1 × p2,1, ∇p4 C = (1/6) p2,1 × p3,1,
 * ∇p1 C = −(∇p2 C + ∇p3 C + ∇p4 C). With distance constraints on the edges
 * this is the geometric soft body of the survey. Elements: four particle indices per tet.
 */
export class TetVolumeConstraints extends MeasureConstraints {
  readonly kind = 'tet-volume';
  readonly violationUnit = 'm³';
  static override readonly names = ['volume', 'volume/bad-index', 'volume constraint'] as const;

  protected measure(x: ArrayLike<number>, i: Int32Array, t: number): number {
    return tetVolume(x, i[4 * t], i[4 * t + 1], i[4 * t + 2], i[4 * t + 3]);
  }

  static readonly glue: ElementGlue<MeasureArgs> = tetVolumeGlue;
}

/**
 * Triangle area constraints (000 §3.4.4): C(p1, p2, p3) = ½ |p2,1 × p3,1| − A0,
 * with ∇p2 C = ½ (p3,1 × n̂), ∇p3 C = ½ (n̂ × p2,1),
 * n̂ the unit normal, and ∇p1 C = −(∇p2 C + ∇p3 C). Elements: three particle indices per
 * triangle.
 */
export class TriangleAreaConstraints extends MeasureConstraints {
  readonly kind = 'triangle-area';
  readonly violationUnit = 'm²';
  static override readonly names = ['area', 'area/bad-index', 'area constraint'] as const;

  protected measure(x: ArrayLike<number>, i: Int32Array, t: number): number {
    return triangleAreaOf(x, i[3 * t], i[3 * t + 1], i[3 * t + 2]);
  }

  static readonly glue: ElementGlue<MeasureArgs> = triangleAreaGlue;
}

/** Signed volume (1/6)(p2 − p1) × (p3 − p1) · (p4 − p1) of a tet. */
export function tetVolume(x: ArrayLike<number>, i1: number, i2: number, i3: number, i4: number): number {
  const a = 3 * i1,
    d = 3 * i4;
  edgeCross(x, a, 3 * i2, 3 * i3);
  return (
    (edgeCrossOut[0] * (x[d] - x[a]) +
      edgeCrossOut[1] * (x[d + 1] - x[a + 1]) +
      edgeCrossOut[2] * (x[d + 2] - x[a + 2])) /
    6
  );
}

/** Area ½ |(p2 − p1) × (p3 − p1)| of a triangle. */
export function triangleAreaOf(x: ArrayLike<number>, i1: number, i2: number, i3: number): number {
  edgeCross(x, 3 * i1, 3 * i2, 3 * i3);
  return 0.5 * Math.hypot(edgeCrossOut[0], edgeCrossOut[1], edgeCrossOut[2]);
}
