/**
 * Static and kinetic friction of boxes on a slope (issue 15, item 6;
 * docs/collision.md, "Friction and restitution"): a rigid cluster (000 §4.1),
 * a geometric soft body (hard edges and tet volumes) and a stiff FEM box
 * (E = 1 MPa), 20 cm across, resting on a plane collider tilted by θ with
 * μ = μs = 0.5, at the default substeps.
 */
import { describe, expect, it } from 'vitest';
import { colliderContactsOf, SoftBody, tetBox, World } from '../src/index.js';
import {
  alongPlane,
  BOX,
  boxOnSlope as box,
  downhill as downhillOf,
  type SlopeBox as Kind,
  SlipProbe,
  tiltingPlane,
  toSlope,
} from './helpers/slope.js';
import { head, stepTogether } from './helpers/worlds.js';
import { slideAcceleration } from './helpers.js';

const MU = 0.5;
const CRITICAL = (Math.atan(MU) * 180) / Math.PI;

/** A box resting on the slope (test/helpers/slope.ts), at rest. */
function boxOnSlope(kind: Kind, deg: number, iterations = 1, substeps = 10) {
  return box(kind, deg, { iterations, substeps });
}

/** Mean displacement down the slope (m) of the given particles since `from`. */
function downhill(world: World, th: number, ids: number[], from: Float64Array): number {
  return downhillOf(world.store.x, th, ids, from);
}

/** Distance the base slides in 2 s from the start. */
function slideIn2s(kind: Kind, deg: number, iterations = 1, substeps = 10): number {
  const { world, th, base } = boxOnSlope(kind, deg, iterations, substeps);
  const x0 = world.store.x.slice();
  for (let k = 0; k < 120; k++) world.step();
  return downhill(world, th, base, x0);
}

describe('friction on a slope (μ = 0.5, default substeps)', () => {
  for (const kind of ['rigid', 'geometric', 'fem'] as const) {
    it(`${kind} box: the critical angle is atan μ within 0.3°, and above it the acceleration is g (sin θ − μ cos θ) within 0.1 %`, () => {
      // the smallest angle at which the base slides more than 2 cm in 2 s
      let lo = CRITICAL - 3,
        hi = CRITICAL + 3;
      while (hi - lo > 0.05) {
        const mid = 0.5 * (lo + hi);
        if (slideIn2s(kind, mid) > 0.02) hi = mid;
        else lo = mid;
      }
      expect(Math.abs(0.5 * (lo + hi) - CRITICAL)).toBeLessThan(0.3);
      // 1.5° above: the velocity of the centre of mass gains g (sin θ − μ cos θ) per second
      const { world, body, th } = boxOnSlope(kind, CRITICAL + 1.5);
      const a = slideAcceleration(world, body, [-Math.cos(th), -Math.sin(th), 0]);
      const expected = 9.81 * (Math.sin(th) - MU * Math.cos(th));
      expect(Math.abs(a / expected - 1)).toBeLessThan(1e-3);
    });

    it(`${kind} box: 1.5° below the friction angle its base does not creep once it has settled`, () => {
      const { world, th, base } = boxOnSlope(kind, CRITICAL - 1.5);
      for (let k = 0; k < 60; k++) world.step(); // settling: 1 s
      const settled = world.store.x.slice();
      // the largest excursion over 2 s: the FEM box still vibrates by ±2 µm, both ways
      let most = 0;
      for (let k = 0; k < 120; k++) {
        world.step();
        most = Math.max(most, Math.abs(downhill(world, th, base, settled)));
      }
      expect(most).toBeLessThan(3e-6);
    });

    // issue 15, item 6: "below the friction angle nothing may slide (creep < 1 mm in 2 s)", from the moment
    // the box is put down. Before the friction anchors the base slipped while the box rocked into place
    // (rigid 0.71 mm, geometric 1.97 mm, FEM 2.91 mm); with them rigid 0.17, geometric 0.49, FEM 1.20 mm
    // (session 12); since the collider contacts also open the symmetric sweep's backward half
    // (docs/collision.md, "The contacts in the sweep") rigid 0.053, geometric 0.353, FEM 0.765 mm
    it(`${kind} box: put down 1.5° below the friction angle, its base creeps less than 1 mm in 2 s`, () => {
      const creep = slideIn2s(kind, CRITICAL - 1.5);
      expect(Math.abs(creep)).toBeLessThan(1e-3);
    });
  }
});

