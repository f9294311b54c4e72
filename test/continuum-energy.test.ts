import { describe, expect, it } from 'vitest';
import {
  isometricBendingEnergy,
  isometricBendingStencil,
  isotropicEnergy,
  type MembraneMaterial,
  tetEnergy,
  tetRestShape,
  triangleEnergy,
  triangleRestShape,
} from '../src/continuum/energy.js';
import {
  isotropicMembraneTensor,
  lameParameters,
  orthotropicTensor,
  planeStressLame,
} from '../src/continuum/material.js';
import { svd3 } from '../src/math/svd3.js';
import { finiteDifferenceGradient, relativeError, rng } from './helpers.js';

const rest = new Float64Array([0, 0, 0, 1, 0.1, 0, 0.2, 1, 0.1, 0.1, 0.2, 0.9]);
// a tet (0, 1, 2, 3) with positive volume in the D_m convention
const B = new Float64Array(9);
const V = tetRestShape(rest, 1, 2, 3, 0, B, 0);
const { mu, lambda } = lameParameters(1e5, 0.3);

function tetE(model: 'stvk' | 'neo-hookean', clamp: number) {
  const g = new Float64Array(12);
  return (p: Float64Array) => tetEnergy(model, mu, lambda, clamp, p, 1, 2, 3, 0, B, 0, V, g);
}

function deformed(
  kind: 'random' | 'flat' | 'nearly-flat' | 'inverted' | 'collapsed',
  seed: number,
): Float64Array {
  const r = rng(seed);
  const p = new Float64Array(rest);
  for (let k = 0; k < 12; k++) p[k] += 0.15 * (r() - 0.5);
  if (kind === 'flat') for (let i = 0; i < 4; i++) p[3 * i + 1] = 0.05 * r() * 1e-9;
  if (kind === 'nearly-flat') for (let i = 0; i < 4; i++) p[3 * i + 1] *= 0.02;
  if (kind === 'inverted') for (let i = 0; i < 4; i++) p[3 * i] = -p[3 * i];
  if (kind === 'collapsed') for (let k = 0; k < 12; k++) p[k] = 0.5 + 0.01 * (r() - 0.5);
  return p;
}

describe('SVD with inversion handling (002 §4.2)', () => {
  it('reconstructs F with rotations U, V and moves the reflection to the smallest singular value', () => {
    const r = rng(3);
    const U = new Float64Array(9),
      S = new Float64Array(3),
      W = new Float64Array(9);
    for (let t = 0; t < 200; t++) {
      const f = Float64Array.from({ length: 9 }, () => r() * 2 - 1);
      if (t % 3 === 0) for (let k = 0; k < 3; k++) f[k] = -f[k]; // some reflected
      if (t % 7 === 0) for (let k = 0; k < 3; k++) f[6 + k] = 1e-12 * f[k]; // rank deficient
      svd3(f, 0, U, 0, S, 0, W, 0);
      const det3 = (m: Float64Array) =>
        m[0] * (m[4] * m[8] - m[5] * m[7]) -
        m[1] * (m[3] * m[8] - m[5] * m[6]) +
        m[2] * (m[3] * m[7] - m[4] * m[6]);
      expect(det3(U)).toBeCloseTo(1, 10);
      expect(det3(W)).toBeCloseTo(1, 10);
      expect(S[0]).toBeGreaterThanOrEqual(S[1] - 1e-12);
      expect(S[1]).toBeGreaterThanOrEqual(Math.abs(S[2]) - 1e-12);
      if (det3(f) < -1e-9) expect(S[2]).toBeLessThan(0);
      for (let rr = 0; rr < 3; rr++)
        for (let c = 0; c < 3; c++) {
          let s = 0;
          for (let k = 0; k < 3; k++) s += U[3 * rr + k] * S[k] * W[3 * c + k];
          expect(s).toBeCloseTo(f[3 * rr + c], 9);
        }
    }
  });
});

