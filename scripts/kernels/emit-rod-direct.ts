/**
 * The direct rod solver's chain solve (src/strands/rod-direct.ts, Deul et al. 2018: the
 * block-tridiagonal system of a chain built, factored and solved, then Δλ applied), printed into
 * src/strands/rod-direct-chain.generated.ts as the class DirectRodChains. The parts written out
 * entry by entry — a segment's material frame and its joint's, the levers T = Rᵀ [e]×/l, the
 * joint's B rows, the diagonal block D_k, the geometry record's writes and reads, the coupling
 * block U, the force and the torque of the apply — are printed here from their loops over one
 * table of the record's layout (GEO_SLOTS); the rest is the method as written by hand. The code
 * printed is the code written out by hand before (session 16: every scene's bits unchanged; the
 * frames' products w q_k are printed q_k w).
 */
import {
  darbouxRows,
  dot,
  frame,
  moveEnds,
  segmentLoads,
  strainRows,
  turnedQuaternion,
} from './emit-rod-rows.js';

const XYZ = ['x', 'y', 'z'];
/** The index o + i (o alone for i = 0, `o + 0` where `zero`). */
const at = (o: string, i: number, zero = false): string => (i || zero ? `${o} + ${i}` : o);

/** Where each vector of block k's geometry record starts (GEO values a block). */
const GEO_SLOTS: [string, number][] = [
  ['d1', 0],
  ['d2', 3],
  ['d3', 6],
  ['t1', 12],
  ['t2', 15],
  ['t3', 18],
  ['b1', 21],
  ['b2', 24],
  ['b3', 27],
];
const slot = (v: string): number => (GEO_SLOTS.find(([n]) => n === v) as [string, number])[1];

/** Lines printed from emit-rod-rows.ts, one a line (comments among them). */
const lines = (a: string[]): string => `${a.join('\n')}\n`;
const frameD = (): string[] => frame('d', 'q');
const frameF = (): string[] => frame('f', 'f');

/** T_k's rows t_i = d_i × e / l. */
function levers(): string[] {
  return [1, 2, 3].map((k) => {
    const comp = (i: number): string => {
      const [u, v] = [(i + 1) % 3, (i + 2) % 3];
      return `t${k}${XYZ[i]} = (d${k}${XYZ[u]} * e${XYZ[v]} - d${k}${XYZ[v]} * e${XYZ[u]}) * invL`;
    };
    return `const ${[0, 1, 2].map(comp).join(', ')};`;
  });
}

/** B = ½ (ω_w I − [ω_v]×) R_Fᵀ: row i of the matrix of h = ½ ω times the frame's columns f_1 … f_3. */
const B_ROWS: [string, string][][] = [
  [
    ['', 'hw'],
    ['+', 'hz'],
    ['-', 'hy'],
  ],
  [
    ['-', 'hz'],
    ['+', 'hw'],
    ['+', 'hx'],
  ],
  [
    ['', 'hy'],
    ['-', 'hx'],
    ['+', 'hw'],
  ],
];
function bRows(): string[] {
  return B_ROWS.flatMap((row, r) =>
    XYZ.map(
      (c) => `b${r + 1}${c} = ${row.map(([s, h], k) => `${k ? ` ${s} ` : s}${h} * f${k + 1}${c}`).join('')};`,
    ),
  );
}

/** D_k's lower triangle: rows t_1 … t_3, b_1 … b_3 (w_θ (1 + γ) t·t + s0 + α̃ on the stretch diagonal, w_j b·b + L α̃ on the joint's). */
function dBlock(): string[] {
  const v = ['t1', 't2', 't3', 'b1', 'b2', 'b3'];
  const out: string[] = [];
  for (let r = 0; r < 6; r++) {
    for (let c = 0; c <= r; c++) {
      const diag = r === c ? (r < 3 ? ` + s0 + at${r}` : ` + Lb${r - 3}`) : '';
      out.push(`D[${6 * r + c}] = ${r < 3 || c < 3 ? 'gr' : 'wj'} * (${dot(v[r], v[c])})${diag};`);
    }
  }
  return out;
}

/** Block k's geometry record: every vector of GEO_SLOTS at geo[o + slot …]. */
function geoWrite(): string[] {
  return GEO_SLOTS.flatMap(([v, s]) => XYZ.map((c, i) => `geo[${at('o', s + i, true)}] = ${v}${c};`));
}

/** Block k − 1's record read back into locals p{vector}. */
function geoRead(): string[] {
  return GEO_SLOTS.map(
    ([v, s]) => `const ${XYZ.map((c, i) => `p${v}${c} = geo[${at('po', s + i, true)}]`).join(', ')};`,
  );
}

