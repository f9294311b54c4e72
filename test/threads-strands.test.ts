/**
 * Follow-The-Leader and DFTL's velocity correction on the worker pool
 * (src/strands/follow-the-leader.ts, docs/strands.md "Speed"): strands share
 * no particle, so fixed blocks of strands give the serial numbers bit for
 * bit on any thread count; the pool must actually run them.
 */
import { describe, expect, it } from 'vitest';
import { headOfHair, headSway, swayingHead } from '../bench/scenes.js';
import { findColliderContacts } from '../src/collision/collider-contacts.js';
import { Motion, World } from '../src/index.js';
import { fusedStrandSystem } from '../src/strands/fused-pass.js';
import { bitsDiffering } from './helpers/worlds.js';

async function hair(threads: number, maxStretch = 1) {
  const world = new World({ dt: 1 / 60, substeps: 2, iterations: 2, threads });
  const head = swayingHead(world);
  const body = headOfHair(
    world,
    { count: 600, segments: 8, length: 0.25 },
    { damping: 0.9, maxStretch },
    head.motion!,
  );
  // the fused per-strand pass would take this world (on the calling thread); this file tests the stages' pool
  world.system(fusedStrandSystem).enabled = false;
  await world.threadsReady();
  return { world, body };
}

describe('FTL and DFTL on the worker pool', () => {
  it.each([1, 1.05])(
    'give the one-thread numbers bit for bit on 2 and 3 threads (maxStretch %s), and run on the pool',
    async (maxStretch) => {
      const one = await hair(1, maxStretch);
      for (let s = 0; s < 40; s++) one.world.step();
      for (const threads of [2, 3]) {
        const many = await hair(threads, maxStretch);
        try {
          for (let s = 0; s < 40; s++) many.world.step();
          const n = 3 * one.world.store.count;
          const differ =
            bitsDiffering(one.world.store.x, many.world.store.x, n) +
            bitsDiffering(one.world.store.v, many.world.store.v, n);
          expect(differ).toBe(0);
          // every substep's FTL pass and DFTL correction after the workers had the arguments
          expect(many.body.ftl!.pooled).toBeGreaterThan(100);
          // and the strands kept their lengths (FTL is exact)
          expect(many.body.ftl!.maxViolation(many.world.store)).toBeLessThan(maxStretch === 1 ? 1e-9 : 0.02);
        } finally {
          many.world.dispose();
        }
      }
      expect(one.body.ftl!.pooled).toBe(0);
      one.world.dispose();
    },
    120_000,
  );
});

/**
 * The fused strand pass's one-pass substep on the pool (src/strands/strand-threads.ts): the blocks of
 * strands run as WebAssembly kernels on a shared memory, on every thread; the contacts of each block
 * are generated at a staging slot and moved to their place in particle order. Every thread count must
 * give the one-thread numbers and the same contact list bit for bit.
 */
async function fusedHair(threads: number, still = false) {
  const world = new World({ dt: 1 / 60, substeps: 1, iterations: 1, threads });
  // a head that stays where it is (the roots still sway): a point put at its centre is there when the contacts are generated
  const head = swayingHead(world, still);
  const roots = head.motion ?? new Motion(headSway);
  const body = headOfHair(world, { count: 1500, segments: 8, length: 0.25 }, { damping: 0.9 }, roots);
  await world.threadsReady();
  // a second head of hair added after `grow` steps: the store grows, the arrays move to a new memory
  const more = () => headOfHair(world, { count: 700, segments: 8, length: 0.2 }, { damping: 0.5 }, roots);
  return { world, body, more, fused: world.system(fusedStrandSystem) };
}