/**
 * The positions of the tet (vertex 0 kept) deformed by F̃ = U diag(max(σ_i, c)) Vᵀ instead of
 * F = D_s D_m⁻¹, where nothing is clamped; p itself when nothing is clamped at p; null when a
 * clamped direction's stress at F̃ is tensile (the clamp drops it: no plain energy has that gradient).
 */
function clampedStvkPlacement(p: Float64Array, c: number): Float64Array | null {
  const F = new Float64Array(9);
  const ids = [1, 2, 3];
  for (let r = 0; r < 3; r++)
    for (let col = 0; col < 3; col++) {
      let s = 0;
      for (let k = 0; k < 3; k++) s += (p[3 * ids[k] + r] - p[r]) * B[3 * k + col];
      F[3 * r + col] = s;
    }
  const U = new Float64Array(9),
    S = new Float64Array(3),
    W = new Float64Array(9);
  svd3(F, 0, U, 0, S, 0, W, 0);
  if (S[2] >= c) return p;
  const cs = Array.from(S, (x) => Math.max(x, c));
  const e = cs.map((x) => 0.5 * (x * x - 1));
  const tr = e[0] + e[1] + e[2];
  for (let k = 0; k < 3; k++) if (S[k] < c && cs[k] * (2 * mu * e[k] + lambda * tr) > 0) return null;
  const Ft = new Float64Array(9);
  for (let r = 0; r < 3; r++)
    for (let col = 0; col < 3; col++) {
      let s = 0;
      for (let k = 0; k < 3; k++) s += U[3 * r + k] * cs[k] * W[3 * col + k];
      Ft[3 * r + col] = s;
    }
  const q = new Float64Array(p);
  for (let i = 1; i < 4; i++)
    for (let r = 0; r < 3; r++) {
      let s = 0;
      for (let k = 0; k < 3; k++) s += Ft[3 * r + k] * (rest[3 * i + k] - rest[k]);
      q[3 * i + r] = p[r] + s;
    }
  return q;
}

describe('tet strain energies: gradients against finite differences', () => {
  for (const model of ['stvk', 'neo-hookean'] as const) {
    for (const kind of ['random', 'nearly-flat', 'flat', 'inverted', 'collapsed'] as const) {
      it(`${model}, ${kind} element`, () => {
        let clampedChecked = 0;
        for (let seed = 1; seed <= 6; seed++) {
          const p = deformed(kind, seed + (model === 'stvk' ? 0 : 100));
          const clamp = model === 'stvk' ? 1 / Math.sqrt(3) : 0.2;
          const f = tetE(model, clamp);
          const g = new Float64Array(12);
          const e = tetEnergy(model, mu, lambda, clamp, p, 1, 2, 3, 0, B, 0, V, g);
          expect(Number.isFinite(e)).toBe(true);
          expect(e).toBeGreaterThanOrEqual(0);
          // g is ordered (x1, x2, x3, x0) like the tet's vertices. Where StVK clamps a singular
          // value, its stress is the stress at the clamped deformation F̃ = U diag(max(σ, c)) Vᵀ
          // (002 §4.2) with tensile slopes dropped, not ∇Ψ̃: the gradient of the plain energy at F̃
          const at = model === 'stvk' ? clampedStvkPlacement(p, clamp) : p;
          if (at === null) continue;
          if (at !== p) clampedChecked++;
          const fd = finiteDifferenceGradient(f, at, [1, 2, 3, 0], 1e-7);
          expect(relativeError(g, fd)).toBeLessThan(2e-5);
          // momentum: the gradients sum to zero (translation invariance)
          for (let d = 0; d < 3; d++)
            expect(Math.abs(g[d] + g[3 + d] + g[6 + d] + g[9 + d])).toBeLessThan(1e-6 * (1 + e));
        }
        // the clamped StVK stress was checked on flattened and inverted elements
        if (model === 'stvk' && kind !== 'random' && kind !== 'collapsed')
          expect(clampedChecked).toBeGreaterThan(0);
      });
    }
  }

  it('an inverted element is pushed back: its energy gradient points toward positive volume', () => {
    const p = new Float64Array(rest);
    // push vertex 3 through the opposite face: the element inverts
    p[3 * 3 + 2] = -0.3;
    const g = new Float64Array(12);
    const e = tetEnergy('stvk', mu, lambda, 1 / Math.sqrt(3), p, 1, 2, 3, 0, B, 0, V, g);
    expect(e).toBeGreaterThan(0);
    // moving x3 against the gradient raises it (z up), toward the rest side
    expect(-g[2 * 3 + 2]).toBeGreaterThan(0);
  });
});

