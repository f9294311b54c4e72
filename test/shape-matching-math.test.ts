import { describe, expect, it } from 'vitest';
import { det3, mat3FromQuat, mul3 } from '../src/math/mat3.js';
import {
  extractRotation,
  extractRotationRobust,
  polarAngle2,
  polarDecomposition,
  quatFromMat3,
  spectralNorm3,
} from '../src/math/polar.js';
import { quatFromAxisAngle } from '../src/math/quat.js';
import { svd3 } from '../src/math/svd3.js';
import { rng } from './helpers.js';

const transpose = (m: Float64Array) =>
  Float64Array.from([m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]]);
const maxAbs = (m: ArrayLike<number>) => Math.max(...Array.from(m, Math.abs));

function orthonormalityError(R: Float64Array): number {
  const P = new Float64Array(9);
  mul3(P, 0, R, 0, transpose(R), 0);
  let e = 0;
  for (let k = 0; k < 9; k++) e = Math.max(e, Math.abs(P[k] - (k % 4 === 0 ? 1 : 0)));
  return e;
}

function reconstruct(U: Float64Array, s: Float64Array, V: Float64Array): Float64Array {
  const US = Float64Array.from(U);
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) US[3 * r + c] *= s[c];
  const out = new Float64Array(9);
  mul3(out, 0, US, 0, transpose(V), 0);
  return out;
}

function randomRotation(r: () => number): Float64Array {
  const q = new Float64Array(4);
  quatFromAxisAngle(q, 0, r() - 0.5, r() - 0.5, r() - 0.5, (r() * 2 - 1) * Math.PI);
  const R = new Float64Array(9);
  mat3FromQuat(R, 0, q, 0);
  return R;
}

/**
 * A random deformation A = R0 Q diag(s) Qᵀ (a rotation R0 times a symmetric positive definite
 * stretch along random axes Q, stretches s = lo + r()), written into A; returns R0, the rotation
 * part of A.
 */
function randomDeformation(
  r: () => number,
  A: Float64Array,
  lo: readonly [number, number, number],
): Float64Array {
  const R0 = randomRotation(r);
  const Q = randomRotation(r);
  const P = reconstruct(Q, Float64Array.from([lo[0] + r(), lo[1] + r(), lo[2] + r()]), Q);
  mul3(A, 0, R0, 0, P, 0);
  return R0;
}

/** Checks every promise of svd3 on A; returns the reconstruction error relative to max |A|. */
function checkSvd(A: Float64Array): number {
  const U = new Float64Array(9),
    s = new Float64Array(3),
    V = new Float64Array(9);
  svd3(A, 0, U, 0, s, 0, V, 0);
  expect(orthonormalityError(U)).toBeLessThan(1e-14);
  expect(orthonormalityError(V)).toBeLessThan(1e-14);
  expect(det3(U, 0)).toBeCloseTo(1, 13);
  expect(det3(V, 0)).toBeCloseTo(1, 13);
  const scale = Math.max(maxAbs(A), 1e-300);
  // sorted up to rounding (equal singular values may differ in the last bit)
  expect(s[0]).toBeGreaterThanOrEqual(s[1] - 1e-15 * scale);
  expect(s[1]).toBeGreaterThanOrEqual(Math.abs(s[2]) - 1e-15 * scale);
  expect(s[1]).toBeGreaterThanOrEqual(0);
  const d = det3(A, 0);
  if (Math.abs(d) > 1e-10 * scale ** 3) expect(Math.sign(s[2])).toBe(Math.sign(d));
  const B = reconstruct(U, s, V);
  let e = 0;
  for (let k = 0; k < 9; k++) e = Math.max(e, Math.abs(B[k] - A[k]));
  return e / scale;
}

