/**
 * The narrow phase's four scans of the self collision (003 §4.3: vertex–triangle and edge–edge
 * candidates, the proximity pass and the fail-safe's crossing pass), written once and emitted
 * twice (issue 14):
 *
 * - TypeScript into src/collision/surface-narrow-scans.generated.ts (scanVertexTriangles,
 *   scanEdgeEdges, scanVertexTriangleCrossings, scanEdgeEdgeCrossings over NarrowArrays, which
 *   src/collision/surface-narrow-scan.ts defines with the helpers the scans call);
 * - AssemblyScript into wasm/narrow-scans.generated.ts (scanVt, scanEe, crossVt, crossEe over the
 *   address table that wasm/narrow.ts binds), the entry of the narrow module.
 *
 * The per-candidate body of each scan is one template; a `Dialect` says how a language reads an
 * array (`x[i]` or `F(X, i)`), names the arrays, takes a closest-point distance and writes a hit.
 * Both get the same filters in the same order and the same floating-point operations, hence the
 * same hits and distance bounds, entry for entry (test/surface-narrow-wasm, test/threads-collision).
 * The vertex–triangle and edge–edge scans of a pass share their skeleton: a `Kind` says how a
 * candidate is decoded, which box test, distance, continuous test and side it uses.
 */

/** How a language reads arrays, names them and writes out a hit. */
interface Dialect {
  /** f64, i32 and u8 reads of array `a` (a logical name, see `name`) at index i. */
  f: (a: string, i: string) => string;
  i: (a: string, i: string) => string;
  b: (a: string, i: string) => string;
  /** Statement: f64 write. */
  set: (a: string, i: string, v: string) => string;
  /** The language's name of a logical array. */
  name: (a: string) => string;
  /** The largest of three numbers. */
  max3: (a: string, b: string, c: string) => string;
  eq: string;
  ne: string;
  /** What pairThickness reads the thickness from. */
  thick: string;
  /** Statements: hit (k, flags) as the n-th of this block. */
  hit: (flags: string) => string;
  /** Squared distance of vertex–triangle (q3; a3, b3, c3) in array `arr`: a statement (or none) and the value. */
  vtD2: (arr: string) => [string, string];
  /** Squared distance of edges (a3, b3; c3, d3) in array `arr`, and the last s and t. */
  eeD2: (arr: string) => [string, string];
  eeS: string;
  eeT: string;
}

const id = (a: string) => a;

const TS_DIALECT: Dialect = {
  f: (a, i) => `${a}[${i}]`,
  i: (a, i) => `${a}[${i}]`,
  b: (a, i) => `${a}[${i}]`,
  set: (a, i, v) => `${a}[${i}] = ${v};`,
  name: id,
  max3: (a, b, c) => `Math.max(${a}, ${b}, ${c})`,
  eq: '===',
  ne: '!==',
  thick: 'A',
  hit: (flags) => `hits[2 * (k0 + n)] = k;\n    hits[2 * (k0 + n) + 1] = ${flags};`,
  vtD2: (x) => [`closestPointTriangleAt(${x}, q3, ${x}, a3, b3, c3, cp);`, 'cp[6]'],
  eeD2: (x) => [`closestSegmentSegmentAt(${x}, a3, b3, ${x}, c3, d3, ss);`, 'ss[2]'],
  eeS: 'ss[0]',
  eeT: 'ss[1]',
};

/** The AssemblyScript names of the arrays (wasm/narrow.ts's bound addresses). */
const AS_NAMES: Record<string, string> = {
  vert: 'vertex',
  x: 'X',
  p: 'P',
  vt: 'vtc',
  vtDist: 'vtd',
  ee: 'eec',
  eeDist: 'eed',
  sharpE: 'sharp',
};
const asName = (a: string) => AS_NAMES[a] ?? a;

const AS_DIALECT: Dialect = {
  f: (a, i) => `F(${asName(a)}, ${i})`,
  i: (a, i) => `I(${asName(a)}, ${i})`,
  b: (a, i) => `B(${asName(a)}, ${i})`,
  set: (a, i, v) => `SF(${asName(a)}, ${i}, ${v});`,
  name: asName,
  max3: (a, b, c) => `max3(${a}, ${b}, ${c})`,
  eq: '==',
  ne: '!=',
  thick: 'thick',
  hit: (flags) => `hit(out, n, k, ${flags});`,
  vtD2: (x) => ['', `pointTriangleAt(${asName(x)}, q3, a3, b3, c3)`],
  eeD2: (x) => ['', `segmentSegmentAt(${asName(x)}, a3, b3, c3, d3)`],
  eeS: 'segS',
  eeT: 'segT',
};