describe('analytic energies of a uniformly stretched element', () => {
  for (const s of [0.7, 1, 1.3, 2]) {
    it(`F = diag(${s}, 1, 1)`, () => {
      const p = new Float64Array(rest);
      // x = F X about vertex 0
      for (let i = 0; i < 4; i++) p[3 * i] = rest[3 * i] * s;
      const g = new Float64Array(12);
      const E = 0.5 * (s * s - 1);
      const stvk = tetEnergy('stvk', mu, lambda, 0.1, p, 1, 2, 3, 0, B, 0, V, g);
      expect(stvk).toBeCloseTo(V * (mu + lambda / 2) * E * E, 10);
      const nh = tetEnergy('neo-hookean', mu, lambda, 0.1, p, 1, 2, 3, 0, B, 0, V, g);
      const l = Math.log(s);
      expect(nh).toBeCloseTo(V * (0.5 * mu * (s * s - 1) - mu * l + 0.5 * lambda * l * l), 8);
    });
  }

  it('a rigid rotation stores no energy and exerts no force', () => {
    const p = new Float64Array(12);
    const c = Math.cos(1.1),
      sn = Math.sin(1.1);
    for (let i = 0; i < 4; i++) {
      p[3 * i] = c * rest[3 * i] - sn * rest[3 * i + 2] + 3;
      p[3 * i + 1] = rest[3 * i + 1] - 2;
      p[3 * i + 2] = sn * rest[3 * i] + c * rest[3 * i + 2];
    }
    const g = new Float64Array(12);
    for (const model of ['stvk', 'neo-hookean'] as const) {
      expect(Math.abs(tetEnergy(model, mu, lambda, 0.5, p, 1, 2, 3, 0, B, 0, V, g))).toBeLessThan(1e-9);
      for (const v of g) expect(Math.abs(v)).toBeLessThan(1e-7);
    }
  });
});

describe('the stress clamp of Figure 2', () => {
  it('StVK: the principal stress stays at its extremum below σ = 1/√3 and through inversion', () => {
    const c = 1 / Math.sqrt(3);
    const d = new Float64Array(3);
    const at = (s: number) => {
      isotropicEnergy('stvk', mu, 0, c, [1, 1, s], 3, d);
      return d[2];
    };
    // unclamped StVK uniaxial stress μ s (s² − 1) peaks (most negative) at 1/√3
    const peak = at(c);
    expect(peak).toBeCloseTo(mu * c * (c * c - 1), 10);
    for (const s of [0.5, 0.2, 0, -0.4, -2]) expect(at(s)).toBeCloseTo(peak, 10);
    for (const s of [0.6, 0.8]) expect(at(s)).toBeGreaterThan(peak);
  });

  it('Neo-Hookean: finite restoring stress below the clamp, growing toward it', () => {
    const d = new Float64Array(3);
    isotropicEnergy('neo-hookean', mu, lambda, 0.2, [1, 1, -0.5], 3, d);
    expect(Number.isFinite(d[2])).toBe(true);
    expect(d[2]).toBeLessThan(0);
    const atClamp = new Float64Array(3);
    isotropicEnergy('neo-hookean', mu, lambda, 0.2, [1, 1, 0.2], 3, atClamp);
    expect(d[2]).toBeCloseTo(atClamp[2], 8);
  });
});