describe('signed 3×3 SVD (src/math/svd3.ts)', () => {
  it('reconstructs random matrices to 1e-14 with rotations U, V and sorted, signed σ', () => {
    const r = rng(7);
    for (let t = 0; t < 2000; t++) {
      const A = Float64Array.from({ length: 9 }, () => r() * 2 - 1);
      expect(checkSvd(A)).toBeLessThan(1e-14);
    }
  });

  it('handles zero, rank 1 (collinear), rank 2 (coplanar), repeated and reflected singular values', () => {
    const r = rng(8);
    const cases: number[][] = [
      [0, 0, 0, 0, 0, 0, 0, 0, 0],
      [1, 0, 0, 0, 1, 0, 0, 0, 1],
      [2, 0, 0, 0, 2, 0, 0, 0, -2],
      [1, 0, 0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0, 0, 3],
      [1, 1, 1, 2, 2, 2, 3, 3, 3], // rank 1
      [1, 2, 3, 4, 5, 6, 7, 8, 9], // rank 2
      [-1, 0, 0, 0, -1, 0, 0, 0, -1], // point reflection
      [1e-200, 0, 0, 0, 1e-200, 0, 0, 0, 1e-200],
      [1e150, 2e150, 0, 0, 1e150, 0, 0, 0, 1e150],
    ];
    for (let t = 0; t < 200; t++) {
      // outer products u vᵀ (rank 1), sums of two (rank 2), mirrored rotations
      const u = [r() - 0.5, r() - 0.5, r() - 0.5],
        v = [r() - 0.5, r() - 0.5, r() - 0.5];
      const w = [r() - 0.5, r() - 0.5, r() - 0.5],
        z = [r() - 0.5, r() - 0.5, r() - 0.5];
      const rank1: number[] = [],
        rank2: number[] = [];
      for (let i = 0; i < 3; i++)
        for (let j = 0; j < 3; j++) {
          rank1.push(u[i] * v[j]);
          rank2.push(u[i] * v[j] + w[i] * z[j]);
        }
      const R = randomRotation(r);
      const mirrored = Array.from(R, (x, k) => (k % 3 === 2 ? -x : x));
      cases.push(rank1, rank2, mirrored);
    }
    for (const c of cases) expect(checkSvd(Float64Array.from(c))).toBeLessThan(1e-14);
  });

  it('keeps the relative accuracy of tiny singular values (one-sided Jacobi on A, not AᵀA)', () => {
    const r = rng(9);
    for (let t = 0; t < 100; t++) {
      const U0 = randomRotation(r),
        V0 = randomRotation(r);
      const s0 = Float64Array.from([1, 1e-5, 1e-11]);
      const A = reconstruct(U0, s0, V0);
      const U = new Float64Array(9),
        s = new Float64Array(3),
        V = new Float64Array(9);
      svd3(A, 0, U, 0, s, 0, V, 0);
      expect(Math.abs(s[1] - 1e-5) / 1e-5).toBeLessThan(1e-9);
      expect(Math.abs(s[2] - 1e-11) / 1e-11).toBeLessThan(1e-4);
    }
  });

  it('returns identity factors for non-finite input instead of NaN', () => {
    const U = new Float64Array(9),
      s = new Float64Array(3),
      V = new Float64Array(9);
    svd3(Float64Array.from([Number.NaN, 0, 0, 0, 1, 0, 0, 0, 1]), 0, U, 0, s, 0, V, 0);
    expect(Array.from(U)).toEqual([1, 0, 0, 0, 1, 0, 0, 0, 1]);
    expect(Array.from(s)).toEqual([0, 0, 0]);
  });
});