/** A statement and a value: `stmt` (if any) on its own line before `const name = value`. */
function take(D: [string, string], name: string, indent = '    '): string {
  return `${D[0] ? `${indent}${D[0]}\n` : ''}${indent}const ${name} = ${D[1]};`;
}

/** What differs between the vertex–triangle and the edge–edge scans of a pass (one column of KINDS). */
export interface Kind {
  /** The candidate array and its distance bounds (logical names), and the candidate's two ids. */
  cand: string;
  dist: string;
  ids: string[];
  /** The surface vertices read from an element array: (vertex, array, index). */
  reads: string[][];
  /** The four surface vertices, in the order of the tests. */
  four: string[];
  /** The pair's two surfaces (for reach and thickness): (array, id) twice. */
  pair: string[];
  /** The box test, the squared distance (a Dialect's), the continuous test and the side's signed distance. */
  box: string;
  d2: 'vtD2' | 'eeD2';
  ccd: string;
  side: string;
}

/** The two kinds side by side, [vertex–triangle, edge–edge]: a row a field of Kind. */
const KINDS: { [F in keyof Kind]: [Kind[F], Kind[F]] } = {
  cand: ['vt', 'ee'],
  dist: ['vtDist', 'eeDist'],
  ids: [
    ['q', 't'],
    ['e', 'f'],
  ],
  reads: [
    [
      ['a', 'tri', '3 * t'],
      ['b', 'tri', '3 * t + 1'],
      ['c', 'tri', '3 * t + 2'],
    ],
    [
      ['a', 'edge', '2 * e'],
      ['b', 'edge', '2 * e + 1'],
      ['c', 'edge', '2 * f'],
      ['d', 'edge', '2 * f + 1'],
    ],
  ],
  four: [
    ['q', 'a', 'b', 'c'],
    ['a', 'b', 'c', 'd'],
  ],
  pair: [
    ['vs', 'q', 'ts', 't'],
    ['es', 'e', 'es', 'f'],
  ],
  box: ['boxNearTriangle', 'edgeBoxesNear'],
  d2: ['vtD2', 'eeD2'],
  ccd: ['vertexTriangleCcd', 'edgeEdgeCcd'],
  side: ['planeDistance', 'lineDistance'],
};

const column = (j: 0 | 1) =>
  Object.fromEntries(Object.entries(KINDS).map(([f, v]) => [f, v[j]])) as unknown as Kind;
export const VT = column(0);
export const EE = column(1);

/** Candidate k's ids and surface vertices. */
function decode(D: Dialect, K: Kind): string {
  const [u, v] = K.ids;
  return `    const ${u} = ${D.i(K.cand, '2 * k')},
      ${v} = ${D.i(K.cand, '2 * k + 1')};
    const ${K.reads.map(([n, a, i]) => `${n} = ${D.i(a, i)}`).join(',\n      ')};`;
}

/** The pair's two surfaces, as reads. */
const pair = (D: Dialect, K: Kind): [string, string] => [
  D.i(K.pair[0], K.pair[1]),
  D.i(K.pair[2], K.pair[3]),
];

/** The motion bound mv of the pair: the vertex's and the triangle's largest, or each edge's largest. */
function motion(D: Dialect, K: Kind): string {
  const m = K.four.map((v) => D.f('motion', v));
  return K === VT
    ? `${m[0]} + ${D.max3(m[1], m[2], m[3])}`
    : `Math.max(${m[0]}, ${m[1]}) + Math.max(${m[2]}, ${m[3]})`;
}

/** The four vertices' coordinate offsets, q3, a3, b3, c3 (or a3 … d3). */
const at3 = (K: Kind) => K.four.map((v) => `${v}3`).join(', ');
/** The box test of the four vertices' swept boxes, grown by g. */
const box = (D: Dialect, K: Kind, g: string) =>
  `${K.box}(${D.name('sv')}, ${K.four.map((v) => `6 * ${v}`).join(', ')}, ${g})`;
