import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { icosphere, loadScene, PlaneCollider, World } from '../src/index.js';
import { mat3FromQuat } from '../src/math/mat3.js';
import { quatFromAxisAngle } from '../src/math/quat.js';
import {
  adaptiveLatticeBody,
  latticeBody,
  rigidCluster,
  ShapeMatchingBody,
  surfaceBody,
} from '../src/shape-matching/bodies.js';
import { ShapeMatchingCloth } from '../src/shape-matching/cloth.js';
import { Lattice, LatticeSummation } from '../src/shape-matching/lattice.js';
import { OrientedParticles } from '../src/shape-matching/oriented.js';
import { NaiveSummation } from '../src/shape-matching/summation.js';
import { rng } from './helpers.js';

/** Largest relative change of any pairwise distance between a and b. */
function maxPairwiseChange(a: Float64Array, b: Float64Array): number {
  const n = a.length / 3;
  let m = 0;
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      const da = Math.hypot(a[3 * i] - a[3 * j], a[3 * i + 1] - a[3 * j + 1], a[3 * i + 2] - a[3 * j + 2]);
      const db = Math.hypot(b[3 * i] - b[3 * j], b[3 * i + 1] - b[3 * j + 1], b[3 * i + 2] - b[3 * j + 2]);
      if (da > 0) m = Math.max(m, Math.abs(db - da) / da);
    }
  return m;
}

/** Projects the body's shape matching once from p = rest deformed by `deform`; returns p before and after. */
function projectOnce(world: World, body: ShapeMatchingBody, solver: 'pbd' | 'xpbd' = 'pbd') {
  const ctx = { ...world.makeContext(1 / 60), solver };
  body.matching.beginStep(ctx);
  const before = world.store.p.slice(3 * body.offset, 3 * (body.offset + body.count));
  body.matching.project(ctx);
  const after = world.store.p.slice(3 * body.offset, 3 * (body.offset + body.count));
  return { before, after };
}

function deform(world: World, body: ShapeMatchingBody, f: (x: number[], j: number) => number[]): void {
  const { p, x } = world.store;
  for (let j = 0; j < body.count; j++) {
    const i3 = 3 * (body.offset + j);
    const q = f([p[i3], p[i3 + 1], p[i3 + 2]], j);
    p.set(q, i3);
    x.set(q, i3);
  }
}

