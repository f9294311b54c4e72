/**
 * The lane layouts of the cloth kernels (scripts/kernels/lane-variants.ts,
 * bench/lanes.ts): gathered or blocked lanes of one precision give the same
 * bits (a layout moves data, it changes no operation), and the f32x4 kernels
 * stay within f32 round-off of the f64x2 ones on a folding cloth.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { clothKernelDefs, type Layout, laneModule, laneSweep } from '../bench/lanes.js';
import { fallingCloth } from '../bench/peers/cloth-scene.js';

let mod: WebAssembly.Module;
beforeAll(async () => {
  mod = await laneModule(clothKernelDefs());
}, 60_000);

/** Positions and multipliers after `sweeps` alternating stretch and bending sweeps in `layout`. */
function run(layout: Layout, sweeps: number) {
  const defs = clothKernelDefs();
  const fc = fallingCloth({ n: 20, substeps: 5, bendCompliance: 0.01 });
  for (let f = 0; f < 20; f++) fc.world.step();
  const store = fc.world.store;
  const bend = fc.cloth.bend!;
  const stretch = fc.cloth.stretch;
  const b = laneSweep(mod, defs.find((d) => d.name === 'projectDihedralBending')!, layout, bend, bend.rest, [
    bend.rule.kPrime,
    bend.rule.alphaTilde,
    bend.maxStep,
  ]);
  const s = laneSweep(mod, defs.find((d) => d.name === 'projectDistance')!, layout, stretch, stretch.rest, [
    stretch.rule.kPrime,
    stretch.rule.alphaTilde,
    0,
  ]);
  const p0 = store.p.slice();
  for (let k = 0; k < sweeps; k++) {
    s.sweep(store);
    b.sweep(store);
  }
  const m = 3 * store.count;
  return {
    p: store.p.slice(0, m),
    p0: p0.subarray(0, m),
    lb: b.lambda.slice(),
    ls: s.lambda.slice(),
    n: store.count,
  };
}

describe('lane layouts of the cloth kernels', () => {
  it('blocked lanes give the gathered lanes’ bits, in f64 and in f32', () => {
    for (const [a, b] of [
      ['paired64', 'blocked64'],
      ['paired32', 'blocked32'],
    ] as const) {
      const x = run(a, 10);
      const y = run(b, 10);
      let moved = 0;
      for (let i = 0; i < x.p.length; i++) if (x.p[i] !== x.p0[i]) moved++;
      expect(moved).toBeGreaterThan((3 * x.n) / 2); // the sweeps did work (the pins stay)
      expect(y.p).toEqual(x.p);
      expect(y.lb).toEqual(x.lb);
      expect(y.ls).toEqual(x.ls);
    }
  });

  it('f32x4 kernels write f32 values and stay within f32 round-off of f64x2', () => {
    const f64 = run('paired64', 10);
    const f32 = run('paired32', 10);
    let maxDiff = 0;
    let maxMove = 0;
    for (let i = 0; i < f64.p.length; i++) {
      expect(Math.fround(f32.p[i])).toBe(f32.p[i]);
      maxDiff = Math.max(maxDiff, Math.abs(f32.p[i] - f64.p[i]));
      maxMove = Math.max(maxMove, Math.abs(f64.p[i] - f64.p0[i]));
    }
    // coordinates of up to 2 m (an f32 ulp is 1.2e-7 m there), 10 sweeps of ~1,800 constraints:
    // measured 2.4e-7 m against moves of 4.4 cm; stated bound 1e-5 m
    expect(maxDiff).toBeGreaterThan(0);
    expect(maxDiff).toBeLessThan(1e-5);
    expect(maxMove).toBeGreaterThan(1e-4);
  });
});
