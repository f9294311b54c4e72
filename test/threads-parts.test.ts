/**
 * A fused sweep's blocks and the particle passes' blocks cut into one part
 * per thread (src/wasm/element-threads.ts partTable and runParts,
 * src/core/particle-tasks.ts, docs/solver.md "Threads"): each thread runs
 * its own part first, then any block nobody claimed, and runs a dependency
 * nobody claimed itself. The parts change which thread runs a block, never
 * the numbers; and a part whose thread never comes is done by the others.
 */
import { describe, expect, it } from 'vitest';
import { awaitBlock, markDone, setThreadIndex } from '../src/core/block-order.js';
import { World } from '../src/index.js';
import {
  FUSED_COLOUR,
  FUSED_LOAD,
  FUSED_SAVE,
  fusedBlock,
  fusedSweepTable,
  readyBlock,
} from '../src/wasm/element-order.js';
import { ElementThreads, partTable } from '../src/wasm/element-threads.js';
import { hangingCloth } from './helpers/cloth.js';
import { keepThreadPools } from './helpers/worlds.js';

keepThreadPools();

const bits = (w: World) => Buffer.from(w.store.x.slice(0, 3 * w.store.count).buffer);
const fusedOf = (w: World) =>
  w.sets
    .map((s) => (s as unknown as { threads: { task: { args: { fused: Int32Array } } } | null }).threads)
    .filter((t) => t !== null && t !== undefined && t.task.args.fused.length > 0)
    .map((t) => t!.task.args.fused);

