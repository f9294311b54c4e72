/**
 * Scenes that a benchmark case and tests both build, so that the test
 * checks the world the benchmark times.
 */
import { gridMesh } from '../src/index.js';

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
