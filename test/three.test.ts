import {
  BackSide,
  Box3,
  type BufferAttribute,
  Color,
  FrontSide,
  type Material,
  Matrix4,
  Mesh,
  MeshBasicMaterial,
  Raycaster,
  Vector3,
} from 'three';
import { describe, expect, it } from 'vitest';
import {
  Cloth,
  gridMesh,
  hairOnSphere,
  icosphere,
  latticeBody,
  MeshCollider,
  placePositions,
  rigidCluster,
  Skin,
  SoftBody,
  Strands,
  tetBox,
  World,
} from '../src/index.js';
import {
  BodyGeometry,
  BodyLines,
  BodyParticles,
  BodyPoints,
  createColliderObject,
  updateColliderObject,
} from '../src/three/index.js';

function hangingCloth(world: World, options: { tear?: number } = {}) {
  const mesh = gridMesh({ width: 1, height: 1, cols: 12, rows: 12, plane: 'xy' });
  mesh.positions = placePositions(mesh.positions, { translate: [0, 2, 0] });
  const cloth = new Cloth(world, {
    mesh,
    name: 'c',
    density: 0.2,
    tear: options.tear ? { threshold: options.tear, maxNewVertices: 200, maxPerStep: 8 } : undefined,
  });
  for (let c = 0; c < 12; c++) cloth.pin(c);
  return cloth;
}

function expectMatchesBody(g: BodyGeometry, body: Cloth): void {
  const x = body.positions();
  const pos = g.getAttribute('position').array as Float32Array;
  expect(g.vertexCount).toBe(body.activeCount);
  for (let k = 0; k < x.length; k++) expect(pos[k]).toBe(Math.fround(x[k]));
}

describe('BodyGeometry', () => {
  it('follows the simulated positions, reusing its arrays and uploading only the active range', () => {
    const world = new World();
    const cloth = hangingCloth(world, { tear: 3 });
    const g = new BodyGeometry(cloth);
    expect(cloth.count).toBeGreaterThan(cloth.activeCount); // spare vertices for tearing
    const position = g.getAttribute('position') as BufferAttribute;
    const array = position.array;
    const index = g.getIndex()!;
    const indexVersion = index.version;
    expectMatchesBody(g, cloth);
    for (let s = 0; s < 20; s++) world.step();
    g.update();
    expectMatchesBody(g, cloth);
    expect(g.getAttribute('position').array).toBe(array);
    expect(position.updateRanges).toEqual([{ start: 0, count: 3 * cloth.activeCount }]);
    expect(g.getIndex()).toBe(index);
    expect(index.version).toBe(indexVersion); // no re-upload of an unchanged topology
    expect(Array.from(index.array)).toEqual(Array.from(cloth.renderTriangles()));
  });

  it('computes unit outward normals every update (a closed sphere surface)', () => {
    const world = new World({ gravity: [0, 0, 0] });
    const mesh = icosphere(0.5, 2);
    const cloth = new Cloth(world, { mesh, pressure: { pressure: 1 } });
    const g = new BodyGeometry(cloth);
    // move the body: normals must follow the new positions, not the initial ones
    const x = world.store.x;
    for (let i = 0; i < cloth.activeCount; i++) x[3 * (cloth.offset + i)] += 3;
    g.update();
    const pos = g.getAttribute('position').array;
    const nrm = g.getAttribute('normal').array;
    for (let i = 0; i < cloth.activeCount; i++) {
      const rx = pos[3 * i] - 3,
        ry = pos[3 * i + 1],
        rz = pos[3 * i + 2];
      const r = Math.hypot(rx, ry, rz);
      const n = [nrm[3 * i], nrm[3 * i + 1], nrm[3 * i + 2]];
      expect(Math.hypot(n[0], n[1], n[2])).toBeCloseTo(1, 5);
      expect((n[0] * rx + n[1] * ry + n[2] * rz) / r).toBeGreaterThan(0.98);
    }
  });

  it('rebuilds the index when a cloth tears, and keeps reading the store after it grows', () => {
    const world = new World({ substeps: 10 });
    const cloth = hangingCloth(world, { tear: 1.3 });
    const g = new BodyGeometry(cloth);
    const version0 = cloth.topologyVersion;
    // pull a bottom corner hard and far: edges near it overstretch and tear
    const corner = cloth.offset + 11 * 12;
    const grab = world.grab(corner, [0, 2, 0], 0);
    grab.move([-3, -3, 2]);
    for (let s = 0; s < 60 && cloth.topologyVersion === version0; s++) world.step();
    grab.release();
    expect(cloth.topologyVersion).toBeGreaterThan(version0);
    expect(cloth.activeCount).toBeGreaterThan(144);
    g.update();
    expectMatchesBody(g, cloth);
    expect(Array.from(g.getIndex()!.array)).toEqual(Array.from(cloth.renderTriangles()));

    // a second body reallocates the store's arrays; the geometry follows the new ones
    const storeVersion = world.store.version;
    const big = gridMesh({ width: 1, height: 1, cols: 40, rows: 40 });
    new Cloth(world, { mesh: big });
    expect(world.store.version).toBeGreaterThan(storeVersion);
    world.step();
    g.update();
    expectMatchesBody(g, cloth);
  });

  it('is ray-castable: bounds are recomputed after the body moves', () => {
    const world = new World({ gravity: [0, 0, 0] });
    const cloth = new Cloth(world, { mesh: gridMesh({ width: 1, height: 1, cols: 5, rows: 5 }) });
    const g = new BodyGeometry(cloth);
    const mesh = new Mesh(g, new MeshBasicMaterial());
    const down = new Raycaster(new Vector3(0, 5, 0), new Vector3(0, -1, 0));
    expect(down.intersectObject(mesh)[0].point.y).toBeCloseTo(0, 6);
    const x = world.store.x;
    for (let i = 0; i < cloth.activeCount; i++) x[3 * (cloth.offset + i) + 1] = 2;
    g.update();
    expect(down.intersectObject(mesh)[0].point.y).toBeCloseTo(2, 6);
  });
});

