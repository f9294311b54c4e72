import { type Fluid, type Vec3Tuple, World } from '../../src/index.js';
import type { BenchCase, BenchInstance } from '../harness.js';
import { fluidInTank } from '../scenes.js';

function instance(world: World, fluid: Fluid): BenchInstance {
  return {
    step: () => world.step(),
    world,
    get info() {
      return `${fluid.activeCount} particles, h = 2d, ${world.substeps} substep × ${world.iterations} iterations, dt = ${(1 / world.dt).toFixed(0)} Hz; ${fluid.density.pairs.count} neighbour pairs at the last step`;
    },
  };
}

/**
 * scenes/fluids-dam-break.json at spacing 1 cm: a 0.32 × 0.64 × 0.32 m column (65,536 particles)
 * collapsing in a 1.28 m tank. One PBF step (Algorithm 1: prediction, neighbour search, 4 Jacobi
 * iterations, velocity update, XSPH and vorticity) per world step at 120 Hz, which keeps a 1 cm
 * fluid within a few particle spacings of motion per step.
 */
function damBreak(): BenchInstance {
  const world = new World({ dt: 1 / 120, substeps: 1, iterations: 4 });
  const fluid = fluidInTank(world, [1.28, 0.32], 0.01, [0.32, 0.64, 0.32], { vorticity: 0.05 });
  return instance(world, fluid);
}

/**
 * scenes/fluids-wave-pool.json at spacing 2 cm: the survey's Figure 6 size, 131,072 particles in a
 * 2.56 × 1.28 m pool 0.32 m deep with a swinging wall, one PBF step of 4 iterations per 60 Hz frame
 * (as the gallery scene).
 */
function wavePool(threads = 1): BenchInstance {
  const world = new World({ dt: 1 / 60, substeps: 1, iterations: 4, threads });
  const waveMaker = { oscillate: { amplitude: [0.2, 0, 0] as Vec3Tuple, frequency: 0.5 } };
  const fluid = fluidInTank(world, [2.56, 1.28], 0.02, [2.56, 0.32, 1.28], { vorticity: 0.05 }, waveMaker);
  return instance(world, fluid);
}

export const cases: BenchCase[] = [
  {
    name: 'dam-break-64k',
    description:
      'PBF dam break, 65,536 particles, 4 iterations per step (scenes/fluids-dam-break.json at d = 1 cm)',
    setup: damBreak,
    steps: 30,
    warmup: 10,
  },
  {
    name: 'wave-pool-128k',
    description:
      'PBF wave pool (000 Figure 6), 131,072 particles, 4 iterations per step (scenes/fluids-wave-pool.json at d = 2 cm)',
    setup: () => wavePool(),
    setupThreads: wavePool,
    steps: 30,
    warmup: 10,
    target: {
      msPerStep: 100,
      reference: 'issue 7: ≤ 100 ms per step single-threaded; the paper: 10 ms per frame on a GPU',
    },
  },
];
