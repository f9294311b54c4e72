import { describe, expect, it } from 'vitest';
import { lambdaPass, wallDensityPass } from '../src/fluids/density-passes.js';
import { wallLayers } from '../src/fluids/kernels.js';
import { Fluid, poly6, spiky, spikyGradient, World } from '../src/index.js';
import { rng } from './helpers.js';

/**
 * The optimised pair loops (src/fluids/*-passes.ts: slot records, the list of pairs inside
 * h that the correction walks, the rows walked as they are at the positions
 * of the search) against a plain evaluation of PBF's formulas with the
 * reference kernels of kernels.ts. Algorithm 1 finds neighbours once per
 * substep, so a pair counts when it was closer than h at the search and is
 * closer than h now.
 */
describe('the fluid pair passes equal a brute-force evaluation of PBF', () => {
  it('ρ_i (eq. 2), λ_i (eq. 11) and Δp_i with s_corr (eqs. 13–14) after the particles moved since the search', () => {
    compareWithBruteForce(true);
  });

  it('ρ_i, λ_i and Δp_i at the positions of the search (the first Jacobi iteration)', () => {
    compareWithBruteForce(false);
  });

  it("λ_i with the records' shared w̃ (session 25) reads no inverse mass: the records of the pass that reads them, bit for bit", () => {
    const n = 500,
      off = 7,
      mF = 0.125,
      random = rng(3);
    const acc0 = new Float64Array(8 * n);
    for (let s = 0; s < n; s++) {
      acc0[8 * s] = 900 + 200 * random();
      for (let k = 1; k < 5; k++) acc0[8 * s + k] = random() - 0.25;
    }
    const invMass = new Float64Array(off + n).fill(0.8);
    const counts = Int32Array.from({ length: n }, () => Math.floor(40 * random()));
    const run = (inv: Float64Array, wU: number): Float64Array => {
      const acc = acc0.slice();
      lambdaPass(n, off, inv, mF, 1e-3, false, 0.01, acc, new Float64Array(n), counts, 20, true, wU);
      return acc;
    };
    const ref = run(invMass, Number.NaN);
    // the inverse masses unreadable (NaN): only the shared w̃ can give the records
    const got = run(new Float64Array(off + n).fill(Number.NaN), 0.8 * mF);
    expect(Buffer.from(got.buffer).equals(Buffer.from(ref.buffer))).toBe(true);
    expect(ref.every(Number.isFinite)).toBe(true);
  });
});

