/**
 * The f32 mode (WorldOptions.precision 'f32'; scripts/kernels/emit-simd.ts,
 * JS_F32 and F32X4_MODE): the JavaScript twin of the f32x4 kernels gives
 * their bits on random constraint batches, degenerate ones included, and on
 * whole worlds; its angle polynomial is atan2 to f32 accuracy; an f32 cloth
 * stays within a stated distance of the f64 one, is deterministic and stays
 * bounded at 201 × 201.
 */

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { edgeStretch, fallingCloth } from '../bench/peers/cloth-scene.js';
import { DihedralBending, dihedralAngleGradients } from '../src/cloth/dihedral-bending.js';
import { DistanceConstraints } from '../src/constraints/distance.js';
import { ElementConstraints } from '../src/constraints/element-set.js';
import { IsometricBending } from '../src/continuum/isometric-bending.js';
import type { StepContext } from '../src/core/step-context.js';
import { loadScene, ParticleStore, useWasmKernels, World } from '../src/index.js';
import { ELEMENT_IMPORTS, type ElementExports } from '../src/wasm/element-kernels.generated.js';
import { wasmKernel } from '../src/wasm/kernels.js';
import { instantiate } from '../src/wasm/paired.js';
import { withSmallSetsOnPool } from './helpers/worlds.js';
import { rng } from './helpers.js';

/** The context a set's beginStep and project read (XPBD, h = 1/300, one pass). */
function context(store: ParticleStore, precision: 'f64' | 'f32', reverse: boolean): StepContext {
  const world = { precision, store } as unknown as StepContext['world'];
  return { world, store, solver: 'xpbd', hSolve: 1 / 300, passes: 1, reverse } as unknown as StepContext;
}

/**
 * `groups` constraints of `arity` random particles each, every fourth group
 * degenerate: coincident particles, a flat or a folded hinge, zero inverse masses.
 */
function batch(seed: number, arity: number, groups: number, negZero = false) {
  const r = rng(seed);
  const n = arity * groups;
  const store = new ParticleStore(n + 4);
  store.allocate(n, 0);
  const idx: number[] = [];
  for (let g = 0; g < groups; g++) {
    const o = arity * g;
    const kind = g % 4 === 3 ? (g >> 2) % 4 : -1;
    for (let v = 0; v < arity; v++) {
      const i = o + v;
      idx.push(i);
      for (let d = 0; d < 3; d++) store.x[3 * i + d] = (r() - 0.5) * (g % 7 === 0 ? 1e-3 : 2);
      store.invMass[i] = r() < 0.1 ? 0 : 0.5 + 4 * r();
    }
    if (kind === 0) for (let d = 0; d < 3; d++) store.x[3 * (o + 1) + d] = store.x[3 * o + d]; // coincident
    if (kind === 1 && arity === 4) {
      // flat hinge: c and d in the plane z = 0 on either side of a–b
      const P = [0, 0, 0, 1, 0, 0, 0.4, 0.7, 0, 0.6, -0.8, 0];
      for (let k = 0; k < 12; k++) store.x[3 * o + k] = P[k] + 1e-7 * (r() - 0.5);
    }
    if (kind === 2 && arity === 4) {
      // folded shut: c and d on the same side, nearly coincident
      const P = [0, 0, 0, 1, 0, 0, 0.4, 0.7, 0, 0.4, 0.7, 1e-6];
      for (let k = 0; k < 12; k++) store.x[3 * o + k] = P[k];
    }
    if (kind === 3) for (let v = 0; v < arity; v++) store.invMass[o + v] = 0;
  }
  // −0 coordinates (y of every fifth particle): what a store of old ± a masked increment must keep
  if (negZero) for (let i = 0; i < n; i += 5) store.x[3 * i + 1] = -0;
  store.p.set(store.x.subarray(0, 3 * n));
  return { store, idx };
}

