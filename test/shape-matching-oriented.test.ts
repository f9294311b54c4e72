import { describe, expect, it } from 'vitest';
import { PlaneCollider, World } from '../src/index.js';
import { mat3FromQuat } from '../src/math/mat3.js';
import { quatFromAxisAngle, quatRotate } from '../src/math/quat.js';
import { svd3 } from '../src/math/svd3.js';
import { Lattice } from '../src/shape-matching/lattice.js';
import { OrientedParticles } from '../src/shape-matching/oriented.js';
import { duckMesh, fitParticles } from '../src/shape-matching/shapes.js';
import { rng } from './helpers.js';

/** A horizontal chain of n single particles along +x, the first pinned (position and orientation). */
function cantilever(moments: boolean): { world: World; chain: OrientedParticles } {
  const world = new World({ substeps: 4, iterations: 2, solver: 'pbd', damping: 1 });
  const n = 10;
  const pos = new Float64Array(3 * n);
  for (let j = 0; j < n; j++) pos[3 * j] = 0.1 * j;
  const edges: number[] = [];
  for (let j = 0; j + 1 < n; j++) edges.push(j, j + 1);
  const chain = new OrientedParticles(world, {
    positions: pos,
    masses: 0.05,
    radii: 0.05,
    edges,
    particleMoments: moments,
    collide: false,
  });
  chain.pin(0);
  return { world, chain };
}

/** Condition number σ_max/σ_min of the moment matrix A of a chain group at rest (eq. 25). */
function groupCondition(withMoments: boolean): number {
  const m = 0.05,
    r = 0.05,
    d = 0.1;
  const A = new Float64Array(9);
  // three collinear particles at −d, 0, d about their centre; A_i = (m r²/5) I at rest
  for (const x of [-d, 0, d]) A[0] += m * x * x;
  if (withMoments) for (let k = 0; k < 3; k++) A[4 * k] += 3 * ((m * r * r) / 5);
  const U = new Float64Array(9),
    s = new Float64Array(3),
    V = new Float64Array(9);
  svd3(A, 0, U, 0, s, 0, V, 0);
  return s[0] / Math.abs(s[2]);
}

