/**
 * The candidate tests of the surface broad phase (003 §4.3: a vertex–triangle or edge–edge pair is
 * a candidate when its snapshots lie within the pair's thickness plus reach of each other), written
 * once and emitted twice (issue 14):
 *
 * - TypeScript into src/collision/surface-broad-candidates.generated.ts (vtCandidate, eeCandidate
 *   over CandidateArrays), which src/collision/surface-broad-pairs.ts calls from
 *   collectTrianglePair and SurfaceBroadPhase from its vertex pass;
 * - AssemblyScript into wasm/broad-candidates.generated.ts (vtCandidate, eeCandidate over the
 *   address table of wasm/broad-table.generated.ts), which wasm/surfaces.ts calls from
 *   collectPairRange.
 *
 * One template per test; a `Dialect` says how a language reads an array, spells the scalars, the
 * comparisons and the exact distance, and how it answers. Both get the same filters in the same
 * order and the same floating-point operations, hence the same candidates entry for entry
 * (test/surface-broad-wasm). What only the TypeScript has: the shared-corner tests (`guards`; the
 * module's callers test that before the call), and a boolean answer where the module's
 * vertex–triangle test answers −1 for a degenerate triangle (its caller then runs the JavaScript).
 */

/** How a language reads arrays, names the scalars and answers. */
interface Dialect {
  /** i32, f64 and u8 reads of array `a` (BroadArrays' name) at index i. */
  i: (a: string, i: string) => string;
  f: (a: string, i: string) => string;
  b: (a: string, i: string) => string;
  eq: string;
  ne: string;
  /** The surface count, the reach margin factor and the mean edge length. */
  surfaces: string;
  margin: string;
  meanEdge: string;
  /** The pair's thickness of surfaces (x, y). */
  thick: (x: string, y: string) => string;
  max2: (a: string, b: string) => string;
  max3: (a: string, b: string, c: string) => string;
  /** The function's head (name and ids), and its answers no and yes-or-no of a comparison. */
  head: (name: string, u: string, v: string, vt: boolean) => string;
  no: (vt: boolean) => string;
  /**
   * Field k of item `x`'s entry of per-item array `a` (tri, triSurface, tSphere, edge, edgeSurface,
   * eHalf): TypeScript reads the array; the module reads the item's record (wasm/surfaces.ts, at
   * R + the item's name), where the same numbers are copied.
   */
  item: (a: RecordField, x: string, k: number) => string;
  /** Emit the shared-corner tests (the module's callers make them). */
  guards: boolean;
  /** Statements ending the vertex–triangle test at q3; a3, b3, c3 within lim. */
  vtTail: string;
  /** Statements ending the edge–edge test at a3, b3; c3, d3 within lim. */
  eeTail: string;
}

/**
 * The record of a triangle and of the edges it owns in the module (wasm/surfaces.ts packRecords):
 * per field its byte offset in the triangle's record (tri … tSphere) or in the edge's entry (edge …
 * eHalf), its type, and the array's entries per item. The record's box is at 0, its vertex and edge
 * entries' boxes too.
 */
const RECORD = {
  tri: [48, 'i32', 3],
  triSurface: [68, 'i32', 1],
  tSphere: [72, 'f64', 4],
  edge: [52, 'i32', 2],
  edgeSurface: [60, 'i32', 1],
  eHalf: [64, 'f64', 1],
} as const;
type RecordField = keyof typeof RECORD;

/** The record's layout as AssemblyScript constants (bytes): the counts, the header, a vertex's and an edge's entry. */
const RECORD_LAYOUT = `export const R_NV = 60,
  R_NE = 64,
  R_HEAD = 104,
  R_V = 56,
  R_E = 72;
${Object.entries(RECORD)
  .map(([a, [o]]) => `export const R_${a.toUpperCase()} = ${o};`)
  .join('\n')}`;