function makeSet(store: ParticleStore, arity: number, idx: number[], isometric = false): ElementConstraints {
  if (isometric) {
    // rest stencils from a bent copy of the batch, so that the current shape is off its rest curvature
    const rest = Float64Array.from(store.x, (v, i) => v + 0.05 * Math.sin(7 * i));
    return new IsometricBending(store, idx, { compliance: 1e-4 }, rest);
  }
  if (arity === 2) {
    const rest = idx.map((_, k) => 0.3 + (k % 5) * 0.2).filter((_, k) => k % 2 === 0);
    return new DistanceConstraints(store, idx, rest, { compliance: 1e-6 });
  }
  const rest = Array.from({ length: idx.length / 4 }, (_, k) => (k % 3 === 0 ? Math.PI : 0.5 + k * 0.01));
  return new DihedralBending(store, idx, rest, { compliance: 1e-3 });
}

/** p and λ after `sweeps` alternating forward and backward sweeps of a fresh set on a fresh batch. */
function sweepBatch(
  seed: number,
  arity: number,
  groups: number,
  backend: 'auto' | 'js',
  sweeps: number,
  isometric = false,
  negZero = false,
) {
  const { store, idx } = batch(seed, arity, groups, negZero);
  const set = makeSet(store, arity, idx, isometric);
  set.backend = backend;
  set.beginStep(context(store, 'f32', false));
  for (let s = 0; s < sweeps; s++) set.project(context(store, 'f32', s % 2 === 1));
  return { p: store.p.slice(0, 3 * store.count), lam: set.lambda.slice(), x: store.x, set };
}