describe('the fused strand pass on the worker pool', () => {
  it('gives the one-thread numbers and contact list bit for bit on 2 and 4 threads, the blocks on the pool, also after the store grows', async () => {
    const steps = 40;
    const one = await fusedHair(1);
    for (let s = 0; s < steps; s++) {
      if (s === steps / 2) one.more();
      one.world.step();
    }
    const cc1 = findColliderContacts(one.world)!;
    expect(one.fused.ranOnePass).toBe(steps);
    expect(one.fused.pooled).toBe(0);
    expect(cc1.count).toBeGreaterThan(1000);
    // on 4 threads every block's contacts through the staging list (the path of a block that starts
    // before the blocks ahead of it published their counts, which timing decides)
    for (const threads of [2, 4]) {
      const many = await fusedHair(threads);
      many.fused.pool.stageAll = threads === 4;
      try {
        for (let s = 0; s < steps; s++) {
          if (s === steps / 2) many.more();
          many.world.step();
        }
        const a = one.world.store,
          b = many.world.store;
        expect(bitsDiffering(a.x, b.x, 3 * a.count) + bitsDiffering(a.v, b.v, 3 * a.count)).toBe(0);
        const cc = findColliderContacts(many.world)!;
        expect(cc.count).toBe(cc1.count);
        let listDiffer = 0;
        for (let k = 0; k < cc.count; k++) {
          if (cc.particle[k] !== cc1.particle[k] || cc.contactOf[cc.particle[k]] !== k) listDiffer++;
          if (!Object.is(cc.lambdaN[k], cc1.lambdaN[k]) || !Object.is(cc.lambdaT[k], cc1.lambdaT[k]))
            listDiffer++;
          for (let d = 0; d < 3; d++)
            if (
              !Object.is(cc.q[3 * k + d], cc1.q[3 * k + d]) ||
              !Object.is(cc.n[3 * k + d], cc1.n[3 * k + d])
            )
              listDiffer++;
        }
        expect(listDiffer).toBe(0);
        // every particle's contactOf: −1 where it has none (the blocks put the old list's back, session 17)
        let ofDiffer = 0;
        for (let i = 0; i < a.count; i++) if (cc.contactOf[i] !== cc1.contactOf[i]) ofDiffer++;
        expect(ofDiffer).toBe(0);
        // the roots' targets: on the pool computed where the pass copies them (strand-threads.ts rootTargets)
        const ta = one.world.attachments,
          tb = many.world.attachments;
        expect(tb.count).toBe(ta.count);
        expect(bitsDiffering(ta.target, tb.target, 3 * ta.count)).toBe(0);
        // every substep after the workers had the arguments ran its blocks on the pool
        expect(many.fused.ranOnePass).toBe(steps);
        // (but the first after the start and after the growth, before the workers hold the new memory)
        expect(many.fused.pooled).toBeGreaterThanOrEqual(steps - 4);
        expect(many.body.ftl!.maxViolation(b)).toBeLessThan(1e-9);
        if (threads === 4) expect(many.fused.pool.staged).toBeGreaterThan(5 * steps);
      } finally {
        many.world.dispose();
      }
    }
    one.world.dispose();
  }, 120_000);

  it("lays its memory out in a memory of its own when the store's memory is full: the one-thread numbers, on the pool", async () => {
    const run = async (threads: number, full: boolean) => {
      const h = await fusedHair(threads);
      const st = h.world.store;
      // a full store memory refuses every region from now on (StoreMemory.alloc's −1)
      if (full) st.memory!.alloc = () => -1;
      try {
        for (let s = 0; s < 20; s++) h.world.step();
        const n = 3 * st.count;
        const own = !st.memory!.owns(st.x.buffer);
        return { x: st.x.slice(0, n), v: st.v.slice(0, n), pooled: h.fused.pooled, own };
      } finally {
        h.world.dispose();
      }
    };
    const one = await run(1, false);
    const two = await run(2, true);
    // the store's arrays moved into the kernel's own shared memory, whose blocks the workers ran
    expect([one.own, two.own]).toEqual([false, true]);
    expect(two.pooled).toBeGreaterThan(10);
    expect(bitsDiffering(one.x, two.x) + bitsDiffering(one.v, two.v)).toBe(0);
  }, 120_000);

  it("takes a hair tip put at the head centre like one thread does: pushed out along the sphere's +y, no error", async () => {
    const run = async (threads: number) => {
      const h = await fusedHair(threads, true);
      const head = h.world.colliders[0];
      // the first strand's tip (9 particles a strand, the root first)
      const i3 = 3 * 8;
      try {
        for (let s = 0; s < 20; s++) {
          if (s === 10) {
            for (let j = 0; j < 3; j++) h.world.store.x[i3 + j] = h.world.store.p[i3 + j] = head.position[j];
            h.world.store.v[i3] = h.world.store.v[i3 + 1] = h.world.store.v[i3 + 2] = 0;
          }
          h.world.step();
        }
        const n = 3 * h.world.store.count;
        const c = head.position;
        const d = Math.hypot(
          h.world.store.x[i3] - c[0],
          h.world.store.x[i3 + 1] - c[1],
          h.world.store.x[i3 + 2] - c[2],
        );
        return { x: h.world.store.x.slice(0, n), v: h.world.store.v.slice(0, n), d, pooled: h.fused.pooled };
      } finally {
        h.world.dispose();
      }
    };
    const one = await run(1);
    const two = await run(2);
    // the tip left the head's inside (radius 0.1; the plan's substep resolves the whole radius)
    expect(one.d).toBeGreaterThan(0.09);
    expect(two.pooled).toBeGreaterThan(10);
    expect(bitsDiffering(one.x, two.x) + bitsDiffering(one.v, two.v)).toBe(0);
  }, 120_000);

  it('computes the targets of roots that follow one turning motion as the attachments do, bit for bit', async () => {
    // the roots spin about a centre off the head's and sway (the head stays unturned: the kernels' contacts);
    // one thread's pass takes the same rootTargets since session 17 (hair23): test/strands-fused.test.ts
    // compares it with the pipeline's Attachments.beginStep
    const roots = new Motion({
      spin: { axis: [0.3, 1, 0.2], speed: 1.7, center: [0.02, 1.55, -0.01] },
      oscillate: { amplitude: [0.05, 0.02, 0], frequency: 0.7 },
    });
    const walk = (world: World) => {
      for (let s = 0; s < 30; s++) world.step();
      return {};
    };
    const one = await rootsRun(1, roots, walk);
    const two = await rootsRun(2, roots, walk);
    expect(one.pooled).toBe(0);
    expect(two.pooled).toBeGreaterThan(20);
    expect(differing(one, two)).toBe(0);
  }, 120_000);

  it('follows the roots as they change (a root let go, then held again) like one thread, bit for bit', async () => {
    // the pass keeps its list of held roots, and the pool its copy in the kernel memory, while the
    // attachments keep their version (session 18, hair24): a detached root must fall free, and a root
    // attached again must sit on its target, which the pool's blocks compute in the memory
    const roots = new Motion({ oscillate: { amplitude: [0.05, 0.02, 0], frequency: 0.7 } });
    const walk = (world: World) => {
      const att = world.attachments;
      for (let s = 0; s < 10; s++) world.step();
      const root = att.particle[3];
      att.detach(root);
      for (let s = 0; s < 10; s++) world.step();
      // the free root's distance to the nearest target of a held one
      const x = world.store.x;
      let nearest = Number.POSITIVE_INFINITY;
      for (let e = 0; e < att.count; e++)
        nearest = Math.min(
          nearest,
          Math.hypot(
            x[3 * root] - att.target[3 * e],
            x[3 * root + 1] - att.target[3 * e + 1],
            x[3 * root + 2] - att.target[3 * e + 2],
          ),
        );
      att.attach(root, { motion: roots });
      for (let s = 0; s < 10; s++) world.step();
      const e = att.count - 1;
      return { nearest, onTarget: [0, 1, 2].every((k) => x[3 * root + k] === att.target[3 * e + k]) };
    };
    const one = await rootsRun(1, roots, walk);
    const two = await rootsRun(2, roots, walk);
    expect(two.pooled).toBe(30);
    for (const r of [one, two]) {
      expect(r.nearest).toBeGreaterThan(1e-3);
      expect(r.onTarget).toBe(true);
    }
    expect(differing(one, two)).toBe(0);
  }, 120_000);
});

