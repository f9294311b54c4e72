/**
 * A threaded world's first prediction of a step in its first sweep's copy-in blocks (session 24,
 * sub31: src/wasm/window-predict.ts, docs/solver.md "Threads"): the prediction stage leaves the
 * module's pass to the first joint sweep's FUSED_LOAD blocks, the pins' placements made meanwhile
 * written after it; the bits of one thread on 2 and 4 threads, with a moving pin; and each
 * fallback (the switch off, a beginStep hook that does not say beginsOnWindow, more placements
 * than the blocks take, a sweep not run as one job) runs the prediction on the calling thread,
 * with the same bits.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ConstraintSet } from '../src/core/constraint-set.js';
import { type Cloth, Motion, World } from '../src/index.js';
import { ElementThreads } from '../src/wasm/element-threads.js';
import { particlePass } from '../src/wasm/paired.js';
import { DeferredPrediction, MAX_PLACES } from '../src/wasm/window-predict.js';
import { hangingCloth } from './helpers/cloth.js';
import { keepThreadPools, stateBits } from './helpers/worlds.js';

keepThreadPools();

const N = 130;

/** A 130 × 130 cloth on `threads` threads, one of its pins moving (its placement matters every substep). */
function make(threads: number, precision: 'f32' | 'f64', extra: (w: World, c: Cloth) => void = () => {}) {
  const world = new World({ threads, substeps: 4, solver: 'xpbd', damping: 0.2, precision });
  const cloth = hangingCloth(world, N);
  cloth.unpin(0);
  cloth.pin(0, new Motion({ oscillate: { amplitude: [0.2, 0.1, 0.05], frequency: 2 } }));
  extra(world, cloth);
  return { world, cloth };
}

/** Steps 1-, 2- and 4-thread worlds `steps` times after 2 (binding); the predictions in blocks and on the calling thread over the timed steps. */
async function run(precision: 'f32' | 'f64', steps: number, extra?: (w: World, c: Cloth) => void) {
  const worlds = [make(1, precision, extra), make(2, precision, extra), make(4, precision, extra)];
  await Promise.all(worlds.map((w) => w.world.threadsReady()));
  for (let s = 0; s < 2; s++) for (const { world } of worlds) world.step();
  const blocks0 = DeferredPrediction.inBlocks;
  const predicts0 = particlePass.predicts;
  for (let s = 0; s < steps; s++) for (const { world } of worlds) world.step();
  const out = {
    worlds,
    inBlocks: DeferredPrediction.inBlocks - blocks0,
    predicts: particlePass.predicts - predicts0,
  };
  return out;
}

function expectSameBits(worlds: { world: World }[]): void {
  const ref = stateBits(worlds[0].world);
  for (const { world } of worlds.slice(1)) expect(stateBits(world).equals(ref)).toBe(true);
}

function dispose(worlds: { world: World }[]): void {
  for (const { world } of worlds) world.dispose();
}

afterEach(() => {
  DeferredPrediction.on = true;
  DeferredPrediction.f64 = true;
  ElementThreads.joint = true;
  ElementThreads.fused = true;
});

describe("the first prediction of a step in the first sweep's copy-in blocks", () => {
  it.each(['f32', 'f64'] as const)(
    '(%s) taken once a step on 2 and 4 threads, a moving pin on its target: the bits of one thread',
    async (precision) => {
      const steps = 10;
      const { worlds, inBlocks, predicts } = await run(precision, steps);
      expectSameBits(worlds);
      // each threaded world's first substep a step (the others predict in the last sweep's blocks);
      // the one-thread world's prediction in the module on its thread: one a step each
      expect(inBlocks).toBe(2 * steps);
      expect(predicts).toBe(3 * steps);
      // the moving pin where its motion puts it at the step's end, on every world
      for (const { world, cloth } of worlds) {
        const i = 3 * cloth.offset;
        expect(world.store.invMass[cloth.offset]).toBe(0);
        expect(Math.abs(world.store.x[i] - worlds[0].world.store.x[i])).toBe(0);
      }
      const x0 = worlds[0].world.store.x[3 * worlds[0].cloth.offset];
      expect(x0).not.toBe(0);
      dispose(worlds);
    },
    120_000,
  );

  // a hook that may read the particles (it reads nothing here; it only does not say so)
  const reader = (): ConstraintSet => ({
    kind: 'reader',
    order: 0,
    count: 0,
    enabled: true,
    sharesWindow: true,
    skipsPredicted: true,
    beginStep() {},
    project() {},
  });
  const fallbacks: [string, () => void, (w: World, c: Cloth) => void][] = [
    ['off (DeferredPrediction.on false)', () => (DeferredPrediction.on = false), () => {}],
    ['a set whose beginStep hook does not say beginsOnWindow', () => {}, (w) => w.addConstraintSet(reader())],
    [
      `more placements than the blocks take (${MAX_PLACES})`,
      () => {},
      // MAX_PLACES + 1 more pins along the cloth's last row
      (_, cloth) => {
        for (let k = 0; k <= MAX_PLACES; k++) cloth.pin(N * (N - 1) + k);
      },
    ],
    ['sweeps a job per colour (ElementThreads.fused false)', () => (ElementThreads.fused = false), () => {}],
  ];
  it.each(fallbacks)(
    '%s: the prediction whole on the calling thread, the same bits',
    async (_, before, extra) => {
      before();
      const steps = 4;
      const { worlds, inBlocks, predicts } = await run('f32', steps, extra);
      expectSameBits(worlds);
      expect(inBlocks).toBe(0);
      expect(predicts).toBe(3 * steps);
      dispose(worlds);
    },
    120_000,
  );

  it('(f64) an f64 window with DeferredPrediction.f64 off: on the calling thread, the same bits', async () => {
    DeferredPrediction.f64 = false;
    const steps = 4;
    const { worlds, inBlocks, predicts } = await run('f64', steps);
    expectSameBits(worlds);
    expect(inBlocks).toBe(0);
    expect(predicts).toBe(3 * steps);
    dispose(worlds);
  }, 120_000);

  it('sweeps not joined (ElementThreads.joint false): still in the first sweep, the same bits', async () => {
    ElementThreads.joint = false;
    const steps = 4;
    const { worlds, inBlocks, predicts } = await run('f32', steps);
    expectSameBits(worlds);
    expect(inBlocks).toBe(2 * steps);
    expect(predicts).toBe(3 * steps);
    dispose(worlds);
  }, 120_000);
});
