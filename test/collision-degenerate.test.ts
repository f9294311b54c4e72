/**
 * Degenerate input never hangs and never explodes (issue 15, item 7):
 * bodies that start inside colliders, cloth collapsed to a point, seams of
 * duplicated vertices. Costs are asserted as counts (candidate pairs), never
 * as times.
 */
import { describe, expect, it } from 'vitest';
import {
  DEGENERATE_PAIRS_PER_TRIANGLE,
  MAX_PAIRS_PER_TRIANGLE,
  PAIR_BUDGET,
} from '../src/collision/surface-broad-phase.js';
import {
  Cloth,
  enableCollisions,
  gridMesh,
  icosphere,
  MeshCollider,
  PlaneCollider,
  SoftBody,
  SphereCollider,
  tetBox,
  World,
} from '../src/index.js';
import { edgeStrain } from './helpers/measure.js';

/** Largest particle speed of a body (m/s). */
function maxSpeed(world: World, off: number, n: number): number {
  const v = world.store.v;
  let m = 0;
  for (let i = off; i < off + n; i++) m = Math.max(m, Math.hypot(v[3 * i], v[3 * i + 1], v[3 * i + 2]));
  return m;
}

/** Steps the world and returns the body's largest particle speed over those steps (m/s). */
function fastestOver(world: World, body: { offset: number; count: number }, steps: number): number {
  let fastest = 0;
  for (let s = 0; s < steps; s++) {
    world.step();
    fastest = Math.max(fastest, maxSpeed(world, body.offset, body.count));
  }
  return fastest;
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
      const fastest = fastestOver(world, cloth, 600);
      expect(world.stats.speedClamps).toBe(0);
      // pushed out as a position change: nothing is thrown (main threw it at the 200 m/s limit)
      expect(fastest).toBeLessThan(5);
      const x = world.store.x;
      for (let i = cloth.offset; i < cloth.offset + cloth.count; i++)
        expect(Math.hypot(x[3 * i], x[3 * i + 1], x[3 * i + 2])).toBeGreaterThan(0.5);
      if (width < 1) expect(maxSpeed(world, cloth.offset, cloth.count)).toBeLessThan(1e-3);
    }
  });

  it('a cloth started far inside the solid of a hollow mesh collider is moved into its free space whole, in one bounded step', () => {
    // collision-barrel's cloth moved 10 m sideways (issue 21 fuzz class (a)): before, the body's move was
    // not found (doubling stepped over the barrel's inside) and every particle was pushed to its own
    // nearest wall point, crushing the cloth into a line of ~4 M candidate pairs (45 s for one step)
    const world = new World({ dt: 1 / 60, substeps: 10 });
    const mesh = gridMesh({ width: 0.25, height: 0.73, cols: 22, rows: 62 });
    const pos = mesh.positions;
    for (let i = 0; i < pos.length; i += 3) {
      const [px, , pz] = [pos[i], pos[i + 1], pos[i + 2]];
      // rotate 90° about y, then 10 m along x, 0.25 m down (the mutated scene's transform)
      pos[i] = pz + 10;
      pos[i + 1] -= 0.25;
      pos[i + 2] = -px;
    }
    const cloth = new Cloth(world, { mesh, density: 0.2 });
    const barrel = icosphere(1, 3);
    const bp = barrel.positions;
    for (let i = 0; i < bp.length; i += 3) {
      bp[i] *= 0.45;
      bp[i + 1] *= 0.45;
      bp[i + 2] *= 0.5;
    }
    world.addCollider(new MeshCollider({ mesh: barrel, inside: true, resolution: 48, margin: 0.004 }));
    const sc = enableCollisions(world, { thickness: 0.003 }).add(cloth).surfaces;
    const rest = Array.from(world.store.x.subarray(3 * cloth.offset, 3 * (cloth.offset + cloth.count)));
    world.step();
    // a linear number of candidate pairs (the crushed cloth: ~3,000 per vertex)
    expect(sc.stats.vertexTriangleCandidates + sc.stats.edgeEdgeCandidates).toBeLessThan(10 * cloth.count);
    const x = world.store.x;
    let worst = 0;
    for (let i = 0; i < cloth.count; i++) {
      const g = 3 * (cloth.offset + i);
      expect(Number.isFinite(x[g] + x[g + 1] + x[g + 2])).toBe(true);
      // inside the barrel (its free space), up to the contact margin
      expect(Math.hypot(x[g] / 0.45, x[g + 1] / 0.45, x[g + 2] / 0.5)).toBeLessThan(1.01);
      if (i > 0) {
        // moved whole: the distance to the first vertex kept
        const d = Math.hypot(
          x[g] - x[3 * cloth.offset],
          x[g + 1] - x[3 * cloth.offset + 1],
          x[g + 2] - x[3 * cloth.offset + 2],
        );
        const d0 = Math.hypot(rest[3 * i] - rest[0], rest[3 * i + 1] - rest[1], rest[3 * i + 2] - rest[2]);
        worst = Math.max(worst, Math.abs(d - d0) / d0);
      }
    }
    // (9.5 %: the vertices the move leaves within one substep's depenetration of the wall are pushed out on
    // their own; crushed, as before, every distance would be ~0: 100 %)
    expect(worst).toBeLessThan(0.15);
    expect(world.stats.speedClamps).toBe(0);
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
    const fastest = fastestOver(world, body, 300);
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

/**
 * A square n × n cloth (0.2 kg/m²) whose vertices `crush` has moved (x and p
 * of store particle i), over a floor plane, with surface contacts 1 cm thick.
 */
function crushedCloth(
  substeps: number,
  size: number,
  n: number,
  crush: (x: Float64Array, p: Float64Array, i: number) => void,
) {
  const world = new World({ dt: 1 / 60, substeps });
  const cloth = new Cloth(world, {
    mesh: gridMesh({ width: size, height: size, cols: n, rows: n }),
    density: 0.2,
  });
  const { x, p } = world.store;
  for (let i = cloth.offset; i < cloth.offset + cloth.count; i++) crush(x, p, i);
  world.addCollider(new PlaneCollider({}));
  const sc = enableCollisions(world, { thickness: 0.01 }).add(cloth).surfaces;
  return { world, cloth, x, sc };
}

describe('self collision of degenerate cloth: bounded work', () => {
  it('a cloth collapsed to one point is put back into its rest shape, with no all-pairs broad phase, and carries on', () => {
    const n = 6;
    const { world, cloth, x, sc } = crushedCloth(10, 0.5, n, (x, p, i) => {
      x.set([0, 1, 0], 3 * i);
      p.set([0, 1, 0], 3 * i);
    });
    world.step();
    // every vertex collapsed, restored once; the broad phase then sees a flat cloth (main: every pair, 2,000+)
    expect(sc.stats.vertexTriangleCandidates + sc.stats.edgeEdgeCandidates).toBeLessThan(2 * n * n);
    expect(sc.stats.frozen).toBe(0);
    expect(sc.stats.restored).toBe(n * n);
    for (let s = 0; s < 90; s++) world.step();
    // back out: on the ground, every edge within 5 % of its rest length
    const rest = cloth.restPositions,
      tri = cloth.triangles;
    let worst = 0;
    for (let t = 0; t < tri.length; t++) {
      worst = Math.max(worst, edgeStrain(x, rest, tri[t], tri[t % 3 === 2 ? t - 2 : t + 1]));
    }
    expect(worst).toBeLessThan(0.05);
    expect(sc.stats.restored).toBe(n * n);
    expect(world.stats.speedClamps).toBe(0);
    expect(world.stats.recoveries).toBe(0);
  });

  it('100 coincident copies of a cloth: the surface broad phase stays within its budgets and the cloths stay sane', () => {
    // uncapped, each of the 9,800 triangles overlaps its 99 copies and theirs of its neighbours
    // (~1,000 triangle pairs each)
    const world = new World({ dt: 1 / 60, substeps: 1 });
    const copies = 100;
    const cloths: Cloth[] = [];
    for (let c = 0; c < copies; c++)
      cloths.push(
        new Cloth(world, { mesh: gridMesh({ width: 0.3, height: 0.3, cols: 8, rows: 8 }), density: 0.2 }),
      );
    world.addCollider(new PlaneCollider({ position: [0, -0.05, 0] }));
    const col = enableCollisions(world, { thickness: 0.01 });
    for (const c of cloths) col.add(c);
    const sc = col.surfaces;
    world.step();
    const nv = sc.topology.vertexCount,
      ne = sc.topology.edgeCount,
      nt = sc.topology.triCount;
    expect(nv).toBe(copies * 64);
    expect(nt).toBe(copies * 98);
    // over the step's budget (PAIR_BUDGET pairs per triangle), every triangle gets at most
    // DEGENERATE_PAIRS_PER_TRIANGLE pairs; a vertex meets the triangles of its owner's pairs, an edge
    // the three edges of each
    expect(sc.stats.overBudget).toBeGreaterThan(0);
    expect(sc.stats.capped).toBeGreaterThan(0.5 * nt);
    expect(sc.stats.vertexTriangleCandidates).toBeLessThanOrEqual(DEGENERATE_PAIRS_PER_TRIANGLE * nv);
    expect(sc.stats.edgeEdgeCandidates).toBeLessThanOrEqual(3 * DEGENERATE_PAIRS_PER_TRIANGLE * ne);
    expect(PAIR_BUDGET).toBeLessThan(MAX_PAIRS_PER_TRIANGLE);
    for (let s = 0; s < 10; s++) world.step();
    // the stack lies on the ground: finite, nothing thrown
    const { x } = world.store;
    let ymin = Infinity,
      ymax = -Infinity;
    for (let i = 0; i < world.store.count; i++) {
      expect(
        Number.isFinite(x[3 * i]) && Number.isFinite(x[3 * i + 1]) && Number.isFinite(x[3 * i + 2]),
      ).toBe(true);
      ymin = Math.min(ymin, x[3 * i + 1]);
      ymax = Math.max(ymax, x[3 * i + 1]);
    }
    // (100 layers of thickness 1 cm pushed apart at one substep: some are pushed through the ground by
    // the layers above, by centimetres, as one substep allows)
    expect(ymin).toBeGreaterThan(-0.2);
    expect(ymax).toBeLessThan(1);
    expect(maxSpeed(world, 0, world.store.count)).toBeLessThan(3);
    expect(world.stats.speedClamps).toBe(0);
  });

  it('a cloth crushed into a ball of 2 % of its size (not collapsed) stays within the budgets and spreads out again', () => {
    // every edge at 2 % of its rest length (the collapse recovery takes 1 %): every triangle overlaps every
    // other (800 triangles, 320,000 triangle pairs uncapped)
    const { world, cloth, x, sc } = crushedCloth(5, 0.6, 21, (x, p, i) => {
      for (let k = 0; k < 3; k++) {
        x[3 * i + k] = (k === 1 ? 0.5 : 0) + 0.02 * x[3 * i + k];
        p[3 * i + k] = x[3 * i + k];
      }
    });
    world.step();
    const nv = sc.topology.vertexCount,
      ne = sc.topology.edgeCount;
    expect(sc.stats.restored).toBe(0);
    expect(sc.stats.overBudget).toBeGreaterThan(0);
    expect(sc.stats.vertexTriangleCandidates).toBeLessThanOrEqual(DEGENERATE_PAIRS_PER_TRIANGLE * nv);
    expect(sc.stats.edgeEdgeCandidates).toBeLessThanOrEqual(3 * DEGENERATE_PAIRS_PER_TRIANGLE * ne);
    for (let s = 0; s < 20; s++) world.step();
    const capped = sc.stats.capped;
    for (let s = 0; s < 20; s++) world.step();
    // out again: spread to over two thirds of its width, on the ground, finite; the budgets no longer bite
    // (it stays tangled, as crushed cloth is, and jitters at a few m/s: nothing is thrown)
    let xmin = Infinity,
      xmax = -Infinity,
      ymin = Infinity;
    for (let i = cloth.offset; i < cloth.offset + cloth.count; i++) {
      expect(
        Number.isFinite(x[3 * i]) && Number.isFinite(x[3 * i + 1]) && Number.isFinite(x[3 * i + 2]),
      ).toBe(true);
      xmin = Math.min(xmin, x[3 * i]);
      xmax = Math.max(xmax, x[3 * i]);
      ymin = Math.min(ymin, x[3 * i + 1]);
    }
    expect(xmax - xmin).toBeGreaterThan(0.4);
    expect(ymin).toBeGreaterThan(-0.01);
    expect(sc.stats.capped).toBe(capped);
    expect(maxSpeed(world, cloth.offset, cloth.count)).toBeLessThan(10);
  });

  it('a seam of duplicated, unwelded vertices costs no impact zones', () => {
    // a hanging grid whose middle column is duplicated: the triangles right of it use the copies
    const N = 20,
      mid = N / 2;
    const g = gridMesh({ width: 1, height: 1, cols: N, rows: N, plane: 'xy' });
    const pos = Array.from(g.positions);
    const copy = new Map<number, number>();
    for (let r = 0; r < N; r++) {
      const v = r * N + mid;
      copy.set(v, pos.length / 3);
      pos.push(g.positions[3 * v], g.positions[3 * v + 1], g.positions[3 * v + 2]);
    }
    const tri = Array.from(g.triangles);
    for (let t = 0; t < tri.length; t += 3) {
      if (!(tri[t] % N > mid || tri[t + 1] % N > mid || tri[t + 2] % N > mid)) continue;
      for (let k = 0; k < 3; k++) tri[t + k] = copy.get(tri[t + k]) ?? tri[t + k];
    }
    for (let i = 1; i < pos.length; i += 3) pos[i] += 1;
    const world = new World({ dt: 1 / 60, substeps: 10 });
    const cloth = new Cloth(world, {
      mesh: { positions: Float64Array.from(pos), triangles: Uint32Array.from(tri) },
      density: 0.2,
    });
    cloth.pin(0);
    cloth.pin(N - 1);
    const sc = enableCollisions(world, { thickness: 0.01 }).add(cloth).surfaces;
    for (let s = 0; s < 10; s++) world.step();
    // touching seam pairs are no crossings: main moved 8,000 vertices with impact zones in these 10 steps,
    // after scanning 80,000 "crossings"
    expect(sc.stats.frozen).toBe(0);
    expect(sc.stats.failsafeCrossings).toBeLessThan(cloth.count);
    for (let i = 0; i < 3 * world.store.count; i++) expect(Number.isFinite(world.store.x[i])).toBe(true);
  });
});
