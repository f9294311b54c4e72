/**
 * The velocity updates of the two orientation stores, written once (issue 14): the angular velocity
 * from the change of orientation over a substep, Δq = q_new q_old⁻¹ — of a rigid body (Müller et
 * al. 2020, Algorithm 2 lines 12–15: v = (x − x_prev)/h, ω = 2 vec(Δq)/(h Δq_w)) and of an
 * oriented particle or rod segment (001 §4.4 eqs. 30–31: ω = axis(r) angle(r)/h, r = q_p q⁻¹, the
 * shorter of r and −r). Printed as TypeScript into src/core/pose-passes.generated.ts:
 * updateRigidRange (src/core/rigid-stages.ts RigidVelocityStage) and updateOrientationRange
 * (src/core/orientation-stages.ts OrientationVelocityStage). Both read Δq through one template of
 * the Hamilton product with a conjugate, so the same operations in the same order as the loops they
 * replace (48 scene checksums).
 */

const Q = ['x', 'y', 'z', 'w'];

/** Statements at indent pad. */
const at = (pad: string, lines: string[]) => lines.map((l) => `${pad}${l}\n`).join('');

/** `i4`, `i4 + 1`, … */
const ix = (k: number) => (k === 0 ? 'i4' : `i4 + ${k}`);

/** `const <n>x = <sign>A[i4], …, <n>w = A[i4 + 3]` (the vector part negated with sign '-': the conjugate of a unit quaternion, its inverse). */
function readQuat(pad: string, n: string, A: string, sign = ''): string {
  const parts = Q.map((c, k) => `${n}${c} = ${k < 3 ? sign : ''}${A}[${ix(k)}]`);
  return `${pad}const ${parts.join(`,\n${pad}  `)};\n`;
}

/**
 * The Hamilton product a b of quaternions a, b in scope (ax … aw, bx … bw) into the locals `out`
 * (x, y, z, w), each declared with `decl` (const, or let for a result turned round later).
 */
function product(pad: string, out: string[], decl: string[]): string {
  const terms = [
    'aw * bx + ax * bw + ay * bz - az * by',
    'aw * by - ax * bz + ay * bw + az * bx',
    'aw * bz + ax * by - ay * bx + az * bw',
    'aw * bw - ax * bx - ay * by - az * bz',
  ];
  return at(
    pad,
    terms.map((t, k) => `${decl[k]} ${out[k]} = ${t};`),
  );
}

/** Δq = a b⁻¹ with a in scope and b read from B at i4 (conjugated), into `out`. */
function delta(pad: string, B: string, out: string[], decl: string[]): string {
  return readQuat(pad, 'b', B, '-') + product(pad, out, decl);
}

export function emitPosePasses(banner: string): string {
  const p = '    ';
  const pp = '      ';
  return `${banner}
// The velocity updates of the rigid bodies and of the oriented particles, printed from
// scripts/kernels/emit-pose-passes.ts (Δq = q_new q_old⁻¹ from one template); src/core/rigid-stages.ts
// and src/core/orientation-stages.ts call them.
import { RIGID_DISABLED, type RigidStore } from './rigid-store.js';

/**
 * Müller et al. 2020, Algorithm 2, lines 12–15, bodies [from, to): v = (x − x_prev)/h and
 * ω = 2 vec(Δq)/(h Δq_w), Δq = q q_prev⁻¹ (dividing by Δq_w: the exact inverse of the prediction,
 * rigid-stages.ts's header). A non-finite pose goes back to the last good one, at rest (counted in
 * stats.recoveries); a kinematic body (inverse mass 0) keeps its velocities; disabled bodies are skipped.
 */
export function updateRigidRange(
  r: RigidStore,
  stats: { recoveries: number },
  invH: number,
  from: number,
  to: number,
): void {
  const { x, q, xPrev, qPrev, v, omega, invMass, flags } = r;
  for (let i = from; i < to; i++) {
    if ((flags[i] & RIGID_DISABLED) !== 0) continue;
    const i3 = 3 * i,
      i4 = 4 * i;
    const px = x[i3],
      py = x[i3 + 1],
      pz = x[i3 + 2];
${readQuat(p, 'a', 'q')}    if (px - px !== 0 || py - py !== 0 || pz - pz !== 0 || ax - ax + ay - ay + az - az + aw - aw !== 0) {
      // a non-finite pose: back to the last good one, at rest
      for (let k = 0; k < 3; k++) {
        x[i3 + k] = xPrev[i3 + k];
        v[i3 + k] = omega[i3 + k] = 0;
      }
      for (let k = 0; k < 4; k++) q[i4 + k] = qPrev[i4 + k];
      stats.recoveries++;
      continue;
    }
    if (invMass[i] === 0) continue;
${at(
  p,
  ['x', 'y', 'z'].map(
    (c, k) => `v[${k === 0 ? 'i3' : `i3 + ${k}`}] = (p${c} - xPrev[${k === 0 ? 'i3' : `i3 + ${k}`}]) * invH;`,
  ),
)}${p}// Δq = q q_prev⁻¹
${delta(p, 'qPrev', ['dx', 'dy', 'dz', 'dw'], ['const', 'const', 'const', 'const'])}    // ω = 2 vec(Δq) / (h Δq_w): the exact inverse of the prediction
    const s = (dw >= 0 ? 2 * invH : -2 * invH) / Math.max(Math.abs(dw), 1e-3);
    omega[i3] = dx * s;
    omega[i3 + 1] = dy * s;
    omega[i3 + 2] = dz * s;
  }
}

/**
 * 001 §4.4 eqs. 30–31, particles [from, to) of an oriented range: r = q_p q⁻¹ (the shorter of r
 * and −r), ω = axis(r) angle(r)/h (0 below the angle eps, ORIENTATION_EPSILON), then q ← q_p.
 */
export function updateOrientationRange(
  q: Float64Array,
  qp: Float64Array,
  om: Float64Array,
  invH: number,
  eps: number,
  from: number,
  to: number,
): void {
  for (let i = from; i < to; i++) {
    const i4 = 4 * i,
      i3 = 3 * i;
    // r = q_p q⁻¹
${readQuat(p, 'a', 'qp')}${delta(p, 'q', ['rx', 'ry', 'rz', 'rw0'], ['let', 'let', 'let', 'const'])}    let rw = rw0;
    if (rw0 < 0) {
      // the shorter of r and −r
${at(pp, ['rx = -rx;', 'ry = -ry;', 'rz = -rz;', 'rw = -rw0;'])}    }
    const sn = Math.sqrt(rx * rx + ry * ry + rz * rz);
    const angle = 2 * Math.atan2(sn, rw);
    if (!(angle >= eps) || !(sn > 0)) {
      om[i3] = om[i3 + 1] = om[i3 + 2] = 0;
    } else {
      const f = (angle * invH) / sn;
      om[i3] = rx * f;
      om[i3 + 1] = ry * f;
      om[i3 + 2] = rz * f;
    }
    for (let k = 0; k < 4; k++) q[i4 + k] = qp[i4 + k];
  }
}
`;
}
