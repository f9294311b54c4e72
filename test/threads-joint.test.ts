/**
 * A cloth's stretch and bending sweeps as one job on a threaded world's pool
 * (src/wasm/element-threads.ts: the stretch sweep, holding the shared window,
 * defers to the bending sweep that follows it, which runs both from one table,
 * element-order.ts jointSweepTable; docs/solver.md "Threads", session 16,
 * pool21): the bits of one thread on 2 and 4 threads, f64 and f32, and one
 * sweep job per substep where there were two.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { World as WorldType } from '../src/index.js';
import { World } from '../src/index.js';
import { ThreadedScheduler as Scheduler } from '../src/parallel/scheduler.js';
import { jointSweepTable } from '../src/wasm/element-order.js';
import { ElementThreads } from '../src/wasm/element-threads.js';
import { hangingCloth } from './helpers/cloth.js';
import { keepThreadPools, stateBits } from './helpers/worlds.js';

keepThreadPools();

/** A counter of the 'element-wasm' jobs that ran on the pool (runTask returned true) per scheduler since it was last read. */
function spyJobs(): () => Map<unknown, number> {
  const spy = vi.spyOn(Scheduler.prototype, 'runTask');
  return () => {
    const ran = new Map<unknown, number>();
    spy.mock.results.forEach((r, i) => {
      const who = spy.mock.contexts[i];
      if (r.value === true && spy.mock.calls[i][0].kind === 'element-wasm')
        ran.set(who, (ran.get(who) ?? 0) + 1);
    });
    spy.mockClear();
    return ran;
  };
}

afterEach(() => {
  vi.restoreAllMocks();
});

const joinedOf = (set: unknown): number =>
  ((set as { threads: ElementThreads | null }).threads?.joinedSweeps ?? 0) as number;

describe('the stretch and bending sweeps of a cloth as one job', () => {
  it('jointSweepTable: each block after the last earlier block of either set that touched its particles, the second set as COLOUR2', () => {
    // two sets on 6 particles: a's pairs (0,1) (2,3) in one colour, b's (1,2) (3,4) in one colour
    const a = { idx: Int32Array.from([0, 1, 2, 3]), colorPairs: [0, 2], lanes: 1, arity: 2, reverse: false };
    const b = { idx: Int32Array.from([1, 2, 3, 4]), colorPairs: [0, 2], lanes: 1, arity: 2, reverse: false };
    const T = jointSweepTable([a, b], 6, 6, 1)!;
    const nb = T[0];
    // load, a's two blocks, b's two blocks, save
    expect(nb).toBe(6);
    expect(Array.from(T.subarray(1, 1 + nb))).toEqual([0, 1, 1, 3, 3, 2]);
    const deps = (k: number) =>
      Array.from(T.subarray(2 + 5 * nb + T[1 + 4 * nb + k], 2 + 5 * nb + T[2 + 4 * nb + k]));
    // b's pair (1,2) waits on a's blocks 1 (0,1) and 2 (2,3); b's (3,4) on a's block 2 (3) and the load (4)
    expect(deps(3).sort()).toEqual([1, 2]);
    expect(deps(4).sort()).toEqual([0, 2]);
    // the save of particles 0..5: the last toucher of each
    expect(deps(5).sort()).toEqual([0, 1, 3, 4]);
  });

  it.each(['f64', 'f32'] as const)(
    '(%s) a 130 × 130 cloth: the bits of one thread on 2 and 4 threads, two sweep jobs a substep where the joint sweeps run, four without them',
    async (precision) => {
      const jobs = spyJobs();
      const saved = ElementThreads.joint;
      try {
        const make = (threads: number) => {
          const world = new World({ threads, substeps: 4, solver: 'xpbd', precision });
          return { world, cloth: hangingCloth(world, 130) };
        };
        const worlds = [make(1), make(2), make(4)];
        await Promise.all(worlds.map((w) => w.world.threadsReady()));
        for (const w of worlds) w.world.step();
        // (a step apart too: each set's own sweep sees the store's arrays as they stay, homed in the
        // f32 window's memory since session 17, so no counted job goes to the calling thread with new arguments)
        ElementThreads.joint = false;
        for (const w of worlds) w.world.step();
        ElementThreads.joint = saved;
        for (const w of worlds) w.world.step();
        const steps = 10;
        const count = (on: boolean): number[] => {
          ElementThreads.joint = on;
          jobs();
          for (let s = 0; s < steps; s++) for (const w of worlds) w.world.step();
          const ran = jobs();
          return worlds.map((w) => ran.get((w.world as WorldType).scheduler) ?? 0);
        };
        const sweeps = (w: (typeof worlds)[number]) => joinedOf(w.cloth.stretch) + joinedOf(w.cloth.bend);
        const before = worlds.map(sweeps);
        const joined = count(true);
        const during = worlds.map((w, k) => sweeps(w) - before[k]);
        const apart = count(false);
        const ref = stateBits(worlds[0].world);
        for (const w of worlds.slice(1)) expect(stateBits(w.world).equals(ref)).toBe(true);
        // the symmetric sweep (the world's default): stretch, bending, then bending, stretch backward;
        // joint: one job per pair (the first's deferred sweep in the second's), two jobs a substep; apart: four
        for (const k of [1, 2]) {
          expect(joined[k]).toBe(2 * steps * 4);
          expect(apart[k]).toBe(4 * steps * 4);
          expect(during[k]).toBe(2 * steps * 4);
          expect(worlds[k].world.sweep).toBe('symmetric');
        }
        expect(joined[0]).toBe(0);
        for (const w of worlds) w.world.dispose();
      } finally {
        ElementThreads.joint = saved;
      }
    },
    180_000,
  );
});
