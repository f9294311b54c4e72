import { afterEach, describe, expect, it } from 'vitest';
import { FRAME_DT, fallingCloth } from '../bench/peers/cloth-scene.js';
import { Motion, type World } from '../src/index.js';
import { ParticleWindow, particlePass } from '../src/wasm/paired.js';

// The prediction into a body's f32 window and the velocity update out of it (src/core/window-passes.ts):
// on one thread the f32 rows' worlds keep main's bits with the window's copies gone.

const load = ParticleWindow.prototype.load;
const flush = ParticleWindow.prototype.flush;
afterEach(() => {
  particlePass.wasm = true;
  particlePass.home = true;
  ParticleWindow.prototype.load = load;
  ParticleWindow.prototype.flush = flush;
});

/** Counts the window's real copies in (a load of a window not held) and out. */
function countCopies(): { loads: number; flushes: number } {
  const c = { loads: 0, flushes: 0 };
  ParticleWindow.prototype.load = function (this: ParticleWindow, st) {
    if (st.held !== this) c.loads++;
    load.call(this, st);
  };
  ParticleWindow.prototype.flush = function (this: ParticleWindow, st) {
    c.flushes++;
    flush.call(this, st);
  };
  return c;
}

/** A stage outside the core's: the world then predicts into p and copies the window in and out (the reference). */
function unfused(world: World): void {
  world.pipeline.add({ name: 'test.nothing', phase: 'finish', reads: [], writes: [], run() {} });
}

/** The falling cloth of the bench's -distbend rows (compliance matched to ammo.js: 0.600 at 50, 10.0 at 201) or its dihedral row. */
function benchCloth(
  n: number,
  model: 'distance' | 'dihedral',
  reference: boolean,
  precision: 'f32' | 'f64' = 'f32',
  storeMemory = true,
) {
  const alpha = model === 'dihedral' ? 0.01 : n === 201 ? 10.0 : 0.6;
  const s = fallingCloth({ n, substeps: 5, bendCompliance: alpha, bendModel: model, precision, storeMemory });
  if (reference) unfused(s.world);
  return s;
}

const bits = (a: Float64Array, n: number) => Buffer.from(a.slice(0, n).buffer);

function expectSameState(a: World, b: World): void {
  const n = 3 * a.store.count;
  expect(bits(a.store.x, n).equals(bits(b.store.x, n))).toBe(true);
  expect(bits(a.store.v, n).equals(bits(b.store.v, n))).toBe(true);
  expect(bits(a.store.p, n).equals(bits(b.store.p, n))).toBe(true);
  expect(a.stats.recoveries).toBe(b.stats.recoveries);
  expect(a.stats.speedClamps).toBe(b.stats.speedClamps);
}

describe('the prediction into the window (one thread)', () => {
  for (const [n, model, precision, steps] of [
    [50, 'distance', 'f32', 60],
    [50, 'dihedral', 'f32', 60],
    [201, 'distance', 'f32', 8],
    [50, 'distance', 'f64', 40],
    [201, 'distance', 'f64', 4],
  ] as const) {
    it(`cloth-${n}-fall${model === 'distance' ? '-distbend' : ''}${precision === 'f32' ? '-f32' : ''}: x, v, p after ${steps} steps equal the copying path's, bit for bit`, () => {
      const fused = benchCloth(n, model, false, precision);
      const ref = benchCloth(n, model, true, precision);
      fused.world.step();
      ref.world.step();
      const copies = countCopies();
      for (let k = 0; k < steps; k++) {
        fused.world.step();
        ref.world.step();
      }
      // the reference world copies in and out every substep; the fused one copies out once per
      // step (after its last substep, where the step ends on p) and never in
      expect(copies.loads).toBe(steps * 5);
      expect(copies.flushes).toBe(steps * 6);
      expectSameState(fused.world, ref.world);
      expect(fused.world.store.x.subarray(0, 3 * fused.world.store.count).every(Number.isFinite)).toBe(true);
    });
  }

  it('the window copies per substep: none in, one out per step; the velocity update predicts the next substep', () => {
    const { world } = benchCloth(50, 'distance', false);
    world.step();
    const copies = countCopies();
    let predicted = 0;
    const stage = world.pipeline.find('particles.update')!;
    const run = stage.run.bind(stage);
    stage.run = (ctx, sch) => {
      run(ctx, sch);
      if (ctx.store.predictedAhead) predicted++;
    };
    for (let k = 0; k < 10; k++) world.step();
    expect(copies.loads).toBe(0);
    expect(copies.flushes).toBe(10);
    // substeps 0–3 of each step predict the next one; the last one ends on p
    expect(predicted).toBe(10 * 4);
  });

  it('with damping, a speed limit that clamps, a moving stiff pin and a particle gone non-finite: the same bits and counts', () => {
    const make = (reference: boolean) => {
      const s = benchCloth(50, 'distance', reference);
      const w = s.world;
      w.damping = 0.5;
      w.maxSpeed = 1.5;
      // a kinematic pin: the stiff attachment's beginStep writes its target into the held window
      s.cloth.unpin(0);
      s.cloth.pin(0, new Motion({ oscillate: { amplitude: [0.2, 0.1, 0], frequency: 2 } }));
      return s;
    };
    const fused = make(false);
    const ref = make(true);
    for (let k = 0; k < 30; k++) {
      if (k === 12) {
        // a particle's velocity gone non-finite: the update's recovery path
        for (const s of [fused, ref]) s.world.store.v[3 * (s.cloth.offset + 777) + 1] = Number.NaN;
      }
      fused.world.step();
      ref.world.step();
    }
    expect(fused.world.stats.speedClamps).toBeGreaterThan(0);
    expect(fused.world.stats.recoveries).toBeGreaterThan(0);
    expectSameState(fused.world, ref.world);
  });

  it('with wind (hooks that move particles between the passes) and a soft attachment (projected on p): the same bits', () => {
    const make = (reference: boolean) => {
      const s = benchCloth(50, 'distance', reference);
      s.world.configure({ wind: { velocity: [2, 0, 1] } });
      return s;
    };
    const fused = make(false);
    const ref = make(true);
    for (let k = 0; k < 20; k++) {
      if (k === 8) for (const s of [fused, ref]) s.world.grab(s.cloth.offset + 1200, [0.3, 0.5, 0.2], 1e-3);
      fused.world.step();
      ref.world.step();
    }
    expectSameState(fused.world, ref.world);
    expect(fused.world.time).toBeCloseTo(20 * FRAME_DT, 12);
  });
});

