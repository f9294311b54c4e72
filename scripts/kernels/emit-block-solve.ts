/**
 * The written-out parts of the rigid contact blocks' joint normal solve
 * (src/rigid/block-solve.ts, Müller et al. 2020 §3.5 with the points of a
 * manifold coupled), printed from loops into src/rigid/block-solve.generated.ts:
 *
 * - `solve3`, `solve4`: the elimination of the symmetric positive definite
 *   system (K + ε I) y = c of three or four active points (LDLᵀ, the
 *   multipliers from the upper triangle) and the back substitution by the
 *   pivots' reciprocals, in locals; the same loop for both sizes;
 * - `fillK4`: K of all four points, each entry the same sum in the same
 *   order as fillK's loop, the levers read once instead of once per entry;
 * - the module's scratch arrays, which block-solve.ts and contact-blocks.ts
 *   share.
 *
 * Each operation is printed in the order the loop visits it, so the code is
 * the one that was written out by hand before (session 15: every scene's
 * bits unchanged).
 */

const range = (a: number, b: number): number[] => Array.from({ length: Math.max(0, b - a) }, (_, k) => a + k);
const XYZ = ['x', 'y', 'z'];

/**
 * The closed form for n active points: with `direct` the points are 0 … n − 1 (K's entries at
 * literal offsets), otherwise act[0 … n − 1]. Returns −1 after writing BX when every multiplier
 * is ≥ 0; else the point with the most negative one (the later point among equals), writing nothing.
 */
function solveN(n: number, direct: boolean): string[] {
  const idx = range(0, n).map((p) => (direct ? `${p}` : `t${p}`));
  const entry = (p: number, q: number): string =>
    direct ? `BK[${4 * p + q}]` : p === q ? `BK[5 * t${p}]` : `BK[4 * t${p} + t${q}]`;
  const body: string[] = direct ? [] : [`const ${idx.map((t, p) => `${t} = act[${p}]`).join(', ')};`];
  body.push('const eps = EPS[0];');
  // the upper triangle of K + ε I; row 0 and r0 stay, the rest is eliminated in place
  for (const p of range(0, n)) {
    const row = range(p, n).map((q) => `m${p}${q} = ${entry(p, q)}${p === q ? ' + eps' : ''}`);
    body.push(`${p === 0 ? 'const' : 'let'} ${row.join(', ')};`);
  }
  body.push(`const r0 = BC[${idx[0]}];`);
  body.push(
    `let ${range(1, n)
      .map((p) => `r${p} = BC[${idx[p]}]`)
      .join(', ')};`,
  );
  for (const p of range(0, n - 1)) {
    body.push(`// p = ${p}`, `const i${p} = 1 / m${p}${p};`);
    for (const q of range(p + 1, n)) {
      body.push(`${p === 0 && q === 1 ? 'let f' : 'f'} = m${p}${q} * i${p};`);
      for (const s of range(q, n)) body.push(`m${q}${s} -= f * m${p}${s};`);
      body.push(`r${q} -= f * r${p};`);
    }
  }
  body.push('// back substitution', `const y${n - 1} = r${n - 1} / m${n - 1}${n - 1};`);
  for (const p of range(0, n - 1).reverse()) {
    const terms = range(p + 1, n).map((s) => ` - m${p}${s} * y${s}`);
    body.push(`const y${p} = (r${p}${terms.join('')}) * i${p};`);
  }
  body.push(
    `if (${range(0, n)
      .map((p) => `y${p} >= 0`)
      .join(' && ')}) {`,
  );
  for (const p of range(0, n)) body.push(`  BX[${idx[p]}] = y${p};`);
  body.push('  return -1;', '}');
  body.push('// the most negative multiplier (the later point among equals)');
  body.push(`let worst = ${idx[n - 1]};`, `let low = y${n - 1};`);
  for (const p of range(1, n - 1).reverse()) {
    body.push(`if (y${p} < low) {`, `  low = y${p};`, `  worst = ${idx[p]};`, '}');
  }
  body.push(`if (y0 < low) worst = ${idx[0]};`);
  body.push('return worst;');
  return [`export function solve${n}(): number {`, ...body.map((l) => `  ${l}`), '}', ''];
}

/** fillK4: K_ij = w + a_i·u_j + b_i·v_j for i ≤ j (a, b the points' r × n of CA, CB; u, v of UA, UB). */
function fillK4(): string[] {
  const body = ['const w = KW[0];'];
  for (const [name, from] of [
    ['a', 'CA'],
    ['b', 'CB'],
    ['u', 'UA'],
    ['v', 'UB'],
  ])
    body.push(
      `const ${range(0, 12)
        .map((e) => `${name}${(e / 3) | 0}${XYZ[e % 3]} = ${from}[${e}]`)
        .join(', ')};`,
    );
  body.push('const K = BK;');
  for (const i of range(0, 4))
    for (const j of range(i, 4)) {
      const sum = [
        ...XYZ.map((c) => `a${i}${c} * u${j}${c}`),
        ...XYZ.map((c) => `b${i}${c} * v${j}${c}`),
      ].join(' + ');
      body.push(`K[${4 * i + j}] = ${i === j ? '' : `K[${4 * j + i}] = `}w + ${sum};`);
    }
  return [
    '/**',
    ' * fillK for all four points (use = 15), unrolled: each entry the same sum in the same order, the',
    ' * levers read once instead of once per entry.',
    ' */',
    'export function fillK4(): void {',
    ...body.map((l) => `  ${l}`),
    '}',
    '',
  ];
}

/** The module src/rigid/block-solve.generated.ts (before formatting). */
export function emitBlockSolve(banner: string): string {
  return [
    banner,
    '// The written-out parts of the rigid blocks’ joint solve (src/rigid/block-solve.ts); see scripts/kernels/emit-block-solve.ts.',
    '',
    '/** The matrix (row-major, 4 × 4, symmetric), right-hand side and solution of one joint solve. */',
    'export const BK = new Float64Array(16);',
    'export const BC = new Float64Array(4);',
    'export const BX = new Float64Array(4);',
    '/** The active points of the pass being solved. */',
    'export const act = new Int32Array(4);',
    '/** ε of the pass being solved. */',
    'export const EPS = new Float64Array(1);',
    '/**',
    ' * Per point of a block (≤ 4, contact-blocks.ts): r × d and I⁻¹ (r × d) of both sides (A: body 1,',
    ' * B: body 2) for the direction of the last `levers` call, from which fillK builds K.',
    ' */',
    'export const CA = new Float64Array(12);',
    'export const CB = new Float64Array(12);',
    'export const UA = new Float64Array(12);',
    'export const UB = new Float64Array(12);',
    '/** m₁⁻¹ + m₂⁻¹ for fillK (a call’s double argument, not inlined, is a heap number allocated per call). */',
    'export const KW = new Float64Array(1);',
    '',
    '/** Three active points act[0 … 2]: the elimination of K + ε I, unrolled; returns as solve2 (block-solve.ts) does. */',
    ...solveN(3, false),
    '/**',
    ' * All four points (act = 0, 1, 2, 3): the elimination of K + ε I (LDLᵀ, the multipliers from the',
    ' * upper triangle: K is symmetric) and the back substitution, unrolled in locals, by the pivots’',
    ' * reciprocals; returns as solve2 does.',
    ' */',
    ...solveN(4, true),
    ...fillK4(),
  ].join('\n');
}
