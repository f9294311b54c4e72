import { Cloth, gridMesh, World } from '../../src/index.js';
import { BodyGeometry } from '../../src/three/index.js';
import type { BenchCase } from '../harness.js';

/**
 * What the three.js adapter costs per rendered frame: BodyGeometry.update()
 * on an n × n cloth — the Float64 → Float32 copy of the positions and the
 * area-weighted normals over all triangles (no physics in the timed step; a
 * cloth step between updates keeps the positions changing).
 */
function geometryUpdate(n: number) {
  return () => {
    const world = new World({ substeps: 1 });
    const cloth = new Cloth(world, {
      mesh: gridMesh({ width: 10, height: 10, cols: n, rows: n, plane: 'xy' }),
      bend: false,
    });
    cloth.pin(0);
    cloth.pin(n - 1);
    world.step();
    const geometry = new BodyGeometry(cloth);
    return {
      step: () => geometry.update(),
      info: `${cloth.activeCount} vertices, ${cloth.renderTriangles().length / 3} triangles`,
    };
  };
}

export const cases: BenchCase[] = [
  {
    name: 'three-geometry-50',
    description: 'BodyGeometry.update() of a 50×50 cloth (positions to Float32, vertex normals)',
    setup: geometryUpdate(50),
    steps: 2000,
    warmup: 200,
  },
  {
    name: 'three-geometry-201',
    description: 'BodyGeometry.update() of a 201×201 cloth (40,401 vertices, 80,000 triangles)',
    setup: geometryUpdate(201),
    steps: 300,
    warmup: 30,
  },
];