describe('goal positions (000 §4.1)', () => {
  it('α = 1 on one region makes the body rigid: every pairwise distance kept within 1e-9', () => {
    const r = rng(31);
    const shapes: [string, number[]][] = [
      ['random cloud', Array.from({ length: 60 }, () => r() - 0.5)],
      ['one particle', [0.3, 0.2, 0.1]],
      ['two particles', [0, 0, 0, 1, 0.5, 0]],
      ['collinear', [0, 0, 0, 0.1, 0.2, 0.3, 0.2, 0.4, 0.6, 0.5, 1, 1.5]],
      ['coplanar', [0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0.4, 0.7, 0]],
    ];
    for (const [, pts] of shapes) {
      const world = new World({ gravity: [0, 0, 0] });
      const body = rigidCluster(world, { positions: Float64Array.from(pts), masses: 1 });
      const rest = body.restPositions;
      for (const mode of ['squash', 'mirror', 'collapse'] as const) {
        deform(world, body, (q, j) => {
          if (mode === 'mirror') return [-q[0] + 3, q[1], q[2]]; // reflected: A_r has det < 0
          if (mode === 'collapse') return [0.5, 0.5, 0.5 + 1e-9 * j]; // A_r ≈ 0
          return [q[0] * 1.7 + 0.3 * q[1], q[1] * 0.2 + (r() - 0.5) * 0.3, q[2] + 2];
        });
        const { after } = projectOnce(world, body);
        for (const v of after) expect(Number.isFinite(v)).toBe(true);
        expect(maxPairwiseChange(rest, after)).toBeLessThan(1e-9);
      }
    }
  });

  it('a rigidly moved body is its own goal: no correction', () => {
    const world = new World({ gravity: [0, 0, 0] });
    const r = rng(32);
    const body = rigidCluster(world, { positions: Float64Array.from({ length: 30 }, () => r()), masses: 2 });
    const q = new Float64Array(4),
      R = new Float64Array(9);
    quatFromAxisAngle(q, 0, 1, 2, 3, 2.5);
    mat3FromQuat(R, 0, q, 0);
    deform(world, body, (v) => [
      R[0] * v[0] + R[1] * v[1] + R[2] * v[2] + 5,
      R[3] * v[0] + R[4] * v[1] + R[5] * v[2] - 1,
      R[6] * v[0] + R[7] * v[1] + R[8] * v[2],
    ]);
    const { before, after } = projectOnce(world, body);
    for (let k = 0; k < before.length; k++) expect(after[k]).toBeCloseTo(before[k], 10);
  });

  it('conserves linear and angular momentum: one region, lattice and octree regions, surface ω-rings; PBD and XPBD', () => {
    const r = rng(33);
    const builders: [string, (w: World) => ShapeMatchingBody][] = [
      [
        'one region, uneven masses',
        (w) =>
          rigidCluster(w, {
            positions: Float64Array.from({ length: 45 }, () => r()),
            masses: Array.from({ length: 15 }, () => 0.5 + r()),
            stiffness: 0.6,
            compliance: 1e-3,
          }),
      ],
      [
        'lattice w = 1',
        (w) =>
          latticeBody(w, {
            mesh: icosphere(0.3, 2),
            spacing: 0.1,
            regionHalfWidth: 1,
            stiffness: 0.7,
            compliance: 1e-4,
          }),
      ],
      [
        'adaptive lattice (octree regions of 3 cells, particles on two levels)',
        (w) =>
          adaptiveLatticeBody(w, {
            mesh: icosphere(0.3, 2),
            minCell: 0.06,
            maxCell: 0.12,
            regionScale: 3,
            stiffness: 0.6,
            compliance: 1e-4,
          }),
      ],
      [
        'surface 2-rings',
        (w) => surfaceBody(w, { mesh: icosphere(0.3, 2), rings: 2, stiffness: 0.5, compliance: 1e-4 }),
      ],
    ];
    for (const [, build] of builders) {
      for (const solver of ['pbd', 'xpbd'] as const) {
        const world = new World({ gravity: [0, 0, 0] });
        const body = build(world);
        deform(world, body, (q) => [
          q[0] + 0.1 * Math.sin(5 * q[1]) + (r() - 0.5) * 0.05,
          q[1] * 1.3,
          q[2] - 0.2 * q[0],
        ]);
        const { mass } = world.store;
        // two projections: the second also exercises the XPBD multipliers
        const ctx = { ...world.makeContext(1 / 60), solver };
        body.matching.beginStep(ctx);
        for (let pass = 0; pass < 2; pass++) {
          const before = world.store.p.slice(0, 3 * world.store.count);
          body.matching.project(ctx);
          const p = world.store.p;
          const lin = [0, 0, 0],
            ang = [0, 0, 0];
          let scale = 0;
          for (let i = body.offset; i < body.offset + body.count; i++) {
            const m = mass[i];
            const b = [before[3 * i], before[3 * i + 1], before[3 * i + 2]];
            const d = [p[3 * i] - b[0], p[3 * i + 1] - b[1], p[3 * i + 2] - b[2]];
            for (let k = 0; k < 3; k++) lin[k] += m * d[k];
            ang[0] += m * (b[1] * d[2] - b[2] * d[1]);
            ang[1] += m * (b[2] * d[0] - b[0] * d[2]);
            ang[2] += m * (b[0] * d[1] - b[1] * d[0]);
            scale += m * Math.hypot(...d) * (1 + Math.hypot(...b));
          }
          // (one XPBD region reaches its compliant solution in one pass: nothing moves in the second)
          if (pass === 0) expect(scale).toBeGreaterThan(0);
          if (scale === 0) continue;
          expect(Math.hypot(...lin) / scale).toBeLessThan(1e-12);
          if (solver === 'pbd' || pass === 0) expect(Math.hypot(...ang) / scale).toBeLessThan(1e-9);
        }
      }
    }
  });

  it('combines with other constraints: a shape-matched ball rests on a plane without sinking', () => {
    const world = new World({ substeps: 4, iterations: 2 });
    world.addCollider(new PlaneCollider({ margin: 0 }));
    const mesh = icosphere(0.2, 2);
    for (let k = 1; k < mesh.positions.length; k += 3) mesh.positions[k] += 0.5;
    const body = latticeBody(world, { mesh, spacing: 0.08, stiffness: 0.5, compliance: 1e-5 });
    for (let s = 0; s < 180; s++) world.step();
    let lowest = Infinity;
    const x = body.positions();
    for (let j = 0; j < body.count; j++)
      lowest = Math.min(lowest, x[3 * j + 1] - world.store.radius[body.offset + j]);
    expect(lowest).toBeGreaterThan(-0.01);
    expect(Math.hypot(...Array.from(body.velocities().subarray(0, 3)))).toBeLessThan(0.05);
    expect(world.stats.recoveries + world.stats.speedClamps).toBe(0);
  });
});

