/**
 * The rigid-body store and its stages (Müller et al. 2020, "Detailed Rigid
 * Body Simulation with Extended Position Based Dynamics", §3), and the
 * particles' orientation channels: free flight against the analytic
 * parabola, torque-free rotation (angular momentum kept to round-off, the gyroscopic term
 * at work), checkpoints that resume bit for bit, and bad input.
 */
import { describe, expect, it } from 'vitest';
import { PbdError } from '../src/core/errors.js';
import { RIGID_DISABLED, RIGID_NO_GRAVITY } from '../src/core/rigid-store.js';
import { World, type WorldState } from '../src/core/world.js';
import { quatRotateInverse } from '../src/math/quat.js';
import { decodeWorldState, encodeWorldState } from '../src/node/state-codec.js';

const g = -9.81;

/** |a − b| / |b| for 3-vectors. */
function relDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]) / Math.hypot(b[0], b[1], b[2]);
}

/** The body-frame angular velocity Rᵀ ω of rigid body i. */
function bodyOmega(world: World, i: number): number[] {
  const out = [0, 0, 0];
  const w = world.rigids.omega;
  quatRotateInverse(out, 0, world.rigids.q, 4 * i, w[3 * i], w[3 * i + 1], w[3 * i + 2]);
  return out;
}

/** L = R diag(I) Rᵀ ω for the unit quaternion q = (x, y, z, w). */
function rotatedMomentum(q: ArrayLike<number>, I: number[], w: ArrayLike<number>): number[] {
  const [x, y, z, s] = [q[0], q[1], q[2], q[3]];
  const R = [
    [1 - 2 * (y * y + z * z), 2 * (x * y - z * s), 2 * (x * z + y * s)],
    [2 * (x * y + z * s), 1 - 2 * (x * x + z * z), 2 * (y * z - x * s)],
    [2 * (x * z - y * s), 2 * (y * z + x * s), 1 - 2 * (x * x + y * y)],
  ];
  const lb = [0, 1, 2].map((k) => I[k] * (R[0][k] * w[0] + R[1][k] * w[1] + R[2][k] * w[2]));
  return [0, 1, 2].map((r) => R[r][0] * lb[0] + R[r][1] * lb[1] + R[r][2] * lb[2]);
}

/** A world with one free rigid body spinning torque-free, no gravity. */
function spinner(substeps: number, omega: [number, number, number]): World {
  const world = new World({ dt: 1 / 60, substeps, gravity: [0, 0, 0] });
  world.rigids.add({ mass: 3, inertia: [1, 2, 3], angularVelocity: omega });
  return world;
}

