import { describe, expect, it } from 'vitest';
import { loadShippedScene } from '../scripts/shipped-scenes.js';
import {
  closestPointTriangle,
  collisionSystemOf,
  type MeshCollider,
  type SceneInstance,
} from '../src/index.js';
import { edgeCross, edgeCrossOut } from '../src/mesh/triangle-mesh.js';
import { countEdgeTriangleIntersections, globalTriangles } from './collision-check.js';

const load = (file: string): SceneInstance => loadShippedScene(file);

/**
 * Runs a scene and checks, with the independent counter, that its cloth
 * never intersects itself or another cloth. Returns the instance.
 */
function neverIntersects(file: string, steps: number, every: number): SceneInstance {
  const inst = load(file);
  const cloths = inst.bodies.filter((b) => b.renderTriangles().length > 0);
  const tris = globalTriangles(cloths);
  expect(countEdgeTriangleIntersections(inst.world.store.x, tris)).toBe(0);
  for (let k = 1; k <= steps; k++) {
    inst.world.step();
    if (k % every === 0 || k === steps) {
      const n = countEdgeTriangleIntersections(inst.world.store.x, tris);
      if (n !== 0) throw new Error(`${file}: ${n} edge–triangle intersections after step ${k}`);
    }
  }
  expect(inst.world.stats.recoveries).toBe(0);
  expect(inst.world.stats.speedClamps).toBe(0);
  return inst;
}

describe('no new intersection is ever created (independent edge–triangle counter)', () => {
  it('003 Figure 6: the cloth collapsing into a folded heap', () => {
    const inst = neverIntersects('collision-heap.json', 150, 3);
    // it did fold onto itself: many contacts between its layers
    expect(collisionSystemOf(inst.world)!.surfaces.stats.contacts).toBeGreaterThan(100);
  });

  it('003 Figure 9: the cloth tumbling in the rotating barrel', () => {
    neverIntersects('collision-barrel.json', 150, 3);
  });

  it('a long cloth twisted by its ends', () => {
    neverIntersects('collision-twist.json', 200, 4);
  });

  it('two cloths dropped on each other', () => {
    neverIntersects('collision-two-cloths.json', 120, 3);
  });

  it('cloth over the animated bunny, and no vertex inside the bunny', () => {
    const inst = neverIntersects('collision-bunny.json', 150, 5);
    const bunny = inst.colliders.find((c) => c.type === 'mesh') as MeshCollider;
    const x = inst.bodies[0].positions();
    const n = new Float64Array(3);
    let deepest = 0;
    for (let j = 0; j < x.length; j += 3)
      deepest = Math.min(deepest, bunny.distance(x[j], x[j + 1], x[j + 2], n));
    expect(deepest).toBeGreaterThan(-0.002);
  });

  it('a fast projectile (grains at 18 m/s) into a hanging cloth: the cloth is hit, none passes through', () => {
    const inst = neverIntersects('collision-projectile.json', 40, 1);
    const [curtain, grains] = inst.bodies;
    const x = inst.world.store.x;
    // every grain is still in front of the cloth near it
    let behind = 0;
    for (let i = grains.offset; i < grains.offset + grains.count; i++) {
      let best = Number.POSITIVE_INFINITY,
        zc = 0;
      for (let j = curtain.offset; j < curtain.offset + curtain.activeCount; j++) {
        const d = Math.hypot(x[3 * i] - x[3 * j], x[3 * i + 1] - x[3 * j + 1]);
        if (d < best) {
          best = d;
          zc = x[3 * j + 2];
        }
      }
      if (best < 0.02 && x[3 * i + 2] < zc) behind++;
    }
    expect(behind).toBe(0);
    // and the cloth was pushed back by the impact
    const zmin = Math.min(...Array.from(curtain.positions().filter((_, j) => j % 3 === 2)));
    expect(zmin).toBeLessThan(-0.1);
  });
});

describe('granular scenes', () => {
  it('the column of grains collapses into a pile whose slope is set by friction, without overlaps', () => {
    const inst = load('collision-granular-pile.json');
    for (let k = 0; k < 180; k++) inst.world.step();
    const g = inst.bodies[0];
    const { x, radius } = inst.world.store;
    let top = 0,
      overlap = 0;
    const r: number[] = [];
    for (let i = g.offset; i < g.offset + g.count; i++) {
      top = Math.max(top, x[3 * i + 1]);
      r.push(Math.hypot(x[3 * i], x[3 * i + 2]));
      for (let j = i + 1; j < g.offset + g.count; j++) {
        const d = Math.hypot(x[3 * i] - x[3 * j], x[3 * i + 1] - x[3 * j + 1], x[3 * i + 2] - x[3 * j + 2]);
        overlap = Math.max(overlap, radius[i] + radius[j] - d);
      }
    }
    r.sort((a, b) => a - b);
    // the pile's foot: the radius within which 90 % of the grains lie (a few grains roll further)
    const foot = r[Math.floor(0.9 * r.length)];
    const slope = (Math.atan2(top, foot) * 180) / Math.PI;
    // the column (0.41 m high, 0.08 m half-width) has slumped: at most half its height is left,
    // and the slope lies between a frictionless spread and a standing column
    expect(top).toBeLessThan(0.5 * 0.41);
    expect(slope).toBeGreaterThan(20);
    expect(slope).toBeLessThan(45);
    expect(overlap).toBeLessThan(0.05 * 0.02);
    expect(inst.world.kineticEnergy()).toBeLessThan(0.05);
  });

  it('grains poured into the hammock never pass through the cloth', () => {
    const inst = load('collision-granular-hammock.json');
    const [cloth, grains] = inst.bodies;
    const x = inst.world.store.x;
    const tris = cloth.renderTriangles();
    const out = new Float64Array(7);
    let checked = 0;
    for (let k = 1; k <= 120; k++) {
      inst.world.step();
      if (k % 10 !== 0) continue;
      // a grain near the cloth, over one of its triangles, is on its upper side (the grid's +y winding)
      for (let i = grains.offset; i < grains.offset + grains.count; i++) {
        const gx = x[3 * i],
          gy = x[3 * i + 1],
          gz = x[3 * i + 2];
        let best = Number.POSITIVE_INFINITY,
          side = 0,
          face = false;
        for (let t = 0; t < tris.length; t += 3) {
          const a = 3 * (cloth.offset + tris[t]),
            b = 3 * (cloth.offset + tris[t + 1]),
            c = 3 * (cloth.offset + tris[t + 2]);
          const region = closestPointTriangle(
            gx,
            gy,
            gz,
            x[a],
            x[a + 1],
            x[a + 2],
            x[b],
            x[b + 1],
            x[b + 2],
            x[c],
            x[c + 1],
            x[c + 2],
            out,
          );
          if (out[6] >= best) continue;
          best = out[6];
          face = region === 0;
          edgeCross(x, a, b, c);
          side =
            (gx - x[a]) * edgeCrossOut[0] +
            (gy - x[a + 1]) * edgeCrossOut[1] +
            (gz - x[a + 2]) * edgeCrossOut[2];
        }
        // over the face of the closest triangle (not beside the cloth's border)
        if (Math.sqrt(best) > 0.03 || !face) continue;
        checked++;
        expect(side).toBeGreaterThan(0);
      }
    }
    expect(checked).toBeGreaterThan(400);
  });
});