describe('region-based shape matching (000 §4.2, Figure 16)', () => {
  /** RMS distance of the body from its best rigid placement (how much it deforms), after `steps` steps. */
  function deviationFromRigid(body: ShapeMatchingBody): number {
    const tmp = new World({ gravity: [0, 0, 0] });
    const fit = rigidCluster(tmp, { positions: body.restPositions, masses: 1 });
    const x = body.positions();
    tmp.store.p.set(x, 0);
    const ctx = { ...tmp.makeContext(1 / 60), solver: 'pbd' as const };
    fit.matching.beginStep(ctx);
    fit.matching.project(ctx);
    let s = 0;
    for (let k = 0; k < x.length; k++) s += (tmp.store.p[k] - x[k]) ** 2;
    return Math.sqrt(s / body.count);
  }

  it('stiffness grows with the region size: Figure 16 scene, one edge pulled away', () => {
    const file = 'shape-matching-regions.json';
    const inst = loadScene(readFileSync(new URL(`../scenes/${file}`, import.meta.url), 'utf8'), { file });
    for (let s = 0; s < 150; s++) inst.world.step();
    const dev = (inst.bodies as ShapeMatchingBody[]).map(deviationFromRigid);
    // w = 1, 2, 3: the slabs deform less and less (measured: about 0.066, 0.027, 0.011 m)
    expect(dev[1]).toBeLessThan(0.6 * dev[0]);
    expect(dev[2]).toBeLessThan(0.8 * dev[1]);
    expect(inst.world.stats.recoveries + inst.world.stats.speedClamps).toBe(0);
  });

  it('adaptive lattice: wider octree regions are stiffer (region widths 1.5, 3, 6 cells)', () => {
    // a ball bent out of shape, then five shape-matching projections (no dynamics): the larger the
    // regions, the closer their goals are to one rigid motion and the less deformation is left
    const dev = [1.5, 3, 6].map((regionScale) => {
      const world = new World({ gravity: [0, 0, 0] });
      const body = adaptiveLatticeBody(world, {
        mesh: icosphere(0.3, 2),
        minCell: 0.05,
        maxCell: 0.1,
        regionScale,
        stiffness: 0.5,
      });
      deform(world, body, (q) => [q[0], q[1] + 0.4 * q[0] * q[0], q[2] + 0.2 * Math.sin(4 * q[1])]);
      // one projection per substep as far as k′ is concerned: each of the five applies k = 0.5
      const ctx = { ...world.makeContext(1 / 60), solver: 'pbd' as const, passes: 1 };
      body.matching.beginStep(ctx);
      for (let k = 0; k < 5; k++) body.matching.project(ctx);
      world.store.x.set(world.store.p.subarray(0, 3 * world.store.count));
      return deviationFromRigid(body);
    });
    // measured: about 0.043, 0.020, 0.0045 m
    expect(dev[1]).toBeLessThan(0.6 * dev[0]);
    expect(dev[2]).toBeLessThan(0.6 * dev[1]);
  });

  it('modified masses m̃ = m/|ℜ| and region masses M̃ = Σ m̃', () => {
    const world = new World();
    const lattice = Lattice.fromInside([0, 0, 0], [0.4, 0.3, 0.2], 0.1, () => true);
    const regions = new LatticeSummation(lattice, 1);
    const body = new ShapeMatchingBody(world, { positions: lattice.positions(), masses: 2, regions });
    const naive = NaiveSummation.of(regions);
    for (let j = 0; j < body.count; j++) {
      const count = naive.particleStart[j + 1] - naive.particleStart[j];
      expect(body.matching.modifiedMass[j]).toBeCloseTo(2 / count, 14);
    }
    for (let r = 0; r < regions.regions; r++) {
      let M = 0;
      for (const j of naive.members(r)) M += body.matching.modifiedMass[j];
      expect(body.matching.regionMass[r]).toBeCloseTo(M, 13);
    }
  });
});

