import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  enableCollisions,
  icosphere,
  loadScene,
  ParticleContacts,
  PlaneCollider,
  SphereCollider,
  World,
} from '../src/index.js';
import { det3 } from '../src/math/mat3.js';
import { spectralNorm3 } from '../src/math/polar.js';
import {
  latticeBody,
  rigidCluster,
  type ShapeMatchingBody,
  surfaceBody,
} from '../src/shape-matching/bodies.js';
import { type ClothLevel, ShapeMatchingCloth } from '../src/shape-matching/cloth.js';
import { boxMesh } from '../src/shape-matching/shapes.js';
import { finiteDifferenceGradient, relativeError, rng } from './helpers.js';

function enclosed(p: Float64Array, off: number, tri: Uint32Array): number {
  let v = 0;
  for (let t = 0; t < tri.length; t += 3) {
    const a = 3 * (off + tri[t]),
      b = 3 * (off + tri[t + 1]),
      c = 3 * (off + tri[t + 2]);
    v +=
      (p[a + 1] * p[b + 2] - p[a + 2] * p[b + 1]) * p[c] +
      (p[a + 2] * p[b] - p[a] * p[b + 2]) * p[c + 1] +
      (p[a] * p[b + 1] - p[a + 1] * p[b]) * p[c + 2];
  }
  return v / 6;
}

/**
 * Moves each particle of the body by up to ±amplitude/2 per axis and gives it a random
 * velocity (±0.5 m/s per axis), from r; the predicted positions start at the moved ones.
 */
function jostle(
  world: World,
  body: { offset: number; count: number },
  r: () => number,
  amplitude: number,
): void {
  const { x, v, p } = world.store;
  for (let k = 0; k < 3 * body.count; k++) {
    x[3 * body.offset + k] += amplitude * (r() - 0.5);
    v[3 * body.offset + k] = r() - 0.5;
  }
  p.set(x);
}

describe('volume conservation of surface-only shape matching (000 §4.5.1)', () => {
  it('Figure 20: squeezed spheres lose under 2 % with global or local conservation, much more without', () => {
    const file = 'shape-matching-squeeze.json';
    const inst = loadScene(readFileSync(new URL(`../scenes/${file}`, import.meta.url), 'utf8'), { file });
    const bodies = inst.bodies as ShapeMatchingBody[];
    const v0 = bodies.map((b) => b.currentVolume());
    const loss = bodies.map(() => 0);
    const w = inst.world;
    for (let s = 0; s < Math.round(3.5 / w.dt); s++) {
      w.step();
      bodies.forEach((b, k) => {
        loss[k] = Math.max(loss[k], 1 - b.currentVolume() / v0[k]);
      });
    }
    // global, local + distance constraints, local, none (paper: 0.6 %, 0.7 %, 0.7 %, 40 %)
    console.log(`Figure 20 largest volume loss: ${loss.map((l) => `${(100 * l).toFixed(2)} %`).join(', ')}`);
    expect(loss[0]).toBeLessThan(0.02);
    expect(loss[1]).toBeLessThan(0.02);
    expect(loss[2]).toBeLessThan(0.02);
    expect(loss[3]).toBeGreaterThan(0.15);
    expect(w.stats.recoveries + w.stats.speedClamps).toBe(0);
  });

  it('the volume gradient is ∂V/∂x (eq. 12) and the velocity correction leaves dV/dt = 0', () => {
    const r = rng(51);
    const world = new World({ gravity: [0, 0, 0] });
    const mesh = icosphere(0.3, 2);
    const body = surfaceBody(world, { mesh, rings: 1, volume: { alpha: 0.5 } });
    const tri = mesh.triangles;
    const { x, v, p } = world.store;
    jostle(world, body, r, 0.02);
    const ctx = world.makeContext(1 / 60);
    // one projection from the deformed state: C = V − V0 is removed entirely (stiffness 1)
    body.matching.beginStep(ctx);
    body.volume!.project(ctx);
    expect(enclosed(p, body.offset, tri) / body.volume!.restVolume).toBeCloseTo(1, 4);
    // eq. 12 and its gradient against the enclosed volume and its finite differences
    const vol = body.volume!;
    const probe = Float64Array.from(x);
    expect(vol.gradient(probe)).toBeCloseTo(enclosed(probe, body.offset, tri), 14);
    const all = Array.from({ length: body.count }, (_, j) => body.offset + j);
    const fd = finiteDifferenceGradient((q) => enclosed(q, body.offset, tri), probe, all, 1e-6);
    expect(relativeError(vol.grad, fd)).toBeLessThan(1e-7);
    body.volume!.endStep(ctx);
    let dVdt = 0;
    const eps = 1e-7;
    const moved = Float64Array.from(x);
    for (let k = 0; k < 3 * body.count; k++) moved[3 * body.offset + k] += eps * v[3 * body.offset + k];
    dVdt = (enclosed(moved, body.offset, tri) - enclosed(x, body.offset, tri)) / eps;
    let speed = 0;
    for (let k = 0; k < 3 * body.count; k++) speed += Math.abs(v[3 * body.offset + k]);
    expect(Math.abs(dVdt) / (speed * 0.3 * 0.3)).toBeLessThan(1e-6);
  });
});

