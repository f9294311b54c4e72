/**
 * The surface broad phase on the worker pool (src/collision/surface-broad-tasks.ts,
 * docs/solver.md "Threads"): a full rebuild's candidate tests run in blocks
 * on the workers and the blocks' lists are joined in block order, so a cloth
 * folding onto itself gives the same candidate lists, contacts and bits on
 * 1, 2 and 4 threads.
 */
import { describe, expect, it } from 'vitest';
import type { BroadArrays } from '../src/collision/surface-broad-pairs.js';
import { ParallelBroadRebuild } from '../src/collision/surface-broad-tasks.js';
import * as broadWasm from '../src/collision/surface-broad-wasm.js';
import { PbdError } from '../src/core/errors.js';
import type { SharedTask } from '../src/core/step-context.js';
import {
  Cloth,
  type ColliderContacts,
  collisionSystemOf,
  enableCollisions,
  type ThreadedScheduler,
  World,
} from '../src/index.js';
import { foldingCloth } from './helpers/cloth.js';
import { keepThreadPools, stateBits } from './helpers/worlds.js';
import { tangledFoldMesh } from './helpers.js';

keepThreadPools();

const bits = (w: World) => stateBits(w);

/**
 * A cloth folded over itself with a patch of the top layer pushed through
 * the bottom one (test/collision-contacts.test.ts, larger: 6,400 triangles,
 * enough for the pool's crossing search), untangling every step.
 */
function tangledFold(threads: number): World {
  const world = new World({ substeps: 5, gravity: [0, 0, 0], damping: 1, threads });
  const cloth = new Cloth(world, { mesh: tangledFoldMesh(41, 81), density: 0.2, bend: { compliance: 1 } });
  enableCollisions(world, { thickness: 0.005, untangleEvery: 1 }).add(cloth);
  return world;
}

