/**
 * What the tests that compare worlds share: the thread pools that live
 * through a test file, worlds stepped side by side, and the state that must
 * agree between them (bit for bit).
 */
import { afterAll, beforeAll, vi } from 'vitest';
import { ElementConstraints } from '../../src/constraints/element-set.js';
import type { SharedTask } from '../../src/core/step-context.js';
import { World } from '../../src/index.js';
import { ThreadedScheduler as Scheduler } from '../../src/parallel/scheduler.js';

/**
 * Keeps the 2- and 4-thread pools alive through the calling test file (a pool
 * ends with its last world), so that each test does not start its own.
 */
export function keepThreadPools(): void {
  const keepers: World[] = [];
  beforeAll(async () => {
    for (const threads of [2, 4]) {
      const w = new World({ threads });
      await w.threadsReady();
      keepers.push(w);
    }
  });
  afterAll(() => {
    for (const w of keepers) w.dispose();
  });
}

/** The positions and velocities of every particle, as bytes; with `render`, every body's render positions too. */
export function stateBits(w: World, render = false): Buffer {
  const n = w.store.count;
  const parts = [
    Buffer.from(w.store.x.buffer, w.store.x.byteOffset, 24 * n),
    Buffer.from(w.store.v.buffer, w.store.v.byteOffset, 24 * n),
  ];
  if (render)
    for (const b of w.bodies) {
      const r = b.renderPositions();
      parts.push(Buffer.from(r.buffer, r.byteOffset, r.byteLength));
    }
  return Buffer.concat(parts);
}

/** How many of the first n entries (all of a's by default) of a and b differ in their bits (Object.is: −0 ≠ 0, NaN = NaN). */
export function bitsDiffering(a: ArrayLike<number>, b: ArrayLike<number>, n = a.length): number {
  let d = 0;
  for (let i = 0; i < n; i++) if (!Object.is(a[i], b[i])) d++;
  return d;
}

/** Steps the worlds `steps` times, one step of each in turn. */
export function stepTogether(worlds: readonly { step(): void }[], steps: number): void {
  for (let k = 0; k < steps; k++) for (const w of worlds) w.step();
}

/** The first n values of a typed array, as a plain array (what toEqual compares value by value). */
export function head(a: Float64Array, n: number): number[] {
  return Array.from(a.subarray(0, n));
}

/**
 * Runs `run` with the pool threshold of the element sets (poolMinConstraints)
 * lowered to zero, so that sets too small to pay on the pool (a test's cloth)
 * go to it, and restores the threshold after.
 */
export async function withSmallSetsOnPool(run: () => void | Promise<void>): Promise<void> {
  const saved = ElementConstraints.poolMinConstraints;
  ElementConstraints.poolMinConstraints = { f64: 0, f32: 0 };
  try {
    await run();
  } finally {
    ElementConstraints.poolMinConstraints = saved;
  }
}

/** Which task kinds ran on the pool (runTask returned true), counted (restore with vi.restoreAllMocks). */
export function spyTasks(): Map<string, number> {
  const ran = new Map<string, number>();
  const original = Scheduler.prototype.runTask;
  vi.spyOn(Scheduler.prototype, 'runTask').mockImplementation(function (
    this: Scheduler,
    task: SharedTask,
    n: number,
    blocks: number,
    lead?: (() => void) | null,
  ) {
    const ok = original.call(this, task, n, blocks, lead);
    if (ok) ran.set(task.kind, (ran.get(task.kind) ?? 0) + 1);
    return ok;
  });
  return ran;
}
