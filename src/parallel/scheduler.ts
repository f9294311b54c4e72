/**
 * The threaded scheduler of a world built with `threads` > 1 (docs/solver.md,
 * "Threads"): the colour batches of the element constraint sets (distance,
 * bending, FEM triangles and tets, volume and area, strain limits — see
 * registry.ts) are cut into fixed blocks projected by the calling thread and
 * the pool's workers at once, over the SharedArrayBuffer store; everything
 * else runs on the calling thread as the serial scheduler runs it.
 *
 * Deterministic: constraints of one colour share no movable particle, so a
 * colour's blocks give the same numbers in any order on any thread, and the
 * colours run in the serial order (the last first when ctx.reverse). A set
 * projected by colour ranges uses its JavaScript kernel, which gives the
 * numbers of its WebAssembly twin bit for bit (docs/architecture.md), so
 * the results of every thread count are the serial scheduler's, bit for bit.
 * An element set whose WebAssembly kernel can run on the pool (a shared
 * memory: ElementConstraints.threadMode 'wasm') is not sent here: its own
 * project runs its colours' blocks through the tasks (src/wasm/element-threads.ts).
 */

import { ElementConstraints } from '../constraints/element-set.js';
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { PbdError } from '../core/errors.js';
import type { Scheduler, Stage, ThreadedWorld } from '../core/pipeline.js';
import type { SharedTask, TaskRunner } from '../core/step-context.js';
import { Mirror } from './mirror.js';
import { acquirePool, type WorkerPool } from './pool.js';
import { MAX_BLOCKS, TASK_JOB, writeContext } from './protocol.js';
import { kindModule, parallelKind, parallelTasks, type TaskKernel } from './registry.js';

/** Sets with fewer constraints stay on the calling thread. */
export const PARALLEL_MIN_SET = 256;
/** Colour batches with fewer constraints are projected by the calling thread alone. */
export const PARALLEL_MIN_COLOR = 256;
/** Constraints per block aimed at (blocks: at least two per thread). */
const BLOCK_TARGET = 1024;

interface Entry {
  id: number;
  gen: number;
  mirror: Mirror;
}

let nextId = 1;

export class ThreadedScheduler implements Scheduler, TaskRunner {
  readonly threads: number;
  private readonly world: ThreadedWorld;
  private readonly pool: WorkerPool;
  private readonly entries = new Map<ConstraintSet, Entry>();
  private readonly storeId = nextId++;
  private storeMirror: Mirror | null = null;
  private inStep = false;
  // the projection the calling thread runs for the blocks it claims (one closure, no allocation per job)
  private curSet: ConstraintSet | null = null;
  private curCtx: StepContext | null = null;
  private curColor = 0;
  private readonly own = (from: number, to: number): void => {
    this.curSet!.projectColorRange!(this.curCtx!, this.curColor, from, to);
  };

  /** The data-parallel tasks sent to the workers: their ids and the argument version they hold. */
  private readonly taskEntries = new Map<SharedTask, { id: number; gen: number; version: number }>();
  private curTask: SharedTask | null = null;
  private curKernel: TaskKernel | null = null;
  private readonly ownTask = (from: number, to: number, block: number): void => {
    this.curKernel!(this.curTask!.args, from, to, block);
  };

  /** This scheduler runs the sets' data-parallel tasks (StepContext.tasks). */
  get tasks(): TaskRunner {
    return this;
  }

  constructor(world: ThreadedWorld, threads: number) {
    this.world = world;
    this.threads = threads;
    this.pool = acquirePool(threads);
  }

  /** Blocks of colour batches the workers ran so far (all worlds of this thread count). */
  get workerBlocks(): number {
    return this.pool.workerBlocks;
  }

  run(stage: Stage, ctx: StepContext): void {
    stage.run(ctx, this);
  }

  ready(): Promise<void> {
    return this.pool.ready();
  }

