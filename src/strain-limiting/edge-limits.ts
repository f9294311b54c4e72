/**
 * Edge strain limits (survey 000 §3.5, after Provot 1995 and Bridson et
 * al. 2003): every edge of rest length L keeps its length in
 * [s_min·L, s_max·L]. That is a unilateral pair of distance constraints,
 *
 *   C_max = |p_i − p_j| − s_max L ≤ 0,   C_min = |p_i − p_j| − s_min L ≥ 0,
 *
 * each projected only while violated (003 §3.3, eqs. 10–11). They are the
 * 'stretch' and 'compress' modes of DistanceConstraints, so they run on the
 * same coloured kernels (WebAssembly SIMD where available) in PBD and XPBD.
 */
import { DistanceConstraints } from '../constraints/distance.js';
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { PbdError, requireAtLeast } from '../core/errors.js';
import type { ParticleStore } from '../core/particles.js';
import type { ConstraintParams } from '../core/solver.js';

/** Bounds of a stretch ratio: current length (or principal stretch) over rest. */
export interface StretchRange {
  /** Smallest ratio, in [0, 1]. Default 0 (no compression limit). */
  min?: number;
  /** Largest ratio, ≥ 1. Default 1.1. */
  max?: number;
}

/** Options of a strain limit: its range and the PBD stiffness / XPBD compliance of the limit. */
export type StrainLimitParams = StretchRange & ConstraintParams;

/** Checks a stretch range; errors name the field and the fix. */
export function checkStretchRange(r: StretchRange, where: string): { min: number; max: number } {
  const min = r.min ?? 0;
  const max = r.max ?? 1.1;
  if (!(min >= 0 && min <= 1)) {
    throw new PbdError(
      'strain-limit/min',
      `${where}.min`,
      `must lie in [0, 1], got ${r.min}`,
      'the smallest stretch ratio: 0.9 lets an edge shrink to 90 % of its rest length',
    );
  }
  requireAtLeast(
    max,
    1,
    'strain-limit/max',
    `${where}.max`,
    'the largest stretch ratio: 1.1 lets an edge stretch to 110 % of its rest length',
  );
  return { min, max };
}

/** Edge strain limits: the unilateral pair of distance constraints on every edge. */
export class EdgeStrainLimits implements ConstraintSet {
  readonly kind = 'edge-strain-limit';
  readonly violationUnit = 'm';
  readonly order = 0;
  enabled = true;
  readonly min: number;
  readonly max: number;
  /** C_max ≤ 0 on every edge. */
  readonly upper: DistanceConstraints;
  /** C_min ≥ 0 on every edge, or null when min = 0. */
  readonly lower: DistanceConstraints | null;
  private readonly params: ConstraintParams;

  /**
   * @param edges global particle index pairs
   * @param rest  rest length of each edge
   */
  constructor(
    store: ParticleStore,
    edges: ArrayLike<number>,
    rest: ArrayLike<number>,
    o: StrainLimitParams,
    where = 'edge strain limit',
  ) {
    const { min, max } = checkStretchRange(o, where);
    this.min = min;
    this.max = max;
    this.params = { stiffness: o.stiffness, compliance: o.compliance, damping: o.damping };
    this.upper = new DistanceConstraints(store, edges, scaled(rest, max), this.params, {
      kind: 'edge-strain-max',
      mode: 'stretch',
    });
    this.lower =
      min > 0
        ? new DistanceConstraints(store, edges, scaled(rest, min), this.params, {
            kind: 'edge-strain-min',
            mode: 'compress',
          })
        : null;
  }

  /** Replaces the edges (tearing). */
  setEdges(store: ParticleStore, edges: ArrayLike<number>, rest: ArrayLike<number>): void {
    this.upper.setConstraints(store, edges, scaled(rest, this.max));
    this.lower?.setConstraints(store, edges, scaled(rest, this.min));
  }

  get count(): number {
    return this.upper.count + (this.lower?.count ?? 0);
  }

  get colors(): number {
    return this.upper.colors;
  }

  get activeBackend(): 'wasm' | 'js' {
    return this.upper.activeBackend;
  }

  beginStep(ctx: StepContext): void {
    this.upper.beginStep(ctx);
    this.lower?.beginStep(ctx);
  }

  project(ctx: StepContext): void {
    if (ctx.reverse && this.lower) this.lower.project(ctx);
    this.upper.project(ctx);
    if (!ctx.reverse && this.lower) this.lower.project(ctx);
  }

  /** Largest violation of a limit over the edges (m), at x. */
  maxViolation(store: ParticleStore): number {
    return Math.max(this.upper.maxViolation(store), this.lower?.maxViolation(store) ?? 0);
  }
}

function scaled(rest: ArrayLike<number>, s: number): Float64Array {
  const out = new Float64Array(rest.length);
  for (let k = 0; k < rest.length; k++) out[k] = rest[k] * s;
  return out;
}