/** The squared distance of the four vertices in array arr (a statement and a value). */
const d2 = (D: Dialect, K: Kind, arr: string) => D[K.d2](arr);
/** The continuous test x → p. */
const ccd = (D: Dialect, K: Kind) => `${K.ccd}(${D.name('x')}, ${D.name('p')}, ${at3(K)}, tol)`;
/** The side's signed distance in array arr. */
const side = (D: Dialect, K: Kind, arr: string) => `${K.side}(${D.name(arr)}, ${at3(K)})`;

/** `const q3 = 3 * <g(q)>, a3 = …` for the four vertices. */
function offsets(K: Kind, g: (v: string) => string): string {
  return `    const ${K.four.map((v) => `${v}3 = 3 * ${g(v)}`).join(',\n      ')};`;
}

/**
 * The loop of a scan: candidate k decoded, `body` (which `continue`s past a candidate that is no
 * contact and ends with tHit and the flags), then the side and the hit (k, flags | SIDE_NEG).
 */
function loop(D: Dialect, K: Kind, body: string, crossed: string, flags: string): string {
  return `  let n = 0;
  for (let k = k0; k < k1; k++) {
${decode(D, K)}
${body}
    const s = contactSide(${crossed}, ${side(D, K, 'x')}, ${side(D, K, 'p')});
    ${D.hit(`s < 0 ? ${flags} | SIDE_NEG : ${flags}`)}
    n++;
  }
  return n;
`;
}

/**
 * The filters of the proximity pass after the bound test (the boxes grown by the reach, the
 * labels of a tangled surface, the masses), then the distance at x, which becomes the bound.
 */
function proximityFilters(D: Dialect, K: Kind): string {
  const { eq } = D;
  const l0 = D.i('label', K.four[0]);
  const same = K.four
    .slice(1)
    .map((v) => `${l0} ${eq} ${D.i('label', v)}`)
    .join(' && ');
  return `    if (!${box(D, K, 'reach')}) continue;
    if (tangled && !(${same})) continue;
    const ${K.four.map((v) => `g${v} = ${D.i('vert', v)}`).join(',\n      ')};
    if (${K.four.map((v) => `${D.f('w', `g${v}`)} ${eq} 0`).join(' && ')}) continue;
    // the distance at x less the motion of the pair bounds the distance during the substep
${offsets(K, (v) => `g${v}`)}
${take(d2(D, K, 'x'), 'dX2')}
    const dX = Math.sqrt(dX2);
    ${D.set(K.dist, 'k', 'dX')}
    const h = pairThickness(${D.thick}, ${pair(D, K).join(', ')});`;
}

/** The proximity pass over vertex–triangle candidates (mode 0 of VertexTriangleContacts.test). */
function scanVtBody(D: Dialect): string {
  const K = VT;
  return loop(
    D,
    K,
    `    // a lower bound of the distance at x, carried over from earlier substeps
    const mv = ${motion(D, K)};
    const lb = ${D.f(K.dist, 'k')};
    const reach = ${pair(D, K)
      .map((s) => D.f('hr', s))
      .join(' + ')};
    if (lb >= 0 && lb - mv > reach) continue;
${proximityFilters(D, K)}
    if (dX - mv > h * (1 + mf)) continue;
    // mode 0: proximity at p, and a crossing during x → p where the pair can touch at all
    let flags = 0;
${take(d2(D, K, 'p'), 'dP2')}
    const r = h * (1 + mf);
    if (dP2 < r * r) flags |= FLAG_PROXIMITY;
    const tHit = dX <= mv + tol ? ${ccd(D, K)} : -1;
    if (tHit >= 0) flags |= FLAG_CCD;
    if (flags ${D.eq} 0) continue;
    // the side the vertex came from: before the first crossing, or where it is now`,
    'tHit >= 0',
    'flags',
  );
}