describe('the f32 JavaScript twin gives the f32x4 kernels’ bits', () => {
  for (const [arity, name, iso] of [
    [2, 'distance', false],
    [4, 'dihedral bending', false],
    [4, 'isometric bending', true],
  ] as const) {
    it(`${name}: random batches with degenerate constraints, forward and backward sweeps`, () => {
      for (const seed of [1, 2, 3]) {
        const wasm = sweepBatch(seed, arity, 203, 'auto', 4, iso);
        const js = sweepBatch(seed, arity, 203, 'js', 4, iso);
        expect(wasm.set.activeBackend).toBe('wasm');
        expect(js.set.activeBackend).toBe('js');
        let moved = 0;
        for (let i = 0; i < js.p.length; i++) {
          if (js.p[i] !== js.x[i]) {
            moved++;
            expect(Math.fround(js.p[i])).toBe(js.p[i]); // every written coordinate is an f32
          }
          expect(Number.isFinite(js.p[i])).toBe(true);
        }
        expect(moved).toBeGreaterThan(js.p.length / 3);
        expect(wasm.p).toEqual(js.p);
        expect(wasm.lam).toEqual(js.lam);
      }
    });
  }

  it('keeps −0 coordinates bit for bit: inactive lanes and pinned particles of the f32x4 stores, as the twin', () => {
    // the stores write old − (increment and mask) (a move p += g k as p −= g (−k), emit-simd.ts):
    // x − (+0) is x for x = −0 as well, where x + (+0) would make it +0
    for (const [arity, iso] of [
      [2, false],
      [4, false],
      [4, true],
    ] as const) {
      const wasm = sweepBatch(5, arity, 203, 'auto', 3, iso, true);
      const js = sweepBatch(5, arity, 203, 'js', 3, iso, true);
      expect(wasm.set.activeBackend).toBe('wasm');
      let kept = 0;
      for (let i = 0; i < js.p.length; i++) {
        expect(Object.is(wasm.p[i], js.p[i])).toBe(true);
        if (Object.is(js.x[i], -0) && Object.is(wasm.p[i], -0)) kept++;
      }
      expect(kept).toBeGreaterThan(0); // unmoved particles at −0 stay −0
      expect(wasm.lam).toEqual(js.lam);
    }
  });

  it('dihedral bending, two groups per iteration: groups wholly inactive beside active ones, and an odd last group', () => {
    // the fused loop projects two groups of four at a time (scripts/kernels/interleave.ts): both
    // active, one of them or neither active past the last exit (flat hinges: denominator 0; all
    // pinned), and a trailing odd group; each arrangement must give the JavaScript twin's bits.
    // M: three lanes active and one flat (its μ is 0/0): a pair with such a group takes the masked
    // rest, not the one of wholly active pairs (AA), which leaves the masks out (session 16)
    const pattern = ['AA', 'AF', 'FA', 'FF', 'AP', 'PA', 'PF', 'MA', 'AM', 'MM', 'AA', 'M'].join('');
    const out = (['auto', 'js'] as const).map((backend) => {
      const { store, idx } = batch(5, 4, 4 * pattern.length);
      for (let g = 0; g < pattern.length; g++) {
        for (let l = 0; l < 4; l++) {
          const o = 4 * (4 * g + l);
          if (pattern[g] === 'F' || (pattern[g] === 'M' && l === 3)) {
            // exactly flat (det = 0): the group's lanes are inactive at the last exit
            const P = [0, 0, 0, 1, 0, 0, 0.4, 0.7, 0, 0.6, -0.8, 0];
            for (let k = 0; k < 12; k++) store.x[3 * o + k] = P[k] + l;
          }
          for (let v = 0; v < 4; v++) {
            if (pattern[g] === 'P') store.invMass[o + v] = 0;
            else if (store.invMass[o + v] === 0) store.invMass[o + v] = 1;
          }
        }
      }
      store.p.set(store.x.subarray(0, 3 * store.count));
      const rest = Array.from({ length: idx.length / 4 }, (_, k) => 0.5 + k * 0.01);
      const set = new DihedralBending(store, idx, rest, { compliance: 1e-3 });
      set.backend = backend;
      set.beginStep(context(store, 'f32', false));
      for (let s = 0; s < 3; s++) set.project(context(store, 'f32', s % 2 === 1));
      return { p: store.p.slice(0, 3 * store.count), x: store.x, lam: set.lambda.slice(), set };
    });
    const [wasm, js] = out;
    expect(wasm.set.activeBackend).toBe('wasm');
    for (let g = 0; g < pattern.length; g++) {
      let moved = 0;
      for (let i = 3 * 16 * g; i < 3 * 16 * (g + 1); i++) if (js.p[i] !== Math.fround(js.x[i])) moved++;
      // active groups move, inactive ones keep their positions (rounded to f32 by the window)
      if (pattern[g] === 'A' || pattern[g] === 'M') expect(moved).toBeGreaterThan(0);
      else expect(moved).toBe(0);
      if (pattern[g] === 'M')
        for (let i = 3 * (16 * g + 12); i < 3 * (16 * g + 16); i++)
          expect(js.p[i]).toBe(Math.fround(js.x[i]));
    }
    expect(wasm.p).toEqual(js.p);
    expect(wasm.lam).toEqual(js.lam);
  });

  it('multipliers kept in the kernel’s lane order: read, written and zeroed between sweeps as in constraint order', () => {
    // the f32x4 sweeps keep λ in f32 in the groups' lane order (src/wasm/paired.ts); set.lambda copies
    // them back when read, a write to it reaches the next sweep, and beginStep's λ⁰ = 0 (001 Eq. 17)
    // zeroes them: the JavaScript twin, which works on set.lambda alone, must give the same bits
    for (const arity of [2, 4]) {
      const out = (['auto', 'js'] as const).map((backend) => {
        const { store, idx } = batch(7, arity, 203);
        const set = makeSet(store, arity, idx);
        set.backend = backend;
        set.beginStep(context(store, 'f32', false));
        set.project(context(store, 'f32', false));
        const lam = set.lambda;
        const first = lam.slice();
        for (let c = 1; c < set.count; c += 2) lam[c] *= 0.5;
        set.project(context(store, 'f32', true));
        const second = set.lambda.slice();
        set.beginStep(context(store, 'f32', false));
        const zeroed = set.lambda.every((v) => v === 0);
        set.project(context(store, 'f32', false));
        return { p: store.p.slice(0, 3 * store.count), first, second, zeroed, lam: set.lambda.slice(), set };
      });
      const [wasm, js] = out;
      expect(wasm.set.activeBackend).toBe('wasm');
      expect(wasm.first.filter((v) => v !== 0).length).toBeGreaterThan(wasm.set.count / 2);
      expect(wasm.first).toEqual(js.first);
      expect(wasm.second).toEqual(js.second);
      expect(wasm.second).not.toEqual(wasm.first);
      expect(wasm.zeroed && js.zeroed).toBe(true);
      expect(wasm.lam).toEqual(js.lam);
      expect(wasm.p).toEqual(js.p);
    }
  });

  it('the f32 C (the rotation by the rest angle) is atan2 − φ0 to within 5e-7 rad over a whole turn of the hinge', () => {
    // one unit hinge per sample: a = 0, b = e_x, c = (½, 1, 0), d = (½, cos θ, sin θ) (f32 coordinates)
    const thetas: number[] = [];
    for (let k = 1; k < 720; k++) thetas.push((k / 720) * 2 * Math.PI);
    thetas.push(Math.PI - 1e-6, Math.PI + 1e-6, Math.PI / 2, (3 * Math.PI) / 2);
    const n = thetas.length;
    const store = new ParticleStore(4 * n);
    store.allocate(4 * n, 0);
    const idx: number[] = [];
    thetas.forEach((t, g) => {
      const P = [0, 0, 0, 1, 0, 0, 0.5, 1, 0, 0.5, Math.fround(Math.cos(t)), Math.fround(Math.sin(t))];
      for (let k = 0; k < 12; k++) store.x[12 * g + k] = P[k];
      for (let v = 0; v < 4; v++) {
        idx.push(4 * g + v);
        store.invMass[4 * g + v] = 1;
      }
    });
    store.p.set(store.x.subarray(0, 12 * n));
    // rest angles φ64 from the f64 geometry (Math.atan2); one f32 projection (compliance 0, k′ = 1) from
    // λ = 0 then gives λ = −s² C / wG with C = φ32 − φ64: recover C with the f64 s and wG
    const set = new DihedralBending(store, idx);
    set.backend = 'js';
    set.maxStep = 10;
    set.beginStep(context(store, 'f32', false));
    set.project(context(store, 'f32', false));
    const g = new Float64Array(13);
    let worst = 0;
    for (let c = 0; c < set.count; c++) {
      const q = set.indices.subarray(4 * c, 4 * c + 4);
      const phi = dihedralAngleGradients(store.x, q[0], q[1], q[2], q[3], g);
      expect(phi).toBeGreaterThan(0);
      let wG = 0;
      for (let k = 0; k < 12; k++) wG += g[k] * g[k];
      const C = (-set.lambda[c] * wG) / (g[12] * g[12]);
      expect(Number.isFinite(C)).toBe(true);
      worst = Math.max(worst, Math.abs(C));
    }
    // f32 round-off of the normals, of D and κ s (about 1e-7 relative) and the polynomial's 1.5e-7 rad:
    // measured 2.4e-7 rad (two f32 ulps at π/2), stated bound 5e-7
    expect(worst).toBeGreaterThan(0);
    expect(worst).toBeLessThan(5e-7);
  });
});