/** Checks a geometry against a body with a render mesh: its vertices, index and outward normals. */
function expectMatchesRenderMesh(
  g: BodyGeometry,
  body: { renderPositions(): Float64Array; renderTriangles(): Uint32Array },
) {
  const r = body.renderPositions();
  const pos = g.getAttribute('position').array as Float32Array;
  expect(g.vertexCount).toBe(r.length / 3);
  for (let k = 0; k < r.length; k++) expect(pos[k]).toBe(Math.fround(r[k]));
  expect(Array.from(g.getIndex()!.array)).toEqual(Array.from(body.renderTriangles()));
  // closed outward surfaces: the normals point away from the centroid
  const c = [0, 0, 0];
  for (let k = 0; k < r.length; k++) c[k % 3] += (3 * r[k]) / r.length;
  const nrm = g.getAttribute('normal').array as Float32Array;
  let outward = 0;
  for (let i = 0; i < r.length / 3; i++) {
    const d =
      (pos[3 * i] - c[0]) * nrm[3 * i] +
      (pos[3 * i + 1] - c[1]) * nrm[3 * i + 1] +
      (pos[3 * i + 2] - c[2]) * nrm[3 * i + 2];
    if (d > 0) outward++;
  }
  expect(outward).toBe(r.length / 3);
}

