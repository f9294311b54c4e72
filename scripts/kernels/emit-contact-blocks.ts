/**
 * The rigid contact blocks' two per-manifold solves (Müller et al. 2020 §3.5, eqs. 2–9, and §3.6,
 * eqs. 33–34, with the points of a manifold solved jointly: src/rigid/contact-blocks.ts), printed
 * into src/rigid/contact-blocks.generated.ts as the class ContactBlockSolves:
 *
 * - `projectBlock`: the position-level projection (normal multipliers from the joint solve, static
 *   friction, both bodies moved once);
 * - `restitutionBlock`: the velocity pass's restitution (the velocities of both bodies in locals);
 * - the contact store's reads of a contact's bodies (world, anchors, relativeVelocity,
 *   faceFriction, worldInverseInertia), printed by emit-contact-reads.ts, whose bodyB (body 2 read
 *   per kind: rigid body or collider) the two solves print too.
 *
 * Both read a manifold's two bodies the same way: the poses into locals, each rotation matrix once
 * for the manifold's points (R r costs 15 flops, q r q⁻¹ about 30), body 2 either a rigid body or a
 * collider (ColliderPoses), and the levers R r per point. Those parts are written once here, per
 * side ('a': body 1, 'b': body 2), and printed into both methods; the code printed is the code that
 * was written out twice by hand before (session 16: every scene's bits unchanged).
 */

import {
  at,
  bodyB,
  contactReads,
  load,
  relVelocity,
  velocityReads,
  worldInverseInertia,
  XYZ,
} from './emit-contact-reads.js';
import { rotationEntry, turnEntries } from './emit-rotation.js';

type Side = 'a' | 'b';
const up = (p: Side): string => p.toUpperCase();
/** Component i (0 … 3: x, y, z, w) of side p's quaternion local. */
const q = (p: Side, i: number): string => `q${p}${'xyzw'[i]}`;

/** Side p's rotation matrix R{P}ij from its unit quaternion (emit-rotation.ts). */
function rotation(p: Side): string[] {
  const out: string[] = [];
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) out.push(`R${up(p)}${i}${j} = ${rotationEntry((c) => q(p, c), i, j)}`);
  }
  return [
    `// the rotation matrix of body ${p === 'a' ? 1 : 2}, once for the manifold's points (R r costs 15 flops, q r q⁻¹ about 30)`,
    `const ${out.join(', ')};`,
  ];
}

/** Side p's pose in locals (x{p}*, declared `decl`, q{p}*) and its rotation matrix. */
function pose(p: Side, decl: string, X: string, Q: string, o3: string, o4: string): string[] {
  return [load(decl, `x${p}`, X, o3), load('const', `q${p}`, Q, o4, 4), ...rotation(p)];
}

/** The levers of point k3 at the current poses: l{p} = R{P} r{P}[k3 …] for both sides (vx … scratch locals). */
function leverArms(k3: string): string[] {
  const arm = (p: Side): string =>
    `const ${XYZ.map((c, i) => `l${p}${c} = ${XYZ.map((d, j) => `R${up(p)}${i}${j} * v${d}`).join(' + ')}`).join(', ')};`;
  return [load('let', 'v', 'rA', k3), arm('a'), ...XYZ.map((c, i) => `v${c} = rB[${at(k3, i)}];`), arm('b')];
}

/** The method's prologue: the contact arrays it reads (besides rA, rB, nW, lamN, lamT), body 1's offsets. */
function prologue(more: string): string[] {
  return [
    'const r = this.rigids;',
    'const mov = this.materials.movable;',
    'const iw = this.iw;',
    `const rA = this.rA, rB = this.rB, nW = this.nW, lamN = this.lamN, lamT = this.lamT, ${more};`,
    'const ia = this.a[s], ib = this.b[s];',
    'const a3 = 3 * ia, a4 = 4 * ia;',
    'const movA = mov[ia] !== 0;',
  ];
}

/**
 * projectBlock's step of side p (sign + for body 1, − for body 2): x ± m⁻¹ p and
 * q ← normalise(q ± ½ [h, 0] q) (eqs. 6–9), written back to X[o3 …], Q[o4 …].
 */
