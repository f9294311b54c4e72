/**
 * The continuous collision tests of the self collision (003 §3.4, §4.3), written once and emitted
 * twice (issue 14): the coplanarity cubic of four linearly moving points, its roots on [0, 1],
 * and the vertex–triangle and edge–edge tests that check the closest distance at each root.
 *
 * - TypeScript into src/collision/ccd.generated.ts (x, p: Float64Arrays; the cubic and its roots
 *   in Float64Arrays, so that no double is boxed), re-exported by src/collision/geometry.ts;
 * - AssemblyScript into wasm/ccd.generated.ts (x, p: byte addresses in the narrow module's
 *   memory; the cubic and its roots in the instance's globals, so that threads' instances share
 *   nothing), imported by wasm/narrow.ts.
 *
 * A `Store` says how each language keeps the cubic and the roots and checks the distance at a
 * root; everything else is one template, with the same floating-point operations in the same
 * order in both (hence the same bits: test/surface-narrow-wasm).
 */
import { AS, dot, type Lang, TS } from './emit-closest.js';

/** How a language keeps the coefficients, the roots and the points at a root. */
interface Store {
  lang: Lang;
  /** One coordinate of a point: array x (or address X), index expression i. */
  read: (arr: string, i: string) => string;
  /** Coefficient k of the cubic (an lvalue). */
  coef: (k: number) => string;
  /** Statement: keep root v as the n-th (counting n up). */
  push: (v: string) => string;
  /** The last root kept (n ≥ 1). */
  last: string;
  /** Root k. */
  root: (k: string) => string;
  /** An annotation that AssemblyScript needs on an untyped literal (`: f64`), none in TypeScript. */
  ann: string;
  /** The array (or address) parameter type. */
  arr: string;
  /** The index parameter type. */
  int: string;
}

const TS_STORE: Store = {
  lang: TS,
  read: (a, i) => `${a}[${i}]`,
  coef: (k) => `cubic[${k}]`,
  push: (v) => `roots[n++] = ${v};`,
  last: 'roots[n - 1]',
  root: (k) => `roots[${k}]`,
  ann: '',
  arr: 'Float64Array',
  int: 'number',
};

const AS_STORE: Store = {
  lang: AS,
  read: (a, i) => `F(${a}, ${i})`,
  coef: (k) => `cc${k}`,
  push: (v) => `n = pushRoot(n, ${v});`,
  last: 'lastRoot(n)',
  root: (k) => `rootAt(${k})`,
  ann: ': f64',
  arr: 'usize',
  int: 'i32',
};

/** `name0 = …, name1 = …` of one moving vector v − o: at x, and its motion (p_v − x_v) − (p_o − x_o). */
function relative(S: Store, n: string, o: string, v: string, first = false): string {
  const x = (i: string) => S.read('x', i);
  const p = (i: string) => S.read('p', i);
  const lines: string[] = [];
  ['x', 'y', 'z'].forEach((c, j) => {
    const oj = j === 0 ? o : `${o} + ${j}`;
    const vj = j === 0 ? v : `${v} + ${j}`;
    lines.push(`  ${first && j === 0 ? 'let ' : ''}xo = ${x(oj)};`);
    lines.push(`  const ${n}0${c} = ${x(vj)} - xo,\n    ${n}1${c} = ${p(vj)} - ${x(vj)} - (${p(oj)} - xo);`);
  });
  return lines.join('\n');
}

/** Component c (x, y or z) of the cross product u × v of two vectors named in scope. */
export function crossAt(c: string, u: string, v: string): string {
  const [i, j] = c === 'x' ? ['y', 'z'] : c === 'y' ? ['z', 'x'] : ['x', 'y'];
  return `${u}${i} * ${v}${j} - ${u}${j} * ${v}${i}`;
}

/** `const <n>x = …, <n>y = …, <n>z = …` with each component from `at`. */
function cross(n: string, at: (c: string) => string): string {
  return `  const ${['x', 'y', 'z'].map((c) => `${n}${c} = ${at(c)}`).join(',\n    ')};`;
}

/**
 * coplanarityCubic: the coefficients c0 + c1 t + c2 t² + c3 t³ of f(t) = r(t) · (a(t) × b(t)),
 * where r = v1 − o1, a = v2 − o2, b = v3 − o3 move linearly from x to p (003 §3.4: f = 0 where
 * the four points are coplanar); returns a bound of the rounding error of f.
 */