describe('BodyGeometry over a render mesh', () => {
  it("draws a soft body's embedded mesh (002 §5), not its tet boundary, as it falls", () => {
    const world = new World({ substeps: 10 });
    const sphere = icosphere(0.18, 3);
    sphere.positions = placePositions(sphere.positions, { translate: [0, 0.5, 0] });
    const body = new SoftBody(world, {
      mesh: tetBox({ size: [0.4, 0.4, 0.4], resolution: [4, 4, 4], origin: [-0.2, 0.3, -0.2] }),
      material: { model: 'neo-hookean', youngsModulus: 2e4, poissonRatio: 0.4 },
      render: { mesh: sphere },
    });
    expect(body.hasRenderMesh).toBe(true);
    const g = new BodyGeometry(body);
    expect(g.vertexCount).toBe(sphere.positions.length / 3);
    expect(g.vertexCount).toBeGreaterThan(body.count);
    expectMatchesRenderMesh(g, body);
    const array = g.getAttribute('position').array;
    const y0 = body.renderPositions()[1];
    for (let s = 0; s < 30; s++) world.step();
    g.update();
    expectMatchesRenderMesh(g, body);
    expect(g.getAttribute('position').array).toBe(array); // no reallocation
    expect(body.renderPositions()[1]).toBeLessThan(y0 - 0.05); // the mesh fell with the body
  });

  it("draws a lattice body's skinned mesh and a rigid cluster's mesh turned with the cluster", () => {
    const world = new World({ gravity: [0, 0, 0] });
    const mesh = icosphere(0.2, 2);
    const lattice = latticeBody(world, { mesh, spacing: 0.08 });
    expect(lattice.hasRenderMesh).toBe(true);
    const g = new BodyGeometry(lattice);
    expectMatchesRenderMesh(g, lattice);
    // the rest pose renders the mesh itself
    for (let k = 0; k < mesh.positions.length; k++)
      expect(lattice.renderPositions()[k]).toBeCloseTo(mesh.positions[k], 12);

    // a rigid cluster spun about y: its mesh turns with it, exactly (one region, 000 §4.1)
    const box = icosphere(0.2, 1);
    box.positions = placePositions(box.positions, { translate: [1, 0, 0] });
    const particles = placePositions(
      Float64Array.from([0, 0, 0, 0.1, 0, 0, 0, 0.1, 0, 0, 0, 0.1, -0.1, -0.05, 0.03]),
      { translate: [1, 0, 0] },
    );
    const skin = Skin.nearest(
      box.positions,
      box.triangles,
      particles,
      4,
      world.store.float64(box.positions.length),
    );
    const rigid = rigidCluster(world, { positions: particles, masses: 1, skin });
    const c = [0, 0, 0];
    for (let j = 0; j < 5; j++) for (let d = 0; d < 3; d++) c[d] += particles[3 * j + d] / 5;
    const v = rigid.velocities();
    for (let j = 0; j < 5; j++) {
      // ω = 2 rad/s about y through the centre: v = ω × r
      v[3 * j] = 2 * (particles[3 * j + 2] - c[2]);
      v[3 * j + 2] = -2 * (particles[3 * j] - c[0]);
    }
    for (let s = 0; s < 30; s++) world.step();
    const x = rigid.positions();
    // the cluster's rotation: particles 1, 2, 3 sat 0.1 m from particle 0 along x, y and z, so
    // column k of R is (x_k − x_0) / 0.1
    const R = (row: number, col: number) => (x[3 * (col + 1) + row] - x[row]) / 0.1;
    expect(Math.abs(R(0, 0) - 1)).toBeGreaterThan(0.3); // it turned
    const r = rigid.renderPositions();
    for (let i = 0; i < box.positions.length / 3; i++) {
      const u = [0, 1, 2].map((d) => box.positions[3 * i + d] - particles[d]);
      for (let d = 0; d < 3; d++) {
        const expected = x[d] + R(d, 0) * u[0] + R(d, 1) * u[1] + R(d, 2) * u[2];
        expect(Math.abs(r[3 * i + d] - expected)).toBeLessThan(1e-9);
      }
    }
    expectMatchesRenderMesh(new BodyGeometry(rigid), rigid);
  });

  it('a render mesh that gains vertices reallocates the attributes and re-reads the index', () => {
    let positions = new Float64Array([0, 0, 0, 1, 0, 0, 0, 1, 0]);
    let triangles = new Uint32Array([0, 1, 2]);
    const body = {
      offset: 0,
      count: 1,
      activeCount: 1,
      topologyVersion: 0,
      hasRenderMesh: true,
      renderPositions: () => positions,
      renderTriangles: () => triangles,
    };
    const store = { x: new Float64Array(3), radius: new Float64Array(1), version: 0 };
    const g = new BodyGeometry(body, { store });
    expect(g.vertexCount).toBe(3);
    positions = new Float64Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0]);
    triangles = new Uint32Array([0, 1, 2, 1, 3, 2]);
    body.topologyVersion = 1;
    g.update();
    expect(g.vertexCount).toBe(4);
    expect(Array.from(g.getAttribute('position').array)).toEqual(Array.from(positions));
    expect(Array.from(g.getIndex()!.array)).toEqual([0, 1, 2, 1, 3, 2]);
    expect(Array.from(g.getAttribute('normal').array).slice(9)).toEqual([0, 0, 1]);
  });
});

