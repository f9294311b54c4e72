/**
 * The narrow phase's detection scans in WebAssembly (wasm/narrow.ts, emitted with
 * the JavaScript scans from scripts/kernels/emit-narrow-scans.ts; src/collision/surface-narrow-wasm.ts): on a cloth
 * folding onto itself, every scan of a step (the detection scans and the
 * fail-safe's crossing scans) gives the JavaScript scans' hits and distance
 * bounds entry for entry and bit for bit; a degenerate triangle (the
 * JavaScript's closestOnDegenerate) too; and the cloth steps bit for bit as
 * with the module off, on one thread and on two (the blocks on the pool,
 * each thread's instance over a shared memory).
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  T_EED,
  T_MOTION,
  T_SHARP,
  T_SLOTS,
  T_SV,
  T_VT,
  T_VTD,
} from '../src/collision/narrow-slots.generated.js';
import type { BroadMemory } from '../src/collision/surface-broad-wasm.js';
import { N_RESCAN, N_TANGLED, type NarrowArrays } from '../src/collision/surface-narrow-scan.js';
import {
  scanEdgeEdgeCrossings,
  scanEdgeEdges,
  scanVertexTriangleCrossings,
  scanVertexTriangles,
} from '../src/collision/surface-narrow-scans.generated.js';
import type { SurfaceNarrowScan } from '../src/collision/surface-narrow-tasks.js';
import { WasmNarrow } from '../src/collision/surface-narrow-wasm.js';
import type { ParticleStore } from '../src/core/particles.js';
import type { TaskRunner } from '../src/core/step-context.js';
import { Cloth, collisionSystemOf, gridMesh } from '../src/index.js';
import { useWasmKernels, wasmKernel } from '../src/wasm/kernels.js';
import { foldingCloth } from './helpers/cloth.js';
import { keepThreadPools, stateBits } from './helpers/worlds.js';

keepThreadPools();
afterEach(() => useWasmKernels(true));

type ScanInternals = Pick<SurfaceNarrowScan, 'scan' | 'scanCrossings' | 'wasm' | 'vt' | 'ee'> & {
  bind(store: ParticleStore, x: Float64Array, p: Float64Array): NarrowArrays;
  broad: { vtCount: number; eeCount: number; wasmHost: { mem: BroadMemory } | null };
};

/** A copy of the arrays a scan writes (the distance bounds), the rest shared. */
function copyOf(A: NarrowArrays): NarrowArrays {
  return { ...A, vtDist: A.vtDist.slice(), eeDist: A.eeDist.slice(), scalars: A.scalars.slice() };
}

const bitsOf = (a: Float64Array, n: number) => Buffer.from(a.buffer, a.byteOffset, 8 * n);

interface Scan {
  hits: number[][];
  vtDist: Buffer;
  eeDist: Buffer;
}

/** The JavaScript scans (detection or crossings) over a copy of A. */
function jsScan(A0: NarrowArrays, nv: number, ne: number, crossings: boolean): Scan {
  const A = copyOf(A0);
  const vt = new Int32Array(2 * nv),
    ee = new Int32Array(2 * ne);
  const n = (crossings ? scanVertexTriangleCrossings : scanVertexTriangles)(A, 0, nv, vt);
  const m = (crossings ? scanEdgeEdgeCrossings : scanEdgeEdges)(A, 0, ne, ee);
  return {
    hits: [Array.from(vt.subarray(0, 2 * n)), Array.from(ee.subarray(0, 2 * m))],
    vtDist: bitsOf(A.vtDist, nv),
    eeDist: bitsOf(A.eeDist, ne),
  };
}

/** The module's scans over a copy of A. */
function wasmScan(W: WasmNarrow, A0: NarrowArrays, nv: number, ne: number, crossings: boolean): Scan {
  const A = copyOf(A0);
  expect(W.ready()).toBe(true);
  expect(W.load(A, nv, ne, 0, crossings)).toBe(true);
  const ex = W.exports,
    t = W.args!.table;
  const n = crossings ? ex.crossVt(t, 0, nv) : ex.scanVt(t, 0, nv);
  const m = crossings ? ex.crossEe(t, 0, ne) : ex.scanEe(t, 0, ne);
  const hits = [Array.from(W.hits(true, n)), Array.from(W.hits(false, m))];
  W.unload(A, nv, ne);
  return { hits, vtDist: bitsOf(A.vtDist, nv), eeDist: bitsOf(A.eeDist, ne) };
}

