/**
 * BDF2 (seed 004, "Second Order Methods"): the second-order prediction
 * x̃ = 4/3 x_n − 1/3 x_{n−1} + 2/3 h v̂ and velocity update
 * v_{n+1} = (3 x_{n+1} − 4 x_n + x_{n−1}) / (2h), with the solve of step 2h/3.
 * Implicit Euler damps a swinging pendulum's energy away in a few dozen
 * periods at the default step; BDF2 keeps it.
 */
import { describe, expect, it } from 'vitest';
import { type EnergySystem, pendulumChain, vibratingBar } from '../experiments/bdf2.js';
import { hangChain } from '../experiments/xpbd-chain.js';
import { Cloth, gridMesh, type IntegratorKind, World } from '../src/index.js';

/** Energy lost after `seconds`, as a fraction of the swing's energy scale. */
function loss(sys: EnergySystem, seconds: number): number {
  const e0 = sys.energy();
  for (let k = 0; k < seconds * 60; k++) sys.world.step();
  expect(sys.world.stats.recoveries).toBe(0);
  return (e0 - sys.energy()) / sys.scale;
}

describe('BDF2 integrator', () => {
  it('a pendulum keeps its energy over 100 periods (drift < 0.2 %) where implicit Euler loses most of it (> 50 %)', () => {
    // 1 m, released horizontal: period 1.18 · 2π √(L/g) = 2.37 s; 100 periods = 237 s
    const bdf2 = loss(pendulumChain('bdf2', 1), 237);
    const euler = loss(pendulumChain('implicit-euler', 1), 237);
    expect(Math.abs(bdf2)).toBeLessThan(0.002);
    expect(euler).toBeGreaterThan(0.5);
  });

  it('a three-link chain loses far less energy in 30 s than under implicit Euler', () => {
    const bdf2 = loss(pendulumChain('bdf2', 3), 30);
    const euler = loss(pendulumChain('implicit-euler', 3), 30);
    expect(Math.abs(bdf2)).toBeLessThan(euler / 4);
    expect(euler).toBeGreaterThan(0.4);
  });

  it('a vibrating StVK bar (cantilever under gravity) keeps its mechanical energy where implicit Euler drains it', () => {
    const drift = (integrator: IntegratorKind) => {
      const sys = vibratingBar(integrator);
      const e0 = sys.energy();
      let late = 0;
      for (let k = 0; k < 20 * 60; k++) {
        sys.world.step();
        if (k >= 18 * 60) late += sys.energy() - e0; // the mean over the last 2 s (about a period)
      }
      return late / 120;
    };
    const bdf2 = drift('bdf2');
    const euler = drift('implicit-euler');
    expect(euler).toBeLessThan(-2); // J, of a swing that exchanges about 12 J
    expect(Math.abs(bdf2)).toBeLessThan(Math.abs(euler) / 5);
  });

  it('is second order in free fall: its position error stays O(h²) where implicit Euler drifts by h g t / 2', () => {
    const error = (integrator: IntegratorKind) => {
      const world = new World({ dt: 0.01, substeps: 1, integrator, gravity: [0, -10, 0] });
      const i = world.store.allocate(1, 0);
      world.store.setMass(i, 1);
      for (let k = 0; k < 101; k++) world.step();
      const t = world.time;
      // the velocity, linear in t, is exact for both; the position is exact for neither
      expect(world.store.v[3 * i + 1]).toBeCloseTo(-10 * t, 9);
      return Math.abs(world.store.x[3 * i + 1] - -5 * t * t);
    };
    const bdf2 = error('bdf2');
    const euler = error('implicit-euler');
    expect(bdf2).toBeLessThan(1e-3); // the first-order start's h² g / 2, carried (× 1.5) but not grown
    expect(euler).toBeGreaterThan(0.04); // h g t / 2 = 0.05 m at t = 1.01 s
  });

  it('restarts from a checkpoint bit for bit (x_{n−1}, v_{n−1} are saved), and a teleported particle restarts first order', () => {
    const a = pendulumChain('bdf2', 3);
    for (let k = 0; k < 30; k++) a.world.step();
    const state = a.world.saveState();
    expect(state.history).toBeTruthy();
    const b = pendulumChain('bdf2', 3);
    b.world.loadState(state);
    for (let k = 0; k < 30; k++) {
      a.world.step();
      b.world.step();
    }
    expect(Array.from(b.world.store.x)).toEqual(Array.from(a.world.store.x));
    expect(Array.from(b.world.store.v)).toEqual(Array.from(a.world.store.v));

    const w = new World({ dt: 0.01, substeps: 2, integrator: 'bdf2', gravity: [0, 0, 0] });
    const i = w.store.allocate(1, 0);
    w.store.setMass(i, 1);
    w.store.v[3 * i] = 2;
    for (let k = 0; k < 5; k++) w.step();
    w.store.x[3 * i] += 10; // teleport
    w.step();
    expect(w.store.v[3 * i]).toBeCloseTo(2, 9);
    expect(w.stats.speedClamps).toBe(0);
  });

  it("keeps XPBD's static answer: a hanging chain of compliance α stretches α m g N(N − 1)/2 (the solve runs at 2h/3)", () => {
    const N = 10;
    const m = 0.1;
    const alpha = 0.01;
    const world = new World({ substeps: 4, iterations: 20, damping: 2, integrator: 'bdf2' });
    const s = hangChain(world, N, m, 0.1, alpha);
    world.attachments.attach(s);
    for (let k = 0; k < 1500; k++) world.step();
    const stretch = -world.store.x[3 * (s + N - 1) + 1] - 0.1 * (N - 1);
    const analytic = (alpha * m * 9.81 * N * (N - 1)) / 2;
    // with α̃ = α/h² instead of α/(2h/3)² the chain would stretch 4/9 of it
    expect(Math.abs(stretch / analytic - 1)).toBeLessThan(0.02);
  });

  it('gives the same bits on 1 and 2 threads (a 40 × 40 cloth)', async () => {
    const make = (threads: number) => {
      const world = new World({ integrator: 'bdf2', threads });
      const cloth = new Cloth(world, { mesh: gridMesh({ width: 1, height: 1, cols: 40, rows: 40 }) });
      cloth.pin(0);
      cloth.pin(39);
      return world;
    };
    const worlds = [make(1), make(2)];
    await Promise.all(worlds.map((w) => w.threadsReady()));
    for (let k = 0; k < 30; k++) for (const w of worlds) w.step();
    const [a, b] = worlds.map((w) => Buffer.from(w.store.x.buffer, w.store.x.byteOffset, 24 * w.store.count));
    expect(a.equals(b)).toBe(true);
    for (const w of worlds) w.dispose();
  });

  it('is off by default and rejects an unknown integrator, naming the field', () => {
    expect(new World().integrator).toBe('implicit-euler');
    expect(new World().saveState().history).toBeUndefined();
    expect(() => new World({ integrator: 'rk4' as IntegratorKind })).toThrow(/world\.integrator/);
  });
});