describe('the wall density pass (density-passes.ts wallDensityPass)', () => {
  it('slots with 0–3 walls: ρ += ρ0 (1 − Π(1 − V_k)) and ∇ −= Σ_k G_k Π_{l≠k}(1 − V_l) n_k; cut at slots, the same bits', () => {
    const random = rng(11);
    // a 128k pool's numbers: h = 2d; wRho, wGrad so that V_k stays below 1 (at most ~0.8) and G_k ~ 1
    const [n, off, d, h, rho0] = [400, 5, 0.02, 0.04, 1000];
    const wRho = (0.8 * rho0) / h ** 5;
    const wGrad = 1 / h ** 4;
    const p = Float64Array.from({ length: 3 * (off + n) }, () => random() - 0.5);
    const slot: number[] = [],
      wn: number[] = [],
      wc: number[] = [];
    for (let s = 0; s < n; s++)
      for (let k = 0; k < s % 4; k++) {
        const a = [random() - 0.5, random() - 0.5, random() - 0.5];
        const l = Math.hypot(a[0], a[1], a[2]);
        const m = a.map((x) => x / l);
        const sd = h * (2.7 * random() - 1.2); // a quarter beyond the layers (sd + d/2 ≥ h)
        const i3 = 3 * (off + s);
        slot.push(s);
        wn.push(...m);
        wc.push(m[0] * p[i3] + m[1] * p[i3 + 1] + m[2] * p[i3 + 2] - sd);
      }
    const R = slot.length;
    const acc0 = Float64Array.from({ length: 8 * n }, (_, k) =>
      k % 8 === 0 ? 900 + 200 * random() : random() - 0.5,
    );
    const run = (cuts: number[]) => {
      const out = { acc: acc0.slice(), g: new Float64Array(R), v: new Float64Array(R) };
      const P = new Float64Array(n);
      for (let k = 0; k + 1 < cuts.length; k++) {
        const S = Int32Array.from(slot);
        const N = Float64Array.from(wn),
          C = Float64Array.from(wc);
        wallDensityPass(
          cuts[k],
          cuts[k + 1],
          S,
          N,
          C,
          out.g,
          out.v,
          P,
          off,
          p,
          d,
          h,
          wRho,
          wGrad,
          rho0,
          out.acc,
        );
      }
      return out;
    };
    const all = run([0, R]);
    // the union of the walls, each V_k and G_k from the reference layers (kernels.ts wallLayers)
    const lay = new Float64Array(2),
      K = 30 / h ** 6;
    let zero = 0;
    for (let s = 0, r = 0; s < n; s++) {
      const V: number[] = [],
        G: number[] = [];
      for (let k = 0; k < s % 4; k++) {
        const q = r + k,
          i3 = 3 * (off + s);
        const sd = wn[3 * q] * p[i3] + wn[3 * q + 1] * p[i3 + 1] + wn[3 * q + 2] * p[i3 + 2] - wc[q];
        wallLayers(sd, d, h, lay);
        if (sd + 0.5 * d >= h) zero++;
        V.push(Math.min((wRho * lay[0]) / K / rho0, 0.999999));
        G.push((wGrad * lay[1]) / K);
      }
      const Pi = V.reduce((a, v) => a * (1 - v), 1);
      const near = (got: number, want: number) =>
        expect(Math.abs(got - want)).toBeLessThan(1e-9 * (1 + Math.abs(want)));
      const o = 8 * s;
      near(all.acc[o], acc0[o] + rho0 * (1 - Pi));
      for (let a = 0; a < 3; a++) {
        let sum = 0;
        for (let k = 0; k < V.length; k++) sum += ((G[k] * Pi) / (1 - V[k])) * wn[3 * (r + k) + a];
        near(all.acc[o + 1 + a], acc0[o + 1 + a] - sum);
      }
      for (let k = 0; k < V.length; k++) near(all.g[r + k], (G[k] * Pi) / (1 - V[k]));
      r += V.length;
    }
    expect(zero).toBeGreaterThan(R / 5);
    // block ranges cut at slots (as the pool's row blocks are): every number the same
    const first = (s: number) => slot.indexOf(s);
    const cut = run([0, first(97), first(98), first(251), R]);
    for (const k of ['acc', 'g', 'v'] as const)
      expect(Buffer.from(cut[k].buffer).equals(Buffer.from(all[k].buffer))).toBe(true);
  });
});