describe('the f32 trust region (the rotation by the rest angle)', () => {
  it('bounds C at min(maxStep, 0.5) rad: ±maxStep below 0.5, ±0.5 above (the f32 atan holds on [0, tan 0.5]), where f64 takes maxStep', () => {
    // one unit hinge at θ = 2 (φ = 2 rad, up to f32 rounding), rest angles φ ∓ 1 and φ + 0.3: C = 1, −0.3 (and −1)
    const t = 2;
    const P = [0, 0, 0, 1, 0, 0, 0.5, 1, 0, 0.5, Math.fround(Math.cos(t)), Math.fround(Math.sin(t))];
    const g = new Float64Array(13);
    const measured = (precision: 'f64' | 'f32', dC: number, maxStep: number): number => {
      const store = new ParticleStore(4);
      store.allocate(4, 0);
      for (let k = 0; k < 12; k++) store.x[k] = P[k];
      store.invMass.fill(1);
      store.p.set(store.x.subarray(0, 12));
      const phi = dihedralAngleGradients(store.x, 0, 1, 2, 3, g);
      const set = new DihedralBending(store, [0, 1, 2, 3], [phi - dC]);
      set.backend = 'js';
      set.maxStep = maxStep;
      set.beginStep(context(store, precision, false));
      set.project(context(store, precision, false));
      let wG = 0;
      for (let k = 0; k < 12; k++) wG += g[k] * g[k];
      return (-set.lambda[0] * wG) / (g[12] * g[12]);
    };
    for (const [dC, maxStep, f32, f64] of [
      [1, 10, 0.5, 1],
      [-1, 10, -0.5, -1],
      [-0.3, 10, -0.3, -0.3],
      [1, 0.2, 0.2, 0.2],
      [-0.3, 0.2, -0.2, -0.2],
      [0.1, 0.2, 0.1, 0.1],
    ]) {
      expect(Math.abs(measured('f32', dC, maxStep) - f32), `f32 C ${dC} maxStep ${maxStep}`).toBeLessThan(
        2e-6,
      );
      expect(Math.abs(measured('f64', dC, maxStep) - f64), `f64 C ${dC} maxStep ${maxStep}`).toBeLessThan(
        1e-12,
      );
    }
  });
});

