/**
 * Worker threads for the step (docs/solver.md, "Threads"): importing this
 * module makes `new World({ threads: n })` run on n threads (the package
 * entry imports it). Where threads cannot run (no SharedArrayBuffer, a page
 * without cross-origin isolation, no workers) such a world runs on one
 * thread, with a one-line notice.
 */
import { SerialScheduler } from '../core/pipeline.js';
import { notice, World } from '../core/world.js';
import { threadsUnavailable } from './pool.js';
import { ThreadedScheduler } from './scheduler.js';

export { registerParallelSet } from './registry.js';
export { ThreadedScheduler } from './scheduler.js';

World.threadedScheduler = (world, threads) => {
  const why = threadsUnavailable();
  if (why !== null) {
    notice(`pbdkit: threads: ${threads} is not available here (${why}); running on one thread`);
    return new SerialScheduler();
  }
  return new ThreadedScheduler(world, threads);
};