describe('particles', () => {
  it('BodyParticles writes one scale-and-translate matrix per active particle', () => {
    const world = new World();
    const cloth = hangingCloth(world);
    const store = world.store;
    for (let i = 0; i < cloth.activeCount; i++) store.radius[cloth.offset + i] = i % 2 ? 0.02 : 0;
    for (let s = 0; s < 5; s++) world.step();
    const p = new BodyParticles(cloth, { defaultRadius: 0.005 });
    expect(p.count).toBe(cloth.activeCount);
    const m = new Matrix4();
    const t = new Vector3();
    const scale = new Vector3();
    const q = p.quaternion.clone();
    for (const i of [0, 1, 77, cloth.activeCount - 1]) {
      p.getMatrixAt(i, m);
      m.decompose(t, q, scale);
      const g = cloth.offset + i;
      expect(t.toArray()).toEqual([store.x[3 * g], store.x[3 * g + 1], store.x[3 * g + 2]].map(Math.fround));
      expect(scale.x).toBeCloseTo(i % 2 ? 0.02 : 0.005, 7);
    }
  });

  it('BodyParticles colours each particle by its speed, from slow to fast', () => {
    const world = new World();
    const cloth = hangingCloth(world);
    const v = world.store.v;
    const speeds = [0, 1, 2, 5];
    speeds.forEach((s, i) => {
      v[3 * (cloth.offset + i)] = s;
    });
    const p = new BodyParticles(cloth, { speedColors: { slow: 0x000000, fast: 0xffffff, maxSpeed: 2 } });
    const c = new Color();
    for (const [i, s] of speeds.entries()) {
      p.getColorAt(i, c);
      expect(c.r).toBeCloseTo(Math.min(s / 2, 1), 6); // linear blend, saturated above maxSpeed
    }
  });

  it('BodyPoints copies positions and radii of the active range', () => {
    const world = new World();
    const cloth = hangingCloth(world);
    world.step();
    const pts = new BodyPoints(cloth, { defaultRadius: 0.03 });
    const pos = pts.geometry.getAttribute('position').array;
    const x = cloth.positions();
    for (let k = 0; k < x.length; k++) expect(pos[k]).toBe(Math.fround(x[k]));
    expect(pts.geometry.drawRange.count).toBe(cloth.activeCount);
    expect(pts.geometry.getAttribute('radius').array[3]).toBeCloseTo(0.03, 7);
  });
});