/**
 * 900 strands whose roots follow `roots` (a head that stays unturned), on `threads` threads, walked
 * by `walk`; their x, v, the attachments' targets, `walk`'s findings and the substeps whose roots'
 * targets the pool's blocks computed.
 */
async function rootsRun<R extends object>(threads: number, roots: Motion, walk: (world: World) => R) {
  const world = new World({ dt: 1 / 60, substeps: 1, iterations: 1, threads });
  swayingHead(world, true);
  headOfHair(world, { count: 900, segments: 8, length: 0.25 }, { damping: 0.9 }, roots);
  const fused = world.system(fusedStrandSystem);
  await world.threadsReady();
  try {
    const found = walk(world);
    const n = 3 * world.store.count;
    const att = world.attachments;
    return {
      ...found,
      x: world.store.x.slice(0, n),
      v: world.store.v.slice(0, n),
      target: att.target.slice(0, 3 * att.count),
      pooled: fused.rootsPooled,
    };
  } finally {
    world.dispose();
  }
}

/** Numbers of x, v and the targets that are not the same bits in the two runs. */
function differing(
  one: { x: Float64Array; v: Float64Array; target: Float64Array },
  two: { x: Float64Array; v: Float64Array; target: Float64Array },
): number {
  return bitsDiffering(one.x, two.x) + bitsDiffering(one.v, two.v) + bitsDiffering(one.target, two.target);
}