function coplanarity(S: Store): string {
  const { arr, int } = S;
  return `/**
 * The coplanarity cubic of 003 §3.4: the coefficients c0 + c1 t + c2 t² + c3 t³ of
 * f(t) = r(t) · (a(t) × b(t)), where r = v1 − o1, a = v2 − o2 and b = v3 − o3 move linearly from
 * x to p (f = 0 where the four points are coplanar). Writes the cubic; returns a scale of |f|
 * for tolerances.
 */
function coplanarityCubic(
  x: ${arr}, p: ${arr}, o1: ${int}, v1: ${int}, o2: ${int}, v2: ${int}, o3: ${int}, v3: ${int},
): ${S.lang.f64} {
  // each vector at x and its motion: v − o, and (p_v − x_v) − (p_o − x_o)
${relative(S, 'r', 'o1', 'v1', true)}
${relative(S, 'a', 'o2', 'v2')}
${relative(S, 'b', 'o3', 'v3')}
  // n(t) = a(t) × b(t) = n0 + t n1 + t² n2
${cross('n0', (c) => crossAt(c, 'a0', 'b0'))}
${cross('n2', (c) => crossAt(c, 'a1', 'b1'))}
${cross('n1', (c) => `${crossAt(c, 'a0', 'b1')} + (${crossAt(c, 'a1', 'b0')})`)}
  // f(t) = r(t) · n(t), by powers of t
  ${S.coef(0)} = ${dot('r0', 'n0')};
  ${S.coef(1)} = ${dot('r1', 'n0')} + (${dot('r0', 'n1')});
  ${S.coef(2)} = ${dot('r1', 'n1')} + (${dot('r0', 'n2')});
  ${S.coef(3)} = ${dot('r1', 'n2')};
  // a bound of the rounding error of f: products of three lengths
  const ra = Math.abs(r0x) + Math.abs(r0y) + Math.abs(r0z) + Math.abs(r1x) + Math.abs(r1y) + Math.abs(r1z);
  const aa = Math.abs(a0x) + Math.abs(a0y) + Math.abs(a0z) + Math.abs(a1x) + Math.abs(a1y) + Math.abs(a1z);
  const ba = Math.abs(b0x) + Math.abs(b0y) + Math.abs(b0z) + Math.abs(b1x) + Math.abs(b1y) + Math.abs(b1z);
  return ra * aa * ba;
}
`;
}

/** solveCubic01 and evalCubic: the roots of the cubic on [0, 1], ascending. */
function solver(S: Store, inline: string): string {
  const { eq, ne, f64 } = S.lang;
  const c = S.coef;
  return `${inline}function evalCubic(t: ${f64}): ${f64} {
  return ${c(0)} + t * (${c(1)} + t * (${c(2)} + t * ${c(3)}));
}

/**
 * Roots of the cubic on [0, 1] (those where |f| ≤ eps count as roots), ascending; returns their
 * number. Splits [0, 1] at the critical points into monotone pieces and bisects each piece whose
 * ends change sign. A Bernstein-coefficient test rejects most cubics at once.
 */
function solveCubic01(eps: ${f64}): ${S.int} {
  const c0 = ${c(0)},
    c1 = ${c(1)},
    c2 = ${c(2)},
    c3 = ${c(3)};
  // Bernstein coefficients: f lies in their convex hull on [0, 1]
  const b0 = c0,
    b1 = c0 + c1 / 3,
    b2 = c0 + (2 * c1 + c2) / 3,
    b3 = c0 + c1 + c2 + c3;
  if ((b0 > eps && b1 > eps && b2 > eps && b3 > eps) || (b0 < -eps && b1 < -eps && b2 < -eps && b3 < -eps))
    return 0;
  // critical points: 3 c3 t² + 2 c2 t + c1 = 0
  let t1${S.ann} = 2,
    t2${S.ann} = 2;
  const A = 3 * c3,
    Bq = 2 * c2,
    C = c1;
  if (Math.abs(A) > 1e-300) {
    const disc = Bq * Bq - 4 * A * C;
    if (disc >= 0) {
      const sq = Math.sqrt(disc);
      const q = -0.5 * (Bq + (Bq >= 0 ? sq : -sq));
      let r1 = q / A,
        r2 = q ${ne} 0 ? C / q : r1;
      if (r1 > r2) {
        const s = r1;
        r1 = r2;
        r2 = s;
      }
      t1 = r1;
      t2 = r2;
    }
  } else if (Math.abs(Bq) > 1e-300) {
    t1 = -C / Bq;
  }
  let n = 0;
  let lo${S.ann} = 0;
  let flo = c0;
  for (let piece = 0; piece < 3; piece++) {
    let hi${S.ann} = piece ${eq} 0 ? t1 : piece ${eq} 1 ? t2 : 1;
    if (piece < 2 && !(hi > lo && hi < 1)) continue;
    if (hi > 1) hi = 1;
    const fhi = evalCubic(hi);
    if (Math.abs(flo) <= eps) {
      if (n ${eq} 0 || ${S.last} ${ne} lo) ${S.push('lo')}
    } else if (Math.abs(fhi) > eps && flo > 0 ${ne} fhi > 0) {
      // bisection on a monotone piece with a sign change
      let a = lo,
        b = hi,
        fa = flo;
      for (let it = 0; it < 52 && b - a > 1e-15; it++) {
        const m = 0.5 * (a + b);
        const fm = evalCubic(m);
        if (fm > 0 ${eq} fa > 0) {
          a = m;
          fa = fm;
        } else b = m;
      }
      ${S.push('0.5 * (a + b)')}
    }
    lo = hi;
    flo = fhi;
  }
  if (Math.abs(flo) <= eps && (n ${eq} 0 || ${S.last} ${ne} lo)) ${S.push('lo')}
  return n;
}
`;
}

