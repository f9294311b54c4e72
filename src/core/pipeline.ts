import type { ConstraintSet } from './constraint-set.js';
import { PbdError } from './errors.js';
import type { ParticleStore } from './particles.js';
import type { StepContext, TaskRunner } from './step-context.js';
import { clock } from './timings.js';

/**
 * The phases of one substep, in order (Algorithm 1 of seed 003, lines 5–16):
 *
 * - `begin`    kinematic colliders move to their pose at the end of the substep
 * - `forces`   external forces and damping on v (line 5–6): the sets' hooks
 * - `predict`  p = x + h v, and the orientation and rigid-body predictions (line 7)
 * - `prepare`  collision constraints from x → p, kinematic targets, multiplier reset (line 8)
 * - `solve`    the constraint projection, `iterations` times (lines 9–11)
 * - `update`   v = (p − x)/h, x = p, and the angular velocities (lines 12–15)
 * - `finish`   velocity passes (friction, restitution, XSPH), plasticity, tearing (line 16)
 */
export const PHASES = ['begin', 'forces', 'predict', 'prepare', 'solve', 'update', 'finish'] as const;
export type Phase = (typeof PHASES)[number];

/**
 * Names of the data a stage reads and writes. Families may name their own
 * (a contact list, a rigid-body solver's state) as `'family.what'`.
 */
export const Channels = {
  /** Particle positions x, predicted positions p, velocities v. */
  x: 'particles.x',
  p: 'particles.p',
  v: 'particles.v',
  /** Masses and inverse masses. */
  mass: 'particles.mass',
  /** Per-particle orientation channels: q, predicted q, angular velocity, inertia. */
  q: 'particles.q',
  qp: 'particles.qp',
  omega: 'particles.omega',
  inertia: 'particles.inertia',
  /** Rigid bodies: pose (position, orientation), previous pose, linear and angular velocity, mass and inertia. */
  rigidPose: 'rigids.pose',
  rigidPrevPose: 'rigids.prevPose',
  rigidVelocity: 'rigids.velocity',
  rigidMass: 'rigids.mass',
  /** Collider poses and velocities. */
  colliders: 'colliders',
  /** The constraint sets' own state: multipliers, contact lists, caches. */
  sets: 'sets',
} as const;

/**
 * One stage of the step: what it does, when (`phase`, then `order` within
 * the phase, then the order stages were added), and what it reads and
 * writes, so that a scheduler can decide where and how to run it.
 *
 * A stage whose work is independent per item (particle, rigid body) says so
 * with `items` and `runRange`: calls of `runRange` on disjoint ranges may run
 * concurrently, and `run` is the same as `runRange(ctx, 0, items(ctx))`. A
 * stage without them runs whole, on one thread.
 */
export interface Stage {
  /** 'particles.predict', 'sets.beginStep' …: unique within a pipeline. */
  readonly name: string;
  readonly phase: Phase;
  /** Order within the phase; lower runs first. Default 0. */
  readonly order?: number;
  readonly reads: readonly string[];
  readonly writes: readonly string[];
  /** Runs the whole stage; composite stages (the solver) hand their parts to the scheduler. */
  run(ctx: StepContext, scheduler: Scheduler): void;
  /** Number of independent items, for data-parallel stages. */
  items?(ctx: StepContext): number;
  /** Runs items [from, to); safe to call concurrently for disjoint ranges. */
  runRange?(ctx: StepContext, from: number, to: number): void;
}

/** A data-parallel stage: `run` is `runRange` over all its items. */
export abstract class RangeStage implements Stage {
  abstract readonly name: string;
  abstract readonly phase: Phase;
  abstract readonly reads: readonly string[];
  abstract readonly writes: readonly string[];
  abstract items(ctx: StepContext): number;
  abstract runRange(ctx: StepContext, from: number, to: number): void;

  run(ctx: StepContext): void {
    this.runRange(ctx, 0, this.items(ctx));
  }
}

/** A data-parallel stage whose items are the store's particles (the prediction, the update, the velocity history). */
export abstract class ParticleRangeStage extends RangeStage {
  items(ctx: StepContext): number {
    return ctx.store.count;
  }
}

/**
 * Runs the stages of a step. The serial scheduler runs each stage whole and
 * projects each constraint set with `project`, on the calling thread, which
 * is how every number in pbdkit is defined. A parallel scheduler may split a
 * data-parallel stage's items, and a set's colour batches
 * (`ConstraintSet.projectColorRange`), over workers that share the stores' memory
 * (`sharedMemory`), or run a stage on the GPU; it must give the same results.
 */
