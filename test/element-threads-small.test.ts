/**
 * The threaded sweep's tables where the particle window is small (src/wasm/element-threads-small.ts,
 * session 21, sw28, issue 20): a 78 × 78 cloth (6,084 particles, under two copy blocks of 4,096)
 * gets a copy block per thread and colour blocks whose table's critical path is at most its work /
 * (2 · threads), where the default sizes leave it near a chain; the bits stay those of one thread.
 */
import { describe, expect, it } from 'vitest';
import type { ElementConstraints } from '../src/constraints/element-set.js';
import { World } from '../src/index.js';
import { FUSED_LOAD, jointSweepTable, MAX_JOINT_BLOCKS, segmentOf } from '../src/wasm/element-order.js';
import { criticalPath } from '../src/wasm/element-threads-small.js';
import type { PairedCopy } from '../src/wasm/paired.js';
import { hangingCloth } from './helpers/cloth.js';
import { keepThreadPools, stateBits, withSmallSetsOnPool } from './helpers/worlds.js';

keepThreadPools();

interface Tables {
  fused: Int32Array;
  fusedBack: Int32Array;
  join: { fwd: Int32Array; back: Int32Array } | null;
}
const argsOf = (set: ElementConstraints) =>
  (set as unknown as { threads: { task: { args: Tables } } | null }).threads!.task.args;
const copyOf = (set: ElementConstraints) => (set as unknown as { simd: PairedCopy<unknown> }).simd;
const copyBlocks = (T: Int32Array) => {
  let n = 0;
  for (let k = 0; k < T[0]; k++) if (T[1 + k] === FUSED_LOAD) n++;
  return n;
};

describe('the threaded sweep of a small window', () => {
  it('gives a 78 × 78 cloth a copy block per thread and tables whose critical path is at most a quarter of their work on 2 threads (the default sizes: over a third), with the bits of one thread', async () => {
    await withSmallSetsOnPool(async () => {
      const make = (threads: number) => {
        const world = new World({ dt: 1 / 60, substeps: 4, threads });
        return { world, cloth: hangingCloth(world, 78) };
      };
      const one = make(1);
      const two = make(2);
      await two.world.threadsReady();
      for (let s = 0; s < 6; s++) for (const w of [one, two]) w.world.step();
      expect(stateBits(two.world).equals(stateBits(one.world))).toBe(true);
      const sets = [two.cloth.stretch, two.cloth.bend!];
      const [a, b] = sets.map(argsOf);
      expect(copyOf(sets[0]).win.range).toBe(78 * 78);
      // the joint sweep (stretch then bending) ran, and its tables and each set's own are short
      expect(a.join).not.toBe(null);
      const tables = [a.fused, a.fusedBack, b.fused, b.fusedBack, a.join!.fwd, a.join!.back];
      for (const T of tables) {
        expect(copyBlocks(T)).toBe(2);
        const { work, path } = criticalPath(T);
        expect(4 * path).toBeLessThanOrEqual(work);
      }
      // the default sizes (4,096 particles, 256 groups a block) on the same joint sweep: a third and more
      const [ks, kb] = sets.map(copyOf);
      const T = jointSweepTable(
        [segmentOf(ks, false), segmentOf(kb, false)],
        ks.win.range,
        4096,
        256,
        false,
        MAX_JOINT_BLOCKS,
      )!;
      const { work, path } = criticalPath(T);
      expect(3 * path).toBeGreaterThan(work);
      for (const w of [one, two]) w.world.dispose();
    });
  }, 120_000);
});
