/**
 * The shared control block of a worker pool (src/parallel/): a few Int32
 * slots on a SharedArrayBuffer through which the calling thread hands out
 * the blocks of one job (a range of one colour batch) and the workers claim
 * and finish them, and the messages that set the workers up.
 *
 * A job is cut into `TOTAL` fixed blocks of `BLOCK` constraints. `NEXT`
 * packs the job's sequence number (high 24 bits) and the next unclaimed
 * block (low 8 bits); a thread claims block c by a compare-exchange of NEXT
 * from (seq, c) to (seq, c + 1), so a block is run exactly once, by
 * whichever thread gets it, and a thread that lags behind can never claim a
 * block of a job that has moved on (its exchange fails). A new job first
 * closes NEXT (CLOSED), then writes its fields and TOTAL, then opens NEXT. Which thread runs a
 * block changes nothing: the blocks of a colour share no movable particle.
 */
import type { StepContext } from '../core/constraint-set.js';

/** Int32 slots of the control block. */
export const NEXT = 0;
/** Blocks of the current job. */
export const TOTAL = 1;
/** Blocks of the current job finished (by any thread). */
export const DONE = 2;
/** 1 while a step runs (workers claim blocks), 0 between steps (workers park on STEP; session 25). */
export const STATE = 3;
/** 1 when a block threw; the message is in the error bytes. */
export const ERR = 4;
/**
 * The job: set id, colour, first and end constraint, block length, registration generation it needs.
 * A data-parallel task (StepContext.tasks) is a job with COLOR = TASK_JOB and its task's id in SET.
 */
export const SET = 5;
export const COLOR = 6;
export const FROM = 7;
export const TO = 8;
export const BLOCK = 9;
export const GEN = 10;
/** Blocks run by workers since the pool started (statistics, tests). */
export const WORKED = 11;
/** Length of the error message in the error bytes. */
export const ERRLEN = 12;
/**
 * The workers' loads spun waiting for a job and their sleeps in Atomics.wait, since the pool
 * started (statistics: bench/thread-profile.ts; Int32, they wrap past 2³¹).
 */
export const SPUN = 13;
export const SLEPT = 14;
/** The workers' spin budget waiting for a job before they sleep (0: their default; WorkerPool.workerSpin). */
export const WORKER_SPIN = 15;
/**
 * Session 25: between steps the workers park in Atomics.wait on STEP, a counter the calling
 * thread bumps (and notifies) when it lets them into a step and when it asks them back to their
 * event loop; that request bumps EXIT first (registrations to receive, or the pool's end). A
 * worker's loop returns once EXIT differs from the count its `enter` message carried.
 */
export const STEP = 16;
export const EXIT = 17;
export const CONTROL_SLOTS = 18;
/** COLOR of a job that runs a registered task's blocks instead of a colour batch. */
export const TASK_JOB = -1;

/** Float64 slots of the step context block: what a set's projectColorRange may read of the context. */
export const CTX_H = 0;
export const CTX_INVH = 1;
export const CTX_TIME = 2;
export const CTX_ITERATION = 3;
export const CTX_ITERATIONS = 4;
export const CTX_PASSES = 5;
export const CTX_SUBSTEP = 6;
export const CTX_SUBSTEPS = 7;
export const CTX_SOLVER = 8;
export const CTX_SLOTS = 16;

/** The step context's scalars into the context block (the calling thread, before it hands out a set's colours). */
export function writeContext(b: Float64Array, ctx: StepContext): void {
  b[CTX_H] = ctx.h;
  b[CTX_INVH] = ctx.invH;
  b[CTX_TIME] = ctx.time;
  b[CTX_ITERATION] = ctx.iteration;
  b[CTX_ITERATIONS] = ctx.iterations;
  b[CTX_PASSES] = ctx.passes;
  b[CTX_SUBSTEP] = ctx.substep;
  b[CTX_SUBSTEPS] = ctx.substeps;
  b[CTX_SOLVER] = ctx.solver === 'pbd' ? 1 : 0;
}

/** What writeContext wrote, into a worker's copy of the step context. */
export function readContext(
  b: Float64Array,
  ctx: { -readonly [K in keyof StepContext]: StepContext[K] },
): void {
  ctx.h = b[CTX_H];
  ctx.invH = b[CTX_INVH];
  ctx.time = b[CTX_TIME];
  ctx.iteration = b[CTX_ITERATION];
  ctx.iterations = b[CTX_ITERATIONS];
  ctx.passes = b[CTX_PASSES];
  ctx.substep = b[CTX_SUBSTEP];
  ctx.substeps = b[CTX_SUBSTEPS];
  ctx.solver = b[CTX_SOLVER] === 1 ? 'pbd' : 'xpbd';
}

/** Bytes for the message of a block that threw. */
export const ERROR_BYTES = 2048;

/** The most blocks one job is cut into (the low 8 bits of NEXT): defined with TaskRunner, which the core's tasks see. */
export { MAX_BLOCKS } from '../core/step-context.js';
/**
 * The low bits of NEXT while a job is being written: no block number, so no
 * thread can claim. Without it a thread that read NEXT of the finished job
 * and then TOTAL of the next one could claim a block that is not there and
 * run a block of the new job twice (seen in the tests).
 */
export const CLOSED = 255;

/**
 * A field the workers' copy of an object must follow: a number or boolean
 * copied through the object's scalar block before each job (`slot`), at
 * `path` (one key, or two for a field of a nested object such as rule.kPrime).
 */
export interface ScalarField {
  path: string[];
  slot: number;
  bool: boolean;
}

/** What a worker receives to rebuild an object (a constraint set or a particle store). */
export interface MirrorMessage {
  /** Own fields: numbers, strings, typed arrays (shared ones stay shared), nested plain data. */
  fields: Record<string, unknown>;
  scalars: ScalarField[];
  /** The scalar block (Float64, on a SharedArrayBuffer). */
  values: Float64Array;
}

export type ToWorker =
  | { type: 'hello'; control: Int32Array; ctx: Float64Array; error: Uint8Array; index: number }
  | { type: 'store'; id: number; mirror: MirrorMessage }
  | {
      type: 'set';
      id: number;
      gen: number;
      kind: number;
      /** For a class registered with registerParallelSet: the module the worker imports it from. */
      module: { module: string; name: string } | null;
      store: number;
      mirror: MirrorMessage;
    }
  | {
      type: 'task';
      id: number;
      gen: number;
      /** The kernel's name in registry.ts's parallelTasks. */
      kind: string;
      /** Numbers and typed arrays on SharedArrayBuffer (shared, not copied). */
      args: Record<string, unknown>;
    }
  | { type: 'forget'; sets: number[]; stores: number[]; tasks?: number[] }
  /** Into the job loop, which it leaves when EXIT moves past `exit` (EXIT when this was posted). */
  | { type: 'enter'; exit: number };

export type FromWorker = { type: 'ready' } | { type: 'failed'; message: string };
