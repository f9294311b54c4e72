import { afterEach, describe, expect, it } from 'vitest';
import { ElementConstraints } from '../src/constraints/element-set.js';
import { ParticlePredictionStage } from '../src/core/stages.js';
import { Cloth, gridMesh, type PrecisionKind, SphereCollider, World } from '../src/index.js';
import type { ElementKernel } from '../src/wasm/element-kernels.js';
import { ParticleWindow } from '../src/wasm/paired.js';

// one kernel memory per body (src/wasm/element-kernels.ts, KernelMemory) and the held window
// (src/wasm/paired.ts, ParticleWindow.save; src/core/particles.ts, ParticleStore.held)

const load = ParticleWindow.prototype.load;
const flush = ParticleWindow.prototype.flush;
afterEach(() => {
  ParticleWindow.prototype.load = load;
  ParticleWindow.prototype.flush = flush;
});

/** An n × n cloth of 1 m at height y, pinned at one corner (an attachment projected before the material sets) or not. */
function cloth(world: World, n: number, y: number, pin = true): Cloth {
  const mesh = gridMesh({ width: 1, height: 1, cols: n, rows: n, plane: 'xz', diagonals: 'uniform' });
  for (let i = 1; i < mesh.positions.length; i += 3) mesh.positions[i] += y;
  const c = new Cloth(world, { mesh, density: 0.3, stretch: { stiffness: 1 }, bend: { stiffness: 0.1 } });
  if (pin) c.pin(0);
  return c;
}

const kernelOf = (set: unknown) => (set as { simd: ElementKernel | null }).simd;
/** Particles of the window copied in and out so far by a set's sweeps on the pool (element-threads.ts, ElementArgs.moved). */
const movedOf = (set: unknown) =>
  (set as { threads: { task: { args: { moved: Int32Array } } } | null }).threads?.task.args.moved ?? [0, 0];

