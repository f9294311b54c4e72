/**
 * The rigid contact store's reads of a contact's two bodies, written once and printed into the
 * class ContactBlockSolves (src/rigid/contact-blocks.generated.ts, with emit-contact-blocks.ts's
 * block solves), with body 2 read per body kind — a rigid body (store index ib ≥ 0: the rigid
 * store's arrays) or a static collider (−1 − ib: ColliderPoses) — by one printer, bodyB:
 *
 * - `world`, `anchors`: the contact at the current poses into W (surface points, normal, levers);
 * - `relativeVelocity`, `faceFriction`: the relative velocity v₁ + ω₁ × r₁ − (v₂ + ω₂ × r₂)
 *   (relVelocity, also printed into restitutionBlock) and the dynamic friction of a face;
 * - `worldInverseInertia`: per body, R I_b⁻¹ Rᵀ, R by rotationEntry (emit-rotation.ts).
 *
 * Müller et al. 2020, §3.5 (eqs. 2–9) and §3.6 (the velocity level, eqs. 33–34). Session 18 moved these here from
 * contact-store.ts, contact-set.ts and collider-poses.ts, printing the same operations in the same
 * order (every scene's checksum unchanged); ContactStore declares world and anchors abstract.
 */

import { rotationEntry } from './emit-rotation.js';

export const XYZ = ['x', 'y', 'z'];
/** The index o + i (o alone for i = 0). */
export const at = (o: string, i: number): string => (o === '0' ? `${i}` : i ? `${o} + ${i}` : o);

/** `{decl} {name}x = A[o], {name}y = A[o + 1], {name}z = A[o + 2]` (n components, 3 or 4). */
export function load(decl: string, name: string, arr: string, o: string, n = 3): string {
  const parts = Array.from({ length: n }, (_, i) => `${name}${'xyzw'[i]} = ${arr}[${at(o, i)}]`);
  return `${decl} ${parts.join(', ')};`;
}

/**
 * Body 2 of a contact or manifold, read per body kind: a rigid body (ib ≥ 0) or collider −1 − ib
 * (ColliderPoses, this.cp), whose arrays (names → the rigid store's field, the collider poses'
 * field) and offsets (names → stride: 3 · index, 4 · index) the method reads; `movable`: also
 * movB, whether body 2 moves (a collider never does). The one place the contact solves pick body
 * 2's kind: projectBlock, restitutionBlock, world and anchors print it.
 */
export function bodyB(
  arrays: [string, string, string][],
  offsets: [string, number][] = [
    ['b3', 3],
    ['b4', 4],
  ],
  movable = true,
): string[] {
  const pick = (rigid: boolean): string[] => [
    ...arrays.map(([n, rf, cf]) => `${n} = ${rigid ? `r.${rf}` : `this.cp.${cf}`};`),
    ...offsets.map(([n, k]) => `${n} = ${k} * ${rigid ? 'ib' : '(-1 - ib)'};`),
    ...(movable ? [`movB = ${rigid ? 'mov[ib] !== 0' : 'false'};`] : []),
  ];
  return [
    `let ${arrays.map(([n]) => `${n}: Float64Array`).join(', ')};`,
    `let ${[...offsets.map(([n]) => `${n}: number`), ...(movable ? ['movB: boolean'] : [])].join(', ')};`,
    'if (ib >= 0) {',
    ...pick(true),
    '} else {',
    ...pick(false),
    '}',
  ];
}

/** A vector's components 0 … 2 as expressions. */
export type Vec = (i: number) => string;

/**
 * `let {s}x = …, {s}y, {s}z` ← the velocity of side a's point minus side b's, v + ω × l each (the
 * relative velocity at a contact, Müller et al. 2020 §3.6: v = v₁ + ω₁ × r₁ − (v₂ + ω₂ × r₂)),
 * the operands' components by accessor. Printed into relativeVelocity, restitutionBlock and faceFriction.
 */
