import { describe, expect, it } from 'vitest';
import { fallingCloth } from '../bench/peers/cloth-scene.js';
import { POOL_MIN_CONSTRAINTS } from '../src/constraints/element-set.js';
import type { World } from '../src/index.js';

/**
 * Issue 20: a set whose particle window is small (under two of the old tables' copy blocks) goes to a
 * threaded world's pool by its size alone, on every thread count, since session 22: sw28's
 * small-window tables (session 21) run it on the pool, and on a quiet 16-core machine the 61 × 61 to
 * 81 × 81 cloths that small25's window line (session 18) and sw28's per-thread line kept off the pool
 * on 4 and 8 threads ran 1.9–3.3 × faster there (docs/solver.md "Session 22 (lead)").
 */
describe('the pool decision for small windows', () => {
  const blocks = (w: World) => (w.scheduler as unknown as { workerBlocks: number }).workerBlocks;
  const x = (w: World) => Buffer.from(w.store.x.slice(0, 3 * w.store.count).buffer);

  it('sends a 61 × 61 f64 cloth (a window of 3,721 particles) to the pool on 2 and on 4 threads, with the bits of one thread', async () => {
    const make = (threads: number) => fallingCloth({ n: 61, substeps: 5, bendCompliance: 0.01, threads });
    const one = make(1);
    const many = [make(2), make(4)];
    await Promise.all(many.map((c) => c.world.threadsReady()));
    expect(many.map((c) => c.world.threads)).toEqual([2, 4]);
    for (const c of many)
      for (const set of [c.cloth.stretch, c.cloth.bend!]) {
        expect(set.count).toBeGreaterThan(POOL_MIN_CONSTRAINTS.f64);
        expect(set.threadMode('f64')).toBe('wasm');
      }
    const b0 = many.map((c) => blocks(c.world));
    // until each pool's workers claimed blocks (on a loaded machine the calling thread may claim most of them)
    for (let f = 0; f < 10 || (f < 200 && many.some((c, k) => blocks(c.world) === b0[k])); f++)
      for (const w of [one.world, ...many.map((c) => c.world)]) w.step();
    for (const [k, c] of many.entries()) {
      expect(blocks(c.world) - b0[k]).toBeGreaterThan(0);
      expect(x(c.world).equals(x(one.world))).toBe(true);
    }
    for (const w of [one.world, ...many.map((c) => c.world)]) w.dispose();
  }, 120_000);

  it('keeps a 31 × 31 f64 cloth (2,760 stretch constraints, under the f64 line) off the pool', async () => {
    const small = fallingCloth({ n: 31, substeps: 5, bendCompliance: 0.01, threads: 4 });
    await small.world.threadsReady();
    for (const set of [small.cloth.stretch, small.cloth.bend!]) {
      expect(set.count).toBeLessThan(POOL_MIN_CONSTRAINTS.f64);
      expect(set.threadMode('f64')).toBe('serial');
    }
    small.world.dispose();
  }, 60_000);
});