describe('triangle (membrane) energies', () => {
  const X = new Float64Array([0, 0, 0, 1, 0.2, 0.1, 0.3, 0.1, 0.9]);
  const Bt = new Float64Array(4);
  const A = triangleRestShape(X, 0, 1, 2, [1, 0, 0], Bt, 0);
  const iso = (model: 'stvk' | 'neo-hookean'): MembraneMaterial => {
    const l = planeStressLame(1000, 0.3);
    return {
      model,
      tensor: isotropicMembraneTensor(1000, 0.3),
      mu: l.mu,
      lambda: l.lambda,
      isotropic: true,
      clamp: model === 'stvk' ? 1 / Math.sqrt(3) : 0.2,
    };
  };
  const ortho: MembraneMaterial = {
    model: 'stvk',
    tensor: orthotropicTensor(
      { weftModulus: 2000, warpModulus: 500, shearModulus: 300, weftPoisson: 0.4, warpPoisson: 0.1 },
      'test',
    ),
    mu: 0,
    lambda: 0,
    isotropic: false,
    clamp: 0.5,
  };

  it('rest area and zero energy at rest, in any rigid placement', () => {
    expect(A).toBeCloseTo(
      0.5 * Math.hypot(0.2 * 0.9 - 0.1 * 0.1, 0.1 * 0.3 - 1 * 0.9, 1 * 0.1 - 0.2 * 0.3),
      12,
    );
    const g = new Float64Array(9);
    const moved = new Float64Array(9);
    for (let i = 0; i < 3; i++) {
      moved[3 * i] = -X[3 * i + 2] + 1;
      moved[3 * i + 1] = X[3 * i + 1];
      moved[3 * i + 2] = X[3 * i];
    }
    for (const m of [iso('stvk'), iso('neo-hookean'), ortho]) {
      expect(Math.abs(triangleEnergy(m, moved, 0, 1, 2, Bt, 0, A, g))).toBeLessThan(1e-10);
    }
  });

  for (const [name, mat] of [
    ['isotropic StVK', iso('stvk')],
    ['Neo-Hookean', iso('neo-hookean')],
    ['orthotropic StVK', ortho],
  ] as const) {
    for (const kind of ['random', 'collapsed'] as const) {
      it(`${name}: gradient against finite differences (${kind})`, () => {
        const r = rng(name.length + kind.length);
        for (let t = 0; t < 6; t++) {
          const p = new Float64Array(X);
          for (let k = 0; k < 9; k++) p[k] += 0.3 * (r() - 0.5);
          if (kind === 'collapsed') for (let k = 0; k < 9; k++) p[k] = X[k] * 0.05 + 0.01 * r();
          const g = new Float64Array(9);
          const e = triangleEnergy(mat, p, 0, 1, 2, Bt, 0, A, g);
          expect(Number.isFinite(e)).toBe(true);
          const fd = finiteDifferenceGradient(
            (q) => triangleEnergy(mat, q, 0, 1, 2, Bt, 0, A, new Float64Array(9)),
            p,
            [0, 1, 2],
            1e-7,
          );
          expect(relativeError(g, fd)).toBeLessThan(2e-5);
        }
      });
    }
  }

  it('uniaxial stretch of an isotropic membrane gives the plane-stress energy', () => {
    // stretch by s along the weft (x) with the transverse direction free to contract is not
    // uniform F; check F = diag(s, 1) instead: Ψ = ½ C11 E²
    const s = 1.2;
    const p = new Float64Array(X);
    const Xp = new Float64Array([0, 0, 0, 1, 0, 0, 0, 0, 1]);
    const Bp = new Float64Array(4);
    const Ap = triangleRestShape(Xp, 0, 1, 2, [1, 0, 0], Bp, 0);
    p.set(Xp);
    p[3] = s;
    const E = 0.5 * (s * s - 1);
    const C11 = 1000 / (1 - 0.09);
    expect(triangleEnergy(iso('stvk'), p, 0, 1, 2, Bp, 0, Ap, new Float64Array(9))).toBeCloseTo(
      Ap * 0.5 * C11 * E * E,
      10,
    );
  });

  it('orthotropy: stretching along the weft costs more than along the warp', () => {
    const Xp = new Float64Array([0, 0, 0, 1, 0, 0, 0, 0, 1]);
    const Bp = new Float64Array(4);
    const Ap = triangleRestShape(Xp, 0, 1, 2, [1, 0, 0], Bp, 0);
    const weft = new Float64Array(Xp);
    weft[3] = 1.1;
    const warp = new Float64Array(Xp);
    warp[8] = 1.1;
    const g = new Float64Array(9);
    expect(triangleEnergy(ortho, weft, 0, 1, 2, Bp, 0, Ap, g)).toBeCloseTo(
      4 * triangleEnergy(ortho, warp, 0, 1, 2, Bp, 0, Ap, g),
      10,
    );
  });
});

