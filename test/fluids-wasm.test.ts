import { describe, expect, it } from 'vitest';
import { fluidWasmModule } from '../src/fluids/wasm.js';
import { Fluid, PlaneCollider, SphereCollider, World } from '../src/index.js';
import { WASM_BASE64 } from '../src/wasm/fluids.generated.js';
import { rng } from './helpers.js';

/**
 * The WebAssembly port of the fluid pair passes (wasm/fluids.ts) performs the
 * operations of the JavaScript passes (src/fluids/*-passes.ts) in the same order, so the
 * two give the same simulation bit for bit; the committed binary is the
 * compiled source.
 */
describe('fluid pair passes in WebAssembly', () => {
  // (test/wasm-kernels.test.ts checks that src/wasm/fluids.generated.ts is wasm/fluids.ts compiled)
  it('the module is small enough for a synchronous compile on a browser main thread (4 kB) and compiles here', () => {
    expect(Buffer.from(WASM_BASE64, 'base64').length).toBeLessThan(4096);
    expect(fluidWasmModule()).not.toBeNull();
  });

  it('a sloshing, jumbled fluid with walls, a sphere, XSPH and vorticity: identical positions and velocities', () => {
    for (const n of [4, 3]) {
      const a = slosh('js', n, false);
      const b = slosh('wasm', n, false);
      expect(b.ran).toBe('wasm');
      expect(a.ran).toBe('js');
      expect(b.moved).toBeGreaterThan(0.05);
      expect(Array.from(b.x)).toEqual(Array.from(a.x));
      expect(Array.from(b.v)).toEqual(Array.from(a.v));
      expect(Array.from(b.rho)).toEqual(Array.from(a.rho));
    }
  });

  it('the fluid pairs built in WebAssembly are those of buildForwardPairs, row by row in the same order', () => {
    const rows: number[][][] = [];
    for (const kernels of ['js', 'wasm'] as const) {
      const world = new World({ gravity: [0, 0, 0] });
      const d = 0.05;
      const fluid = new Fluid(world, { spacing: d, blocks: [{ min: [0, 0, 0], max: [0.6, 0.4, 0.5] }] });
      fluid.density.kernels = kernels;
      const random = rng(3);
      const off = fluid.offset;
      for (let k = 0; k < 3 * fluid.activeCount; k++)
        world.store.p[3 * off + k] += 0.8 * d * (random() - 0.5);
      fluid.density.search(world.makeContext(), true);
      const { start, nbr, count } = fluid.density.pairs;
      expect(count).toBeGreaterThan(10 * fluid.activeCount);
      const r: number[][] = [];
      for (let a = 0; a < fluid.activeCount; a++) r.push(Array.from(nbr.subarray(start[a], start[a + 1])));
      rows.push(r);
    }
    expect(rows[1]).toEqual(rows[0]);
  });

  it('with a pinned fluid particle (the weighted density pass runs in JavaScript): identical too', () => {
    const a = slosh('js', 4, true);
    const b = slosh('wasm', 4, true);
    expect(Array.from(b.x)).toEqual(Array.from(a.x));
    expect(Array.from(b.v)).toEqual(Array.from(a.v));
  });
});

function slosh(kernels: 'js' | 'wasm', nCorr: number, pinned: boolean) {
  const world = new World({ dt: 1 / 60, substeps: 2, iterations: 3 });
  const d = 0.05;
  world.addCollider(new PlaneCollider({ normal: [0, 1, 0], position: [0, 0, 0] }));
  world.addCollider(new PlaneCollider({ normal: [1, 0, 0], position: [-0.05, 0, 0], friction: 0 }));
  world.addCollider(new PlaneCollider({ normal: [-1, 0, 0], position: [0.75, 0, 0], friction: 0 }));
  world.addCollider(new SphereCollider({ radius: 0.12, position: [0.45, 0.05, 0.15] }));
  const fluid = new Fluid(world, {
    spacing: d,
    blocks: [{ min: [0, 0, 0], max: [0.3, 0.5, 0.3], velocity: [1.5, 0, 0.3] }],
    vorticity: 0.2,
    viscosity: 0.05,
    artificialPressure: { n: nCorr },
  });
  fluid.density.kernels = kernels;
  const store = world.store;
  const random = rng(11);
  for (let s = 0; s < fluid.activeCount; s++) {
    const i3 = 3 * (fluid.offset + s);
    for (let c = 0; c < 3; c++) store.x[i3 + c] += 0.3 * d * (random() - 0.5);
  }
  if (pinned) store.invMass[fluid.offset + 7] = 0;
  const x0 = fluid.positionsById();
  for (let k = 0; k < 40; k++) world.step();
  const x = fluid.positionsById();
  let moved = 0;
  for (let k = 0; k < x.length; k++) moved = Math.max(moved, Math.abs(x[k] - x0[k]));
  const ran = (fluid.density as unknown as { wasmNow: unknown }).wasmNow ? 'wasm' : 'js';
  return { x, v: fluid.velocitiesById(), rho: fluid.densities(), moved, ran };
}