const TS: Dialect = {
  i: (a, i) => `A.${a}[${i}]`,
  f: (a, i) => `A.${a}[${i}]`,
  b: (a, i) => `A.${a}[${i}]`,
  eq: '===',
  ne: '!==',
  surfaces: '(A.scalars[B_SURFACES] | 0)',
  margin: 'A.scalars[B_MARGIN]',
  meanEdge: 'A.scalars[B_MEAN_EDGE]',
  thick: (x, y) => `pairThickness(A, ${x}, ${y})`,
  item: (a, x, k) => {
    const n = RECORD[a][2];
    return `A.${a}[${n > 1 ? `${n} * ${x}` : x}${k ? ` + ${k}` : ''}]`;
  },
  max2: (a, b) => `Math.max(${a}, ${b})`,
  max3: (a, b, c) => `Math.max(${a}, ${b}, ${c})`,
  head: (name, u, v) => `export function ${name}(A: CandidateArrays, ${u}: number, ${v}: number): boolean`,
  no: () => 'false',
  guards: true,
  vtTail: `  closestPointTriangleAt(A.snap, q3, A.snap, a3, b3, c3, cp);
  return cp[6] <= lim * lim;`,
  eeTail: `  closestSegmentSegmentAt(A.snap, a3, b3, A.snap, c3, d3, ss);
  return ss[2] <= lim * lim;`,
};

const AS: Dialect = {
  i: (a, i) => `I(${a}, ${i})`,
  f: (a, i) => `F(${a}, ${i})`,
  b: (a, i) => `B(${a}, ${i})`,
  eq: '==',
  ne: '!=',
  surfaces: 'surfaces',
  margin: 'margin',
  meanEdge: 'meanEdge',
  thick: (x, y) => `pairThickness(${x}, ${y})`,
  item: (a, x, k) => {
    const [o, type] = RECORD[a];
    const at = o + (type === 'f64' ? 8 : 4) * k;
    return `load<${type}>(R${x}, ${at})`;
  },
  max2: (a, b) => `Math.max(${a}, ${b})`,
  max3: (a, b, c) => `Math.max(Math.max(${a}, ${b}), ${c})`,
  head: (name, u, v, vt) =>
    `export function ${name}(${u}: i32, ${v}: i32, ${vt ? `R${v}: usize` : `R${u}: usize, R${v}: usize`}): ${vt ? 'i32' : 'bool'}`,
  no: (vt) => (vt ? '0' : 'false'),
  guards: false,
  vtTail: `  const d2 = pointTriangle2(q3, a3, b3, c3);
  if (d2 < 0) return -1;
  return d2 <= lim * lim ? 1 : 0;`,
  eeTail: '  return segmentSegment2(a3, b3, c3, d3) <= lim * lim;',
};

/** The pair filters both tests share: the surfaces collide, and the groups and masks let the two particles meet. */
function filters(D: Dialect, vt: boolean, [su, sv]: string[], [gu, gv]: string[]): string {
  const no = D.no(vt);
  return `  if (${D.b('pairOn', `${su} * ${D.surfaces} + ${sv}`)} ${D.ne} 1) return ${no};
  const ${gu} = ${D.i('vertex', gu.slice(1))},
    ${gv} = ${D.i('vertex', gv.slice(1))};
  if ((${D.i('mask', gu)} & ${D.i('group', gv)}) ${D.eq} 0 || (${D.i('mask', gv)} & ${D.i('group', gu)}) ${D.eq} 0) return ${no};`;
}