/** The closest-point test at the points of a root: a statement (or none) and the squared distance. */
interface Near {
  call: string;
  d2: string;
}

/**
 * One continuous test over the four moving points (offsets v[0] … v[3]): the cubic of r = v[1] − v[0]
 * (the first pair in `rel`), e1, e2 (the others), its roots in time order, and the first root at
 * which the points lie within tol of each other (`near`: the closest-point test at the points of
 * root k, pointsAt's) is the time of contact.
 */
function ccdTest(S: Store, exp: string, name: string, v: string[], rel: string[], near: Near): string {
  const { arr, int } = S;
  const f64 = S.lang.f64;
  return `${exp}function ${name}(
  x: ${arr}, p: ${arr}, ${v.map((o) => `${o}: ${int}`).join(', ')}, tol: ${f64},
): ${f64} {
  const n = solveCubic01(1e-12 * coplanarityCubic(x, p, ${rel.join(', ')}));
  const tol2 = tol * tol;
  for (let k = 0; k < n; k++) {
    pointsAt(x, p, k, ${v.join(', ')});${near.call}
    if (${near.d2} <= tol2) return ${S.root('k')};
  }
  return -1;
}
`;
}

/** vertexTriangleCcd and edgeEdgeCcd (003 §3.4, §4.3). */
function tests(S: Store, exp: string, nearVt: Near, nearEe: Near): string {
  return `/**
 * Continuous test of a moving point against a moving triangle (003 §3.4, §4.3): the point q and
 * the corners a, b, c move linearly from x to p (offsets q3 = 3q etc.); r = q − a, e1 = b − a,
 * e2 = c − a. Returns the first time t ∈ [0, 1] at which q lies in the triangle (within tol, a
 * distance), or −1.
 */
${ccdTest(S, exp, 'vertexTriangleCcd', ['q3', 'a3', 'b3', 'c3'], ['a3', 'q3', 'a3', 'b3', 'a3', 'c3'], nearVt)}
/**
 * Continuous test of two moving edges a–b and c–d (linear motion from x to p); r = c − a,
 * e1 = b − a, e2 = d − c. Returns the first time t ∈ [0, 1] at which they touch (within tol), or −1.
 */
${ccdTest(S, exp, 'edgeEdgeCcd', ['a3', 'b3', 'c3', 'd3'], ['a3', 'c3', 'a3', 'b3', 'c3', 'd3'], nearEe)}`;
}

