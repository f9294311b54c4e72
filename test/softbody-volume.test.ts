import { describe, expect, it } from 'vitest';
import {
  BoxCollider,
  Cloth,
  gridMesh,
  icosphere,
  PlaneCollider,
  SoftBody,
  TetVolumeConstraints,
  TriangleAreaConstraints,
  tetBox,
  tetVolume,
  triangleAreaOf,
  World,
} from '../src/index.js';
import { edgeStrain } from './helpers/measure.js';
import { finiteDifferenceGradient, relativeError, rng } from './helpers.js';

/** A world with n free particles at the given positions and random masses. */
function particles(pos: number[], seed: number): World {
  const w = new World({ solver: 'pbd', gravity: [0, 0, 0] });
  const n = pos.length / 3;
  w.store.allocate(n, 0);
  const r = rng(seed);
  for (let i = 0; i < n; i++) {
    w.store.x.set(pos.slice(3 * i, 3 * i + 3), 3 * i);
    w.store.setMass(i, 0.5 + r());
  }
  w.store.p.set(w.store.x);
  return w;
}

describe('geometric constraints of 000 §3.4.4', () => {
  for (const kind of ['tet volume', 'triangle area'] as const) {
    it(`${kind}: one projection moves along w_i ∇_i C (finite differences), by eq. 3, conserving momentum`, () => {
      const tet = kind === 'tet volume';
      const pos = tet ? [0, 0, 0, 1, 0.1, 0, 0.1, 1, 0.2, 0.2, 0.1, 1] : [0, 0, 0, 1, 0.1, 0.2, 0.1, 1, 0.3];
      const w = particles(pos, 3);
      const idx = tet ? [0, 1, 2, 3] : [0, 1, 2];
      const set = tet ? new TetVolumeConstraints(w.store, idx) : new TriangleAreaConstraints(w.store, idx);
      const C = (p: Float64Array) => (tet ? tetVolume(p, 0, 1, 2, 3) : triangleAreaOf(p, 0, 1, 2));
      const rest = C(w.store.x);
      // deform, then project once with stiffness 1
      const p = w.store.p;
      const r = rng(8);
      for (let k = 0; k < 3 * idx.length; k++) p[k] += 0.3 * (r() - 0.5);
      const before = p.slice(0, 3 * idx.length);
      const grad = finiteDifferenceGradient((q) => C(q), before, idx);
      const c = C(before) - rest;
      let wG = 0;
      for (const i of idx)
        wG += w.store.invMass[i] * (grad[3 * i] ** 2 + grad[3 * i + 1] ** 2 + grad[3 * i + 2] ** 2);
      const ctx = w.makeContext();
      set.beginStep(ctx);
      set.project(ctx);
      const expected = new Float64Array(3 * idx.length);
      const moved = new Float64Array(3 * idx.length);
      const P = [0, 0, 0];
      for (const i of idx)
        for (let d = 0; d < 3; d++) {
          expected[3 * i + d] = (-w.store.invMass[i] * grad[3 * i + d] * c) / wG;
          moved[3 * i + d] = p[3 * i + d] - before[3 * i + d];
          P[d] += w.store.mass[i] * moved[3 * i + d];
        }
      expect(relativeError(moved, expected)).toBeLessThan(1e-6);
      for (let d = 0; d < 3; d++) expect(Math.abs(P[d])).toBeLessThan(1e-12);
      // a few more projections restore the rest value
      for (let k = 0; k < 10; k++) set.project(ctx);
      expect(Math.abs(C(p) - rest)).toBeLessThan(1e-9);
      w.store.x.set(p);
      expect(set.maxViolation(w.store)).toBeLessThan(1e-9);
    });
  }
});

