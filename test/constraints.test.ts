import { describe, expect, it } from 'vitest';
import {
  Cloth,
  DihedralBending,
  DistanceConstraints,
  dihedralAngleGradients,
  distanceConstraint,
  icosphere,
  type PbdError,
  PressureConstraint,
  World,
} from '../src/index.js';
import { freeParticles } from './helpers/particles.js';
import { finiteDifferenceGradient, relativeError, rng } from './helpers.js';

describe('distance constraint (003 §3.3, eqs. 10–11)', () => {
  it('has the gradient of |p1 − p2| − d', () => {
    const r = rng(1);
    for (let trial = 0; trial < 20; trial++) {
      const p = Float64Array.from({ length: 6 }, () => r() * 2 - 1);
      const g = new Float64Array(6);
      distanceConstraint(p, 0, 1, 0.3, g);
      const fd = finiteDifferenceGradient(
        (q) => distanceConstraint(q, 0, 1, 0.3, new Float64Array(6)),
        p,
        [0, 1],
      );
      expect(relativeError(g, fd)).toBeLessThan(1e-7);
    }
  });

  it('one projection of a lone constraint satisfies it exactly, weighted by inverse mass', () => {
    const world = freeParticles(
      [
        [0, 0, 0],
        [2, 0, 0],
      ],
      [1, 3],
    );
    const set = new DistanceConstraints(world.store, [0, 1], [1]);
    world.addConstraintSet(set);
    const ctx = { ...world.makeContext(0.01), solver: 'pbd' as const };
    set.beginStep(ctx);
    set.project(ctx);
    const p = world.store.p;
    expect(Math.hypot(p[3] - p[0], p[4] - p[1], p[5] - p[2])).toBeCloseTo(1, 14);
    // eq. 10/11: Δp1 = w1/(w1+w2)·1 = 0.75, Δp2 = −0.25
    expect(p[0]).toBeCloseTo(0.75, 14);
    expect(p[3]).toBeCloseTo(1.75, 14);
    // the centre of mass did not move
    expect(1 * p[0] + 3 * p[3]).toBeCloseTo(1 * 0 + 3 * 2, 12);
  });

  it('never moves a particle of inverse mass 0', () => {
    const world = freeParticles(
      [
        [0, 0, 0],
        [2, 0, 0],
      ],
      [Infinity, 1],
    );
    const set = new DistanceConstraints(world.store, [0, 1], [1]);
    const ctx = { ...world.makeContext(0.01), solver: 'xpbd' as const };
    set.beginStep(ctx);
    set.project(ctx);
    expect(Array.from(world.store.p.subarray(0, 3))).toEqual([0, 0, 0]);
    expect(world.store.p[3]).toBeCloseTo(1, 14);
  });

  it('XPBD with compliance leaves the constraint partly violated by α̃/(w + α̃)', () => {
    const world = freeParticles(
      [
        [0, 0, 0],
        [2, 0, 0],
      ],
      [1, 1],
    );
    const set = new DistanceConstraints(world.store, [0, 1], [1], { compliance: 0.01 });
    const h = 0.1;
    const ctx = { ...world.makeContext(h), solver: 'xpbd' as const, iterations: 1, passes: 1 };
    set.beginStep(ctx);
    set.project(ctx);
    const at = 0.01 / (h * h);
    const len = world.store.p[3] - world.store.p[0];
    expect(len - 1).toBeCloseTo(1 * (at / (2 + at)), 12);
  });
});

