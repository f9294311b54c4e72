import type { ParticleStore, PredictedWindow } from './particles.js';
import type { StepContext } from './step-context.js';

export type { StepContext } from './step-context.js';

/**
 * How a method family plugs into the step (Algorithm 1 of seed 003).
 *
 * A set owns its constraints as typed arrays and projects all of them in
 * `project`. Every hook but `project` is optional. The World runs each hook
 * of every set in one stage of its pipeline (core/stages.ts), the sets in
 * ascending `order`, then the world's own systems' sets first, then in the
 * order they were added:
 *
 *   forces   applyForces     line 5: external forces on v (wind, buoyancy …)
 *            dampVelocities  line 6 (rigid-mode damping)
 *   predict  (p = x + h v, orientations, rigid bodies: the core's stages)
 *   prepare  beginStep       line 8: build collision constraints from x → p, move
 *                            kinematic targets, reset XPBD multipliers
 *   solve    project × iterations, line 10: sets with order < 0 once, sets with
 *                            0 ≤ order < 100 forward then (symmetric sweep) backward
 *                            with ctx.reverse = true, sets with order ≥ 100 once
 *                            (those with midSweep also between the two halves)
 *   update   (v = (p − x)/h, x = p, angular velocities: the core's stages)
 *   finish   endStep         line 16: friction, restitution, XSPH, plasticity, tearing
 *
 * Coloured sets may also expose their colour batches (`colorOffsets`,
 * `projectColorRange`), so that a parallel scheduler can split a colour over
 * threads without knowing the set.
 */
export interface ConstraintSet {
  /** A short name of the constraint type, e.g. `'distance'`, `'dihedral-bending'`. */
  readonly kind: string;
  /** Stage order: lower runs first in every stage. Material constraints use 0, collisions 100. */
  readonly order?: number;
  /**
   * A contact set (order ≥ 100) that is projected as often as the material constraints: under the
   * symmetric sweep also between its forward and backward halves (core/stages.ts ProjectionStage).
   */
  readonly midSweep?: boolean;
  /** Switched off sets are skipped entirely. */
  enabled: boolean;
  /** Number of constraints (for statistics). */
  readonly count: number;
  /** Number of colour batches, when the set is coloured. */
  readonly colors?: number;
  /** Colour c holds the constraints [colorOffsets[c], colorOffsets[c + 1]) (length colors + 1). */
  readonly colorOffsets?: Int32Array;
  /** 'wasm' when a WebAssembly SIMD kernel projects the set (bit-identical to its JavaScript kernel). */
  readonly activeBackend?: 'wasm' | 'js';
  /**
   * True for a set that reads and writes the predicted positions only through a paired kernel's
   * window or after ParticleStore.settle (ElementConstraints): the projection stage leaves a held
   * window held before it (ParticleStore.held), and copies it out before every other set.
   */
  readonly sharesWindow?: boolean;
  /**
   * True when its hooks (applyForces, dampVelocities, beginStep, endStep) neither read nor write
   * the predicted positions p before the step's last substep: the prediction may then write a
   * kernel's window instead of p (src/core/window-passes.ts). A set with a hook and without it
   * keeps the world on p.
   */
  readonly skipsPredicted?: boolean;
  /**
   * True when its beginStep hook reads no particle's x, v or p and writes p only outside a kernel's
   * window or through the window's `place` (the stiff attachments' pins; ElementConstraints: no
   * particle at all): a threaded world's prediction into a window swept on the pool may then run in
   * that sweep's copy-in blocks, after the hook (window-passes.ts predictsInSweep). A set with a
   * beginStep hook and without it keeps the prediction before the hooks.
   */
  readonly beginsOnWindow?: boolean;
  /**
   * True when its endStep hook of substep ctx.substep and its applyForces and dampVelocities hooks
   * of the next substep leave the particles' x, v and p alone (the cloth's without wind): the
   * velocity update may then predict the next substep in the same pass (window-passes.ts). A set
   * with one of those hooks and without this method keeps the two passes apart.
   */
  leavesParticles?(ctx: StepContext): boolean;
  /**
   * The f32 window its projection loads first, where the prediction may write it (window-passes.ts),
   * else null. A set that shares the window (sharesWindow) without this method projects nothing: the
   * prediction looks past it.
   */
  predictionWindow?(ctx: StepContext): PredictedWindow | null;

  applyForces?(ctx: StepContext): void;
  dampVelocities?(ctx: StepContext): void;
  beginStep?(ctx: StepContext): void;
  project(ctx: StepContext): void;
  /**
   * Projects the constraints [from, to) — part of colour `color`'s batch —
   * on the store's arrays, with the JavaScript kernel. Constraints of one
   * colour share no movable particle, so calls for disjoint ranges of one
   * colour may run concurrently (workers over shared memory) and in any
   * order with the same result; `project(ctx)` gives what projecting every
   * colour in turn gives, the last colour first when `ctx.reverse`.
   */
  projectColorRange?(ctx: StepContext, color: number, from: number, to: number): void;
  /**
   * One Jacobi pass with averaging (used instead of `project` when the world's
   * `solve` is 'jacobi'): every constraint from the same positions, each
   * particle moved by ω times the mean of its corrections. Sets without it
   * are projected by Gauss–Seidel in every mode.
   */
  projectJacobi?(ctx: StepContext): void;
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