/** Proximity (between two sharp edges) at p and crossings during x → p (EdgeEdgeContacts.detect and its test). */
function scanEeBody(D: Dialect): string {
  const K = EE;
  const { eq, ne } = D;
  return loop(
    D,
    K,
    `    const mv = ${motion(D, K)};
    const lb = ${D.f(K.dist, 'k')};
    // proximity contacts only between two sharp (creased or boundary) edges; crossings for every pair
    const sh = ${D.b('sharpE', 'e')} ${ne} 0 && ${D.b('sharpE', 'f')} ${ne} 0;
    const reach = ${pair(D, K)
      .map((s) => D.f('hr', s))
      .join(' + ')};
    if (lb >= 0 && lb - mv > (sh ? reach : tol)) continue;
${proximityFilters(D, K)}
    let mode = 1,
      mayCross = true;
    if (!sh) {
      if (dX > mv + tol) continue;
    } else {
      if (dX - mv > h * (1 + mf)) continue;
      mode = 0;
      mayCross = dX <= mv + tol;
    }
    let flags = 0;
    if (mode ${eq} 0) {
${take(d2(D, K, 'p'), 'dP2', '      ')}
      const r = h * (1 + mf);
      // closest points strictly inside both edges: end points are vertex–triangle business
      if (dP2 < r * r && ${D.eeS} > 0 && ${D.eeS} < 1 && ${D.eeT} > 0 && ${D.eeT} < 1) flags |= FLAG_PROXIMITY;
    }
    let tHit = mayCross ? ${ccd(D, K)} : -1;
    // crossings only (mode 1): a pair that already touches at x has no side to keep and is no crossing
    if (tHit ${eq} 0 && mode ${eq} 1) tHit = -1;
    if (tHit >= 0) flags |= FLAG_CCD;
    if (flags ${eq} 0) continue;`,
    'tHit >= 0',
    'flags',
  );
}

/**
 * The fail-safe's crossing test x → p over the candidates of one kind (with rescan, only those
 * with a vertex in recheck): the distance bounds drop by the motion of the substep, and a pair
 * that can cross is tested continuously (a pair already touching at x is no crossing).
 */
function crossBody(D: Dialect, K: Kind): string {
  const { eq, ne } = D;
  const any = (read: (v: string) => string, op: string, join: string) =>
    K.four.map((v) => `${read(v)}${op}`).join(join);
  return loop(
    D,
    K,
    `    if (rescan && (${any((v) => D.b('recheck', v), '', ' | ')}) ${eq} 0) continue;
    const mv = ${motion(D, K)};
    // x moves to p at the end of the substep: the bound drops by the motion of the pair
    const lb = ${D.f(K.dist, 'k')};
    if (lb >= 0) {
      const next = lb - mv;
      ${D.set(K.dist, 'k', 'next > 0 ? next : -1')}
      if (next > tol) continue;
    }
    if (!${box(D, K, '0')}) continue;
    if (tangled && (${any((v) => D.i('label', v), ` ${ne} 0`, ' || ')})) continue;
${offsets(K, (v) => D.i('vert', v))}
    // a pair farther apart at x than it moves cannot cross (lb ≤ mv + tol here, or unknown)
    let dX = lb;
    if (dX < 0) {
${take(d2(D, K, 'x'), 'dX2', '      ')}
      dX = Math.sqrt(dX2);
      const next = dX - mv;
      ${D.set(K.dist, 'k', 'next > 0 ? next : -1')}
    }
    if (dX > mv + tol) continue;
    const tHit = ${ccd(D, K)};
    if (!(tHit > 0)) continue;`,
    'true',
    'FLAG_CCD',
  );
}

/** The TypeScript prologue of a scan: the arrays it reads, out of A. */
function tsPrologue(K: Kind | null, cross: boolean): string {
  const arrays =
    K === VT
      ? cross
        ? 'const { tri, vertex: vert, label, x, p, sv, motion, vtCand: vt, vtDist, recheck } = A;'
        : `const { tri, vertex: vert, vertexSurface: vs, triSurface: ts, halfReach: hr, label, invMass: w } = A;
  const { x, p, sv, motion, vtCand: vt, vtDist } = A;`
      : cross
        ? 'const { edge, vertex: vert, label, x, p, sv, motion, eeCand: ee, eeDist, recheck } = A;'
        : `const { edge, vertex: vert, edgeSurface: es, halfReach: hr, label, invMass: w, sharp: sharpE } = A;
  const { x, p, sv, motion, eeCand: ee, eeDist } = A;`;
  return `  ${arrays}
${cross ? '' : '  const mf = A.scalars[N_MARGIN];\n'}  const tol = 1e-9 * A.scalars[N_MEAN_EDGE];
  const tangled = A.scalars[N_TANGLED] !== 0;
${cross ? '  const rescan = A.scalars[N_RESCAN] !== 0;\n' : ''}`;
}

