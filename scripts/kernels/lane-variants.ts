/**
 * One AssemblyScript module holding the paired kernels of some definitions
 * in four lane layouts — f64x2 and f32x4, each on gathered lanes (the
 * layout pbdkit ships: every lane's particle loaded and stored with scalar
 * operations) and blocked (a colour's particles gathered first into
 * contiguous v128 blocks by a separate loop, see emitBlockMoves) — for the
 * measurements of docs/performance.md (bench/lanes-probe.ts) and for
 * test/kernel-lanes.test.ts, which checks that the layouts of one precision
 * give the same bits. The f32x4 kernels are the f32 mode's candidates: not
 * used by the library yet.
 */
import { emitBlockMoves, emitSimd, F32X4, F64X2, type Lanes } from './emit-simd.js';
import type { KernelDef } from './parse.js';

export const LAYOUTS: Record<string, Lanes> = {
  paired64: F64X2,
  paired32: F32X4,
  blocked64: { ...F64X2, blocked: true },
  blocked32: { ...F32X4, blocked: true },
};

/** Exported name of a definition's kernel in a layout (see emitSimd). */
export function laneKernelName(def: KernelDef, L: Lanes): string {
  return `${def.name}${L.n === 4 ? 'F32' : ''}${L.blocked ? 'Blocked' : ''}`;
}

/**
 * The module's source. `phi` (measurements only) replaces the dihedral
 * kernel's per-lane `Math.atan2` call: 'div' by s / D (no angle function at
 * all: the floor), 'poly' by an in-module odd polynomial of atan on [0, 1]
 * (s ≥ 0; about f32 accuracy; timing only, not a physics kernel).
 */
export function laneVariantsSource(defs: KernelDef[], phi: 'atan2' | 'div' | 'poly' = 'atan2'): string {
  const parts: string[] = [
    '@external("env", "atan2") declare function js_atan2(a: f64, b: f64): f64;',
    '/** Lanes A, B of an f64x2 from p[iA], p[iB] (f64 indices). */',
    '@inline function ldv(p: usize, iA: i32, iB: i32): v128 {',
    '  return f64x2.replace_lane(f64x2.splat(load<f64>(p + (<usize>iA << 3))), 1, load<f64>(p + (<usize>iB << 3)));',
    '}',
    '/** Lanes A–D of an f32x4 from p[iA] … p[iD] (f32 indices). */',
    '@inline function ldv4(p: usize, iA: i32, iB: i32, iC: i32, iD: i32): v128 {',
    '  let v = v128.load32_zero(p + (<usize>iA << 2));',
    '  v = v128.load32_lane(p + (<usize>iB << 2), v, 1);',
    '  v = v128.load32_lane(p + (<usize>iC << 2), v, 2);',
    '  return v128.load32_lane(p + (<usize>iD << 2), v, 3);',
    '}',
  ];
  for (const L of Object.values(LAYOUTS)) {
    for (const d of defs) {
      let code = emitSimd(d, L).code;
      if (phi === 'div') code = code.replace(/const phi = .*;/, `const phi = ${L.v}.div(s, D);`);
      if (phi === 'poly') code = code.replace(/const phi = .*;/, polyAtan2(L.v));
      parts.push(code);
    }
  }
  const arities = new Set(defs.map((d) => d.particles.length));
  for (const L of [LAYOUTS.blocked64, LAYOUTS.blocked32])
    for (const a of arities) parts.push(emitBlockMoves(L, a));
  return parts.join('\n\n');
}

/** φ = atan2(s, D) for s ≥ 0 by range reduction to [0, 1] and an odd polynomial (Horner). */
function polyAtan2(V: string): string {
  const c = [
    1, -0.3333314528, 0.1999355085, -0.142088994, 0.1065626393, -0.07528964, 0.0429096138, -0.0161657367,
    0.0028662257,
  ];
  const sp = (x: number) => `${V}.splat(${x})`;
  let h = sp(c[8]);
  for (let k = 7; k >= 0; k--) h = `${V}.add(${V}.mul(${h}, _z2), ${sp(c[k])})`;
  return [
    `const _ax = ${V}.abs(D);`,
    `const _z = ${V}.div(${V}.min(_ax, s), ${V}.max(_ax, s));`,
    `const _z2 = ${V}.mul(_z, _z);`,
    `let _r = ${V}.mul(${h}, _z);`,
    `_r = v128.bitselect(${V}.sub(${sp(Math.PI / 2)}, _r), _r, ${V}.gt(s, _ax));`,
    `const phi = v128.bitselect(${V}.sub(${sp(Math.PI)}, _r), _r, ${V}.lt(D, ${sp(0)}));`,
  ].join(' ');
}
