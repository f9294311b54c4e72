/**
 * Kinetic friction keeps no bank of impulse (docs/collision.md, "Friction
 * and restitution"): a body that has rested on a plane for a while and is
 * then pushed slides the Coulomb distance v0² / (2 μ g), however long it
 * rested. Friction may only resist with μ times the normal force acting
 * while it slides; the normal impulse gathered while it sat still must not
 * be spent on the slide (a rule that does stops it short, by μ g t_rest of
 * speed).
 */
import { describe, expect, it } from 'vitest';
import { restingPatch } from './helpers/push.js';

const MU = 0.2;
const G = 9.81;

/** A small cloth (2 × 2 particles, 5 cm) resting `rest` frames on a plane with friction μ, then pushed along x at v0. */
function slide(rest: number, v0: number, iterations: number): number {
  const w = restingPatch(MU, iterations);
  for (let k = 0; k < rest; k++) w.step();
  const { x, v, count } = w.store;
  for (let i = 0; i < count; i++) v[3 * i] = v0;
  const x0 = x[0];
  for (let k = 0; k < 600 && Math.abs(v[0]) > 1e-6; k++) w.step();
  return x[0] - x0;
}

describe('kinetic friction after rest', () => {
  it.each([
    [1, 1],
    [60, 1],
    [240, 3],
  ])(
    'after %i frames at rest (%i iterations) a push at 2 m/s slides v0²/(2μg) within 2 %',
    (rest, iterations) => {
      const v0 = 2;
      const coulomb = (v0 * v0) / (2 * MU * G);
      const d = slide(rest, v0, iterations);
      expect(Math.abs(d / coulomb - 1)).toBeLessThan(0.02);
    },
  );
});