export function relVelocity(s: string, va: Vec, oa: Vec, la: Vec, vb: Vec, ob: Vec, lb: Vec): string[] {
  const side = (v: Vec, o: Vec, l: Vec, i: number): string =>
    `${v(i)} + (${o((i + 1) % 3)} * ${l((i + 2) % 3)} - ${o((i + 2) % 3)} * ${l((i + 1) % 3)})`;
  return [
    `let ${XYZ.map((c, i) => `${s}${c} = ${side(va, oa, la, i)}`).join(', ')};`,
    ...XYZ.map((c, i) => `${s}${c} -= ${side(vb, ob, lb, i)};`),
  ];
}

/** Components i of A[o + i]. */
const el =
  (A: string, o: string): Vec =>
  (i) =>
    `${A}[${at(o, i)}]`;

/**
 * relativeVelocity (out ← the velocity of contact point s₁ on body ia relative to s₂ on body ib,
 * the levers in W[9 … 11] and W[12 … 14]) and faceFriction (the dynamic friction of a polyhedral
 * manifold, once per face), body 2 read per kind by bodyB.
 */
export function velocityReads(): string[] {
  const VO: [string, string, string][] = [
    ['VB', 'v', 'v'],
    ['OB', 'omega', 'w'],
  ];
  return [
    '/**',
    ' * out ← the velocity of contact point s₁ on body ia relative to s₂ on body',
    ' * ib (a store index, or −1 − k for collider k), with the levers s − x of the',
    ' * two sides in W[9 … 11] and W[12 … 14].',
    ' */',
    'protected relativeVelocity(ia: number, ib: number, W: Float64Array, out: Float64Array): void {',
    'const r = this.rigids;',
    'const V = r.v, O = r.omega;',
    'const a3 = 3 * ia;',
    ...bodyB(VO, [['b3', 3]], false),
    ...relVelocity(
      'v',
      el('V', 'a3'),
      el('O', 'a3'),
      (i) => `W[${9 + i}]`,
      el('VB', 'b3'),
      el('OB', 'b3'),
      (i) => `W[${12 + i}]`,
    ),
    ...XYZ.map((c, i) => `out[${i}] = v${c};`),
    '}',
    '',
    `/**
 * Dynamic friction of the polyhedral manifold that starts at contact k,
 * once for the face (see RigidContacts.endStep): the sliding velocity v_t of body 1's
 * centre against body 2's point under the centroid of the contacts that
 * acted is reduced by the impulse min(|v_t|/(1/m₁ + 1/m₂), μ_d Σ(λ_n +
 * h p_n)/h − Σλ_t/h), through the centres of mass. Per corner, each corner
 * would stop its own point by turning the body and leave much of the slide.
 */
protected faceFriction(k: number): void {
  const h = PASS[0];
  const r = this.rigids;
  const face = this.face;
  const f = FACE * k;
  const n = face[f + 3];
  if (n === 0) return;
  // face[f + 5]: Σλ_t of the acting contacts, gathered in their order by the velocity pass
  const budget = (this.muD[k] * this.lamNM[k] - face[f + 5]) / h;
  if (!(budget > 0)) return;
  const ia = this.a[k], ib = this.b[k];
  // the relative velocity of body 1's centre (lever 0) and body 2's point under the centroid
  const V = r.v, O = r.omega;
  const a3 = 3 * ia;`,
    ...bodyB([['XB', 'x', 'x'], ...VO], [['b3', 3]], false),
    ...XYZ.map((c, i) => `const r${c} = face[${at('f', i)}] / n - XB[${at('b3', i)}];`),
    ...relVelocity(
      's',
      el('V', 'a3'),
      el('O', 'a3'),
      () => '0',
      el('VB', 'b3'),
      el('OB', 'b3'),
      (i) => `r${XYZ[i]}`,
    ),
    `// the normal of the face's last acting contact
  const l3 = 3 * face[f + 4];
  const nx = this.nW[l3], ny = this.nW[l3 + 1], nz = this.nW[l3 + 2];
  const vn = sx * nx + sy * ny + sz * nz;
  const tx = sx - vn * nx, ty = sy - vn * ny, tz = sz - vn * nz;
  const vt = Math.sqrt(tx * tx + ty * ty + tz * tz);
  if (!(vt > 0)) return;
  // the impulse that stops the face's sliding as a translation (linear inverse masses), through the
  // centres of mass: applied at the centroid, below a box's centre, it would rock the box, and the
  // rocking would show up as slip at the corners
  const mov = this.materials.movable;
  const ma = mov[ia] ? r.invMass[ia] : 0, mb = ib >= 0 && mov[ib] ? r.invMass[ib] : 0;
  const w = ma + mb;
  if (!(w > 0)) return;
  const p = Math.min(budget, vt / w);
  const dx = -tx / vt, dy = -ty / vt, dz = -tz / vt;`,
    ...(['a', 'b'] as const).flatMap((p) => [
      `if (m${p} !== 0) {`,
      `const s = ${p === 'a' ? '' : '-'}p * m${p};`,
      ...XYZ.map((c, i) => `V[${at(`3 * i${p}`, i)}] += s * d${c};`),
      '}',
    ]),
    '}',
  ];
}