describe('fused sweeps and particle passes in parts', () => {
  it('partTable: every block in exactly one part, each part in serial order, each run of one op and colour cut into contiguous pieces that differ by at most two blocks, each part’s items over the sweep within one block of an even share', async () => {
    const world = new World({ threads: 2, substeps: 1 });
    hangingCloth(world, 130);
    await world.threadsReady();
    world.step();
    const tables = fusedOf(world);
    expect(tables.length).toBe(2);
    for (const T of tables) {
      const nb = T[0];
      for (const parts of [1, 2, 3, 4]) {
        const Q = partTable(T, parts);
        expect(Q[0]).toBe(parts);
        expect(Q[1 + parts] - Q[1]).toBe(nb);
        const seen = new Int32Array(nb);
        for (let p = 0; p < parts; p++) {
          // per run (op and colour): the blocks this part takes
          const runs = new Map<string, number[]>();
          for (let i = Q[1 + p]; i < Q[2 + p]; i++) {
            const k = Q[i];
            seen[k]++;
            if (i > Q[1 + p]) expect(k).toBeGreaterThan(Q[i - 1]);
            const b = fusedBlock(T, k);
            const key = `${b.op}:${b.op === FUSED_COLOUR ? b.first : 0}`;
            runs.set(key, [...(runs.get(key) ?? []), k]);
          }
          for (const ks of runs.values()) expect(ks[ks.length - 1] - ks[0]).toBe(ks.length - 1);
        }
        expect(seen.every((c) => c === 1)).toBe(true);
        // the pieces of one run differ by at most one block
        const sizes = new Map<string, number[]>();
        for (let p = 0; p < parts; p++) {
          const count = new Map<string, number>();
          for (let i = Q[1 + p]; i < Q[2 + p]; i++) {
            const b = fusedBlock(T, Q[i]);
            const key = `${b.op}:${b.op === FUSED_COLOUR ? b.first : 0}`;
            count.set(key, (count.get(key) ?? 0) + 1);
          }
          for (const [key, c] of count) sizes.set(key, [...(sizes.get(key) ?? []), c]);
        }
        for (const s of sizes.values()) expect(Math.max(...s) - Math.min(...s)).toBeLessThanOrEqual(2);
        // balanced over the sweep (session 16): per op, each part's items (groups, particles) within the
        // op's largest block of an even share (cut run by run, the last part took every run's odd block:
        // 258.5 groups over its share at 2 parts here)
        for (const op of [FUSED_LOAD, FUSED_COLOUR, FUSED_SAVE]) {
          const items = new Float64Array(parts);
          let largest = 0;
          for (let p = 0; p < parts; p++)
            for (let i = Q[1 + p]; i < Q[2 + p]; i++) {
              const b = fusedBlock(T, Q[i]);
              if (b.op !== op) continue;
              items[p] += b.to - b.from;
              largest = Math.max(largest, b.to - b.from);
            }
          const share = items.reduce((a, b) => a + b, 0) / parts;
          for (const n of items) expect(Math.abs(n - share)).toBeLessThanOrEqual(largest);
        }
      }
    }
    world.dispose();
  }, 120_000);

  it("a 130 × 130 cloth: the bits of one thread with parts on 2 and 4 threads, with the serial claims, and when the calling thread takes a worker's part (part 0 has no thread: its blocks are run by the others, no wait hangs)", async () => {
    const saved = ElementThreads.parts;
    const make = (threads: number) => {
      const world = new World({ threads, substeps: 5 });
      hangingCloth(world, 130);
      return world;
    };
    // [threads, parts, the calling thread's index]
    const runs: [number, boolean, number][] = [
      [1, true, 0],
      [2, true, 0],
      [2, false, 0],
      [4, true, 0],
      [2, true, 1],
    ];
    const worlds = runs.map(([t]) => make(t));
    try {
      await Promise.all(worlds.map((w) => w.threadsReady()));
      expect(worlds[0].store.count).toBeGreaterThanOrEqual(16_384);
      for (let s = 0; s < 12; s++)
        worlds.forEach((w, k) => {
          ElementThreads.parts = runs[k][1];
          setThreadIndex(runs[k][2]);
          try {
            w.step();
          } finally {
            setThreadIndex(0);
          }
        });
      for (const w of worlds.slice(1)) expect(bits(w).equals(bits(worlds[0]))).toBe(true);
      // the sets swept on the pool, as one job each
      for (const w of worlds.slice(1)) expect(fusedOf(w).length).toBe(2);
    } finally {
      ElementThreads.parts = saved;
      for (const w of worlds) w.dispose();
    }
  }, 180_000);

  it('readyBlock (session 19, thr26): claims the first unclaimed block whose dependencies are all done, never one with a dependency not done, and none where every unclaimed one waits', () => {
    // 4 particles, one colour of two 2-particle groups (one lane), 1 group a block: copies in, colour, copies out
    const idx = new Int32Array([0, 1, 2, 3]);
    const T = fusedSweepTable(idx, [0, 2], 1, 2, 4, false, 2, 1)!;
    const nb = T[0];
    const ops = Array.from({ length: nb }, (_, k) => fusedBlock(T, k).op);
    expect(ops).toEqual([FUSED_LOAD, FUSED_LOAD, FUSED_COLOUR, FUSED_COLOUR, FUSED_SAVE, FUSED_SAVE]);
    const done = new Int32Array(new SharedArrayBuffer(4 * nb));
    const claim = new Int32Array(new SharedArrayBuffer(4 * nb));
    const epoch = 7;
    // both copies in claimed by another thread, not done: no block is ready
    claim[0] = claim[1] = epoch;
    expect(readyBlock(T, done, claim, epoch)).toBe(-1);
    // copy-in block 1 done: the colour block on its particles (3) is ready, the one on block 0's (2) is not
    markDone(done, 1, epoch);
    expect(Array.from(fusedBlock(T, 2).deps)).toEqual([0]);
    expect(readyBlock(T, done, claim, epoch)).toBe(3);
    expect(claim[3]).toBe(epoch);
    expect(readyBlock(T, done, claim, epoch)).toBe(-1);
    markDone(done, 0, epoch);
    expect(readyBlock(T, done, claim, epoch)).toBe(2);
    // a block done returns at once from awaitBlock; markDone leaves the epoch in the slot
    expect(awaitBlock(done, 0, epoch)).toBe(0);
    expect(done[0]).toBe(epoch);
  });
});
