/**
 * The element sets' f64 sweeps as one job each on the worker pool
 * (src/wasm/element-order.ts, docs/solver.md "Threads"): every block waits
 * only for the earlier blocks that touch its particles, so each particle
 * sees the blocks that touch it in the serial order; the sweeps give the
 * bits of one thread and of the one-job-per-colour pool on 2 and 4 threads,
 * with far fewer jobs.
 */
import { describe, expect, it } from 'vitest';
import { ElementConstraints } from '../src/constraints/element-set.js';
import { type ThreadedScheduler, World } from '../src/index.js';
import { FUSED_COLOUR, fusedBlock } from '../src/wasm/element-order.js';
import { ElementThreads } from '../src/wasm/element-threads.js';
import type { PairedCopy } from '../src/wasm/paired.js';
import { hangingCloth } from './helpers/cloth.js';
import { keepThreadPools } from './helpers/worlds.js';

keepThreadPools();

const bits = (w: World) => Buffer.from(w.store.x.slice(0, 3 * w.store.count).buffer);
const jobsOf = (w: World) => (w.scheduler as unknown as { pool: { seq: number } }).pool.seq;

interface Fused {
  copy: PairedCopy<unknown>;
  args: { fused: Int32Array; fusedBack: Int32Array };
}
const fusedOf = (set: ElementConstraints) => {
  const t = (set as unknown as { threads: { k: PairedCopy<unknown>; task: { args: Fused['args'] } } })
    .threads;
  return { copy: t.k, args: t.task.args };
};

/** The particles block k of a fused table touches (padding lanes excluded), as element-order.ts's comment says. */
function touched(
  T: Int32Array,
  k: number,
  idx: Int32Array,
  ga: number,
  range: number,
  f32: boolean,
): number[] {
  const b = fusedBlock(T, k);
  const out: number[] = [];
  if (b.op === FUSED_COLOUR) {
    for (let t = ga * b.from; t < ga * b.to; t++) if (idx[t] < range) out.push(idx[t]);
    // f32: the block's quads' places in the colour's scratch
    if (f32) for (let j = b.from; j < b.to; j++) out.push(range + j - b.first);
  } else for (let i = b.from; i < b.to; i++) out.push(i);
  return out;
}

/**
 * Pairs (earlier block, later block) that touch a common particle with no
 * chain of dependencies from the later to the earlier: places where threads
 * could run them in the wrong order. Also checks that the colour blocks
 * cover the colours in the sweep's order.
 */
function violations(T: Int32Array, copy: PairedCopy<unknown>, reverse: boolean, f32 = false): number {
  const { lanes, arity, colorPairs } = copy.plan;
  const range = copy.win.range;
  const idx = new Int32Array(copy.memory.buffer, copy.addr.idx, lanes * arity * copy.plan.pairs);
  const nb = T[0];
  const anc: Uint8Array[] = [];
  const last = new Int32Array(range + copy.plan.pairs).fill(-1);
  let bad = 0;
  let next = 0;
  const colours = colorPairs.length - 1;
  const order: number[] = [];
  for (let s = 0; s < colours; s++) {
    const c = reverse ? colours - 1 - s : s;
    for (let j = colorPairs[c]; j < colorPairs[c + 1]; j++) order.push(j);
  }
  for (let k = 0; k < nb; k++) {
    const a = new Uint8Array(nb);
    for (const d of fusedBlock(T, k).deps) {
      if (d >= k) bad++;
      a[d] = 1;
      for (let e = 0; e < d; e++) if (anc[d][e]) a[e] = 1;
    }
    anc.push(a);
    for (const i of touched(T, k, idx, lanes * arity, range, f32)) {
      if (last[i] >= 0 && last[i] !== k && !a[last[i]]) bad++;
      last[i] = k;
    }
    const b = fusedBlock(T, k);
    if (b.op === FUSED_COLOUR) for (let j = b.from; j < b.to; j++) if (order[next++] !== j) bad++;
  }
  return bad + (next === order.length ? 0 : 1);
}

