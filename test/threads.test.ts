/**
 * Worker threads (src/parallel/, docs/solver.md "Threads"): the pool runs
 * every block of a colour batch exactly once and the colours in order, a
 * kernel that throws reaches the caller and leaves the world usable, a
 * disposed world leaves no process behind, a world falls back to one thread
 * where shared memory is missing, and every scene file gives the same
 * numbers bit for bit on 1, 2 and 4 threads.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it, vi } from 'vitest';
import { loadShippedScene, sceneFiles } from '../scripts/shipped-scenes.js';
import { PbdError } from '../src/core/errors.js';
import {
  Cloth,
  gridMesh,
  registerParallelSet,
  type ThreadedScheduler,
  useWasmKernels,
  World,
} from '../src/index.js';
import { ProbeSet } from './fixtures/probe-set.js';
import { hangingCloth } from './helpers/cloth.js';
import { keepThreadPools, stateBits, withSmallSetsOnPool } from './helpers/worlds.js';

registerParallelSet(ProbeSet, new URL('./fixtures/probe-set.ts', import.meta.url).href);

const blocksOf = (w: World) => (w.scheduler as ThreadedScheduler).workerBlocks;

keepThreadPools();

/** Colours of a probe: sizes around the block length and the 256-constraint threshold of the scheduler. */
const SIZES = [3000, 2500, 4000, 300, 1000, 2000, 5000, 260];

describe('the worker pool', () => {
  it.each([2, 4])(
    'projects every constraint exactly once per pass, colour after colour, on %i threads',
    async (threads) => {
      const world = new World({ threads, substeps: 3, iterations: 2 });
      const probe = new ProbeSet(SIZES);
      world.addConstraintSet(probe);
      await world.threadsReady();
      world.step();
      const before = blocksOf(world);
      let wrongCounts = 0;
      let outOfOrder = 0;
      for (let s = 0; s < 150; s++) {
        probe.hits.fill(0);
        world.step();
        // 3 substeps × 2 iterations × 2 passes (symmetric sweep)
        for (let i = 0; i < probe.count; i++) if (probe.hits[i] !== 12) wrongCounts++;
        // the last pass is backward: every constraint of colour c + 1 before every one of colour c
        const off = probe.colorOffsets;
        for (let c = 0; c + 1 < probe.colors; c++) {
          let earliest = Infinity;
          let latest = -1;
          for (let i = off[c]; i < off[c + 1]; i++) earliest = Math.min(earliest, probe.stamp[i]);
          for (let i = off[c + 1]; i < off[c + 2]; i++) latest = Math.max(latest, probe.stamp[i]);
          if (latest > earliest) outOfOrder++;
        }
      }
      expect(wrongCounts).toBe(0);
      expect(outOfOrder).toBe(0);
      // the workers took part
      expect(blocksOf(world) - before).toBeGreaterThan(100);
      world.dispose();
    },
  );

  it('passes a kernel that throws in a worker to the caller as a PbdError; the world then steps on', async () => {
    const world = new World({ threads: 2, substeps: 2 });
    const probe = new ProbeSet(SIZES);
    world.addConstraintSet(probe);
    await world.threadsReady();
    world.step();
    // every constraint of colour 6 throws, so the blocks of whichever thread claims them do
    let thrown: unknown = null;
    const before = blocksOf(world);
    for (let attempt = 0; attempt < 20 && blocksOf(world) === before; attempt++) {
      probe.throwAt = 12800;
      try {
        world.step();
      } catch (e) {
        thrown = e;
      }
    }
    expect(thrown).toBeInstanceOf(PbdError);
    expect((thrown as PbdError).code).toBe('threads/kernel');
    expect((thrown as PbdError).message).toMatch(/probe constraint 12800 throws/);
    // usable: the next steps project everything exactly once, and the workers still take part
    probe.throwAt = -1;
    const after = blocksOf(world);
    for (let s = 0; s < 20; s++) {
      probe.hits.fill(0);
      world.step();
      expect(probe.hits.every((h) => h === 4)).toBe(true);
    }
    expect(blocksOf(world)).toBeGreaterThan(after);
    world.dispose();
  });

  /**
   * The output of a script that steps a threaded cloth 5 times and then runs `tail`, in a process of
   * its own (execFileSync's timeout fails the test if the process never exits).
   */
  const scriptOutput = (threads: number, tail: string): string =>
    execFileSync(
      'npx',
      [
        'tsx',
        '--input-type=module',
        '-e',
        `
      import { Cloth, gridMesh, World } from './src/index.ts';
      const world = new World({ threads: ${threads} });
      new Cloth(world, { mesh: gridMesh({ width: 1, height: 1, cols: 40, rows: 40 }), density: 0.1 });
      await world.threadsReady();
      for (let k = 0; k < 5; k++) world.step();
      ${tail}
    `,
      ],
      { cwd: new URL('..', import.meta.url), timeout: 60_000, encoding: 'utf8' },
    );

  it('leaves no process behind: a script with a threaded world exits once it disposed the world', () => {
    const out = scriptOutput(
      3,
      "world.dispose(); console.log('stepped on', world.threads, 'then disposed');",
    );
    expect(out).toContain('then disposed');
  });

  it('leaves no process behind when a script never disposes its world: the workers do not keep Node alive', () => {
    const out = scriptOutput(2, "console.log('stepped on', world.threads, 'and left without dispose');");
    expect(out).toContain('stepped on 2 and left without dispose');
  });

  it('falls back to one thread with a one-line notice where SharedArrayBuffer is missing', () => {
    const g = globalThis as { SharedArrayBuffer?: unknown };
    const saved = g.SharedArrayBuffer;
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      g.SharedArrayBuffer = undefined;
      const world = new World({ threads: 4 });
      expect(world.threads).toBe(1);
      new Cloth(world, { mesh: gridMesh({ width: 1, height: 1, cols: 8, rows: 8 }), density: 0.1 });
      world.step();
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0][0])).toMatch(/SharedArrayBuffer is missing.*one thread/);
    } finally {
      g.SharedArrayBuffer = saved;
      warn.mockRestore();
    }
  });

  it('rejects a thread count that is not a whole number from 1 to 256', () => {
    expect(() => new World({ threads: 0 })).toThrow(/world\.threads/);
    expect(() => new World({ threads: 1.5 })).toThrow(PbdError);
  });
});

