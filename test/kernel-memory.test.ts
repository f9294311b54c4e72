import { afterEach, describe, expect, it } from 'vitest';
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
      // 2 iterations × 2 halves × 2 sets = 8 sweeps per substep, one copy in and out
      expect(loads).toBe(4 * 5);
      expect(flushes).toBe(4 * 5);
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
});