function compareWithBruteForce(move: boolean): void {
  const world = new World({ gravity: [0, 0, 0], substeps: 1, iterations: 1 });
  const d = 0.05;
  const fluid = new Fluid(world, { spacing: d, blocks: [{ min: [0, 0, 0], max: [0.3, 0.3, 0.3] }] });
  const n = fluid.activeCount;
  const off = fluid.offset;
  const store = world.store;
  const random = rng(7);
  // jumble the lattice and search on it (with the reordering, as a step does)
  for (let k = 0; k < 3 * n; k++) store.p[3 * off + k] = store.x[3 * off + k] + 0.35 * d * (random() - 0.5);
  const ctx = world.makeContext();
  fluid.density.search(ctx, true);
  const p0 = store.p.slice(3 * off, 3 * (off + n));
  // move the particles as an iteration would: a good share of the pairs now lies beyond h
  if (move) for (let k = 0; k < 3 * n; k++) store.p[3 * off + k] += 1.2 * d * (random() - 0.5);
  const p1 = store.p.slice(3 * off, 3 * (off + n));
  const h = fluid.kernelRadius;
  const m = fluid.particleMass;
  const rho0 = fluid.restDensity;
  const pairs: [number, number][] = [];
  let searched = 0;
  const dist = (q: Float64Array, i: number, j: number) =>
    Math.hypot(q[3 * i] - q[3 * j], q[3 * i + 1] - q[3 * j + 1], q[3 * i + 2] - q[3 * j + 2]);
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      if (!(dist(p0, i, j) < h)) continue;
      searched++;
      if (dist(p1, i, j) < h) pairs.push([i, j]);
    }
  }
  expect(fluid.density.pairs.count).toBe(searched);
  if (move) {
    expect(pairs.length).toBeLessThan(0.9 * searched);
    expect(pairs.length).toBeGreaterThan(0.3 * searched);
  } else {
    expect(pairs.length).toBe(searched);
  }

  // brute force: ρ_i, ∇_{p_i} C_i, Σ_{j≠i} |∇_{p_j} C_i|², λ_i
  // one kernel for the density and its gradient (kernels.ts): W_spiky
  const rho = new Float64Array(n).fill(m * spiky(0, h));
  const grad = new Float64Array(3 * n);
  const ss = new Float64Array(n);
  const g = new Float64Array(3);
  for (const [i, j] of pairs) {
    const w = m * spiky(dist(p1, i, j), h);
    rho[i] += w;
    rho[j] += w;
    spikyGradient(p1[3 * i] - p1[3 * j], p1[3 * i + 1] - p1[3 * j + 1], p1[3 * i + 2] - p1[3 * j + 2], h, g);
    const s = m / rho0;
    const g2 = s * s * (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    ss[i] += g2;
    ss[j] += g2;
    for (let a = 0; a < 3; a++) {
      grad[3 * i + a] += s * g[a];
      grad[3 * j + a] -= s * g[a];
    }
  }
  const lambda = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const C = Math.max(rho[i] / rho0 - 1, 0); // unilateral (the default)
    const gi = grad[3 * i] ** 2 + grad[3 * i + 1] ** 2 + grad[3 * i + 2] ** 2;
    lambda[i] = -C / (gi + ss[i] + fluid.relaxation);
  }
  // Δp_i = Σ_j (λ_i + λ_j + s_corr) (m/ρ0) ∇W_ij,
  // s_corr = −k ((W_ij − W(d)) / (W(Δq) − W(d)))ⁿ / S0 for r < d (poly6), else 0
  const dp = new Float64Array(3 * n);
  const wq = poly6(fluid.artificialPressureDeltaQ * h, h);
  const wd = poly6(d, h);
  let closer = 0;
  for (const [i, j] of pairs) {
    const r = dist(p1, i, j);
    const ratio = Math.max(0, (poly6(r, h) - wd) / (wq - wd));
    if (ratio > 0) closer++;
    const corr = (-fluid.artificialPressureK * ratio ** 4) / fluid.restGradientSquared;
    spikyGradient(p1[3 * i] - p1[3 * j], p1[3 * i + 1] - p1[3 * j + 1], p1[3 * i + 2] - p1[3 * j + 2], h, g);
    const c = (lambda[i] + lambda[j] + corr) * (m / rho0);
    for (let a = 0; a < 3; a++) {
      dp[3 * i + a] += c * g[a];
      dp[3 * j + a] -= c * g[a];
    }
  }

  // the jumble presses some pairs closer than d, so s_corr is tested too
  expect(closer).toBeGreaterThan(0.05 * pairs.length);
  fluid.density.computeLambda(store);
  let rhoErr = 0,
    lamErr = 0,
    lamScale = 0;
  for (let i = 0; i < n; i++) {
    rhoErr = Math.max(rhoErr, Math.abs(fluid.density.rho[i] - rho[i]) / rho[i]);
    lamScale = Math.max(lamScale, Math.abs(lambda[i]));
  }
  expect(rhoErr).toBeLessThan(1e-12);
  fluid.density.applyCorrections(store);
  for (let i = 0; i < n; i++) lamErr = Math.max(lamErr, Math.abs(fluid.density.lambda[i] - lambda[i]));
  expect(lamScale).toBeGreaterThan(0);
  expect(lamErr / lamScale).toBeLessThan(1e-10);
  let dpErr = 0,
    dpScale = 0;
  for (let k = 0; k < 3 * n; k++) {
    dpScale = Math.max(dpScale, Math.abs(dp[k]));
    dpErr = Math.max(dpErr, Math.abs(store.p[3 * off + k] - p1[k] - dp[k]));
  }
  expect(dpScale).toBeGreaterThan(0.01 * d);
  expect(dpErr / dpScale).toBeLessThan(1e-9);
}