function moveSide(p: Side, X: string, Q: string, o3: string, o4: string): string[] {
  const s = p === 'a' ? '+' : '-';
  return [
    `if (mov${up(p)}) {`,
    ...XYZ.map((c) => `x${p}${c} ${s}= m${p} * p${c};`),
    `const ${XYZ.map((c) => `h${c} = ${s === '+' ? '' : '-'}0.5 * h${p}${c}`).join(', ')};`,
    `const ${turnEntries(
      (i) => q(p, i),
      (i) => `h${XYZ[i]}`,
      true,
    )
      .map((e, i) => `o${'xyzw'[i]} = ${e}`)
      .join(', ')};`,
    'const inv = 1 / Math.sqrt(ox * ox + oy * oy + oz * oz + ow * ow);',
    ...XYZ.map((c, i) => `${X}[${at(o3, i)}] = x${p}${c};`),
    ...[...XYZ, 'w'].map((c, i) => `${Q}[${at(o4, i)}] = o${c} * inv;`),
    '}',
  ];
}

/** `const cx = …, cy = …, cz = …`: the cross product l × d of the components l(0 … 2), d(0 … 2). */
function cross(l: (i: number) => string, d: (i: number) => string): string {
  const c = (i: number): string =>
    `c${XYZ[i]} = ${l((i + 1) % 3)} * ${d((i + 2) % 3)} - ${l((i + 2) % 3)} * ${d((i + 1) % 3)}`;
  return `const ${[0, 1, 2].map(c).join(', ')};`;
}

/** The entries (xx, yy, zz, xy, xz, yz) of a symmetric 3 × 3 matrix by row and column. */
const SYM = [
  [0, 3, 4],
  [3, 1, 5],
  [4, 5, 2],
];

/**
 * u(i) = (I⁻¹ c)_i, the world inverse inertia's entries I(0 … 5) (xx, yy, zz, xy, xz, yz) times
 * the locals cx, cy, cz; `diag`: equal principal moments, the products of inertia left out.
 */
function inverseInertia(u: (i: number) => string, I: (k: number) => string, diag: boolean): string[] {
  return XYZ.map((c, i) =>
    diag
      ? `${u(i)} = ${I(i)} * c${c};`
      : `${u(i)} = ${XYZ.map((d, j) => `${I(SYM[i][j])} * c${d}`).join(' + ')};`,
  );
}

/** restitutionBlock's side p at one point: r × n and I⁻¹ (r × n) (a diagonal I⁻¹ without its zeros), w_p. */
function restitutionLever(p: Side): string[] {
  const P = up(p);
  const u = (i: number): string => `u${p}${XYZ[i]}`;
  const I = (k: number): string => `${P}${k}`;
  return [
    `if (mov${P}) {`,
    cross(
      (i) => `l${p}${XYZ[i]}`,
      (i) => `n${XYZ[i]}`,
    ),
    `if (diag${P}) {`,
    ...inverseInertia(u, I, true),
    '} else {',
    ...inverseInertia(u, I, false),
    '}',
    `w${p} = m${p} + cx * ${u(0)} + cy * ${u(1)} + cz * ${u(2)};`,
    '}',
  ];
}

/** restitutionBlock's impulse ±pn along n on side p (velocity and spin in locals). */
function impulse(p: Side): string[] {
  return [
    `if (mov${up(p)}) {`,
    `const p = ${p === 'a' ? 1 : -1} * pn;`,
    `const wl = p * m${p};`,
    ...XYZ.map((c) => `v${p}${c} += wl * n${c};`),
    ...XYZ.map((c) => `o${p}${c} += p * u${p}${c};`),
    '}',
  ];
}

/** Side p's world inverse inertia in locals {P}0 … {P}5 and whether it is diagonal. */
function inertia(p: Side, o: string): string[] {
  const P = up(p);
  return [
    `const ${Array.from({ length: 6 }, (_, c) => `${P}${c} = iw[${at(o, c)}]`).join(', ')};`,
    `const diag${P} = ${P}3 === 0 && ${P}4 === 0 && ${P}5 === 0;`,
  ];
}

/** Side p's velocity and spin: loaded (`let`) or written back (`store`) at V[o …], W[o …]. */
function velocities(p: Side, V: string, W: string, o: string, store: boolean): string[] {
  if (!store) return [`${load('let', `v${p}`, V, o).slice(0, -1)}, ${load('', `o${p}`, W, o).slice(1)}`];
  return [
    `if (mov${up(p)}) {`,
    ...XYZ.map((c, i) => `${V}[${at(o, i)}] = v${p}${c};`),
    ...XYZ.map((c, i) => `${W}[${at(o, i)}] = o${p}${c};`),
    '}',
  ];
}