/** A falling cloth after `frames`, its cloth positions and the world. */
function cloth(n: number, precision: 'f64' | 'f32', frames: number) {
  const fc = fallingCloth({ n, substeps: 5, bendCompliance: 0.01, precision });
  for (let f = 0; f < frames; f++) fc.world.step();
  const off = fc.cloth.offset;
  return { fc, x: fc.world.store.x.slice(3 * off, 3 * (off + fc.cloth.count)) };
}

describe('the f32 window (x y z w per particle)', () => {
  it('rounds positions and inverse masses as Math.fround on the way in and widens them exactly on the way out', () => {
    const mod = wasmKernel('elements');
    expect(mod).not.toBeNull();
    const { exports, buffer } = instantiate(mod!, 65536, ELEMENT_IMPORTS, 'elements');
    const ex = exports as unknown as ElementExports;
    const r = rng(7);
    // ordinary values, ties and near-ties of f32 rounding, overflow, underflow, signed zeros, subnormals
    const special = [
      0.1,
      -0.1,
      1 + 2 ** -24,
      1 + 3 * 2 ** -24,
      3.4028235677973366e38,
      1e39,
      -1e39,
      1e-46,
      -0,
      0,
      1.4e-45,
      7e-46,
      1e-40,
      1 / 3,
    ];
    const n = 41; // odd: windowSaveF32 moves two particles per iteration and the last alone
    const src = 1024,
      srcW = src + 24 * n,
      dst = srcW + 8 * n,
      back = dst + 16 * n;
    const S = new Float64Array(buffer, src, 3 * n);
    const SW = new Float64Array(buffer, srcW, n);
    for (let i = 0; i < 3 * n; i++)
      S[i] = i < special.length ? special[i] : (r() - 0.5) * 10 ** Math.floor(r() * 12 - 6);
    for (let i = 0; i < n; i++) SW[i] = i < special.length ? special[special.length - 1 - i] : r() * 3;
    ex.windowLoadF32(src, srcW, dst, n);
    const D = new Float32Array(buffer, dst, 4 * n);
    for (let i = 0; i < n; i++) {
      for (let d = 0; d < 3; d++) expect(Object.is(D[4 * i + d], Math.fround(S[3 * i + d]))).toBe(true);
      expect(Object.is(D[4 * i + 3], Math.fround(SW[i]))).toBe(true);
    }
    ex.windowSaveF32(dst, back, n);
    const B = new Float64Array(buffer, back, 3 * n);
    for (let i = 0; i < n; i++)
      for (let d = 0; d < 3; d++) expect(Object.is(B[3 * i + d], D[4 * i + d])).toBe(true);
  });
});