/** Can vertex q and triangle t be in contact before their snapshots go stale? (surface-vertex ids) */
function vtCandidate(D: Dialect): string {
  const d = (v: string) => D.f('delta', v);
  return `/** Can vertex q and triangle t be in contact before their snapshots go stale? (surface-vertex ids)${D.guards ? '' : ' After the corner test: 1 a candidate, 0 not, −1 a degenerate triangle.'} */
${D.head('vtCandidate', 'q', 't', true)} {
  const a = ${D.item('tri', 't', 0)},
    b = ${D.item('tri', 't', 1)},
    c = ${D.item('tri', 't', 2)};
${D.guards ? `  if (q ${D.eq} a || q ${D.eq} b || q ${D.eq} c) return false;\n` : ''}  const sQ = ${D.i('vertexSurface', 'q')},
    sT = ${D.item('triSurface', 't', 0)};
${filters(D, true, ['sQ', 'sT'], ['gq', 'ga'])}
  const lim =
    ${D.thick('sQ', 'sT')} * (1 + ${D.margin}) + ${d('q')} + ${D.max3(d('a'), d('b'), d('c'))};
  const q3 = 3 * q,
    a3 = 3 * a,
    b3 = 3 * b,
    c3 = 3 * c;
  // the triangle lies within its bounding sphere: |q − centre| − radius bounds the distance from below
  // (the relative 1e-9 keeps round-off from rejecting a pair the exact test would accept)
  const sx = ${D.f('snap', 'q3')} - ${D.item('tSphere', 't', 0)},
    sy = ${D.f('snap', 'q3 + 1')} - ${D.item('tSphere', 't', 1)},
    sz = ${D.f('snap', 'q3 + 2')} - ${D.item('tSphere', 't', 2)};
  const far = (${D.item('tSphere', 't', 3)} + lim) * (1 + 1e-9);
  if (sx * sx + sy * sy + sz * sz > far * far) return ${D.no(true)};
${D.vtTail}
}
`;
}

/** Can edges e and f be in contact (two sharp edges within reach) or cross (any other pair)? */
function eeCandidate(D: Dialect): string {
  const d = (v: string) => D.f('delta', v);
  const s = (i: string) => D.f('snap', i);
  const half = (k: number) => {
    const o = k ? ` + ${k}` : '';
    return `0.5 * (${s(`c3${o}`)} + ${s(`d3${o}`)} - ${s(`a3${o}`)} - ${s(`b3${o}`)})`;
  };
  return `/** Can edges e and f be in contact (two sharp edges within reach) or cross (any other pair)?${D.guards ? '' : ' (after the shared-vertex test)'} */
${D.head('eeCandidate', 'e', 'f', false)} {
  const a = ${D.item('edge', 'e', 0)},
    b = ${D.item('edge', 'e', 1)},
    c = ${D.item('edge', 'f', 0)},
    d = ${D.item('edge', 'f', 1)};
${D.guards ? `  if (c ${D.eq} a || c ${D.eq} b || d ${D.eq} a || d ${D.eq} b) return false;\n` : ''}  const sE = ${D.item('edgeSurface', 'e', 0)},
    sF = ${D.item('edgeSurface', 'f', 0)};
${filters(D, false, ['sE', 'sF'], ['ga', 'gc'])}
  // two sharp edges can be in contact (within reach); other pairs matter only if they can cross
  const sh = ${D.b('sharp', 'e')} ${D.ne} 0 && ${D.b('sharp', 'f')} ${D.ne} 0;
  const lim =
    (sh ? ${D.thick('sE', 'sF')} * (1 + ${D.margin}) : 1e-9 * ${D.meanEdge}) +
    ${D.max2(d('a'), d('b'))} +
    ${D.max2(d('c'), d('d'))};
  const a3 = 3 * a,
    b3 = 3 * b,
    c3 = 3 * c,
    d3 = 3 * d;
  // bounding spheres first: the centres' distance less both half-lengths bounds the edges' distance
  const ux = ${half(0)},
    uy = ${half(1)},
    uz = ${half(2)};
  const rr = ${D.item('eHalf', 'e', 0)} + ${D.item('eHalf', 'f', 0)} + lim;
  if (ux * ux + uy * uy + uz * uz > rr * rr) return false;
${D.eeTail}
}
`;
}

