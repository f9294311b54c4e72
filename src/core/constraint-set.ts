import type { ParticleStore } from './particles.js';
import type { StepContext } from './step-context.js';

export type { StepContext } from './step-context.js';

/**
 * How a method family plugs into the step loop (Algorithm 1 of seed 003).
 *
 * A set owns its constraints as typed arrays and projects all of them in
 * `project`. Every hook but `project` is optional. Within a stage, sets run
 * in ascending `order`, then in the order they were added.
 *
 * Stages of one substep (World.substep):
 *   1. applyForces      — line 5: external forces on v (wind, buoyancy …)
 *   2. dampVelocities   — line 6
 *   3. (prediction p = x + h v is done by the World)
 *   4. beginStep        — line 8: build collision constraints from x → p, move
 *                         kinematic targets, reset XPBD multipliers
 *   5. project × iterations — line 10: sets with order < 0 once, sets with
 *                         0 ≤ order < 100 forward then (symmetric sweep) backward
 *                         with ctx.reverse = true, sets with order ≥ 100 once
 *   6. (v = (p − x)/h, x = p is done by the World)
 *   7. endStep          — line 16: friction, restitution, XSPH, plasticity, tearing
 */
export interface ConstraintSet {
  /** A short name of the constraint type, e.g. `'distance'`, `'dihedral-bending'`. */
  readonly kind: string;
  /** Stage order: lower runs first in every stage. Material constraints use 0, collisions 100. */
  readonly order?: number;
  /** Switched off sets are skipped entirely. */
  enabled: boolean;
  /** Number of constraints (for statistics). */
  readonly count: number;
  /** Number of colour batches, when the set is coloured. */
  readonly colors?: number;
  /** 'wasm' when a WebAssembly SIMD kernel projects the set (bit-identical to its JavaScript kernel). */
  readonly activeBackend?: 'wasm' | 'js';

  applyForces?(ctx: StepContext): void;
  dampVelocities?(ctx: StepContext): void;
  beginStep?(ctx: StepContext): void;
  project(ctx: StepContext): void;
  endStep?(ctx: StepContext): void;

  /** Largest absolute violation |C| over the set (in the set's units), for statistics. */
  maxViolation?(store: ParticleStore): number;
  /**
   * The unit of `maxViolation`, for readouts and plots: 'm', 'rad', 'm²',
   * 'm³', or 'relative' (a fraction of a rest value: volume, density).
   * Every set with `maxViolation` should say.
   */
  readonly violationUnit?: string;
  /** Dynamic state that a checkpoint must carry (plastic strain, torn topology …). */
  saveState?(): unknown;
  loadState?(state: unknown): void;
}

/** A set whose constraints can be counted per kind for `pbdkit info`. */
export function describeSet(set: ConstraintSet): { kind: string; count: number; colors: number } {
  return { kind: set.kind, count: set.count, colors: set.colors ?? 1 };
}