describe('an f32 world', () => {
  it('rejects an unknown precision, naming the field and the allowed values', () => {
    expect(() => new World({ precision: 'f16' as 'f32' })).toThrow(/world\.precision.*'f64' or 'f32'/s);
  });

  it('runs on threads: the pool projects its blocked f32x4 kernels, with the bits of one thread', async () => {
    // the pool's line (poolMinConstraints) lowered all the same, so that the test does not depend on
    // where it stands
    await withSmallSetsOnPool(threadedF32);
  }, 120_000);

  it('keeps small sets off the pool: a falling 30 × 30 cloth (2,581 stretch constraints) on 2 threads runs no block on a worker, with the bits of one thread', async () => {
    const one = fallingCloth({ n: 30, substeps: 5, bendCompliance: 0.01, precision: 'f32' }).world;
    const two = fallingCloth({
      n: 30,
      substeps: 5,
      bendCompliance: 0.01,
      precision: 'f32',
      threads: 2,
    }).world;
    await two.threadsReady();
    expect(two.threads).toBe(2);
    const blocks = (w: World) => (w.scheduler as unknown as { workerBlocks: number }).workerBlocks;
    const before = blocks(two);
    for (let f = 0; f < 20; f++) for (const w of [one, two]) w.step();
    const x = (w: World) => Buffer.from(w.store.x.slice(0, 3 * w.store.count).buffer);
    expect(x(two).equals(x(one))).toBe(true);
    expect(blocks(two) - before).toBe(0);
    // the same cloth's sets on the pool when the threshold allows it: the workers do take part
    await withSmallSetsOnPool(() => {
      // until a worker claimed blocks (on a loaded machine the calling thread may claim most of them)
      for (let f = 0; f < 20 || (f < 200 && blocks(two) === before); f++)
        for (const w of [one, two]) w.step();
    });
    expect(x(two).equals(x(one))).toBe(true);
    expect(blocks(two) - before).toBeGreaterThan(0);
    for (const w of [one, two]) w.dispose();
  }, 120_000);

  it('places the pool threshold by precision: a 41 × 41 cloth sweeps on the pool in f64 and on the calling thread in f32, the bits of one thread either way', async () => {
    // 4,880 stretch and 4,720 bending constraints: above the f64 line (3,500), below the f32 one (32,768)
    const { f64, f32 } = ElementConstraints.poolMinConstraints;
    expect(f64).toBeLessThan(4_720);
    expect(f32).toBeGreaterThan(4_880);
    const blocks = (w: World) => (w.scheduler as unknown as { workerBlocks: number }).workerBlocks;
    const x = (w: World) => Buffer.from(w.store.x.slice(0, 3 * w.store.count).buffer);
    for (const precision of ['f64', 'f32'] as const) {
      const make = (threads: number) =>
        fallingCloth({ n: 41, substeps: 5, bendCompliance: 0.01, precision, threads });
      const one = make(1);
      const two = make(2);
      await two.world.threadsReady();
      expect(two.world.threads).toBe(2);
      for (const set of [two.cloth.stretch, two.cloth.bend!]) {
        expect(set.count).toBeGreaterThan(4_000);
        expect(set.threadMode(precision)).toBe(precision === 'f64' ? 'wasm' : 'serial');
      }
      const before = blocks(two.world);
      // until a worker claimed blocks (on a loaded machine the calling thread may claim most of them)
      for (let f = 0; f < 10 || (precision === 'f64' && f < 200 && blocks(two.world) === before); f++)
        for (const w of [one.world, two.world]) w.step();
      expect(x(two.world).equals(x(one.world))).toBe(true);
      if (precision === 'f64') expect(blocks(two.world) - before).toBeGreaterThan(0);
      else expect(blocks(two.world) - before).toBe(0);
      for (const w of [one.world, two.world]) w.dispose();
    }
  }, 180_000);

  async function threadedF32(): Promise<void> {
    const make = (threads: number, precision: 'f64' | 'f32' = 'f32') => {
      const fc = fallingCloth({ n: 60, substeps: 5, bendCompliance: 0.01, precision, threads });
      return fc.world;
    };
    const one = make(1);
    const two = make(2);
    const four = make(4);
    // f32 chosen after construction, on a threaded world
    const late = make(2, 'f64');
    late.configure({ precision: 'f32' });
    await Promise.all([two, four, late].map((w) => w.threadsReady()));
    expect(two.threads).toBe(2);
    expect(late.precision).toBe('f32');
    const blocks = (w: World) => (w.scheduler as unknown as { workerBlocks: number }).workerBlocks;
    const before = blocks(two);
    for (let f = 0; f < 30; f++) for (const w of [one, two, four, late]) w.step();
    const x = (w: World) => Buffer.from(w.store.x.slice(0, 3 * w.store.count).buffer);
    expect(x(two).equals(x(one))).toBe(true);
    expect(x(four).equals(x(one))).toBe(true);
    expect(x(late).equals(x(one))).toBe(true);
    // the workers took part (2-thread pool: two, late); blocks are claimed as they come, so how many a
    // worker gets depends on the machine's load (244-306 at load 7, 89 at load 13): only "some" is certain
    expect(blocks(two) - before).toBeGreaterThan(0);
    for (const w of [one, two, four, late]) w.dispose();
  }

  it('is a scene field: world.precision "f32" builds an f32 world, another value names the field', () => {
    const spec = JSON.parse(readFileSync(new URL('../scenes/cloth-flag.json', import.meta.url), 'utf8'));
    spec.world = { ...spec.world, precision: 'f32' };
    const inst = loadScene(JSON.stringify(spec));
    expect(inst.world.precision).toBe('f32');
    inst.world.step();
    spec.world.precision = 'f16';
    expect(() => loadScene(JSON.stringify(spec))).toThrow(/world\.precision/);
  });

  it('gives the same bits with and without WebAssembly, and the same bits run to run', () => {
    const wasm = cloth(20, 'f32', 40);
    useWasmKernels(false);
    let js: ReturnType<typeof cloth>;
    try {
      js = cloth(20, 'f32', 40);
    } finally {
      useWasmKernels(true);
    }
    expect(wasm.fc.cloth.bend!.activeBackend).toBe('wasm');
    expect(js.x).toEqual(wasm.x);
    expect(cloth(20, 'f32', 40).x).toEqual(wasm.x);
  });

  it('a falling, folding 50 × 50 cloth stays within 5 mm of the f64 one over 60 frames', () => {
    const a = cloth(50, 'f64', 60);
    const b = cloth(50, 'f32', 60);
    let diff = 0;
    let fall = 0;
    for (let i = 0; i < a.x.length; i++) diff = Math.max(diff, Math.abs(a.x[i] - b.x[i]));
    for (let i = 1; i < a.x.length; i += 3) fall = Math.max(fall, -a.x[i]);
    // the cloth swings down by 2.5 m in 60 frames; f32 round-off (1.2e-7 m at 1 m) grows
    // through 300 substeps of a swinging fold: measured 0.40 mm, stated bound 5 mm; mean edge
    // stretch 7.945 % (f64) against 7.943 % (f32)
    expect(fall).toBeGreaterThan(2);
    expect(diff).toBeGreaterThan(0);
    expect(diff).toBeLessThan(5e-3);
    const sa = edgeStretch(a.x, a.fc.edges, a.fc.rest);
    const sb = edgeStretch(b.x, b.fc.edges, b.fc.rest);
    expect(Math.abs(sb.meanStretch - sa.meanStretch)).toBeLessThan(0.05 * sa.meanStretch);
  });

  it('a 201 × 201 cloth stays finite and bounded (where Jolt’s goes non-finite)', () => {
    const { fc, x } = cloth(201, 'f32', 30);
    const s = edgeStretch(x, fc.edges, fc.rest);
    expect(s.finite).toBe(true);
    // after 30 frames, f32 and f64 alike: mean 7.2 %, max 25.3 (2,530 %, at the two pins, which 5
    // projections per frame cannot hold with a 201-row cloth: issue 18's budget); stated bounds 10 % and 40
    expect(s.meanStretch).toBeLessThan(0.1);
    expect(s.maxStretch).toBeLessThan(40);
    expect(fc.world.stats.recoveries).toBe(0);
  }, 120_000);
});
