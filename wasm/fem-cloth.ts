// The FEM cloth kernels of src/continuum/triangle-fem.ts (StVK membrane energy constraints,
// 002 §3-4, closed-form path) and src/continuum/isometric-bending.ts (002 §4.4, after Bergou
// et al.), two constraints of one colour per f64x2 (lanes A and B). Every operation is the
// JavaScript kernel's, in the same order: the results are bit-identical.

import { dot3, ldv, put } from './common';

/**
 * StVK membrane triangles, pairs [pairFrom, pairTo): pairIdx (0A, 0B, 1A, 1B, 2A, 2B) per pair,
 * pairB D_m⁻¹ (4 entries, lanes interleaved), pairEl the constraint ids. Triangles that need the
 * clamped-stress path are listed in `slow` for the JavaScript kernel; returns how many.
 */
export function membrane(pairFrom: i32, pairTo: i32, pairIdx: usize, pairB: usize, pairEl: usize,
  area: usize, lam: usize, p: usize, w: usize, slow: usize,
  kp: f64, at: f64, m: f64, C11: f64, C12: f64, C22: f64, C33: f64, clamp2: f64, psiMin: f64): i32 {
  let nslow = 0;
  const vHalf = f64x2.splat(0.5), vOne = f64x2.splat(1.0), vZero = f64x2.splat(0.0), vTwo = f64x2.splat(2.0);
  const v11 = f64x2.splat(C11), v12 = f64x2.splat(C12), v22 = f64x2.splat(C22), v33x2 = f64x2.splat(2 * C33);
  const vClamp2 = f64x2.splat(clamp2), vPsiMin = f64x2.splat(psiMin), vTiny = f64x2.splat(1e-300);
  const vm = f64x2.splat(m), vm1 = f64x2.splat(1 - m), v1m = f64x2.splat(1 + m), vAt = f64x2.splat(at), vKp = f64x2.splat(kp);
  for (let j = pairFrom; j < pairTo; j++) {
    const q = pairIdx + <usize>j * 24;
    const i0A = load<i32>(q), i0B = load<i32>(q, 4), i1A = load<i32>(q, 8), i1B = load<i32>(q, 12);
    const i2A = load<i32>(q, 16), i2B = load<i32>(q, 20);
    const w0 = ldv(w, i0A, i0B), w1 = ldv(w, i1A, i1B), w2 = ldv(w, i2A, i2B);
    const activeW = v128.not(f64x2.eq(f64x2.add(f64x2.add(w0, w1), w2), vZero));
    if (!v128.any_true(activeW)) continue;
    const a0 = i0A * 3, a1 = i0B * 3, b0 = i1A * 3, b1 = i1B * 3, d0 = i2A * 3, d1 = i2B * 3;
    const pax = ldv(p, a0, a1), pay = ldv(p, a0 + 1, a1 + 1), paz = ldv(p, a0 + 2, a1 + 2);
    const pbx = ldv(p, b0, b1), pby = ldv(p, b0 + 1, b1 + 1), pbz = ldv(p, b0 + 2, b1 + 2);
    const px = ldv(p, d0, d1), py = ldv(p, d0 + 1, d1 + 1), pz = ldv(p, d0 + 2, d1 + 2);
    const d0x = f64x2.sub(pax, px), d0y = f64x2.sub(pay, py), d0z = f64x2.sub(paz, pz);
    const d1x = f64x2.sub(pbx, px), d1y = f64x2.sub(pby, py), d1z = f64x2.sub(pbz, pz);
    const ob = pairB + <usize>j * 64;
    const B0 = v128.load(ob), B1 = v128.load(ob, 16), B2 = v128.load(ob, 32), B3 = v128.load(ob, 48);
    const f0 = f64x2.add(f64x2.mul(d0x, B0), f64x2.mul(d1x, B2)), f1 = f64x2.add(f64x2.mul(d0x, B1), f64x2.mul(d1x, B3));
    const f2 = f64x2.add(f64x2.mul(d0y, B0), f64x2.mul(d1y, B2)), f3 = f64x2.add(f64x2.mul(d0y, B1), f64x2.mul(d1y, B3));
    const f4 = f64x2.add(f64x2.mul(d0z, B0), f64x2.mul(d1z, B2)), f5 = f64x2.add(f64x2.mul(d0z, B1), f64x2.mul(d1z, B3));
    const c00 = dot3(f0, f2, f4, f0, f2, f4), c01 = dot3(f0, f2, f4, f1, f3, f5), c11 = dot3(f1, f3, f5, f1, f3, f5);
    const hd = f64x2.mul(vHalf, f64x2.sub(c00, c11));
    const smallest = f64x2.sub(f64x2.mul(vHalf, f64x2.add(c00, c11)), f64x2.sqrt(f64x2.add(f64x2.mul(hd, hd), f64x2.mul(c01, c01))));
    const fast = f64x2.ge(smallest, vClamp2);
    const eq = pairEl + (<usize>j << 3);
    const cA = load<i32>(eq), cB = load<i32>(eq, 4);
    const defer = v128.andnot(activeW, fast);
    if (i64x2.extract_lane(defer, 0) != 0) { store<i32>(slow + (<usize>nslow << 2), cA); nslow++; }
    if (i64x2.extract_lane(defer, 1) != 0) { store<i32>(slow + (<usize>nslow << 2), cB); nslow++; }
    let act = v128.and(activeW, fast);
    if (!v128.any_true(act)) continue;
    const e00 = f64x2.mul(vHalf, f64x2.sub(c00, vOne)), e11 = f64x2.mul(vHalf, f64x2.sub(c11, vOne)), e01 = f64x2.mul(vHalf, c01);
    const s00 = f64x2.add(f64x2.mul(v11, e00), f64x2.mul(v12, e11));
    const s11 = f64x2.add(f64x2.mul(v12, e00), f64x2.mul(v22, e11));
    const s01 = f64x2.mul(v33x2, e01);
    const P0 = f64x2.add(f64x2.mul(f0, s00), f64x2.mul(f1, s01)), P1 = f64x2.add(f64x2.mul(f0, s01), f64x2.mul(f1, s11));
    const P2 = f64x2.add(f64x2.mul(f2, s00), f64x2.mul(f3, s01)), P3 = f64x2.add(f64x2.mul(f2, s01), f64x2.mul(f3, s11));
    const P4 = f64x2.add(f64x2.mul(f4, s00), f64x2.mul(f5, s01)), P5 = f64x2.add(f64x2.mul(f4, s01), f64x2.mul(f5, s11));
    const psi = f64x2.add(f64x2.mul(vHalf, f64x2.add(f64x2.mul(s00, e00), f64x2.mul(s11, e11))), f64x2.mul(s01, e01));
    act = v128.and(act, f64x2.gt(psi, vPsiMin));
    if (!v128.any_true(act)) continue;
    const A = ldv(area, cA, cB);
    const E = f64x2.mul(A, psi);
    const g0x = f64x2.mul(A, f64x2.add(f64x2.mul(P0, B0), f64x2.mul(P1, B1)));
    const g0y = f64x2.mul(A, f64x2.add(f64x2.mul(P2, B0), f64x2.mul(P3, B1)));
    const g0z = f64x2.mul(A, f64x2.add(f64x2.mul(P4, B0), f64x2.mul(P5, B1)));
    const g1x = f64x2.mul(A, f64x2.add(f64x2.mul(P0, B2), f64x2.mul(P1, B3)));
    const g1y = f64x2.mul(A, f64x2.add(f64x2.mul(P2, B2), f64x2.mul(P3, B3)));
    const g1z = f64x2.mul(A, f64x2.add(f64x2.mul(P4, B2), f64x2.mul(P5, B3)));
    const g2x = f64x2.sub(f64x2.neg(g0x), g1x), g2y = f64x2.sub(f64x2.neg(g0y), g1y), g2z = f64x2.sub(f64x2.neg(g0z), g1z);
    const s = m == 0 ? vOne : f64x2.div(vOne, f64x2.sqrt(f64x2.add(f64x2.mul(f64x2.mul(vTwo, E), vm), vm1)));
    const C = f64x2.mul(f64x2.mul(v1m, E), s);
    const wG = f64x2.mul(f64x2.mul(s, s), f64x2.add(f64x2.add(
      f64x2.mul(w0, dot3(g0x, g0y, g0z, g0x, g0y, g0z)),
      f64x2.mul(w1, dot3(g1x, g1y, g1z, g1x, g1y, g1z))),
      f64x2.mul(w2, dot3(g2x, g2y, g2z, g2x, g2y, g2z))));
    const denom = f64x2.add(wG, vAt);
    act = v128.and(act, f64x2.gt(denom, vTiny));
    const L = ldv(lam, cA, cB);
    const dl = f64x2.div(f64x2.mul(vKp, f64x2.sub(f64x2.sub(f64x2.neg(C), f64x2.mul(vAt, L)), vZero)), denom);
    const Ln = f64x2.add(L, dl);
    const sd = f64x2.mul(s, dl);
    const k0 = f64x2.mul(w0, sd), k1 = f64x2.mul(w1, sd), k2 = f64x2.mul(w2, sd);
    const qax = f64x2.add(pax, f64x2.mul(g0x, k0)), qay = f64x2.add(pay, f64x2.mul(g0y, k0)), qaz = f64x2.add(paz, f64x2.mul(g0z, k0));
    const qbx = f64x2.add(pbx, f64x2.mul(g1x, k1)), qby = f64x2.add(pby, f64x2.mul(g1y, k1)), qbz = f64x2.add(pbz, f64x2.mul(g1z, k1));
    const qdx = f64x2.add(px, f64x2.mul(g2x, k2)), qdy = f64x2.add(py, f64x2.mul(g2y, k2)), qdz = f64x2.add(pz, f64x2.mul(g2z, k2));
    if (i64x2.extract_lane(act, 0) != 0) {
      store<f64>(lam + (<usize>cA << 3), f64x2.extract_lane(Ln, 0));
      put(p, a0, 0, qax, qay, qaz);
      put(p, b0, 0, qbx, qby, qbz);
      put(p, d0, 0, qdx, qdy, qdz);
    }
    if (i64x2.extract_lane(act, 1) != 0) {
      store<f64>(lam + (<usize>cB << 3), f64x2.extract_lane(Ln, 1));
      put(p, a1, 1, qax, qay, qaz);
      put(p, b1, 1, qbx, qby, qbz);
      put(p, d1, 1, qdx, qdy, qdz);
    }
  }
  return nslow;
}

