/**
 * Contact between deformable bodies that draw a render mesh of their own
 * (003 §3.4, last paragraph): contacts use the triangles over the body's
 * particles (a soft body's tet boundary), never the render mesh's triangles,
 * whose indices name render vertices.
 */
import { describe, expect, it } from 'vitest';
import { enableCollisions, icosphere, SoftBody, tetBox, World } from '../src/index.js';
import { flatCloth } from './helpers/cloth.js';

function softBlockOnCloth(render: boolean) {
  const world = new World({ dt: 1 / 60, substeps: 10 });
  const n = 21;
  const cloth = flatCloth(world, n, 0.3);
  for (const v of [0, n - 1, n * (n - 1), n * n - 1]) cloth.pin(v);
  const block = new SoftBody(world, {
    mesh: tetBox({ size: [0.3, 0.3, 0.3], resolution: [3, 3, 3], origin: [-0.15, 0.25, -0.15] }),
    density: 200,
    material: { youngsModulus: 2e4, poissonRatio: 0.3 },
    ...(render
      ? {
          render: {
            mesh: (() => {
              const m = icosphere(0.14, 3);
              for (let i = 1; i < m.positions.length; i += 3) m.positions[i] += 0.4;
              return m;
            })(),
            embed: 'tets' as const,
          },
        }
      : {}),
  });
  const sys = enableCollisions(world, { thickness: 0.01 });
  sys.add(cloth).add(block);
  return { world, cloth, block, sys };
}

describe('contact between a cloth and a soft body with an embedded render mesh', () => {
  it('registers the tet boundary (particles of the body), not the render mesh', () => {
    const { block } = softBlockOnCloth(true);
    expect(block.hasRenderMesh).toBe(true);
    // the render icosphere has far more vertices than the block has particles
    expect(block.renderPositions().length / 3).toBeGreaterThan(block.count);
    expect(block.contactTriangles()).toBe(block.surface);
    for (const i of block.contactTriangles()) expect(i).toBeLessThan(block.count);
  });

  it('the block lands on the cloth and stays on it, as the same block without a render mesh does', () => {
    const lowest = (render: boolean) => {
      const { world, cloth, block } = softBlockOnCloth(render);
      for (let k = 0; k < 90; k++) world.step();
      const x = world.store.x;
      let clothMin = Infinity,
        blockMin = Infinity;
      for (let i = cloth.offset; i < cloth.offset + cloth.count; i++)
        clothMin = Math.min(clothMin, x[3 * i + 1]);
      for (let i = block.offset; i < block.offset + block.count; i++)
        blockMin = Math.min(blockMin, x[3 * i + 1]);
      for (let i = 0; i < 3 * world.store.count; i++) expect(Number.isFinite(x[i])).toBe(true);
      return { clothMin, blockMin };
    };
    const withMesh = lowest(true);
    const plain = lowest(false);
    // resting in the sag: the block's lowest vertex is above the cloth's lowest point
    expect(withMesh.clothMin).toBeLessThan(-0.02);
    expect(withMesh.blockMin).toBeGreaterThan(withMesh.clothMin);
    // and drawing a render mesh changes nothing of the contact
    expect(withMesh.blockMin).toBe(plain.blockMin);
    expect(withMesh.clothMin).toBe(plain.clothMin);
  });
});
