/**
 * Anchored static friction of particle–particle contacts (issue 15, item 6;
 * docs/collision.md, "Friction and restitution"): a shape-matched rigid
 * cluster (000 §4.1), 20 cm across, resting on a pinned body with μ = μs = 0.5
 * on both, with gravity tilted by θ (the same as a slope tilted by θ). The body
 * underneath is one particle of radius 1 km: its top is a plane to within
 * 0.3 mm over the 0.8 m the box slides, so the analytic answer of a block on
 * an incline holds.
 */
import { describe, expect, it } from 'vitest';
import { ParticleContacts, rigidCluster, World, type WorldBody } from '../src/index.js';
import { restingOnParticles } from './helpers/push.js';
import { cubeLattice, slideAcceleration } from './helpers.js';

const MU = 0.5;
const CRITICAL = (Math.atan(MU) * 180) / Math.PI;

function boxOnBody(deg: number): { world: World; box: WorldBody; th: number; base: number[] } {
  const th = (deg * Math.PI) / 180;
  const g = 9.81;
  const { world, body: box } = restingOnParticles('rigid', MU, [g * Math.sin(th), -g * Math.cos(th), 0]);
  const R = 0.025;
  const base: number[] = [];
  for (let i = box.offset; i < box.offset + box.count; i++)
    if (world.store.x[3 * i + 1] < R + 1e-6) base.push(i);
  return { world, box, th, base };
}

/** Mean displacement down the slope (+x) of the given particles since `from` (m). */
function downhill(world: World, ids: number[], from: Float64Array): number {
  let d = 0;
  for (const i of ids) d += world.store.x[3 * i] - from[3 * i];
  return d / ids.length;
}

describe('anchored static friction between particles (μ = 0.5, default substeps)', () => {
  // issue 15, item 6: "below the friction angle nothing may slide (creep < 1 mm in 2 s)". Before the pair
  // anchors (the per-substep friction test) the box slipped while it rocked into place: 0.72 mm at 1.5° and
  // 2.29 mm at 0.5° below the friction angle; with them 0.15 and 0.29 mm
  for (const [below, limit] of [
    [1.5, 0.3e-3],
    [0.5, 1e-3],
  ] as const) {
    it(`a box put down on a body ${below}° below the friction angle creeps less than ${limit * 1e3} mm in 2 s`, () => {
      const { world, base } = boxOnBody(CRITICAL - below);
      const x0 = world.store.x.slice();
      for (let k = 0; k < 120; k++) world.step();
      expect(Math.abs(downhill(world, base, x0))).toBeLessThan(limit);
    });
  }

  it('2° above the friction angle it slides with acceleration g (sin θ − μ cos θ) within 3 %', () => {
    const { world, box, th } = boxOnBody(CRITICAL + 2);
    const a = slideAcceleration(world, box, [1, 0, 0]);
    const expected = 9.81 * (Math.sin(th) - MU * Math.cos(th));
    expect(Math.abs(a / expected - 1)).toBeLessThan(0.03);
  });

  it("the pair's friction impulses are equal and opposite: two free boxes sliding into each other keep their momentum and stick", () => {
    const world = new World({ substeps: 10, gravity: [0, 0, 0] });
    const cube = (y: number, masses: number, velocity: [number, number, number], name: string) => {
      const pos = cubeLattice(3, 0.05, y);
      return rigidCluster(world, { name, positions: pos, masses, radius: 0.025, velocity });
    };
    const a = cube(0, 0.1, [0, 0, 0], 'a');
    // b starts 1 mm into a's top face, moving across it at 5 cm/s and towards it, heavier per particle
    const b = cube(0.149, 0.3, [0.05, -0.02, 0], 'b');
    const contacts = ParticleContacts.of(world);
    contacts.addBody(a, { self: false, friction: MU });
    contacts.addBody(b, { self: false, friction: MU });
    const momentum = () => {
      const { v, mass } = world.store;
      const P = [0, 0, 0];
      for (const body of [a, b])
        for (let i = body.offset; i < body.offset + body.count; i++)
          for (let c = 0; c < 3; c++) P[c] += mass[i] * v[3 * i + c];
      return P;
    };
    const meanVx = (body: WorldBody) => {
      let s = 0;
      for (let i = body.offset; i < body.offset + body.count; i++) s += world.store.v[3 * i];
      return s / body.count;
    };
    const P0 = momentum();
    for (let k = 0; k < 30; k++) world.step();
    const P1 = momentum();
    // (to rounding: the friction impulses themselves are of order 1e-2 N s)
    for (let c = 0; c < 3; c++) expect(Math.abs(P1[c] - P0[c])).toBeLessThan(1e-9);
    // friction acted: the tangential velocities met (b was 5 cm/s faster than a)
    expect(Math.abs(meanVx(b) - meanVx(a))).toBeLessThan(0.05 * 0.5);
  });

  it('a checkpoint carries the pair anchors: a resumed run continues bit for bit', () => {
    const a = boxOnBody(CRITICAL - 0.5);
    for (let k = 0; k < 10; k++) a.world.step();
    const state = a.world.saveState();
    for (let k = 0; k < 20; k++) a.world.step();
    const b = boxOnBody(CRITICAL - 0.5);
    b.world.loadState(structuredClone(state));
    for (let k = 0; k < 20; k++) b.world.step();
    expect(Array.from(b.world.store.x)).toEqual(Array.from(a.world.store.x));
  });
});