/**
 * Isometric bending E_b = ½ q |Σ K_i x_i|², pairs [pairFrom, pairTo): pairIdx (0A, 0B, … 3A, 3B)
 * per pair, pairK the four K_i (lanes interleaved), pairEl the constraint ids, q per constraint.
 */
export function isometric(pairFrom: i32, pairTo: i32, pairIdx: usize, pairK: usize, pairEl: usize,
  qs: usize, lam: usize, p: usize, w: usize, kp: f64, at: f64, m: f64): void {
  const vHalf = f64x2.splat(0.5), vZero = f64x2.splat(0.0), vTwo = f64x2.splat(2.0);
  const vTiny = f64x2.splat(1e-300);
  const vm = f64x2.splat(m), vm1 = f64x2.splat(1 - m), v1m = f64x2.splat(1 + m), vAt = f64x2.splat(at), vKp = f64x2.splat(kp);
  for (let j = pairFrom; j < pairTo; j++) {
    const q = pairIdx + (<usize>j << 5);
    const i0A = load<i32>(q), i0B = load<i32>(q, 4), i1A = load<i32>(q, 8), i1B = load<i32>(q, 12);
    const i2A = load<i32>(q, 16), i2B = load<i32>(q, 20), i3A = load<i32>(q, 24), i3B = load<i32>(q, 28);
    const w0 = ldv(w, i0A, i0B), w1 = ldv(w, i1A, i1B), w2 = ldv(w, i2A, i2B), w3 = ldv(w, i3A, i3B);
    let act = v128.not(f64x2.eq(f64x2.add(f64x2.add(f64x2.add(w0, w1), w2), w3), vZero));
    if (!v128.any_true(act)) continue;
    const ok = pairK + (<usize>j << 6);
    const k0 = v128.load(ok), k1 = v128.load(ok, 16), k2 = v128.load(ok, 32), k3 = v128.load(ok, 48);
    const a0 = i0A * 3, a1 = i0B * 3, b0 = i1A * 3, b1 = i1B * 3, c0 = i2A * 3, c1 = i2B * 3, d0 = i3A * 3, d1 = i3B * 3;
    const pax = ldv(p, a0, a1), pay = ldv(p, a0 + 1, a1 + 1), paz = ldv(p, a0 + 2, a1 + 2);
    const pbx = ldv(p, b0, b1), pby = ldv(p, b0 + 1, b1 + 1), pbz = ldv(p, b0 + 2, b1 + 2);
    const pcx = ldv(p, c0, c1), pcy = ldv(p, c0 + 1, c1 + 1), pcz = ldv(p, c0 + 2, c1 + 2);
    const pdx = ldv(p, d0, d1), pdy = ldv(p, d0 + 1, d1 + 1), pdz = ldv(p, d0 + 2, d1 + 2);
    const vx = f64x2.add(f64x2.add(f64x2.add(f64x2.mul(k0, pax), f64x2.mul(k1, pbx)), f64x2.mul(k2, pcx)), f64x2.mul(k3, pdx));
    const vy = f64x2.add(f64x2.add(f64x2.add(f64x2.mul(k0, pay), f64x2.mul(k1, pby)), f64x2.mul(k2, pcy)), f64x2.mul(k3, pdy));
    const vz = f64x2.add(f64x2.add(f64x2.add(f64x2.mul(k0, paz), f64x2.mul(k1, pbz)), f64x2.mul(k2, pcz)), f64x2.mul(k3, pdz));
    const v2 = dot3(vx, vy, vz, vx, vy, vz);
    const eq = pairEl + (<usize>j << 3);
    const cA = load<i32>(eq), cB = load<i32>(eq, 4);
    const Q = ldv(qs, cA, cB);
    const E = f64x2.mul(f64x2.mul(vHalf, Q), v2);
    act = v128.and(act, f64x2.gt(E, vTiny));
    if (!v128.any_true(act)) continue;
    const s = m == 0 ? Q : f64x2.div(Q, f64x2.sqrt(f64x2.add(f64x2.mul(f64x2.mul(vTwo, E), vm), vm1)));
    const C = f64x2.mul(f64x2.mul(v1m, E), f64x2.div(s, Q));
    const wK = f64x2.add(f64x2.add(f64x2.add(
      f64x2.mul(f64x2.mul(w0, k0), k0), f64x2.mul(f64x2.mul(w1, k1), k1)),
      f64x2.mul(f64x2.mul(w2, k2), k2)), f64x2.mul(f64x2.mul(w3, k3), k3));
    const wG = f64x2.mul(f64x2.mul(f64x2.mul(s, s), v2), wK);
    const denom = f64x2.add(wG, vAt);
    act = v128.and(act, f64x2.gt(denom, vTiny));
    const L = ldv(lam, cA, cB);
    const dl = f64x2.div(f64x2.mul(vKp, f64x2.sub(f64x2.sub(f64x2.neg(C), f64x2.mul(vAt, L)), vZero)), denom);
    const Ln = f64x2.add(L, dl);
    const sd = f64x2.mul(s, dl);
    const f0 = f64x2.mul(f64x2.mul(w0, k0), sd), f1 = f64x2.mul(f64x2.mul(w1, k1), sd);
    const f2 = f64x2.mul(f64x2.mul(w2, k2), sd), f3 = f64x2.mul(f64x2.mul(w3, k3), sd);
    const qax = f64x2.add(pax, f64x2.mul(vx, f0)), qay = f64x2.add(pay, f64x2.mul(vy, f0)), qaz = f64x2.add(paz, f64x2.mul(vz, f0));
    const qbx = f64x2.add(pbx, f64x2.mul(vx, f1)), qby = f64x2.add(pby, f64x2.mul(vy, f1)), qbz = f64x2.add(pbz, f64x2.mul(vz, f1));
    const qcx = f64x2.add(pcx, f64x2.mul(vx, f2)), qcy = f64x2.add(pcy, f64x2.mul(vy, f2)), qcz = f64x2.add(pcz, f64x2.mul(vz, f2));
    const qdx = f64x2.add(pdx, f64x2.mul(vx, f3)), qdy = f64x2.add(pdy, f64x2.mul(vy, f3)), qdz = f64x2.add(pdz, f64x2.mul(vz, f3));
    if (i64x2.extract_lane(act, 0) != 0) {
      store<f64>(lam + (<usize>cA << 3), f64x2.extract_lane(Ln, 0));
      put(p, a0, 0, qax, qay, qaz);
      put(p, b0, 0, qbx, qby, qbz);
      put(p, c0, 0, qcx, qcy, qcz);
      put(p, d0, 0, qdx, qdy, qdz);
    }
    if (i64x2.extract_lane(act, 1) != 0) {
      store<f64>(lam + (<usize>cB << 3), f64x2.extract_lane(Ln, 1));
      put(p, a1, 1, qax, qay, qaz);
      put(p, b1, 1, qbx, qby, qbz);
      put(p, c1, 1, qcx, qcy, qcz);
      put(p, d1, 1, qdx, qdy, qdz);
    }
  }
}