/** A method of ContactBlockSolves on the manifold [s, e): its doc comment and body. */
function method(name: string, doc: string, body: string[]): string[] {
  return [
    '/**',
    ...doc.split('\n').map((l) => ` * ${l}`),
    ' */',
    `protected ${name}(s: number, e: number): void {`,
    ...body,
    '}',
  ];
}

function projectBlock(): string[] {
  return method(
    'projectBlock',
    `The position-level projection of the polyhedral manifold [s, e), its
points solved jointly (block-solve.ts) at the poses the manifold starts
with: per point the penetration c along the face normal and the
tangential slip; the normal multipliers from K Δλ_n = c with Δλ_n ≥ 0
(Müller et al. 2020, §3.5, eq. 2 for K’s diagonal, the points coupled
through the shared bodies); then static friction (§3.5: Δλ_t from the
slip, up to μ_s λ_n, body 2’s anchor following when it slides) from the
same joint solve along each point’s slip direction; and both corrections
applied together (eqs. 6–9): x ± Σ(Δλ_n n − Δλ_t t)/m,
q ← normalise(q ± ½ [Σ I⁻¹ (r × (Δλ_n n − Δλ_t t)), 0] q). Nothing depends
on the order in which the manifold lists its points. The world inverse
inertias are those taken at the sweep’s start.`,
    [
      ...prologue('muSs = this.muS'),
      ...pose('a', 'let', 'r.x', 'r.q', 'a3', 'a4'),
      'const ma = movA ? r.invMass[ia] : 0;',
      'const ao = 6 * ia;',
      'for (let c = 0; c < 6; c++) IWA[c] = iw[ao + c];',
      ...bodyB([
        ['XB', 'x', 'x'],
        ['QB', 'q', 'q'],
      ]),
      ...pose('b', 'let', 'XB', 'QB', 'b3', 'b4'),
      'const mb = movB ? r.invMass[ib] : 0;',
      'const bo = movB ? 6 * ib : 0;',
      'for (let c = 0; c < 6; c++) IWB[c] = iw[bo + c];',
      `const modeA = leverMode(movA, IWA),
      modeB = leverMode(movB, IWB);
    const nx = nW[3 * s],
      ny = nW[3 * s + 1],
      nz = nW[3 * s + 2];
    const m = e - s;
    let use = 0,
      active = 0,
      last = 0;
    for (let j = 0; j < m; j++) {
      const k3 = 3 * (s + j),
        j3 = 3 * j;
      // the anchors at the current poses (ContactStore.anchors): s = x + R r (no round cores in a block)`,
      ...leverArms('k3'),
      ...XYZ.map((c, i) => `LA[${at('j3', i)}] = la${c};`),
      ...XYZ.map((c, i) => `LB[${at('j3', i)}] = lb${c};`),
      `// s₁ − s₂: its normal part is −c, its tangential part the slip
      const sx = xax + lax - (xbx + lbx),
        sy = xay + lay - (xby + lby),
        sz = xaz + laz - (xbz + lbz);
      const c = -(sx * nx + sy * ny + sz * nz);
      SL[j3] = sx + c * nx;
      SL[j3 + 1] = sy + c * ny;
      SL[j3 + 2] = sz + c * nz;
      BC[j] = c;
      if (c > 0) {
        use |= 1 << j;
        DIR[0] = nx;
        DIR[1] = ny;
        DIR[2] = nz;
        levers(j, modeA, modeB);
        last = j;
        active++;
      }
    }
    if (use === 0) return;
    if (active === 1) {
      // one point: eq. 2's Δλ_n = c/(w₁ + w₂)
      BX[0] = BX[1] = BX[2] = BX[3] = 0;
      const l3 = 3 * last;
      const w =
        ma +
        mb +
        (CA[l3] * UA[l3] + CA[l3 + 1] * UA[l3 + 1] + CA[l3 + 2] * UA[l3 + 2]) +
        (CB[l3] * UB[l3] + CB[l3 + 1] * UB[l3 + 1] + CB[l3 + 2] * UB[l3 + 2]);
      if (w > 0) BX[last] = BC[last] / w;
    } else {
      // the normal multipliers, jointly (eq. 2's w₁ + w₂ on K's diagonal), Δλ_n ≥ 0
      KW[0] = ma + mb;
      if (use === 15) fillK4();
      else fillK(m, use);
      solveJoint(m, use);
    }
    let fric = 0;
    for (let j = 0; j < m; j++) {
      const dl = BX[j];
      DLN[j] = dl;
      DLT[j] = 0;
      if (!(dl > 0)) continue;
      const k = s + j;
      lamN[k] += dl;
      this.lamNM[s] += dl;
      if (muSs[k] <= 0) continue;
      // static friction along the slip's direction t (the slip measured since the contact began)
      const j3 = 3 * j;
      const sx = SL[j3],
        sy = SL[j3 + 1],
        sz = SL[j3 + 2];
      const ct = Math.sqrt(sx * sx + sy * sy + sz * sz);
      if (!(ct > 1e-15)) continue;
      TD[j3] = sx / ct;
      TD[j3 + 1] = sy / ct;
      TD[j3 + 2] = sz / ct;
      CT[j] = ct;
      fric |= 1 << j;
    }
    if (fric !== 0) {
      for (let j = 0; j < m; j++) {
        if (!(fric & (1 << j))) continue;
        const j3 = 3 * j;
        DIR[0] = TD[j3];
        DIR[1] = TD[j3 + 1];
        DIR[2] = TD[j3 + 2];
        leversT(j, modeA, modeB);
      }
      // the points' corrections averaged over the patch (a Jacobi step: each point's Δλ_t = |slip|/(w₁ + w₂)
      // along its own slip, divided by the number of slipping points, so that a slip the points share is
      // taken up once, not once per point); a joint solve along the points' differing slip directions is
      // ill-conditioned where a slip is tiny and its direction round-off, and the stack crept
      let nf = 0;
      for (let j = 0; j < m; j++) if (fric & (1 << j)) nf++;
      for (let j = 0; j < m; j++) {
        if (!(fric & (1 << j))) continue;
        const j3 = 3 * j;
        const w =
          ma +
          mb +
          CTA[j3] * UTA[j3] +
          CTA[j3 + 1] * UTA[j3 + 1] +
          CTA[j3 + 2] * UTA[j3 + 2] +
          CTB[j3] * UTB[j3] +
          CTB[j3 + 1] * UTB[j3 + 1] +
          CTB[j3 + 2] * UTB[j3 + 2];
        BX[j] = w > 0 ? CT[j] / (nf * w) : 0;
      }
      for (let j = 0; j < m; j++) {
        if (!(fric & (1 << j))) continue;
        const k = s + j,
          k3 = 3 * k,
          j3 = 3 * j;
        const dl2 = BX[j];
        if (!(dl2 > 0)) continue;
        const muS = muSs[k];
        let d2 = dl2;
        if (lamT[k] + dl2 >= muS * lamN[k]) {
          // sliding: as far as μ_s λ_n allows; body 2's anchor follows by the rest of the slip
          d2 = Math.max(0, muS * lamN[k] - lamT[k]);
          const f = 1 - d2 / dl2;
          const fx = f * SL[j3],
            fy = f * SL[j3 + 1],
            fz = f * SL[j3 + 2];
          // rB += R₂ᵀ (f slip) (ContactStore's reanchor)`,
      ...XYZ.map((_, i) => `rB[${at('k3', i)}] += ${XYZ.map((d, j) => `RB${j}${i} * f${d}`).join(' + ')};`),
      `if (!(d2 > 0)) continue;
        }
        lamT[k] += d2;
        DLT[j] = d2;
      }
    }
    // both corrections at once (ContactStore.moveBoth), body 1 by +, body 2 by −: the sums over the points
    let px = 0, py = 0, pz = 0, hax = 0, hay = 0, haz = 0, hbx = 0, hby = 0, hbz = 0;
    for (let j = 0; j < m; j++) {
      const dn = DLN[j],
        dt = DLT[j];
      if (!(dn > 0)) continue;
      const j3 = 3 * j;`,
      ...XYZ.map((c) => `p${c} += dn * n${c};`),
      ...(['a', 'b'] as Side[]).flatMap((p) =>
        XYZ.map((c, i) => `h${p}${c} += dn * U${up(p)}[${at('j3', i)}];`),
      ),
      'if (dt > 0) {',
      ...XYZ.map((c, i) => `p${c} -= dt * TD[${at('j3', i)}];`),
      ...(['a', 'b'] as Side[]).flatMap((p) =>
        XYZ.map((c, i) => `h${p}${c} -= dt * UT${up(p)}[${at('j3', i)}];`),
      ),
      '}',
      '}',
      ...moveSide('a', 'r.x', 'r.q', 'a3', 'a4'),
      ...moveSide('b', 'XB', 'QB', 'b3', 'b4'),
    ],
  );
}

