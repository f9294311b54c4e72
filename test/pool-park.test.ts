/**
 * The workers park between steps (session 25, docs/solver.md "Session 25 (2026-11-27, cl32)"):
 * a step lets them in by a notify on the control block's STEP counter instead of an `enter`
 * message, and registrations made between steps send them back to their event loops first, so
 * that they read the new sets before they claim a block; WorkerPool.park off gives the protocol
 * before (an `enter` message per worker and step).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { registerParallelSet, type ThreadedScheduler, World } from '../src/index.js';
import { WorkerPool } from '../src/parallel/pool.js';
import { ProbeSet } from './fixtures/probe-set.js';

registerParallelSet(ProbeSet, new URL('./fixtures/probe-set.ts', import.meta.url).href);

/** Colour sizes of a probe: every colour above the scheduler's 256-constraint line. */
const SIZES = [3000, 2500, 4000, 1000, 2000];
const THREADS = 3;
const blocksOf = (w: World) => (w.scheduler as ThreadedScheduler).workerBlocks;
const poolOf = (w: World) => (w.scheduler as unknown as { pool: WorkerPool }).pool;

/** Steps `world` `steps` times; whether every probe constraint was projected `times` times in each step. */
function stepChecked(world: World, probes: ProbeSet[], steps: number, times: number): boolean {
  let ok = true;
  for (let s = 0; s < steps; s++) {
    for (const p of probes) p.hits.fill(0);
    world.step();
    for (const p of probes) if (!p.hits.every((h) => h === times)) ok = false;
  }
  return ok;
}

/** A world of THREADS threads and two substeps with one probe, its workers started. */
async function probeWorld(): Promise<{ world: World; probe: ProbeSet }> {
  const world = new World({ threads: THREADS, substeps: 2 });
  const probe = new ProbeSet(SIZES);
  world.addConstraintSet(probe);
  await world.threadsReady();
  return { world, probe };
}

afterEach(() => {
  WorkerPool.park = true;
});

describe('the workers park between steps', () => {
  it.each([
    [true, 0],
    [false, 60],
  ])(
    'park %s: 60 steps after the first post %i enter messages per worker; every constraint projected once a pass, the workers taking part',
    async (park, perWorker) => {
      WorkerPool.park = park;
      const { world, probe } = await probeWorld();
      world.step();
      const pool = poolOf(world);
      const enters = pool.enters;
      const blocks = blocksOf(world);
      // 2 substeps × 1 iteration × 2 passes (symmetric sweep)
      expect(stepChecked(world, [probe], 60, 4)).toBe(true);
      expect(pool.enters - enters).toBe(perWorker * (THREADS - 1));
      expect(blocksOf(world) - blocks).toBeGreaterThan(100);
      world.dispose();
    },
    120_000,
  );

  it('a set added while the workers are parked reaches them before its first job: they run its blocks', async () => {
    const { world, probe: first } = await probeWorld();
    expect(stepChecked(world, [first], 20, 4)).toBe(true);
    const pool = poolOf(world);
    const enters = pool.enters;
    // a new set: a registration, so the workers go back to their event loops and are let in again by message
    first.enabled = false;
    const second = new ProbeSet(SIZES);
    world.addConstraintSet(second);
    const blocks = blocksOf(world);
    let byWorkers = 0;
    for (let s = 0; s < 20; s++) {
      second.thread.fill(0);
      expect(stepChecked(world, [second], 1, 4)).toBe(true);
      for (let i = 0; i < second.count; i++) if (second.thread[i] !== 0) byWorkers++;
    }
    // the workers read the new set (a worker that had not would skip its jobs: GEN) and ran its blocks
    expect(blocksOf(world) - blocks).toBeGreaterThan(20);
    expect(byWorkers).toBeGreaterThan(0);
    // one `enter` per worker, after the registration; parked again for the other 19 steps
    expect(pool.enters - enters).toBe(THREADS - 1);
    world.dispose();
  }, 120_000);

  it('a pool disposed with its workers parked ends; a new world of that thread count gets a new pool that works', async () => {
    const { world: a, probe: pa } = await probeWorld();
    expect(stepChecked(a, [pa], 5, 4)).toBe(true);
    const old = poolOf(a);
    a.dispose();
    expect(old.disposed).toBe(true);
    expect(old.active).toBe(false);
    const { world: b, probe: pb } = await probeWorld();
    expect(poolOf(b)).not.toBe(old);
    const blocks = blocksOf(b);
    expect(stepChecked(b, [pb], 20, 4)).toBe(true);
    expect(blocksOf(b) - blocks).toBeGreaterThan(20);
    b.dispose();
  }, 120_000);
});