describe('shape matching: checkpoints and bad input', () => {
  it('a saved state resumes bit for bit (region rotations, plastic state, orientations)', () => {
    for (const file of ['shape-matching-plastic.json', 'shape-matching-plants.json']) {
      const inst = loadScene(readFileSync(new URL(`../scenes/${file}`, import.meta.url), 'utf8'), { file });
      const w = inst.world;
      for (let s = 0; s < 20; s++) w.step();
      const saved = w.saveState();
      for (let s = 0; s < 20; s++) w.step();
      const a = w.store.x.slice(0, 3 * w.store.count);
      w.loadState(saved);
      for (let s = 0; s < 20; s++) w.step();
      expect(Array.from(w.store.x.subarray(0, 3 * w.store.count))).toEqual(Array.from(a));
    }
  });

  it('names the body and the fix for bad input', () => {
    const world = new World();
    const open = {
      positions: Float64Array.from([0, 0, 0, 1, 0, 0, 0, 1, 0]),
      triangles: Uint32Array.from([0, 1, 2]),
    };
    expect(() => latticeBody(world, { mesh: open, spacing: 0.1, name: 'lid' })).toThrow(
      /lattice body 'lid'\.mesh.*not closed/,
    );
    const inward = icosphere(0.2, 1);
    for (let t = 0; t < inward.triangles.length; t += 3) {
      [inward.triangles[t + 1], inward.triangles[t + 2]] = [inward.triangles[t + 2], inward.triangles[t + 1]];
    }
    expect(() => surfaceBody(world, { mesh: inward, name: 'cap' })).toThrow(
      /surface body 'cap'\.mesh.*negative volume/,
    );
    expect(() =>
      latticeBody(world, {
        mesh: icosphere(0.2, 1),
        spacing: 0.1,
        plasticity: { yield: -1, creep: 1, max: 1 },
      }),
    ).toThrow(/plasticity\.yield.*≥ 0/);
    expect(
      () =>
        new ShapeMatchingBody(world, {
          positions: Float64Array.from([0, 0, 0]),
          masses: 1,
          regions: NaiveSummation.fromLists(1, [[3]]),
        }),
    ).toThrow(/particle 3/);
    expect(
      () =>
        new ShapeMatchingBody(world, {
          positions: Float64Array.from([0, 0, 0, 1, 1, 1]),
          masses: 1,
          regions: NaiveSummation.fromLists(2, [[0]]),
        }),
    ).toThrow(/belongs to no region/);
    expect(() =>
      rigidCluster(world, { positions: Float64Array.from([0, Number.NaN, 0]), masses: 1 }),
    ).toThrow(/non-finite/);
    expect(() =>
      rigidCluster(world, { positions: Float64Array.from([0, 0, 0]), masses: 1, stiffness: 2 }),
    ).toThrow(/stiffness must lie in \[0, 1\]/);
  });
});

describe('shape matching: degenerate input never gives NaN', () => {
  it('collapsed, mirrored and flattened bodies with huge time steps stay finite', () => {
    const builders: ((w: World) => { offset: number; count: number })[] = [
      (w) =>
        latticeBody(w, {
          mesh: icosphere(0.2, 2),
          spacing: 0.08,
          plasticity: { yield: 0.01, creep: 100, max: 1 },
        }),
      (w) => surfaceBody(w, { mesh: icosphere(0.2, 2), volume: { alpha: 0.3 } }),
      (w) => rigidCluster(w, { positions: Float64Array.from([0, 0, 0, 1, 0, 0, 0, 1, 0]), masses: 1 }),
      (w) =>
        new ShapeMatchingCloth(w, {
          grid: { width: 1, height: 1, cols: 9, rows: 9 },
          levels: 2,
          fibers: true,
        }),
      (w) =>
        new OrientedParticles(w, {
          positions: Float64Array.from([0, 0, 0, 0.1, 0, 0, 0.2, 0, 0]),
          masses: 1,
          radii: [0.05, 0.02, 0.01],
          edges: [0, 1, 1, 2],
        }),
    ];
    for (const build of builders) {
      for (const mode of ['collapse', 'mirror', 'flatten'] as const) {
        const world = new World({ substeps: 1, iterations: 3 });
        world.addCollider(new PlaneCollider({ position: [0, -1, 0] }));
        const b = build(world);
        const { x, v } = world.store;
        for (let j = b.offset; j < b.offset + b.count; j++) {
          if (mode === 'collapse') x.set([0.01 * (j % 2), 0, 0], 3 * j);
          else if (mode === 'mirror') x[3 * j] = -x[3 * j];
          else x[3 * j + 1] = 0;
          v[3 * j + 1] = 50 * ((j % 3) - 1);
        }
        for (let s = 0; s < 5; s++) world.step(0.5);
        for (let k = 0; k < 3 * world.store.count; k++) expect(Number.isFinite(world.store.x[k])).toBe(true);
        expect(world.stats.recoveries).toBe(0);
      }
    }
  });
});