describe('volume conservation and momentum', () => {
  it('with local weights and particles held in contact, the corrections conserve linear momentum', () => {
    const r = rng(52);
    const world = new World({ gravity: [0, 0, 0] });
    const body = surfaceBody(world, { mesh: icosphere(0.3, 2), rings: 1, volume: { alpha: 0 } });
    const { v, p, mass } = world.store;
    jostle(world, body, r, 0.03);
    // a deformation from shape matching gives the local (non-uniform) weights
    const ctx = world.makeContext(1 / 60);
    body.matching.beginStep(ctx);
    body.matching.project(ctx);
    const momentum = (a: Float64Array) => {
      const m = [0, 0, 0];
      for (let j = 0; j < body.count; j++)
        for (let d = 0; d < 3; d++) m[d] += mass[body.offset + j] * a[3 * (body.offset + j) + d];
      return m;
    };
    const before = momentum(p);
    body.volume!.project(ctx);
    const after = momentum(p);
    const scale = body.count * mass[body.offset] * 0.3;
    for (let d = 0; d < 3; d++) expect(Math.abs(after[d] - before[d]) / scale).toBeLessThan(1e-12);
    const vBefore = momentum(v);
    body.volume!.endStep(ctx);
    const vAfter = momentum(v);
    for (let d = 0; d < 3; d++) expect(Math.abs(vAfter[d] - vBefore[d]) / scale).toBeLessThan(1e-12);
  });
});

