/**
 * Scenes that a benchmark case and tests both build, so that the test
 * checks the world the benchmark times.
 */
import {
  type FollowTheLeaderOptions,
  gridMesh,
  hairOnSphere,
  type Motion,
  type MotionSpec,
  SphereCollider,
  Strands,
  type World,
} from '../src/index.js';
import { AdaptiveLattice } from '../src/shape-matching/octree.js';

/**
 * A cloth sheet in the xy plane, size = [width, height] m with cells = [cols,
 * rows], raised by `lift` and waved in z by amplitude · sin(k y) (wave =
 * [amplitude, k]), so that when let go above the ground it folds onto itself
 * instead of piling straight down: the self-collision benchmark
 * (bench/cases/collision.ts) and its tests.
 */
export function foldingSheet(
  size: [number, number],
  cells: [number, number],
  lift: number,
  wave: [number, number],
): ReturnType<typeof gridMesh> {
  const mesh = gridMesh({ width: size[0], height: size[1], cols: cells[0], rows: cells[1], plane: 'xy' });
  for (let i = 0; i < mesh.positions.length; i += 3) {
    mesh.positions[i + 1] += lift;
    mesh.positions[i + 2] += wave[0] * Math.sin(wave[1] * mesh.positions[i + 1]);
  }
  return mesh;
}

/**
 * An octree lattice over a ball of radius 0.9 m: fine at the surface, coarse
 * inside (the octree summation benchmarks, bench/cases/shape-matching.ts, and
 * their node-count test).
 */
export function ballOctree(): AdaptiveLattice {
  return new AdaptiveLattice({
    min: [-1, -1, -1],
    size: 2,
    maxDepth: 5,
    refine: (x, y, z, s) => s > 0.26 || Math.abs(Math.hypot(x, y, z) - 0.9) < s,
    inside: (x, y, z) => Math.hypot(x, y, z) < 0.9,
  });
}

/** The hair benchmark's head sway: 15 cm along x at 0.5 Hz. */
export const headSway: MotionSpec = { oscillate: { amplitude: [0.15, 0, 0], frequency: 0.5 } };

/**
 * The hair benchmark's head: a sphere of 10 cm at (0, 1.6, 0), friction 0.3, swaying by `headSway`
 * (`still`: it stays where it is), added to `world` (bench/cases/strands.ts and test/threads-strands).
 */
export function swayingHead(world: World, still = false): SphereCollider {
  return world.addCollider(
    new SphereCollider({
      radius: 0.1,
      position: [0, 1.6, 0],
      friction: 0.3,
      ...(still ? {} : { motion: headSway }),
    }),
  );
}

/**
 * A head of DFTL hair on the 10 cm head at (0, 1.6, 0) (hairOnSphere): `hair.count` strands of
 * `hair.segments` segments, `hair.length` m long, 1 g/m, contact radius 4 mm, `ftl` and roots on
 * `rootMotion`: the hair benchmark (bench/cases/strands.ts) and the strand tests that check its passes.
 */
export function headOfHair(
  world: World,
  hair: { count: number; segments: number; length: number },
  ftl: FollowTheLeaderOptions,
  rootMotion: Motion,
): Strands {
  return new Strands(world, {
    ...hairOnSphere({ center: [0, 1.6, 0], radius: 0.1, ...hair }),
    linearDensity: 0.001,
    radius: 0.004,
    ftl,
    rootMotion,
  });
}
