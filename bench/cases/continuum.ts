import { FemCloth, gridMesh, PlaneCollider, SoftBody, tetBox, World } from '../../src/index.js';
import type { BenchCase } from '../harness.js';

/**
 * Seed 002's cloth (Table 1): 201 × 201 vertices (40,401 vertices, 80,000
 * triangles), StVK membrane energy constraints + isometric bending, five
 * Gauss–Seidel iterations per step of 5 ms, two corners pinned. Forward
 * sweep, as the paper's solver.
 */
function femCloth(plane: 'xy' | 'xz') {
  return () => {
    const world = new World({ dt: 0.005, substeps: 1, iterations: 5, solver: 'pbd', sweep: 'forward' });
    const n = 201;
    const cloth = new FemCloth(world, {
      mesh: gridMesh({ width: 10, height: 10, cols: n, rows: n, plane, diagonals: 'uniform' }),
      density: 1,
      material: { youngsModulus: 1000, poissonRatio: 0.3 },
      bend: { stiffness: 0.1 },
    });
    cloth.pin(0);
    cloth.pin(n - 1);
    const perStep = (cloth.membrane.count + (cloth.bend?.count ?? 0)) * world.iterations;
    return {
      step: () => world.step(),
      projectionsPerStep: perStep,
      info: `${world.store.count} vertices, ${cloth.membrane.count} StVK triangles (${cloth.membrane.colors} colours), ${cloth.bend?.count} isometric bending (${cloth.bend?.colors} colours)`,
      world,
    };
  };
}

/**
 * The C++ PositionBasedDynamics library's bar demo: 30 × 5 × 5 vertices of
 * tets (5 per cell here, 2,320 tets), fixed at one end, StVK FEM energy
 * constraints, 5 substeps × 1 iteration per 5 ms step, forward sweep.
 */
function bar() {
  const world = new World({ dt: 0.005, substeps: 5, iterations: 1, solver: 'pbd', sweep: 'forward' });
  const body = new SoftBody(world, {
    mesh: tetBox({ size: [3, 0.5, 0.5], resolution: [30, 5, 5] }),
    material: { youngsModulus: 1e6, poissonRatio: 0.3 },
  });
  for (let i = 0; i < body.count; i++) if (body.restPositions[3 * i] < 1e-9) body.pin(i);
  const fem = body.fem;
  return {
    step: () => world.step(),
    projectionsPerStep: (fem?.count ?? 0) * world.substeps,
    info: `${world.store.count} vertices, ${fem?.count} tets (${fem?.colors} colours)`,
    world,
  };
}

/**
 * A soft block dropped onto the ground (issue 18's honest soft body): 20 × 6
 * × 6 vertices of StVK tets, 0.5 m above a plane, falling, squashing on
 * impact and bouncing, so every tet constraint works from the first frames
 * (the bar's are nearly at rest once it sags). Same solver settings as the
 * bar; the ground is the only collider.
 */
function drop() {
  const world = new World({ dt: 0.005, substeps: 5, iterations: 1, solver: 'pbd', sweep: 'forward' });
  world.addCollider(new PlaneCollider({ friction: 0.5 }));
  const body = new SoftBody(world, {
    mesh: tetBox({ size: [2, 0.6, 0.6], resolution: [20, 6, 6], origin: [-1, 0.5, -0.3] }),
    material: { youngsModulus: 1e5, poissonRatio: 0.3 },
  });
  const fem = body.fem;
  return {
    step: () => world.step(),
    projectionsPerStep: (fem?.count ?? 0) * world.substeps,
    info: `${world.store.count} vertices, ${fem?.count} tets (${fem?.colors} colours), ground plane`,
    world,
  };
}

export const cases: BenchCase[] = [
  {
    name: 'cloth-fem-201',
    description:
      '002 cloth: 201×201 vertices, StVK triangles + isometric bending, 5 iterations, dt = 5 ms, forward sweep',
    anchor:
      "002's and the C++ library's set-up: the cloth hangs in its vertical plane and stays flat, so its bending does nothing (issue 18); compare with cloth-fem-201-fall",
    setup: femCloth('xy'),
    steps: 40,
    warmup: 10,
    target: {
      msPerStep: 20,
      reference:
        '002 Table 1: 6.73 ms/step on 12 cores; C++ PositionBasedDynamics: 38.2 ms/step with 2 threads on this machine kind',
    },
  },
  {
    name: 'cloth-fem-201-fall',
    description:
      'cloth-fem-201 starting horizontal (xz plane): it falls and folds, so membrane and bending constraints both work',
    setup: femCloth('xz'),
    steps: 40,
    warmup: 10,
  },
  {
    name: 'bar-30x5x5',
    description:
      '30×5×5 tet bar fixed at one end, StVK energy constraints, 5 substeps × 1 iteration, dt = 5 ms, forward sweep',
    setup: bar,
    steps: 600,
    warmup: 200,
    target: { msPerStep: 0.5, reference: 'C++ PositionBasedDynamics: 1.0–1.5 ms/step on this machine kind' },
  },
  {
    name: 'softbody-drop-20x6x6',
    description:
      'a 20×6×6 StVK tet block dropped 0.5 m onto the ground: falls, squashes, bounces; 5 substeps × 1 iteration, dt = 5 ms',
    setup: drop,
    steps: 300,
    warmup: 60,
  },
];