describe('plastic deformation (000 §4.5.2)', () => {
  /** Presses a sphere into a lattice block (9 cm below its top particles) and lifts it; returns the dent left in the top face (m). */
  function dent(plastic: boolean): { dent: number; body: ShapeMatchingBody } {
    const world = new World({ substeps: 3, iterations: 2, solver: 'xpbd', gravity: [0, 0, 0], damping: 2 });
    world.addCollider(new PlaneCollider({ position: [0, -0.1, 0], margin: 0 }));
    const body = latticeBody(world, {
      mesh: boxMesh([0.6, 0.2, 0.6], 0.05),
      spacing: 0.06,
      compliance: 1e-5,
      plasticity: plastic ? { yield: 0.05, creep: 30, max: 0.5 } : undefined,
    });
    let top = -Infinity;
    for (let j = 0; j < body.count; j++) top = Math.max(top, body.restPositions[3 * j + 1]);
    const r = 0.15;
    world.addCollider(
      new SphereCollider({
        radius: r,
        position: [0, top + r + 0.01, 0],
        margin: 0,
        motion: {
          keyframes: {
            times: [0, 0.6, 1.2, 1.8],
            translations: [
              [0, 0, 0],
              [0, -0.1, 0],
              [0, -0.1, 0],
              [0, 0.3, 0],
            ],
          },
        },
      }),
    );
    for (let s = 0; s < 180; s++) world.step();
    // how far the top particle under the press lies below where the best rigid placement of the
    // rest shape puts it (an elastic block springs back to 0)
    const x = body.positions();
    let centre = 0,
      best = Infinity;
    for (let j = 0; j < body.count; j++) {
      const rx = body.restPositions[3 * j],
        ry = body.restPositions[3 * j + 1],
        rz = body.restPositions[3 * j + 2];
      const d = Math.hypot(rx, rz) + 10 * Math.abs(ry - top);
      if (d < best) {
        best = d;
        centre = j;
      }
    }
    const fit = rigidCluster(new World({ gravity: [0, 0, 0] }), { positions: body.restPositions, masses: 1 });
    const fw = fit.world;
    fw.store.p.set(x, 0);
    const ctx = { ...fw.makeContext(1 / 60), solver: 'pbd' as const };
    fit.matching.beginStep(ctx);
    fit.matching.project(ctx);
    return { dent: fw.store.p[3 * centre + 1] - x[3 * centre + 1], body };
  }

  it('an elastic block springs back, a plastic block keeps the dent', () => {
    const elastic = dent(false),
      plastic = dent(true);
    // measured: 4e-8 m and 2.8 cm
    expect(Math.abs(elastic.dent)).toBeLessThan(0.002);
    expect(plastic.dent).toBeGreaterThan(0.015);
    // S_p stays volume preserving and within c_max
    const Sp = plastic.body.matching.plastic!;
    let flowed = 0;
    for (let r = 0; r < Sp.length / 9; r++) {
      expect(det3(Sp, 9 * r)).toBeCloseTo(1, 9);
      const d = Float64Array.from(Sp.subarray(9 * r, 9 * r + 9));
      d[0] -= 1;
      d[4] -= 1;
      d[8] -= 1;
      const norm = spectralNorm3(d, 0);
      expect(norm).toBeLessThanOrEqual(0.5 + 1e-9);
      if (norm > 0.01) flowed++;
    }
    expect(flowed).toBeGreaterThan(0);
  });
});

describe('shape-matching cloth (000 §4.6)', () => {
  it('a level pass conserves momentum, and coarse levels resist stretching but allow compression', () => {
    const r = rng(61);
    const grid = { width: 1, height: 1, cols: 9, rows: 9, plane: 'xy' as const };
    const world = new World();
    const cloth = new ShapeMatchingCloth(world, { grid, fibers: true });
    const level: ClothLevel = cloth.levels[0];
    const n = level.vertices;
    const pos = Float64Array.from(level.rest);
    for (let k = 0; k < pos.length; k++) pos[k] += 0.05 * (r() - 0.5);
    const before = pos.slice();
    level.match(pos, 0, null, 0, false);
    const lin = [0, 0, 0];
    let scale = 0;
    for (let j = 0; j < n; j++)
      for (let k = 0; k < 3; k++) {
        lin[k] += level.mass[j] * (pos[3 * j + k] - before[3 * j + k]);
        scale += level.mass[j] * Math.abs(pos[3 * j + k] - before[3 * j + k]);
      }
    expect(Math.hypot(...lin) / scale).toBeLessThan(1e-12);
    // uniformly compressed to 70 %: a stretch-only level (triangles and edges, as on the coarse
    // levels of Algorithm 2) leaves it; a full level expands it back
    const coarse = new ShapeMatchingCloth(new World(), { grid, regions: 'triangle' }).levels[0];
    const squeezed = coarse.rest.map((v) => 0.7 * v);
    const a = squeezed.slice(),
      b = squeezed.slice();
    coarse.match(a, 0, null, 0, true);
    coarse.match(b, 0, null, 0, false);
    for (let k = 0; k < a.length; k++) expect(a[k]).toBeCloseTo(squeezed[k], 12);
    expect(Math.abs(b[0] - squeezed[0])).toBeGreaterThan(0.01);
    // uniformly stretched to 130 %: stretch-only passes pull it back (a Jacobi pass shortens the
    // interior at once, the boundary over a few passes)
    const stretched = coarse.rest.map((v) => 1.3 * v);
    const c = stretched.slice();
    for (let pass = 0; pass < 30; pass++) coarse.match(c, 0, null, 0, true);
    const edgeRatio = (q: Float64Array) => {
      let m = 0;
      for (let k = 0; k < coarse.edges.length; k += 2) {
        const i = 3 * coarse.edges[k],
          j = 3 * coarse.edges[k + 1];
        const L = Math.hypot(coarse.rest[i] - coarse.rest[j], coarse.rest[i + 1] - coarse.rest[j + 1]);
        m = Math.max(m, Math.hypot(q[i] - q[j], q[i + 1] - q[j + 1], q[i + 2] - q[j + 2]) / L);
      }
      return m;
    };
    expect(edgeRatio(stretched)).toBeCloseTo(1.3, 12);
    expect(edgeRatio(c)).toBeLessThan(1.2);
  });

  it('multi-resolution shape matching (Algorithm 2) stretches a hanging cloth less than one level', () => {
    const stretch = (levels: number, fibers = false) => {
      const world = new World({ substeps: 2, iterations: 4, solver: 'pbd', sweep: 'forward', damping: 0.5 });
      const cloth = new ShapeMatchingCloth(world, {
        grid: { width: 1, height: 1, cols: 17, rows: 17, plane: 'xy' },
        levels,
        regions: 'triangle',
        fibers,
        density: 0.2,
      });
      for (let c = 0; c < 17; c++) cloth.pin(c);
      for (let s = 0; s < 90; s++) world.step();
      expect(world.stats.recoveries + world.stats.speedClamps).toBe(0);
      return cloth.maxStretch();
    };
    const one = stretch(1),
      three = stretch(3),
      fib = stretch(1, true);
    expect(three).toBeLessThan(0.6 * one);
    // fiber clusters stiffen a single level too (Stumpp et al.)
    expect(fib).toBeLessThan(0.9 * one);
  });
});