describe('dihedral bending (003 §4.1, Appendix A)', () => {
  const angle = (p: Float64Array) => dihedralAngleGradients(p, 0, 1, 2, 3, new Float64Array(13));

  it('returns the dihedral angle: π flat, π/2 at a right angle, 0 folded shut', () => {
    const flat = Float64Array.from([0, 0, 0, 1, 0, 0, 0.5, 1, 0, 0.5, -1, 0]);
    expect(angle(flat)).toBeCloseTo(Math.PI, 12);
    const right = Float64Array.from([0, 0, 0, 1, 0, 0, 0.5, 1, 0, 0.5, 0, 1]);
    expect(angle(right)).toBeCloseTo(Math.PI / 2, 12);
    const folded = Float64Array.from([0, 0, 0, 1, 0, 0, 0.5, 1, 0, 0.5, 1, 0.0]);
    expect(angle(folded)).toBeCloseTo(0, 6);
  });

  it("Appendix A's gradients match finite differences on random configurations", () => {
    const r = rng(7);
    let tested = 0;
    for (let trial = 0; trial < 200 && tested < 50; trial++) {
      const p = Float64Array.from({ length: 12 }, () => r() * 2 - 1);
      const g = new Float64Array(13);
      const phi = dihedralAngleGradients(p, 0, 1, 2, 3, g);
      const s = g[12];
      if (phi < 0.2 || phi > Math.PI - 0.2) continue; // the angle has kinks at 0 and π; tested separately
      const grad = g.slice(0, 12).map((v) => v / s);
      const fd = finiteDifferenceGradient(angle, p, [0, 1, 2, 3], 1e-7);
      expect(relativeError(grad, fd)).toBeLessThan(1e-5);
      tested++;
    }
    expect(tested).toBe(50);
  });

  it('equals eqs. 25–28 of Appendix A written out literally (up to the common scale κ s)', () => {
    const r = rng(9);
    for (let trial = 0; trial < 30; trial++) {
      const p = Float64Array.from({ length: 12 }, () => r() * 2 - 1);
      const g = new Float64Array(13);
      if (dihedralAngleGradients(p, 0, 1, 2, 3, g) < 0) continue;
      // literal Appendix A with p1 moved to the origin
      const sub = (i: number) => [p[3 * i] - p[0], p[3 * i + 1] - p[1], p[3 * i + 2] - p[2]];
      const cross = (a: number[], b: number[]) => [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
      ];
      const dot = (a: number[], b: number[]) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
      const len = (a: number[]) => Math.sqrt(dot(a, a));
      const [p2, p3, p4] = [sub(1), sub(2), sub(3)];
      const c23 = cross(p2, p3),
        c24 = cross(p2, p4);
      const n1 = c23.map((v) => v / len(c23)),
        n2 = c24.map((v) => v / len(c24));
      const d = dot(n1, n2);
      const add = (a: number[], b: number[], k = 1) => a.map((v, i) => v + k * b[i]);
      const q3 = add(cross(p2, n2), cross(n1, p2), d).map((v) => v / len(c23)); // eq. 25
      const q4 = add(cross(p2, n1), cross(n2, p2), d).map((v) => v / len(c24)); // eq. 26
      const q2 = add(
        add(cross(p3, n2), cross(n1, p3), d).map((v) => -v / len(c23)),
        add(cross(p4, n1), cross(n2, p4), d).map((v) => -v / len(c24)),
      ); // eq. 27
      const q1 = q2.map((v, i) => -v - q3[i] - q4[i]); // eq. 28
      const q = [...q1, ...q2, ...q3, ...q4];
      // ∇C = q/√(1 − d²) up to the sign convention of eqs. 21–23; G = κ s ∇φ
      const grad = Array.from(g.slice(0, 12), (v) => v / g[12]);
      const sq = Math.sqrt(1 - d * d);
      const fromPaper = q.map((v) => v / sq);
      const sign = Math.sign(dot(grad.slice(6, 9), fromPaper.slice(6, 9)));
      expect(
        relativeError(
          grad,
          fromPaper.map((v) => sign * v),
        ),
      ).toBeLessThan(1e-9);
    }
  });

  it('the hot loop projects exactly what dihedralAngleGradients() prescribes', () => {
    const world = freeParticles(
      [
        [0, 0, 0],
        [1, 0.1, 0],
        [0.4, 1, 0.3],
        [0.6, -1, 0.2],
      ],
      [1, 2, 0.5, 1.5],
    );
    const set = new DihedralBending(world.store, [0, 1, 2, 3], [2.5], { stiffness: 0.7 });
    const ctx = { ...world.makeContext(0.01), solver: 'pbd' as const, iterations: 1, passes: 1 };
    const p0 = world.store.x.slice(0, 12);
    world.store.p.set(p0);
    set.beginStep(ctx);
    set.project(ctx);
    const g = new Float64Array(13);
    const phi = dihedralAngleGradients(p0, 0, 1, 2, 3, g);
    const w = [1, 0.5, 2, 1 / 1.5];
    // eq. 9 with ∇C = G/s: Δp_i = −k′ C w_i ∇_i C / Σ w_j |∇_j C|²
    const grad = Array.from(g.slice(0, 12), (v) => v / g[12]);
    let wG = 0;
    for (let i = 0; i < 4; i++) wG += w[i] * (grad[3 * i] ** 2 + grad[3 * i + 1] ** 2 + grad[3 * i + 2] ** 2);
    const C = phi - 2.5;
    for (let i = 0; i < 12; i++) {
      const expected = p0[i] - (0.7 * C * w[Math.floor(i / 3)] * grad[i]) / wG;
      expect(world.store.p[i]).toBeCloseTo(expected, 12);
    }
  });

  it('stays finite and moves toward the rest angle at the flat and fully folded states', () => {
    for (const [label, z4, rest] of [
      ['flat, rest bent', 0, Math.PI / 3],
      ['nearly flat', 1e-9, Math.PI / 3],
      ['folded shut', 0, Math.PI / 2],
    ] as const) {
      const pts =
        label === 'folded shut'
          ? [
              [0, 0, 0],
              [1, 0, 0],
              [0.5, 1, 0],
              [0.5, 1, 1e-12],
            ]
          : [
              [0, 0, 0],
              [1, 0, 0],
              [0.5, 1, 0],
              [0.5, -1, z4],
            ];
      const world = freeParticles(pts, [1, 1, 1, 1]);
      const set = new DihedralBending(world.store, [0, 1, 2, 3], [rest], { stiffness: 1 });
      world.addConstraintSet(set);
      for (let k = 0; k < 50; k++) world.step();
      const p = world.store.x;
      for (let i = 0; i < 12; i++) expect(Number.isFinite(p[i]), label).toBe(true);
      expect(world.stats.recoveries).toBe(0);
      const phi = angle(p);
      // exactly flat is an (unstable) equilibrium of the unsigned angle; everything else converges
      if (label !== 'flat, rest bent') expect(Math.abs(phi - rest), label).toBeLessThan(1e-3);
    }
  });

  it('depends on the angle only, not on edge lengths (003 §4.1): Σ G_i·(p_i − p_1) = 0', () => {
    const p = Float64Array.from([0, 0, 0, 1, 0, 0, 0.5, 1, 0.2, 0.4, -0.8, 0.5]);
    const g = new Float64Array(13);
    dihedralAngleGradients(p, 0, 1, 2, 3, g);
    // scale invariance: Σ G_i · p_i = 0 (φ is unchanged by uniform scaling about p1)
    let sc = 0;
    for (let i = 0; i < 4; i++)
      sc +=
        g[3 * i] * (p[3 * i] - p[0]) +
        g[3 * i + 1] * (p[3 * i + 1] - p[1]) +
        g[3 * i + 2] * (p[3 * i + 2] - p[2]);
    expect(Math.abs(sc)).toBeLessThan(1e-12);
  });
});

