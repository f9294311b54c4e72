/**
 * Scenes that a benchmark case and tests both build, so that the test
 * checks the world the benchmark times.
 */
import {
  addOpenTank,
  Fluid,
  type FluidOptions,
  type FollowTheLeaderOptions,
  gridMesh,
  hairOnSphere,
  type Motion,
  type MotionSpec,
  SphereCollider,
  Strands,
  type Vec3Tuple,
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

/**
 * The fluid benchmarks' and test/fluids' tank: an open box of plane colliders, floor y = 0, walls at
 * x = 0, x = lx, z = 0, z = lz, without friction or margin; the x = 0 wall moves by `wallMotion`.
 */
export function openTank(world: World, lx: number, lz: number, wallMotion?: MotionSpec): void {
  addOpenTank(world, lx, lz, { friction: 0, margin: 0, wallMotion });
}

/**
 * A column of fluid in an open tank (openTank, `tank` = [lx, lz]): the block from the origin to
 * `column` at particle spacing `spacing`, with `options` (the dam breaks, the wave pool, columns at rest).
 */
export function fluidInTank(
  world: World,
  tank: [number, number],
  spacing: number,
  column: Vec3Tuple,
  options: Omit<FluidOptions, 'spacing' | 'blocks'> = {},
  wallMotion?: MotionSpec,
): Fluid {
  openTank(world, tank[0], tank[1], wallMotion);
  return new Fluid(world, { spacing, blocks: [{ min: [0, 0, 0], max: column }], ...options });
}