/** src/collision/ccd.generated.ts. */
export function emitCcdTs(banner: string): string {
  const S = TS_STORE;
  return `${banner}
// The continuous tests of src/collision/geometry.ts, written once in scripts/kernels/emit-ccd.ts
// (which also writes their AssemblyScript twins, wasm/ccd.generated.ts).
import { closestPointTriangleAt, closestSegmentSegmentAt } from './closest.generated.js';

/** Coefficients c0 + c1 t + c2 t² + c3 t³ of the last coplanarity cubic. */
const cubic = new Float64Array(4);
/** Roots in [0, 1] found by solveCubic01, ascending (a fourth is counted but not kept: roots[3] reads undefined, NaN). */
const roots = new Float64Array(3);
/** The closest-point results of a continuous test at a root. */
const scratch = new Float64Array(7);
/** The points of a continuous test at a root of its cubic. */
const at = new Float64Array(12);

${coplanarity(S)}
${solver(S, '')}
/** The roots of c0 + c1 t + c2 t² + c3 t³ on [0, 1] (|f| ≤ eps counts as a root), ascending; their number (cubicRoot(k) reads them). */
export function cubicRoots01(c0: number, c1: number, c2: number, c3: number, eps: number): number {
  cubic[0] = c0;
  cubic[1] = c1;
  cubic[2] = c2;
  cubic[3] = c3;
  return solveCubic01(eps);
}

/** The roots found by the last cubicRoots01 / CCD call. */
export function cubicRoot(k: number): number {
  return roots[k];
}

/** The four moving points at the time of root k, (1 − t) x + t p, into \`at\` (12 numbers). */
function pointsAt(x: Float64Array, p: Float64Array, k: number, i0: number, i1: number, i2: number, i3: number): void {
  const t = roots[k];
  const s = 1 - t;
  for (let j = 0; j < 3; j++) {
    at[j] = s * x[i0 + j] + t * p[i0 + j];
    at[3 + j] = s * x[i1 + j] + t * p[i1 + j];
    at[6 + j] = s * x[i2 + j] + t * p[i2 + j];
    at[9 + j] = s * x[i3 + j] + t * p[i3 + j];
  }
}

${tests(
  S,
  'export ',
  { call: '\n    closestPointTriangleAt(at, 0, at, 3, 6, 9, scratch);', d2: 'scratch[6]' },
  { call: '\n    closestSegmentSegmentAt(at, 0, 3, at, 6, 9, scratch);', d2: 'scratch[2]' },
)}`;
}

/** wasm/ccd.generated.ts. */
export function emitCcdAs(banner: string): string {
  const S = AS_STORE;
  const q = (k: number) => ['x', 'y', 'z'].map((c) => `q${k}${c}`).join(', ');
  const pts = [0, 1, 2, 3]
    .map((k) =>
      ['x', 'y', 'z']
        .map((c, j) => {
          const i = j === 0 ? `i${k}` : `i${k} + ${j}`;
          return `  q${k}${c} = s * F(x, ${i}) + t * F(p, ${i});`;
        })
        .join('\n'),
    )
    .join('\n');
  return `${banner}
// The continuous tests of src/collision/geometry.ts in AssemblyScript, written once with their
// TypeScript in scripts/kernels/emit-ccd.ts: the same operations in the same order.
import { closestSegmentSegment2, pointTriangle2 } from './closest';

/** Roots of the last cubic, ascending (geometry.ts \`roots\`). */
let root0: f64 = 0,
  root1: f64 = 0,
  root2: f64 = 0;
/** The cubic's coefficients (geometry.ts \`cubic\`). */
let cc0: f64 = 0,
  cc1: f64 = 0,
  cc2: f64 = 0,
  cc3: f64 = 0;
/** The points of a continuous test at a root (geometry.ts \`at\`). */
let q0x: f64 = 0, q0y: f64 = 0, q0z: f64 = 0, q1x: f64 = 0, q1y: f64 = 0, q1z: f64 = 0;
let q2x: f64 = 0, q2y: f64 = 0, q2z: f64 = 0, q3x: f64 = 0, q3y: f64 = 0, q3z: f64 = 0;

@inline function F(p: usize, i: i32): f64 {
  return load<f64>(p + ((<usize>i) << 3));
}

${coplanarity(S)}
/**
 * roots[n] = v, n + 1: like the JavaScript's Float64Array(3), a fourth root (a cubic that is
 * nearly zero at 0, both critical points and 1) is counted but not kept.
 */
@inline function pushRoot(n: i32, v: f64): i32 {
  if (n == 0) root0 = v;
  else if (n == 1) root1 = v;
  else if (n == 2) root2 = v;
  return n + 1;
}

@inline function lastRoot(n: i32): f64 {
  return n == 1 ? root0 : n == 2 ? root1 : root2;
}

/** roots[k]: the JavaScript reads undefined past the third, which becomes NaN (a point that never touches). */
@inline function rootAt(k: i32): f64 {
  return k == 0 ? root0 : k == 1 ? root1 : k == 2 ? root2 : NaN;
}

${solver(S, '@inline ')}
/** The four points at the time of root k, (1 − t) x + t p (geometry.ts pointsAt). */
function pointsAt(x: usize, p: usize, k: i32, i0: i32, i1: i32, i2: i32, i3: i32): void {
  const t = rootAt(k);
  const s = 1 - t;
${pts}
}

${tests(
  S,
  'export ',
  { call: '', d2: `pointTriangle2(${q(0)}, ${q(1)}, ${q(2)}, ${q(3)})` },
  { call: '', d2: `closestSegmentSegment2(${q(0)}, ${q(1)}, ${q(2)}, ${q(3)})` },
)}`;
}