describe('isometric bending (002 §4.3, Bergou et al.)', () => {
  // edge x0–x1 along z, x2 and x3 on either side
  const X = new Float64Array([0, 0, 0, 0, 0, 1, 1, 0, 0.4, -0.8, 0, 0.7]);
  const K = new Float64Array(4);
  const q = isometricBendingStencil(X, 0, 1, 2, 3, K, 0);

  it('K sums to zero and annihilates every planar configuration', () => {
    expect(q).toBeGreaterThan(0);
    expect(Math.abs(K[0] + K[1] + K[2] + K[3])).toBeLessThan(1e-12);
    const r = rng(9);
    for (let t = 0; t < 20; t++) {
      // a random planar (affine) image of the flat stencil
      const m = Float64Array.from({ length: 9 }, () => r() - 0.5);
      const p = new Float64Array(12);
      for (let i = 0; i < 4; i++) {
        const x = X[3 * i],
          z = X[3 * i + 2];
        for (let d = 0; d < 3; d++) p[3 * i + d] = m[3 * d] * x + m[3 * d + 2] * z + m[3 * d + 1];
      }
      const g = new Float64Array(12);
      expect(isometricBendingEnergy(p, 0, 1, 2, 3, K, 0, q, g)).toBeLessThan(1e-24);
    }
  });

  it('the energy is ½ xᵀQx with Q = 3/(A0+A1) KᵀK, its gradient Qx, and it grows with the fold', () => {
    const r = rng(4);
    const p = new Float64Array(X);
    for (let k = 0; k < 12; k++) p[k] += 0.2 * (r() - 0.5);
    const g = new Float64Array(12);
    const e = isometricBendingEnergy(p, 0, 1, 2, 3, K, 0, q, g);
    let ref = 0;
    for (let i = 0; i < 4; i++)
      for (let j = 0; j < 4; j++) {
        const Q = q * K[i] * K[j];
        ref += 0.5 * Q * (p[3 * i] * p[3 * j] + p[3 * i + 1] * p[3 * j + 1] + p[3 * i + 2] * p[3 * j + 2]);
      }
    expect(e).toBeCloseTo(ref, 12);
    const fd = finiteDifferenceGradient(
      (y) => isometricBendingEnergy(y, 0, 1, 2, 3, K, 0, q, new Float64Array(12)),
      p,
      [0, 1, 2, 3],
    );
    expect(relativeError(g, fd)).toBeLessThan(1e-7);
    const fold = (a: number) => {
      const y = new Float64Array(X);
      y[3 * 3 + 1] = Math.sin(a) * 0.8;
      y[3 * 3] = -Math.cos(a) * 0.8;
      return isometricBendingEnergy(y, 0, 1, 2, 3, K, 0, q, new Float64Array(12));
    };
    expect(fold(0.2)).toBeGreaterThan(0);
    expect(fold(0.6)).toBeGreaterThan(fold(0.2));
  });
});