/** src/collision/surface-narrow-scans.generated.ts. */
export function emitNarrowScansTs(banner: string): string {
  const D = TS_DIALECT;
  const sig = '(A: NarrowArrays, k0: number, k1: number, hits: Int32Array): number';
  return `${banner}
// The four narrow scans of src/collision/surface-narrow-scan.ts, written once with their
// AssemblyScript twins (wasm/narrow-scans.generated.ts) in scripts/kernels/emit-narrow-scans.ts.
import { closestPointTriangleAt, closestSegmentSegmentAt, edgeEdgeCcd, vertexTriangleCcd } from './geometry.js';
import { contactSide, FLAG_CCD, FLAG_PROXIMITY } from './surface-contact-list.js';
import {
  boxNearTriangle,
  edgeBoxesNear,
  lineDistance,
  N_MARGIN,
  N_MEAN_EDGE,
  N_RESCAN,
  N_TANGLED,
  type NarrowArrays,
  pairThickness,
  planeDistance,
  SIDE_NEG,
} from './surface-narrow-scan.js';

const cp = new Float64Array(7);
const ss = new Float64Array(3);

/**
 * Vertex–triangle candidates [k0, k1): the distance-bound, box, label and mass filters of the
 * proximity pass, then proximity at p and the continuous test x → p (mode 0 of
 * VertexTriangleContacts.test). Returns the number of hits written from hits[2 k0].
 */
export function scanVertexTriangles${sig} {
${tsPrologue(VT, false)}${scanVtBody(D)}}

/**
 * Edge–edge candidates [k0, k1): proximity (between two sharp edges) at p and crossings during
 * x → p (EdgeEdgeContacts.detect and its test). Returns the number of hits written from hits[2 k0].
 */
export function scanEdgeEdges${sig} {
${tsPrologue(EE, false)}${scanEeBody(D)}}

/**
 * The fail-safe's crossing test x → p over vertex–triangle candidates [k0, k1) (with rescan, only
 * those with a vertex in \`recheck\`): the distance bounds drop by the motion of the substep, and a
 * pair that can cross is tested continuously (a pair already touching at x is no crossing).
 * Labelled (tangled) vertices are left to the untangling. Returns the number of crossings written
 * from hits[2 k0].
 */
export function scanVertexTriangleCrossings${sig} {
${tsPrologue(VT, true)}${crossBody(D, VT)}}

/** The same for edge–edge candidates [k0, k1). */
export function scanEdgeEdgeCrossings${sig} {
${tsPrologue(EE, true)}${crossBody(D, EE)}}
`;
}

/** wasm/narrow-scans.generated.ts. */
export function emitNarrowScansAs(banner: string): string {
  const D = AS_DIALECT;
  const head = (hits: string) => `(table: usize, k0: i32, k1: i32): i32 {
  bind(table);
  const out = ${hits} + ((<usize>k0) << 3);
  const tol = 1e-9 * meanEdge;
`;
  return `${banner}
// The four narrow scans of src/collision/surface-narrow-scan.ts in AssemblyScript, written once
// with their TypeScript in scripts/kernels/emit-narrow-scans.ts: the same filters in the same
// order and the same floating-point operations.
import { edgeEdgeCcd, vertexTriangleCcd } from './ccd.generated';
import { segS, segT } from './closest';
import {
  B, bind, boxNearTriangle, contactSide, edgeBoxesNear, F, FLAG_CCD, FLAG_PROXIMITY, hit, I, lineDistance,
  max3, pairThickness, planeDistance, pointTriangleAt, segmentSegmentAt, SF, SIDE_NEG,
  edge, eec, eed, es, hr, label, meanEdge, mf, motion, P, recheck, rescan, sharp, sv, tangled, thick, tri,
  ts, vertex, vs, vtc, vtd, w, X, eeHits, vtHits,
} from './narrow';

/**
 * scanVertexTriangles over candidates [k0, k1): hits (k, flags | SIDE_NEG) from the table's
 * vertex–triangle hits + 8 k0, distance bounds lowered in place; returns the number of hits.
 */
export function scanVt${head('vtHits')}${scanVtBody(D)}}

/** scanEdgeEdges over candidates [k0, k1), the same way. */
export function scanEe${head('eeHits')}${scanEeBody(D)}}

/** scanVertexTriangleCrossings over candidates [k0, k1). */
export function crossVt${head('vtHits')}${crossBody(D, VT)}}

/** scanEdgeEdgeCrossings over candidates [k0, k1). */
export function crossEe${head('eeHits')}${crossBody(D, EE)}}
`;
}
