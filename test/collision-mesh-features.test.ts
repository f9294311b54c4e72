/**
 * A mesh collider's own vertices against a cloth's triangles
 * (MeshFeatureContacts): a spike thinner than the cloth's mesh spacing,
 * pushed up under the middle of a triangle, lifts the cloth instead of
 * poking through between its vertices.
 */
import { describe, expect, it } from 'vitest';
import { enableCollisions, MeshCollider, type TriangleMesh, World } from '../src/index.js';
import { flatCloth } from './helpers/cloth.js';

/** A closed, thin three-sided spike: base of radius r at y = 0, apex at y = height. */
function spike(r: number, height: number): TriangleMesh {
  const positions = new Float64Array(12);
  for (let k = 0; k < 3; k++) {
    const a = (2 * Math.PI * k) / 3;
    positions[3 * k] = r * Math.cos(a);
    positions[3 * k + 2] = r * Math.sin(a);
  }
  positions[10] = height;
  // outward-facing: base seen from below, sides from outside
  const triangles = new Uint32Array([0, 1, 2, 0, 3, 1, 1, 3, 2, 2, 3, 0]);
  return { positions, triangles };
}

/** Runs the spike up through the cloth's plane; returns the cloth's height above the apex and the apex height. */
function run(colliderFeatures: boolean) {
  const world = new World({ dt: 1 / 60, substeps: 10 });
  const n = 5;
  const cloth = flatCloth(world, n, 0.1);
  for (let i = 0; i < n * n; i++) cloth.pin(i);
  // unpin the middle 3 × 3 vertices so the cloth can be lifted there, but keep the rim
  for (let r = 1; r < n - 1; r++) for (let c = 1; c < n - 1; c++) cloth.unpin(r * n + c);
  // apex at the middle of a triangle, 10 cm below the cloth, rising at 0.25 m/s for 1.2 s
  const apex = [0.06, 0, 0.14];
  const col = new MeshCollider({
    mesh: spike(0.01, 0.3),
    position: [apex[0], -0.4, apex[2]],
    margin: 0.002,
    motion: { velocity: [0, 0.25, 0], end: 1.2 },
  });
  world.addCollider(col);
  enableCollisions(world, { thickness: 0.01, colliderFeatures }).add(cloth);
  for (let k = 0; k < 90; k++) world.step();
  const tipY = col.position[1] + 0.3;
  // the cloth's height over the apex: the triangle whose xz footprint holds it
  const x = world.store.x;
  const tris = cloth.triangles;
  let over = Number.NaN;
  for (let t = 0; t < tris.length; t += 3) {
    const [a, b, c] = [tris[t], tris[t + 1], tris[t + 2]].map((i) => 3 * (cloth.offset + i));
    const d = (x[b + 2] - x[c + 2]) * (x[a] - x[c]) + (x[c] - x[b]) * (x[a + 2] - x[c + 2]);
    const l0 = ((x[b + 2] - x[c + 2]) * (apex[0] - x[c]) + (x[c] - x[b]) * (apex[2] - x[c + 2])) / d;
    const l1 = ((x[c + 2] - x[a + 2]) * (apex[0] - x[c]) + (x[a] - x[c]) * (apex[2] - x[c + 2])) / d;
    const l2 = 1 - l0 - l1;
    if (l0 >= 0 && l1 >= 0 && l2 >= 0) over = l0 * x[a + 1] + l1 * x[b + 1] + l2 * x[c + 1] - tipY;
  }
  for (let i = 0; i < 3 * world.store.count; i++) expect(Number.isFinite(x[i])).toBe(true);
  return { over, tipY };
}

describe("mesh colliders' own vertices against cloth triangles", () => {
  it('a spike thinner than the mesh spacing lifts the cloth instead of poking through', () => {
    const withFeatures = run(true);
    const without = run(false);
    // the apex ends 20 cm above the cloth's rest plane (y = 0)
    expect(withFeatures.tipY).toBeCloseTo(0.2, 6);
    // particles only: the apex passes between the vertices and ends above the cloth
    expect(without.over).toBeLessThan(0);
    // with the collider's vertices as contacts the cloth stays above the apex, about a thickness
    expect(withFeatures.over).toBeGreaterThan(0.5 * 0.01);
    expect(withFeatures.over).toBeLessThan(0.05);
  });
});
