import {
  bunnyMesh,
  Cloth,
  duckMesh,
  gridMesh,
  latticeBody,
  SoftBody,
  tetrahedralize,
  World,
} from '../../src/index.js';
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

/**
 * What a render mesh costs per drawn frame: BodyGeometry.update() on a body
 * with `hasRenderMesh`, which brings the mesh up to date
 * (`renderPositions()`: the 002 §5 tet embedding, or linear blend skinning
 * with the regions' transforms) and converts it with its normals (no
 * physics in the timed step; the cost does not depend on the pose).
 */
function renderMeshUpdate(kind: 'bunny' | 'duck') {
  return () => {
    const world = new World({ substeps: 2 });
    let body: SoftBody | ReturnType<typeof latticeBody>;
    if (kind === 'bunny') {
      const surface = bunnyMesh(0.5);
      const { mesh } = tetrahedralize(surface, { resolution: 6 });
      body = new SoftBody(world, { mesh, render: { mesh: surface } });
    } else {
      body = latticeBody(world, { mesh: duckMesh(0.3, 4), spacing: 0.03 });
    }
    world.step();
    const geometry = new BodyGeometry(body);
    return {
      step: () => geometry.update(),
      info: `${body.count} particles, render mesh of ${geometry.vertexCount} vertices and ${body.renderTriangles().length / 3} triangles`,
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
  {
    name: 'three-render-mesh-bunny',
    description: "BodyGeometry.update() of a soft bunny's embedded surface (tets, 002 §5)",
    setup: renderMeshUpdate('bunny'),
    steps: 300,
    warmup: 30,
  },
  {
    name: 'three-render-mesh-duck',
    description: "BodyGeometry.update() of a lattice duck's skinned mesh (regions as bones)",
    setup: renderMeshUpdate('duck'),
    steps: 300,
    warmup: 30,
  },
];
