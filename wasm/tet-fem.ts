// The tet energy-constraint kernel of src/continuum/tet-fem.ts (StVK and Neo-Hookean
// fast paths, 002 §3 and eqs. 8-9), two tets of one colour per f64x2 (lanes A and B).
// Every operation is the JavaScript kernel's, in the same order: the results are
// bit-identical. Math.log is imported from JavaScript for the same reason.
@external("env", "log") declare function jsLog(x: f64): f64;

import { ldv } from './common';

export function project(pairFrom: i32, pairTo: i32, pairIdx: usize, pairB: usize, pairTet: usize,
  vol: usize, lam: usize, p: usize, w: usize, slow: usize,
  kp: f64, at: f64, m: f64, mu: f64, lambda: f64, clamp2: f64, psiMin: f64, neoHookean: i32): i32 {
  let nslow = 0;
  const vHalf = f64x2.splat(0.5), vOne = f64x2.splat(1.0), vZero = f64x2.splat(0.0), vTwo = f64x2.splat(2.0);
  const vLam = f64x2.splat(lambda), vM2 = f64x2.splat(2 * mu), vClamp2 = f64x2.splat(clamp2), vPsiMin = f64x2.splat(psiMin);
  const vm = f64x2.splat(m), vm1 = f64x2.splat(1 - m), v1m = f64x2.splat(1 + m), vAt = f64x2.splat(at), vKp = f64x2.splat(kp);
  const vTiny = f64x2.splat(1e-300);
  const vMu = f64x2.splat(mu), vHalfMu = f64x2.splat(0.5 * mu), vHalfLam = f64x2.splat(0.5 * lambda), vThree = f64x2.splat(3.0);
  for (let j = pairFrom; j < pairTo; j++) {
    const q = pairIdx + (<usize>j << 5);
    const i0A = load<i32>(q), i0B = load<i32>(q, 4), i1A = load<i32>(q, 8), i1B = load<i32>(q, 12);
    const i2A = load<i32>(q, 16), i2B = load<i32>(q, 20), i3A = load<i32>(q, 24), i3B = load<i32>(q, 28);
    const w0 = ldv(w, i0A, i0B), w1 = ldv(w, i1A, i1B), w2 = ldv(w, i2A, i2B), w3 = ldv(w, i3A, i3B);
    const wsum = f64x2.add(f64x2.add(f64x2.add(w0, w1), w2), w3);
    const activeW = v128.not(f64x2.eq(wsum, vZero));
    if (!v128.any_true(activeW)) continue;
    const a0 = i0A * 3, a1 = i0B * 3, b0 = i1A * 3, b1 = i1B * 3, c0 = i2A * 3, c1 = i2B * 3, e0 = i3A * 3, e1 = i3B * 3;
    const pax = ldv(p, a0, a1), pay = ldv(p, a0 + 1, a1 + 1), paz = ldv(p, a0 + 2, a1 + 2);
    const pbx = ldv(p, b0, b1), pby = ldv(p, b0 + 1, b1 + 1), pbz = ldv(p, b0 + 2, b1 + 2);
    const pcx = ldv(p, c0, c1), pcy = ldv(p, c0 + 1, c1 + 1), pcz = ldv(p, c0 + 2, c1 + 2);
    const px = ldv(p, e0, e1), py = ldv(p, e0 + 1, e1 + 1), pz = ldv(p, e0 + 2, e1 + 2);
    const d0x = f64x2.sub(pax, px), d0y = f64x2.sub(pay, py), d0z = f64x2.sub(paz, pz);
    const d1x = f64x2.sub(pbx, px), d1y = f64x2.sub(pby, py), d1z = f64x2.sub(pbz, pz);
    const d2x = f64x2.sub(pcx, px), d2y = f64x2.sub(pcy, py), d2z = f64x2.sub(pcz, pz);
    const ob = pairB + <usize>j * 144;
    const B0 = v128.load(ob), B1 = v128.load(ob, 16), B2 = v128.load(ob, 32), B3 = v128.load(ob, 48), B4 = v128.load(ob, 64);
    const B5 = v128.load(ob, 80), B6 = v128.load(ob, 96), B7 = v128.load(ob, 112), B8 = v128.load(ob, 128);
    const f0 = f64x2.add(f64x2.add(f64x2.mul(d0x, B0), f64x2.mul(d1x, B3)), f64x2.mul(d2x, B6));
    const f1 = f64x2.add(f64x2.add(f64x2.mul(d0x, B1), f64x2.mul(d1x, B4)), f64x2.mul(d2x, B7));
    const f2 = f64x2.add(f64x2.add(f64x2.mul(d0x, B2), f64x2.mul(d1x, B5)), f64x2.mul(d2x, B8));
    const f3 = f64x2.add(f64x2.add(f64x2.mul(d0y, B0), f64x2.mul(d1y, B3)), f64x2.mul(d2y, B6));
    const f4 = f64x2.add(f64x2.add(f64x2.mul(d0y, B1), f64x2.mul(d1y, B4)), f64x2.mul(d2y, B7));
    const f5 = f64x2.add(f64x2.add(f64x2.mul(d0y, B2), f64x2.mul(d1y, B5)), f64x2.mul(d2y, B8));
    const f6 = f64x2.add(f64x2.add(f64x2.mul(d0z, B0), f64x2.mul(d1z, B3)), f64x2.mul(d2z, B6));
    const f7 = f64x2.add(f64x2.add(f64x2.mul(d0z, B1), f64x2.mul(d1z, B4)), f64x2.mul(d2z, B7));
    const f8 = f64x2.add(f64x2.add(f64x2.mul(d0z, B2), f64x2.mul(d1z, B5)), f64x2.mul(d2z, B8));
    const c00 = f64x2.add(f64x2.add(f64x2.mul(f0, f0), f64x2.mul(f3, f3)), f64x2.mul(f6, f6));
    const c01 = f64x2.add(f64x2.add(f64x2.mul(f0, f1), f64x2.mul(f3, f4)), f64x2.mul(f6, f7));
    const c02 = f64x2.add(f64x2.add(f64x2.mul(f0, f2), f64x2.mul(f3, f5)), f64x2.mul(f6, f8));
    const c11 = f64x2.add(f64x2.add(f64x2.mul(f1, f1), f64x2.mul(f4, f4)), f64x2.mul(f7, f7));
    const c12 = f64x2.add(f64x2.add(f64x2.mul(f1, f2), f64x2.mul(f4, f5)), f64x2.mul(f7, f8));
    const c22 = f64x2.add(f64x2.add(f64x2.mul(f2, f2), f64x2.mul(f5, f5)), f64x2.mul(f8, f8));
    const cof0 = f64x2.sub(f64x2.mul(f4, f8), f64x2.mul(f5, f7));
    const cof1 = f64x2.sub(f64x2.mul(f5, f6), f64x2.mul(f3, f8));
    const cof2 = f64x2.sub(f64x2.mul(f3, f7), f64x2.mul(f4, f6));
    const det = f64x2.add(f64x2.add(f64x2.mul(f0, cof0), f64x2.mul(f1, cof1)), f64x2.mul(f2, cof2));
    const a01 = f64x2.abs(c01), a02 = f64x2.abs(c02), a12 = f64x2.abs(c12);
    const fast = v128.and(v128.and(f64x2.gt(det, vZero), f64x2.ge(f64x2.sub(f64x2.sub(c00, a01), a02), vClamp2)),
      v128.and(f64x2.ge(f64x2.sub(f64x2.sub(c11, a01), a12), vClamp2), f64x2.ge(f64x2.sub(f64x2.sub(c22, a02), a12), vClamp2)));
    const tq = pairTet + (<usize>j << 3);
    const tA = load<i32>(tq), tB = load<i32>(tq, 4);
    const defer = v128.andnot(activeW, fast);
    if (i64x2.extract_lane(defer, 0) != 0) { store<i32>(slow + (<usize>nslow << 2), tA); nslow++; }
    if (i64x2.extract_lane(defer, 1) != 0) { store<i32>(slow + (<usize>nslow << 2), tB); nslow++; }
    let act = v128.and(activeW, fast);
    if (!v128.any_true(act)) continue;
    let P0: v128, P1: v128, P2: v128, P3: v128, P4: v128, P5: v128, P6: v128, P7: v128, P8: v128, psi: v128;
    if (neoHookean) {
      // Neo-Hookean (eq. 8): P = μF + (λ log J − μ) F⁻ᵀ
      const logJ = f64x2.replace_lane(f64x2.splat(jsLog(f64x2.extract_lane(det, 0))), 1, jsLog(f64x2.extract_lane(det, 1)));
      const k = f64x2.div(f64x2.sub(f64x2.mul(vLam, logJ), vMu), det);
      P0 = f64x2.add(f64x2.mul(vMu, f0), f64x2.mul(k, cof0));
      P1 = f64x2.add(f64x2.mul(vMu, f1), f64x2.mul(k, cof1));
      P2 = f64x2.add(f64x2.mul(vMu, f2), f64x2.mul(k, cof2));
      P3 = f64x2.add(f64x2.mul(vMu, f3), f64x2.mul(k, f64x2.sub(f64x2.mul(f2, f7), f64x2.mul(f1, f8))));
      P4 = f64x2.add(f64x2.mul(vMu, f4), f64x2.mul(k, f64x2.sub(f64x2.mul(f0, f8), f64x2.mul(f2, f6))));
      P5 = f64x2.add(f64x2.mul(vMu, f5), f64x2.mul(k, f64x2.sub(f64x2.mul(f1, f6), f64x2.mul(f0, f7))));
      P6 = f64x2.add(f64x2.mul(vMu, f6), f64x2.mul(k, f64x2.sub(f64x2.mul(f1, f5), f64x2.mul(f2, f4))));
      P7 = f64x2.add(f64x2.mul(vMu, f7), f64x2.mul(k, f64x2.sub(f64x2.mul(f2, f3), f64x2.mul(f0, f5))));
      P8 = f64x2.add(f64x2.mul(vMu, f8), f64x2.mul(k, f64x2.sub(f64x2.mul(f0, f4), f64x2.mul(f1, f3))));
      psi = f64x2.add(f64x2.sub(f64x2.mul(vHalfMu, f64x2.sub(f64x2.add(f64x2.add(c00, c11), c22), vThree)), f64x2.mul(vMu, logJ)),
        f64x2.mul(f64x2.mul(vHalfLam, logJ), logJ));
    } else {
      // StVK: P = F (2μ ε + λ tr(ε) I), Ψ = μ ε:ε + λ/2 tr(ε)²
      const e00 = f64x2.mul(vHalf, f64x2.sub(c00, vOne)), e11 = f64x2.mul(vHalf, f64x2.sub(c11, vOne)), e22 = f64x2.mul(vHalf, f64x2.sub(c22, vOne));
      const e01 = f64x2.mul(vHalf, c01), e02 = f64x2.mul(vHalf, c02), e12 = f64x2.mul(vHalf, c12);
      const lt = f64x2.mul(vLam, f64x2.add(f64x2.add(e00, e11), e22));
      const s00 = f64x2.add(f64x2.mul(vM2, e00), lt), s11 = f64x2.add(f64x2.mul(vM2, e11), lt), s22 = f64x2.add(f64x2.mul(vM2, e22), lt);
      const s01 = f64x2.mul(vM2, e01), s02 = f64x2.mul(vM2, e02), s12 = f64x2.mul(vM2, e12);
      P0 = f64x2.add(f64x2.add(f64x2.mul(f0, s00), f64x2.mul(f1, s01)), f64x2.mul(f2, s02));
      P1 = f64x2.add(f64x2.add(f64x2.mul(f0, s01), f64x2.mul(f1, s11)), f64x2.mul(f2, s12));
      P2 = f64x2.add(f64x2.add(f64x2.mul(f0, s02), f64x2.mul(f1, s12)), f64x2.mul(f2, s22));
      P3 = f64x2.add(f64x2.add(f64x2.mul(f3, s00), f64x2.mul(f4, s01)), f64x2.mul(f5, s02));
      P4 = f64x2.add(f64x2.add(f64x2.mul(f3, s01), f64x2.mul(f4, s11)), f64x2.mul(f5, s12));
      P5 = f64x2.add(f64x2.add(f64x2.mul(f3, s02), f64x2.mul(f4, s12)), f64x2.mul(f5, s22));
      P6 = f64x2.add(f64x2.add(f64x2.mul(f6, s00), f64x2.mul(f7, s01)), f64x2.mul(f8, s02));
      P7 = f64x2.add(f64x2.add(f64x2.mul(f6, s01), f64x2.mul(f7, s11)), f64x2.mul(f8, s12));
      P8 = f64x2.add(f64x2.add(f64x2.mul(f6, s02), f64x2.mul(f7, s12)), f64x2.mul(f8, s22));
      psi = f64x2.add(f64x2.add(f64x2.add(f64x2.mul(vHalf, f64x2.add(f64x2.add(f64x2.mul(s00, e00), f64x2.mul(s11, e11)), f64x2.mul(s22, e22))),
        f64x2.mul(s01, e01)), f64x2.mul(s02, e02)), f64x2.mul(s12, e12));
    }
    act = v128.and(act, f64x2.gt(psi, vPsiMin));
    if (!v128.any_true(act)) continue;
    const V = ldv(vol, tA, tB);
    const E = f64x2.mul(V, psi);
    const g0x = f64x2.add(f64x2.add(f64x2.mul(P0, B0), f64x2.mul(P1, B1)), f64x2.mul(P2, B2));
    const g0y = f64x2.add(f64x2.add(f64x2.mul(P3, B0), f64x2.mul(P4, B1)), f64x2.mul(P5, B2));
    const g0z = f64x2.add(f64x2.add(f64x2.mul(P6, B0), f64x2.mul(P7, B1)), f64x2.mul(P8, B2));
    const g1x = f64x2.add(f64x2.add(f64x2.mul(P0, B3), f64x2.mul(P1, B4)), f64x2.mul(P2, B5));
    const g1y = f64x2.add(f64x2.add(f64x2.mul(P3, B3), f64x2.mul(P4, B4)), f64x2.mul(P5, B5));
    const g1z = f64x2.add(f64x2.add(f64x2.mul(P6, B3), f64x2.mul(P7, B4)), f64x2.mul(P8, B5));
    const g2x = f64x2.add(f64x2.add(f64x2.mul(P0, B6), f64x2.mul(P1, B7)), f64x2.mul(P2, B8));
    const g2y = f64x2.add(f64x2.add(f64x2.mul(P3, B6), f64x2.mul(P4, B7)), f64x2.mul(P5, B8));
    const g2z = f64x2.add(f64x2.add(f64x2.mul(P6, B6), f64x2.mul(P7, B7)), f64x2.mul(P8, B8));
    const g3x = f64x2.sub(f64x2.sub(f64x2.neg(g0x), g1x), g2x);
    const g3y = f64x2.sub(f64x2.sub(f64x2.neg(g0y), g1y), g2y);
    const g3z = f64x2.sub(f64x2.sub(f64x2.neg(g0z), g1z), g2z);
    const s0 = m == 0 ? vOne : f64x2.div(vOne, f64x2.sqrt(f64x2.add(f64x2.mul(f64x2.mul(vTwo, E), vm), vm1)));
    const C = f64x2.mul(f64x2.mul(v1m, E), s0);
    const s = f64x2.mul(s0, V);
    const n0 = f64x2.add(f64x2.add(f64x2.mul(g0x, g0x), f64x2.mul(g0y, g0y)), f64x2.mul(g0z, g0z));
    const n1 = f64x2.add(f64x2.add(f64x2.mul(g1x, g1x), f64x2.mul(g1y, g1y)), f64x2.mul(g1z, g1z));
    const n2 = f64x2.add(f64x2.add(f64x2.mul(g2x, g2x), f64x2.mul(g2y, g2y)), f64x2.mul(g2z, g2z));
    const n3 = f64x2.add(f64x2.add(f64x2.mul(g3x, g3x), f64x2.mul(g3y, g3y)), f64x2.mul(g3z, g3z));
    const wG = f64x2.mul(f64x2.mul(s, s), f64x2.add(f64x2.add(f64x2.add(f64x2.mul(w0, n0), f64x2.mul(w1, n1)), f64x2.mul(w2, n2)), f64x2.mul(w3, n3)));
    const denom = f64x2.add(wG, vAt);
    act = v128.and(act, f64x2.gt(denom, vTiny));
    const L = ldv(lam, tA, tB);
    const dl = f64x2.div(f64x2.mul(vKp, f64x2.sub(f64x2.sub(f64x2.neg(C), f64x2.mul(vAt, L)), vZero)), denom);
    const Ln = f64x2.add(L, dl);
    const sd = f64x2.mul(s, dl);
    const k0 = f64x2.mul(w0, sd), k1 = f64x2.mul(w1, sd), k2 = f64x2.mul(w2, sd), k3 = f64x2.mul(w3, sd);
    const qax = f64x2.add(pax, f64x2.mul(g0x, k0)), qay = f64x2.add(pay, f64x2.mul(g0y, k0)), qaz = f64x2.add(paz, f64x2.mul(g0z, k0));
    const qbx = f64x2.add(pbx, f64x2.mul(g1x, k1)), qby = f64x2.add(pby, f64x2.mul(g1y, k1)), qbz = f64x2.add(pbz, f64x2.mul(g1z, k1));
    const qcx = f64x2.add(pcx, f64x2.mul(g2x, k2)), qcy = f64x2.add(pcy, f64x2.mul(g2y, k2)), qcz = f64x2.add(pcz, f64x2.mul(g2z, k2));
    const qdx = f64x2.add(px, f64x2.mul(g3x, k3)), qdy = f64x2.add(py, f64x2.mul(g3y, k3)), qdz = f64x2.add(pz, f64x2.mul(g3z, k3));
    if (i64x2.extract_lane(act, 0) != 0) {
      store<f64>(lam + (<usize>tA << 3), f64x2.extract_lane(Ln, 0));
      let o = p + (<usize>a0 << 3);
      store<f64>(o, f64x2.extract_lane(qax, 0)); store<f64>(o, f64x2.extract_lane(qay, 0), 8); store<f64>(o, f64x2.extract_lane(qaz, 0), 16);
      o = p + (<usize>b0 << 3);
      store<f64>(o, f64x2.extract_lane(qbx, 0)); store<f64>(o, f64x2.extract_lane(qby, 0), 8); store<f64>(o, f64x2.extract_lane(qbz, 0), 16);
      o = p + (<usize>c0 << 3);
      store<f64>(o, f64x2.extract_lane(qcx, 0)); store<f64>(o, f64x2.extract_lane(qcy, 0), 8); store<f64>(o, f64x2.extract_lane(qcz, 0), 16);
      o = p + (<usize>e0 << 3);
      store<f64>(o, f64x2.extract_lane(qdx, 0)); store<f64>(o, f64x2.extract_lane(qdy, 0), 8); store<f64>(o, f64x2.extract_lane(qdz, 0), 16);
    }
    if (i64x2.extract_lane(act, 1) != 0) {
      store<f64>(lam + (<usize>tB << 3), f64x2.extract_lane(Ln, 1));
      let o = p + (<usize>a1 << 3);
      store<f64>(o, f64x2.extract_lane(qax, 1)); store<f64>(o, f64x2.extract_lane(qay, 1), 8); store<f64>(o, f64x2.extract_lane(qaz, 1), 16);
      o = p + (<usize>b1 << 3);
      store<f64>(o, f64x2.extract_lane(qbx, 1)); store<f64>(o, f64x2.extract_lane(qby, 1), 8); store<f64>(o, f64x2.extract_lane(qbz, 1), 16);
      o = p + (<usize>c1 << 3);
      store<f64>(o, f64x2.extract_lane(qcx, 1)); store<f64>(o, f64x2.extract_lane(qcy, 1), 8); store<f64>(o, f64x2.extract_lane(qcz, 1), 16);
      o = p + (<usize>e1 << 3);
      store<f64>(o, f64x2.extract_lane(qdx, 1)); store<f64>(o, f64x2.extract_lane(qdy, 1), 8); store<f64>(o, f64x2.extract_lane(qdz, 1), 16);
    }
  }
  return nslow;
}
