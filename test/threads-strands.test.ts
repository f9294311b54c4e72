/**
 * Follow-The-Leader and DFTL's velocity correction on the worker pool
 * (src/strands/follow-the-leader.ts, docs/strands.md "Speed"): strands share
 * no particle, so fixed blocks of strands give the serial numbers bit for
 * bit on any thread count; the pool must actually run them.
 */
import { describe, expect, it } from 'vitest';
import { hairOnSphere, Motion, SphereCollider, Strands, World } from '../src/index.js';
import { fusedStrandSystem } from '../src/strands/fused-pass.js';

async function hair(threads: number, maxStretch = 1) {
  const world = new World({ dt: 1 / 60, substeps: 2, iterations: 2, threads });
  const motion = { oscillate: { amplitude: [0.15, 0, 0] as [number, number, number], frequency: 0.5 } };
  const head = world.addCollider(
    new SphereCollider({ radius: 0.1, position: [0, 1.6, 0], friction: 0.3, motion }),
  );
  const style = hairOnSphere({ center: [0, 1.6, 0], radius: 0.1, count: 600, segments: 8, length: 0.25 });
  const body = new Strands(world, {
    ...style,
    linearDensity: 0.001,
    radius: 0.004,
    ftl: { damping: 0.9, maxStretch },
    rootMotion: head.motion ?? new Motion(motion),
  });
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
          let differ = 0;
          for (let i = 0; i < n; i++) {
            if (!Object.is(one.world.store.x[i], many.world.store.x[i])) differ++;
            if (!Object.is(one.world.store.v[i], many.world.store.v[i])) differ++;
          }
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