describe('the fused particle pass in the kernel module (an f32 window)', () => {
  /** Steps a world with the module's pass (wasm) or the JavaScript loop; the module's passes that ran. */
  const stepWith = (world: World, wasm: boolean, steps: number, before?: (k: number) => void): number => {
    const runs = particlePass.runs;
    particlePass.wasm = wasm;
    for (let k = 0; k < steps; k++) {
      before?.(k);
      world.step();
    }
    particlePass.wasm = true;
    return particlePass.runs - runs;
  };

  for (const [n, steps] of [
    [50, 40],
    [201, 4],
  ] as const) {
    it(`cloth-${n}-fall-distbend-f32: the module's pass gives the JavaScript loop's x, v, p bit for bit, and it is the one that runs`, () => {
      const a = benchCloth(n, 'distance', false);
      const b = benchCloth(n, 'distance', false);
      // after the first step, the module's pass runs for substeps 0–3 of each step (the last one
      // ends on p); the loop never calls it
      stepWith(a.world, true, 1);
      stepWith(b.world, false, 1);
      expect(stepWith(a.world, true, steps)).toBe(steps * 4);
      expect(stepWith(b.world, false, steps)).toBe(0);
      expectSameState(a.world, b.world);
    });
  }

  /** Steps with the store's x and v homed in the window's kernel memory or not; the module's passes that copied x and v. */
  const stepHomed = (world: World, home: boolean, steps: number, before?: (k: number) => void): number => {
    const copied = particlePass.copied;
    particlePass.home = home;
    stepWith(world, true, steps, before);
    particlePass.home = true;
    return particlePass.copied - copied;
  };
  const homed = (world: World) => {
    const st = world.store;
    const home = st.x.buffer !== st.own.x.buffer;
    // x, v and invMass move together
    expect(st.v.buffer === st.x.buffer && st.invMass.buffer === st.x.buffer).toBe(home);
    return home;
  };

  for (const [n, steps] of [
    [50, 40],
    [201, 3],
  ] as const) {
    it(`cloth-${n}-fall-distbend-f32, plain store arrays (storeMemory false) homed in the kernel memory: no copies, the prediction in the module too, the copying pass's and the loop's bits`, () => {
      const a = benchCloth(n, 'distance', false, 'f32', false);
      const b = benchCloth(n, 'distance', false, 'f32', false);
      const c = benchCloth(n, 'distance', false, 'f32', false);
      stepHomed(a.world, true, 1);
      stepHomed(b.world, false, 1);
      stepWith(c.world, false, 1);
      expect(homed(a.world)).toBe(true);
      expect(homed(b.world)).toBe(false);
      // and each step's first prediction in the module too (ParticleWindow.predict), on the homed store only
      const predicts = particlePass.predicts;
      expect(stepHomed(a.world, true, steps)).toBe(0);
      expect(particlePass.predicts - predicts).toBe(steps);
      expect(stepHomed(b.world, false, steps)).toBe(steps * 4);
      stepWith(c.world, false, steps);
      expect(particlePass.predicts - predicts).toBe(steps);
      expectSameState(a.world, b.world);
      expectSameState(a.world, c.world);
    });
  }

  it('a homed store (storeMemory false) grown past its home goes back to the copies, with the same bits', () => {
    const a = benchCloth(50, 'distance', false, 'f32', false);
    const b = benchCloth(50, 'distance', false, 'f32', false);
    stepHomed(a.world, true, 5);
    stepHomed(b.world, false, 5);
    expect(homed(a.world)).toBe(true);
    // 2,500 particles in a capacity of 4,096 (the home's): 2,000 more double it
    for (const s of [a, b]) {
      const i = s.world.store.allocate(2000, 0);
      s.world.store.x[3 * i + 1] = 3;
    }
    expect(homed(a.world)).toBe(false);
    expect(stepHomed(a.world, true, 5)).toBe(5 * 4);
    expect(homed(a.world)).toBe(false);
    stepHomed(b.world, false, 5);
    expectSameState(a.world, b.world);
  });

  // session 20 (home27): on the store's memory the store's arrays are the kernels' from the start
  it.each(['f32', 'f64'] as const)(
    "(%s) on the store's memory: the passes in place from the first step (no copies, the arrays never replaced, also when the store grows), the bits of the copying pass and of plain arrays",
    (precision) => {
      const a = benchCloth(50, 'distance', false, precision);
      const b = benchCloth(50, 'distance', false, precision);
      const c = benchCloth(50, 'distance', false, precision, false);
      const st = a.world.store;
      const { x, v, invMass, version } = st;
      expect(st.memory?.owns(x.buffer)).toBe(true);
      stepHomed(a.world, true, 1);
      stepHomed(b.world, false, 1);
      stepHomed(c.world, true, 1);
      // (f64: the module's pass runs on arrays in its memory only, else the loop, which copies nothing)
      expect(stepHomed(a.world, true, 5)).toBe(0);
      expect(stepHomed(b.world, false, 5)).toBe(precision === 'f32' ? 5 * 4 : 0);
      stepHomed(c.world, true, 5);
      expect([st.x === x, st.v === v, st.invMass === invMass, st.version]).toEqual([
        true,
        true,
        true,
        version,
      ]);
      expectSameState(a.world, b.world);
      expectSameState(a.world, c.world);
      // grown: new arrays on the same memory (version up), the passes still in place
      for (const s of [a, b, c]) {
        const i = s.world.store.allocate(2000, 0);
        s.world.store.x[3 * i + 1] = 3;
      }
      expect(st.version).toBeGreaterThan(version);
      expect(st.memory?.owns(st.x.buffer)).toBe(true);
      expect(stepHomed(a.world, true, 5)).toBe(0);
      stepHomed(b.world, false, 5);
      stepHomed(c.world, true, 5);
      expectSameState(a.world, b.world);
      expectSameState(a.world, c.world);
    },
  );

  // f64 (session 19, cl25): the module's f64 passes (windowUpdatePredictF64, windowPredictF64) on an f64 window
  it.each([
    ['distance', 'f32'],
    ['distance', 'f64'],
    ['dihedral', 'f64'],
  ] as const)(
    "(%s, %s) with damping, speed clamps in both passes, a moving pin and a particle gone non-finite: the same bits and counts, the module's passes the ones that run",
    (model, precision) => {
      const make = () => {
        const s = benchCloth(50, model, false, precision);
        s.world.damping = 0.5;
        s.world.maxSpeed = 1.5;
        s.cloth.unpin(0);
        s.cloth.pin(0, new Motion({ oscillate: { amplitude: [0.2, 0.1, 0], frequency: 2 } }));
        return s;
      };
      const a = make();
      const b = make();
      const nan = (s: ReturnType<typeof make>) => (k: number) => {
        // non-finite mid-step: the first fused pass meets a NaN p (the recovery's path in the module)
        if (k === 12) s.world.store.v[3 * (s.cloth.offset + 777) + 1] = Number.NaN;
      };
      stepWith(a.world, true, 1);
      stepWith(b.world, false, 1);
      const predicts = particlePass.predicts;
      expect(stepWith(a.world, true, 30, nan(a))).toBe(30 * 4);
      expect(stepWith(b.world, false, 30, nan(b))).toBe(0);
      // each step's first prediction in the module too, on the homed store (none with the loops)
      expect(particlePass.predicts - predicts).toBe(30);
      expect(a.world.stats.speedClamps).toBeGreaterThan(0);
      expect(a.world.stats.recoveries).toBeGreaterThan(0);
      expectSameState(a.world, b.world);
    },
  );
});
