/**
 * The surface broad phase's candidate tests in WebAssembly (wasm/surfaces.ts,
 * a port of surface-broad-pairs.ts collectPairRange; src/collision/
 * surface-broad-wasm.ts): a full rebuild's lists are the JavaScript loop's,
 * entry for entry (also when the module's output room must grow), a
 * degenerate triangle hands the whole range back to the JavaScript loop,
 * and a cloth folding onto itself steps bit for bit as with the module off.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { foldingSheet } from '../bench/scenes.js';
import type { Bvh } from '../src/collision/bvh.js';
import { type BroadArrays, collectPairRange, type PairSink } from '../src/collision/surface-broad-pairs.js';
import { WasmPairTests } from '../src/collision/surface-broad-wasm.js';
import { Cloth, collisionSystemOf, enableCollisions, PlaneCollider, World } from '../src/index.js';
import { useWasmKernels, wasmKernel } from '../src/wasm/kernels.js';
import { stateBits } from './helpers/worlds.js';

afterEach(() => useWasmKernels(true));

/** A 30 × 50 cloth let go just above the ground: it folds onto itself (self collision on). */
function foldingCloth(): World {
  const world = new World({ dt: 1 / 60, substeps: 5, damping: 0.2 });
  const mesh = foldingSheet([0.6, 1.0], [30, 50], 0.55, [0.03, 5]);
  const cloth = new Cloth(world, { mesh, density: 0.2, bend: { compliance: 0.5 } });
  world.addCollider(new PlaneCollider({ friction: 0.6 }));
  enableCollisions(world, { thickness: 0.006, friction: 0.4 }).add(cloth);
  return world;
}

interface BroadInternals {
  arrays: BroadArrays;
  tree: Bvh;
  tBox: Float64Array;
  wasmTests: WasmPairTests;
  stats: { rebuilds: number };
}

function broadOf(world: World): BroadInternals {
  return collisionSystemOf(world)!.surfaces.broadPhase as unknown as BroadInternals;
}

function sink(): PairSink {
  return { vt: new Int32Array(16), vtCount: 0, ee: new Int32Array(16), eeCount: 0, grow: true, full: false };
}

const lists = (s: PairSink) => [
  Array.from(s.vt.subarray(0, 2 * s.vtCount)),
  Array.from(s.ee.subarray(0, 2 * s.eeCount)),
];

describe('the surface broad phase in WebAssembly', () => {
  it('gives a full rebuild the JavaScript lists entry for entry, and leaves a degenerate triangle to JavaScript', () => {
    expect(wasmKernel('surfaces')).not.toBeNull();
    const world = foldingCloth();
    for (let f = 0; f < 30; f++) world.step();
    const bp = broadOf(world);
    const A = bp.arrays;
    const np = bp.tree.selfPairsBounded(bp.tBox, 64, 0);
    const pairs = bp.tree.pairs.slice(0, 2 * np);
    const js = sink();
    collectPairRange(A, pairs, 0, np, js);
    expect(js.vtCount).toBeGreaterThan(1000);
    expect(js.eeCount).toBeGreaterThan(10);
    // room for 8 pairs of each kind: the run fills it and runs again with more, several times
    const tests = new WasmPairTests(8);
    const w = sink();
    w.vtCount = 1;
    w.vt[0] = -7;
    w.vt[1] = -8;
    expect(tests.run(A, pairs, np, w)).toBe(true);
    expect(tests.runs).toBe(1);
    // appended after what the sink held
    expect([w.vt[0], w.vt[1]]).toEqual([-7, -8]);
    const wl = lists(w);
    wl[0] = wl[0].slice(2);
    expect(wl).toEqual(lists(js));
    // a candidate's triangle without positions (NaN corners): the exact test finds no region, the
    // JavaScript's degenerate case, which the module leaves to the JavaScript loop
    const t = js.vt[1];
    const snap = A.snap.slice();
    for (let k = 0; k < 3; k++) for (let m = 0; m < 3; m++) snap[3 * A.tri[3 * t + k] + m] = Number.NaN;
    const d = sink();
    expect(tests.run({ ...A, snap }, pairs, np, d)).toBe(false);
    expect(d.vtCount + d.eeCount).toBe(0);
    expect(tests.runs).toBe(1);
  });

  it('steps a folding cloth bit for bit as the JavaScript loop does, every rebuild in WebAssembly', () => {
    const run = (wasm: boolean) => {
      useWasmKernels(wasm);
      const world = foldingCloth();
      for (let f = 0; f < 40; f++) world.step();
      const bp = broadOf(world);
      return { bits: stateBits(world), runs: bp.wasmTests.runs, rebuilds: bp.stats.rebuilds };
    };
    const off = run(false);
    const on = run(true);
    expect(off.runs).toBe(0);
    expect(on.rebuilds).toBeGreaterThan(20);
    expect(on.runs).toBe(on.rebuilds);
    expect(on.rebuilds).toBe(off.rebuilds);
    expect(on.bits).toEqual(off.bits);
  });
});
