import { describe, expect, it } from 'vitest';
import { fallingCloth } from '../bench/peers/cloth-scene.js';
import { ElementConstraints, POOL_MIN_CONSTRAINTS } from '../src/constraints/element-set.js';
import type { World } from '../src/index.js';
import { withSmallSetsOnPool } from './helpers/worlds.js';

/**
 * Issue 20 (session 18, small25): a set goes to a threaded world's pool only where its particle
 * window spans POOL_MIN_CONSTRAINTS.window particles (two of the threaded sweep's copy blocks),
 * whatever its constraint count; docs/performance.md "Small sets on the pool, again".
 */
describe('the pool decision by particle window', () => {
  const blocks = (w: World) => (w.scheduler as unknown as { workerBlocks: number }).workerBlocks;
  const x = (w: World) => Buffer.from(w.store.x.slice(0, 3 * w.store.count).buffer);

  it('keeps a 61 × 61 f64 cloth (above the constraint line, a window of 3,721 particles) off the pool on 2 threads, with the bits of one thread', async () => {
    const make = (threads: number) => fallingCloth({ n: 61, substeps: 5, bendCompliance: 0.01, threads });
    const one = make(1);
    const two = make(2);
    await two.world.threadsReady();
    expect(two.world.threads).toBe(2);
    for (const set of [two.cloth.stretch, two.cloth.bend!]) {
      expect(set.count).toBeGreaterThan(POOL_MIN_CONSTRAINTS.f64);
      expect(set.threadMode('f64')).toBe('serial');
    }
    const before = blocks(two.world);
    for (let f = 0; f < 10; f++) for (const w of [one.world, two.world]) w.step();
    expect(blocks(two.world) - before).toBe(0);
    expect(x(two.world).equals(x(one.world))).toBe(true);
    // the tests' lowered threshold (no window line) still sends it to the pool: the workers take part
    await withSmallSetsOnPool(() => {
      for (const set of [two.cloth.stretch, two.cloth.bend!]) expect(set.threadMode('f64')).toBe('wasm');
      const b0 = blocks(two.world);
      for (let f = 0; f < 10 || (f < 200 && blocks(two.world) === b0); f++)
        for (const w of [one.world, two.world]) w.step();
      expect(blocks(two.world) - b0).toBeGreaterThan(0);
      expect(x(two.world).equals(x(one.world))).toBe(true);
    });
    for (const w of [one.world, two.world]) w.dispose();
  }, 120_000);

  it('decides by the window alone: the same 61 × 61 sets go to the pool when the window line is lowered to their 3,721 particles, not at 3,722', async () => {
    const two = fallingCloth({ n: 61, substeps: 5, bendCompliance: 0.01, threads: 2 });
    await two.world.threadsReady();
    const saved = ElementConstraints.poolMinConstraints;
    try {
      for (const [window, mode] of [
        [61 * 61, 'wasm'],
        [61 * 61 + 1, 'serial'],
      ] as const) {
        ElementConstraints.poolMinConstraints = { ...POOL_MIN_CONSTRAINTS, window };
        for (const set of [two.cloth.stretch, two.cloth.bend!]) expect(set.threadMode('f64')).toBe(mode);
      }
    } finally {
      ElementConstraints.poolMinConstraints = saved;
    }
    two.world.dispose();
  }, 60_000);
});