/**
 * ContactStore's world and anchors (contact k at the current poses into W: s₁ (0–2), s₂ (3–5),
 * n (6–8), r₁ (9–11), r₂ (12–14)), body 2 read per kind by bodyB.
 */
export function contactReads(): string[] {
  const head = [
    'const r = this.rigids;',
    'const W = this.W;',
    'const ia = this.a[k], ib = this.b[k];',
    'const k3 = 3 * k;',
  ];
  const XQ: [string, string, string][] = [
    ['XB', 'x', 'x'],
    ['QB', 'q', 'q'],
  ];
  const offs: [string, number][] = [
    ['xb', 3],
    ['qb', 4],
  ];
  return [
    '/**',
    " * W ← the contact's world data at the current poses: the surface points",
    ' * s₁ = p₁ − r₁ n and s₂ = p₂ + r₂ n, the normal, and the lever arms',
    ' * s − x of both bodies.',
    ' */',
    'protected world(k: number): void {',
    ...head,
    'const X = r.x, Q = r.q;',
    'const xa = 3 * ia;',
    'rotateFrom(S, Q, 4 * ia, this.rA, k3);',
    'const pax = X[xa] + S[0], pay = X[xa + 1] + S[1], paz = X[xa + 2] + S[2];',
    ...bodyB(XQ, offs, false),
    'rotateFrom(S, QB, qb, this.rB, k3);',
    'const pbx = XB[xb] + S[0], pby = XB[xb + 1] + S[1], pbz = XB[xb + 2] + S[2];',
    'let nx: number, ny: number, nz: number;',
    'const nf = this.nf[k];',
    // two cores: the normal from the anchors (p₁ − p₂, unit), the last one where they meet
    'if (nf === NF_CORES) {',
    ...XYZ.map((c) => `n${c} = pa${c} - pb${c};`),
    'const len = Math.sqrt(nx * nx + ny * ny + nz * nz);',
    'if (len > 1e-12) {',
    ...XYZ.map((c) => `n${c} /= len;`),
    '} else {',
    ...XYZ.map((c, i) => `n${c} = this.nW[${at('k3', i)}];`),
    '}',
    '} else {',
    // a face's normal, kept in the frame of body 1 or body 2
    'if (nf === NF_A) rotateFrom(S, Q, 4 * ia, this.nL, k3);',
    'else rotateFrom(S, QB, qb, this.nL, k3);',
    ...XYZ.map((c, i) => `n${c} = S[${i}];`),
    '}',
    ...XYZ.map((c, i) => `this.nW[${at('k3', i)}] = n${c};`),
    'const ra = this.radA[k], rb = this.radB[k];',
    ...XYZ.map((c, i) => `W[${i}] = pa${c} - ra * n${c};`),
    ...XYZ.map((c, i) => `W[${3 + i}] = pb${c} + rb * n${c};`),
    ...XYZ.map((c, i) => `W[${6 + i}] = n${c};`),
    ...XYZ.map((_, i) => `W[${9 + i}] = W[${i}] - X[${at('xa', i)}];`),
    ...XYZ.map((_, i) => `W[${12 + i}] = W[${3 + i}] - XB[${at('xb', i)}];`),
    '}',
    '',
    '/** W ← the surface points and levers of contact k at the current poses, keeping the normal W[6 … 8]. */',
    'protected anchors(k: number): void {',
    ...head,
    'rotateFrom(S, r.q, 4 * ia, this.rA, k3);',
    'const ra = this.radA[k], rb = this.radB[k];',
    ...XYZ.map((_, i) => `W[${9 + i}] = S[${i}] - ra * W[${6 + i}];`),
    'const xa = 3 * ia;',
    ...XYZ.map((_, i) => `W[${i}] = r.x[${at('xa', i)}] + W[${9 + i}];`),
    ...bodyB(XQ, offs, false),
    'rotateFrom(S, QB, qb, this.rB, k3);',
    ...XYZ.map((_, i) => `W[${12 + i}] = S[${i}] + rb * W[${6 + i}];`),
    ...XYZ.map((_, i) => `W[${3 + i}] = XB[${at('xb', i)}] + W[${12 + i}];`),
    '}',
  ];
}