describe('self collision on worker threads', () => {
  it('a cloth folding onto itself: broad-phase rebuilds and narrow-phase scans on the pool, the same bits on 1, 2 and 4 threads', async () => {
    const worlds = [
      foldingCloth(1, '40x60'),
      foldingCloth(2, '40x60'),
      foldingCloth(4, '40x60'),
      foldingCloth(2, '40x60'),
    ];
    await Promise.all(worlds.map((w) => w.threadsReady()));
    const broad = worlds.map((w) => collisionSystemOf(w)!.surfaces.broadPhase);
    // the last world's rebuilds start with a shared output of 256 entries: their parts find it full, run
    // again on the calling thread, and the output grows (a test's reach into a private field)
    (broad[3] as unknown as { parallelRebuild: ParallelBroadRebuild }).parallelRebuild =
      new ParallelBroadRebuild(256);
    let contacts = 0;
    for (let s = 0; s < 60; s++) {
      for (const w of worlds) w.step();
      // the candidate lists themselves, not only the positions they lead to
      expect(broad[1].vtCount).toBe(broad[0].vtCount);
      expect(broad[2].eeCount).toBe(broad[0].eeCount);
      expect(broad[3].vtCount).toBe(broad[0].vtCount);
      contacts += collisionSystemOf(worlds[0])!.surfaces.stats.contacts;
    }
    const n = broad[0].vtCount;
    expect(
      Buffer.from(broad[1].vtCand.buffer, 0, 8 * n).equals(Buffer.from(broad[0].vtCand.buffer, 0, 8 * n)),
    ).toBe(true);
    expect(bits(worlds[1]).equals(bits(worlds[0]))).toBe(true);
    expect(bits(worlds[2]).equals(bits(worlds[0]))).toBe(true);
    expect(bits(worlds[3]).equals(bits(worlds[0]))).toBe(true);
    // the cloth did touch itself, and the threaded worlds' rebuilds ran on the pool
    expect(contacts).toBeGreaterThan(0);
    expect(broad[0].pooledRebuilds).toBe(0);
    expect(broad[1].pooledRebuilds).toBeGreaterThan(0);
    expect(broad[2].pooledRebuilds).toBeGreaterThan(0);
    // the narrow phase's detection scans (the contacts of the last substep, entry for entry)
    const lists = worlds.map((w) => collisionSystemOf(w)!.surfaces.list);
    for (const l of lists.slice(1)) {
      expect(l.count).toBe(lists[0].count);
      expect(Array.from(l.idx.subarray(0, 4 * l.count))).toEqual(
        Array.from(lists[0].idx.subarray(0, 4 * l.count)),
      );
      expect(Array.from(l.side.subarray(0, l.count))).toEqual(Array.from(lists[0].side.subarray(0, l.count)));
    }
    const scans = worlds.map((w) => collisionSystemOf(w)!.surfaces.narrowScan.runs);
    expect(scans[0]).toBe(0);
    expect(scans[1]).toBeGreaterThan(0);
    expect(scans[2]).toBeGreaterThan(0);
    // the tree's self-traversal too (cut at a frontier of node pairs, the parts joined in order)
    expect(broad[0].pooledTraversals).toBe(0);
    expect(broad[1].pooledTraversals).toBeGreaterThan(0);
    expect(broad[2].pooledTraversals).toBeGreaterThan(0);
    // parts of any size fit the shared output once it has grown: the small one filled (its parts ran
    // again on the calling thread, with the same lists and bits as above) more often than the default one
    expect(broad[3].pooledReruns).toBeGreaterThan(broad[1].pooledReruns);
    expect(broad[3].pooledTraversals).toBeGreaterThan(0);
    // the incremental updates' queries and candidate tests too (blocks of groups joined in order)
    expect(broad[0].pooledUpdates).toBe(0);
    expect(broad[1].pooledUpdates).toBeGreaterThan(0);
    expect(broad[2].pooledUpdates).toBeGreaterThan(0);
    expect(broad[3].pooledUpdates).toBeGreaterThan(0);
    // every block of those rebuilds and updates tested its pairs in WebAssembly, on the broad phase's memory
    for (const b of broad.slice(1)) {
      expect(b.pooledModule.wasm).toBeGreaterThan(0);
      // (a block whose thread's region was too small for it ran in JavaScript, and the region grew)
      expect(b.pooledModule.js).toBeLessThan(0.01 * b.pooledModule.wasm);
      // (the rebuilds' parts traversed the tree in the module too)
      expect(b.pooledModule.traversals).toBeGreaterThan(0);
    }
    // the snapshot checks, a rebuild's snapshots, the item boxes and the swept boxes in blocks (surface-broad-blocks.ts)
    expect(broad[0].pooledLoops).toBe(0);
    expect(broad[1].pooledLoops).toBeGreaterThan(0);
    expect(broad[2].pooledLoops).toBeGreaterThan(0);
    // the swept boxes in the snapshot check's job (session 18): in most of the 2 × 5 × 60 updates
    expect(broad[0].pooledCheckSwept).toBe(0);
    expect(broad[1].pooledCheckSwept).toBeGreaterThan(300);
    expect(broad[2].pooledCheckSwept).toBeGreaterThan(300);
    for (const w of worlds) w.dispose();
  }, 300_000);

  it('a rebuild on the pool writes only its candidates to the shared arena, not its triangle pairs (which only the tally reads)', async () => {
    const world = foldingCloth(2, '40x60');
    await world.threadsReady();
    const broad = collisionSystemOf(world)!.surfaces.broadPhase;
    // the arena's entries used by each rebuild that ran on the pool, against the candidates it joined
    // (a test's reach into the class's private fields: its arena's top, the sink's counts before and after)
    type Sink = { vtCount: number; eeCount: number };
    const proto = ParallelBroadRebuild.prototype as unknown as { run: (...a: unknown[]) => boolean };
    const run = proto.run;
    const seen: { used: number; joined: number; pairs: number }[] = [];
    proto.run = function (this: { top: Int32Array; counts: Int32Array }, ...a: unknown[]) {
      const out = a[5] as Sink;
      const v0 = out.vtCount,
        e0 = out.eeCount;
      const ran = run.apply(this, a);
      if (ran) {
        let pairs = 0;
        for (let b = 0; 6 * b < this.counts.length; b++) pairs += this.counts[6 * b + 1];
        seen.push({ used: this.top[0], joined: out.vtCount - v0 + out.eeCount - e0, pairs });
      }
      return ran;
    };
    try {
      for (let s = 0; s < 40; s++) world.step();
    } finally {
      proto.run = run;
    }
    expect(broad.pooledRebuilds).toBeGreaterThan(0);
    expect(seen.length).toBeGreaterThan(0);
    for (const r of seen) {
      // two entries per candidate; the triangle pairs (more than the candidates) would double it
      expect(r.used).toBe(2 * r.joined);
      expect(r.pairs).toBeGreaterThan(0);
    }
  });

  it("a rebuild on the pool copies the topology's arrays to its shared copies once per topology, not at every rebuild (session 22): the same copies and bits as one thread", async () => {
    const worlds = [foldingCloth(1, '40x60'), foldingCloth(2, '40x60')];
    await Promise.all(worlds.map((w) => w.threadsReady()));
    for (let s = 0; s < 40; s++) for (const w of worlds) w.step();
    expect(stateBits(worlds[1]).equals(stateBits(worlds[0]))).toBe(true);
    const broad = collisionSystemOf(worlds[1])!.surfaces.broadPhase;
    // (a test's reach into private fields: the pool's rebuild, its shared copies, the broad phase's arrays)
    const pool = (broad as unknown as { parallelRebuild: ParallelBroadRebuild }).parallelRebuild;
    expect(pool.runs).toBeGreaterThan(10);
    // before session 22 every rebuild copied them (0.6 MB a rebuild on the bench's cloth)
    expect(pool.topologyCopies).toBe(1);
    const copies = (pool as unknown as { A: Record<string, Int32Array> }).A;
    const own = (broad as unknown as { arrays: Record<string, Int32Array> }).arrays;
    for (const key of ['tri', 'edge', 'vertex', 'triSurface', 'ownVStart', 'ownV', 'ownEStart', 'ownE']) {
      expect(copies[key].buffer).toBeInstanceOf(SharedArrayBuffer);
      expect(Array.from(copies[key].subarray(0, own[key].length))).toEqual(Array.from(own[key]));
    }
    for (const w of worlds) w.dispose();
  }, 300_000);

  it('the untangling analysis of a cloth started tangled: its crossing search on the pool, the same crossings and bits on 1, 2 and 4 threads', async () => {
    const worlds = [tangledFold(1), tangledFold(2), tangledFold(4)];
    await Promise.all(worlds.map((w) => w.threadsReady()));
    const unt = worlds.map((w) => collisionSystemOf(w)!.surfaces.untangler);
    let crossings = 0;
    for (let s = 0; s < 12; s++) {
      for (const w of worlds) w.step();
      // the crossings themselves (sorted by edge, then triangle), not only the positions they lead to
      const n = unt[0].intersectionCount;
      crossings += n;
      for (const u of unt.slice(1)) {
        expect(u.intersectionCount).toBe(n);
        expect(Array.from(u.intersections.subarray(0, 2 * n))).toEqual(
          Array.from(unt[0].intersections.subarray(0, 2 * n)),
        );
        expect(Array.from(u.label)).toEqual(Array.from(unt[0].label));
      }
    }
    expect(crossings).toBeGreaterThan(50);
    expect(unt[0].pooledSearches).toBe(0);
    expect(unt[1].pooledSearches).toBeGreaterThan(0);
    expect(unt[2].pooledSearches).toBeGreaterThan(0);
    expect(bits(worlds[1]).equals(bits(worlds[0]))).toBe(true);
    expect(bits(worlds[2]).equals(bits(worlds[0]))).toBe(true);
    for (const w of worlds) w.dispose();
  }, 300_000);

  it('plane contacts generated on the pool keep the multi-iteration friction state: a cloth sliding down a slope at 4 iterations per substep, the same bits on 1 and 2 threads', async () => {
    // Each of the 4 iterations may find a contact sliding (collider-contacts.ts: slid, lambdaT, reset
    // for every new contact); the pooled plane pass (collider-contacts-planes.ts) must reset them too.
    const make = (threads: number) =>
      foldingCloth(
        threads,
        '40x60',
        { substeps: 2, iterations: 4, damping: 0 },
        { friction: 0.3, normal: [0.35, 1, 0] },
      );
    const worlds = [make(1), make(2)];
    await Promise.all(worlds.map((w) => w.threadsReady()));
    let slid = 0;
    for (let s = 0; s < 40; s++) {
      for (const w of worlds) w.step();
      const c = worlds[0].sets.find((x) => x.kind === 'collider-contact') as ColliderContacts;
      for (let k = 0; k < c.count; k++) slid += c.slid[k];
    }
    expect(slid).toBeGreaterThan(0);
    const planes = worlds.map(
      (w) => (w.sets.find((x) => x.kind === 'collider-contact') as ColliderContacts).planePool?.pooled ?? 0,
    );
    expect(planes[0]).toBe(0);
    expect(planes[1]).toBeGreaterThan(0);
    expect(bits(worlds[1]).equals(bits(worlds[0]))).toBe(true);
    for (const w of worlds) w.dispose();
  }, 300_000);

  it("a full rebuild's triangle records packed on the pool while the calling thread refits the tree (session 23): the serial pack's bytes, the same bits as one thread", async () => {
    const worlds = [foldingCloth(1, '40x60'), foldingCloth(2, '40x60')];
    await Promise.all(worlds.map((w) => w.threadsReady()));
    const broad = worlds.map((w) => collisionSystemOf(w)!.surfaces.broadPhase);
    // after every pack on the pool (a reach into the broad phase's private packOnPool, host and arrays):
    // the records' bytes against a pack of all of them here (the lay's slots 2 and 3: surface-broad-wasm.ts
    // L_REC and L_REC_AT), and the tree's node boxes against a refit here
    type Inside = {
      packOnPool?: (...a: unknown[]) => boolean;
      wasmHost: { W: broadWasm.BroadWasm };
      arrays: BroadArrays;
      tree: { box: Float64Array; nodeCount: number; refit(b: Float64Array): void };
      tBox: Float64Array;
      packs: { runs: number } | null;
    };
    const b1 = broad[1] as unknown as Inside;
    const packOnPool = b1.packOnPool;
    let checked = 0,
      differ = 0,
      treeDiffer = 0;
    if (packOnPool !== undefined)
      b1.packOnPool = function (this: Inside, ...a: unknown[]) {
        const ran = packOnPool.apply(this, a);
        if (!ran) return ran;
        const W = this.wasmHost.W,
          A = this.arrays,
          L = W.lay,
          nt = A.tri.length / 3;
        const bytes = new Int32Array(W.memory.buffer, L[3], nt + 1)[nt];
        const pooled = new Uint8Array(W.memory.buffer, L[2], bytes).slice();
        const k = broadWasm.instanceOf(W);
        broadWasm.bindInstance(k, L, A);
        k.packRecords(0, 0, nt);
        if (!Buffer.from(pooled).equals(Buffer.from(new Uint8Array(W.memory.buffer, L[2], bytes)))) differ++;
        const boxes = this.tree.box.slice(0, 6 * this.tree.nodeCount);
        this.tree.refit(this.tBox);
        if (
          !Buffer.from(boxes.buffer).equals(
            Buffer.from(this.tree.box.slice(0, 6 * this.tree.nodeCount).buffer),
          )
        )
          treeDiffer++;
        checked++;
        return ran;
      };
    for (let s = 0; s < 40; s++) for (const w of worlds) w.step();
    expect(bits(worlds[1]).equals(bits(worlds[0]))).toBe(true);
    const rebuilds = broad.map((b) => (b as unknown as { stats: { rebuilds: number } }).stats.rebuilds);
    // every rebuild after the first (which builds the tree) and the one that sent the task's arguments
    expect(b1.packs?.runs ?? 0).toBeGreaterThan(10);
    expect(b1.packs?.runs).toBe(checked);
    expect(checked).toBeGreaterThanOrEqual(rebuilds[1] - 2);
    expect(differ).toBe(0);
    expect(treeDiffer).toBe(0);
    expect((broad[0] as unknown as Inside).packs ?? null).toBe(null);
    for (const w of worlds) w.dispose();
  }, 300_000);

  it("the narrow scans' copies of x, p and the inverse masses made by the broad check job's lead (session 23): the bytes each scan would copy, the same bits as one thread", async () => {
    const worlds = [foldingCloth(1, '40x60'), foldingCloth(2, '40x60')];
    await Promise.all(worlds.map((w) => w.threadsReady()));
    const wasm = worlds.map(
      (w) =>
        (collisionSystemOf(w)!.surfaces as unknown as { narrowScan: { wasm: { preloaded?: number } } })
          .narrowScan.wasm,
    );
    // before every load on the 2-thread world: each slot copied ahead holds the current bytes of its array
    type Inside = {
      pre: (Float64Array | null)[];
      preLen: Int32Array;
      slotAt: Int32Array;
      memory: WebAssembly.Memory | null;
      load: (...a: unknown[]) => boolean;
    };
    const w1 = wasm[1] as unknown as Inside;
    const load = w1.load;
    let slots = 0,
      stale = 0,
      loads = 0;
    w1.load = function (this: Inside, ...a: unknown[]) {
      loads++;
      for (let i = 0; i < (this.pre?.length ?? 0); i++) {
        const src = this.pre[i];
        if (src === null || this.memory === null) continue;
        const here = new Uint8Array(this.memory.buffer, this.slotAt[i], this.preLen[i]);
        if (!Buffer.from(here).equals(Buffer.from(src.buffer, src.byteOffset, this.preLen[i]))) stale++;
        slots++;
      }
      return load.apply(this, a);
    };
    for (let s = 0; s < 30; s++) for (const w of worlds) w.step();
    expect(bits(worlds[1]).equals(bits(worlds[0]))).toBe(true);
    // x, p and w ahead of the scan before the solve and of the fail-safe's first scan, every substep
    expect(wasm[1].preloaded ?? 0).toBeGreaterThan(100);
    expect(wasm[1].preloaded).toBeGreaterThan(0.45 * loads);
    expect(slots).toBe(3 * (wasm[1].preloaded ?? 0));
    expect([stale, wasm[0].preloaded]).toEqual([0, 0]);
    for (const w of worlds) w.dispose();
  }, 300_000);

  it("a task's lead (session 23) runs once on the calling thread while the workers take blocks; one that throws is rethrown after every block is done", async () => {
    const world = foldingCloth(2, '40x60');
    const sched = world.scheduler as ThreadedScheduler;
    await world.threadsReady();
    const a = new Float64Array(new SharedArrayBuffer(8 * 4096)).fill(1);
    const task: SharedTask = { kind: 'zero-f64', args: { a }, version: 1 };
    let leads = 0;
    sched.beginStep();
    expect(sched.runTask(task, 4096, 16, () => leads++)).toBe(false); // new arguments: no lead, no blocks
    sched.endStep();
    expect(leads).toBe(0);
    sched.beginStep();
    expect(sched.runTask(task, 4096, 16, () => leads++)).toBe(true);
    expect(leads).toBe(1);
    expect(a.every((v) => v === 0)).toBe(true);
    a.fill(1);
    let caught: unknown = null;
    try {
      sched.runTask(task, 4096, 16, () => {
        throw new Error('lead');
      });
    } catch (e) {
      caught = e;
    }
    sched.endStep();
    expect(caught).toBeInstanceOf(PbdError);
    expect(a.every((v) => v === 0)).toBe(true);
    world.dispose();
  }, 120_000);

  it('a task block that throws reaches the caller as a PbdError; the world then steps on', async () => {
    const world = foldingCloth(2, '40x60');
    await world.threadsReady();
    const sched = world.scheduler as ThreadedScheduler;
    // arguments without the arrays the kernel reads: every block throws (on the workers and here)
    const task: SharedTask = { kind: 'surface-broad-pairs', args: { A: null, pairs: null }, version: 1 };
    sched.beginStep();
    expect(sched.runTask(task, 1000, 8)).toBe(false); // new arguments: queued for the workers
    sched.endStep();
    sched.beginStep();
    let caught: unknown = null;
    try {
      sched.runTask(task, 1000, 8);
    } catch (e) {
      caught = e;
    }
    sched.endStep();
    expect(caught).toBeInstanceOf(PbdError);
    expect((caught as PbdError).message).toContain('surface-broad-pairs');
    const y0 = world.store.x[1];
    for (let s = 0; s < 3; s++) world.step();
    expect(world.store.x[1]).toBeLessThan(y0);
    world.dispose();
  }, 120_000);
});