const scene = (name: string, threads: number): World => loadShippedScene(name, { threads }).world;

const bits = (w: World) => stateBits(w, true);

const sceneNames = sceneFiles().map((f) => f.replace(/\.json$/, ''));

/** Steps per scene: a few hundred, fewer for the scenes whose step is slow here (test time on 2 cores). */
const STEPS = Number(process.env.PBDKIT_THREAD_STEPS ?? 200);

describe('bitwise identity across thread counts', () => {
  it('an 80 × 80 cloth: workers project its colour batches, with the numbers of one thread', async () => {
    // its sets (about 19,000 stretch constraints) are above the pool's f64 line; the line is lowered all the same so
    // that the test does not depend on where it stands
    await withSmallSetsOnPool(cloth80);
  }, 180_000);

  async function cloth80(): Promise<void> {
    const make = (threads: number) => {
      const world = new World({ threads, substeps: 5 });
      hangingCloth(world, 80);
      return world;
    };
    const worlds = [make(1), make(2), make(4)];
    await Promise.all(worlds.map((w) => w.threadsReady()));
    const before = worlds.map((w) => (w.threads > 1 ? blocksOf(w) : 0));
    for (let s = 0; s < 40; s++) for (const w of worlds) w.step();
    expect(bits(worlds[1]).equals(bits(worlds[0]))).toBe(true);
    expect(bits(worlds[2]).equals(bits(worlds[0]))).toBe(true);
    expect(blocksOf(worlds[1]) - before[1]).toBeGreaterThan(100);
    expect(blocksOf(worlds[2]) - before[2]).toBeGreaterThan(100);
    for (const w of worlds) w.dispose();
  }

  it("a 201 × 201 cloth (the cloth-201 benchmark's size): the WebAssembly kernels on the pool, the bits of one thread", async () => {
    const make = (threads: number) => {
      const world = new World({ threads, substeps: 5, sweep: 'forward' });
      return { world, cloth: hangingCloth(world, 201) };
    };
    const worlds = [make(1), make(2), make(4)];
    await Promise.all(worlds.map((w) => w.world.threadsReady()));
    const before = worlds.map((w) => (w.world.threads > 1 ? blocksOf(w.world) : 0));
    for (let s = 0; s < 8; s++) for (const w of worlds) w.world.step();
    // every thread count projects with the paired WebAssembly kernels (not the JavaScript twins)
    for (const w of worlds) expect(w.cloth.bend!.activeBackend).toBe('wasm');
    expect(bits(worlds[1].world).equals(bits(worlds[0].world))).toBe(true);
    expect(bits(worlds[2].world).equals(bits(worlds[0].world))).toBe(true);
    expect(blocksOf(worlds[1].world) - before[1]).toBeGreaterThan(100);
    expect(blocksOf(worlds[2].world) - before[2]).toBeGreaterThan(100);
    for (const w of worlds) w.world.dispose();
  }, 180_000);

  it('without WebAssembly the pool projects colour ranges with the JavaScript twins: the same bits as the WebAssembly kernels on one thread', async () => {
    // a 60 × 60 cloth's sets are below the size where the pool pays: lowered so that they go to it
    await withSmallSetsOnPool(rangesWithoutWasm);
  });

  async function rangesWithoutWasm(): Promise<void> {
    const make = (threads: number) => {
      const world = new World({ threads, substeps: 5 });
      hangingCloth(world, 60);
      return world;
    };
    const wasm = make(1);
    const js = make(2);
    await js.threadsReady();
    const before = blocksOf(js);
    for (let s = 0; s < 30; s++) {
      wasm.step();
      useWasmKernels(false);
      try {
        js.step();
      } finally {
        useWasmKernels(true);
      }
    }
    expect(bits(js).equals(bits(wasm))).toBe(true);
    expect(blocksOf(js) - before).toBeGreaterThan(100);
    for (const w of [wasm, js]) w.dispose();
  }

  it('Jacobi with averaging: the same bits on 1 and 2 threads', async () => {
    const make = (threads: number) => {
      const world = new World({ threads, substeps: 5, solve: 'jacobi', relaxation: 1.3 });
      hangingCloth(world, 60);
      return world;
    };
    const worlds = [make(1), make(2)];
    await worlds[1].threadsReady();
    for (let s = 0; s < 30; s++) for (const w of worlds) w.step();
    expect(bits(worlds[1]).equals(bits(worlds[0]))).toBe(true);
    for (const w of worlds) w.dispose();
  });

  it.each(sceneNames)(
    '%s: the same bits after a few hundred steps on 1, 2 and 4 threads',
    async (name) => {
      const worlds = [scene(name, 1), scene(name, 2), scene(name, 4)];
      await Promise.all(worlds.map((w) => w.threadsReady()));
      const t0 = performance.now();
      let steps = 0;
      // a few hundred steps, or fewer for a slow scene: at most ~3 s of the three worlds after the first 10 steps
      for (; steps < STEPS && (steps < 10 || performance.now() - t0 < 3_000); steps++)
        for (const w of worlds) w.step();
      const ref = bits(worlds[0]);
      expect(bits(worlds[1]).equals(ref), `2 threads after ${steps} steps`).toBe(true);
      expect(bits(worlds[2]).equals(ref), `4 threads after ${steps} steps`).toBe(true);
      for (const w of worlds) w.dispose();
    },
    120_000,
  );
});
