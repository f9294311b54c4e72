/**
 * Scenes that a benchmark case and tests both build, so that the test
 * checks the world the benchmark times.
 */
import { gridMesh } from '../src/index.js';
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