describe('colliders', () => {
  it('draws plane, sphere, box and capsule at their pose, and skips unknown types', () => {
    const rot = [0, Math.sin(Math.PI / 8), 0, Math.cos(Math.PI / 8)];
    const size = (o: ReturnType<typeof createColliderObject>) =>
      new Box3()
        .setFromBufferAttribute(o!.geometry.getAttribute('position') as BufferAttribute)
        .getSize(new Vector3());
    const sphere = createColliderObject({ type: 'sphere', radius: 0.4, position: [1, 2, 3], rotation: rot })!;
    expect(sphere.position.toArray()).toEqual([1, 2, 3]);
    expect(sphere.quaternion.toArray()).toEqual(rot);
    expect(size(sphere).x).toBeCloseTo(0.8, 6);
    const box = createColliderObject({
      type: 'box',
      halfExtents: [0.1, 0.2, 0.3],
      position: [0, 0, 0],
      rotation: [0, 0, 0, 1],
    });
    expect(
      size(box)
        .toArray()
        .map((v) => +v.toFixed(6)),
    ).toEqual([0.2, 0.4, 0.6]);
    const capsule = createColliderObject({
      type: 'capsule',
      radius: 0.1,
      halfHeight: 0.5,
      position: [0, 0, 0],
      rotation: [0, 0, 0, 1],
    });
    expect(size(capsule).y).toBeCloseTo(1.2, 6); // 2 halfHeight + 2 radius, along local y
    const plane = createColliderObject({ type: 'plane', position: [0, 0, 0], rotation: [0, 0, 0, 1] })!;
    expect(size(plane).y).toBeCloseTo(0, 9); // horizontal: the plane's local normal is +y
    expect(
      createColliderObject({ type: 'mesh-sdf', position: [0, 0, 0], rotation: [0, 0, 0, 1] }),
    ).toBeNull();
    // a mesh collider: its own triangles, in its local frame; a container (inside) by its back faces
    const bunny = new MeshCollider({ mesh: icosphere(0.5, 2), position: [0, 1, 0] });
    const drawn = createColliderObject(bunny)!;
    expect(drawn.geometry.getAttribute('position').count).toBe(bunny.mesh.positions.length / 3);
    expect(drawn.geometry.getIndex()!.count).toBe(bunny.mesh.triangles.length);
    expect(size(drawn).x).toBeCloseTo(1, 6);
    expect(drawn.position.toArray()).toEqual([0, 1, 0]);
    expect((drawn.material as Material).side).toBe(FrontSide);
    const barrel = new MeshCollider({ mesh: icosphere(0.5, 2), inside: true });
    expect((createColliderObject(barrel)!.material as Material).side).toBe(BackSide);
    const moving = { type: 'sphere', radius: 1, position: [0, 0, 0], rotation: [0, 0, 0, 1] };
    const obj = createColliderObject(moving)!;
    moving.position = [4, 5, 6];
    updateColliderObject(obj, moving);
    expect(obj.position.toArray()).toEqual([4, 5, 6]);
  });
});

describe('BodyLines', () => {
  it("draws a strand body's segments over its particles, follows them, and can be picked", () => {
    const world = new World({ substeps: 2 });
    world.store.allocate(5, -1); // the strands do not start at particle 0
    const hair = hairOnSphere({ center: [0, 1, 0], radius: 0.1, count: 12, segments: 5, length: 0.2 });
    const strands = new Strands(world, hair);
    const lines = new BodyLines(strands);
    const index = lines.geometry.getIndex()!;
    expect(Array.from(index.array)).toEqual(Array.from(strands.renderLines()));
    expect(index.count).toBe(2 * 12 * 5);
    for (let k = 0; k < 10; k++) world.step();
    lines.update();
    const pos = lines.geometry.getAttribute('position').array as Float32Array;
    const x = strands.positions();
    for (let k = 0; k < x.length; k++) expect(pos[k]).toBe(Math.fround(x[k]));
    // a ray at a segment's midpoint hits that strand
    const j = 3; // particle 3 of strand 0: segment (2, 3)
    const mid = new Vector3((x[6] + x[9]) / 2, (x[7] + x[10]) / 2, (x[8] + x[11]) / 2);
    const ray = new Raycaster(new Vector3(mid.x, mid.y, mid.z + 5), new Vector3(0, 0, -1));
    ray.params.Line.threshold = 0.002;
    const hits = ray.intersectObject(lines);
    expect(hits.length).toBeGreaterThan(0);
    const hit = hits.find((h) => {
      const a = index.getX(h.index!),
        b = index.getX(h.index! + 1);
      return a === j - 1 && b === j;
    });
    expect(hit).toBeDefined();
  });
});
