/**
 * The fluid pair passes on the worker pool (src/fluids/row-blocks.ts,
 * docs/solver.md "Threads"): the rows are cut into fixed blocks (a function
 * of the particle count) run colour by colour, so a dam break and a fluid
 * poured onto a cloth give the same bits on 1, 2 and 4 threads, with the
 * workers taking part, with the pair lists built in row blocks on the pool
 * (pair-blocks.ts) equal to one walk's entry for entry, the wall records
 * and the tank's plane contacts searched on the pool equal to one thread's;
 * and the blocks of one colour never write the same record.
 */
import { describe, expect, it } from 'vitest';
import { loadShippedScene } from '../scripts/shipped-scenes.js';
import type { ColliderContacts } from '../src/collision/collider-contacts.js';
import { PlaneContactsPool } from '../src/collision/collider-contacts-planes.js';
import type { FluidDensity } from '../src/fluids/density.js';
import { GridBlocks } from '../src/fluids/grid-blocks.js';
import { DENSITY, ITERATION_CHAIN, POST_CHAIN } from '../src/fluids/row-blocks.js';
import { INIT_RECORDS } from '../src/fluids/row-tasks.js';
import type { FluidWasm } from '../src/fluids/wasm.js';
import { addOpenTank, Fluid, World } from '../src/index.js';
import { keepThreadPools, stateBits } from './helpers/worlds.js';

keepThreadPools();

const scene = (name: string, threads: number): World => loadShippedScene(name, { threads }).world;

const bits = (w: World) => stateBits(w);

const densityOf = (w: World) => w.sets.find((s) => s.kind === 'fluid-density') as FluidDensity;

/** The fluid pair lists of the last search (row starts, then partners), as bytes. */
const pairLists = (w: World): Buffer => {
  const d = densityOf(w);
  const { start, nbr, count } = d.pairs;
  return Buffer.concat([
    Buffer.from(start.buffer, start.byteOffset, 4 * (d.count + 1)),
    Buffer.from(nbr.buffer, nbr.byteOffset, 4 * count),
  ]);
};

/**
 * Worlds of `threads` threads with 20,480 particles in a tank: pair blocks and contact blocks on the
 * pool (a dam break's 3,456 are too few), one substep of `iterations` a step; stepped `steps` times
 * each, interleaved, once their threads are ready.
 */
async function tankWorlds(threads: number[], iterations: number, steps = 0): Promise<World[]> {
  const tank = { friction: 0.2, restitution: 0.3, margin: 0 };
  const worlds = threads.map((t) => new World({ dt: 1 / 60, substeps: 1, iterations, threads: t }));
  for (const w of worlds) {
    addOpenTank(w, 0.64, 0.64, tank);
    new Fluid(w, { spacing: 0.02, blocks: [{ min: [0, 0.1, 0], max: [0.64, 0.5, 0.64] }] });
  }
  await Promise.all(worlds.map((w) => w.threadsReady()));
  for (let s = 0; s < steps; s++) for (const w of worlds) w.step();
  return worlds;
}

/** A world of `threads` threads with 20,480 particles at rest in a tank (the grid's sort on the pool), 2 iterations. */
function sortWorld(threads: number): World {
  const w = new World({ dt: 1 / 60, substeps: 1, iterations: 2, threads });
  addOpenTank(w, 0.64, 0.64, { friction: 0, margin: 0 });
  new Fluid(w, { spacing: 0.02, blocks: [{ min: [0, 0, 0], max: [0.64, 0.4, 0.64] }] });
  return w;
}