/**
 * worldInverseInertia: per movable body the world inverse inertia R I_b⁻¹ Rᵀ (xx, yy, zz, xy, xz, yz:
 * SYM's order) that restitutionBlock and the velocity pass's inverseMassW read (eq. 2 and the impulse
 * p: Δω = I⁻¹ (r × p)); R from the body's quaternion by rotationEntry, the same entries the blocks'
 * rotation matrices are printed from. Entry (i, j) is Σ_c J_c R_ic R_jc, c in the order x, y, z.
 */
export function worldInverseInertia(): string[] {
  const J = ['a', 'b', 'c'];
  const qc = (c: number): string => 'xyzw'[c];
  const rows = [0, 1, 2].map(
    (i) => `const ${[0, 1, 2].map((j) => `r${i}${j} = ${rotationEntry(qc, i, j)}`).join(', ')};`,
  );
  const entry = (i: number, j: number): string =>
    [0, 1, 2].map((c) => `${J[c]} * r${i}${c} * r${j}${c}`).join(' + ');
  const ENTRIES: [number, number][] = [
    [0, 0],
    [1, 1],
    [2, 2],
    [0, 1],
    [0, 2],
    [1, 2],
  ];
  return [
    '/**',
    " * iw ← every movable body's world inverse inertia R I_b⁻¹ Rᵀ at the current",
    ' * poses (a E itself when the three principal moments are equal): the',
    ' * velocity pass changes no pose, so its generalized inverse masses and',
    ' * impulses (eq. 2 and the impulse p: Δω = I⁻¹ (r × p)) take the tensor',
    ' * once per body instead of turning each lever into the body frame.',
    ' */',
    'protected worldInverseInertia(): void {',
    'const r = this.rigids;',
    'const n = r.count;',
    'if (this.iw.length < 6 * n) this.iw = new Float64Array(6 * Math.max(n, 2 * (this.iw.length / 6)));',
    'const iw = this.iw, q = r.q, J = r.invInertia, mov = this.materials.movable;',
    'for (let i = 0; i < n; i++) {',
    'if (mov[i] === 0) continue;',
    'const i4 = 4 * i, i3 = 3 * i;',
    `const ${J.map((v, c) => `${v} = J[${at('i3', c)}]`).join(', ')};`,
    'const o = 6 * i;',
    'if (a === b && a === c) {',
    '// equal principal moments (a cube, a sphere): R (a E) Rᵀ = a E in every pose, exactly',
    'iw[o] = iw[o + 1] = iw[o + 2] = a;',
    'iw[o + 3] = iw[o + 4] = iw[o + 5] = 0;',
    'continue;',
    '}',
    load('const', '', 'q', 'i4', 4),
    "// the rotation matrix's rows",
    ...rows,
    ...ENTRIES.map(([i, j], k) => `iw[${at('o', k)}] = ${entry(i, j)};`),
    '}',
    '}',
  ];
}