describe('polar decomposition (src/math/polar.ts)', () => {
  it('A = R S with R a rotation and S symmetric; R maximises tr(Rᵀ A) over rotations', () => {
    const r = rng(10);
    const R = new Float64Array(9),
      S = new Float64Array(9),
      RS = new Float64Array(9);
    for (let t = 0; t < 500; t++) {
      const A = Float64Array.from({ length: 9 }, () => r() * 2 - 1);
      polarDecomposition(A, 0, R, 0, S, 0);
      expect(orthonormalityError(R)).toBeLessThan(1e-14);
      expect(det3(R, 0)).toBeCloseTo(1, 13);
      for (let i = 0; i < 3; i++)
        for (let j = 0; j < 3; j++) expect(S[3 * i + j]).toBeCloseTo(S[3 * j + i], 13);
      mul3(RS, 0, R, 0, S, 0);
      for (let k = 0; k < 9; k++) expect(RS[k]).toBeCloseTo(A[k], 13);
      let best = 0;
      for (let k = 0; k < 9; k++) best += R[k] * A[k];
      for (let k = 0; k < 20; k++) {
        const Q = randomRotation(r);
        let tr = 0;
        for (let m = 0; m < 9; m++) tr += Q[m] * A[m];
        expect(tr).toBeLessThanOrEqual(best + 1e-12);
      }
    }
  });

  it('the rotation part of (rotation × symmetric positive definite) is that rotation', () => {
    const r = rng(11);
    const R = new Float64Array(9),
      A = new Float64Array(9);
    for (let t = 0; t < 200; t++) {
      const R0 = randomDeformation(r, A, [1, 0.5, 0.1]);
      polarDecomposition(A, 0, R, 0);
      for (let k = 0; k < 9; k++) expect(R[k]).toBeCloseTo(R0[k], 12);
    }
  });

  it('spectral norm is the largest singular value', () => {
    expect(spectralNorm3(Float64Array.from([3, 0, 0, 0, -5, 0, 0, 0, 1]), 0)).toBeCloseTo(5, 14);
  });

  it('Müller 2016 iteration reaches the SVD rotation from identity and keeps the warm start where A says nothing', () => {
    const r = rng(12);
    const [A, Rq, R] = [new Float64Array(9), new Float64Array(9), new Float64Array(9)];
    const q = new Float64Array(4);
    for (let t = 0; t < 300; t++) {
      // moderate rotations and stretches: the iteration is warm-started in practice
      randomDeformation(r, A, [0.5, 0.5, 0.5]);
      q.set([0, 0, 0, 1]);
      extractRotation(A, 0, q, 0, 100);
      mat3FromQuat(Rq, 0, q, 0);
      polarDecomposition(A, 0, R, 0);
      for (let k = 0; k < 9; k++) expect(Rq[k]).toBeCloseTo(R[k], 8);
    }
    // rank 1 along x: a warm start rotated about x stays as it is
    quatFromAxisAngle(q, 0, 1, 0, 0, 0.7);
    const before = Float64Array.from(q);
    extractRotation(Float64Array.from([2, 0, 0, 0, 0, 0, 0, 0, 0]), 0, q, 0, 20);
    for (let k = 0; k < 4; k++) expect(q[k]).toBeCloseTo(before[k], 12);
  });

  it('the plain Müller 2016 iteration (snapshot frames of the surface contacts) reaches the SVD rotation from a warm start', () => {
    const r = rng(14);
    const q = new Float64Array(4),
      Rq = new Float64Array(9),
      R = new Float64Array(9),
      Rsvd = new Float64Array(9);
    let worst = 0;
    for (let t = 0; t < 300; t++) {
      const A = new Float64Array(9);
      const R0 = randomDeformation(r, A, [0.5, 0.5, 0.5]);
      // warm start: the answer turned by up to 0.3 rad about a random axis
      quatFromMat3(q, 0, R0, 0);
      const dq = new Float64Array(4);
      quatFromAxisAngle(dq, 0, r() - 0.5, r() - 0.5, r() - 0.5, 0.3 * r());
      const [x, y, z, w] = q,
        [dx, dy, dz, dw] = dq;
      q.set([
        dw * x + dx * w + dy * z - dz * y,
        dw * y - dx * z + dy * w + dz * x,
        dw * z + dx * y - dy * x + dz * w,
        dw * w - dx * x - dy * y - dz * z,
      ]);
      extractRotationRobust(A, q, R);
      mat3FromQuat(Rq, 0, q, 0);
      polarDecomposition(A, 0, Rsvd, 0);
      for (let k = 0; k < 9; k++) {
        expect(R[k]).toBe(Rq[k]);
        worst = Math.max(worst, Math.abs(R[k] - Rsvd[k]));
      }
    }
    // linear convergence: 20 iterations from 0.3 rad leave a few 1e-6 at the worst stretch ratios
    expect(worst).toBeLessThan(1e-5);
  });

  it('2D polar angle: the rotation of [[c, −s], [s, c]]·diag(a, b) for a, b > 0', () => {
    const r = rng(13);
    for (let t = 0; t < 200; t++) {
      const th = (r() * 2 - 1) * 3;
      const a = 0.1 + r(),
        b = 0.1 + r();
      const c = Math.cos(th),
        s = Math.sin(th);
      expect(polarAngle2(c * a, -s * b, s * a, c * b)).toBeCloseTo(th, 12);
    }
    expect(polarAngle2(0, 0, 0, 0)).toBe(0);
  });

  it('quaternion ↔ matrix round trip', () => {
    const r = rng(14);
    const q = new Float64Array(4),
      R2 = new Float64Array(9);
    for (let t = 0; t < 200; t++) {
      const R0 = randomRotation(r);
      quatFromMat3(q, 0, R0, 0);
      mat3FromQuat(R2, 0, q, 0);
      for (let k = 0; k < 9; k++) expect(R2[k]).toBeCloseTo(R0[k], 13);
    }
  });

  it("quatFromMat3 normalises by √(x² + y² + z² + w²), or with `hypot` by Math.hypot (the rods' first frames)", () => {
    const r = rng(15);
    const q = new Float64Array(4),
      qh = new Float64Array(4);
    let apart = 0;
    for (let t = 0; t < 200; t++) {
      const R = randomRotation(r);
      const tr = R[0] + R[4] + R[8];
      if (!(tr > 0)) continue;
      // Shepperd's trace branch, written out: the quaternion before its normalisation
      const s = 2 * Math.sqrt(tr + 1);
      const x = (R[7] - R[5]) / s,
        y = (R[2] - R[6]) / s,
        z = (R[3] - R[1]) / s,
        w = 0.25 * s;
      const len = Math.sqrt(x * x + y * y + z * z + w * w),
        hyp = Math.hypot(x, y, z, w);
      quatFromMat3(q, 0, R, 0);
      quatFromMat3(qh, 0, R, 0, true);
      expect(Array.from(q)).toEqual([x / len, y / len, z / len, w / len]);
      expect(Array.from(qh)).toEqual([x / hyp, y / hyp, z / hyp, w / hyp]);
      if (qh.some((v, k) => v !== q[k])) apart++;
    }
    // the two normalisations differ in the last bit for a good share of rotations
    expect(apart).toBeGreaterThan(10);
  });
});