describe('a geometric soft body started mirrored (issue 15, item 7)', () => {
  it('recovers the handedness of its rest shape: no inverted tet, volume and every edge within 1 %, at rest, no NaN', () => {
    // every tet starts inverted (x → −x about the centre): the edges have their rest lengths, only the
    // volume constraints (000 §3.4.4, C = V − V₀ with the signed volume) can turn the body back
    const w = new World({ dt: 1 / 60, substeps: 10, gravity: [0, 0, 0], damping: 1 });
    const b = new SoftBody(w, {
      mesh: tetBox({ size: [0.3, 0.2, 0.1], resolution: [6, 4, 2] }),
      model: 'geometric',
      initial: 'mirrored',
    });
    const nt = b.tets.length / 4;
    const rest = b.restPositions;
    const restVolume = 0.3 * 0.2 * 0.1;
    expect(b.invertedTets()).toBe(nt);
    expect(b.currentVolume()).toBeCloseTo(-restVolume, 12);
    for (let s = 0; s < 600; s++) w.step();
    const x = w.store.x,
      o = b.offset;
    for (let i = 3 * o; i < 3 * (o + b.count); i++) expect(Number.isFinite(x[i])).toBe(true);
    expect(b.invertedTets()).toBe(0);
    expect(Math.abs(b.currentVolume() / restVolume - 1)).toBeLessThan(0.01);
    // every tet edge within 1 % of its rest length (a mirror image would keep them too: the volumes above
    // are what tell the handedness)
    const tets = b.tets;
    let worst = 0;
    for (let t = 0; t < tets.length; t += 4)
      for (let a = 0; a < 4; a++)
        for (let c = a + 1; c < 4; c++) {
          worst = Math.max(worst, edgeStrain(x, rest, tets[t + a], tets[t + c], o));
        }
    expect(worst).toBeLessThan(0.01);
    const v = w.store.v;
    let vmax = 0;
    for (let i = o; i < o + b.count; i++)
      vmax = Math.max(vmax, Math.hypot(v[3 * i], v[3 * i + 1], v[3 * i + 2]));
    expect(vmax).toBeLessThan(1e-3);
    expect(w.stats.recoveries).toBe(0);
  });
});

describe('volume and area sets on worker threads (src/parallel/)', () => {
  it('a geometric soft body and a cloth with area constraints give the same bits on 1 and 2 threads', async () => {
    // big enough that every colour batch (≥ 256 constraints) goes to the workers, whose copy of a
    // set has its class but no function-valued fields
    const run = async (threads: number) => {
      const world = new World({ threads, substeps: 5 });
      new SoftBody(world, {
        mesh: tetBox({ size: [0.5, 0.5, 0.5], resolution: [16, 16, 16], origin: [0, 1, 0] }),
        model: 'geometric',
      });
      const cloth = new Cloth(world, {
        mesh: gridMesh({ width: 1, height: 1, cols: 80, rows: 80 }),
        density: 0.1,
      });
      cloth.pin(0);
      const tris = Array.from(cloth.triangles, (v) => v + cloth.offset);
      world.addConstraintSet(new TriangleAreaConstraints(world.store, tris, { compliance: 0 }));
      await world.threadsReady();
      for (let k = 0; k < 3; k++) world.step();
      const x = world.store.x.slice(0, 3 * world.store.count);
      world.dispose();
      return x;
    };
    const one = await run(1);
    const two = await run(2);
    expect(two.length).toBe(one.length);
    expect(two.every((v, i) => v === one[i])).toBe(true);
    expect(one.every(Number.isFinite)).toBe(true);
  }, 120_000);
});

/** The lowest and highest y of particles offset … offset + count − 1. */
function yRange(x: Float64Array, offset: number, count: number): [number, number] {
  let lo = Number.POSITIVE_INFINITY,
    hi = Number.NEGATIVE_INFINITY;
  for (let i = offset; i < offset + count; i++) {
    lo = Math.min(lo, x[3 * i + 1]);
    hi = Math.max(hi, x[3 * i + 1]);
  }
  return [lo, hi];
}

/**
 * A plate comes down on a body resting on the ground, squeezes it to 57 % of
 * its height (0.2 s to 1.2 s), holds it for 1 s and lifts again (by 3.2 s).
 * Returns the body's extreme relative volume error while the plate is down,
 * and then, 2.5 s after the plate let go, its kinetic energy.
 */
function squeeze(
  world: World,
  height: number,
  top: number,
  volume: () => number,
  each?: () => void,
): { worst: number; ke: number } {
  const v0 = volume();
  const t0 = world.time;
  const plate = world.addCollider(
    new BoxCollider({
      halfExtents: [0.6, 0.05, 0.6],
      position: [0, top + 0.02 + 0.05 + 0.005, 0],
      friction: 0.3,
      motion: {
        start: t0,
        keyframes: {
          times: [0, 0.2, 1.2, 2.2, 3.2],
          translations: [
            [0, 0, 0],
            [0, -0.02, 0],
            [0, -0.02 - 0.43 * height, 0],
            [0, -0.02 - 0.43 * height, 0],
            [0, 0.1, 0],
          ],
        },
      },
    }),
  );
  let worst = 0;
  while (world.time - t0 < 5.7) {
    world.step();
    each?.();
    if (world.time - t0 > 0.2 && world.time - t0 < 3.2) worst = Math.max(worst, Math.abs(volume() / v0 - 1));
  }
  expect(plate.position[1]).toBeGreaterThan(top);
  return { worst, ke: world.kineticEnergy() };
}