describe('the rigid-body store', () => {
  it('a free body flies the parabola: v = v0 + g t, and x = x0 + v0 t + ½ g t² + ½ g h t (symplectic Euler, first order in h)', () => {
    const err: number[] = [];
    for (const substeps of [5, 10, 20]) {
      const world = new World({ dt: 1 / 60, substeps });
      const v0 = [1.5, 4, -0.5];
      const x0 = [0.2, 1, 0.3];
      world.rigids.add({
        mass: 2,
        inertia: [0.1, 0.2, 0.3],
        position: [0.2, 1, 0.3],
        velocity: [1.5, 4, -0.5],
      });
      const steps = 60;
      for (let k = 0; k < steps; k++) world.step();
      const t = steps * world.dt;
      const h = world.dt / substeps;
      const { x, v, q } = world.rigids;
      expect(v[0]).toBeCloseTo(v0[0], 9);
      expect(v[1]).toBeCloseTo(v0[1] + g * t, 9);
      expect(v[2]).toBeCloseTo(v0[2], 9);
      // symplectic Euler: x_n = x0 + v0 t + g h² n(n+1)/2 = parabola + ½ g h t
      expect(x[1] - (x0[1] + v0[1] * t + 0.5 * g * t * t)).toBeCloseTo(0.5 * g * h * t, 8);
      expect(x[0]).toBeCloseTo(x0[0] + v0[0] * t, 12);
      expect(Array.from(q.subarray(0, 4))).toEqual([0, 0, 0, 1]);
      err.push(Math.abs(x[1] - (x0[1] + v0[1] * t + 0.5 * g * t * t)));
    }
    expect(err[0] / err[1]).toBeCloseTo(2, 6);
    expect(err[1] / err[2]).toBeCloseTo(2, 6);
  });

  it('a body spun about a principal axis keeps the axis and its speed exactly; its angle lags ω t by O(h²)', () => {
    const lag: number[] = [];
    for (const substeps of [10, 40]) {
      const world = spinner(substeps, [0, 0, 6]);
      const steps = 60;
      for (let k = 0; k < steps; k++) world.step();
      const { q, omega } = world.rigids;
      expect(Math.abs(omega[0]) + Math.abs(omega[1])).toBeLessThan(1e-12);
      // the update inverts the prediction: no speed is lost
      expect(Math.abs(omega[2] - 6)).toBeLessThan(1e-10);
      const angle = 2 * Math.atan2(q[2], q[3]);
      const expected = 6 * steps * world.dt;
      const wrapped = ((expected - angle + 3 * Math.PI) % (2 * Math.PI)) - Math.PI;
      // each substep turns by 2 atan(hω/2) = hω (1 − (hω)²/12 + …)
      const h = world.dt / substeps;
      const predicted = steps * substeps * (6 * h - 2 * Math.atan(3 * h));
      expect(wrapped).toBeCloseTo(predicted, 10);
      lag.push(wrapped);
    }
    expect(lag[0] / lag[1]).toBeCloseTo(16, 1);
  });

  it('torque-free spin off the principal axes: ω wanders, the angular momentum stays to round-off', () => {
    for (const substeps of [5, 20]) {
      const world = spinner(substeps, [1, 0.3, 4]);
      // the momentum of the middle of a substep (RigidStore.angularMomentum): the initial ω counts as the last substep's
      world.step();
      const L0 = Float64Array.from(world.rigids.angularMomentum(0));
      const w0 = Float64Array.from(world.rigids.omega.subarray(0, 3));
      let wander = 0;
      let worst = 0;
      for (let k = 0; k < 600; k++) {
        world.step();
        wander = Math.max(wander, relDiff(world.rigids.omega, w0));
        worst = Math.max(worst, relDiff(world.rigids.angularMomentum(0), L0));
      }
      // without the gyroscopic term ω would stay fixed in space and L would turn with the body
      expect(wander).toBeGreaterThan(0.1);
      expect(worst).toBeLessThan(1e-10);
    }
  });

  it('spin about the intermediate axis is unstable (the tennis-racket flip) while L is kept', () => {
    const world = spinner(40, [1e-3, 3, 1e-3]);
    world.step();
    const L0 = Float64Array.from(world.rigids.angularMomentum(0));
    let flipped = false;
    let worst = 0;
    for (let k = 0; k < 60 * 10 && !flipped; k++) {
      world.step();
      if (bodyOmega(world, 0)[1] < -1.5) flipped = true;
      worst = Math.max(worst, relDiff(world.rigids.angularMomentum(0), L0));
    }
    expect(flipped).toBe(true);
    expect(worst).toBeLessThan(1e-10);
  });

  it("counts in the world's kinetic energy and momenta: ½ m v² + ½ ωᵀIω, m v, x × m v + R I Rᵀ ω", () => {
    const world = new World();
    world.rigids.add({
      mass: 2,
      inertia: [1, 2, 3],
      position: [1, 0, 0],
      velocity: [0, 3, 0],
      angularVelocity: [0, 0, 4],
    });
    world.rigids.add({ mass: Infinity, inertia: [1, 1, 1], velocity: [5, 0, 0] });
    expect(world.kineticEnergy()).toBeCloseTo(0.5 * 2 * 9 + 0.5 * 3 * 16, 12);
    expect(Array.from(world.linearMomentum())).toEqual([0, 6, 0]);
    const L = world.angularMomentum();
    expect(L[2]).toBeCloseTo(1 * 2 * 3 + 3 * 4, 12);
    expect(Math.abs(L[0]) + Math.abs(L[1])).toBe(0);
  });

  it('static, kinematic, gravity-free and disabled bodies', () => {
    const world = new World({ dt: 0.01, substeps: 4 });
    const fixed = world.rigids.add({
      mass: Infinity,
      inertia: [Infinity, Infinity, Infinity],
      position: [0, 1, 0],
    });
    const carried = world.rigids.add({
      mass: Infinity,
      inertia: [1, 1, 1],
      velocity: [1, 0, 0],
      angularVelocity: [0, 2, 0],
    });
    const floating = world.rigids.add({
      mass: 1,
      inertia: [1, 1, 1],
      flags: RIGID_NO_GRAVITY,
      velocity: [0, 0, 1],
    });
    const off = world.rigids.add({ mass: 1, inertia: [1, 1, 1], flags: RIGID_DISABLED, velocity: [5, 5, 5] });
    for (let k = 0; k < 50; k++) world.step();
    const { x, v, omega } = world.rigids;
    expect(Array.from(x.subarray(3 * fixed, 3 * fixed + 3))).toEqual([0, 1, 0]);
    expect(x[3 * carried]).toBeCloseTo(0.5, 12);
    expect(omega[3 * carried + 1]).toBe(2);
    expect(x[3 * floating + 2]).toBeCloseTo(0.5, 12);
    expect(v[3 * floating + 1]).toBe(0);
    expect(Array.from(x.subarray(3 * off, 3 * off + 3))).toEqual([0, 0, 0]);
    expect(Array.from(v.subarray(3 * off, 3 * off + 3))).toEqual([5, 5, 5]);
  });

  it('a checkpoint (saveState → encode → decode → loadState into a fresh world) resumes bit for bit', () => {
    const build = (): World => {
      const w = new World({ dt: 1 / 60, substeps: 7 });
      w.rigids.add({ mass: 2, inertia: [1, 2, 3], velocity: [1, 5, 0], angularVelocity: [0.7, 0.3, 4] });
      w.rigids.add({
        mass: 0.5,
        inertia: [0.2, 0.2, 0.1],
        position: [1, 0, 0],
        angularVelocity: [3, -1, 0.2],
      });
      return w;
    };
    const straight = build();
    for (let k = 0; k < 50; k++) straight.step();
    const first = build();
    for (let k = 0; k < 20; k++) first.step();
    const text = encodeWorldState(first.saveState());
    // a bare world: the store takes its bodies from the state
    const resumed = new World({ dt: 1 / 60, substeps: 7 });
    resumed.loadState(decodeWorldState(text));
    for (let k = 0; k < 30; k++) resumed.step();
    const a = straight.rigids.saveState(),
      b = resumed.rigids.saveState();
    expect(b.count).toBe(2);
    for (const key of ['x', 'q', 'v', 'omega'] as const) {
      expect(Buffer.from(b[key].buffer).equals(Buffer.from(a[key].buffer)), key).toBe(true);
    }
    expect(resumed.time).toBe(straight.time);
  });

  it('rejects bad bodies with a PbdError naming the field, and recovers a body whose pose became non-finite', () => {
    const world = new World();
    const bad: [object, RegExp][] = [
      [{ mass: 0, inertia: [1, 1, 1] }, /mass/],
      [{ mass: 1, inertia: [1, -1, 1] }, /inertia\[1\]/],
      [{ mass: 1, inertia: [1, 1] }, /inertia/],
      [{ mass: 1, inertia: [1, 1, 1], orientation: [0, 0, 0, 0] }, /orientation/],
      [{ mass: 1, inertia: [1, 1, 1], position: [0, Number.NaN, 0] }, /position/],
      [{ mass: 1, inertia: [1, 1, 1], flags: 64 }, /flags/],
    ];
    for (const [o, where] of bad) {
      const e = (() => {
        try {
          world.rigids.add(o as never);
        } catch (err) {
          return err;
        }
      })();
      expect(e).toBeInstanceOf(PbdError);
      expect((e as PbdError).where).toMatch(where);
    }
    expect(world.rigids.count).toBe(0);
    const i = world.rigids.add({ mass: 1, inertia: [1, 1, 1], position: [0, 2, 0] });
    world.step();
    const before = world.rigids.x[3 * i + 1];
    // a constraint gone wrong: the pose is NaN after the solve
    world.addStage({
      name: 'test.poison',
      phase: 'solve',
      order: 1,
      reads: [],
      writes: ['rigids.pose'],
      run: (ctx) => {
        ctx.rigids.q[4 * i] = Number.NaN;
      },
    });
    world.step();
    expect(world.stats.recoveries).toBeGreaterThan(0);
    expect(Number.isFinite(world.rigids.q[4 * i])).toBe(true);
    expect(world.rigids.x[3 * i + 1]).toBeLessThanOrEqual(before);
    expect(Array.from(world.rigids.v.subarray(0, 3))).toEqual([0, 0, 0]);
  });

  it('lives on SharedArrayBuffer when the world shares its memory, and grows keeping its bodies', () => {
    const world = new World({ sharedMemory: true });
    for (let k = 0; k < 40; k++) world.rigids.add({ mass: 1 + k, inertia: [1, 1, 1], position: [k, 0, 0] });
    expect(world.rigids.x.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(world.rigids.flags.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(world.rigids.x[3 * 39]).toBe(39);
    expect(world.rigids.mass[39]).toBe(40);
  });
});

describe("the particles' orientation channels", () => {
  it('exist only once a body asks, and survive the store growing', () => {
    const world = new World({ capacity: 16 });
    expect(world.store.q.length).toBe(0);
    const off = world.store.allocate(4, -1);
    world.store.addOrientations(off, 4, { inertia: true });
    expect(world.store.q.length).toBe(4 * world.store.capacity);
    world.store.omega[3 * off + 2] = 7;
    world.store.allocate(100, -1);
    expect(world.store.q.length).toBe(4 * world.store.capacity);
    expect(world.store.omega[3 * off + 2]).toBe(7);
    expect(world.store.q[4 * off + 3]).toBe(1);
    expect(() => world.store.addOrientations(off + 2, 4)).toThrow(PbdError);
    expect(() => world.store.setInertia(off + 10, 1, 1, 1)).toThrow(PbdError);
    expect(() => world.store.setInertia(off, 1, 0, 1)).toThrow(PbdError);
  });

  it('a particle with moments of inertia spins torque-free like a rigid body: L kept, ω wanders', () => {
    const world = new World({ dt: 1 / 60, substeps: 40, gravity: [0, 0, 0] });
    const s = world.store;
    const i = s.allocate(1, -1);
    s.setMass(i, 3);
    s.addOrientations(i, 1, { inertia: true });
    s.setInertia(i, 1, 2, 3);
    s.omega.set([1, 0.3, 4], 3 * i);
    const L = (): number[] => rotatedMomentum(s.q.subarray(4 * i), [1, 2, 3], s.omega.subarray(3 * i));
    const L0 = L();
    let worst = 0;
    let wander = 0;
    for (let k = 0; k < 120; k++) {
      world.step();
      worst = Math.max(worst, relDiff(L(), L0));
      wander = Math.max(wander, relDiff(s.omega.subarray(3 * i, 3 * i + 3), [1, 0.3, 4]));
    }
    expect(wander).toBeGreaterThan(0.1);
    expect(worst).toBeLessThan(0.01);
  });

  it('are part of the checkpoint', () => {
    const world = new World({ gravity: [0, 0, 0] });
    const i = world.store.allocate(2, -1);
    world.store.setMass(i, 1);
    world.store.setMass(i + 1, 1);
    world.store.addOrientations(i, 2);
    world.store.omega.set([0, 0, 3, 1, 0, 0], 3 * i);
    for (let k = 0; k < 5; k++) world.step();
    const state: WorldState = decodeWorldState(encodeWorldState(world.saveState()));
    expect(state.orientations?.q.length).toBe(8);
    const other = new World({ gravity: [0, 0, 0] });
    other.store.allocate(2, -1);
    other.store.addOrientations(0, 2);
    other.loadState(state);
    for (let k = 0; k < 5; k++) {
      world.step();
      other.step();
    }
    expect(
      Buffer.from(other.store.q.slice(0, 8).buffer).equals(Buffer.from(world.store.q.slice(0, 8).buffer)),
    ).toBe(true);
    const bare = new World();
    expect(() => bare.loadState(state)).toThrow(PbdError);
  });
});
