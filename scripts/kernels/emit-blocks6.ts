/**
 * The 6 × 6 block kernels of the direct rod solver (src/strands/rod-direct.ts),
 * written out entry by entry from the loops below into
 * src/strands/rod-direct-blocks.generated.ts (docs/strands.md, Speed: with the
 * loops run as loops, rod-1k's direct solve took 2.3 times as long per frame).
 * Each sum is printed in the order the loop visits its terms, left to right,
 * so the code is the one that was unrolled by hand before (session 15: the
 * same operations, every scene's bits unchanged).
 *
 * L is a packed lower triangle (21 entries, row by row, entry (i, j) at
 * i(i + 1)/2 + j) whose diagonal holds 1/L_ii, so every solve multiplies
 * instead of dividing. Blocks are row major (entry (i, j) at 6i + j).
 */

const N = 6;
const range = (a: number, b: number): number[] => Array.from({ length: Math.max(0, b - a) }, (_, k) => a + k);
const packed = (i: number, j: number): number => (i * (i + 1)) / 2 + j;
const at = (name: string, base: string, k: number): string => `${name}[${base} + ${k}]`;
/** `head − t_0 − t_1 …` (or `head` alone), times `scale`: (head − Σ) · scale as the loops compute it. */
const reduce = (head: string, terms: string[], scale: string): string =>
  terms.length === 0 ? `${head} * ${scale}` : `(${[head, ...terms].join(' - ')}) * ${scale}`;
const dot = (pairs: [string, string][]): string => pairs.map(([a, b]) => `${a} * ${b}`).join(' + ');

/** One exported function: its doc comment, its signature (`name(params)`) and its body's lines. */
const fn = (doc: string[], signature: string, body: string[]): string[] => [
  ...(doc.length === 1 ? [`/** ${doc[0]} */`] : ['/**', ...doc.map((l) => ` * ${l}`), ' */']),
  `export function ${signature}: void {`,
  ...body.map((l) => `  ${l}`),
  '}',
  '',
];

function chol6(): string[] {
  const body: string[] = [];
  for (const j of range(0, N)) {
    const sq = range(0, j).map((k) => `l${j}${k} * l${j}${k}`);
    body.push(`const a${j}${j} = D[${N * j + j}];`);
    body.push(`const p${j} = ${[`a${j}${j}`, ...sq].join(' - ')};`);
    body.push(`const i${j} = p${j} > 1e-12 * a${j}${j} && p${j} > 0 ? 1 / Math.sqrt(p${j}) : 0;`);
    body.push(`${at('L', 'lo', packed(j, j))} = i${j};`);
    for (const i of range(j + 1, N)) {
      const terms = range(0, j).map((k) => `l${i}${k} * l${j}${k}`);
      body.push(`const l${i}${j} = ${reduce(`D[${N * i + j}]`, terms, `i${j}`)};`);
      body.push(`${at('L', 'lo', packed(i, j))} = l${i}${j};`);
    }
  }
  return fn(
    [
      'Cholesky D = L Lᵀ of a symmetric positive semi-definite 6 × 6 block D',
      '(row major, lower triangle read), into L (packed lower triangle at lo,',
      '21 entries, row by row, the diagonal holding 1/L_ii). A pivot that',
      'vanishes against its diagonal entry (a row no unknown can move) gets',
      '1/L_ii = 0 and a zero column: its unknown drops out of the solve (0).',
    ],
    'chol6(D: Float64Array, L: Float64Array, lo: number)',
    body,
  );
}

/** The locals of a packed factor: i_j for the diagonal, l_ij below it. */
const factorName = (i: number, j: number): string => (i === j ? `i${i}` : `l${i}${j}`);