describe('friction on a slope with several iterations per substep (issue 15, item 6)', () => {
  // before the kinetic corrections of a substep were measured from its first anchor and together bounded
  // by μ λn, the FEM box slid 265 and 949 mm in 2 s at 2 and 4 iterations (a contact that slid in one
  // iteration was re-anchored and re-tested in the next: a sliding base got less than μ of its load;
  // docs/collision.md, "Several iterations per substep"); then 0.56 and 0.35 mm (1.20 mm at 1 iteration),
  // now 0.384 and 0.304 mm (0.765 mm at 1 iteration; "The contacts in the sweep")
  for (const iterations of [1, 2, 4]) {
    const limit = 1e-3;
    const name = `FEM box at ${iterations} iteration(s): 1.5° below atan μ it creeps < ${limit * 1e3} mm in 2 s; 1.5° above it slides with g (sin θ − μ cos θ)`;
    const check = () => {
      expect(Math.abs(slideIn2s('fem', CRITICAL - 1.5, iterations))).toBeLessThan(limit);
      const { world, body, th } = boxOnSlope('fem', CRITICAL + 1.5, iterations);
      const a = slideAcceleration(world, body, [-Math.cos(th), -Math.sin(th), 0]);
      const expected = 9.81 * (Math.sin(th) - MU * Math.cos(th));
      expect(Math.abs(a / expected - 1)).toBeLessThan(1e-3); // measured 0.002, 0.031, 0.034 % at 1, 2, 4
    };
    it(name, check);
  }
  // the 1.14 mm at the defaults all slip in the first 0.1 s, as the box released unstressed takes its weight
  // (docs/collision.md, scripts/friction-creep.ts): it shrinks with the substeps toward about 0.72 mm, the
  // step load's own slip, and all of it happens before 0.2 s
  it('FEM box at 1 iteration: the creep is the release transient, < 1 mm at 20 substeps, none after 0.2 s', () => {
    expect(Math.abs(slideIn2s('fem', CRITICAL - 1.5, 1, 20))).toBeLessThan(1e-3);
    const { world, th, base } = boxOnSlope('fem', CRITICAL - 1.5);
    for (let k = 0; k < 12; k++) world.step();
    const at = world.store.x.slice();
    for (let k = 12; k < 120; k++) world.step();
    expect(Math.abs(downhill(world, th, base, at))).toBeLessThan(2e-5);
  });
  for (const kind of ['rigid', 'geometric'] as const)
    it(`${kind} box at 4 iterations: 1.5° below atan μ it creeps < 1 mm in 2 s`, () => {
      expect(Math.abs(slideIn2s(kind, CRITICAL - 1.5, 4))).toBeLessThan(1e-3);
    });
});

