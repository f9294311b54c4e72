import { describe, expect, it } from 'vitest';
import {
  addOpenTank,
  BoxCollider,
  CapsuleCollider,
  type Collider,
  type ColliderContacts,
  PlaneCollider,
  SphereCollider,
  World,
} from '../src/index.js';
import { rng } from './helpers.js';

/**
 * ColliderContacts skips whole chunks of particles whose box lies out of
 * their reach (what makes a fluid tank's walls cheap). The culling must not
 * change which contacts are made: these tests check the distance bound it
 * uses and compare its contacts with the per-particle rules applied to every
 * particle.
 */
function colliders(): Collider[] {
  return [
    new PlaneCollider({ normal: [0.3, 1, -0.2], position: [0, -0.5, 0], margin: 0.01 }),
    new SphereCollider({ radius: 0.4, position: [0.8, 0.2, -0.3] }),
    new BoxCollider({ halfExtents: [0.3, 0.2, 0.5], position: [-0.7, 0.4, 0.5], rotation: [20, 35, -10] }),
    new CapsuleCollider({ radius: 0.15, halfHeight: 0.4, position: [0.1, 0.9, 0.8], rotation: [70, 0, 30] }),
  ];
}

describe('collider contact culling', () => {
  it('boxDistanceBound never exceeds the signed distance of a point in the box', () => {
    const random = rng(3);
    const n = new Float64Array(3);
    for (const col of colliders()) {
      for (let t = 0; t < 300; t++) {
        const c = [0, 1, 2].map(() => 3 * (random() - 0.5));
        const e = [0, 1, 2].map(() => 0.5 * random() * random());
        const bound = col.boxDistanceBound(
          c[0] - e[0],
          c[1] - e[1],
          c[2] - e[2],
          c[0] + e[0],
          c[1] + e[1],
          c[2] + e[2],
        );
        for (let s = 0; s < 20; s++) {
          const x = c[0] + e[0] * (2 * random() - 1),
            y = c[1] + e[1] * (2 * random() - 1),
            z = c[2] + e[2] * (2 * random() - 1);
          expect(col.distance(x, y, z, n)).toBeGreaterThanOrEqual(bound - 1e-12);
        }
      }
      // the plane's bound is exact: a corner of the box touches it
      if (col.type === 'plane') {
        const b = col.boxDistanceBound(-1, -1, -1, 1, 1, 1);
        let min = Number.POSITIVE_INFINITY;
        for (const x of [-1, 1])
          for (const y of [-1, 1]) for (const z of [-1, 1]) min = Math.min(min, col.distance(x, y, z, n));
        expect(b).toBeCloseTo(min, 12);
      }
    }
  });

  it('makes exactly the contacts of the per-particle tests (continuous, static fallback, within reach)', () => {
    const world = new World();
    for (const c of colliders()) world.addCollider(c);
    const random = rng(11);
    const np = 4000;
    const store = world.store;
    store.allocate(np, 0);
    for (let i = 0; i < np; i++) {
      // clusters, so that some chunks are far from every collider and some straddle one
      const cl = i >> 6;
      const cx = 2.4 * (((cl * 0.618) % 1) - 0.5),
        cy = 2.4 * (((cl * 0.414) % 1) - 0.5),
        cz = 2.4 * (((cl * 0.732) % 1) - 0.5);
      const i3 = 3 * i;
      store.x[i3] = cx + 0.3 * (random() - 0.5);
      store.x[i3 + 1] = cy + 0.3 * (random() - 0.5);
      store.x[i3 + 2] = cz + 0.3 * (random() - 0.5);
      for (let a = 0; a < 3; a++) store.p[i3 + a] = store.x[i3 + a] + 0.2 * (random() - 0.5);
      store.invMass[i] = i % 50 === 0 ? 0 : 1;
      store.mass[i] = 1;
      store.radius[i] = 0.02 * random();
      store.group[i] = 1;
      store.mask[i] = -1;
    }
    const contacts = world.sets.find((s) => s.kind === 'collider-contact') as ColliderContacts;
    // the per-particle rules below, without moving particles out of deep penetrations (tested on its own,
    // test/collision-degenerate.test.ts): many of these random particles lie deep inside
    contacts.maxDepenetrationSpeed = Number.POSITIVE_INFINITY;
    const ctx = world.makeContext();
    contacts.beginStep(ctx);
    const got = new Set<string>();
    for (let k = 0; k < contacts.count; k++) got.add(`${contacts.particle[k]}:${contacts.collider[k]}`);
    // the per-particle rules of ColliderContacts.beginStep, for every particle
    const expected = new Set<string>();
    const n = new Float64Array(3);
    contacts.colliders.forEach((col, c) => {
      for (let i = 0; i < np; i++) {
        if (store.invMass[i] === 0) continue;
        const i3 = 3 * i;
        const [xx, xy, xz] = [store.x[i3], store.x[i3 + 1], store.x[i3 + 2]];
        const [px, py, pz] = [store.p[i3], store.p[i3 + 1], store.p[i3 + 2]];
        const r = col.margin + store.radius[i];
        const seg = Math.hypot(px - xx, py - xy, pz - xz);
        const dX = col.distance(xx, xy, xz, n);
        let hit = dX < r;
        if (!hit) {
          const t = seg > dX - r ? col.raycast(xx, xy, xz, px, py, pz, r) : -1;
          hit = t >= 0 || col.distance(px, py, pz, n) < 2 * (r + seg);
        }
        if (hit) expected.add(`${i}:${c}`);
      }
    });
    expect(expected.size).toBeGreaterThan(100);
    expect(expected.size).toBeLessThan(0.7 * np);
    expect([...got].sort()).toEqual([...expected].sort());
  });
});

