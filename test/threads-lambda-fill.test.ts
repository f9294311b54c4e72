/**
 * λ⁰ = 0 (001 Eq. 17) in the f32 fused sweeps' colour blocks on the pool (src/wasm/element-threads.ts
 * colourBlock): since session 21 (cl28) by wasm's memory.fill on the set's shared memory
 * (store-memory.ts bulkOn, one instance per thread) instead of a typed array's fill, which V8 runs
 * word by word with relaxed atomics on a SharedArrayBuffer (4–10× slower). A block that zeroed the
 * wrong bytes (too few: a multiplier carried into the next substep; too many: a later block's,
 * already projected) changes the positions and the multipliers: both must be one thread's, bit for
 * bit, on 2 and 4 threads, over substeps whose every first sweep zeroes in its blocks.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { bulkOn } from '../src/core/store-memory.js';
import { World } from '../src/index.js';
import { hangingCloth } from './helpers/cloth.js';
import { keepThreadPools, spyTasks, stateBits } from './helpers/worlds.js';

keepThreadPools();

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the sweeps’ multipliers zeroed in their blocks on the pool (f32 by memory.fill; f64 by id ranges, session 23)', () => {
  it('bulkOn: wasm memory.fill and memory.copy on a shared memory, per instance', () => {
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 16384, shared: true });
    const ops = bulkOn(memory);
    expect(ops).not.toBeNull();
    const a = new Float32Array(memory.buffer, 1024, 64).fill(7);
    ops!.fill(1024 + 16 * 3, 16 * 5);
    expect(Array.from(a.subarray(0, 12))).toEqual(Array(12).fill(7));
    expect(Array.from(a.subarray(12, 32))).toEqual(Array(20).fill(0));
    expect(Array.from(a.subarray(32))).toEqual(Array(32).fill(7));
    // a plain memory: none (its callers keep the typed array's fill)
    expect(bulkOn(new WebAssembly.Memory({ initial: 1 }))).toBeNull();
  });

  // f64 (session 23, so30: test/threads-lambda-range.test.ts): the multipliers by id, each block's as
  // one range of ids by memory.fill (element-lambda.ts), and the store homed in the sets' memory (the
  // window's copies in and out by memory.copy): a range one id short, or a copy one particle short, fails it
  it.each(['f32', 'f64'] as const)(
    'a 130 × 130 XPBD %s cloth (two sets, one joint sweep a substep): the positions and multipliers of one thread on 2 and 4 threads',
    async (precision) => {
      const ran = spyTasks();
      const make = (threads: number) => {
        const world = new World({ threads, substeps: 4, solver: 'xpbd', precision });
        return { world, cloth: hangingCloth(world, 130) };
      };
      const worlds = [make(1), make(2), make(4)];
      await Promise.all(worlds.map((w) => w.world.threadsReady()));
      for (let s = 0; s < 12; s++) for (const { world } of worlds) world.step();
      // the sweeps ran on the pool
      expect(ran.get('element-wasm') ?? 0).toBeGreaterThan(2 * 10 * 4);
      for (const w of worlds.slice(1))
        for (const set of [w.cloth.stretch, w.cloth.bend!]) {
          type Args = { idRuns: number; lanes: number; homed: number };
          const a = (set as unknown as { threads: { task: { args: Args } } }).threads.task.args;
          if (precision === 'f64') expect([a.lanes, a.idRuns, a.homed]).toEqual([2, 1, 1]);
          else expect([a.lanes, a.idRuns]).toEqual([4, 0]);
        }
      const ref = worlds[0];
      const lam = (c: (typeof worlds)[number], set: 'stretch' | 'bend') =>
        Buffer.from(c.cloth[set]!.lambda.slice().buffer);
      for (const w of worlds.slice(1)) {
        expect(stateBits(w.world).equals(stateBits(ref.world))).toBe(true);
        expect(lam(w, 'stretch').equals(lam(ref, 'stretch'))).toBe(true);
        expect(lam(w, 'bend').equals(lam(ref, 'bend'))).toBe(true);
      }
      // the last substep's multipliers are not all zero: the cloth swings and its stretch works
      expect(ref.cloth.stretch.lambda.some((v) => v !== 0)).toBe(true);
      for (const { world } of worlds) world.dispose();
    },
    120_000,
  );
});
