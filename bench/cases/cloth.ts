import { Cloth, gridMesh, World } from '../../src/index.js';
import type { BenchCase } from '../harness.js';

/**
 * The C++ PositionBasedDynamics library's cloth demo set-up: an n × n grid
 * over `size` × `size` (10 m in the benchmark), the two corners of one edge
 * pinned, distance + dihedral bending, dt = 5 ms, 5 substeps × 1 iteration,
 * no collision. Also the world of scripts/bench-threads.ts and of the SIMD
 * kernels' bit-identity test.
 */
export function clothDemoWorld(
  n: number,
  sweep: 'forward' | 'symmetric',
  threads = 1,
  size = 10,
): { world: World; cloth: Cloth } {
  const world = new World({
    threads,
    dt: 0.005,
    substeps: 5,
    iterations: 1,
    solver: 'pbd',
    sweep,
    gravity: [0, -9.81, 0],
  });
  const cloth = new Cloth(world, {
    mesh: gridMesh({ width: size, height: size, cols: n, rows: n, plane: 'xy', diagonals: 'uniform' }),
    density: 1,
    stretch: { stiffness: 1 },
    bend: { stiffness: 0.1 },
  });
  cloth.pin(0);
  cloth.pin(n - 1);
  return { world, cloth };
}

function clothDemo(n: number, sweep: 'forward' | 'symmetric', threads = 1) {
  return () => {
    const { world, cloth } = clothDemoWorld(n, sweep, threads);
    const perSubstep = cloth.stretch.count + (cloth.bend?.count ?? 0);
    return {
      step: () => world.step(),
      projectionsPerStep: perSubstep * world.substeps * (sweep === 'symmetric' ? 2 : 1),
      world,
      info: `${world.store.count} vertices, ${cloth.stretch.count} stretch (${cloth.stretch.colors} colours), ${cloth.bend?.count} bend (${cloth.bend?.colors} colours)`,
    };
  };
}

export const cases: BenchCase[] = [
  {
    name: 'cloth-50',
    anchor:
      "the C++ library's demo: the cloth hangs in its vertical plane and stays flat, so its dihedral bending changes nothing (issue 18); compare with cloth-*-fall",
    description:
      '50×50 cloth, distance + dihedral bending, 5 substeps × 1 iteration, forward sweep (as the C++ library)',
    setup: clothDemo(50, 'forward'),
    steps: 600,
    warmup: 200,
    target: {
      msPerStep: 1.4,
      reference: 'C++ PositionBasedDynamics: 3.48 ms/step single-threaded on this machine kind',
    },
  },
  {
    name: 'cloth-50-symmetric',
    anchor:
      "the C++ library's demo: the cloth hangs in its vertical plane and stays flat, so its dihedral bending changes nothing (issue 18); compare with cloth-*-fall",
    description:
      'cloth-50 with the default symmetric sweep (twice the projections, stable with many substeps)',
    setup: clothDemo(50, 'symmetric'),
    steps: 400,
    warmup: 100,
  },
  {
    name: 'cloth-201',
    anchor:
      "the C++ library's demo: the cloth hangs in its vertical plane and stays flat, so its dihedral bending changes nothing (issue 18); compare with cloth-*-fall",
    description: '201×201 cloth (40,401 vertices, 80,000 triangles), same set-up, forward sweep',
    setup: clothDemo(201, 'forward'),
    setupThreads: (t) => clothDemo(201, 'forward', t)(),
    steps: 40,
    warmup: 10,
    target: {
      msPerStep: 36,
      reference: 'C++ PositionBasedDynamics: 91.9 ms/step single-threaded on this machine kind',
    },
  },
  {
    name: 'cloth-201-symmetric',
    anchor:
      "the C++ library's demo: the cloth hangs in its vertical plane and stays flat, so its dihedral bending changes nothing (issue 18); compare with cloth-*-fall",
    description: 'cloth-201 with the default symmetric sweep',
    setup: clothDemo(201, 'symmetric'),
    steps: 30,
    warmup: 5,
  },
];