/**
 * Wraps S's scans: `visit` gets each scan's kind, its arrays (bound, with the crossing scans' recheck
 * flags and rescan scalar) and the scan itself to run.
 */
function watchScans(
  S: ScanInternals,
  visit: (crossings: boolean, A: NarrowArrays, run: () => void) => void,
): void {
  const scan = S.scan.bind(S),
    scanCrossings = S.scanCrossings.bind(S);
  S.scan = (store: ParticleStore, x: Float64Array, p: Float64Array, tasks: TaskRunner | null) => {
    const A = S.bind(store, x, p);
    A.scalars[N_RESCAN] = 0;
    visit(false, A, () => scan(store, x, p, tasks));
  };
  S.scanCrossings = (
    store: ParticleStore,
    x: Float64Array,
    rescan: boolean,
    recheck: Uint8Array,
    tasks: TaskRunner | null,
  ) => {
    const A = S.bind(store, x, store.p);
    A.recheck = recheck;
    A.scalars[N_RESCAN] = rescan ? 1 : 0;
    visit(true, A, () => scanCrossings(store, x, rescan, recheck, tasks));
  };
}

describe('the surface narrow phase in WebAssembly', () => {
  it("gives every scan of a folding cloth's steps the JavaScript hits and distance bounds, entry for entry", () => {
    expect(wasmKernel('narrow')).not.toBeNull();
    const world = foldingCloth();
    const narrow = collisionSystemOf(world)!.surfaces.narrowScan;
    const S = narrow as unknown as ScanInternals;
    // what the scans saw: scans and crossing scans, vertex–triangle and edge–edge hits, CCD and negative-side hits
    const seen = { scans: 0, crossingScans: 0, vtHits: 0, eeHits: 0, ccd: 0, neg: 0 };
    // each scan: the JavaScript's scan over a copy of its arrays first, then the module's own run
    const check = (crossings: boolean, A: NarrowArrays, run: () => void) => {
      const nv = S.broad.vtCount,
        ne = S.broad.eeCount;
      const js = jsScan(A, nv, ne, crossings);
      const before = S.wasm.runs;
      run();
      // the module ran (not the JavaScript), and gave the same hits and bounds
      expect(S.wasm.runs).toBe(before + 1);
      expect([
        Array.from(S.vt.hits.subarray(0, 2 * S.vt.count)),
        Array.from(S.ee.hits.subarray(0, 2 * S.ee.count)),
      ]).toEqual(js.hits);
      expect(bitsOf(A.vtDist, nv).equals(js.vtDist)).toBe(true);
      expect(bitsOf(A.eeDist, ne).equals(js.eeDist)).toBe(true);
      seen.vtHits += S.vt.count;
      seen.eeHits += S.ee.count;
      for (let i = 0; i < S.vt.count; i++) {
        if (S.vt.hits[2 * i + 1] & 2) seen.ccd++;
        if (S.vt.hits[2 * i + 1] & 16) seen.neg++;
      }
      if (crossings) seen.crossingScans++;
      else seen.scans++;
    };
    watchScans(S, check);
    for (let f = 0; f < 40; f++) world.step();
    expect(seen.scans).toBe(200);
    expect(seen.crossingScans).toBeGreaterThanOrEqual(200);
    // the cloth touched itself: contacts of both kinds, crossings, and both sides
    expect(seen.vtHits).toBeGreaterThan(10_000);
    expect(seen.eeHits).toBeGreaterThan(100);
    expect(seen.ccd).toBeGreaterThan(0);
    expect(seen.neg).toBeGreaterThan(0);
  });

  it('gives a degenerate (zero-area) triangle the JavaScript hits and distances', () => {
    const world = foldingCloth();
    const narrow = collisionSystemOf(world)!.surfaces.narrowScan;
    const S = narrow as unknown as ScanInternals;
    let A: NarrowArrays | null = null;
    const scan = S.scan.bind(S);
    S.scan = (store: ParticleStore, x: Float64Array, p: Float64Array, tasks: TaskRunner | null) => {
      A = copyOf(S.bind(store, x, p));
      A.x = x.slice();
      A.p = p.slice();
      scan(store, x, p, tasks);
    };
    for (let f = 0; f < 30; f++) world.step();
    const B = A as unknown as NarrowArrays;
    const nv = S.broad.vtCount,
      ne = S.broad.eeCount;
    const js0 = jsScan(B, nv, ne, false);
    expect(js0.hits[0].length).toBeGreaterThan(200);
    // the triangles of the first 40 hits collapse onto a line (corner c at the middle of a–b) at x and
    // p, and those of the next 10 lose their positions (NaN corners: closestPointTriangleAt finds no
    // region and takes the nearest of the three edges, closestOnDegenerate)
    const tri = B.tri,
      vert = B.vertex;
    for (let i = 0; i < 50; i++) {
      const t = B.vtCand[2 * js0.hits[0][2 * i] + 1];
      const a = 3 * vert[tri[3 * t]],
        b = 3 * vert[tri[3 * t + 1]],
        c = 3 * vert[tri[3 * t + 2]];
      for (const X of [B.x, B.p])
        for (let k = 0; k < 3; k++) {
          if (i < 40) X[c + k] = 0.5 * (X[a + k] + X[b + k]);
          else X[a + k] = X[b + k] = X[c + k] = Number.NaN;
        }
    }
    const js = jsScan(B, nv, ne, false);
    const W = new WasmNarrow();
    const wasm = wasmScan(W, B, nv, ne, false);
    expect(js.hits).not.toEqual(js0.hits);
    expect(wasm.hits).toEqual(js.hits);
    expect(wasm.vtDist.equals(js.vtDist)).toBe(true);
    expect(wasm.eeDist.equals(js.eeDist)).toBe(true);
    const jsC = jsScan(B, nv, ne, true);
    const wasmC = wasmScan(W, B, nv, ne, true);
    expect(wasmC.hits).toEqual(jsC.hits);
    expect(wasmC.vtDist.equals(jsC.vtDist)).toBe(true);
  });

  it("reads the broad phase's arrays on its memory where they are: per scan only x, p, the masses, reaches and thicknesses are copied", () => {
    // docs/collision.md, "Seventeenth round": the module runs on the broad phase's shared memory, where the
    // swept boxes, motions, sharp edges, candidates and their bounds lie (no copy in, no bounds copied back)
    const world = foldingCloth();
    const S = collisionSystemOf(world)!.surfaces.narrowScan as unknown as ScanInternals;
    const W = S.wasm;
    const seen = { scans: 0, plain: 0, topology: 0, maxCandidates: 0 };
    const check = (A: NarrowArrays, crossings: boolean) => {
      const mem = (S.broad.wasmHost as { mem: BroadMemory }).mem;
      for (const a of [A.sv, A.motion, A.sharp, A.vtCand, A.vtDist, A.eeCand, A.eeDist])
        expect(mem.holds(a)).toBe(true);
      const table = new Int32Array(mem.memory.buffer, W.args!.table, T_SLOTS);
      expect([table[T_SV], table[T_MOTION], table[T_SHARP], table[T_VT], table[T_VTD], table[T_EED]]).toEqual(
        [A.sv, A.motion, A.sharp, A.vtCand, A.vtDist, A.eeDist].map((a) => a.byteOffset),
      );
      // of the store's x, p and masses only its particles (they have room for more)
      const n = world.store.count;
      expect(A.x.length).toBeGreaterThan(3 * n);
      let copies = 56 * n + A.halfReach.byteLength + A.thickness.byteLength;
      if (A.scalars[N_TANGLED] !== 0) copies += 4 * A.label.length;
      if (crossings && A.scalars[N_RESCAN] !== 0) copies += A.recheck.byteLength;
      const topology = [A.tri, A.edge, A.vertex, A.vertexSurface, A.triSurface, A.edgeSurface].reduce(
        (b, a) => b + a.byteLength,
        0,
      );
      // the topology once (the cloth's does not change), the rest every scan
      if (W.copied !== copies) {
        expect(W.copied).toBe(copies + topology);
        seen.topology++;
      }
      seen.scans++;
      if (W.copied === 84_016) seen.plain++;
      seen.maxCandidates = Math.max(seen.maxCandidates, S.broad.vtCount + S.broad.eeCount);
    };
    watchScans(S, (crossings, A, run) => {
      run();
      check(A, crossings);
    });
    for (let f = 0; f < 20; f++) world.step();
    expect(seen.scans).toBeGreaterThanOrEqual(200);
    expect(seen.topology).toBe(1);
    expect(seen.maxCandidates).toBeGreaterThan(1000);
    // 1,500 cloth vertices: x, p (36,000 bytes each), masses (12,000) and two per-surface values per scan
    expect(world.store.count).toBe(1500);
    // 201 scans (100 detection scans, 100 crossing scans, 1 rescan): all but the first (with the topology) and the
    // rescan (with its recheck flags) copy exactly 84,016 bytes (on main each scan copied the swept boxes, motions,
    // sharp edges, candidates and bounds too, x, p and the masses whole, and the bounds back)
    expect([seen.scans, seen.plain]).toEqual([201, 199]);
  });

  it('moves to the new broad memory when the topology changes (a cloth added mid-run), with the bits of the module off', async () => {
    const run = async (wasm: boolean, threads: number) => {
      useWasmKernels(wasm);
      const world = foldingCloth(threads);
      await world.threadsReady();
      const surfaces = collisionSystemOf(world)!.surfaces;
      const home = () => (surfaces.narrowScan.wasm as unknown as { home: BroadMemory | null }).home;
      for (let f = 0; f < 12; f++) world.step();
      const before = home();
      const mesh = gridMesh({ width: 0.5, height: 0.5, cols: 12, rows: 12, plane: 'xz' });
      collisionSystemOf(world)!.add(new Cloth(world, { mesh, density: 0.2 }));
      for (let f = 0; f < 12; f++) world.step();
      const out = { bits: stateBits(world), runs: surfaces.narrowScan.wasm.runs, before, after: home() };
      world.dispose();
      return out;
    };
    const off = await run(false, 1);
    const on = await run(true, 1);
    const two = await run(true, 2);
    expect([off.before, off.after]).toEqual([null, null]);
    for (const r of [on, two]) {
      expect(r.before).not.toBeNull();
      expect(r.after).not.toBeNull();
      expect(r.after).not.toBe(r.before);
      expect(r.runs).toBeGreaterThan(100);
      expect(r.bits.equals(off.bits)).toBe(true);
    }
  }, 120_000);

  it('steps a folding cloth bit for bit as the JavaScript scans do, on one thread and in blocks on two, both scans of a phase in one pool job', async () => {
    const run = async (wasm: boolean, threads: number) => {
      useWasmKernels(wasm);
      const world = foldingCloth(threads);
      await world.threadsReady();
      // the pool jobs the narrow scans ran (both scans of a phase are one job since session 18)
      let jobs = 0;
      if (threads > 1) {
        const sched = world.scheduler as unknown as TaskRunner;
        const runTask = sched.runTask.bind(sched);
        sched.runTask = (task, n, blocks, lead) => {
          const ran = runTask(task, n, blocks, lead);
          if (ran && /^surface-(narrow|crossings)/.test(task.kind)) jobs++;
          return ran;
        };
      }
      for (let f = 0; f < 40; f++) world.step();
      const n = collisionSystemOf(world)!.surfaces.narrowScan;
      const out = { bits: stateBits(world), runs: n.wasm.runs, pooled: n.pooledWasm, scans: n.runs, jobs };
      world.dispose();
      return out;
    };
    const off = await run(false, 1);
    const on = await run(true, 1);
    const two = await run(true, 2);
    const offTwo = await run(false, 2);
    expect(off.runs).toBe(0);
    expect(on.runs).toBeGreaterThan(400);
    expect(on.pooled).toBe(0);
    expect(two.pooled).toBeGreaterThan(100);
    expect(on.bits.equals(off.bits)).toBe(true);
    expect(two.bits.equals(off.bits)).toBe(true);
    // one job per pooled phase (both scans), in the module and in JavaScript
    expect(two.jobs).toBe(two.pooled);
    expect(offTwo.pooled).toBe(0);
    expect(offTwo.scans).toBeGreaterThan(100);
    expect(offTwo.jobs).toBe(offTwo.scans);
    expect(offTwo.bits.equals(off.bits)).toBe(true);
  }, 120_000);
});
