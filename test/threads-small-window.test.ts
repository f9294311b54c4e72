import { describe, expect, it } from 'vitest';
import { fallingCloth } from '../bench/peers/cloth-scene.js';
import type { World } from '../src/index.js';

/**
 * Issue 20 (session 22): a threaded world whose cloth sweeps off the pool (its sets under the pool's
 * size line) runs the one-thread step: the prediction into the kernel's window and the velocity
 * update with the next prediction in one pass over it (core/window-passes.ts predictionWindow).
 * Until session 22 a threaded world took that path only for a window swept on the pool, and such a
 * world ran at 0.93 × of one thread (a 31 × 31 f64 cloth, 2 threads, the pool idle); now 0.99 ×.
 */
describe('a threaded world with its cloth off the pool', () => {
  const x = (w: World) => Buffer.from(w.store.x.slice(0, 3 * w.store.count).buffer);
  const v = (w: World) => Buffer.from(w.store.v.slice(0, 3 * w.store.count).buffer);

  for (const precision of ['f64', 'f32'] as const)
    it(`predicts into the kernel's window as one thread does, with one thread's bits on 2 and 4 threads (${precision}, 30 × 30)`, async () => {
      const make = (threads: number) =>
        fallingCloth({ n: 30, substeps: 5, bendCompliance: 0.01, precision, threads }).world;
      const worlds = [make(1), make(2), make(4)];
      await Promise.all(worlds.map((w) => w.threadsReady()));
      expect(worlds.map((w) => w.threads)).toEqual([1, 2, 4]);
      for (let s = 0; s < 40; s++)
        for (const w of worlds) {
          w.step();
          expect(w.store.predictedWindow).not.toBeNull();
        }
      for (const w of worlds.slice(1)) {
        expect(x(w).equals(x(worlds[0]))).toBe(true);
        expect(v(w).equals(v(worlds[0]))).toBe(true);
      }
      for (const w of worlds) w.dispose();
    }, 60_000);
});
