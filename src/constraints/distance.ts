import { colorConstraints, permuteRecords } from '../core/coloring.js';
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { PbdError } from '../core/errors.js';
import type { ParticleStore } from '../core/particles.js';
import { type ConstraintParams, ProjectionRule } from '../core/solver.js';
import { sweepDistance } from '../wasm/element-kernels.generated.js';
import { type ElementKernel, elementKernel } from '../wasm/element-kernels.js';
import { projectDistance } from './distance.generated.js';

/**
 * Distance constraints C(p1, p2) = |p1 − p2| − d (003 §3.3, eqs. 10–11):
 * ∇_{p1} C = n, ∇_{p2} C = −n with n = (p1 − p2)/|p1 − p2|, so
 * Δp1 = w1 n Δλ, Δp2 = −w2 n Δλ with Δλ from the unified rule.
 *
 * `mode` makes the constraint unilateral: 'stretch' projects only when
 * |p1 − p2| > d (a tether or strain limit), 'compress' only when shorter.
 */
export type DistanceMode = 'both' | 'stretch' | 'compress';

export class DistanceConstraints implements ConstraintSet {
  readonly kind: string;
  readonly violationUnit = 'm';
  readonly order = 0;
  enabled = true;
  readonly rule: ProjectionRule;
  mode: DistanceMode;
  /** Two particle indices per constraint, sorted by colour. */
  indices: Int32Array = new Int32Array(0);
  /** Rest length per constraint. */
  rest: Float64Array = new Float64Array(0);
  /** XPBD multiplier per constraint (reset every substep). */
  lambda: Float64Array = new Float64Array(0);
  /** Colour batch boundaries. */
  colorOffsets: Int32Array = new Int32Array(1);
  count = 0;
  colors = 0;
  /**
   * 'auto' projects with the WebAssembly SIMD kernel (generated with the
   * JavaScript kernel from distance.kernel.ts: two constraints of a colour per
   * f64x2, bit-identical) when the engine has one and the set has no XPBD
   * damping; 'js' always with the JavaScript kernel.
   */
  backend: 'auto' | 'js' = 'auto';
  private simd: ElementKernel | null = null;

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
    this.kind = options.kind ?? 'distance';
    this.mode = options.mode ?? 'both';
    this.rule = new ProjectionRule(params, this.kind);
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
    const col = colorConstraints(idx, 2, n, store.count);
    this.indices = permuteRecords(idx, 2, col.order);
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

  /** The SIMD kernel when it applies (see `backend`), built on first use and after setConstraints. */
  private simdKernel(): ElementKernel | null {
    this.simd = elementKernel(this, 2, null, 0, this.rest, this.simd);
    return this.simd;
  }

  /** Which kernel projects this set now: 'wasm' (SIMD) or 'js'. */
  get activeBackend(): 'wasm' | 'js' {
    return this.simdKernel() === null ? 'js' : 'wasm';
  }

  project(ctx: StepContext): void {
    const store = ctx.store;
    const mode = this.mode === 'stretch' ? 1 : this.mode === 'compress' ? 2 : 0;
    const r = this.rule;
    const simd = this.simdKernel();
    if (simd !== null) sweepDistance(simd, store, ctx.reverse, r.kPrime, r.alphaTilde, mode);
    else this.projectJs(ctx, 0, this.count, ctx.reverse);
  }

  projectColorRange(ctx: StepContext, _color: number, from: number, to: number): void {
    this.projectJs(ctx, from, to, false);
  }

  /** The JavaScript kernel (distance.kernel.ts) over constraints [from, to), backward when `reverse`. */
  private projectJs(ctx: StepContext, from: number, to: number, reverse: boolean): void {
    const store = ctx.store;
    const r = this.rule;
    const mode = this.mode === 'stretch' ? 1 : this.mode === 'compress' ? 2 : 0;
    projectDistance(
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
      mode,
    );
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