describe('volume under load: the volume constraints are solved with the contacts (issue 15, item 5)', () => {
  // Not with hard edges too: hard edges and hard tet volumes make the mesh rigid, and a kinematic plate
  // cannot squeeze it. It passed with edges 0 only at these frictions (ground 0.6, plate 0.3), through
  // the top and bottom faces creeping outward under the per-substep friction test; frictionless, or at
  // μ = 0.1, the plate pushed the cube out through its top (211 J). With friction anchors the faces
  // stick, so at these frictions too.
  for (const edges of [1e-4]) {
    it(`a geometric soft body with hard tet volumes (edges ${edges} m/N) keeps its volume within 1 % squeezed to 57 % and comes back, by default`, () => {
      const world = new World({ substeps: 10, damping: 0.5 });
      world.addCollider(new PlaneCollider({ friction: 0.6 }));
      const H = 0.3;
      const body = new SoftBody(world, {
        mesh: tetBox({ size: [H, H, H], resolution: [5, 5, 5], origin: [-H / 2, 0.005, -H / 2] }),
        model: 'geometric',
        edges: { compliance: edges },
        volume: { compliance: 0 },
      });
      // hard tet volumes get the body's total volume by default (totalVolume)
      expect(body.bodyVolume).not.toBeNull();
      let squeezedTo = 1;
      const heightNow = () => {
        const [lo, hi] = yRange(world.store.x, body.offset, body.count);
        return hi - lo;
      };
      const r = squeeze(
        world,
        H,
        0.005 + H,
        () => body.currentVolume(),
        () => {
          squeezedTo = Math.min(squeezedTo, heightNow() / H);
        },
      );
      expect(squeezedTo).toBeLessThan(0.58); // it was squeezed (the plate's margin keeps it a little lower)
      // before: 40 % lost with hard edges, 20 % with soft ones (the contacts had the last word)
      expect(r.worst).toBeLessThan(0.01);
      expect(r.ke).toBeLessThan(1e-4);
      // back to its rest shape: no vertex more than 1 % of the size away from it (after the translation)
      const x = world.store.x,
        rest = body.restPositions;
      let cx = 0,
        cy = 0,
        cz = 0;
      for (let i = 0; i < body.count; i++) {
        const g = 3 * (body.offset + i);
        cx += (x[g] - rest[3 * i]) / body.count;
        cy += (x[g + 1] - rest[3 * i + 1]) / body.count;
        cz += (x[g + 2] - rest[3 * i + 2]) / body.count;
      }
      let err = 0;
      for (let i = 0; i < body.count; i++) {
        const g = 3 * (body.offset + i);
        err = Math.max(
          err,
          Math.hypot(
            x[g] - rest[3 * i] - cx,
            x[g + 1] - rest[3 * i + 1] - cy,
            x[g + 2] - rest[3 * i + 2] - cz,
          ),
        );
      }
      expect(err / H).toBeLessThan(0.01);
      expect(body.invertedTets()).toBe(0);
    });
  }

  it('a balloon (k_pressure 1.3) squeezed to 57 % of its height stays within 1 % of its target volume', () => {
    const world = new World({ substeps: 10, damping: 0.3 });
    world.addCollider(new PlaneCollider({ friction: 0.6 }));
    const mesh = icosphere(0.2, 3);
    for (let i = 1; i < mesh.positions.length; i += 3) mesh.positions[i] += 0.205;
    const ball = new Cloth(world, {
      mesh,
      density: 0.1,
      stretch: { compliance: 0.001 },
      bend: { compliance: 1 },
      pressure: { pressure: 1.3 },
    });
    for (let k = 0; k < 120; k++) world.step(); // inflates and settles
    const x = world.store.x;
    const [lo, hi] = yRange(x, ball.offset, ball.count);
    const target = 1.3 * ball.pressure!.restVolume;
    expect(Math.abs(ball.pressure!.computeVolume(x) / target - 1)).toBeLessThan(0.01);
    const r = squeeze(world, hi - lo, hi, () => ball.pressure!.computeVolume(world.store.x));
    // before: 2.8 % off (the contacts took back what the pressure constraint pushed into the plate)
    expect(r.worst).toBeLessThan(0.01);
  });
});