function restitutionBlock(): string[] {
  return method(
    'restitutionBlock',
    `The velocity pass’s restitution of the polyhedral manifold [s, e)
(RigidContacts.endStep, operation for operation): at each point that
acted in the projection (λ_n > 0), with the relative velocity v at the
contact, Δv_n = −v_n + max(−e ṽ_n, 0) (e = 0 when |ṽ_n| ≤ \`restLimit\`),
applied as the impulse Δv_n/(w₁ + w₂) along n; the points’ midpoints
and λ_t gather in \`face\` for faceFriction. The poses do not change in this pass;
the velocities of both bodies stay in locals for the manifold.`,
    [
      'const h = PASS[0], restLimit = PASS[1];',
      ...prologue('face = this.face'),
      ...pose('a', 'const', 'r.x', 'r.q', 'a3', 'a4'),
      ...velocities('a', 'r.v', 'r.omega', 'a3', false),
      'const ma = r.invMass[ia];',
      'const ao = 6 * ia;',
      ...inertia('a', 'ao'),
      ...bodyB([
        ['XB', 'x', 'x'],
        ['QB', 'q', 'q'],
        ['VB', 'v', 'v'],
        ['OB', 'omega', 'w'],
      ]),
      ...pose('b', 'const', 'XB', 'QB', 'b3', 'b4'),
      ...velocities('b', 'VB', 'OB', 'b3', false),
      'const mb = movB ? r.invMass[ib] : 0;',
      'const bo = movB ? 6 * ib : 0;',
      ...inertia('b', 'bo'),
      `// the face's sums for faceFriction, in locals (face[] is 0 for this manifold when the pass starts)
    let fcx = 0, fcy = 0, fcz = 0, acted = 0, lastK = 0, sumT = 0;
    for (let k = s; k < e; k++) {
      if (lamN[k] <= 0) continue;
      const k3 = 3 * k;`,
      load('const', 'n', 'nW', 'k3'),
      '// the levers R r (a block has no round cores)',
      ...leverArms('k3'),
      "// the face's centroid for faceFriction",
      ...XYZ.map((c) => `fc${c} += 0.5 * (xa${c} + la${c} + (xb${c} + lb${c}));`),
      `acted++;
      lastK = k;
      sumT += lamT[k];
      // relative velocity at the contact (relVelocity, as in relativeVelocity)`,
      ...relVelocity(
        'rv',
        (i) => `va${XYZ[i]}`,
        (i) => `oa${XYZ[i]}`,
        (i) => `la${XYZ[i]}`,
        (i) => `vb${XYZ[i]}`,
        (i) => `ob${XYZ[i]}`,
        (i) => `lb${XYZ[i]}`,
      ),
      `// restitution: Δv_n = −v_n + max(−e ṽ_n, 0), the impulse Δv_n / (w₁ + w₂) along n
      const vn = rvx * nx + rvy * ny + rvz * nz;
      const v0 = this.vn0[k];
      const el = Math.abs(v0) <= restLimit ? 0 : this.rest[k];
      const dn = -vn + Math.max(-el * v0, 0);
      let wa = 0, wb = 0, uax = 0, uay = 0, uaz = 0, ubx = 0, uby = 0, ubz = 0;`,
      ...restitutionLever('a'),
      ...restitutionLever('b'),
      `const w = wa + wb;
      if (!(w > 0)) continue;
      const pn = dn / w;
      if (pn > 0) this.lamNM[s] += h * pn;
      if (dn !== 0) {`,
      ...impulse('a'),
      ...impulse('b'),
      '}',
      '}',
      'const f = FACE * s;',
      ...['fcx', 'fcy', 'fcz', 'acted', 'lastK', 'sumT'].map((v, i) => `face[${at('f', i)}] = ${v};`),
      ...velocities('a', 'r.v', 'r.omega', 'a3', true),
      ...velocities('b', 'VB', 'OB', 'b3', true),
    ],
  );
}

