/**
 * The rows of the Cosserat rod constraints (Kugelstadt & Schömer 2016), written once and printed
 * wherever a solver needs them:
 *
 * - strainRows: the stretch–shear residual of a segment (eq. 37 in the material frame, C = R(q)ᵀ e/l
 *   − e_3), −C − α̃ λ − γ ∇C·Δx, as rod-stretch-shear.ts documents it;
 * - darbouxRows: the bend–twist residual of a joint (eq. 40, C_b = Im(q̄ u′) − Im Ω⁰ with u′ = ±u the
 *   one nearer the rest Darboux vector), −C − α̃ λ − γ ∇C·Δx, as rod-bend-twist.ts documents it;
 * - bendTwistJoint: one joint's whole XPBD step (the residual above, Δλ on the diagonal, the two ends
 *   turned).
 *
 * They are printed into src/strands/rod-kernels.generated.ts (emitRodKernels: the Gauss–Seidel loops
 * of StretchShearConstraints and BendTwistConstraints, and projectBendTwistJoint) and into the direct
 * solver's chain solve (emit-rod-direct.ts: a block's right side). The code printed is the code
 * written out by hand before (session 18: every scene's bits unchanged), up to the exact rewrites
 * noted where they land: (1 + γ) W for W where γ = 0, −(x − y) for −C with C = x − y.
 */
import { rotationEntry } from './emit-rotation.js';

const XYZ = ['x', 'y', 'z'];
/** The index o + i (o alone for i = 0). */
const at = (o: string, i: number): string => (i ? `${o} + ${i}` : o);
/** a · b of two 3-vectors named {a}x … and {b}x …. */
export const dot = (a: string, b: string): string => XYZ.map((c) => `${a}${c} * ${b}${c}`).join(' + ');

/** The columns {d}1, {d}2, {d}3 of R(q) (a segment's material frame), the quaternion's locals {q}x … {q}w. */
export function frame(d: string, q: string): string[] {
  const qc = (c: number): string => `${q}${'xyzw'[c]}`;
  return [1, 2, 3].map(
    (k) => `const ${XYZ.map((c, i) => `${d}${k}${c} = ${rotationEntry(qc, i, k - 1)}`).join(', ')};`,
  );
}

/**
 * The stretch–shear residual of segment c, in the frame d_1 … d_3 of q (locals qx … qw, the start of
 * the substep q0[iq …]), e = p_b − p_a (ex …), 1/l (invL), α̃ per unit length as0 … as2, multipliers
 * lam[3c …]: ê = Rᵀ e, then the rows t[0 … 2] (declared with `decl`) = −(ê/l − e_3) − α̃ λ, less
 * γ ∇C_k·Δx = γ d_k·(Δp_b − Δp_a + e × δθ)/l with δθ = 2 Im(q_p q̄) (the substep's rotation, small).
 */
export function strainRows(t: string[], lam: string, decl: string): string[] {
  const minus = ['', '', ' - 1'];
  return [
    `const ${[1, 2, 3].map((k) => `e${k} = ${dot('e', `d${k}`)}`).join(', ')};`,
    `const ${[0, 1, 2].map((i) => `at${i} = as${i} * invL`).join(', ')};`,
    ...[0, 1, 2].map((i) => {
      const C = minus[i] ? `-(e${i + 1} * invL${minus[i]})` : `-e${i + 1} * invL`;
      return `${decl}${t[i]} = ${C} - at${i} * ${lam}[${at('3 * c', i)}];`;
    }),
    'if (gamma !== 0) {',
    '  // γ ∇C_k·Δx = γ d_k·(Δp_b − Δp_a + e × δθ)/l, δθ = 2 Im(q_p q̄) (the substep’s rotation, small)',
    '  const ax = qw * -q0[iq] + qx * q0[iq + 3] + qy * -q0[iq + 2] - qz * -q0[iq + 1],',
    '    ay = qw * -q0[iq + 1] - qx * -q0[iq + 2] + qy * q0[iq + 3] + qz * -q0[iq],',
    '    az = qw * -q0[iq + 2] + qx * -q0[iq + 1] - qy * -q0[iq] + qz * q0[iq + 3];',
    `  const ${XYZ.map((c, i) => {
      const [u, v] = [XYZ[(i + 1) % 3], XYZ[(i + 2) % 3]];
      return `v${c} = p[${at('ib', i)}] - x[${at('ib', i)}] - p[${at('ia', i)}] + x[${at('ia', i)}] + 2 * (e${u} * a${v} - e${v} * a${u})`;
    }).join(', ')};`,
    ...[0, 1, 2].map((i) => `  ${t[i]} -= gamma * invL * (${dot('v', `d${i + 1}`)});`),
    '}',
  ];
}

