import { describe, expect, it } from 'vitest';
import {
  BoxCollider,
  bunnyMesh,
  CapsuleCollider,
  Cloth,
  type Collider,
  collisionSystemOf,
  gridMesh,
  icosphere,
  loadScene,
  MeshCollider,
  MeshDistance,
  PbdError,
  PlaneCollider,
  SphereCollider,
  World,
} from '../src/index.js';
import { quatRotate } from '../src/math/quat.js';
import { rng, thrown } from './helpers.js';

/**
 * Brute-force distance to the triangles (every triangle's closest point, MeshDistance.closestPointOn
 * without its tree), and inside/outside by ray parity (independent of the collider code).
 */
function bruteForce(
  mesh: MeshDistance,
  x: number,
  y: number,
  z: number,
): { distance: number; inside: boolean } {
  const P = mesh.positions,
    T = mesh.triangles;
  const out = new Float64Array(7);
  let best = Number.POSITIVE_INFINITY;
  let crossings = 0;
  const d = [0.5773, 0.5774, 0.5775];
  for (let t = 0; t < T.length / 3; t++) {
    const a = 3 * T[3 * t],
      b = 3 * T[3 * t + 1],
      c = 3 * T[3 * t + 2];
    mesh.closestPointOn(x, y, z, t, out);
    best = Math.min(best, out[6]);
    // Möller–Trumbore along d
    const e1 = [P[b] - P[a], P[b + 1] - P[a + 1], P[b + 2] - P[a + 2]];
    const e2 = [P[c] - P[a], P[c + 1] - P[a + 1], P[c + 2] - P[a + 2]];
    const h = [d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2], d[0] * e2[1] - d[1] * e2[0]];
    const det = e1[0] * h[0] + e1[1] * h[1] + e1[2] * h[2];
    if (Math.abs(det) < 1e-15) continue;
    const s = [x - P[a], y - P[a + 1], z - P[a + 2]];
    const u = (s[0] * h[0] + s[1] * h[1] + s[2] * h[2]) / det;
    if (u < 0 || u > 1) continue;
    const q = [s[1] * e1[2] - s[2] * e1[1], s[2] * e1[0] - s[0] * e1[2], s[0] * e1[1] - s[1] * e1[0]];
    const v = (d[0] * q[0] + d[1] * q[1] + d[2] * q[2]) / det;
    if (v < 0 || u + v > 1) continue;
    if ((e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) / det > 0) crossings++;
  }
  return { distance: Math.sqrt(best), inside: crossings % 2 === 1 };
}