describe('oriented particles (000 §4.4)', () => {
  it('a chain of single oriented particles holds its shape under gravity; plain shape matching cannot', () => {
    // plain shape matching: a chain group's moment matrix has rank 1, its rotation is undetermined
    expect(groupCondition(false)).toBe(Number.POSITIVE_INFINITY);
    // the particles' own moment matrices make it well conditioned
    expect(groupCondition(true)).toBeLessThan(20);
    const tip = (moments: boolean) => {
      const { world, chain } = cantilever(moments);
      let worst = 0;
      for (let s = 0; s < 180; s++) {
        world.step();
        const x = chain.positions();
        worst = Math.max(worst, -x[3 * 9 + 1]);
      }
      expect(world.stats.recoveries + world.stats.speedClamps).toBe(0);
      return worst;
    };
    const oriented = tip(true),
      plain = tip(false);
    // chain length 0.9 m: the oriented chain sags by a few centimetres, the plain one swings down
    expect(oriented).toBeLessThan(0.35);
    expect(plain).toBeGreaterThan(0.6);
  });

  it('prediction and update integrate a constant angular velocity exactly (eqs. 27, 30)', () => {
    const world = new World({ gravity: [0, 0, 0], substeps: 5 });
    const body = new OrientedParticles(world, {
      positions: Float64Array.from([0, 0, 0]),
      masses: 1,
      radii: [0.1, 0.05, 0.02],
      edges: [],
      collide: false,
    });
    const w = [0.3, -1.2, 2.0];
    body.omega.set(w);
    const steps = 30;
    for (let s = 0; s < steps; s++) world.step();
    // a lone ellipsoid keeps its orientation from shape matching (its group is itself), so it spins freely
    const T = steps * world.dt;
    const wl = Math.hypot(...w);
    const q = new Float64Array(4);
    quatFromAxisAngle(q, 0, w[0], w[1], w[2], wl * T);
    const dot = Math.abs(q[0] * body.q[0] + q[1] * body.q[1] + q[2] * body.q[2] + q[3] * body.q[3]);
    expect(dot).toBeCloseTo(1, 8);
    // (the group extracts its rotation to 1e-9 rad per projection, hence ~1e-8 rad/s)
    for (let k = 0; k < 3; k++) expect(body.omega[k]).toBeCloseTo(w[k], 6);
  });

  it('takes the shorter rotation (−r when r_w < 0) and zeroes ω below the small-angle threshold', () => {
    const world = new World({ gravity: [0, 0, 0], substeps: 1 });
    const body = new OrientedParticles(world, {
      positions: Float64Array.from([0, 0, 0]),
      masses: 1,
      radii: 0.1,
      edges: [],
      collide: false,
    });
    // the World's orientation stages (core/orientation-stages.ts) integrate the store's channels
    const update = world.pipeline.find('orientations.update')!;
    const predict = world.pipeline.find('orientations.predict')!;
    const ctx = world.makeContext(0.01);
    // q_p = −q is the same orientation: the update must give ω = 0, not a full turn of 2π/h
    body.q.set([0, 0, 0, 1]);
    body.qp.set([0, 0, 0, -1]);
    update.run(ctx, world.scheduler);
    expect(Array.from(body.omega)).toEqual([0, 0, 0]);
    // a small rotation the long way round (r_w < 0) gives the short ω
    quatFromAxisAngle(body.qp, 0, 0, 0, 1, 0.02);
    for (let k = 0; k < 4; k++) body.qp[k] = -body.qp[k];
    body.q.set([0, 0, 0, 1]);
    update.run(ctx, world.scheduler);
    expect(body.omega[2]).toBeCloseTo(0.02 / 0.01, 9);
    // below ε: ω = 0 and the prediction keeps q
    body.omega.set([1e-12, 0, 0]);
    body.q.set([0, 0, 0, 1]);
    predict.run(ctx, world.scheduler);
    expect(Array.from(body.qp)).toEqual([0, 0, 0, 1]);
  });

  it('an ellipsoid rests on a plane at its support extent along the normal', () => {
    const world = new World({ substeps: 8, iterations: 2, solver: 'pbd', damping: 2 });
    world.addCollider(new PlaneCollider({ margin: 0 }));
    const q = new Float64Array(4);
    quatFromAxisAngle(q, 0, 0, 0, 1, Math.PI / 2); // long axis a (x) turned to vertical
    const body = new OrientedParticles(world, {
      positions: Float64Array.from([0, 0.5, 0]),
      masses: 1,
      radii: [0.2, 0.05, 0.1],
      orientations: q,
      edges: [],
    });
    for (let s = 0; s < 120; s++) world.step();
    // a lone particle keeps its orientation, so it stands on its long axis: centre at a = 0.2
    expect(body.positions()[1]).toBeCloseTo(0.2, 3);
  });

  it('ellipsoids fitted to a duck cover it more accurately than as many spheres (Figure 19)', () => {
    const mesh = duckMesh(0.2, 3);
    const probe = Lattice.fromMesh(mesh, 0.012);
    const inside = new Set(Array.from(probe.particleNode));
    const { nx, ny, nz, origin, spacing } = probe;
    const error = (spheres: boolean) => {
      const f = fitParticles(mesh, 24, spheres);
      const R = new Float64Array(9);
      const rot: Float64Array[] = [];
      for (let c = 0; c < 24; c++) {
        mat3FromQuat(R, 0, f.orientations, 4 * c);
        rot.push(R.slice());
      }
      // symmetric difference between the solid and the union of the particles, on a fine grid
      let wrong = 0,
        solid = 0;
      for (let node = 0; node < nx * ny * nz; node++) {
        const i = node % nx,
          j = Math.floor(node / nx) % ny,
          k = Math.floor(node / (nx * ny));
        const p = [origin[0] + i * spacing, origin[1] + j * spacing, origin[2] + k * spacing];
        let covered = false;
        for (let c = 0; c < 24 && !covered; c++) {
          const d = [p[0] - f.positions[3 * c], p[1] - f.positions[3 * c + 1], p[2] - f.positions[3 * c + 2]];
          let e = 0;
          for (let a = 0; a < 3; a++) {
            const l = rot[c][a] * d[0] + rot[c][3 + a] * d[1] + rot[c][6 + a] * d[2];
            e += (l / f.radii[3 * c + a]) ** 2;
          }
          covered = e <= 1;
        }
        const isIn = inside.has(node);
        if (isIn) solid++;
        if (isIn !== covered) wrong++;
      }
      return wrong / solid;
    };
    const e = error(false),
      s = error(true);
    expect(e).toBeLessThan(0.75 * s);
  });

  it('linear blend skinning carries the render mesh rigidly with rigidly moved bones', () => {
    const r = rng(41);
    const world = new World({ gravity: [0, 0, 0] });
    const positions = Float64Array.from({ length: 18 }, () => r() - 0.5);
    const skinPos = Float64Array.from({ length: 60 }, () => r() - 0.5);
    const tris = Uint32Array.from([0, 1, 2]);
    const body = new OrientedParticles(world, {
      positions,
      masses: 1,
      radii: 0.1,
      edges: [0, 1, 1, 2, 2, 3, 3, 4, 4, 5],
      skin: { positions: skinPos, triangles: tris, influences: 3 },
      collide: false,
    });
    const q = new Float64Array(4);
    quatFromAxisAngle(q, 0, 1, -2, 0.5, 1.1);
    const x = world.store.x;
    const v = new Float64Array(3);
    for (let j = 0; j < 6; j++) {
      quatRotate(v, 0, q, 0, positions[3 * j], positions[3 * j + 1], positions[3 * j + 2]);
      x.set([v[0] + 1, v[1] + 2, v[2] + 3], 3 * (body.offset + j));
      body.q.set(q, 4 * j);
    }
    expect(body.hasRenderMesh).toBe(true);
    expect(body.renderTriangles()).toEqual(tris);
    const rp = body.renderPositions();
    expect(rp.length).toBe(skinPos.length);
    for (let k = 0; k < 20; k++) {
      quatRotate(v, 0, q, 0, skinPos[3 * k], skinPos[3 * k + 1], skinPos[3 * k + 2]);
      expect(rp[3 * k]).toBeCloseTo(v[0] + 1, 12);
      expect(rp[3 * k + 1]).toBeCloseTo(v[1] + 2, 12);
      expect(rp[3 * k + 2]).toBeCloseTo(v[2] + 3, 12);
    }
  });
});