function lowerSolve6(): string[] {
  const body: string[] = [];
  for (const i of range(0, N))
    for (const j of range(0, i + 1)) body.push(`const ${factorName(i, j)} = ${at('L', 'lo', packed(i, j))};`);
  for (const c of range(0, N))
    for (const r of range(0, N)) {
      const terms = range(0, r).map((k) => `l${r}${k} * w${k}${c}`);
      body.push(`const w${r}${c} = ${reduce(`U[${N * r + c}]`, terms, `i${r}`)};`);
      body.push(`${at('W', 'wo', N * r + c)} = w${r}${c};`);
    }
  return fn(
    ['W = L⁻¹ U for a 6 × 6 block U (row major) into W at wo (row major); L packed as chol6 leaves it.'],
    'lowerSolve6(L: Float64Array, lo: number, U: Float64Array, W: Float64Array, wo: number)',
    body,
  );
}

function subtractGram6(): string[] {
  const body: string[] = [];
  for (const i of range(0, N))
    for (const j of range(0, i + 1)) {
      const terms = range(0, N).map((k): [string, string] => [
        at('W', 'wo', N * k + i),
        at('W', 'wo', N * k + j),
      ]);
      body.push(`D[${N * i + j}] -= ${dot(terms)};`);
    }
  return fn(
    ['D −= Wᵀ W (the lower triangle; the upper is not read).'],
    'subtractGram6(D: Float64Array, W: Float64Array, wo: number)',
    body,
  );
}

/** v_i = (v_i − Σ_k L_(k, i) v_k) / L_ii over the rows in `order` (k: `others(i)`); `v` names the array and its locals. */
function triangularSolve(
  v: string,
  order: number[],
  others: (i: number) => number[],
  lower: boolean,
): string[] {
  const vo = `${v}o`;
  const body: string[] = [];
  for (const i of order) {
    const terms = others(i).map((k) => `${at('L', 'lo', lower ? packed(i, k) : packed(k, i))} * ${v}${k}`);
    body.push(`const ${v}${i} = ${reduce(at(v, vo, i), terms, at('L', 'lo', packed(i, i)))};`);
    body.push(`${at(v, vo, i)} = ${v}${i};`);
  }
  return body;
}

function triangularSolves(): string[] {
  return [
    ...fn(
      ['y = L⁻¹ y in place (6 entries at yo).'],
      'lowerSolveVec6(L: Float64Array, lo: number, y: Float64Array, yo: number)',
      triangularSolve('y', range(0, N), (i) => range(0, i), true),
    ),
    ...fn(
      ['x = L⁻ᵀ x in place (6 entries at xo).'],
      'upperSolveVec6(L: Float64Array, lo: number, x: Float64Array, xo: number)',
      triangularSolve('x', range(0, N).reverse(), (i) => range(i + 1, N), false),
    ),
  ];
}

/** `out[oo + i] −= Σ_k W_(i,k) v_k`, v the 6 entries of y at vo read into locals first; `transposed` reads Wᵀ. */
function product(out: string, oo: string, v: string, vo: string, transposed: boolean): string[] {
  return [
    ...range(0, N).map((k) => `const ${v}${k} = ${at('y', vo, k)};`),
    ...range(0, N).map(
      (i) =>
        `${at(out, oo, i)} -= ${dot(range(0, N).map((k): [string, string] => [at('W', 'wo', transposed ? N * k + i : N * i + k), `${v}${k}`]))};`,
    ),
  ];
}

function products(): string[] {
  return [
    ...fn(
      ['g −= Wᵀ y (6 entries each, g at go, y at yo).'],
      'subtractTransposedProduct6(g: Float64Array, go: number, W: Float64Array, wo: number, y: Float64Array, yo: number)',
      product('g', 'go', 'y', 'yo', true),
    ),
    ...fn(
      ['y_k −= W x (6 entries each, y at yo, x at xo of the same array).'],
      'subtractProduct6(y: Float64Array, yo: number, W: Float64Array, wo: number, xo: number)',
      product('y', 'yo', 'x', 'xo', false),
    ),
  ];
}

/** The module src/strands/rod-direct-blocks.generated.ts (before formatting). */
export function emitBlocks6(banner: string): string {
  return [
    banner,
    '// The 6 × 6 block kernels of the direct rod solver, written out entry by entry; see scripts/kernels/emit-blocks6.ts.',
    '',
    ...chol6(),
    ...lowerSolve6(),
    ...subtractGram6(),
    ...triangularSolves(),
    ...products(),
  ].join('\n');
}
