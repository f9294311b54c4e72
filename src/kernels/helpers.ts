/**
 * Helpers of the kernel language (src/kernels/dsl.ts): small formulas that
 * several `*.kernel.ts` definitions share. The generator inlines every call
 * (scripts/kernels/), so the generated loops call nothing and compute
 * exactly what the helper's body says, in its order. An expression helper
 * is a single `return`; a statement helper writes particle positions. Their
 * arguments are names or numbers (an expression helper may use a parameter
 * twice); a statement helper's number arguments may be expressions,
 * computed once.
 */
import type { Particle } from './dsl.js';

/** |v|² = v_x² + v_y² + v_z² (in that order). */
export function norm2(x: number, y: number, z: number): number {
  return x * x + y * y + z * z;
}

/** Moves a particle along g by k: p += k g (the Δp_i = w_i ∇_i C Δλ of a projection, k = w_i Δλ). */
export function move(a: Particle, gx: number, gy: number, gz: number, k: number): void {
  a.x += gx * k;
  a.y += gy * k;
  a.z += gz * k;
}

/** Moves a particle against g by k: p −= k g (the second particle of a pair constraint, ∇C_b = −∇C_a). */
export function moveBack(a: Particle, gx: number, gy: number, gz: number, k: number): void {
  a.x -= gx * k;
  a.y -= gy * k;
  a.z -= gz * k;
}
