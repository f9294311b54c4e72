import { readFileSync } from 'node:fs';
import {
  Cloth,
  collisionSystemOf,
  enableCollisions,
  loadScene,
  PlaneCollider,
  World,
} from '../../src/index.js';
import type { BenchCase } from '../harness.js';
import { foldingSheet } from '../scenes.js';

/**
 * A 6,000-vertex cloth (60 × 100, 1.2 m × 2 m) hanging just above the
 * ground is let go and collapses, folding onto itself: 1/60 s frames, 10
 * substeps, self collision on (vertex–triangle and edge–edge, thickness
 * 6 mm, continuous tests, fail-safe, untangling analysis every step).
 */
function selfCollision6000(sweep: 'symmetric' | 'forward', threads = 1) {
  return () => {
    const world = new World({ dt: 1 / 60, substeps: 10, sweep, damping: 0.2, threads });
    const mesh = foldingSheet([1.2, 2], [60, 100], 1.05, [0.04, 4]);
    const cloth = new Cloth(world, { mesh, density: 0.2, bend: { compliance: 0.5 } });
    world.addCollider(new PlaneCollider({ friction: 0.6 }));
    enableCollisions(world, { thickness: 0.006, friction: 0.4 }).add(cloth);
    return {
      step: () => world.step(),
      info: `${world.store.count} vertices, ${cloth.triangles.length / 3} triangles, thickness 6 mm, ${sweep} sweep`,
      world,
    };
  };
}

export const cases: BenchCase[] = [
  {
    name: 'self-collision-6000',
    description:
      '6,000-vertex cloth collapsing onto itself, 1/60 s frames, 10 substeps, self collision on (symmetric sweep)',
    setup: selfCollision6000('symmetric'),
    setupThreads: (t) => selfCollision6000('symmetric', t)(),
    steps: 120,
    warmup: 30,
    target: {
      msPerStep: 15,
      reference:
        'a JavaScript engine with particle-only self collision: about 45 ms per frame on this machine kind',
    },
  },
  {
    name: 'self-collision-6000-forward',
    description:
      'self-collision-6000 with the forward sweep of the 2007 paper (half the material projections)',
    setup: selfCollision6000('forward'),
    steps: 120,
    warmup: 30,
  },
  {
    name: 'collision-heap-1364',
    description: '003 Figure 6: the 1,364-vertex cloth collapsing into a heap (scenes/collision-heap.json)',
    setup: () => {
      const url = new URL('../../../scenes/collision-heap.json', import.meta.url);
      const inst = loadScene(readFileSync(url, 'utf8'), { file: 'collision-heap.json' });
      const sys = collisionSystemOf(inst.world)!;
      return {
        step: () => inst.world.step(),
        info: `${inst.world.store.count} vertices, thickness ${sys.surfaces.surfaces[0].thickness} m`,
      };
    },
    steps: 120,
    warmup: 30,
  },
];
