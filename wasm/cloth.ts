// The cloth kernels of src/constraints/distance.ts (distance constraints, 003 §3.3) and
// src/cloth/dihedral-bending.ts (003 §4.1, Appendix A), two constraints of one colour per
// f64x2 (lanes A and B). Every operation is the JavaScript kernel's, in the same order:
// the results are bit-identical. Math.atan2 is imported from JavaScript for the same reason.
@external("env", "atan2") declare function jsAtan2(y: f64, x: f64): f64;

import { dot3, ldv, put } from './common';

/**
 * Distance constraints C = |p_a − p_b| − d (mode 0 both ways, 1 stretch only, 2 compress only),
 * pairs [pairFrom, pairTo): pairIdx holds (aA, aB, bA, bB) per pair, pairEl the constraint ids.
 */
export function distance(pairFrom: i32, pairTo: i32, pairIdx: usize, pairEl: usize, rest: usize, lam: usize,
  p: usize, w: usize, kp: f64, at: f64, mode: i32): void {
  const vZero = f64x2.splat(0.0), vOne = f64x2.splat(1.0), vAt = f64x2.splat(at), vKp = f64x2.splat(kp);
  const vEps = f64x2.splat(1e-12);
  for (let j = pairFrom; j < pairTo; j++) {
    const q = pairIdx + (<usize>j << 4);
    const aA = load<i32>(q), aB = load<i32>(q, 4), bA = load<i32>(q, 8), bB = load<i32>(q, 12);
    const wa = ldv(w, aA, aB), wb = ldv(w, bA, bB);
    const wsum = f64x2.add(wa, wb);
    let act = v128.not(f64x2.eq(wsum, vZero));
    if (!v128.any_true(act)) continue;
    const a0 = aA * 3, a1 = aB * 3, b0 = bA * 3, b1 = bB * 3;
    const pax = ldv(p, a0, a1), pay = ldv(p, a0 + 1, a1 + 1), paz = ldv(p, a0 + 2, a1 + 2);
    const pbx = ldv(p, b0, b1), pby = ldv(p, b0 + 1, b1 + 1), pbz = ldv(p, b0 + 2, b1 + 2);
    const dx = f64x2.sub(pax, pbx), dy = f64x2.sub(pay, pby), dz = f64x2.sub(paz, pbz);
    const len = f64x2.sqrt(dot3(dx, dy, dz, dx, dy, dz));
    act = v128.and(act, v128.not(f64x2.lt(len, vEps)));
    const eq = pairEl + (<usize>j << 3);
    const cA = load<i32>(eq), cB = load<i32>(eq, 4);
    const C = f64x2.sub(len, ldv(rest, cA, cB));
    if (mode == 1) act = v128.andnot(act, f64x2.le(C, vZero));
    else if (mode == 2) act = v128.andnot(act, f64x2.ge(C, vZero));
    if (!v128.any_true(act)) continue;
    const inv = f64x2.div(vOne, len);
    const nx = f64x2.mul(dx, inv), ny = f64x2.mul(dy, inv), nz = f64x2.mul(dz, inv);
    const L = ldv(lam, cA, cB);
    // (kp (−C − at λ − 0)) / ((1 + 0) wsum + at)
    const dl = f64x2.div(f64x2.mul(vKp, f64x2.sub(f64x2.sub(f64x2.neg(C), f64x2.mul(vAt, L)), vZero)), f64x2.add(wsum, vAt));
    const Ln = f64x2.add(L, dl);
    const sa = f64x2.mul(wa, dl), sb = f64x2.mul(wb, dl);
    const qax = f64x2.add(pax, f64x2.mul(nx, sa)), qay = f64x2.add(pay, f64x2.mul(ny, sa)), qaz = f64x2.add(paz, f64x2.mul(nz, sa));
    const qbx = f64x2.sub(pbx, f64x2.mul(nx, sb)), qby = f64x2.sub(pby, f64x2.mul(ny, sb)), qbz = f64x2.sub(pbz, f64x2.mul(nz, sb));
    if (i64x2.extract_lane(act, 0) != 0) {
      store<f64>(lam + (<usize>cA << 3), f64x2.extract_lane(Ln, 0));
      put(p, a0, 0, qax, qay, qaz);
      put(p, b0, 0, qbx, qby, qbz);
    }
    if (i64x2.extract_lane(act, 1) != 0) {
      store<f64>(lam + (<usize>cB << 3), f64x2.extract_lane(Ln, 1));
      put(p, a1, 1, qax, qay, qaz);
      put(p, b1, 1, qbx, qby, qbz);
    }
  }
}

/**
 * Dihedral bending C = φ − φ0 with the scaled gradients of dihedral-bending.ts, pairs
 * [pairFrom, pairTo): pairIdx holds (1A, 1B, 2A, 2B, 3A, 3B, 4A, 4B) per pair.
 */
