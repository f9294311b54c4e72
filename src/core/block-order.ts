/**
 * Blocks of one pool job that wait for earlier blocks of the same job
 * instead of a barrier between jobs (the element sets' fused sweeps,
 * src/wasm/element-order.ts; the fluids' fused pair passes,
 * src/fluids/row-blocks.ts). A job's blocks are claimed in their serial
 * order (pool.ts), so the blocks a block waits for are all claimed before it
 * and the wait ends. Each finished block stores the job's epoch (a number
 * that changes with every such job) in its slot of `done`.
 */

/** Spins waiting for a block before sleeping a little (where the thread may block). */
const SPIN = 2000;
const canWait = typeof window === 'undefined';

/** A done slot's value while a thread sleeps on it (never an epoch: those are positive). */
const SLEEPING = -1;

/**
 * Waits until block d of the job numbered `epoch` is done; returns the loads
 * it took past the first (those past SPIN each slept up to 50 µs). Before it
 * sleeps it marks the slot SLEEPING, so that markDone wakes it as the block
 * ends (session 19, thr26: a sleep that only its timeout ended lasted ~100 µs
 * with the kernel's timer slack, where the block it waited for ended a few µs
 * later: 1.5–1.8 ms a step of the falling cloths' dependency waits). The
 * element sweeps, the fluids' chained passes and the strands' blocks all end
 * a block with markDone; a plain store would still end the sleep by the timeout.
 */
export function awaitBlock(done: Int32Array, d: number, epoch: number): number {
  let spins = 0;
  for (;;) {
    const e = Atomics.load(done, d);
    if (e === epoch) return spins;
    if (++spins > SPIN && canWait && (e === SLEEPING || Atomics.compareExchange(done, d, e, SLEEPING) === e))
      Atomics.wait(done, d, SLEEPING, 0.05);
  }
}

/** Marks block k of the job numbered `epoch` done, waking the threads that sleep on it (awaitBlock). */
export function markDone(done: Int32Array, k: number, epoch: number): void {
  if (Atomics.exchange(done, k, epoch) === SLEEPING) Atomics.notify(done, k);
}

/** The next job's epoch after `epoch` (never 0, the value of a slot no job has finished). */
export function nextEpoch(epoch: number): number {
  return (epoch % 0x7ffffffe) + 1;
}

/**
 * This thread's index in its pool: 0 on the calling thread, k on the pool's
 * k-th worker (set when the worker starts, worker.ts). A job cut into parts
 * (`partFrom`) runs part `index mod parts` on this thread first, so that the
 * same thread takes the same particles in every job of a substep (they stay
 * in its core's cache); which thread runs a block never changes its numbers.
 */
let index = 0;

export function threadIndex(): number {
  return index;
}

export function setThreadIndex(k: number): void {
  index = k;
}

/** The first of n blocks in part p of `parts` (part p: [partFrom(n, parts, p), partFrom(n, parts, p + 1))). */
export function partFrom(n: number, parts: number, p: number): number {
  return Math.floor((n * p) / parts);
}

/**
 * Claims block k of the job numbered `epoch` for this thread: true once per
 * block and job, whichever thread asks first (the others get false).
 */
export function claimBlock(claim: Int32Array, k: number, epoch: number): boolean {
  const c = Atomics.load(claim, k);
  return c !== epoch && Atomics.compareExchange(claim, k, c, epoch) === c;
}