describe('the fused sweep (one job per sweep, blocks ordered by the particles they share)', () => {
  it.each(['f64', 'f32'] as const)(
    "a 201 × 201 cloth's tables (%s) order every particle's blocks (and the f32 blocks' places in the scratch) as the serial sweep does; a table missing a block's dependencies does not",
    async (precision) => {
      const world = new World({ threads: 2, substeps: 1, precision });
      const cloth = hangingCloth(world, 201);
      await world.threadsReady();
      world.step();
      for (const set of [cloth.stretch, cloth.bend!]) {
        const { copy, args } = fusedOf(set);
        const f32 = precision === 'f32';
        for (const reverse of [false, true]) {
          const T = reverse ? args.fusedBack : args.fused;
          expect(T.length).toBeGreaterThan(0);
          expect(T[0]).toBeLessThanOrEqual(255);
          expect(violations(T, copy, reverse, f32)).toBe(0);
          // deliberately broken: one colour block's dependencies dropped (its start shifted to its end)
          const broken = T.slice();
          const nb = T[0];
          const k = Math.floor(nb / 2);
          expect(fusedBlock(T, k).deps.length).toBeGreaterThan(0);
          broken[1 + 4 * nb + k] = broken[2 + 4 * nb + k];
          expect(violations(broken, copy, reverse, f32)).toBeGreaterThan(0);
        }
      }
      world.dispose();
    },
    120_000,
  );

  it.each(['f64', 'f32'] as const)(
    'an 80 × 80 cloth (%s), symmetric sweeps: the bits of one thread and of the one-job-per-colour pool on 2 and 4 threads, in under a third of the jobs',
    async (precision) => {
      const saved = ElementThreads.fused;
      const savedMin = ElementConstraints.poolMinConstraints;
      // 18,960 stretch constraints: below the f32 line, lowered so that the f32 sets go to the pool too
      ElementConstraints.poolMinConstraints = { f64: 0, f32: 0 };
      const make = (threads: number, fused: boolean) => {
        ElementThreads.fused = fused;
        const world = new World({ threads, substeps: 5, precision });
        const cloth = hangingCloth(world, 80);
        return { world, cloth, fused };
      };
      try {
        const worlds = [make(1, true), make(2, false), make(2, true), make(4, true)];
        await Promise.all(worlds.map((w) => w.world.threadsReady()));
        // the first step binds the copies (fused read then) and sends the tasks' arguments
        for (const w of worlds) {
          ElementThreads.fused = w.fused;
          w.world.step();
        }
        for (const w of worlds.slice(1)) expect(w.cloth.stretch.count).toBeGreaterThan(10_000);
        // jobs and worker blocks counted around each world's own steps (worlds of one thread count share a pool)
        const jobs = worlds.map(() => 0);
        const blocks = worlds.map(() => 0);
        const steps = 30;
        for (let s = 0; s < steps; s++)
          worlds.forEach((w, k) => {
            const threaded = w.world.threads > 1;
            const j0 = threaded ? jobsOf(w.world) : 0;
            const b0 = threaded ? (w.world.scheduler as ThreadedScheduler).workerBlocks : 0;
            w.world.step();
            if (!threaded) return;
            jobs[k] += (jobsOf(w.world) - j0 + 0x1000000) & 0xffffff;
            blocks[k] += (w.world.scheduler as ThreadedScheduler).workerBlocks - b0;
          });
        for (const w of worlds.slice(1)) expect(bits(w.world).equals(bits(worlds[0].world))).toBe(true);
        // per substep two sweeps (forward, backward) of two sets: fused, one job each instead of one
        // per colour and two for the window's copies
        expect(jobs[2]).toBeLessThan(jobs[1] / 3);
        expect(blocks[2] + blocks[3]).toBeGreaterThan(100);
        for (const w of worlds) w.world.dispose();
      } finally {
        ElementThreads.fused = saved;
        ElementConstraints.poolMinConstraints = savedMin;
      }
    },
    180_000,
  );
});
