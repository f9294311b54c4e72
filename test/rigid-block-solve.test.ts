/**
 * The joint normal solve of a manifold's points (src/rigid/block-solve.ts):
 * (K + ε I) Δλ = c on the points that push, Δλ ≥ 0, checked against a plain
 * Gaussian elimination of the same system, for one to four points.
 */
import { describe, expect, it } from 'vitest';
import { BC, BK, BX, CA, CB, fillK, fillK4, KW, REG, solveJoint, UA, UB } from '../src/rigid/block-solve.js';
import { denseSolve } from './helpers.js';

/** A deterministic generator in [0, 1). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

/**
 * BK of m contact points between a box (mass 1 kg, inertia of a unit cube) and
 * the ground, for levers r_j and normal n = y: K_ij = 1/m + (r_i × n)ᵀ I⁻¹ (r_j × n).
 */
function fillBox(levers: number[][]): void {
  const invI = 6; // a unit cube of 1 kg: I = m/6 about every axis
  BK.fill(0);
  for (let i = 0; i < levers.length; i++) {
    for (let j = 0; j < levers.length; j++) {
      // r × y = (−r_z, 0, r_x)
      const [ax, , az] = levers[i],
        [bx, , bz] = levers[j];
      BK[4 * i + j] = 1 + invI * (az * bz + ax * bx);
    }
  }
}

/** x solving (K_SS + ε I) x = c_S by Gaussian elimination with partial pivoting, ε as solveJoint takes it. */
function reference(set: number[]): number[] {
  const n = set.length;
  let diag = 0;
  for (const j of set) diag += BK[5 * j];
  const eps = (REG * diag) / n;
  const K = set.map((i) => set.map((j) => BK[4 * i + j] + (i === j ? eps : 0)));
  const c = set.map((j) => BC[j]);
  return denseSolve(K, c);
}

describe('the joint solve of a manifold (block-solve.ts)', () => {
  it('solves 1 to 4 pushing points as a plain elimination does, to 1e-12', () => {
    const next = rng(7);
    for (let m = 1; m <= 4; m++) {
      for (let trial = 0; trial < 50; trial++) {
        // points of a patch under a box (not all coplanar in a line), pressed evenly enough that all push
        const levers = Array.from({ length: m }, () => [next() - 0.5, -0.5, next() - 0.5]);
        fillBox(levers);
        const depth = 1e-3 * (1 + next());
        for (let j = 0; j < m; j++) BC[j] = depth * (1 + 0.01 * next());
        solveJoint(m, (1 << m) - 1);
        const all = Array.from({ length: m }, (_, j) => j);
        const want = reference(all);
        if (want.every((v) => v >= 0)) {
          for (let j = 0; j < m; j++)
            expect(Math.abs(BX[j] - want[j])).toBeLessThan(1e-12 * (1 + Math.abs(want[j])));
        }
        for (let j = 0; j < m; j++) expect(BX[j]).toBeGreaterThanOrEqual(0);
      }
    }
  });

  /** The levers of a unit box's bottom face's four corners. */
  const BOTTOM_FACE = [
    [-0.5, -0.5, -0.5],
    [0.5, -0.5, -0.5],
    [0.5, -0.5, 0.5],
    [-0.5, -0.5, 0.5],
  ];

  it('never pulls: a point whose multiplier would be negative leaves, and the rest solves its own system', () => {
    // a box face's four corners, one of them barely touching while the opposite one is deep: the joint
    // solve would pull at the shallow corner; it must leave the set, and the other three then satisfy
    // their own (K + ε I) x = c
    fillBox(BOTTOM_FACE);
    BC.set([1e-3, 1e-6, 1e-6, 1e-6]);
    solveJoint(4, 15);
    const x = Array.from(BX);
    expect(Math.min(...x)).toBeGreaterThanOrEqual(0);
    const active = [0, 1, 2, 3].filter((j) => x[j] > 0);
    expect(active.length).toBeLessThan(4);
    const want = reference(active);
    active.forEach((j, r) => {
      expect(Math.abs(x[j] - want[r])).toBeLessThan(1e-12 * (1 + Math.abs(want[r])));
    });
    // what the points that left would be pushed: the solution's correction does not pull them back in
    expect(x[0]).toBeGreaterThan(0);
  });

  it('spreads an even press of four coplanar corners evenly (K is singular; ε regularises it)', () => {
    fillBox(BOTTOM_FACE);
    BC.set([1e-3, 1e-3, 1e-3, 1e-3]);
    solveJoint(4, 15);
    // the box translates by d: Σ Δλ / m = d, a quarter per corner (within REG of the exact correction)
    for (let j = 0; j < 4; j++) expect(Math.abs(BX[j] - 0.25e-3) / 0.25e-3).toBeLessThan(2 * REG);
  });

  it('builds K of four points unrolled (fillK4) to the bit of the general loop, symmetric, with the K_ij of its definition', () => {
    const rand = rng(7);
    for (let trial = 0; trial < 50; trial++) {
      for (let c = 0; c < 12; c++) {
        CA[c] = rand() - 0.5;
        CB[c] = rand() - 0.5;
        UA[c] = rand() - 0.5;
        UB[c] = rand() - 0.5;
      }
      KW[0] = 0.5 + rand();
      BK.fill(Number.NaN);
      fillK(4, 15);
      const loop = Array.from(BK);
      BK.fill(Number.NaN);
      fillK4();
      expect(Array.from(BK)).toEqual(loop);
      for (let i = 0; i < 4; i++) {
        for (let j = 0; j < 4; j++) {
          // K_ij = m₁⁻¹ + m₂⁻¹ + (r₁ᵢ × n)·I₁⁻¹ (r₁ⱼ × n) + (r₂ᵢ × n)·I₂⁻¹ (r₂ⱼ × n), from the upper triangle's side
          const [a, b] = i <= j ? [i, j] : [j, i];
          let k = KW[0];
          for (let c = 0; c < 3; c++) k += CA[3 * a + c] * UA[3 * b + c] + CB[3 * a + c] * UB[3 * b + c];
          expect(BK[4 * i + j]).toBeCloseTo(k, 12);
        }
      }
    }
  });

  it('gives 0, not NaN, for a system without a movable body or with non-finite depths', () => {
    BK.fill(0);
    BC.set([1e-3, 1e-3, 1e-3, 1e-3]);
    solveJoint(4, 15);
    expect(Array.from(BX)).toEqual([0, 0, 0, 0]);
    fillBox([
      [-0.5, -0.5, -0.5],
      [0.5, -0.5, -0.5],
      [0.5, -0.5, 0.5],
    ]);
    BC.set([Number.NaN, 1e-3, 1e-3, 0]);
    for (let use = 1; use < 8; use++) {
      solveJoint(3, use);
      for (let j = 0; j < 4; j++) expect(Number.isFinite(BX[j])).toBe(true);
    }
  });
});