describe('pressure constraint (003 §4.4, eqs. 14–15)', () => {
  it('gradient of the enclosed volume matches finite differences', () => {
    const world = new World({ gravity: [0, 0, 0] });
    const cloth = new Cloth(world, { mesh: icosphere(0.5, 1), pressure: { pressure: 1 }, bend: false });
    const set = cloth.pressure!;
    const r = rng(3);
    const x = world.store.x;
    for (let i = 0; i < x.length; i++) x[i] += (r() - 0.5) * 0.05;
    const tris = cloth.globalTriangles();
    const volume = (q: Float64Array) => set.computeVolume(q);
    // analytic gradient (eq. 15 / 6)
    const n = cloth.activeCount;
    const g = new Float64Array(3 * n);
    for (let t = 0; t < tris.length; t += 3) {
      const [a, b, c] = [tris[t], tris[t + 1], tris[t + 2]];
      const cross = (u: number, v: number) => [
        x[3 * u + 1] * x[3 * v + 2] - x[3 * u + 2] * x[3 * v + 1],
        x[3 * u + 2] * x[3 * v] - x[3 * u] * x[3 * v + 2],
        x[3 * u] * x[3 * v + 1] - x[3 * u + 1] * x[3 * v],
      ];
      for (const [i, u, v] of [
        [a, b, c],
        [b, c, a],
        [c, a, b],
      ]) {
        const cr = cross(u, v);
        for (let d = 0; d < 3; d++) g[3 * i + d] += cr[d] / 6;
      }
    }
    const fd = finiteDifferenceGradient(
      volume,
      x,
      Array.from({ length: n }, (_, i) => i),
    );
    expect(relativeError(g, fd)).toBeLessThan(1e-7);
  });

  it('inflates a sphere to k_pressure times its volume', () => {
    const world = new World({ gravity: [0, 0, 0], substeps: 5, iterations: 40, damping: 2 });
    const cloth = new Cloth(world, {
      mesh: icosphere(0.5, 2),
      pressure: { pressure: 1.5 },
      stretch: { compliance: 1e-3 },
      bend: false,
    });
    const v0 = cloth.pressure!.restVolume;
    for (let k = 0; k < 300; k++) world.step();
    // a hard pressure constraint against soft stretching: the volume reaches k_pressure·V0 (within 0.5 %)
    expect(Math.abs(cloth.pressure!.computeVolume(world.store.x) / v0 - 1.5)).toBeLessThan(0.0075);
  });
});

describe('pressure constraint set alone', () => {
  it('rejects an open mesh for a balloon', () => {
    const world = new World();
    const sphere = icosphere(0.5, 1);
    const open = { positions: sphere.positions, triangles: sphere.triangles.slice(3) };
    expect(() => new Cloth(world, { mesh: open, pressure: { pressure: 1 } })).toThrow(/closed mesh/);
    expect(() => new PressureConstraint(world.store, [], 1)).toThrow();
  });

  it('names the fault of a mesh that bounds no volume: open, or closed and facing inward', () => {
    const sphere = icosphere(0.5, 1);
    const open = { positions: sphere.positions, triangles: sphere.triangles.slice(3) };
    const inward = { positions: sphere.positions, triangles: sphere.triangles.slice() };
    for (let t = 0; t < inward.triangles.length; t += 3) {
      [inward.triangles[t + 1], inward.triangles[t + 2]] = [inward.triangles[t + 2], inward.triangles[t + 1]];
    }
    const code = (mesh: typeof sphere) => {
      try {
        new Cloth(new World(), { mesh, pressure: { pressure: 1 } });
        return 'accepted';
      } catch (e) {
        return (e as PbdError).code;
      }
    };
    expect([code(open), code(inward), code(sphere)]).toEqual([
      'cloth/open-mesh',
      'cloth/inverted-mesh',
      'accepted',
    ]);
  });
});
