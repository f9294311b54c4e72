/**
 * Degenerate input never hangs and never explodes (issue 15, item 7):
 * bodies that start inside colliders, cloth collapsed to a point, seams of
 * duplicated vertices. Costs are asserted as counts (candidate pairs), never
 * as times.
 */
import { describe, expect, it } from 'vitest';
import {
  Cloth,
  gridMesh,
  icosphere,
  MeshCollider,
  PlaneCollider,
  SoftBody,
  SphereCollider,
  tetBox,
  World,
} from '../src/index.js';

/** Largest particle speed of a body (m/s). */
function maxSpeed(world: World, off: number, n: number): number {
  const v = world.store.v;
  let m = 0;
  for (let i = off; i < off + n; i++) m = Math.max(m, Math.hypot(v[3 * i], v[3 * i + 1], v[3 * i + 2]));
  return m;
}

describe('bodies that start inside a collider (003 §3.4 static fallback)', () => {
  it('a cloth inside a solid sphere is put on its surface once and rests there, without a speed clamp', () => {
    // the whole cloth inside, above the centre, and one larger than the sphere through its centre
    for (const [width, y] of [
      [0.3, 0.2],
      [1.2, 0],
    ]) {
      const world = new World({ dt: 1 / 60, substeps: 10 });
      const mesh = gridMesh({ width, height: width, cols: 20, rows: 20 });
      for (let i = 1; i < mesh.positions.length; i += 3) mesh.positions[i] += y;
      const cloth = new Cloth(world, { mesh, density: 0.2 });
      world.addCollider(new SphereCollider({ radius: 0.5 }));
      let fastest = 0;
      for (let s = 0; s < 600; s++) {
        world.step();
        fastest = Math.max(fastest, maxSpeed(world, cloth.offset, cloth.count));
      }
      expect(world.stats.speedClamps).toBe(0);
      // pushed out as a position change: nothing is thrown (main threw it at the 200 m/s limit)
      expect(fastest).toBeLessThan(5);
      const x = world.store.x;
      for (let i = cloth.offset; i < cloth.offset + cloth.count; i++)
        expect(Math.hypot(x[3 * i], x[3 * i + 1], x[3 * i + 2])).toBeGreaterThan(0.5);
      if (width < 1) expect(maxSpeed(world, cloth.offset, cloth.count)).toBeLessThan(1e-3);
    }
  });

  it('a soft body inside a closed mesh collider is moved out whole and comes to rest on it', () => {
    const world = new World({ dt: 1 / 60, substeps: 10 });
    const mesh = tetBox({ size: [0.2, 0.2, 0.2], resolution: [4, 4, 4], origin: [-0.1, 0.45, -0.1] });
    const body = new SoftBody(world, {
      mesh,
      density: 500,
      material: { youngsModulus: 2e4, poissonRatio: 0.3 },
    });
    world.addCollider(new PlaneCollider({}));
    world.addCollider(new MeshCollider({ mesh: icosphere(0.5, 3), position: [0, 0.5, 0] }));
    let fastest = 0;
    for (let s = 0; s < 300; s++) {
      world.step();
      fastest = Math.max(fastest, maxSpeed(world, body.offset, body.count));
    }
    expect(world.stats.speedClamps).toBe(0);
    // main: thrown out at over 80 m/s and never settled
    expect(fastest).toBeLessThan(2);
    expect(maxSpeed(world, body.offset, body.count)).toBeLessThan(0.1);
    // on top of the sphere (radius 0.5 about y = 0.5), in its rest shape: the cube is 0.2 m tall
    const x = world.store.x;
    let ymin = Infinity,
      ymax = -Infinity;
    for (let i = body.offset; i < body.offset + body.count; i++) {
      expect(Math.hypot(x[3 * i], x[3 * i + 1] - 0.5, x[3 * i + 2])).toBeGreaterThan(0.49);
      ymin = Math.min(ymin, x[3 * i + 1]);
      ymax = Math.max(ymax, x[3 * i + 1]);
    }
    expect(ymin).toBeGreaterThan(0.95);
    expect(ymax - ymin).toBeGreaterThan(0.18);
  });
});