/** Where darbouxRows reads and writes: names of locals, arrays and offsets at the site it lands in. */
export interface JointSite {
  /** The prefix of the locals of the joint's first orientation q ({q}x … {q}w); the second is u (ux …, let). */
  q: string;
  /** q and u at the start of the substep: Q0[qo …], U0[uo …]. */
  Q0: string;
  qo: string;
  U0: string;
  uo: string;
  /** The rest Darboux vector R0[ro …] and the multipliers lam[lo …]. */
  R0: string;
  ro: string;
  lam: string;
  lo: string;
  /** α̃ of the three axes: the names {at}0 … {at}2 (declared `const` where atDecl), each scale(i) * L. */
  at: string;
  atDecl: boolean;
  scale: (i: number) => string;
  /** The three rows, and how they are declared (`let ` or nothing). */
  t: string[];
  decl: string;
}

/**
 * The bend–twist residual of one joint (eq. 40): Ω = q̄ u; u′ = ±u, the one whose Ω is nearer Ω⁰
 * (sgn, and Ω, u negated with it); the rows −(Im Ω − Im Ω⁰) − α̃ λ, less γ (∇_q C_k·(q_p − q) +
 * ∇_{u′} C_k·(u′_p − u′)) with ∇_{u′} C_k = q e_k, ∇_q C_k = −u′ e_k; since (a e_k)·d = Im(ā d)_k,
 * ∇C·Δ = Im(q̄ Δu′)_k − Im(ū′ Δq)_k.
 */
export function darbouxRows(s: JointSite): string[] {
  const Q = (c: string): string => `${s.q}${c}`;
  /** Im(q̄ a) or Re(q̄ a) for the quaternion a = (ax, ay, az, aw), component c, as q̄ u is written. */
  const conjProduct = (p: (c: string) => string, a: (c: string) => string, c: number): string => {
    const rows = [
      `${p('w')} * ${a('x')} - ${p('x')} * ${a('w')} - ${p('y')} * ${a('z')} + ${p('z')} * ${a('y')}`,
      `${p('w')} * ${a('y')} + ${p('x')} * ${a('z')} - ${p('y')} * ${a('w')} - ${p('z')} * ${a('x')}`,
      `${p('w')} * ${a('z')} - ${p('x')} * ${a('y')} + ${p('y')} * ${a('x')} - ${p('z')} * ${a('w')}`,
      `${p('w')} * ${a('w')} + ${p('x')} * ${a('x')} + ${p('y')} * ${a('y')} + ${p('z')} * ${a('z')}`,
    ];
    return rows[c];
  };
  const U = (c: string): string => `u${c}`;
  const XYZW = ['x', 'y', 'z', 'w'];
  const R = (i: number): string => `${s.R0}[${at(s.ro, i)}]`;
  const scales = [0, 1, 2].map((i) => `${s.at}${i} = ${s.scale(i)} * L`);
  return [
    '// Ω = q̄ u',
    `let ${[0, 1, 2, 3].map((c) => `o${XYZW[c]} = ${conjProduct(Q, U, c)}`).join(', ')};`,
    '// u′ = ±u: the one whose Ω is nearer Ω⁰',
    'let sgn = 1;',
    `if (${[0, 1, 2, 3].map((c) => `o${XYZW[c]} * ${R(c)}`).join(' + ')} < 0) {`,
    '  sgn = -1;',
    ...['o', 'u'].flatMap((v) => XYZW.map((c) => `  ${v}${c} = -${v}${c};`)),
    '}',
    ...(s.atDecl ? [`const ${scales.join(', ')};`] : scales.map((a) => `${a};`)),
    ...[0, 1, 2].map(
      (i) => `${s.decl}${s.t[i]} = -(o${XYZ[i]} - ${R(i)}) - ${s.at}${i} * ${s.lam}[${at(s.lo, i)}];`,
    ),
    'if (gamma !== 0) {',
    '  // γ (∇_q C_k·(q_p − q) + ∇_{u′} C_k·(u′_p − u′)) with ∇_{u′} C_k = q e_k, ∇_q C_k = −u′ e_k;',
    '  // (a e_k)·d = Im(ā d)_k, so ∇C·Δ = Im(q̄ Δu′)_k − Im(ū′ Δq)_k',
    `  const ${XYZW.map((c, i) => `dq${c} = ${Q(c)} - ${s.Q0}[${at(s.qo, i)}]`).join(', ')};`,
    `  const ${XYZW.map((c, i) => `du${c} = u${c} - sgn * ${s.U0}[${at(s.uo, i)}]`).join(', ')};`,
    ...[0, 1, 2].map(
      (i) =>
        `  ${s.t[i]} -= gamma * (${conjProduct(Q, (c) => `du${c}`, i)} - (${conjProduct(U, (c) => `dq${c}`, i)}));`,
    ),
    '}',
  ];
}