/** The thickness of a pair of surfaces (SurfaceTopology.pairThickness). */
function pairThickness(D: Dialect): string {
  const t = (x: string) => D.f('thickness', x);
  const head =
    D === TS
      ? 'function pairThickness(A: CandidateArrays, a: number, b: number): number'
      : 'function pairThickness(a: i32, b: i32): f64';
  return `/** The thickness of a pair of surfaces (SurfaceTopology.pairThickness). */
${head} {
  return a ${D.eq} b ? ${t('a')} : 0.5 * (${t('a')} + ${t('b')});
}
`;
}

/** src/collision/surface-broad-candidates.generated.ts. */
export function emitBroadCandidatesTs(banner: string): string {
  return `${banner}
// The candidate tests of src/collision/surface-broad-pairs.ts, written once with their
// AssemblyScript twins (wasm/broad-candidates.generated.ts) in scripts/kernels/emit-broad-candidates.ts.
import { closestPointTriangleAt, closestSegmentSegmentAt } from './geometry.js';
import type { TopologyArrays } from './surface-topology.js';

/** What the candidate tests read: the part of surface-broad-pairs.ts BroadArrays they take (its doc names each array). */
export type CandidateArrays = TopologyArrays &
  Record<'pairOn' | 'sharp', Uint8Array> &
  Record<'scalars' | 'snap' | 'delta' | 'tSphere' | 'eHalf', Float64Array> &
  Record<'group' | 'mask', Int32Array>;

/** Slots of CandidateArrays.scalars (BroadArrays.scalars). */
export const B_SURFACES = 0;
export const B_MARGIN = 1;
export const B_MEAN_EDGE = 2;

const cp = new Float64Array(7);
const ss = new Float64Array(3);

${pairThickness(TS)}
${vtCandidate(TS)}
${eeCandidate(TS)}`;
}

/** wasm/broad-candidates.generated.ts. */
export function emitBroadCandidatesAs(banner: string): string {
  return `${banner}
// The candidate tests of wasm/surfaces.ts, written once with their TypeScript twins
// (src/collision/surface-broad-candidates.generated.ts) in scripts/kernels/emit-broad-candidates.ts.
import { closestPointTriangle2, closestSegmentSegment2 } from './closest';
import { delta, group, mask, pairOn, sharp, snap, thickness, vertex, vertexSurface } from './broad-table.generated';
import { B, F, I } from './broad-memory';

/** The layout of a triangle's record (wasm/surfaces.ts packRecords), in bytes. */
${RECORD_LAYOUT}

let surfaces: i32 = 1;
let margin: f64 = 0,
  meanEdge: f64 = 0;

/** The surface count, the reach margin factor and the mean edge length (BroadArrays.scalars). */
export function setCandidateScalars(s: i32, m: f64, me: f64): void {
  surfaces = s;
  margin = m;
  meanEdge = me;
}

/** closestPointTriangleAt's squared distance from snap[q3 …] to the triangle at a3, b3, c3; −1 for a degenerate triangle. */
function pointTriangle2(q3: i32, a3: i32, b3: i32, c3: i32): f64 {
  return closestPointTriangle2(
    F(snap, q3), F(snap, q3 + 1), F(snap, q3 + 2), F(snap, a3), F(snap, a3 + 1), F(snap, a3 + 2),
    F(snap, b3), F(snap, b3 + 1), F(snap, b3 + 2), F(snap, c3), F(snap, c3 + 1), F(snap, c3 + 2),
  );
}

/** closestSegmentSegmentAt's squared distance between the segments snap[i1 …]–snap[j1 …] and snap[i2 …]–snap[j2 …]. */
function segmentSegment2(i1: i32, j1: i32, i2: i32, j2: i32): f64 {
  return closestSegmentSegment2(
    F(snap, i1), F(snap, i1 + 1), F(snap, i1 + 2), F(snap, j1), F(snap, j1 + 1), F(snap, j1 + 2),
    F(snap, i2), F(snap, i2 + 1), F(snap, i2 + 2), F(snap, j2), F(snap, j2 + 1), F(snap, j2 + 2),
  );
}

${pairThickness(AS)}
${vtCandidate(AS)}
${eeCandidate(AS)}`;
}
