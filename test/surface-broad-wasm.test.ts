/**
 * The surface broad phase's candidate tests in WebAssembly (wasm/surfaces.ts,
 * a port of surface-broad-pairs.ts collectPairRange; src/collision/
 * surface-broad-wasm.ts): a full rebuild's and an incremental update's
 * lists are the JavaScript loop's, entry for entry (with the arrays copied
 * into the module's memory, also when its output room must grow, and on the
 * broad phase's own shared memory), a degenerate triangle hands the whole
 * range back to the JavaScript loop, and a cloth folding onto itself steps
 * bit for bit as with the module off, on one thread and on two (where the
 * pool's rebuilds and updates test their pairs in the module on every
 * thread).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Bvh } from '../src/collision/bvh.js';
import {
  type BroadArrays,
  collectDirtyPairs,
  collectPairRange,
  groupScratch,
  type PairSink,
} from '../src/collision/surface-broad-pairs.js';
import { type BroadWasmHost, WasmPairTests } from '../src/collision/surface-broad-wasm.js';
import { collisionSystemOf, type World } from '../src/index.js';
import { useWasmKernels, wasmKernel } from '../src/wasm/kernels.js';
import { foldingCloth } from './helpers/cloth.js';
import { keepThreadPools, stateBits } from './helpers/worlds.js';

keepThreadPools();

afterEach(() => useWasmKernels(true));

interface BroadInternals {
  arrays: BroadArrays;
  tree: Bvh;
  tBox: Float64Array;
  wasmTests: WasmPairTests;
  wasmHost: BroadWasmHost | null;
  topo: { version: number };
  vtCount: number;
  vtCand: Int32Array;
  eeCount: number;
  eeCand: Int32Array;
  pooledModule: { wasm: number; js: number; traversals: number; queries: number };
  pooledRebuilds: number;
  pooledUpdates: number;
  stats: { rebuilds: number; partialUpdates: number };
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

  it('on the broad phase own memory: a rebuild and an incremental update get the JavaScript lists, no array copied', () => {
    const world = foldingCloth();
    for (let f = 0; f < 30; f++) world.step();
    const bp = broadOf(world);
    const host = bp.wasmHost as BroadWasmHost;
    expect(host).not.toBeNull();
    const A = bp.arrays;
    // the snapshots, boxes and flags live in the module's memory (the tests read them there)
    for (const a of [
      A.snap,
      A.delta,
      A.vBox,
      A.tBox,
      A.tSphere,
      A.eBox,
      A.eHalf,
      A.sharp,
      A.vDirty,
      A.tDirty,
    ])
      expect(host.mem.holds(a)).toBe(true);
    // and so does the tree (its nodes, parents and leaves: the module reads them there, none copied)
    const tree = bp.tree;
    for (const a of [tree.box, tree.right, tree.start, tree.count, tree.items, tree.parent, tree.leafOf])
      expect(host.mem.holds(a)).toBe(true);
    const W = host.ready(A, bp.topo.version, 1, tree)!;
    expect(W).not.toBeNull();
    expect(host.treeCopied).toBe(false);
    const np = bp.tree.selfPairsBounded(bp.tBox, 64, 0);
    const pairs = bp.tree.pairs.slice(0, 2 * np);
    const js = sink();
    collectPairRange(A, pairs, 0, np, js);
    expect(js.vtCount).toBeGreaterThan(1000);
    const runs = host.runs;
    const w = sink();
    expect(host.run(W, A, pairs, np, false, w)).toBe(true);
    expect(host.runs).toBe(runs + 1);
    expect(lists(w)).toEqual(lists(js));
    // an incremental update: every 7th vertex strays, its triangles and edges dirty (the partial mode)
    const topo = collisionSystemOf(world)!.surfaces.topology as unknown as {
      vtStart: Int32Array;
      vtList: Int32Array;
      veStart: Int32Array;
      veList: Int32Array;
      vertexCount: number;
    };
    const dirty: number[] = [];
    const ends: number[] = [];
    for (let v = 0; v < topo.vertexCount; v += 7) {
      A.vDirty[v] = 1;
      for (let j = topo.vtStart[v]; j < topo.vtStart[v + 1]; j++) {
        const t = topo.vtList[j];
        if (A.tDirty[t] === 0) dirty.push(t);
        A.tDirty[t] = 1;
      }
      for (let j = topo.veStart[v]; j < topo.veStart[v + 1]; j++) A.eDirty[topo.veList[j]] = 1;
      if (dirty.length > (ends.at(-1) ?? 0)) ends.push(dirty.length);
    }
    const S = groupScratch();
    collectDirtyPairs(A, bp.tree, Int32Array.from(dirty), Int32Array.from(ends), 0, ends.length, 1024, S);
    expect(S.count).toBeGreaterThan(1000);
    const pj = sink();
    collectPairRange(A, S.pairs, 0, S.count, pj, true);
    const pw = sink();
    expect(host.run(host.ready(A, bp.topo.version, 1)!, A, S.pairs, S.count, true, pw)).toBe(true);
    expect(host.runs).toBe(runs + 2);
    // fewer than the full mode's, and the same as the JavaScript's
    expect(pj.vtCount).toBeGreaterThan(100);
    expect(pj.vtCount + pj.eeCount).toBeLessThan(js.vtCount + js.eeCount);
    expect(lists(pw)).toEqual(lists(pj));
    // the update's queries and filter in the module too (wasm/surfaces.ts dirtyPairs): the
    // JavaScript's triangle pairs in its order, the same candidates and the same count past the
    // budget, with the budget per triangle ample (1,024) and small (3: queries and triangles stop)
    const D = Int32Array.from(dirty),
      E = Int32Array.from(ends);
    for (const per of [1024, 3]) {
      const Sj = groupScratch();
      const overJ = collectDirtyPairs(A, tree, D, E, 0, E.length, per, Sj);
      const cj = sink();
      collectPairRange(A, Sj.pairs, 0, Sj.count, cj, true);
      const Wg = host.ready(A, bp.topo.version, 1, tree, [D, E])!;
      const cw = sink();
      const groupRuns = host.groupRuns;
      expect(host.groups(Wg, A, E.length, per, cw)).toBe(overJ);
      expect(host.groupRuns).toBe(groupRuns + 1);
      expect(Array.from(host.boundedPairs(Wg, Sj.count))).toEqual(
        Array.from(Sj.pairs.subarray(0, 2 * Sj.count)),
      );
      expect(lists(cw)).toEqual(lists(cj));
      if (per === 1024) {
        expect(overJ).toBe(0);
        expect(Sj.count).toBe(S.count);
      } else expect(overJ).toBeGreaterThan(100);
    }
    A.vDirty.fill(0);
    A.tDirty.fill(0);
    A.eDirty.fill(0);
  });

  it("the module's bounded self-traversal gives the tree's pairs in its order and stops at the same budgets", () => {
    const world = foldingCloth();
    for (let f = 0; f < 30; f++) world.step();
    const bp = broadOf(world);
    const host = bp.wasmHost as BroadWasmHost;
    const W = host.ready(bp.arrays, bp.topo.version, 1)!;
    expect(W).not.toBeNull();
    // no budget reached; items saturated (4 pairs each); the total reached (truncated), with and without saturation
    const cases: [number, number][] = [
      [64, 0],
      [4, 0],
      [64, 500],
      [2, 300],
      [1, 0],
    ];
    let saturatedSeen = 0;
    for (const [per, most] of cases) {
      const nj = bp.tree.selfPairsBounded(bp.tBox, per, most);
      const js = Array.from(bp.tree.pairs.subarray(0, 2 * nj));
      const nw = host.bounded(W, bp.arrays, bp.tree, per, most);
      expect(nw).toBe(nj);
      expect(Array.from(host.boundedPairs(W, nw))).toEqual(js);
      expect(host.saturated).toBe(bp.tree.saturated);
      expect(host.truncated).toBe(bp.tree.truncated);
      expect(host.truncated).toBe(most > 0 && nj === most);
      saturatedSeen += host.saturated;
    }
    expect(bp.tree.selfPairsBounded(bp.tBox, 64, 0)).toBeGreaterThan(1000);
    expect(saturatedSeen).toBeGreaterThan(100);
  });

  it('steps a folding cloth bit for bit as the JavaScript loop does, every rebuild and update in WebAssembly', () => {
    const run = (wasm: boolean) => {
      useWasmKernels(wasm);
      const world = foldingCloth();
      for (let f = 0; f < 40; f++) world.step();
      const bp = broadOf(world);
      return {
        bits: stateBits(world),
        runs: bp.wasmTests.runs + (bp.wasmHost?.runs ?? 0),
        bounded: bp.wasmHost?.boundedRuns ?? 0,
        groups: bp.wasmHost?.groupRuns ?? 0,
        rebuilds: bp.stats.rebuilds,
        updates: bp.stats.partialUpdates,
      };
    };
    const off = run(false);
    const on = run(true);
    expect(off.runs).toBe(0);
    expect(on.rebuilds).toBeGreaterThan(20);
    expect(on.updates).toBeGreaterThan(20);
    expect(on.runs).toBe(on.rebuilds + on.updates);
    // every rebuild's self-traversal in the module (none with it off)
    expect(off.bounded).toBe(0);
    expect(on.bounded).toBe(on.rebuilds);
    // and every update's queries and filter (none with it off)
    expect(off.groups).toBe(0);
    expect(on.groups).toBe(on.updates);
    expect(on.rebuilds).toBe(off.rebuilds);
    expect(on.bits).toEqual(off.bits);
  });

  it('on two threads: the pooled rebuilds and updates test their pairs in the module on every thread, with the JavaScript lists', async () => {
    const worlds = [false, true].map((wasm) => {
      useWasmKernels(wasm);
      return foldingCloth(2);
    });
    await Promise.all(worlds.map((w) => w.threadsReady()));
    const [off, on] = worlds.map(broadOf);
    for (let f = 0; f < 40; f++) {
      useWasmKernels(false);
      worlds[0].step();
      useWasmKernels(true);
      worlds[1].step();
      expect(on.vtCount).toBe(off.vtCount);
      expect(on.eeCount).toBe(off.eeCount);
      expect(Array.from(on.vtCand.subarray(0, 2 * on.vtCount))).toEqual(
        Array.from(off.vtCand.subarray(0, 2 * off.vtCount)),
      );
      expect(Array.from(on.eeCand.subarray(0, 2 * on.eeCount))).toEqual(
        Array.from(off.eeCand.subarray(0, 2 * off.eeCount)),
      );
    }
    expect(stateBits(worlds[1]).equals(stateBits(worlds[0]))).toBe(true);
    // both worlds' rebuilds and updates ran on the pool: with the module off in JavaScript, on in WebAssembly
    for (const b of [off, on]) {
      expect(b.pooledRebuilds).toBeGreaterThan(5);
      expect(b.pooledUpdates).toBeGreaterThan(5);
    }
    expect(off.pooledModule.wasm).toBe(0);
    expect(off.pooledModule.js).toBeGreaterThan(100);
    expect(on.pooledModule.wasm).toBeGreaterThan(100);
    // (a block whose thread's region was too small for it runs in JavaScript, and the region grows)
    expect(on.pooledModule.js).toBeLessThan(0.01 * on.pooledModule.wasm);
    // the rebuilds' parts: the tree's self-traversal in the module too, feeding the tests there
    expect(off.pooledModule.traversals).toBe(0);
    expect(on.pooledModule.traversals).toBeGreaterThan(100);
    // the updates' blocks: their queries and filter in the module too
    expect(off.pooledModule.queries).toBe(0);
    expect(on.pooledModule.queries).toBeGreaterThan(5);
    for (const w of worlds) w.dispose();
  }, 300_000);
});