/** The module's scratch arrays: [doc comment, names, length]; the first (PASS) is exported. */
const SCRATCH: [string, string[], number][] = [
  [
    "The velocity pass's substep h (0) and resting limit 2|g|h (1), for restitutionBlock and faceFriction: set once per pass, not passed per manifold (a call's floating-point argument, where the call is not inlined, is a heap number allocated per call).",
    ['PASS'],
    2,
  ],
  [
    'Per point of a block (≤ 4): the levers of both sides (world), the slip, the friction direction.',
    ['LA', 'LB', 'SL', 'TD'],
    12,
  ],
  ['Per point: the slip’s length (static friction’s amount).', ['CT'], 4],
  [
    "The static friction's r × t and I⁻¹ (r × t) of both sides, per point (leversT; the normal's stay in CA … UB, block-solve.ts, for the correction).",
    ['CTA', 'UTA', 'CTB', 'UTB'],
    12,
  ],
  ["The normal and tangential multipliers of a block's points in this projection.", ['DLN', 'DLT'], 4],
  ["Both sides' world inverse inertias (xx, yy, zz, xy, xz, yz).", ['IWA', 'IWB'], 6],
  [
    "The direction d of levers (its doubles passed through this array, not as arguments: projectBlock is too large for them to be inlined, and a call's double argument is a heap number allocated per call (120 kB per frame of the 55-box pyramid at 7 substeps, all of projectBlock's garbage).",
    ['DIR'],
    3,
  ],
];