export interface Scheduler {
  /** Runs one stage of the pipeline. */
  run(stage: Stage, ctx: StepContext): void;
  /** Projects one constraint set once (one sweep, in the direction ctx.reverse says). */
  project(set: ConstraintSet, ctx: StepContext): void;
  /** Threads the scheduler computes on (1 for the serial one). */
  readonly threads?: number;
  /** Data-parallel tasks of the sets' hooks on its workers (StepContext.tasks). */
  readonly tasks?: TaskRunner;
  /** Called by World.step before its substeps (a worker pool wakes its workers). */
  beginStep?(): void;
  /** Called by World.step after its substeps, also when a substep threw (the workers go idle). */
  endStep?(): void;
  /** Resolves when every worker is running (steps before that run on fewer threads, with the same results). */
  ready?(): Promise<void>;
  /** Releases the scheduler's workers (World.dispose). */
  dispose?(): void;
}

/**
 * A pass that may run a whole substep in place of the pipeline: a family's
 * fused pass for the worlds it recognises (src/strands/fused-pass.ts). It
 * checks the world's plan each substep and returns false, having done
 * nothing, where it does not hold; it must give the pipeline's numbers.
 */
export interface SubstepPass {
  run(ctx: StepContext, scheduler: Scheduler): boolean;
}

/**
 * Makes the scheduler of a world built with `threads: n` (n > 1). The core
 * has no worker pool of its own: src/parallel/ installs one
 * (`World.threadedScheduler`) when the package is imported, so that the core
 * stays free of Node and DOM APIs.
 */
export type ThreadedSchedulerFactory = (world: ThreadedWorld, threads: number) => Scheduler;

/** What a threaded scheduler needs of the World (the World implements it). */
export interface ThreadedWorld {
  readonly sets: readonly ConstraintSet[];
  readonly store: ParticleStore;
  /** The kernels' precision (World.precision): an f32 set's colour batches need its f32 kernels. */
  readonly precision?: 'f64' | 'f32';
}

/** Everything on the calling thread, in order: the definition of every result. */
export class SerialScheduler implements Scheduler {
  run(stage: Stage, ctx: StepContext): void {
    stage.run(ctx, this);
  }

  project(set: ConstraintSet, ctx: StepContext): void {
    set.project(ctx);
  }
}

/** The ordered stages of one substep (see Phase). */
export class Pipeline {
  /** Sorted by phase, order, then insertion. */
  readonly stages: Stage[] = [];
  private readonly rank = new Map<Stage, number>();
  private counter = 0;

  /** Adds a stage at its place (phase, order, insertion). Names must be unique. */
  add(stage: Stage): Stage {
    if (!PHASES.includes(stage.phase)) {
      throw new PbdError(
        'pipeline/phase',
        `stage '${stage.name}'`,
        `has the unknown phase '${stage.phase}'`,
        `use one of ${PHASES.join(', ')}`,
      );
    }
    if (this.stages.some((s) => s.name === stage.name)) {
      throw new PbdError(
        'pipeline/duplicate',
        `stage '${stage.name}'`,
        'is already in the pipeline',
        'give each stage a unique name',
      );
    }
    this.rank.set(stage, this.counter++);
    this.stages.push(stage);
    this.stages.sort(
      (a, b) =>
        PHASES.indexOf(a.phase) - PHASES.indexOf(b.phase) ||
        (a.order ?? 0) - (b.order ?? 0) ||
        this.rank.get(a)! - this.rank.get(b)!,
    );
    return stage;
  }

  remove(stage: Stage): void {
    const k = this.stages.indexOf(stage);
    if (k >= 0) this.stages.splice(k, 1);
    this.rank.delete(stage);
  }

  /** The stage of this name, or undefined. */
  find(name: string): Stage | undefined {
    return this.stages.find((s) => s.name === name);
  }

  /** Runs one substep: every stage in order, by the scheduler, timing each (ctx.timings, the stage's name). */
  run(ctx: StepContext, scheduler: Scheduler): void {
    const stages = this.stages;
    const timings = ctx.timings;
    const slots = this.slots;
    // one clock reading between consecutive stages ends one and starts the next (a reading costs
    // ~0.1 µs, a few percent of a small rigid world's substep when every stage took two)
    let t0 = clock();
    for (let k = 0; k < stages.length; k++) {
      const stage = stages[k];
      let slot = slots.get(stage);
      if (slot === undefined) {
        slot = timings.slot(stage.name);
        slots.set(stage, slot);
      }
      scheduler.run(stage, ctx);
      const t1 = clock();
      timings.add(slot, t1 - t0);
      t0 = t1;
    }
  }

  private readonly slots = new Map<Stage, number>();
}