describe('particle contacts of shape-matched bodies (the world’s one ParticleContacts)', () => {
  /** A rigid cluster: a 3 × 3 × 3 cube of particles 0.1 m apart whose contact spheres (r = 0.06 m) overlap their neighbours'. */
  function cube(world: World, cx: number, vx: number): ShapeMatchingBody {
    const positions = new Float64Array(81);
    let k = 0;
    for (let i = 0; i < 3; i++)
      for (let j = 0; j < 3; j++)
        for (let l = 0; l < 3; l++)
          positions.set([cx + 0.1 * (i - 1), 0.1 * (j - 1), 0.1 * (l - 1)], 3 * k++);
    return rigidCluster(world, { positions, masses: 1, radius: 0.06, velocity: [vx, 0, 0] });
  }

  it('two cubes thrown at each other: no self contacts, momentum kept, no pass-through, one contact set', () => {
    const world = new World({ gravity: [0, 0, 0], substeps: 4 });
    const a = cube(world, -0.3, 1),
      b = cube(world, 0.3, -1);
    const pc = ParticleContacts.find(world)!;
    expect(world.sets.filter((s) => s instanceof ParticleContacts)).toEqual([pc]);
    expect(enableCollisions(world).particles).toBe(pc);
    const { v, x, mass } = world.store;
    let sameBody = 0,
      worstOverlap = 0;
    for (let step = 0; step < 60; step++) {
      world.step();
      for (const [i, j] of pc.pairs()) if (world.store.body[i] === world.store.body[j]) sameBody++;
      for (let i = a.offset; i < a.offset + 27; i++)
        for (let j = b.offset; j < b.offset + 27; j++) {
          const d = Math.hypot(x[3 * i] - x[3 * j], x[3 * i + 1] - x[3 * j + 1], x[3 * i + 2] - x[3 * j + 2]);
          worstOverlap = Math.max(worstOverlap, 0.12 - d);
        }
    }
    expect(sameBody).toBe(0);
    let px = 0;
    for (let i = 0; i < world.store.count; i++) px += mass[i] * v[3 * i];
    // each cube carries 27 kg·m/s: round-off only (position corrections of ~1e-16 m divided by h = 1/240 s)
    expect(Math.abs(px)).toBeLessThan(1e-10);
    // the cubes met (the faces came within contact reach) and stopped or turned back without passing
    expect(worstOverlap).toBeGreaterThan(-0.01);
    expect(worstOverlap).toBeLessThan(0.005);
    expect(world.store.x[3 * a.offset]).toBeLessThan(world.store.x[3 * b.offset]);
    expect(v[3 * a.offset]).toBeLessThanOrEqual(1e-9);
  });
});