  /** Sends new and changed sets (and the store) to the workers, then lets them into the step. */
  beginStep(): void {
    const pool = this.pool;
    if (!pool.active) return;
    const store = this.world.store;
    if (this.storeMirror === null || !this.storeMirror.current()) {
      this.storeMirror = new Mirror(store);
      pool.send({ type: 'store', id: this.storeId, mirror: this.storeMirror.message });
    }
    const sets = this.world.sets;
    for (let k = 0; k < sets.length; k++) {
      const set = sets[k];
      const kind = parallelKind(set);
      if (kind < 0 || !set.enabled || !set.projectColorRange || !set.colorOffsets) continue;
      if (set.count < PARALLEL_MIN_SET) continue;
      // an element set whose WebAssembly kernel runs on the pool itself (project, element-threads.ts)
      if (set instanceof ElementConstraints && set.threadMode(this.world.precision) !== 'ranges') {
        this.entries.delete(set);
        continue;
      }
      const e = this.entries.get(set);
      if (e?.mirror.current()) continue;
      // colour ranges use the JavaScript kernel (bit-identical to the paired one), on the shared arrays
      if ('backend' in set) (set as { backend: string }).backend = 'js';
      const mirror = new Mirror(set);
      const entry: Entry = { id: e?.id ?? nextId++, gen: ++pool.gen, mirror };
      this.entries.set(set, entry);
      pool.send({
        type: 'set',
        id: entry.id,
        gen: entry.gen,
        kind,
        module: kindModule(kind),
        store: this.storeId,
        mirror: mirror.message,
      });
    }
    pool.beginStep();
    this.inStep = true;
  }

  endStep(): void {
    this.inStep = false;
    this.pool.endStep();
  }

  project(set: ConstraintSet, ctx: StepContext): void {
    const e = this.inStep ? this.entries.get(set) : undefined;
    if (e === undefined || !this.pool.active || !e.mirror.current() || !this.storeMirror!.current()) {
      set.project(ctx);
      return;
    }
    // the workers read the store's positions: a paired kernel's held window goes there first
    ctx.store.settle();
    e.mirror.writeScalars();
    this.storeMirror!.writeScalars();
    writeContext(this.pool.ctx, ctx);
    const off = set.colorOffsets!;
    const nc = set.colors ?? off.length - 1;
    this.curSet = set;
    this.curCtx = ctx;
    for (let k = 0; k < nc; k++) {
      const c = ctx.reverse ? nc - 1 - k : k;
      const a = off[c],
        z = off[c + 1];
      const n = z - a;
      if (n < PARALLEL_MIN_COLOR) {
        set.projectColorRange!(ctx, c, a, z);
        continue;
      }
      this.curColor = c;
      const blocks = Math.min(MAX_BLOCKS, Math.max(2 * this.threads, Math.ceil(n / BLOCK_TARGET)));
      try {
        this.pool.run(e.id, e.gen, c, a, z, blocks, this.own);
      } catch (err) {
        if (err instanceof PbdError) throw err;
        throw new PbdError(
          'threads/kernel',
          `${set.kind} constraints, colour ${c}`,
          `a projection threw: ${(err as { message?: string })?.message ?? err}`,
          'the world is still usable; fix the input that made the kernel throw',
        );
      }
    }
    this.curSet = null;
    this.curCtx = null;
  }

  /**
   * Runs items [0, n) of a task in `blocks` blocks on this thread and the
   * workers (StepContext.tasks, TaskRunner). The first call with a new
   * version of the task's arguments only queues them for the workers (they
   * receive them before the next step) and returns false (`lead` not run).
   * `lead`: the calling thread's own work, run while the workers start
   * (WorkerPool.run).
   */
  runTask(task: SharedTask, n: number, blocks: number, lead: (() => void) | null = null): boolean {
    if (!this.inStep || !this.pool.active || n <= 0) return false;
    const kernel = parallelTasks[task.kind];
    if (kernel === undefined) return false;
    const e = this.taskEntries.get(task);
    if (e === undefined || e.version !== task.version) {
      const entry = { id: e?.id ?? nextId++, gen: ++this.pool.gen, version: task.version };
      this.taskEntries.set(task, entry);
      this.pool.send({ type: 'task', id: entry.id, gen: entry.gen, kind: task.kind, args: task.args });
      return false;
    }
    this.curTask = task;
    this.curKernel = kernel;
    try {
      this.pool.run(
        e.id,
        e.gen,
        TASK_JOB,
        0,
        n,
        Math.min(MAX_BLOCKS, Math.max(1, blocks)),
        this.ownTask,
        lead,
      );
    } catch (err) {
      if (err instanceof PbdError) throw err;
      throw new PbdError(
        'threads/kernel',
        `task ${task.kind}`,
        `a block threw: ${(err as { message?: string })?.message ?? err}`,
        'the world is still usable; fix the input that made the kernel throw',
      );
    } finally {
      this.curTask = null;
      this.curKernel = null;
    }
    return true;
  }

  /** Forgets this world's sets and tasks in the workers and releases the pool (the last world ends it). */
  dispose(): void {
    const sets = [...this.entries.values()].map((e) => e.id);
    const tasks = [...this.taskEntries.values()].map((e) => e.id);
    this.entries.clear();
    this.taskEntries.clear();
    this.pool.send({ type: 'forget', sets, stores: [this.storeId], tasks });
    this.pool.release();
  }
}
