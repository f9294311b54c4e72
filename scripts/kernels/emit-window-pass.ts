/**
 * The fused particle pass of an f32 `aos4` window in the elements module (src/core/window-passes.ts,
 * updatePredictStaged, ported): 003 Algorithm 1 lines 12–15 of substep s and lines 5–7 of substep
 * s + 1 over n particles, reading the window's f32 x y z (widened: exact) and the f64 x, v, w at
 * `x`, `v`, `w` in the kernel memory, writing x, v there and p = x + h v rounded to f32 into the
 * window (with w rounded beside it, as windowLoadF32). The same IEEE operations in the same order
 * as the JavaScript (WebAssembly contracts nothing), so the same bits. Recoveries and speed clamps
 * at cnt (two i32). The scalar path of a particle (particlePassF32) is printed from the particle
 * passes' one definition, scripts/kernels/emit-particle-passes.ts.
 */
import { particlePassF32 } from './emit-particle-passes.js';

/** Lines 5–6 on vxy (f64x2: x y) and vz of a particle with w ≠ 0: gravity, damping, the speed limit (predictRange's order). */
const DAMP_CLAMP = `      vxy = f64x2.mul(f64x2.add(vxy, g2), f2);
      vz = (vz + gz) * f;
      const s = f64x2.mul(vxy, vxy);
      const s2 = f64x2.extract_lane(s, 0) + f64x2.extract_lane(s, 1) + vz * vz;
      if (s2 > vmax2) {
        const k = vmax / Math.sqrt(s2);
        vxy = f64x2.mul(vxy, f64x2.splat(k));
        vz *= k;
      }
`;

/**
 * The loop over the n particles of both passes and particle i's places in the kernel memory (their
 * one layout): its f32 window entry q (x y z w, 16 bytes), its f64 x and v at a and b (24 bytes
 * each), its w.
 */
const EACH_PARTICLE = `  for (let i = 0; i < n; i++) {
    const q = win + (<usize>i << 4);
    const a = x + <usize>i * 24;
    const b = v + <usize>i * 24;
    const wi = load<f64>(w + (<usize>i << 3));
`;

export function windowPassF32(): string {
  return `${particlePassF32()}
/** The pass: x y of a particle in one f64x2, z beside it (lane-wise the same operations in the same order). */
export function windowUpdatePredictF32(
  win: usize, x: usize, v: usize, w: usize, n: i32, cnt: usize,
  invH: f64, reach: f64, h: f64, gx: f64, gy: f64, gz: f64, f: f64, vmax: f64,
): void {
  const reach2 = reach * reach;
  const vmax2 = vmax * vmax;
  const invH2 = f64x2.splat(invH);
  const h2 = f64x2.splat(h);
  const f2 = f64x2.splat(f);
  const g2 = f64x2.replace_lane(f64x2.splat(gx), 1, gy);
  let recoveries = 0;
  let clamps = 0;
${EACH_PARTICLE}    const P = v128.load(q);
    const pxy = f64x2.promote_low_f32x4(P);
    const pz = <f64>f32x4.extract_lane(P, 2);
    const dxy = f64x2.sub(pxy, v128.load(a));
    const dz = pz - load<f64>(a, 16);
    const sq = f64x2.mul(dxy, dxy);
    const d2 = f64x2.extract_lane(sq, 0) + f64x2.extract_lane(sq, 1) + dz * dz;
    if (!(d2 <= reach2)) {
      const c = particlePassF32(q, a, b, wi, invH, reach, h, gx, gy, gz, f, vmax);
      if (c == 1) recoveries++;
      else if (c == 2) clamps++;
      continue;
    }
    let vxy = f64x2.mul(dxy, invH2);
    let vz = dz * invH;
    v128.store(a, pxy);
    store<f64>(a, pz, 16);
    if (wi != 0.0) {
${DAMP_CLAMP}    }
    v128.store(b, vxy);
    store<f64>(b, vz, 16);
    const o = f32x4.demote_f64x2_zero(f64x2.add(pxy, f64x2.mul(h2, vxy)));
    v128.store(q, f32x4.replace_lane(f32x4.replace_lane(o, 2, <f32>(pz + h * vz)), 3, <f32>wi));
  }
  store<i32>(cnt, recoveries);
  store<i32>(cnt, clamps, 4);
}

/**
 * The prediction alone into the window (predictRange's operations in its order, 003 Algorithm 1
 * lines 5–7): v ← (v + h g) f held to vmax where w ≠ 0, p = x + h v rounded to f32 with w beside it.
 */
export function windowPredictF32(
  win: usize, x: usize, v: usize, w: usize, n: i32,
  h: f64, gx: f64, gy: f64, gz: f64, f: f64, vmax: f64,
): void {
  const vmax2 = vmax * vmax;
  const h2 = f64x2.splat(h);
  const f2 = f64x2.splat(f);
  const g2 = f64x2.replace_lane(f64x2.splat(gx), 1, gy);
${EACH_PARTICLE}    let vxy = v128.load(b);
    let vz = load<f64>(b, 16);
    if (wi != 0.0) {
${DAMP_CLAMP}      v128.store(b, vxy);
      store<f64>(b, vz, 16);
    }
    const o = f32x4.demote_f64x2_zero(f64x2.add(v128.load(a), f64x2.mul(h2, vxy)));
    v128.store(q, f32x4.replace_lane(f32x4.replace_lane(o, 2, <f32>(load<f64>(a, 16) + h * vz)), 3, <f32>wi));
  }
}
`;
}
