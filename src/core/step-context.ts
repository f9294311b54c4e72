import type { Vec3Tuple } from './motion.js';
import type { ParticleStore } from './particles.js';
import type { RigidStore } from './rigid-store.js';
import type { SolverKind } from './solver.js';
import type { StepTimings } from './timings.js';
import type { WorldCollider } from './world-collider.js';

/** Wind: a base velocity with optional deterministic gusts. */
export interface WindOptions {
  /** Wind velocity (m/s). */
  velocity: Vec3Tuple;
  /** Relative gust strength (0 = steady). Default 0. */
  gust?: number;
  /** Gust frequency (Hz). Default 0.5. */
  gustFrequency?: number;
}

/** Gauss–Seidel sweep order, see WorldOptions.sweep. */
export type SweepKind = 'symmetric' | 'forward';

/**
 * The per-particle history of the BDF2 integrator (core/bdf2.ts's
 * Bdf2History): 3 numbers per particle in the Float64Arrays, 1 in the flags.
 */
export interface ParticleHistory {
  /** x_{n−1}, v_{n−1}. */
  xPrev: Float64Array;
  vPrev: Float64Array;
  /** x_n as the last update left it; v_n at the start of the substep. */
  xLast: Float64Array;
  vLast: Float64Array;
  /** 1 where the particle has a history; 1 where this substep's prediction was second order. */
  has: Uint8Array;
  second: Uint8Array;
  /** False until an update was recorded. */
  started: boolean;
  /** Grows the arrays to n particles. */
  ensure(n: number): void;
}

/** The time integrator, see WorldOptions.integrator. */
export type IntegratorKind = 'implicit-euler' | 'bdf2';

/** How the constraint sets are iterated, see WorldOptions.solve. */
export type SolveKind = 'gauss-seidel' | 'jacobi';

/** The floating-point precision of the cloth kernels, see WorldOptions.precision. */
export type PrecisionKind = 'f64' | 'f32';

/** Per-step statistics. */
export interface StepStats {
  /** Wall time of the last step (ms). */
  stepMs: number;
  /** Particles whose state became non-finite and were reset (should stay 0). */
  recoveries: number;
  /** Particle moves held back to maxSpeed (should stay 0 in a well-posed scene). */
  speedClamps: number;
}

/**
 * What the stages of a step see of the World: its stores, colliders and
 * settings. The World implements it; the core's stages and the constraint
 * sets read the world through it, so that nothing below the World class
 * depends on that class (docs/architecture.md, "The core and the families").
 */
export interface WorldView {
  readonly store: ParticleStore;
  readonly rigids: RigidStore;
  readonly colliders: readonly WorldCollider[];
  /** Gravity (m/s²). */
  readonly gravity: Float64Array;
  /** Point damping rate c (1/s). */
  readonly damping: number;
  /** No particle moves faster than this (m/s). */
  readonly maxSpeed: number;
  readonly sweep: SweepKind;
  /** 'gauss-seidel' (colour by colour) or 'jacobi' (averaged, for sets that offer it). */
  readonly solve: SolveKind;
  /** Relaxation ω of the Jacobi passes. */
  readonly relaxation: number;
  /** 'f64', or 'f32' for the sets whose kernels have an f32 mode (distance, dihedral bending). */
  readonly precision: PrecisionKind;
  readonly wind: WindOptions | null;
  /** 'implicit-euler' (Algorithm 1 of 003) or 'bdf2' (seed 004, core/bdf2.ts). */
  readonly integrator: IntegratorKind;
  /** The BDF2 integrator's per-particle history; null under implicit Euler. */
  readonly history: ParticleHistory | null;
  /** Wind velocity at time t into out[0..2] (zero when there is no wind). */
  windAt(t: number, out: Float64Array): void;
  readonly stats: StepStats;
}

/**
 * Data-parallel work of a constraint set's hooks on the worker pool of a
 * threaded world (src/parallel/, docs/solver.md "Threads"): a task kind
 * registered in src/parallel/registry.ts, run over items [0, n) cut into
 * blocks; block b covers [b·B, min(n, (b + 1)·B)) with B = ⌈n / blocks⌉,
 * and the kernel gets (args, from, to, b). Its arguments are numbers and
 * typed arrays on SharedArrayBuffer, sent to the workers between steps
 * whenever `version` changed; each block must write only its own outputs,
 * so that joining them in block order gives the serial result.
 */
export interface SharedTask {
  /** The kernel's name in the registry. */
  readonly kind: string;
  args: Record<string, unknown>;
  /** Bumped by the owner whenever `args` holds other arrays. */
  version: number;
}

/**
 * The most blocks one job is cut into (TaskRunner.runTask's `blocks`): the pool's job word holds a
 * block number in its low 8 bits (src/parallel/protocol.ts, which exports this number).
 */
export const MAX_BLOCKS = 255;

export interface TaskRunner {
  readonly threads: number;
  /**
   * Runs the task's blocks on the calling thread and the workers and returns
   * true when all are done; false (nothing ran) when it cannot use the pool
   * now (not in a step, workers not started, or the workers have not
   * received this version of the arguments yet): the caller does the work.
   * `lead` (optional): work of the calling thread alone, independent of the
   * blocks, run once the job is open and before the calling thread claims a
   * block (so that it overlaps the workers' blocks); not run when false is
   * returned.
   */
  runTask(task: SharedTask, n: number, blocks: number, lead?: (() => void) | null): boolean;
}

/**
 * What a constraint set or a stage sees during a substep. One object per
 * World, updated in place (no allocation per step).
 */
export interface StepContext {
  readonly world: WorldView;
  /** The particle store (x, p, v …, and the orientation channels). */
  readonly store: ParticleStore;
  /** The rigid-body store. */
  readonly rigids: RigidStore;
  /** The projection rule of this step. */
  solver: SolverKind;
  /** Substep length h (s). */
  h: number;
  /** 1 / h. */
  invH: number;
  /**
   * The step of the implicit problem the constraint solve answers, for
   * XPBD's α̃ = α / hSolve² and γ: h under implicit Euler, 2h/3 under BDF2
   * (core/bdf2.ts).
   */
  hSolve: number;
  /** Simulated time at the end of the current substep (s). */
  time: number;
  /** Index of the current substep within the step, and their number. */
  substep: number;
  substeps: number;
  /** Index of the current solver iteration, and their number per substep. */
  iteration: number;
  iterations: number;
  /**
   * How many times each material set (0 ≤ order < 100) is projected in this
   * substep: `iterations`, or twice that under the symmetric sweep (forward
   * then backward). The PBD stiffness k′ of 003 §3.3 is computed from this
   * count, so that k means the same in every sweep mode.
   */
  passes: number;
  /** Gravity (m/s²). */
  gravity: Float64Array;
  /**
   * True during the backward half of a symmetric sweep: sets project their
   * constraints (colour batches) in reverse order. See World.sweep.
   */
  reverse: boolean;
  /** Where the time of the step goes: a family may add the parts it times itself (World.timings). */
  readonly timings: StepTimings;
  /** The worker pool's data-parallel tasks in a threaded world, else absent or null. */
  tasks?: TaskRunner | null;
}
