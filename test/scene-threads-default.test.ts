/**
 * The CLI's thread default (docs/cli.md `--threads`): a scene that names no
 * world.threads runs on `defaultThreads` (the CLI passes all cores) only when
 * its estimated step work reaches THREADS_WORTH_WORK (src/io/scene/work.ts);
 * a small scene stays on one thread, where the pool would cost more than it
 * saves (bench/scaling.json); the scene's own world.threads and the explicit
 * `threads` option win. Above the threshold the default is graded by the
 * work: one thread per WORK_PER_THREAD units, at least two, at most
 * `defaultThreads` (a 16-core machine ran no shipped scene faster on 16
 * threads than on 4–8, docs/solver.md "How many threads"). The numbers are
 * the same on any count (test/threads).
 */
import { describe, expect, it } from 'vitest';
import { loadScene, type World } from '../src/index.js';
import { Budget } from '../src/io/scene/limits.js';
import {
  estimateScene,
  fusedStrandOnePass,
  fusedStrandScene,
  parseSceneText,
} from '../src/io/scene/scene.js';
import { THREADS_WORTH_WORK, threadsForWork, WORK_PER_THREAD } from '../src/io/scene/work.js';

const cloth = (n: number) => ({ type: 'cloth', mesh: { grid: { width: 1, height: 1, cols: n, rows: n } } });
const scene = (n: number, world: Record<string, unknown> = {}) =>
  JSON.stringify({ title: 't', family: 'f', world, bodies: [cloth(n)] });
const work = (text: string) => {
  const b = new Budget();
  estimateScene(parseSceneText(text, 't.json'), b);
  return b.work;
};

/** Each world runs on the thread count paired with it; every world is disposed after. */
function expectThreads(worlds: readonly (readonly [World, number])[]): void {
  try {
    for (const [w, threads] of worlds) expect(w.threads).toBe(threads);
  } finally {
    for (const [w] of worlds) w.dispose();
  }
}

describe('the thread default of a scene', () => {
  it('is one thread below the work worth threads and defaultThreads above it; world.threads and threads win', async () => {
    const small = scene(20);
    const large = scene(200);
    expect(work(small)).toBeLessThan(THREADS_WORTH_WORK);
    expect(work(large)).toBeGreaterThanOrEqual(THREADS_WORTH_WORK);
    const worlds = [
      [loadScene(small, { defaultThreads: 2 }).world, 1],
      [loadScene(large, { defaultThreads: 2 }).world, 2],
      [loadScene(large).world, 1],
      [loadScene(scene(200, { threads: 1 }), { defaultThreads: 2 }).world, 1],
      [loadScene(small, { defaultThreads: 2, threads: 2 }).world, 2],
    ] as const;
    expectThreads(worlds);
  });

  it('grades the default by the work: one thread per WORK_PER_THREAD units, at least two, at most defaultThreads', () => {
    expect(threadsForWork(THREADS_WORTH_WORK * 0.999, 16)).toBe(1);
    expect(threadsForWork(THREADS_WORTH_WORK, 16)).toBe(2);
    expect(threadsForWork(10.5 * WORK_PER_THREAD, 16)).toBe(10);
    expect(threadsForWork(100 * WORK_PER_THREAD, 16)).toBe(16);
    expect(threadsForWork(100 * WORK_PER_THREAD, 1)).toBe(1);
    expect(threadsForWork(Number.NaN, 16)).toBe(1);
    const mid = scene(130);
    const graded = Math.floor(work(mid) / WORK_PER_THREAD);
    expect(graded).toBeGreaterThan(2);
    expect(graded).toBeLessThan(16);
    expectThreads([
      [loadScene(mid, { defaultThreads: 16 }).world, graded],
      [loadScene(mid, { defaultThreads: 2 }).world, 2],
      [loadScene(mid, { defaultThreads: 16, threads: 16 }).world, 16],
    ]);
  });

  it('gives a hair-only scene defaultThreads where the fused pass runs its one-pass form on the pool, one thread where it runs the JavaScript form, and a hair scene with more to do defaultThreads', () => {
    // the one-pass form runs its blocks of strands on the pool (src/strands/strand-threads.ts, session 15);
    // the JavaScript form (several iterations, or a substep too short for the depenetration bound) runs on
    // the calling thread of any world, so threads would not pay (docs/strands.md)
    const hair = (
      colliders: unknown[],
      extra: Record<string, unknown> = {},
      world: Record<string, unknown> = { substeps: 8 },
    ) =>
      JSON.stringify({
        title: 't',
        family: 'strands',
        world,
        bodies: [
          {
            type: 'strands',
            hair: {
              center: [0, 1.6, 0],
              radius: 0.1,
              count: world.substeps === 1 ? 10000 : 4000,
              segments: 16,
              length: 0.3,
            },
            radius: 0.002,
            ftl: { damping: 0.9 },
            ...extra,
          },
        ],
        colliders,
      });
    const head = { type: 'sphere', name: 'head', position: [0, 1.6, 0], radius: 0.1 };
    const alone = hair([head]);
    const onePass = hair([head], {}, { substeps: 1, iterations: 1 });
    const twoIterations = hair([head], {}, { substeps: 1, iterations: 2 });
    const withFloor = hair([head, { type: 'plane' }]);
    const withBend = hair([head], { bend: { compliance: 0.02 } });
    for (const text of [alone, onePass, twoIterations, withFloor, withBend])
      expect(work(text)).toBeGreaterThanOrEqual(THREADS_WORTH_WORK);
    const spec = (text: string) => parseSceneText(text, 't.json');
    expect(fusedStrandScene(spec(alone))).toBe(true);
    expect(fusedStrandScene(spec(onePass))).toBe(true);
    expect(fusedStrandScene(spec(withFloor))).toBe(false);
    expect(fusedStrandScene(spec(withBend))).toBe(false);
    // a substep of 1/480 s: 10 m/s · h < the head's 0.1 m radius (the JavaScript form); 1/60 s reaches it
    expect(fusedStrandOnePass(spec(alone))).toBe(false);
    expect(fusedStrandOnePass(spec(onePass))).toBe(true);
    expect(fusedStrandOnePass(spec(twoIterations))).toBe(false);
    expect(fusedStrandOnePass(spec(withBend))).toBe(false);
    const worlds = [
      [loadScene(alone, { defaultThreads: 2 }).world, 1],
      [loadScene(onePass, { defaultThreads: 2 }).world, 2],
      [loadScene(twoIterations, { defaultThreads: 2 }).world, 1],
      [loadScene(withFloor, { defaultThreads: 2 }).world, 2],
      [loadScene(withBend, { defaultThreads: 2 }).world, 2],
      [loadScene(alone, { defaultThreads: 2, threads: 2 }).world, 2],
    ] as const;
    expectThreads(worlds);
  });
});
