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

/** Waits until block d of the job numbered `epoch` is done. */
export function awaitBlock(done: Int32Array, d: number, epoch: number): void {
  let spins = 0;
  for (;;) {
    const e = Atomics.load(done, d);
    if (e === epoch) return;
    if (++spins > SPIN && canWait) Atomics.wait(done, d, e, 0.05);
  }
}

/** The next job's epoch after `epoch` (never 0, the value of a slot no job has finished). */
export function nextEpoch(epoch: number): number {
  return (epoch % 0x7ffffffe) + 1;
}