describe('what the FEM box put down on a slope creeps by (issue 15, item 6; docs/collision.md, "Slip, lift and deformation")', () => {
  // the box of the tests above, E = 1 MPa, ν = 0.3, 500 kg/m³, 20 cm: under the tangential body load
  // q = ρ g sin θ with its base held, a block's top moves against its base by between the pure shear
  // layer's q H² / (2G) and the Timoshenko cantilever's 3 q H² / (2E) + 3 q H² / (5G) (κ = 5/6, width =
  // depth = H; bending adds to shear for a block as tall as wide)
  const th = ((CRITICAL - 1.5) * Math.PI) / 180;
  const H = BOX.size;
  const G = BOX.youngsModulus / (2 * (1 + BOX.poissonRatio));
  const q = BOX.density * 9.81 * Math.sin(th);
  const shearLayer = (q * H * H) / (2 * G);
  const timoshenko = (3 * q * H * H) / (2 * BOX.youngsModulus) + (3 * q * H * H) / (5 * G);

  it('at the defaults its base slips < 1 mm while in contact; the rest of its 1.14 mm is drift of the uphill rows that the forward rock lifts off the slope; static contacts do not move', () => {
    const { world, base } = box('fem', CRITICAL - 1.5);
    const probe = new SlipProbe(world, th, base);
    const x0 = world.store.x.slice();
    for (let k = 0; k < 120; k++) world.step();
    const creep = downhillOf(world.store.x, th, base, x0);
    // the probe accounts for all of it, substep by substep
    expect(Math.abs(probe.slip + probe.lifted - creep)).toBeLessThan(1e-9);
    // measured: slip 0.696 mm (0.690 sliding while pressed, 0.007 touching unpressed), lifted 0.439 mm
    expect(probe.slip).toBeLessThan(1e-3);
    expect(Math.abs(probe.stuck)).toBeLessThan(1e-6);
    // (the rows that drift were off the slope, lifted by up to 0.53 mm as the box rocked forward; the box
    // sheared 0.72 mm, 2.8 times the analytic amount below: at 1 iteration per substep the XPBD FEM is
    // softer than its material, so its release transient is the larger)
  });

  it('once settled, with the solve converged (20 substeps × 8 iterations), the top moves against the base as an elastic block under ρ g sin θ', () => {
    const { world, base, top } = box('fem', CRITICAL - 1.5, { substeps: 20, iterations: 8 });
    const x0 = world.store.x.slice();
    for (let k = 0; k < 90; k++) world.step();
    const x = world.store.x;
    const sheared = downhillOf(x, th, top, x0) - downhillOf(x, th, base, x0);
    // measured 0.222 mm: between the shear layer's 0.108 and Timoshenko's 0.254 mm (13 % below it: a
    // 4 × 4 × 4 linear tet mesh is stiffer than the continuum)
    expect(sheared).toBeGreaterThan(shearLayer);
    expect(sheared).toBeLessThan(timoshenko);
    expect(sheared).toBeGreaterThan(0.8 * timoshenko);
    // the weight's resultant meets the base (H/2) tan θ = 4.7 cm downhill of its centre, beyond the middle
    // third (W/6 = 3.3 cm): a base that takes no tension then bears on 3 (W/2 − e) = 16 cm from its downhill
    // edge, so the uphill row (20 cm from it) carries nothing and the three others carry the box
    // (measured: the uphill row 7–19 µm above the slope)
    const cc = colliderContactsOf(world);
    const u = (i: number) => Math.cos(th) * x[3 * i] + Math.sin(th) * x[3 * i + 1];
    const uphill = Math.max(...base.map(u));
    const bearing = 3 * (H / 2 - (H / 2) * Math.tan(th));
    expect(bearing).toBeGreaterThan(0.75 * H); // reaches the third row, 15 cm from the downhill edge
    expect(bearing).toBeLessThan(H); // not the uphill row
    for (const i of base) {
      const k = cc.contactOf[i];
      const loaded = k >= 0 && cc.lambdaN[k] > 0;
      expect(loaded).toBe(u(i) < uphill - 0.01);
    }
  });

  it('tilted slowly (6.3°/s) from level to 1.5° below atan μ, with no release transient, its base creeps < 0.5 mm at the defaults', () => {
    const world = new World({ substeps: 10 });
    const plane = tiltingPlane(0, 0.5, 4.5, CRITICAL - 1.5, MU);
    world.addCollider(plane);
    const s = BOX.size;
    const mesh = tetBox({ size: [s, s, s], resolution: [4, 4, 4], origin: [-s / 2, 0.005, -s / 2] });
    const body = new SoftBody(world, {
      mesh,
      density: BOX.density,
      model: 'fem',
      material: { youngsModulus: BOX.youngsModulus, poissonRatio: BOX.poissonRatio },
    });
    const x = world.store.x;
    const base: number[] = [];
    for (let i = body.offset; i < body.offset + body.count; i++)
      if (x[3 * i + 1] < 0.005 + 1e-9) base.push(i);
    const n = new Float64Array(3);
    const along = () => alongPlane(plane, x, base, n);
    for (let f = 0; f < 30; f++) world.step(); // put down level: 0.5 s
    const u0 = along();
    for (let f = 30; f < 60 * 6.5; f++) world.step(); // 4 s of tilting, 2 s held
    // measured 0.27 mm, all of it in the last degrees of the tilt
    expect(Math.abs(along() - u0)).toBeLessThan(5e-4);
  });
});

describe('friction anchors (docs/collision.md, "Friction and restitution")', () => {
  it('a box on a plane tilting at 2°/s starts to slide within 2° past atan μ (the sums of sticking are forgotten)', () => {
    // without the memory limit (stickMemory = ∞) what it held at 20° kept it stuck past 31.6°
    const th0 = CRITICAL - 6;
    const t0 = (th0 * Math.PI) / 180;
    const world = new World({ substeps: 10 });
    const plane = tiltingPlane(th0, 0.5, 10.5, 20, MU);
    world.addCollider(plane);
    const mesh = tetBox({ size: [0.2, 0.2, 0.2], resolution: [4, 4, 4], origin: [-0.1, 0, -0.1] });
    toSlope(mesh.positions, t0, 0.005);
    const body = new SoftBody(world, { mesh, density: 500, model: 'geometric' });
    const n = new Float64Array(3);
    const all = Array.from({ length: body.count }, (_, k) => body.offset + k);
    // mean position of the body along the plane's present uphill direction
    const along = () => alongPlane(plane, world.store.x, all, n);
    let u0 = 0;
    let at = Number.POSITIVE_INFINITY;
    for (let f = 1; f <= 60 * 6; f++) {
      world.step();
      if (f === 30) u0 = along();
      if (f > 30 && u0 - along() > 0.02) {
        at = th0 + 2 * (f / 60 - 0.5);
        break;
      }
    }
    expect(at).toBeGreaterThan(CRITICAL);
    expect(at).toBeLessThan(CRITICAL + 2);
  });

  it('a checkpoint carries the anchors: a restored world continues exactly', () => {
    const a = boxOnSlope('geometric', CRITICAL - 1.5).world;
    for (let k = 0; k < 10; k++) a.step();
    const state = structuredClone(a.saveState());
    const b = boxOnSlope('geometric', CRITICAL - 1.5).world;
    b.step(); // installs the same sets, then is overwritten
    b.loadState(state);
    stepTogether([a, b], 20);
    expect(head(b.store.x, 3 * b.store.count)).toEqual(head(a.store.x, 3 * a.store.count));
  });
});
