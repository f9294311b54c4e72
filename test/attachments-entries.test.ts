import { describe, expect, it } from 'vitest';
import { freeParticles } from './helpers/particles.js';

// 40 attachments (the tables start with room for 16 and grow twice), then every third removed
// (each removal moves the last entry into the freed one): each attachment that is left must
// still hold its own particle on its own target with its own compliance, and a detached particle
// gets its mass back and moves freely.
describe('Attachments entries', () => {
  it('keep their particle, target and compliance through growth and removals', () => {
    const n = 40;
    const points = Array.from({ length: n }, (_, i) => [i, 0, 0]);
    const world = freeParticles(points, new Array(n).fill(2));
    world.gravity[1] = -9.81;
    const a = world.attachments;
    const target = (i: number): [number, number, number] => [i, 1 + 0.01 * i, -0.5 * i];
    for (let i = 0; i < n; i++)
      a.attach(i, { target: target(i), compliance: i % 2 === 0 ? 0 : 1e-9 * (i + 1) });
    for (let i = 0; i < n; i += 3) a.detach(i);
    expect(a.count).toBe(n - Math.ceil(n / 3));
    for (let k = 0; k < 20; k++) world.step();
    const x = world.store.x;
    for (let i = 0; i < n; i++) {
      if (i % 3 === 0) {
        expect(a.isAttached(i)).toBe(false);
        expect(world.store.invMass[i]).toBe(0.5);
        expect(x[3 * i + 1]).toBeLessThan(-0.1);
        continue;
      }
      expect(a.isAttached(i)).toBe(true);
      const e = a.particle.indexOf(i);
      expect(e).toBeGreaterThanOrEqual(0);
      expect(a.compliance[e]).toBe(i % 2 === 0 ? 0 : 1e-9 * (i + 1));
      expect(Array.from(a.target.subarray(3 * e, 3 * e + 3))).toEqual(target(i));
      // hard ones sit on the target, soft ones (1e-9 m/N on 2 kg) within a micrometre of it
      for (let d = 0; d < 3; d++) expect(Math.abs(x[3 * i + d] - target(i)[d])).toBeLessThan(1e-6);
    }
  });
});