describe('addOpenTank', () => {
  it('five inward planes keep particles thrown in every direction inside the tank, and a wave-maker wall moves', () => {
    const world = new World({ dt: 1 / 60, substeps: 4 });
    const lx = 0.6,
      lz = 0.4;
    const planes = addOpenTank(world, lx, lz, {
      friction: 0,
      margin: 0,
      wallMotion: { oscillate: { amplitude: [0.05, 0, 0], frequency: 1 } },
    });
    expect(planes.map((p) => p.kinematic)).toEqual([false, true, false, false, false]);
    const random = rng(5);
    const n = 64;
    const off = world.store.allocate(n, 0);
    const start = [0.1, 0, 0.1],
      extent = [0.4, 0.3, 0.2];
    for (let k = 0; k < n; k++) {
      const i = off + k;
      world.store.setMass(i, 1);
      for (let d = 0; d < 3; d++) {
        world.store.x[3 * i + d] = start[d] + extent[d] * random();
        world.store.v[3 * i + d] = 4 * (random() - 0.5);
      }
    }
    for (let s = 0; s < 120; s++) world.step();
    const x = world.store.x;
    const slack = 0.05 + 1e-6; // the wave maker's amplitude (the wall at x = 0 swings out and back)
    for (let k = 0; k < n; k++) {
      const i = 3 * (off + k);
      expect(x[i]).toBeGreaterThan(-slack);
      expect(x[i]).toBeLessThan(lx + 1e-6);
      expect(x[i + 1]).toBeGreaterThan(-1e-6);
      expect(x[i + 2]).toBeGreaterThan(-1e-6);
      expect(x[i + 2]).toBeLessThan(lz + 1e-6);
    }
  });

  it('a size that is not a positive length is a PbdError naming it', () => {
    const world = new World();
    expect(() => addOpenTank(world, 0.5, 0)).toThrow(/tank\.lz/);
    expect(() => addOpenTank(world, Number.NaN, 1)).toThrow(/tank\.lx/);
  });
});