describe('fluids on worker threads', () => {
  it.each([
    ['fluids-dam-break', 300, true],
    ['fluids-cloth-pour', 200, false],
  ])(
    '%s: the same bits on 1, 2 and 4 threads over %i steps (pair passes on the pool: %s)',
    async (name, steps, pooled) => {
      const worlds = [scene(name, 1), scene(name, 2), scene(name, 4)];
      await Promise.all(worlds.map((w) => w.threadsReady()));
      for (let s = 0; s < steps; s++) {
        for (const w of worlds) w.step();
        if (s % 50 === 49 || s === steps - 1) {
          const ref = bits(worlds[0]);
          expect(bits(worlds[1]).equals(ref), `2 threads, step ${s + 1}`).toBe(true);
          expect(bits(worlds[2]).equals(ref), `4 threads, step ${s + 1}`).toBe(true);
        }
      }
      const rows = worlds.map((w) => densityOf(w).rows);
      // several blocks and colours, the same plan on every thread count
      expect(rows[0].blocks).toBeGreaterThan(2);
      expect(rows[0].colours).toBeGreaterThan(1);
      for (const r of rows)
        expect([r.blocks, r.colours, r.size]).toEqual([rows[0].blocks, rows[0].colours, rows[0].size]);
      // the workers run the WebAssembly passes where one thread does (on a shared memory)
      for (const w of worlds) expect(densityOf(w).activeBackend).toBe(densityOf(worlds[0]).activeBackend);
      // one thread runs them itself; on 2 and 4 the pool ran blocks where a colour has two or more
      expect(rows[0].pooled).toBe(0);
      expect(rows[0].chains).toBe(0);
      if (pooled) {
        expect(rows[0].colours).toBeLessThan(rows[0].blocks);
        expect(rows[1].pooled).toBeGreaterThan(0);
        expect(rows[2].pooled).toBeGreaterThan(0);
        // each Jacobi iteration's four passes and the post-process as one job each (FluidRowBlocks.chain)
        expect(rows[1].chains).toBeGreaterThan(steps);
        expect(rows[2].chains).toBeGreaterThan(steps);
      }
      // the pair lists of the last search: entry for entry those of one walk over all rows, built in
      // row blocks on the pool on 2 and 4 threads (pair-blocks.ts)
      const lists = worlds.map(pairLists);
      expect(lists[1].equals(lists[0]), '2 threads: pair lists').toBe(true);
      expect(lists[2].equals(lists[0]), '4 threads: pair lists').toBe(true);
      expect(rows[0].pairBlocks.pooled).toBe(0);
      if (pooled) for (const r of rows.slice(1)) expect(r.pairBlocks.pooled).toBeGreaterThan(0);
      // the grid's counting sort in parts of the cells on the pool (grid-blocks.ts): the same order
      const grids = worlds.map((w) => densityOf(w).grid);
      for (const g of grids.slice(1)) {
        expect(Array.from(g.cellStart.subarray(0, g.cells + 1))).toEqual(
          Array.from(grids[0].cellStart.subarray(0, g.cells + 1)),
        );
        expect(Array.from(g.sortedCell.subarray(0, g.count))).toEqual(
          Array.from(grids[0].sortedCell.subarray(0, g.count)),
        );
      }
      expect(densityOf(worlds[0]).gridBlocks.pooledSorts).toBe(0);
      // the wall records (in slot order, each row block's together) and the tank's plane contacts: the
      // same on every thread count, searched on the pool on 2 and 4 threads
      const walls = worlds.map((w) => densityOf(w).walls);
      for (const wl of walls.slice(1)) {
        expect(wl.count).toBe(walls[0].count);
        expect(Array.from(wl.arrays.slot.subarray(0, wl.count))).toEqual(
          Array.from(walls[0].arrays.slot.subarray(0, wl.count)),
        );
      }
      const contacts = worlds.map(
        (w) => w.sets.find((s) => s.kind === 'collider-contact') as ColliderContacts,
      );
      for (const c of contacts.slice(1)) {
        expect(c.count).toBe(contacts[0].count);
        expect(Array.from(c.particle.subarray(0, c.count))).toEqual(
          Array.from(contacts[0].particle.subarray(0, c.count)),
        );
        expect(Array.from(c.anchorAt.subarray(0, 3 * c.count))).toEqual(
          Array.from(contacts[0].anchorAt.subarray(0, 3 * c.count)),
        );
      }
      expect(walls[0].pooled).toBe(0);
      expect(contacts[0].planePool?.pooled ?? 0).toBe(0);
      if (pooled) {
        for (const wl of walls.slice(1)) expect(wl.pooled).toBeGreaterThan(0);
        for (const c of contacts.slice(1)) {
          expect(c.planePool?.pooled).toBeGreaterThan(0);
          // the tank's planes a run each (two jobs for all of them, collider-contacts-planes.ts)
          expect(c.planePool?.pooled).toBeGreaterThanOrEqual(3 * (c.planePool?.runs ?? 0));
          expect(c.planePool?.runs).toBeGreaterThan(0);
        }
      }
      for (const w of worlds) expect(w.stats.recoveries).toBe(0);
      for (const w of worlds) w.dispose();
    },
    240_000,
  );

  it('a pair-search block that outgrows its region is built again on the calling thread: the lists of one walk, no walk', async () => {
    const worlds = [scene('fluids-dam-break', 1), scene('fluids-dam-break', 2)];
    await Promise.all(worlds.map((w) => w.threadsReady()));
    for (let s = 0; s < 20; s++) for (const w of worlds) w.step();
    const pb = densityOf(worlds[1]).rows.pairBlocks;
    const pooled = pb.pooled;
    expect(pooled).toBeGreaterThan(0);
    // regions far too small for three blocks (1.5 · 1 + 1024 pairs, for some thousands each)
    for (const b of [0, 2, 5]) pb.counts[b] = 1;
    for (const w of worlds) w.step();
    expect(pb.rebuilt).toBeGreaterThanOrEqual(3);
    // every search of the step on the pool (none fell back to one walk)
    expect(pb.pooled - pooled).toBe(worlds[1].substeps);
    const lists = worlds.map(pairLists);
    expect(lists[1].equals(lists[0])).toBe(true);
    expect(bits(worlds[1]).equals(bits(worlds[0]))).toBe(true);
    for (const w of worlds) w.dispose();
  }, 120_000);

  it("the grid's counting sort in parts of the cells on the pool (20,480 particles, above the pool's threshold): the order of one thread, the same bits", async () => {
    const worlds = [sortWorld(1), sortWorld(2)];
    await Promise.all(worlds.map((w) => w.threadsReady()));
    for (let s = 0; s < 8; s++) for (const w of worlds) w.step();
    const [g1, g2] = worlds.map((w) => densityOf(w).grid);
    expect(g1.count).toBeGreaterThanOrEqual(16_384);
    expect(densityOf(worlds[1]).gridBlocks.pooledSorts).toBeGreaterThan(0);
    expect(Array.from(g2.cellStart.subarray(0, g2.cells + 1))).toEqual(
      Array.from(g1.cellStart.subarray(0, g1.cells + 1)),
    );
    expect(Array.from(g2.sortedCell.subarray(0, g2.count))).toEqual(
      Array.from(g1.sortedCell.subarray(0, g1.count)),
    );
    expect(bits(worlds[1]).equals(bits(worlds[0]))).toBe(true);
    for (const w of worlds) w.dispose();
  }, 120_000);

  it('the counting sort in one part of the cells a thread (session 25): 2 and 4 threads in 2 and 4 parts, the order and bits of one thread and of 8 parts', async () => {
    // one thread, 2 threads (2 parts), 4 threads (4 parts), 2 threads in 8 parts (GridBlocks.sortParts)
    const worlds = [sortWorld(1), sortWorld(2), sortWorld(4), sortWorld(2)];
    await Promise.all(worlds.map((w) => w.threadsReady()));
    const parts = [0, 0, 0, 8];
    try {
      for (let s = 0; s < 6; s++)
        worlds.forEach((w, k) => {
          GridBlocks.sortParts = parts[k];
          w.step();
        });
    } finally {
      GridBlocks.sortParts = 0;
    }
    const gb = worlds.map((w) => densityOf(w).gridBlocks);
    expect(gb.map((g) => g.parts)).toEqual([0, 2, 4, 8]);
    for (const g of gb.slice(1)) expect(g.pooledSorts).toBeGreaterThan(3);
    const grids = worlds.map((w) => densityOf(w).grid);
    for (const g of grids.slice(1)) {
      expect(Array.from(g.sortedCell.subarray(0, g.count))).toEqual(
        Array.from(grids[0].sortedCell.subarray(0, grids[0].count)),
      );
      expect(Array.from(g.cellStart.subarray(0, g.cells + 1))).toEqual(
        Array.from(grids[0].cellStart.subarray(0, grids[0].cells + 1)),
      );
    }
    for (const w of worlds.slice(1)) expect(bits(w).equals(bits(worlds[0]))).toBe(true);
    for (const w of worlds) w.dispose();
  }, 120_000);

  it("the reordering by cell on the pool (Fluid.permute's id maps and uniformity checks, the search's positions): a fluid whose radius differs for some particles keeps them by id, the bits of one thread", async () => {
    const make = (threads: number): { w: World; f: Fluid } => {
      const w = new World({ dt: 1 / 60, substeps: 1, iterations: 2, threads });
      addOpenTank(w, 0.64, 0.64, { friction: 0, margin: 0 });
      const f = new Fluid(w, { spacing: 0.02, blocks: [{ min: [0, 0, 0], max: [0.64, 0.4, 0.64] }] });
      // a few particles of another contact radius: the pool finds the radius not uniform, the calling thread gathers it
      for (const id of [7, 4_000, 15_000]) w.store.radius[f.particleIndex(id)] = 0.0125;
      return { w, f };
    };
    const runs = [make(1), make(2)];
    await Promise.all(runs.map((r) => r.w.threadsReady()));
    for (let s = 0; s < 8; s++) for (const r of runs) r.w.step();
    const [a, b] = runs;
    expect(densityOf(a.w).rows.reorders).toBe(0);
    expect(densityOf(b.w).rows.reorders).toBeGreaterThan(4);
    const n = a.f.activeCount;
    expect(Array.from(b.f.ids.subarray(0, n))).toEqual(Array.from(a.f.ids.subarray(0, n)));
    expect(Array.from(b.f.slotOf.subarray(0, n))).toEqual(Array.from(a.f.slotOf.subarray(0, n)));
    const radii = (r: { w: World; f: Fluid }) =>
      [7, 4_000, 15_000, 8].map((id) => r.w.store.radius[r.f.particleIndex(id)]);
    expect(radii(b)).toEqual([0.0125, 0.0125, 0.0125, 0.01]);
    expect(radii(a)).toEqual(radii(b));
    // the grid's order is the identity after the reordering, as on one thread
    const g = densityOf(b.w).grid;
    expect(Array.from(g.sorted.subarray(0, n))).toEqual(
      Array.from(densityOf(a.w).grid.sorted.subarray(0, n)),
    );
    expect(bits(b.w).equals(bits(a.w))).toBe(true);
    for (const r of runs) r.w.dispose();
  }, 120_000);

  it("a particle deep below the tank's floor sends the run of plane contacts back to the plane-by-plane path (collider-contacts-planes.ts): the bits of one thread", async () => {
    const worlds = [scene('fluids-dam-break', 1), scene('fluids-dam-break', 2)];
    await Promise.all(worlds.map((w) => w.threadsReady()));
    for (let s = 0; s < 5; s++) for (const w of worlds) w.step();
    const contacts = worlds[1].sets.find((s) => s.kind === 'collider-contact') as ColliderContacts;
    const pool = contacts.planePool;
    expect(pool).not.toBeNull();
    const runs = pool?.runs ?? 0;
    const pooled = pool?.pooled ?? 0;
    // particle 0 half a metre below the floor: deeper than it may leave in a substep
    for (const w of worlds) w.store.x[1] = -0.5;
    worlds[0].step();
    worlds[1].step();
    expect(bits(worlds[1]).equals(bits(worlds[0]))).toBe(true);
    // a substep's run of five planes fell back: the floor on the calling thread, the walls on the pool
    // one by one (a run each); without the fallback, a run of five a substep
    const n = worlds[1].substeps;
    expect((pool?.runs ?? 0) - runs).toBeGreaterThan(n);
    expect((pool?.pooled ?? 0) - pooled).toBeLessThan(5 * n);
    expect((pool?.pooled ?? 0) - pooled).toBeGreaterThan(0);
    // the deep particle was moved out
    expect(worlds[1].store.x[1]).toBeGreaterThan(-0.5);
    for (let s = 0; s < 5; s++) for (const w of worlds) w.step();
    expect(bits(worlds[1]).equals(bits(worlds[0]))).toBe(true);
    for (const w of worlds) w.dispose();
  }, 120_000);

  it("without threads, the tank's planes are generated by the pool's blocks on the calling thread (collider-contacts-planes.ts, session 23): the contacts and bits of the generic loop", () => {
    const saved = PlaneContactsPool.withoutThreads;
    const worlds: World[] = [];
    try {
      for (const on of [false, true]) {
        PlaneContactsPool.withoutThreads = on;
        const w = scene('fluids-dam-break', 1);
        for (let s = 0; s < 40; s++) w.step();
        worlds.push(w);
      }
    } finally {
      PlaneContactsPool.withoutThreads = saved;
    }
    const [generic, blocks] = worlds.map(
      (w) => w.sets.find((s) => s.kind === 'collider-contact') as ColliderContacts,
    );
    // the generic loop ran every plane (no run); the blocks took the tank's five planes as runs
    expect(generic.planePool?.serial ?? 0).toBe(0);
    expect(blocks.planePool?.serial ?? 0).toBeGreaterThanOrEqual(5 * 40);
    expect(blocks.planePool?.pooled).toBe(0);
    expect(blocks.count).toBeGreaterThan(1000);
    expect(blocks.count).toBe(generic.count);
    for (const name of ['particle', 'collider'] as const)
      expect(Array.from(blocks[name].subarray(0, blocks.count))).toEqual(
        Array.from(generic[name].subarray(0, generic.count)),
      );
    for (const name of ['q', 'n', 'anchorAt'] as const)
      expect(Array.from(blocks[name].subarray(0, 3 * blocks.count))).toEqual(
        Array.from(generic[name].subarray(0, 3 * generic.count)),
      );
    expect(bits(worlds[1]).equals(bits(worlds[0]))).toBe(true);
    for (const w of worlds) w.dispose();
  }, 120_000);

  it("on the pool, the reordering writes the pair search's positions into the instance (FluidDensity.searchP is its posView, session 23) and the contacts' velocity pass runs by the projection's blocks: the bits of one thread", async () => {
    const worlds = await tankWorlds([1, 2], 2, 30);
    const [one, two] = worlds.map((w) => densityOf(w).rows.pairBlocks);
    // every build after the first few steps found the positions in place (no copy of p on the calling thread)
    expect(one.staged).toBe(0);
    expect(two.staged).toBeGreaterThan(20);
    const contacts = worlds.map((w) => w.sets.find((s) => s.kind === 'collider-contact') as ColliderContacts);
    const passes = contacts.map(
      (c) => (c as unknown as { poolBlocks: { velocityPasses: number } | null }).poolBlocks,
    );
    expect(passes[0]?.velocityPasses ?? 0).toBe(0);
    expect(passes[1]?.velocityPasses).toBeGreaterThan(20);
    expect(bits(worlds[1]).equals(bits(worlds[0]))).toBe(true);
    for (const w of worlds) w.dispose();
  }, 120_000);

  it("on a shared instance, the grid's counting sort writes the pair search's cell starts and the sorted list into the instance (session 25): no copy after the first step, the lists and bits of one thread", async () => {
    const worlds = await tankWorlds([1, 2], 2, 12);
    const d = densityOf(worlds[1]);
    const w = (d as unknown as { wasm: FluidWasm }).wasm;
    // the grid's cell starts and sorted list are the instance's own views; the sort ran on the pool into them
    expect(d.grid.cellStart).toBe(w.cellStartView);
    expect(d.grid.sorted).toBe(w.sortedView);
    expect(d.gridBlocks.pooledSorts).toBeGreaterThan(8);
    expect(d.rows.pairBlocks.staged).toBeGreaterThan(8);
    // one copy at most: the first step, whose sort ran before the workers had the view
    expect(w.cellCopies).toBeLessThanOrEqual(1);
    expect(pairLists(worlds[1]).equals(pairLists(worlds[0]))).toBe(true);
    expect(bits(worlds[1]).equals(bits(worlds[0]))).toBe(true);
    for (const x of worlds) x.dispose();
  }, 120_000);

  it("after a substep's first iteration, each iteration's chain sets up its records itself (ITERATION_CHAIN_INIT, session 24): one records job a substep, ρ and λ of the last iteration, the bits of one thread", async () => {
    const steps = 12;
    const worlds = await tankWorlds([1, 2, 4], 4, steps);
    const d = worlds.map(densityOf);
    // one thread: no pool, no chain; on the pool: the first iteration's records a job (at most: the first
    // step's may run on the calling thread), the three others in the chain (before: four jobs a step)
    expect([d[0].rows.recordJobs, d[0].chainedRecords]).toEqual([0, 0]);
    for (const k of [1, 2]) {
      expect(d[k].rows.recordJobs).toBeGreaterThanOrEqual(steps - 1);
      expect(d[k].rows.recordJobs).toBeLessThanOrEqual(steps);
      expect(d[k].chainedRecords).toBe(3 * steps);
    }
    for (const k of [1, 2]) {
      expect(bits(worlds[k]).equals(bits(worlds[0])), `${k === 1 ? 2 : 4} threads`).toBe(true);
      // ρ and λ by slot (kept by the last iteration's λ and Δp passes only) as one thread's
      const n = d[0].count;
      expect(Buffer.from(d[k].rho.slice(0, n).buffer).equals(Buffer.from(d[0].rho.slice(0, n).buffer))).toBe(
        true,
      );
      expect(
        Buffer.from(d[k].lambda.slice(0, n).buffer).equals(Buffer.from(d[0].lambda.slice(0, n).buffer)),
      ).toBe(true);
    }
    // the last iteration's densities: a compressed pool (some above ρ0) and λ from them
    const rho0 = 1000;
    expect(Math.max(...d[0].rho.slice(0, d[0].count))).toBeGreaterThan(rho0);
    expect(d[0].lambda.slice(0, d[0].count).some((v) => v < 0)).toBe(true);
    for (const w of worlds) w.dispose();
  }, 120_000);

  it('where a later iteration cannot run its chain (or the chain does not start), its records are set up first and its passes run one by one: the bits of one thread', async () => {
    const steps = 6;
    const worlds = await tankWorlds([1, 2, 2], 4);
    // world 1: the pool refused after each substep's first iteration (computeLambda's path); world 2: the
    // chains with the records' set-up refused to start (applyCorrections' path)
    const [, a, b] = worlds.map((w) => densityOf(w).rows);
    const canPool = a.canPool.bind(a);
    let calls = 0;
    a.canPool = (t, w) => (calls++ % 4 === 0 ? canPool(t, w) : false);
    const chain = b.chain.bind(b);
    let refused = 0;
    b.chain = (t, w, passes) => {
      if (passes[0] !== INIT_RECORDS) return chain(t, w, passes);
      refused++;
      return false;
    };
    for (let s = 0; s < steps; s++) for (const w of worlds) w.step();
    // (a refused chain leaves the next iteration to set its records up as a job: every other one folds)
    expect(refused).toBe(2 * steps);
    for (const k of [1, 2]) {
      expect(densityOf(worlds[k]).chainedRecords).toBe(0);
      expect(bits(worlds[k]).equals(bits(worlds[0])), `world ${k}`).toBe(true);
    }
    for (const w of worlds) w.dispose();
  }, 120_000);

  it('the blocks of one colour write disjoint rows: every pair of a block ends before the next block of its colour', () => {
    const world = scene('fluids-dam-break', 1);
    for (let s = 0; s < 60; s++) world.step();
    const d = densityOf(world);
    const { blocks, colours, size } = d.rows;
    const { start, nbr } = d.pairs;
    const n = d.count;
    let worst = 0;
    for (let b = 0; b < blocks; b++) {
      const a0 = b * size,
        a1 = Math.min(n, a0 + size);
      let reach = a1;
      for (let k = start[a0]; k < start[a1]; k++) reach = Math.max(reach, nbr[k] + 1);
      // block b + colours starts at (b + colours)·size: what b writes must end there
      worst = Math.max(worst, reach - (b + colours) * size);
    }
    expect(worst).toBeLessThanOrEqual(0);
    world.dispose();
  });

  it.each([
    ['a pair pass (DENSITY alone)', [DENSITY]],
    ['a Jacobi iteration (ITERATION_CHAIN)', ITERATION_CHAIN],
    ['the velocity post-process (POST_CHAIN)', POST_CHAIN],
  ])(
    "%s as one job (FluidRowBlocks.chainTable): every two items that touch a common record, one of them writing it, are ordered as pass by pass, colour by colour; a table missing an item's dependencies is not",
    (_name, passes) => {
      const world = scene('fluids-dam-break', 1);
      for (let s = 0; s < 60; s++) world.step();
      const d = densityOf(world);
      const { blocks, colours, size } = d.rows;
      expect(colours).toBeGreaterThan(1);
      const { start, nbr } = d.pairs;
      const n = d.count;
      // the records a pair block reads and writes: its rows and its rows' partners, [b·size, reach); a slot block its rows
      const reach: number[] = [];
      for (let b = 0; b < blocks; b++) {
        const a0 = b * size,
          a1 = Math.min(n, a0 + size);
        let r = a1;
        for (let k = start[a0]; k < start[a1]; k++) r = Math.max(r, nbr[k] + 1);
        reach.push(r);
      }
      const at = d.rows.chainTable(passes);
      const F = d.rows.shared.fused;
      const serial: number[] = [];
      for (const pass of passes) {
        if (pass < INIT_RECORDS) {
          for (let c = 0; c < colours; c++)
            for (let b = c; b < blocks; b += colours) serial.push((pass << 8) | b);
        } else for (let b = 0; b < blocks; b++) serial.push((pass << 8) | b);
      }
      const range = (code: number): [number, number] => {
        const b = code & 255;
        return code >> 8 < INIT_RECORDS ? [b * size, reach[b]] : [b * size, Math.min(n, (b + 1) * size)];
      };
      const unordered = (T: Int32Array): number => {
        const I = T[0];
        const anc: Uint8Array[] = [];
        let bad = 0;
        for (let k = 0; k < I; k++) {
          // serial order: pass after pass, colour after colour
          if (T[1 + k] !== serial[k]) bad++;
          const a = new Uint8Array(I);
          for (let i = T[1 + I + k]; i < T[2 + I + k]; i++) {
            const e = T[2 + 2 * I + i];
            if (e >= k) bad++;
            a[e] = 1;
            for (let f = 0; f < e; f++) if (anc[e][f]) a[f] = 1;
          }
          anc.push(a);
          const [lo, hi] = range(T[1 + k]);
          for (let e = 0; e < k; e++) {
            const [elo, ehi] = range(T[1 + e]);
            // (two blocks of one slot pass never share a slot)
            if (elo < hi && lo < ehi && !a[e]) bad++;
          }
        }
        return bad;
      };
      const T = F.slice(at);
      expect(T[0]).toBe(passes.length * blocks);
      expect(unordered(T)).toBe(0);
      // deliberately broken: the dependencies of an item of the second colour (or the second pass) dropped
      const broken = T.slice();
      const I = T[0];
      const k = passes.length > 1 ? blocks + 1 : Math.ceil(blocks / colours) + 1;
      expect(T[2 + I + k] - T[1 + I + k]).toBeGreaterThan(0);
      broken[1 + I + k] = broken[2 + I + k];
      expect(unordered(broken)).toBeGreaterThan(0);
      world.dispose();
    },
  );
});
