/**
 * The f32 (and since session 19, cl25, f64) cloth's fused particle pass on a threaded world's pool (session 17, f32t22;
 * docs/performance.md "The fused particle pass on threads"): the substep's last sweep holds the
 * window and its copy-out blocks run the module's update of substep s and prediction of s + 1 on
 * their particles (src/wasm/window-pass-threads.ts, PassInSweep), the next substep's sweeps load
 * nothing. The bits and counts of one thread on 2 and 4 threads, the pass taken in every substep
 * but each step's last, and the same bits with it off (the calling thread's pass on the held window).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ParticlePredictionStage } from '../src/core/stages.js';
import { PassInSweep, passInSweep } from '../src/core/window-passes.js';
import { World } from '../src/index.js';
import { particlePass } from '../src/wasm/paired.js';
import { clothAmongFree, hangingCloth } from './helpers/cloth.js';
import { keepThreadPools, spyTasks, stateBits } from './helpers/worlds.js';

keepThreadPools();

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the fused particle pass in a threaded f32 or f64 sweep', () => {
  // f64 (session 19, cl25): the module's f64 pass on the f64 window, the store homed as in f32
  // the last: each step's first prediction by the module into the window on the calling thread
  // (session 21, cl28: ParticlePredictionStage.moduleOnPool), or to p on the pool (before)
  const cases = [
    ['forward', true, 'f32', true],
    ['symmetric', true, 'f32', true],
    ['symmetric', false, 'f32', true],
    ['forward', true, 'f64', true],
    ['symmetric', true, 'f64', true],
    ['forward', true, 'f32', false],
    ['forward', true, 'f64', false],
  ] as const;
  it.each(cases)(
    '(%s sweep, pass in the sweep %s) a 130 × 130 %s cloth between free particles, speed clamps and recoveries, the first prediction in the module %s: the bits and counts of one thread on 2 and 4 threads',
    async (sweep, on, precision, moduleOnPool) => {
      const ran = spyTasks();
      const saved = PassInSweep.on;
      PassInSweep.on = on;
      ParticlePredictionStage.moduleOnPool = moduleOnPool;
      const options = {
        substeps: 4,
        solver: 'xpbd',
        maxSpeed: 0.6,
        damping: 0.5,
        precision,
        sweep,
      } as const;
      try {
        const make = (threads: number) => {
          const world = new World({ threads, ...options });
          return { world, cloth: clothAmongFree(world, 130, 300, 200) };
        };
        const worlds = [make(1), make(2), make(4)];
        await Promise.all(worlds.map((w) => w.world.threadsReady()));
        // (the first steps bind the sets' copies to the pool and send the workers their arguments)
        for (let s = 0; s < 2; s++) for (const { world } of worlds) world.step();
        const before = worlds.map(({ world }) => passInSweep(world.store).taken);
        const steps = 12;
        ran.clear();
        const predicts = particlePass.predicts;
        for (let s = 0; s < steps; s++)
          for (const { world, cloth } of worlds) {
            // a non-finite velocity in the cloth now and then (the module's recovery path), and one outside it
            if (s % 4 === 1) world.store.v[3 * (cloth.offset + 4000 + s) + 1] = Number.NaN;
            if (s % 5 === 3) world.store.v[3 * (world.store.count - 1 - s)] = Number.NaN;
            world.step();
          }
        const ref = worlds[0].world;
        expect(ref.stats.recoveries).toBeGreaterThanOrEqual(5);
        expect(ref.stats.speedClamps).toBeGreaterThan(0);
        for (const [k, { world }] of worlds.entries()) {
          if (k === 0) continue;
          expect(stateBits(world).equals(stateBits(ref))).toBe(true);
          expect(world.stats.recoveries).toBe(ref.stats.recoveries);
          expect(world.stats.speedClamps).toBe(ref.stats.speedClamps);
          // every substep but each step's last (which ends on p) in the last sweep's blocks
          const taken = passInSweep(world.store).taken - before[k];
          if (on) expect(taken).toBe(steps * 3);
          else expect(taken).toBe(0);
          // the store's x, v and w in the window's shared kernel memory (the pass runs on them in place):
          // the store's memory since session 20 (never moved), homed at the first step without one
          const st = world.store;
          if (on) expect(st.memory !== null ? st.memory.owns(st.x.buffer) : st.x !== st.own.x).toBe(true);
        }
        expect(passInSweep(ref.store).taken).toBe(0);
        // each step's first prediction (the others in the sweeps' blocks or the calling thread's pass):
        // by the module into the window on every world (ParticleWindow.predict, counted), or on the
        // pool's blocks to p on the threaded ones; no update job
        expect(particlePass.predicts - predicts).toBe((moduleOnPool ? 3 : 1) * steps);
        expect(ran.get('particles-predict') ?? 0).toBe(moduleOnPool ? 0 : 2 * steps);
        expect(ran.get('particles-update') ?? 0).toBe(0);
        for (const { world } of worlds) world.dispose();
      } finally {
        PassInSweep.on = saved;
        ParticlePredictionStage.moduleOnPool = true;
      }
    },
    180_000,
  );

  it.each(['f32', 'f64'] as const)(
    '(%s) the pass in the sweep and on the calling thread against the JavaScript loops: the same bits',
    async (precision) => {
      const saved = particlePass.wasm;
      try {
        const make = () => {
          const world = new World({ threads: 2, substeps: 4, solver: 'xpbd', precision, damping: 0.3 });
          hangingCloth(world, 130);
          return world;
        };
        const a = make();
        const b = make();
        await Promise.all([a.threadsReady(), b.threadsReady()]);
        for (let s = 0; s < 6; s++) {
          particlePass.wasm = true;
          a.step();
          particlePass.wasm = false;
          b.step();
        }
        expect(stateBits(a).equals(stateBits(b))).toBe(true);
        expect(passInSweep(a.store).taken).toBeGreaterThanOrEqual(5 * 3);
        expect(passInSweep(b.store).taken).toBe(0);
        a.dispose();
        b.dispose();
      } finally {
        particlePass.wasm = saved;
      }
    },
    120_000,
  );
});