/**
 * One bend–twist joint's XPBD step (eq. 40) where the site has loaded wq, wu (0 for a clamped end),
 * L and the offsets qo, uo, ro, lo: W = w_q + w_u (nothing to do, `skip`, where 0); q and u from
 * Q[qo …], U[uo …]; the residual (darbouxRows); Δλ_k = k′ r_k/((1 + γ) W + α̃_k) (the diagonal of
 * ∇C M⁻¹ ∇Cᵀ is W: |u′ e_k|² = |q e_k|² = 1, the axes orthogonal); Δq = −w_q u′ Λ, Δu′ = w_u q Λ
 * (Λ = (Δλ_1, Δλ_2, Δλ_3, 0)), each end kept unit and u = sgn u′ (turnJointEnd).
 */
function bendTwistJoint(o: {
  Q: string;
  Q0: string;
  U: string;
  U0: string;
  prelude: string[];
  skip: string;
  scale: (i: number) => string;
  atDecl: boolean;
}): string[] {
  return [
    'const W = wq + wu;',
    `if (W === 0) ${o.skip};`,
    ...o.prelude,
    `const ${XYZ.concat('w')
      .map((c, i) => `q${c} = ${o.Q}[${at('qo', i)}]`)
      .join(', ')};`,
    `let ${XYZ.concat('w')
      .map((c, i) => `u${c} = ${o.U}[${at('uo', i)}]`)
      .join(', ')};`,
    ...darbouxRows({
      q: 'q',
      Q0: o.Q0,
      qo: 'qo',
      U0: o.U0,
      uo: 'uo',
      R0: 'R0',
      ro: 'ro',
      lam: 'lam',
      lo: 'lo',
      at: 'at',
      atDecl: o.atDecl,
      scale: o.scale,
      t: ['r1', 'r2', 'r3'],
      decl: 'let ',
    }),
    '// (1 + γ) W is W exactly where γ = 0',
    'const e = (1 + gamma) * W;',
    `const ${[1, 2, 3].map((k) => `l${k} = (kp * r${k}) / (e + at${k - 1})`).join(', ')};`,
    ...[1, 2, 3].map((k) => `lam[${at('lo', k - 1)}] += l${k};`),
    '// Δq = −w_q u′ Λ, Δu′ = w_u q Λ (Λ = (l1, l2, l3, 0)); u = sgn u′',
    `if (wq !== 0) turnJointEnd(${o.Q}, qo, qx, qy, qz, qw, -wq, ux, uy, uz, uw, l1, l2, l3, 1);`,
    `if (wu !== 0) turnJointEnd(${o.U}, uo, ux, uy, uz, uw, wu, qx, qy, qz, qw, l1, l2, l3, sgn);`,
  ];
}

/**
 * The start of a set's loop method: the store's arrays and the set's fields into locals (name, what),
 * then k′, α̃ per unit length as0 … as2, γ and the count.
 */