describe('mesh colliders: signed distance field, exact near the surface', () => {
  const bunny = bunnyMesh(0.5);
  const collider = new MeshCollider({ mesh: bunny, resolution: 64, margin: 0 });
  const bunnyTriangles = new MeshDistance(bunny);
  const n = new Float64Array(3);

  it('is exact near the surface, close within the grid, a lower bound beyond it, with the right sign everywhere', () => {
    const r = rng(21);
    const P = bunny.positions;
    let nearErr = 0,
      midErr = 0,
      signErrors = 0,
      notBelow = 0;
    for (let k = 0; k < 1500; k++) {
      const v = Math.floor(r() * (P.length / 3));
      const spread = (k < 800 ? 0.5 : k < 1200 ? 2.5 : 10) * collider.cell;
      const x = P[3 * v] + (r() - 0.5) * 2 * spread,
        y = P[3 * v + 1] + (r() - 0.5) * 2 * spread,
        z = P[3 * v + 2] + (r() - 0.5) * 2 * spread;
      const d = collider.distance(x, y, z, n);
      const b = bruteForce(bunnyTriangles, x, y, z);
      if (k < 800) nearErr = Math.max(nearErr, Math.abs(Math.abs(d) - b.distance));
      else if (k < 1200) midErr = Math.max(midErr, Math.abs(Math.abs(d) - b.distance));
      else if (Math.abs(d) > b.distance + collider.cell) notBelow++;
      if (b.distance > 1e-6 && d < 0 !== b.inside) signErrors++;
      expect(Math.abs(Math.hypot(n[0], n[1], n[2]) - 1)).toBeLessThan(1e-9);
    }
    expect(nearErr).toBeLessThan(1e-12);
    expect(midErr).toBeLessThan(collider.cell);
    expect(notBelow).toBe(0); // beyond the grid: a lower bound; within it, at most a cell more
    expect(signErrors).toBe(0);
  });

  it('near the surface the normal is the gradient of the distance (unit rate along it)', () => {
    const r = rng(22);
    let tested = 0;
    for (let k = 0; k < 4000; k++) {
      const x = (r() - 0.5) * 0.5,
        y = r() * 0.5,
        z = (r() - 0.5) * 0.5;
      const d = collider.distance(x, y, z, n);
      // in the exact band (within half a cell of the surface)
      if (Math.abs(d) > 0.5 * collider.cell || Math.abs(d) < 1e-6) continue;
      tested++;
      // stepping along the normal increases the distance at unit rate (near the surface)
      const eps = 1e-7;
      const d2 = collider.distance(x + eps * n[0], y + eps * n[1], z + eps * n[2], new Float64Array(3));
      expect(Math.abs((d2 - d) / eps - 1)).toBeLessThan(1e-3);
    }
    expect(tested).toBeGreaterThan(20);
  });

  it('a fast particle does not tunnel through a thin part of the mesh (continuous test by sphere tracing)', () => {
    // a flat closed slab 6 mm thick as a triangle mesh
    const slab = icosphere(1, 3);
    for (let i = 0; i < slab.positions.length; i += 3) {
      slab.positions[i] *= 0.5;
      slab.positions[i + 1] *= 0.003;
      slab.positions[i + 2] *= 0.5;
    }
    const world = new World({ gravity: [0, 0, 0], substeps: 1 });
    world.addCollider(new MeshCollider({ mesh: slab, resolution: 96, margin: 0.001 }));
    const i = world.store.allocate(1, 0);
    world.store.setMass(i, 1);
    world.store.x[1] = 1;
    world.store.v[1] = -180; // 3 m per step through a 6 mm slab
    world.step();
    expect(world.store.x[1]).toBeGreaterThan(0.003);
  });

  it('a kinematic mesh pushes cloth along and no vertex ends up inside it', () => {
    const world = new World({ substeps: 10, gravity: [0, 0, 0] });
    const ball = world.addCollider(
      new MeshCollider({
        mesh: icosphere(0.2, 3),
        resolution: 48,
        margin: 0.005,
        position: [0, -0.4, 0],
        motion: { velocity: [0, 1, 0] },
      }),
    );
    const cloth = new Cloth(world, {
      mesh: gridMesh({ width: 1, height: 1, cols: 25, rows: 25 }),
      density: 0.2,
      bend: { compliance: 1 },
    });
    for (let k = 0; k < 60; k++) world.step();
    // the ball's centre went from −0.4 to +0.6: the cloth was carried up
    const x = cloth.positions();
    let inside = 0;
    for (let j = 0; j < x.length; j += 3) if (ball.distance(x[j], x[j + 1], x[j + 2], n) < -1e-3) inside++;
    expect(inside).toBe(0);
    expect(Math.max(...Array.from(x.filter((_, j) => j % 3 === 1)))).toBeGreaterThan(0.7);
  });

  it('refuses a mesh with holes, naming the problem and the fix', () => {
    const open = gridMesh({ width: 1, height: 1, cols: 4, rows: 4 });
    try {
      new MeshCollider({ mesh: open }, 'colliders[2]');
      throw new Error('expected a PbdError');
    } catch (e) {
      expect(e).toBeInstanceOf(PbdError);
      expect((e as PbdError).code).toBe('mesh/not-watertight');
      expect((e as PbdError).message).toMatch(/colliders\[2\]\.mesh.*watertight/);
    }
  });

  it('a scene can hold a mesh collider read from an OBJ file', () => {
    const obj = [
      'v -1 -1 -1',
      'v 1 -1 -1',
      'v 1 1 -1',
      'v -1 1 -1',
      'v -1 -1 1',
      'v 1 -1 1',
      'v 1 1 1',
      'v -1 1 1',
      'f 1 3 2',
      'f 1 4 3',
      'f 5 6 7',
      'f 5 7 8',
      'f 1 2 6',
      'f 1 6 5',
      'f 2 3 7',
      'f 2 7 6',
      'f 3 4 8',
      'f 3 8 7',
      'f 4 1 5',
      'f 4 5 8',
    ].join('\n');
    const scene = {
      title: 'box mesh',
      family: 'collision',
      bodies: [
        {
          type: 'cloth',
          mesh: { grid: { width: 0.5, height: 0.5, cols: 8, rows: 8 } },
          transform: { translate: [0, 0.6, 0] },
        },
      ],
      colliders: [{ type: 'mesh', mesh: { file: 'box.obj' }, transform: { scale: 0.25 }, resolution: 16 }],
    };
    const inst = loadScene(JSON.stringify(scene), { file: 's.json', readFile: () => obj });
    for (let k = 0; k < 60; k++) inst.world.step();
    const y = inst.bodies[0].positions().filter((_, j) => j % 3 === 1);
    // the cloth lies on the box's top (y = 0.25 + margin)
    expect(Math.max(...Array.from(y))).toBeGreaterThan(0.25);
    expect(inst.world.stats.recoveries).toBe(0);
  });
});