/**
 * The scratch and the levers' products, module-local (in a module of their own, imported, the
 * 55-box pyramid stepped 1.16–1.26 times slower in one process, interleaved; here 1.00).
 */
function scratchAndLevers(): string[] {
  const C = (i: number): string => `C[${at('o', i)}]`;
  const U = (i: number): string => `U[${at('o', i)}]`;
  const I = (k: number): string => `IW[${k}]`;
  return [
    ...SCRATCH.flatMap(([doc, names, n], g) => [
      `/** ${doc} */`,
      ...names.map((v) => `${g === 0 ? 'export ' : ''}const ${v} = new Float64Array(${n});`),
    ]),
    '',
    `/**
 * How a side's levers are taken (lever): it does not move (0), its world inverse inertia is a full
 * tensor (1), or diagonal (2: equal principal moments, worldInverseInertia's a E, and no product
 * of inertia to multiply by 0).
 */
function leverMode(mov: boolean, IW: Float64Array): number {
  if (!mov) return 0;
  return IW[3] === 0 && IW[4] === 0 && IW[5] === 0 ? 2 : 1;
}`,
    '',
    ...(['', 'T'] as const).flatMap((t) => [
      t
        ? "/** levers for static friction's direction DIR[0..2], into CTA, UTA (and CTB, UTB). */"
        : '/** CA, UA (and CB, UB) of point j for the direction DIR[0..2]: r × d and I⁻¹ (r × d), zero for a side that does not move. */',
      `function levers${t}(j: number, modeA: number, modeB: number): void {`,
      ...(['A', 'B'] as const).map((P) => `lever(L${P}, IW${P}, C${t}${P}, U${t}${P}, 3 * j, mode${P});`),
      '}',
      '',
    ]),
    '/** One side of levers: C[o …] ← L[o …] × d and U[o …] ← I⁻¹ C[o …] (IW: xx, yy, zz, xy, xz, yz; d = DIR), or 0 (leverMode). */',
    'function lever(L: Float64Array, IW: Float64Array, C: Float64Array, U: Float64Array, o: number, mode: number): void {',
    'if (mode === 0) {',
    `${[0, 1, 2].map(C).join(' = ')} = 0;`,
    `${[0, 1, 2].map(U).join(' = ')} = 0;`,
    'return;',
    '}',
    load('const', 'd', 'DIR', '0'),
    load('const', 'l', 'L', 'o'),
    cross(
      (i) => `l${XYZ[i]}`,
      (i) => `d${XYZ[i]}`,
    ),
    ...XYZ.map((c, i) => `${C(i)} = c${c};`),
    'if (mode === 2) {',
    ...inverseInertia(U, I, true),
    'return;',
    '}',
    ...inverseInertia(U, I, false),
    '}',
  ];
}

/** The module src/rigid/contact-blocks.generated.ts (before formatting). */
export function emitContactBlocks(banner: string): string {
  return [
    banner,
    '// The rigid contact blocks’ solves (src/rigid/contact-blocks.ts); see scripts/kernels/emit-contact-blocks.ts.',
    "import { BC, BX, CA, CB, fillK, fillK4, KW, solveJoint, UA, UB } from './block-solve.js';",
    "import { ContactStore, FACE, NF_A, NF_CORES, S } from './contact-store.js';",
    "import { rotateFrom } from './rotate.js';",
    '',
    '/** The per-manifold solves of ContactBlocks (contact-blocks.ts), which finds the manifolds. */',
    'export class ContactBlockSolves extends ContactStore {',
    ...projectBlock(),
    '',
    ...restitutionBlock(),
    '',
    ...worldInverseInertia(),
    '',
    ...contactReads(),
    '',
    ...velocityReads(),
    '}',
    '',
    ...scratchAndLevers(),
    '',
  ].join('\n');
}
