import { PbdError } from '../core/errors.js';
import type { ParticleStore } from '../core/particles.js';
import { type ConstraintParams, ProjectionRule } from '../core/solver.js';
import type { ElementGlue } from '../kernels/glue.js';
import { type DistanceArgs, distanceGlue } from './distance.generated.js';
import { ElementConstraints } from './element-set.js';

/**
 * Distance constraints C(p1, p2) = |p1 − p2| − d (003 §3.3, eqs. 10–11):
 * ∇_{p1} C = n, ∇_{p2} C = −n with n = (p1 − p2)/|p1 − p2|, so
 * Δp1 = w1 n Δλ, Δp2 = −w2 n Δλ with Δλ from the unified rule.
 *
 * `mode` makes the constraint unilateral: 'stretch' projects only when
 * |p1 − p2| > d (a tether or strain limit), 'compress' only when shorter.
 */
export type DistanceMode = 'both' | 'stretch' | 'compress';

export class DistanceConstraints extends ElementConstraints<DistanceArgs> {
  readonly kind: string;
  readonly violationUnit = 'm';
  mode: DistanceMode;
  /** Rest length per constraint (indices: two per constraint). */
  rest: Float64Array = new Float64Array(0);

  /**
   * @param pairs particle index pairs
   * @param rest  rest lengths; omitted → the current distances in `store.x`
   */
  constructor(
    store: ParticleStore,
    pairs: ArrayLike<number>,
    rest?: ArrayLike<number>,
    params: ConstraintParams = {},
    options: { kind?: string; mode?: DistanceMode } = {},
  ) {
    super(new ProjectionRule(params, options.kind ?? 'distance'));
    this.kind = options.kind ?? 'distance';
    this.mode = options.mode ?? 'both';
    this.setConstraints(store, pairs, rest);
  }

  /** Replaces all constraints (used by tearing); re-colours them. */
  setConstraints(store: ParticleStore, pairs: ArrayLike<number>, rest?: ArrayLike<number>): void {
    const n = pairs.length / 2;
    const idx = Int32Array.from(pairs);
    const r = new Float64Array(n);
    const x = store.x;
    for (let c = 0; c < n; c++) {
      const a = idx[2 * c],
        b = idx[2 * c + 1];
      if (!(a >= 0 && a < store.count && b >= 0 && b < store.count) || a === b) {
        throw new PbdError(
          'constraint/bad-index',
          `${this.kind} constraint ${c}`,
          `joins particles ${a} and ${b}`,
          'use two distinct existing particles',
        );
      }
      r[c] = rest
        ? rest[c]
        : Math.hypot(x[3 * a] - x[3 * b], x[3 * a + 1] - x[3 * b + 1], x[3 * a + 2] - x[3 * b + 2]);
      if (!(r[c] >= 0) || !Number.isFinite(r[c])) {
        throw new PbdError('constraint/bad-rest', `${this.kind} constraint ${c}`, `has rest length ${r[c]}`);
      }
    }
    [this.rest] = this.setElements(store, idx, [[r, 1]]);
  }

  static readonly glue: ElementGlue<DistanceArgs> = distanceGlue;

  /** 1: stretch only, 2: compress only, 0: both (distance.kernel.ts). */
  private get modeCode(): number {
    return this.mode === 'stretch' ? 1 : this.mode === 'compress' ? 2 : 0;
  }

  protected kernelArgs(a: DistanceArgs): void {
    a.rest = this.rest;
    a.mode = this.modeCode;
  }

  maxViolation(store: ParticleStore): number {
    const p = store.x,
      idx = this.indices,
      rest = this.rest;
    let m = 0;
    for (let c = 0; c < this.count; c++) {
      const a = 3 * idx[2 * c],
        b = 3 * idx[2 * c + 1];
      const C = Math.hypot(p[a] - p[b], p[a + 1] - p[b + 1], p[a + 2] - p[b + 2]) - rest[c];
      if (this.mode === 'stretch' && C <= 0) continue;
      if (this.mode === 'compress' && C >= 0) continue;
      m = Math.max(m, Math.abs(C));
    }
    return m;
  }
}

/** Value and gradients of one distance constraint, for tests and tools. Writes ∇_{p1}C, ∇_{p2}C into grad[0..5]. */
export function distanceConstraint(
  p: ArrayLike<number>,
  a: number,
  b: number,
  rest: number,
  grad: Float64Array,
): number {
  const dx = p[3 * a] - p[3 * b],
    dy = p[3 * a + 1] - p[3 * b + 1],
    dz = p[3 * a + 2] - p[3 * b + 2];
  const len = Math.hypot(dx, dy, dz);
  const inv = len > 0 ? 1 / len : 0;
  grad[0] = dx * inv;
  grad[1] = dy * inv;
  grad[2] = dz * inv;
  grad[3] = -dx * inv;
  grad[4] = -dy * inv;
  grad[5] = -dz * inv;
  return len - rest;
}