/** U = A_{k−1,k}: (s, s′) = −w_k d_i·d′_j, (s, b′) = −w_θ t_i·b′_j, (b, b′) = −w_θ b_i·b′_j. */
function uBlock(): string[] {
  const out: string[] = [];
  for (let i = 1; i <= 3; i++) {
    for (let j = 1; j <= 3; j++) {
      const e = 6 * (i - 1) + (j - 1);
      out.push(
        `U[${e}] = -wpk * (${dot(`pd${i}`, `d${j}`)});`,
        `U[${e + 3}] = -wrp * (${dot(`pt${i}`, `b${j}`)});`,
        `U[${e + 21}] = -wrp * (${dot(`pb${i}`, `b${j}`)});`,
      );
    }
  }
  return out;
}

/** Σ_k m_k · geo[o + slot(v_k) + i] over (multiplier, vector) pairs. */
const sum = (terms: [string, string][], o: string, i: number): string =>
  terms.map(([m, v]) => `${m} * geo[${at(o, slot(v) + i)}]`).join(' + ');

/** The pairs (m1, v_1), (m2, v_2), (m3, v_3) of the multipliers m1 … m3 and the record's vectors v1 … v3. */
const pairs = (m: string, v: string): [string, string][] => [1, 2, 3].map((k) => [`${m}${k}`, `${v}${k}`]);

/** D = R_k Δλ_s. */
function force(): string[] {
  return [`const ${XYZ.map((c, i) => `D${c} = ${sum(pairs('l', 'd'), 'o', i)}`).join(', ')};`];
}

/** T_kᵀ Δλ_s + B_kᵀ Δλ_b. */
function torque(): string[] {
  const terms = [...pairs('l', 't'), ...pairs('b', 'b')];
  return [`let ${XYZ.map((c, i) => `t${c} = ${sum(terms, 'o', i)}`).join(', ')};`];
}

/** − B_{k+1}ᵀ Δλ_{b,k+1}. */
function torqueNext(): string[] {
  return XYZ.map((c, i) => `t${c} -= ${sum(pairs('n', 'b'), 'on', i)};`);
}

/** The chain solve's workspace: name, values per block. */
const WORKSPACE: [string, string][] = [
  ['geo', 'GEO'],
  ['Lf', '21'],
  ['W', '36'],
  ['rhs', '6'],
];