function prologue(store: [string, string][], set: [string, string][]): string {
  const decl = (l: [string, string][], from: string): string =>
    `const ${l.map(([n, f]) => `${n} = ${from}.${f}`).join(', ')};`;
  return [
    decl(store, 'store'),
    decl(set, 'this'),
    'const kp = this.rule.kPrime;',
    `const ${[0, 1, 2].map((i) => `as${i} = this.atScale[${i}]`).join(', ')};`,
    'const gamma = this.gamma;',
    'const n = this.count;',
  ].join('\n');
}

/** The segment's particles a, b and orientation q (offsets ia, ib, iq) and their inverse masses wa, wb, wr. */
export function segmentLoads(A: string, B: string, Q: string): string {
  return `const ia = 3 * ${A}[c], ib = 3 * ${B}[c], iq = 4 * ${Q}[c];
const wa = w[${A}[c]], wb = w[${B}[c]], wr = iI[3 * ${Q}[c]];
`;
}

/** The loop of StretchShearConstraints (eq. 37; the model in rod-stretch-shear.ts), as a base class's method. */
function stretchShearRange(): string {
  return [
    `/** StretchShearConstraints (rod-stretch-shear.ts) less its set-up: the segments' Gauss–Seidel loop. */
export abstract class StretchShearRows extends RodConstraints {
  abstract readonly a: Int32Array;
  abstract readonly b: Int32Array;
  abstract readonly q: Int32Array;
  abstract readonly rest: Float64Array;

  /**
   * Segments 0 … n − 1 in order, or n − 1 … 0 where rev, each a 3 × 3 XPBD solve (eq. 37 with the
   * orientation turned by a rotation vector) ((1 + γ) K + α̃) Δλ = −C − α̃ λ − γ ∇C·Δx, then
   * Δp_a = −w_a D/l, Δp_b = w_b D/l, Δθ = I⁻¹ (D × e)/l.
   */
  protected projectSegments(store: ParticleStore, rev: boolean): void {
`,
    prologue(
      [
        ['p', 'p'],
        ['x', 'x'],
        ['qp', 'qp'],
        ['q0', 'q'],
        ['w', 'invMass'],
        ['iI', 'invInertia'],
      ],
      [
        ['A', 'a'],
        ['B', 'b'],
        ['Q', 'q'],
        ['rest', 'rest'],
        ['lam', 'lambda'],
      ],
    ),
    `
  // (1 + γ): 1 exactly where γ = 0
  const g1 = 1 + gamma;
  for (let k = 0; k < n; k++) {
    const c = rev ? n - 1 - k : k;
`,
    segmentLoads('A', 'B', 'Q'),
    `    const invL = 1 / rest[c],
      invL2 = invL * invL;
    const s0 = (wa + wb) * invL2,
      sr = wr * invL2;
    if (s0 === 0 && sr === 0) continue;
    const ex = p[ib] - p[ia],
      ey = p[ib + 1] - p[ia + 1],
      ez = p[ib + 2] - p[ia + 2];
    const qx = qp[iq],
      qy = qp[iq + 1],
      qz = qp[iq + 2],
      qw = qp[iq + 3];
    // the material frame: the columns of R(q)`,
    ...frame('d', 'q'),
    '// ê = Rᵀ e; C = ê/l − e_3',
    ...strainRows(['r1', 'r2', 'r3'], 'lam', 'let '),
    `    // (1 + γ) K + α̃, K = s0 I + sr (|e|² I − ê êᵀ)
    const ee = e1 * e1 + e2 * e2 + e3 * e3;
    let m11 = g1 * (s0 + sr * (ee - e1 * e1)) + at0,
      m22 = g1 * (s0 + sr * (ee - e2 * e2)) + at1,
      m33 = g1 * (s0 + sr * (ee - e3 * e3)) + at2;
    const m12 = -g1 * sr * e1 * e2,
      m13 = -g1 * sr * e1 * e3,
      m23 = -g1 * sr * e2 * e3;
    if (s0 === 0) {
      // both ends held: turning cannot change the length; solve on the directions across ê only
      const f = ee > 0 ? (r1 * e1 + r2 * e2 + r3 * e3) / ee : 0;
      r1 -= f * e1;
      r2 -= f * e2;
      r3 -= f * e3;
      const reg = 1e-9 * g1 * sr * ee + 1e-300;
      m11 += reg;
      m22 += reg;
      m33 += reg;
    }
    const c11 = m22 * m33 - m23 * m23,
      c12 = m13 * m23 - m12 * m33,
      c13 = m12 * m23 - m13 * m22,
      c22 = m11 * m33 - m13 * m13,
      c23 = m12 * m13 - m11 * m23,
      c33 = m11 * m22 - m12 * m12;
    const det = m11 * c11 + m12 * c12 + m13 * c13;
    if (!(det > 0)) continue;
    const id = kp / det;
    const l1 = (c11 * r1 + c12 * r2 + c13 * r3) * id,
      l2 = (c12 * r1 + c22 * r2 + c23 * r3) * id,
      l3 = (c13 * r1 + c23 * r2 + c33 * r3) * id;
    lam[3 * c] += l1;
    lam[3 * c + 1] += l2;
    lam[3 * c + 2] += l3;
    // D = Σ Δλ_k d_k (world)
    const Dx = l1 * d1x + l2 * d2x + l3 * d3x,
      Dy = l1 * d1y + l2 * d2y + l3 * d3y,
      Dz = l1 * d1z + l2 * d2z + l3 * d3z;
`,
    moveEnds('wa', 'wb'),
    `    if (wr === 0) continue;
    // Δθ = I⁻¹ (D × e)/l; q ← q + ½ [Δθ, 0] q
    const f = 0.5 * wr * invL;
    const tx = f * (Dy * ez - Dz * ey),
      ty = f * (Dz * ex - Dx * ez),
      tz = f * (Dx * ey - Dy * ex);`,
    ...turnedQuaternion('    '),
    `    const il = 1 / len;
    qp[iq] = nx * il;
    qp[iq + 1] = ny * il;
    qp[iq + 2] = nz * il;
    qp[iq + 3] = nw * il;
  }
}
}`,
  ].join('\n');
}

