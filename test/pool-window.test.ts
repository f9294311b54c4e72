import { describe, expect, it } from 'vitest';
import { fallingCloth } from '../bench/peers/cloth-scene.js';
import { ElementConstraints, POOL_MIN_CONSTRAINTS } from '../src/constraints/element-set.js';
import type { World } from '../src/index.js';

/**
 * Issue 20 (session 18, small25): a set goes to a threaded world's pool only where its particle
 * window spans POOL_MIN_CONSTRAINTS.window particles (two of the threaded sweep's copy blocks),
 * whatever its constraint count; docs/performance.md "Small sets on the pool, again".
 */
describe('the pool decision by particle window', () => {
  const blocks = (w: World) => (w.scheduler as unknown as { workerBlocks: number }).workerBlocks;
  const x = (w: World) => Buffer.from(w.store.x.slice(0, 3 * w.store.count).buffer);

  it('sends a 61 × 61 f64 cloth (above the constraint line, a window of 3,721 particles: under the window line) to the pool on 2 threads by its constraints per thread (session 21), not on 4, with the bits of one thread', async () => {
    const make = (threads: number) => fallingCloth({ n: 61, substeps: 5, bendCompliance: 0.01, threads });
    const one = make(1);
    const two = make(2);
    await two.world.threadsReady();
    expect(two.world.threads).toBe(2);
    const per = POOL_MIN_CONSTRAINTS.perThread!;
    for (const set of [two.cloth.stretch, two.cloth.bend!]) {
      expect(set.count).toBeGreaterThan(POOL_MIN_CONSTRAINTS.f64);
      expect(set.count).toBeGreaterThanOrEqual(2 * per);
      expect(set.count).toBeLessThan(4 * per);
      expect(set.threadMode('f64', 2)).toBe('wasm');
      // small25's window line still decides where each thread would have fewer (4 threads), and where the count is not known
      expect(set.threadMode('f64', 4)).toBe('serial');
      expect(set.threadMode('f64')).toBe('serial');
    }
    const b0 = blocks(two.world);
    for (let f = 0; f < 10 || (f < 200 && blocks(two.world) === b0); f++)
      for (const w of [one.world, two.world]) w.step();
    expect(blocks(two.world) - b0).toBeGreaterThan(0);
    expect(x(two.world).equals(x(one.world))).toBe(true);
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
  it('sends a set under the window line to the pool where each thread has POOL_MIN_CONSTRAINTS.perThread of its constraints (session 21): a 78 × 78 cloth on 2 threads, not on 4, nor a 58 × 58 one', async () => {
    const per = POOL_MIN_CONSTRAINTS.perThread!;
    const big = fallingCloth({ n: 78, substeps: 5, bendCompliance: 0.01, threads: 2 });
    const one = fallingCloth({ n: 78, substeps: 5, bendCompliance: 0.01, threads: 1 });
    const small = fallingCloth({ n: 58, substeps: 5, bendCompliance: 0.01, threads: 2 });
    await big.world.threadsReady();
    for (const set of [big.cloth.stretch, big.cloth.bend!]) {
      expect(set.count).toBeGreaterThanOrEqual(2 * per);
      expect(set.count).toBeLessThan(4 * per);
      expect(set.threadMode('f64', 2)).toBe('wasm');
      expect(set.threadMode('f64', 4)).toBe('serial');
      expect(set.threadMode('f64')).toBe('serial');
    }
    for (const set of [small.cloth.stretch, small.cloth.bend!]) {
      expect(set.count).toBeLessThan(2 * per);
      expect(set.threadMode('f64', 2)).toBe('serial');
    }
    const b0 = blocks(big.world);
    for (let f = 0; f < 10 || (f < 200 && blocks(big.world) === b0); f++)
      for (const w of [one.world, big.world]) w.step();
    expect(blocks(big.world) - b0).toBeGreaterThan(0);
    expect(x(big.world).equals(x(one.world))).toBe(true);
    for (const w of [big.world, one.world, small.world]) w.dispose();
  }, 120_000);
});
