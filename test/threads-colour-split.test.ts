/**
 * A large window's colours cut per colour (session 23, bk30, issue 20: element-order.ts
 * jointSweepTable's `split`, element-threads-small.ts sweepBlockSizes, ElementThreads.blocksPerThread):
 * a colour of n groups in blocks of max(per, ⌈n / split⌉) groups. The blocks of each colour must
 * cover its groups exactly once, in order, for any size and split; a real cloth's colours get
 * threads × blocksPerThread blocks where they are large enough, and the bits stay those of one thread.
 */
import { describe, expect, it } from 'vitest';
import type { ElementConstraints } from '../src/constraints/element-set.js';
import { World } from '../src/index.js';
import { FUSED_COLOUR, FUSED_COLOUR2, jointSweepTable } from '../src/wasm/element-order.js';
import { ElementThreads } from '../src/wasm/element-threads.js';
import { hangingCloth } from './helpers/cloth.js';
import { keepThreadPools, stateBits } from './helpers/worlds.js';

keepThreadPools();

/** Per colour (op, first): its blocks' [from, to) in table order. */
function colourBlocks(T: Int32Array): Map<string, [number, number][]> {
  const nb = T[0];
  const out = new Map<string, [number, number][]>();
  for (let k = 0; k < nb; k++) {
    const op = T[1 + k];
    if (op !== FUSED_COLOUR && op !== FUSED_COLOUR2) continue;
    const key = `${op}:${T[1 + 3 * nb + k]}`;
    if (!out.has(key)) out.set(key, []);
    out.get(key)!.push([T[1 + nb + k], T[1 + 2 * nb + k]]);
  }
  return out;
}

/** Whether the blocks tile [a, z) exactly once, in order. */
function tiles(blocks: [number, number][], a: number, z: number): boolean {
  let at = a;
  for (const [from, to] of blocks) {
    if (from !== at || to <= from) return false;
    at = to;
  }
  return at === z;
}

describe('colour blocks cut per colour', () => {
  // one segment of 1-lane pair groups over 64 particles; colours of 1, 10, 255, 256, 257, 1,000, 5,000 groups
  const sizes = [1, 10, 255, 256, 257, 1000, 5000];
  const cp = [0];
  for (const n of sizes) cp.push(cp[cp.length - 1] + n);
  const groups = cp[cp.length - 1];
  const idx = new Int32Array(2 * groups);
  for (let j = 0; j < groups; j++) {
    idx[2 * j] = j % 64;
    idx[2 * j + 1] = (7 * j + 3) % 64;
  }
  const seg = (reverse: boolean) => ({ idx, colorPairs: cp, lanes: 1, arity: 2, reverse });

  it.each([0, 1, 2, 4, 8, 16])(
    'split %i: each colour is max(256, ⌈n / split⌉)-group blocks covering it once, in order',
    (split) => {
      for (const reverse of [false, true]) {
        const T = jointSweepTable([seg(reverse), seg(!reverse)], 64, 64, 256, false, 512, split)!;
        expect(T).not.toBe(null);
        const by = colourBlocks(T);
        expect(by.size).toBe(2 * sizes.length);
        for (const op of [FUSED_COLOUR, FUSED_COLOUR2]) {
          for (let c = 0; c < sizes.length; c++) {
            const n = sizes[c];
            const blocks = by.get(`${op}:${cp[c]}`)!;
            expect(tiles(blocks, cp[c], cp[c + 1])).toBe(true);
            const size = split > 0 ? Math.max(256, Math.ceil(n / split)) : 256;
            expect(blocks.length).toBe(Math.ceil(n / size));
          }
        }
      }
      // the 5,000-group colour: 20 blocks of 256 without a split, `split` blocks with one (4: 4 of 1,250)
      const T = jointSweepTable([seg(false)], 64, 64, 256, false, 512, split)!;
      const big = colourBlocks(T).get(`${FUSED_COLOUR}:${cp[sizes.length - 1]}`)!;
      expect(big.length).toBe(split === 0 ? 20 : Math.min(split, 20));
    },
  );

  it.each([2, 4])(
    'a 101 × 101 cloth on %i threads: its large colours in threads × 2 blocks, every colour covered once, the bits of one thread',
    async (threads) => {
      const make = (t: number) => {
        const world = new World({ dt: 1 / 60, substeps: 3, threads: t });
        return { world, cloth: hangingCloth(world, 101) };
      };
      // the option (0, GROUPS_PER_BLOCK alone, by default since the lead's quiet measurement)
      const saved = ElementThreads.blocksPerThread;
      ElementThreads.blocksPerThread = 2;
      const one = make(1);
      const many = make(threads);
      await many.world.threadsReady();
      for (let s = 0; s < 4; s++) for (const w of [one, many]) w.world.step();
      expect(stateBits(many.world).equals(stateBits(one.world))).toBe(true);
      const set = many.cloth.stretch as ElementConstraints;
      const q = (set as unknown as { threads: { task: { args: { fused: Int32Array } } } | null }).threads!;
      const copy = (set as unknown as { simd: { plan: { colorPairs: Int32Array | number[] } } }).simd;
      const colours = copy.plan.colorPairs;
      const by = colourBlocks(q.task.args.fused);
      let split = 0;
      for (let c = 0; c + 1 < colours.length; c++) {
        const n = colours[c + 1] - colours[c];
        const blocks = by.get(`${FUSED_COLOUR}:${colours[c]}`)!;
        expect(tiles(blocks, colours[c], colours[c + 1])).toBe(true);
        const want = Math.ceil(n / Math.max(256, Math.ceil(n / (threads * ElementThreads.blocksPerThread))));
        expect(blocks.length).toBe(want);
        if (n >= 2 * threads * ElementThreads.blocksPerThread * 256) {
          expect(blocks.length).toBe(threads * ElementThreads.blocksPerThread);
          split++;
        }
      }
      // the 101 × 101 stretch set's largest colours (2,550 groups of two lanes) are cut by the split
      if (threads === 2) expect(split).toBeGreaterThan(0);
      for (const w of [one, many]) w.world.dispose();
      ElementThreads.blocksPerThread = saved;
    },
    120_000,
  );
});