/** The segment's ends moved by the force D (Dx …): p_a −= w_a D/l, p_b += w_b D/l (w_a, w_b the expressions wa, wb). */
export function moveEnds(wa: string, wb: string): string {
  const ends = XYZ.map((c, i) => `p[${at('ia', i)}] -= fa * D${c};`).concat(
    XYZ.map((c, i) => `p[${at('ib', i)}] += fb * D${c};`),
  );
  return `const fa = ${wa} * invL, fb = ${wb} * invL;\n${ends.join('\n')}\n`;
}

/** n = q + ½ [Δθ, 0] q (the half already in tx … tz) and its length, q the locals qx … qw. */
export function turnedQuaternion(indent: string): string[] {
  return [
    `${indent}const nx = qx + tx * qw + ty * qz - tz * qy,`,
    `${indent}  ny = qy + ty * qw + tz * qx - tx * qz,`,
    `${indent}  nz = qz + tz * qw + tx * qy - ty * qx,`,
    `${indent}  nw = qw - (tx * qx + ty * qy + tz * qz);`,
    `${indent}const len = Math.sqrt(nx * nx + ny * ny + nz * nz + nw * nw);`,
  ];
}

/** The module src/strands/rod-kernels.generated.ts (before formatting). */
export function emitRodKernels(banner: string): string {
  const quat = (c: string, o: string): string => `${c}: Float64Array, ${o}: number`;
  return [
    banner,
    '// The Cosserat rod constraints’ loops (rod-stretch-shear.ts, rod-bend-twist.ts); see scripts/kernels/emit-rod-rows.ts.',
    "import type { ParticleStore } from '../core/particles.js';",
    "import { RodConstraints } from './rod-common.js';",
    '',
    stretchShearRange(),
    '',
    `/** BendTwistConstraints (rod-bend-twist.ts) less its set-up and its anchors: the joints' Gauss–Seidel loop. */
export abstract class BendTwistRows extends RodConstraints {
  abstract readonly qa: Int32Array;
  abstract readonly qb: Int32Array;
  abstract readonly restDarboux: Float64Array;
  abstract readonly jointLength: Float64Array;

  /**
   * Joints 0 … n − 1 in order, or n − 1 … 0 where rev (eq. 40): joint c between the orientations of
   * particles qa[c] and qb[c] (w = I⁻¹/4 each), rest Darboux vector restDarboux[4c …], length
   * jointLength[c], multipliers lambda[3c …].
   */
  protected projectJoints(store: ParticleStore, rev: boolean): void {
`,
    prologue(
      [
        ['qp', 'qp'],
        ['q0', 'q'],
        ['iI', 'invInertia'],
      ],
      [
        ['QA', 'qa'],
        ['QB', 'qb'],
        ['R0', 'restDarboux'],
        ['JL', 'jointLength'],
        ['lam', 'lambda'],
      ],
    ),
    `
  for (let k = 0; k < n; k++) {
    const c = rev ? n - 1 - k : k;
    const qo = 4 * QA[c],
      uo = 4 * QB[c];
    const wq = 0.25 * iI[3 * QA[c]],
      wu = 0.25 * iI[3 * QB[c]];`,
    ...bendTwistJoint({
      Q: 'qp',
      Q0: 'q0',
      U: 'qp',
      U0: 'q0',
      prelude: ['const ro = 4 * c,', '  lo = 3 * c;', 'const L = JL[c];'],
      skip: 'continue',
      scale: (i) => `as${i}`,
      atDecl: true,
    }),
    `  }
}
}

/**
 * Projects one bend–twist joint: orientation q = Q[qo..qo+3] (start of the
 * substep Q0[qo..]; inverse mass w_q, 0 for a clamped frame) and u =
 * U[uo..uo+3] (U0, w_u), rest Darboux vector R0[ro..], joint length L,
 * multipliers lam[lo..lo+2], α̃ per unit length atScale[0..2], damping γ and
 * PBD k′ — exactly what projectBendTwistRange does for each of its joints
 * (the anchors, the direct solver's loose anchors and the tests project
 * here; the set's loop is printed from the same definition, not calling
 * this per joint: with this call per joint, not inlined, rod-1k took
 * 1.02–1.03 times as long, session 15).
 */
export function projectBendTwistJoint(
  ${quat('Q', 'qo')}, Q0: Float64Array, wq: number, ${quat('U', 'uo')}, U0: Float64Array, wu: number,
  ${quat('R0', 'ro')}, L: number, ${quat('lam', 'lo')}, atScale: Float64Array, gamma: number, kp: number,
): void {`,
    ...bendTwistJoint({
      Q: 'Q',
      Q0: 'Q0',
      U: 'U',
      U0: 'U0',
      prelude: [],
      skip: 'return',
      scale: (i) => `atScale[${i}]`,
      atDecl: true,
    }),
    `}

/**
 * One end t of a bend–twist joint moved by Δt = s p Λ (Λ = (l1, l2, l3, 0), p the other end) without
 * its part along t, which only rescales t and would shorten the rotation: T[o..o+3] ← sgn ·
 * normalise(t + Δt − (Δt·t) t), left as it is where that sum vanishes.
 */
function turnJointEnd(
  T: Float64Array, o: number, tx: number, ty: number, tz: number, tw: number, s: number,
  px: number, py: number, pz: number, pw: number, l1: number, l2: number, l3: number, sgn: number,
): void {
  let ax = s * (pw * l1 + py * l3 - pz * l2),
    ay = s * (pw * l2 + pz * l1 - px * l3),
    az = s * (pw * l3 + px * l2 - py * l1),
    aw = -s * (px * l1 + py * l2 + pz * l3);
  const r = ax * tx + ay * ty + az * tz + aw * tw;
  ax -= r * tx;
  ay -= r * ty;
  az -= r * tz;
  aw -= r * tw;
  const nx = tx + ax,
    ny = ty + ay,
    nz = tz + az,
    nw = tw + aw;
  const len = Math.sqrt(nx * nx + ny * ny + nz * nz + nw * nw);
  if (len > 1e-12) {
    const il = sgn / len;
    T[o] = nx * il;
    T[o + 1] = ny * il;
    T[o + 2] = nz * il;
    T[o + 3] = nw * il;
  }
}
`,
  ].join('\n');
}
