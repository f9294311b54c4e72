/**
 * Static friction obeys Coulomb for a push (issue 15, item 6; docs/collision.md, "A push after rest"):
 * a body that has rested 1 s on a level plane (μ = μs = 0.2) and is then pushed at v0 slides
 * v0² / (2 μ g) and decelerates at μ g, whatever v0. Before, the stick memory (0.2 s of banked normal
 * impulse) let one substep of sticking cancel up to μs g · 0.2 s = 0.39 m/s, and pushes at 0.05–0.3 m/s
 * did not move the body at all (0 of Coulomb's 0.6 mm … 2.3 cm). The same for a body resting on
 * another particle body (particle–particle contacts, whose pair anchors banked the same way): before,
 * 0 of Coulomb's distance at 0.05–0.3 m/s for a 2 × 2 patch and a 4³ rigid cluster, 0.567 at 1 m/s.
 */
import { describe, expect, it } from 'vitest';
import { coulombDistance, G, push, pushOnParticles } from './helpers/push.js';

const MU = 0.2;

describe('a push after rest slides as Coulomb says (μ = 0.2, rest 1 s)', () => {
  // the distance against Coulomb's as the engine integrates it (velocity falls by μ g h per substep:
  // v0² / (2 μ g) − v0 h / 2, test/helpers/push.ts); the patch measures 1.000 at every speed
  for (const v0 of [0.05, 0.1, 0.2, 0.3, 1]) {
    it(`4-particle patch pushed at ${v0} m/s slides Coulomb's distance within 1 % and decelerates at μ g`, () => {
      const r = push('patch', v0, MU);
      const d = coulombDistance(v0, MU, r.h);
      expect(Math.abs(r.distance / d - 1)).toBeLessThan(0.01);
      // and the continuous v0² / (2 μ g), to its O(h) difference
      expect(Math.abs(r.distance - (v0 * v0) / (2 * MU * G))).toBeLessThan(0.6 * v0 * r.h);
      if (!Number.isNaN(r.deceleration)) expect(Math.abs(r.deceleration / (MU * G) - 1)).toBeLessThan(0.01);
    });
  }
  // the rigid cluster (shape matching, 000 §4.1; 4³ particles, the 16 of its base in contact), on the plane
  // and on a particle body (particle–particle contacts: a pinned particle of radius 1 km,
  // test/helpers/push.ts restingOnParticles). Its particles move against each other by up to 0.2 mm at one
  // iteration, so its centre lands 0.05 mm short of the 0.6 mm slide at 0.05 m/s (0.924 of Coulomb on the
  // plane, 0.925 on particles), 0.977 at 0.1 m/s, 0.994–1.001 from 0.2 m/s. On particles, before the pair
  // contacts had the incoming-motion test: 0, 0, 0, −0.008 and 0.567
  for (const ground of ['plane', 'particles'] as const)
    for (const [v0, tol] of [
      [0.05, 0.1],
      [0.1, 0.04],
      [0.2, 0.02],
      [0.3, 0.02],
      [1, 0.02],
    ] as const) {
      it(`rigid cluster on ${ground} pushed at ${v0} m/s slides Coulomb's distance within ${tol * 100} % and decelerates at μ g`, () => {
        const r = ground === 'plane' ? push('rigid', v0, MU) : pushOnParticles('rigid', v0, MU);
        const d = coulombDistance(v0, MU, r.h);
        expect(Math.abs(r.distance / d - 1)).toBeLessThan(tol);
        if (!Number.isNaN(r.deceleration)) expect(Math.abs(r.deceleration / (MU * G) - 1)).toBeLessThan(0.01);
      });
    }
});

describe('a push after rest on a particle body slides as Coulomb says (particle–particle contacts, μ = 0.2)', () => {
  // a 2 × 2 rigid cluster on a pinned particle of radius 1 km (test/helpers/push.ts, restingOnParticles;
  // the 4³ cluster above). Before the incoming-motion test of the pair contacts: 0 at 0.05–0.3 m/s
  // (deceleration 2.04 and 2.29 μ g at 0.2 and 0.3)
  for (const v0 of [0.05, 0.1, 0.2, 0.3, 1]) {
    it(`2 × 2 rigid patch pushed at ${v0} m/s slides Coulomb's distance within 1 % and decelerates at μ g`, () => {
      const r = pushOnParticles('patch', v0, MU);
      const d = coulombDistance(v0, MU, r.h);
      expect(Math.abs(r.distance / d - 1)).toBeLessThan(0.01);
      if (!Number.isNaN(r.deceleration)) expect(Math.abs(r.deceleration / (MU * G) - 1)).toBeLessThan(0.01);
    });
  }
});