describe('collision settings in scene files', () => {
  const base = {
    title: 't',
    family: 'collision',
    bodies: [
      { type: 'cloth', name: 'a', mesh: { grid: { width: 0.4, height: 0.4, cols: 5, rows: 5 } } },
      { type: 'cloth', name: 'b', mesh: { grid: { width: 0.4, height: 0.4, cols: 5, rows: 5 } } },
    ],
  };
  const error = (collision: unknown): PbdError =>
    thrown(() => loadScene(JSON.stringify({ ...base, collision }), { file: 'c.json' }));

  it('an unknown body name names the JSON path and the known bodies', () => {
    const e = error({ bodies: { c: { self: false } } });
    expect(e.code).toBe('scene/unknown-body');
    expect(e.message).toMatch(/c\.json: collision\.bodies\.c.*'a', 'b'/);
    expect(error({ pairs: [{ bodies: ['a', 'x'], contact: false }] }).message).toMatch(
      /collision\.pairs\[0\]\.bodies\[1\]/,
    );
  });

  it('settings reach the bodies: self collision off for one body, a pair switched off', () => {
    const inst = loadScene(
      JSON.stringify({
        ...base,
        collision: {
          thickness: 0.004,
          bodies: { a: { self: false } },
          pairs: [{ bodies: ['a', 'b'], contact: false }],
        },
      }),
    );
    const sc = collisionSystemOf(inst.world)!.surfaces;
    expect(sc.surfaces.map((s) => [s.self, s.thickness])).toEqual([
      [false, 0.004],
      [true, 0.004],
    ]);
    inst.world.step();
    expect(sc.pairActive(0, 1)).toBe(false);
    expect(sc.pairActive(1, 1)).toBe(true);
  });
});

describe('collider queries in array form', () => {
  it('distanceAt and raycastAt give what distance and raycast give, for every collider type and pose', () => {
    const rand = rng(11);
    const pose = {
      position: [0.1, -0.2, 0.05] as [number, number, number],
      rotation: [20, -35, 50] as [number, number, number],
    };
    const colliders: Collider[] = [
      new PlaneCollider({ normal: [0.2, 1, -0.3], position: [0, -0.1, 0] }),
      new SphereCollider({ radius: 0.4, ...pose }),
      new BoxCollider({ halfExtents: [0.3, 0.2, 0.4], ...pose }),
      new CapsuleCollider({ radius: 0.15, halfHeight: 0.3, ...pose }),
      new MeshCollider({ mesh: icosphere(0.4, 2), resolution: 24, ...pose }),
    ];
    const A = new Float64Array(30),
      B = new Float64Array(30);
    const n = new Float64Array(3),
      m = new Float64Array(4);
    let hits = 0;
    for (const c of colliders) {
      for (let trial = 0; trial < 200; trial++) {
        for (let k = 0; k < 30; k++) {
          A[k] = 1.6 * rand() - 0.8;
          B[k] = A[k] + 1.2 * rand() - 0.6;
        }
        const i = 3 * Math.floor(10 * rand());
        const d = c.distance(A[i], A[i + 1], A[i + 2], n);
        c.distanceAt(A, i, m);
        expect(m[3]).toBe(d);
        expect(Array.from(m.subarray(0, 3))).toEqual(Array.from(n));
        if (d < 0.02) continue; // raycast wants a start outside the grown shape
        const t = c.raycast(A[i], A[i + 1], A[i + 2], B[i], B[i + 1], B[i + 2], 0.02);
        c.raycastAt(A, B, i, 0.02, m);
        expect(m[3]).toBe(t);
        if (t >= 0) hits++;
      }
    }
    // the segments reach the shapes often enough for the ray half to be tested
    expect(hits).toBeGreaterThan(50);
  });

  it("a turned sphere's fast path: |x − c| − R along (x − c)/|x − c|, and the turned +y at its centre", () => {
    const rand = rng(5);
    const s = new SphereCollider({ radius: 0.4, position: [0.1, -0.2, 0.05], rotation: [20, -35, 50] });
    const P = new Float64Array(3),
      m = new Float64Array(4);
    for (let trial = 0; trial < 100; trial++) {
      for (let k = 0; k < 3; k++) P[k] = 1.6 * rand() - 0.8;
      s.distanceAt(P, 0, m);
      const dx = P[0] - 0.1,
        dy = P[1] + 0.2,
        dz = P[2] - 0.05;
      const len = Math.hypot(dx, dy, dz);
      expect(m[3]).toBeCloseTo(len - 0.4, 14);
      expect(m[0] * len).toBeCloseTo(dx, 14);
      expect(m[1] * len).toBeCloseTo(dy, 14);
      expect(m[2] * len).toBeCloseTo(dz, 14);
      // a ray from outside toward the centre enters the grown sphere where |a + t (c − a) − c| = R + r
      if (len > 0.45) {
        const t = s.raycast(P[0], P[1], P[2], 0.1, -0.2, 0.05, 0.02);
        expect(t).toBeCloseTo((len - 0.42) / len, 12);
      }
    }
    P.set([0.1, -0.2, 0.05]);
    s.distanceAt(P, 0, m);
    expect(m[3]).toBe(-0.4);
    const up = new Float64Array(3);
    quatRotate(up, 0, s.rotation, 0, 0, 1, 0);
    expect(Array.from(m.subarray(0, 3))).toEqual(Array.from(up));
  });
});