export function bending(pairFrom: i32, pairTo: i32, pairIdx: usize, pairEl: usize, rest: usize, lam: usize,
  p: usize, w: usize, kp: f64, at: f64, maxStep: f64): void {
  const vZero = f64x2.splat(0.0), vOne = f64x2.splat(1.0), vAt = f64x2.splat(at), vKp = f64x2.splat(kp);
  const vTiny = f64x2.splat(1e-24), vMax = f64x2.splat(maxStep), vMin = f64x2.splat(-maxStep);
  for (let j = pairFrom; j < pairTo; j++) {
    const q = pairIdx + (<usize>j << 5);
    const i1A = load<i32>(q), i1B = load<i32>(q, 4), i2A = load<i32>(q, 8), i2B = load<i32>(q, 12);
    const i3A = load<i32>(q, 16), i3B = load<i32>(q, 20), i4A = load<i32>(q, 24), i4B = load<i32>(q, 28);
    const w1 = ldv(w, i1A, i1B), w2 = ldv(w, i2A, i2B), w3 = ldv(w, i3A, i3B), w4 = ldv(w, i4A, i4B);
    let act = v128.not(f64x2.eq(f64x2.add(f64x2.add(f64x2.add(w1, w2), w3), w4), vZero));
    if (!v128.any_true(act)) continue;
    const a0 = i1A * 3, a1 = i1B * 3, b0 = i2A * 3, b1 = i2B * 3, c0 = i3A * 3, c1 = i3B * 3, d0 = i4A * 3, d1 = i4B * 3;
    const ox = ldv(p, a0, a1), oy = ldv(p, a0 + 1, a1 + 1), oz = ldv(p, a0 + 2, a1 + 2);
    const pbx = ldv(p, b0, b1), pby = ldv(p, b0 + 1, b1 + 1), pbz = ldv(p, b0 + 2, b1 + 2);
    const pcx = ldv(p, c0, c1), pcy = ldv(p, c0 + 1, c1 + 1), pcz = ldv(p, c0 + 2, c1 + 2);
    const pdx = ldv(p, d0, d1), pdy = ldv(p, d0 + 1, d1 + 1), pdz = ldv(p, d0 + 2, d1 + 2);
    const e2x = f64x2.sub(pbx, ox), e2y = f64x2.sub(pby, oy), e2z = f64x2.sub(pbz, oz);
    const e3x = f64x2.sub(pcx, ox), e3y = f64x2.sub(pcy, oy), e3z = f64x2.sub(pcz, oz);
    const e4x = f64x2.sub(pdx, ox), e4y = f64x2.sub(pdy, oy), e4z = f64x2.sub(pdz, oz);
    const n1x = f64x2.sub(f64x2.mul(e2y, e3z), f64x2.mul(e2z, e3y));
    const n1y = f64x2.sub(f64x2.mul(e2z, e3x), f64x2.mul(e2x, e3z));
    const n1z = f64x2.sub(f64x2.mul(e2x, e3y), f64x2.mul(e2y, e3x));
    const n2x = f64x2.sub(f64x2.mul(e2y, e4z), f64x2.mul(e2z, e4y));
    const n2y = f64x2.sub(f64x2.mul(e2z, e4x), f64x2.mul(e2x, e4z));
    const n2z = f64x2.sub(f64x2.mul(e2x, e4y), f64x2.mul(e2y, e4x));
    const l1sq = dot3(n1x, n1y, n1z, n1x, n1y, n1z);
    const l2sq = dot3(n2x, n2y, n2z, n2x, n2y, n2z);
    const e2l = dot3(e2x, e2y, e2z, e2x, e2y, e2z);
    const tol = f64x2.mul(f64x2.mul(vTiny, e2l), e2l);
    act = v128.and(act, v128.and(f64x2.gt(l1sq, tol), f64x2.gt(l2sq, tol)));
    if (!v128.any_true(act)) continue;
    const D = dot3(n1x, n1y, n1z, n2x, n2y, n2z);
    const det = dot3(n1x, n1y, n1z, e4x, e4y, e4z);
    const s = f64x2.mul(f64x2.sqrt(e2l), f64x2.abs(det));
    const c3 = f64x2.div(f64x2.mul(f64x2.neg(det), e2l), l1sq);
    const c4 = f64x2.div(f64x2.mul(det, e2l), l2sq);
    const ie2 = f64x2.div(vOne, e2l);
    const a3 = f64x2.mul(dot3(e3x, e3y, e3z, e2x, e2y, e2z), ie2);
    const a4 = f64x2.mul(dot3(e4x, e4y, e4z, e2x, e2y, e2z), ie2);
    const g3x = f64x2.mul(c3, n1x), g3y = f64x2.mul(c3, n1y), g3z = f64x2.mul(c3, n1z);
    const g4x = f64x2.mul(c4, n2x), g4y = f64x2.mul(c4, n2y), g4z = f64x2.mul(c4, n2z);
    const na3 = f64x2.neg(a3);
    const g2x = f64x2.sub(f64x2.mul(na3, g3x), f64x2.mul(a4, g4x));
    const g2y = f64x2.sub(f64x2.mul(na3, g3y), f64x2.mul(a4, g4y));
    const g2z = f64x2.sub(f64x2.mul(na3, g3z), f64x2.mul(a4, g4z));
    const g1x = f64x2.sub(f64x2.sub(f64x2.neg(g2x), g3x), g4x);
    const g1y = f64x2.sub(f64x2.sub(f64x2.neg(g2y), g3y), g4y);
    const g1z = f64x2.sub(f64x2.sub(f64x2.neg(g2z), g3z), g4z);
    const eq = pairEl + (<usize>j << 3);
    const cA = load<i32>(eq), cB = load<i32>(eq, 4);
    const phi = f64x2.replace_lane(
      f64x2.splat(jsAtan2(f64x2.extract_lane(s, 0), f64x2.extract_lane(D, 0))), 1,
      jsAtan2(f64x2.extract_lane(s, 1), f64x2.extract_lane(D, 1)));
    let C = f64x2.sub(phi, ldv(rest, cA, cB));
    // trust region, as the JavaScript: C > max → max, else C < −max → −max
    C = v128.bitselect(vMax, C, f64x2.gt(C, vMax));
    C = v128.bitselect(vMin, C, f64x2.lt(C, vMin));
    const wG = f64x2.add(f64x2.add(f64x2.add(
      f64x2.mul(w1, dot3(g1x, g1y, g1z, g1x, g1y, g1z)),
      f64x2.mul(w2, dot3(g2x, g2y, g2z, g2x, g2y, g2z))),
      f64x2.mul(f64x2.mul(f64x2.mul(w3, c3), c3), l1sq)),
      f64x2.mul(f64x2.mul(f64x2.mul(w4, c4), c4), l2sq));
    const denom = f64x2.add(wG, f64x2.mul(f64x2.mul(vAt, s), s));
    act = v128.and(act, f64x2.gt(denom, vZero));
    if (!v128.any_true(act)) continue;
    const L = ldv(lam, cA, cB);
    // (kp (−C s − at λ s − 0)) / denom
    const mu = f64x2.div(f64x2.mul(vKp, f64x2.sub(f64x2.sub(f64x2.mul(f64x2.neg(C), s), f64x2.mul(f64x2.mul(vAt, L), s)), vZero)), denom);
    const Ln = f64x2.add(L, f64x2.mul(s, mu));
    const m1 = f64x2.mul(w1, mu), m2 = f64x2.mul(w2, mu), m3 = f64x2.mul(w3, mu), m4 = f64x2.mul(w4, mu);
    const q1x = f64x2.add(ox, f64x2.mul(g1x, m1)), q1y = f64x2.add(oy, f64x2.mul(g1y, m1)), q1z = f64x2.add(oz, f64x2.mul(g1z, m1));
    const q2x = f64x2.add(pbx, f64x2.mul(g2x, m2)), q2y = f64x2.add(pby, f64x2.mul(g2y, m2)), q2z = f64x2.add(pbz, f64x2.mul(g2z, m2));
    const q3x = f64x2.add(pcx, f64x2.mul(g3x, m3)), q3y = f64x2.add(pcy, f64x2.mul(g3y, m3)), q3z = f64x2.add(pcz, f64x2.mul(g3z, m3));
    const q4x = f64x2.add(pdx, f64x2.mul(g4x, m4)), q4y = f64x2.add(pdy, f64x2.mul(g4y, m4)), q4z = f64x2.add(pdz, f64x2.mul(g4z, m4));
    if (i64x2.extract_lane(act, 0) != 0) {
      store<f64>(lam + (<usize>cA << 3), f64x2.extract_lane(Ln, 0));
      put(p, a0, 0, q1x, q1y, q1z);
      put(p, b0, 0, q2x, q2y, q2z);
      put(p, c0, 0, q3x, q3y, q3z);
      put(p, d0, 0, q4x, q4y, q4z);
    }
    if (i64x2.extract_lane(act, 1) != 0) {
      store<f64>(lam + (<usize>cB << 3), f64x2.extract_lane(Ln, 1));
      put(p, a1, 1, q1x, q1y, q1z);
      put(p, b1, 1, q2x, q2y, q2z);
      put(p, c1, 1, q3x, q3y, q3z);
      put(p, d1, 1, q4x, q4y, q4z);
    }
  }
}