describe('one kernel memory for a cloth’s sets', () => {
  for (const precision of ['f64', 'f32'] as PrecisionKind[]) {
    it(`(${precision}) stretch and bending share one memory and window, copied in and out once per substep`, () => {
      const world = new World({ dt: 0.005, substeps: 5, iterations: 2, sweep: 'symmetric', precision });
      const c = cloth(world, 30, 1, false);
      world.step();
      const s = kernelOf(c.stretch)!,
        b = kernelOf(c.bend)!;
      expect(s.memory).toBe(b.memory);
      expect(s.win).toBe(b.win);
      let loads = 0,
        flushes = 0;
      ParticleWindow.prototype.load = function (this: ParticleWindow, st) {
        if (st.held !== this) loads++;
        load.call(this, st);
      };
      ParticleWindow.prototype.flush = function (this: ParticleWindow, st) {
        flushes++;
        flush.call(this, st);
      };
      for (let k = 0; k < 4; k++) world.step();
      // 2 iterations × 2 halves × 2 sets = 8 sweeps per substep on the window, and on one thread the
      // prediction writes it and the velocity update reads it (src/core/window-passes.ts): no copy
      // in, one copy out per step, after its last substep (before: one in and out per substep)
      expect(loads).toBe(0);
      expect(flushes).toBe(4);
    });

    it(`(${precision}) with a collider between the sweeps and a second cloth added while running: the bits of the JavaScript kernels`, () => {
      const run = (backend: 'auto' | 'js') => {
        const world = new World({ dt: 0.005, substeps: 4, iterations: 1, sweep: 'symmetric', precision });
        world.addCollider(new SphereCollider({ radius: 0.3, position: [0.1, 0.6, 0.1] }));
        const cloths = [cloth(world, 24, 1)];
        const sets = () => cloths.flatMap((c) => [c.stretch, c.bend!]);
        for (const s of sets()) s.backend = backend;
        for (let k = 0; k < 40; k++) {
          if (k === 15) {
            cloths.push(cloth(world, 16, 1.5));
            for (const s of sets()) s.backend = backend;
          }
          world.step();
        }
        return {
          x: world.store.x.slice(0, 3 * world.store.count),
          backends: sets().map((s) => s.activeBackend),
        };
      };
      const a = run('auto');
      const j = run('js');
      expect(a.backends).toEqual(['wasm', 'wasm', 'wasm', 'wasm']);
      expect(j.backends).toEqual(['js', 'js', 'js', 'js']);
      expect(Array.from(a.x)).toEqual(Array.from(j.x));
      // the cloth draped over the sphere: its lowest point below the sphere's top
      let low = Number.POSITIVE_INFINITY;
      for (let i = 1; i < a.x.length; i += 3) low = Math.min(low, a.x[i]);
      expect(low).toBeLessThan(0.8);
    });
  }

  for (const [precision, moduleOnPool] of [
    ['f64', true],
    ['f32', true],
    ['f64', false],
    ['f32', false],
  ] as [PrecisionKind, boolean][]) {
    it(`(${precision}) on 2 and 4 threads: one shared memory, the window copied in (the first prediction in the module ${moduleOnPool}) and out by the pool's blocks, the bits of one thread`, async () => {
      const saved = ElementConstraints.poolMinConstraints;
      // a 30 × 30 cloth's sets are below the pool's line: lowered so that they sweep on the pool
      ElementConstraints.poolMinConstraints = { f64: 0, f32: 0 };
      ParticlePredictionStage.moduleOnPool = moduleOnPool;
      try {
        const make = (threads: number) => {
          const world = new World({
            threads,
            dt: 0.005,
            substeps: 5,
            iterations: 2,
            sweep: 'symmetric',
            precision,
          });
          return { world, cloth: cloth(world, 30, 1) };
        };
        const worlds = [make(1), make(2), make(4)];
        await Promise.all(worlds.map((w) => w.world.threadsReady()));
        for (const w of worlds) w.world.step();
        for (const { world, cloth: c } of worlds.slice(1)) {
          const s = kernelOf(c.stretch)!,
            b = kernelOf(c.bend)!;
          expect(s.memory).toBe(b.memory);
          expect(s.win).toBe(b.win);
          expect(s.memory.buffer).toBeInstanceOf(SharedArrayBuffer);
          const before = [...movedOf(c.stretch), ...movedOf(c.bend)];
          for (let k = 0; k < 4; k++) world.step();
          const after = [...movedOf(c.stretch), ...movedOf(c.bend)];
          const range = s.win.range;
          // the pinned corner's attachment, projected first in each iteration, is stiff: its
          // projection moves nothing and the window stays held across it (AttachmentSet.sharesWindow),
          // so one copy in and out per substep where 8 sweeps without the hold made 8 (4 per set,
          // counted by the pool's copy blocks; two before the stiff attachment shared the window). f32
          // (session 17): one per step, the last sweep of the other substeps updating and predicting
          // into the window (PassInSweep); f64 too since session 19 (cl25: the module's f64 pass, the
          // store homed after the first step's first substep). Since session 21 (cl28) each step's
          // first prediction writes the window in the module (ParticlePredictionStage.moduleOnPool), so
          // no copy in: the window is held from the step's start to its end
          const copies = 4 * range;
          expect(after[0] - before[0] + after[2] - before[2]).toBe(moduleOnPool ? 0 : copies);
          expect(after[1] - before[1] + after[3] - before[3]).toBe(copies);
        }
        for (let k = 0; k < 4; k++) worlds[0].world.step();
        for (let k = 0; k < 20; k++) for (const w of worlds) w.world.step();
        const bits = (w: World) => Buffer.from(w.store.x.slice(0, 3 * w.store.count).buffer);
        for (const w of worlds.slice(1)) expect(bits(w.world).equals(bits(worlds[0].world))).toBe(true);
        for (const w of worlds) w.world.dispose();
      } finally {
        ElementConstraints.poolMinConstraints = saved;
        ParticlePredictionStage.moduleOnPool = true;
      }
    }, 120_000);
  }

  it('two cloths (two windows, each copying the other out) and a sphere between the halves on 2 and 4 threads: the bits of one thread', async () => {
    const saved = ElementConstraints.poolMinConstraints;
    ElementConstraints.poolMinConstraints = { f64: 0, f32: 0 };
    try {
      const make = (threads: number) => {
        const world = new World({ threads, dt: 0.005, substeps: 4, iterations: 2, sweep: 'symmetric' });
        world.addCollider(new SphereCollider({ radius: 0.3, position: [0.1, 0.6, 0.1] }));
        const cloths = [cloth(world, 24, 1), cloth(world, 16, 1.5, false)];
        return { world, cloths };
      };
      const worlds = [make(1), make(2), make(4)];
      await Promise.all(worlds.map((w) => w.world.threadsReady()));
      for (let k = 0; k < 40; k++) for (const w of worlds) w.world.step();
      // both cloths' sets swept on the pool, each cloth's two sets on one shared memory
      for (const w of worlds.slice(1))
        for (const c of w.cloths) {
          expect(movedOf(c.stretch)[0]).toBeGreaterThan(0);
          expect(kernelOf(c.stretch)!.memory).toBe(kernelOf(c.bend)!.memory);
        }
      const bits = (w: World) => Buffer.from(w.store.x.slice(0, 3 * w.store.count).buffer);
      for (const w of worlds.slice(1)) expect(bits(w.world).equals(bits(worlds[0].world))).toBe(true);
      let low = Number.POSITIVE_INFINITY;
      const x = worlds[0].world.store.x;
      for (let i = 1; i < 3 * worlds[0].world.store.count; i += 3) low = Math.min(low, x[i]);
      expect(low).toBeLessThan(0.8);
      for (const w of worlds) w.world.dispose();
    } finally {
      ElementConstraints.poolMinConstraints = saved;
    }
  }, 120_000);
});