/** The module src/strands/rod-direct-chain.generated.ts (before formatting). */
export function emitRodDirect(banner: string): string {
  const method = [
    `  /** Builds, factors and solves the block-tridiagonal system of one chain, then applies Δλ. */
  protected solveChain(store: ParticleStore, c0: number, m: number, anchors: boolean): void {
    const { p, x, qp, q: q0, invMass: w, invInertia: iI } = store;
    const ss = this.stretchShear,
      bt = this.bendTwist;
    const SA = ss.a,
      SB = ss.b,
      SQ = ss.q,
      rest = ss.rest,
      slam = ss.lambda;
    const { geo, Lf, W, rhs, D, U } = this;
    const gamma = this.gamma,
      g1 = 1 + gamma;
    const as0 = this.ssScale[0],
      as1 = this.ssScale[1],
      as2 = this.ssScale[2];
    const ab0 = this.btScale[0],
      ab1 = this.btScale[1],
      ab2 = this.btScale[2];
    for (let k = 0; k < m; k++) {
      const c = c0 + k;
      const o = GEO * k;
`,
    segmentLoads('SA', 'SB', 'SQ'),
    `      const invL = 1 / rest[c];
      // ---- segment k: the rows d_1, d_2, d_3 of R_kᵀ, e_k, and T_k = R_kᵀ [e]×/l (row i: d_i × e/l)
      const qx = qp[iq],
        qy = qp[iq + 1],
        qz = qp[iq + 2],
        qw = qp[iq + 3];
      const ex = p[ib] - p[ia],
        ey = p[ib + 1] - p[ia + 1],
        ez = p[ib + 2] - p[ia + 2];
`,
    ...frameD(),
    `
`,
    ...levers(),
    `
      // ---- stretch–shear rows: C = R_kᵀ e/l − e_3, rhs −C − α̃ λ − γ J Δx (strainRows, emit-rod-rows.ts)
      const r = 6 * k;
`,
    lines(strainRows(['rhs[r]', 'rhs[r + 1]', 'rhs[r + 2]'], 'slam', '')),
    `
      // ---- the joint of block k: joint k − 1 (q = segment k − 1) or the clamp (q = its frame), or none
      const j = this.jointBefore[c];
      const an = anchors && k === 0 ? this.anchorOf[c] : -1;
      let wPrev = 0, Lb0 = 1, Lb1 = 1, Lb2 = 1;
      let b1x = 0, b1y = 0, b1z = 0, b2x = 0, b2y = 0, b2z = 0, b3x = 0, b3y = 0, b3z = 0;
      if (j >= 0 || an >= 0) {
        const F = j >= 0 ? qp : bt!.anchorFrame;
        const F0 = j >= 0 ? q0 : bt!.anchorPrev;
        const fo = j >= 0 ? 4 * SQ[c - 1] : 4 * an;
        const R0 = j >= 0 ? bt!.restDarboux : bt!.anchorRest;
        const ro = j >= 0 ? 4 * j : 4 * an;
        const L = j >= 0 ? bt!.jointLength[j] : bt!.anchorLength[an];
        const blam = j >= 0 ? bt!.lambda : bt!.anchorLambda;
        const lo = j >= 0 ? 3 * j : 3 * an;
        wPrev = j >= 0 ? iI[3 * SQ[c - 1]] : 0;
        const fx = F[fo],
          fy = F[fo + 1],
          fz = F[fo + 2],
          fw = F[fo + 3];
        let ux = qx,
          uy = qy,
          uz = qz,
          uw = qw;
`,
    lines(
      darbouxRows({
        q: 'f',
        Q0: 'F0',
        qo: 'fo',
        U0: 'q0',
        uo: 'iq',
        R0: 'R0',
        ro: 'ro',
        lam: 'blam',
        lo: 'lo',
        at: 'Lb',
        atDecl: false,
        scale: (i) => `ab${i}`,
        t: ['rhs[r + 3]', 'rhs[r + 4]', 'rhs[r + 5]'],
        decl: '',
      }),
    ),
    `
        // B = ½ (ω_w I − [ω_v]×) R_Fᵀ, with ω_w I − [ω_v]× = [[ω_w, ω_z, −ω_y], [−ω_z, ω_w, ω_x], [ω_y, −ω_x, ω_w]]
`,
    ...frameF(),
    `
        const hw = 0.5 * ow,
          hx = 0.5 * ox,
          hy = 0.5 * oy,
          hz = 0.5 * oz;
`,
    ...bRows(),
    `
      } else {
        // no joint: an identity row with a zero right side (its Δλ is 0)
        rhs[r + 3] = rhs[r + 4] = rhs[r + 5] = 0;
      }
      const s0 = g1 * (wa + wb) * invL * invL,
        gr = g1 * wr,
        wj = g1 * (wPrev + wr);
`,
    ...dBlock(),
    `
`,
    ...geoWrite(),
    `
      if (k > 0) {
        // ---- U = A_{k−1,k}: rows block k − 1 (s, b), columns block k (s′, b′); (b, s′) = 0 (set once)
        //   (s, s′) = −w_k R_{k−1}ᵀ R_k/(l l′), (s, b′) = −w_θ T_{k−1} B′ᵀ, (b, b′) = −w_θ B B′ᵀ
        const po = o - GEO;
        const wpk = g1 * w[SA[c]] * (1 / rest[c - 1]) * invL;
        const wrp = g1 * iI[3 * SQ[c - 1]];
`,
    ...geoRead(),
    `
`,
    ...uBlock(),
    `
        // W_{k−1} = L_{k−1}⁻¹ U; D_k = A_kk − W_{k−1}ᵀ W_{k−1}; g_k = r_k − W_{k−1}ᵀ y_{k−1}
        lowerSolve6(Lf, 21 * (k - 1), U, W, 36 * (k - 1));
        subtractGram6(D, W, 36 * (k - 1));
        subtractTransposedProduct6(rhs, r, W, 36 * (k - 1), rhs, r - 6);
      }
      // D_k = L_k L_kᵀ; y_k = L_k⁻¹ g_k (in place in rhs)
      chol6(D, Lf, 21 * k);
      lowerSolveVec6(Lf, 21 * k, rhs, r);
    }
    // ---- back substitution: Δλ_k = L_k⁻ᵀ (y_k − W_k Δλ_{k+1}) (into rhs)
    upperSolveVec6(Lf, 21 * (m - 1), rhs, 6 * (m - 1));
    for (let k = m - 2; k >= 0; k--) {
      subtractProduct6(rhs, 6 * k, W, 36 * k, 6 * (k + 1));
      upperSolveVec6(Lf, 21 * k, rhs, 6 * k);
    }
    // ---- apply: λ += Δλ, Δp = w J_pᵀ Δλ, Δθ = w_θ J_θᵀ Δλ
    const kp = this.rule.kPrime;
    for (let k = 0; k < m; k++) {
      const c = c0 + k,
        o = GEO * k,
        zo = 6 * k;
      const l1 = kp * rhs[zo],
        l2 = kp * rhs[zo + 1],
        l3 = kp * rhs[zo + 2];
      slam[3 * c] += l1;
      slam[3 * c + 1] += l2;
      slam[3 * c + 2] += l3;
      const j = this.jointBefore[c];
      const an = anchors && k === 0 ? this.anchorOf[c] : -1;
      const b1 = kp * rhs[zo + 3],
        b2 = kp * rhs[zo + 4],
        b3 = kp * rhs[zo + 5];
      if (j >= 0) {
        bt!.lambda[3 * j] += b1;
        bt!.lambda[3 * j + 1] += b2;
        bt!.lambda[3 * j + 2] += b3;
      } else if (an >= 0) {
        bt!.anchorLambda[3 * an] += b1;
        bt!.anchorLambda[3 * an + 1] += b2;
        bt!.anchorLambda[3 * an + 2] += b3;
      }
      // D = R_k Δλ_s (world), p_a −= w_a D/l, p_b += w_b D/l
      const invL = 1 / rest[c];
`,
    ...force(),
    `
      const ia = 3 * SA[c],
        ib = 3 * SB[c];
`,
    moveEnds('w[SA[c]]', 'w[SB[c]]'),
    `      const iq = 4 * SQ[c];
      const wr = iI[3 * SQ[c]];
      if (wr === 0) continue;
      // Δθ = w_θ (T_kᵀ Δλ_s + B_kᵀ Δλ_b − B_{k+1}ᵀ Δλ_{b,k+1})
`,
    ...torque(),
    `
      if (k + 1 < m) {
        const on = o + GEO,
          zn = zo + 6;
        const n1 = kp * rhs[zn + 3],
          n2 = kp * rhs[zn + 4],
          n3 = kp * rhs[zn + 5];
`,
    ...torqueNext(),
    `
      }
      // q ← normalise(q + ½ [Δθ, 0] q)
      const f = 0.5 * wr;
      tx *= f;
      ty *= f;
      tz *= f;
      const qx = qp[iq],
        qy = qp[iq + 1],
        qz = qp[iq + 2],
        qw = qp[iq + 3];
`,
    lines(turnedQuaternion('      ')),
    `
      if (len > 1e-12) {
        const il = 1 / len;
        qp[iq] = nx * il;
        qp[iq + 1] = ny * il;
        qp[iq + 2] = nz * il;
        qp[iq + 3] = nw * il;
      }
    }
  }
`,
  ];
  return [
    banner,
    '// The direct rod solver’s chain solve (src/strands/rod-direct.ts); see scripts/kernels/emit-rod-direct.ts.',
    "import type { ParticleStore } from '../core/particles.js';",
    "import type { ProjectionRule } from '../core/solver.js';",
    "import type { BendTwistConstraints } from './rod-bend-twist.js';",
    "import { chol6, lowerSolve6, lowerSolveVec6, subtractGram6, subtractProduct6, subtractTransposedProduct6, upperSolveVec6 } from './rod-direct-blocks.generated.js';",
    "import type { StretchShearConstraints } from './rod-stretch-shear.js';",
    '',
    '/** Per block: R_kᵀ rows (9), e_k (3, not stored), T_k (9), B of its joint (9): GEO_SLOTS in scripts/kernels/emit-rod-direct.ts. */',
    'export const GEO = 30;',
    '',
    '/** The chain solve of DirectRodSolver (rod-direct.ts), whose fields it reads. */',
    'export abstract class DirectRodChains {',
    'abstract readonly rule: ProjectionRule;',
    'abstract readonly stretchShear: StretchShearConstraints;',
    'abstract readonly bendTwist: BendTwistConstraints | null;',
    'protected abstract readonly jointBefore: Int32Array;',
    'protected abstract anchorOf: Int32Array;',
    '/** Per block of the longest chain: the geometry record (GEO), the Cholesky factor L_k (21), W_k = L_k⁻¹ A_{k,k+1} (36), the right side, then y_k, then Δλ_k (6). */',
    ...WORKSPACE.map(([f]) => `protected ${f} = new Float64Array(0);`),
    '/** The diagonal and the coupling block being assembled; α̃ of the stretch–shear and bend–twist axes; γ. */',
    'protected readonly D = new Float64Array(36);',
    'protected readonly U = new Float64Array(36);',
    'protected readonly ssScale = new Float64Array(3);',
    'protected readonly btScale = new Float64Array(3);',
    'protected gamma = 0;',
    '',
    '/** The workspace for chains of up to `longest` blocks. */',
    'protected allocate(longest: number): void {',
    ...WORKSPACE.map(([f, n]) => `this.${f} = new Float64Array(${n} * longest);`),
    '}',
    '',
    method.join(''),
    '}',
    '',
  ].join('\n');
}
