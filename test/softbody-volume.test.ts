import { describe, expect, it } from 'vitest';
import {
  TetVolumeConstraints,
  TriangleAreaConstraints,
  tetVolume,
  triangleAreaOf,
  World,
} from '../src/index.js';
import { finiteDifferenceGradient, relativeError, rng } from './helpers.js';

/** A world with n free particles at the given positions and random masses. */
function particles(pos: number[], seed: number): World {
  const w = new World({ solver: 'pbd', gravity: [0, 0, 0] });
  const n = pos.length / 3;
  w.store.allocate(n, 0);
  const r = rng(seed);
  for (let i = 0; i < n; i++) {
    w.store.x.set(pos.slice(3 * i, 3 * i + 3), 3 * i);
    w.store.setMass(i, 0.5 + r());
  }
  w.store.p.set(w.store.x);
  return w;
}

describe('geometric constraints of 000 §3.4.4', () => {
  for (const kind of ['tet volume', 'triangle area'] as const) {
    it(`${kind}: one projection moves along w_i ∇_i C (finite differences), by eq. 3, conserving momentum`, () => {
      const tet = kind === 'tet volume';
      const pos = tet ? [0, 0, 0, 1, 0.1, 0, 0.1, 1, 0.2, 0.2, 0.1, 1] : [0, 0, 0, 1, 0.1, 0.2, 0.1, 1, 0.3];
      const w = particles(pos, 3);
      const idx = tet ? [0, 1, 2, 3] : [0, 1, 2];
      const set = tet ? new TetVolumeConstraints(w.store, idx) : new TriangleAreaConstraints(w.store, idx);
      const C = (p: Float64Array) => (tet ? tetVolume(p, 0, 1, 2, 3) : triangleAreaOf(p, 0, 1, 2));
      const rest = C(w.store.x);
      // deform, then project once with stiffness 1
      const p = w.store.p;
      const r = rng(8);
      for (let k = 0; k < 3 * idx.length; k++) p[k] += 0.3 * (r() - 0.5);
      const before = p.slice(0, 3 * idx.length);
      const grad = finiteDifferenceGradient((q) => C(q), before, idx);
      const c = C(before) - rest;
      let wG = 0;
      for (const i of idx)
        wG += w.store.invMass[i] * (grad[3 * i] ** 2 + grad[3 * i + 1] ** 2 + grad[3 * i + 2] ** 2);
      const ctx = w.makeContext();
      set.beginStep(ctx);
      set.project(ctx);
      const expected = new Float64Array(3 * idx.length);
      const moved = new Float64Array(3 * idx.length);
      const P = [0, 0, 0];
      for (const i of idx)
        for (let d = 0; d < 3; d++) {
          expected[3 * i + d] = (-w.store.invMass[i] * grad[3 * i + d] * c) / wG;
          moved[3 * i + d] = p[3 * i + d] - before[3 * i + d];
          P[d] += w.store.mass[i] * moved[3 * i + d];
        }
      expect(relativeError(moved, expected)).toBeLessThan(1e-6);
      for (let d = 0; d < 3; d++) expect(Math.abs(P[d])).toBeLessThan(1e-12);
      // a few more projections restore the rest value
      for (let k = 0; k < 10; k++) set.project(ctx);
      expect(Math.abs(C(p) - rest)).toBeLessThan(1e-9);
      w.store.x.set(p);
      expect(set.maxViolation(w.store)).toBeLessThan(1e-9);
    });
  }
});
