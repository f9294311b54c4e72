/**
 * The rigid narrow phase's edge × edge separating axes, written once here and printed per shape pair
 * into src/rigid/separating-axes.generated.ts:
 *
 * - `boxEdgeAxes`: box against box, the 9 cross products a_i × b_j of the boxes' axes (Gottschalk,
 *   Lin and Manocha 1996, §4 and Table 1), each box's extent along the axis its half extents times
 *   |a_k · l| (collide-box.ts);
 * - `polyhedraEdgeAxes`: convex polyhedron against convex polyhedron, the cross products of the edge
 *   pairs whose Gauss-map arcs cross (Gregorius, "The Separating Axis Test between Convex
 *   Polyhedra", GDC 2013: the only edge pairs that form a face of the Minkowski difference), the
 *   separation measured from A's edge to B's (collide-convex.ts).
 *
 * The loop (`edgeAxisLoop`) is the same for both: over A's edges and B's edges, the axis l = u × v
 * with the parallel-edge guard, normalised, the separation s along it, an early return when s
 * exceeds the margin (a separating axis: no contact), and the best-axis bookkeeping (the largest s,
 * its two edges and its axis). What varies is the shape's part (`EdgeShape`): where an edge's
 * direction comes from, the pruning, the guard's tolerance, the orientation and the separation.
 * Each shape's part is the code written by hand before (session 18), with the same operations in
 * the same order, so every scene keeps its bits.
 *
 * A function returns the best separation (−∞ when no pair passed; above `margin` when an axis
 * separates, then nothing else is written) and writes the best axis to out[0 … 4]: its edge of A,
 * its edge of B, and l (x, y, z).
 */

/** One shape pair's part of the edge × edge loop: statements printed into edgeAxisLoop. */
interface EdgeShape {
  /** The function's doc comment and signature. */
  head: string;
  /** How many edges A and B have (expressions). */
  countA: string;
  countB: string;
  /** A's edge i (direction u) and B's edge j (direction v): declarations. */
  edgeA: string;
  edgeB: string;
  /** Before the cross product: statements that `continue` (the Gauss-map test of the arcs' planes). */
  prune: string;
  /** After the cross product (nx, ny, nz: u × v, not normalised): statements that `continue`. */
  pruneAxis: string;
  /** The parallel-edge guard: the condition on len = |u × v| under which the pair is skipped. */
  parallel: string;
  /** After the normalisation: statements that may flip l (nx, ny, nz). */
  orient: string;
  /** The separation along l: statements that declare `s`. */
  separation: string;
}

const XYZ = ['x', 'y', 'z'];

/** `const ux = V[a1] - V[a0], …`: an edge's direction from its two vertices (indices e0, e1 into V). */
const edgeOf = (P: string, V: string, e: string, k: string, u: string): string =>
  [
    `const ${e}0 = 3 * ${P}.edges[2 * ${k}],`,
    `  ${e}1 = 3 * ${P}.edges[2 * ${k} + 1];`,
    `const ${XYZ.map((c, i) => `${u}${c} = ${V}[${e}1${i ? ` + ${i}` : ''}] - ${V}[${e}0${i ? ` + ${i}` : ''}]`).join(', ')};`,
    `const f${e}0 = 3 * ${P}.edgeFaces[2 * ${k}],`,
    `  f${e}1 = 3 * ${P}.edgeFaces[2 * ${k} + 1];`,
  ].join('\n');

/** `const ux = R[k], uy = R[3 + k], uz = R[6 + k];`: a box's axis k (a column of its row-major R). */
const axisOf = (R: string, k: string, u: string): string =>
  `const ${XYZ.map((c, i) => `${u}${c} = ${R}[${i ? `${3 * i} + ` : ''}${k}]`).join(', ')};`;

/**
 * The best-axis bookkeeping: each local, what it takes from the best pair so far, and its start
 * (the separation, A's edge, B's edge, the axis); all but the first are written to out[0 …].
 */
const BEST: [string, string, string][] = [
  ['best', 's', '-Infinity'],
  ['ei', 'i', '-1'],
  ['ej', 'j', '-1'],
  ...XYZ.map((c): [string, string, string] => [`l${c}`, `n${c}`, '0']),
];

/** The loop over the edge pairs, with one shape pair's part (see EdgeShape). */
function edgeAxisLoop(s: EdgeShape): string {
  // a shape's empty parts leave no blank line
  return `${s.head} {
  let ${BEST.map(([k, , v0]) => `${k} = ${v0}`).join(', ')};
  for (let i = 0; i < ${s.countA}; i++) {
    ${s.edgeA}
    for (let j = 0; j < ${s.countB}; j++) {
      ${s.edgeB}
      ${s.prune}
      let nx = uy * vz - uz * vy,
        ny = uz * vx - ux * vz,
        nz = ux * vy - uy * vx;
      ${s.pruneAxis}
      const len = Math.sqrt(nx * nx + ny * ny + nz * nz);
      if (${s.parallel}) continue;
      nx /= len;
      ny /= len;
      nz /= len;
      ${s.orient}
      ${s.separation}
      // a separating axis: no contact
      if (s > margin) return s;
      if (s > best) {
        ${BEST.map(([k, v]) => `${k} = ${v};`).join('\n')}
      }
    }
  }
  ${BEST.slice(1)
    .map(([k], o) => `out[${o}] = ${k};`)
    .join('\n')}
  return best;
}`.replace(/\n[ \t]*(?=\n)/g, '');
}

const BOX: EdgeShape = {
  head: `/**
 * Box A (rotation RA, row-major: its axes are the columns; half extents hA) against box B, the
 * centres d = x_B − x_A apart: the 9 edge axes a_i × b_j (Gottschalk et al. 1996, Table 1), those
 * of nearly parallel axes skipped; the separation |l·d| − r_A − r_B, r = Σ_k h_k |a_k·l|.
 */
export function boxEdgeAxes(
  RA: Float64Array,
  hA: Float64Array,
  RB: Float64Array,
  hB: Float64Array,
  dx: number,
  dy: number,
  dz: number,
  margin: number,
  out: Float64Array,
): number`,
  countA: '3',
  countB: '3',
  edgeA: axisOf('RA', 'i', 'u'),
  edgeB: axisOf('RB', 'j', 'v'),
  prune: '',
  pruneAxis: '',
  parallel: 'len < 1e-6',
  orient: '',
  separation: `let ra = 0,
        rb = 0;
      for (let k = 0; k < 3; k++) {
        ra += hA[k] * Math.abs(RA[k] * nx + RA[3 + k] * ny + RA[6 + k] * nz);
        rb += hB[k] * Math.abs(RB[k] * nx + RB[3 + k] * ny + RB[6 + k] * nz);
      }
      const s = Math.abs(nx * dx + ny * dy + nz * dz) - ra - rb;`,
};

const POLYHEDRA: EdgeShape = {
  head: `/**
 * Polyhedron A (pa at its pose: world vertices AV, face normals AN, its edges' Gauss-map arc
 * midpoints AM, centroid AC) against B (B's arcs negated: the Minkowski difference A − B): the edge
 * pairs whose arcs cross (Gregorius 2013), the axis l = u × v outward at A's edge, the separation
 * l·(b_0 − a_0).
 */
export function polyhedraEdgeAxes(
  pa: ConvexPolyhedron,
  AV: Float64Array,
  AN: Float64Array,
  AM: Float64Array,
  AC: Float64Array,
  pb: ConvexPolyhedron,
  BV: Float64Array,
  BN: Float64Array,
  BM: Float64Array,
  margin: number,
  out: Float64Array,
): number`,
  countA: 'pa.edgeCount',
  countB: 'pb.edgeCount',
  edgeA: edgeOf('pa', 'AV', 'a', 'i', 'u'),
  edgeB: edgeOf('pb', 'BV', 'b', 'j', 'v'),
  prune: `// c, d = −(B's normals): on opposite sides of A's arc plane (⟂ u)?
      const cu = -(BN[fb0] * ux + BN[fb0 + 1] * uy + BN[fb0 + 2] * uz);
      const du = -(BN[fb1] * ux + BN[fb1 + 1] * uy + BN[fb1 + 2] * uz);
      if (cu * du >= 0) continue;
      const av = AN[fa0] * vx + AN[fa0 + 1] * vy + AN[fa0 + 2] * vz;
      const bv = AN[fa1] * vx + AN[fa1 + 1] * vy + AN[fa1 + 2] * vz;
      if (av * bv >= 0) continue;`,
  pruneAxis: `// the crossing point ±(u × v) must lie on both arcs (same side as both midpoints)
      const ma = nx * AM[3 * i] + ny * AM[3 * i + 1] + nz * AM[3 * i + 2];
      const mb = -(nx * BM[3 * j] + ny * BM[3 * j + 1] + nz * BM[3 * j + 2]);
      if (ma * mb <= 0) continue;`,
  parallel: 'len < 1e-9 * Math.sqrt((ux * ux + uy * uy + uz * uz) * (vx * vx + vy * vy + vz * vz))',
  orient: `// outward at A's edge
      if (nx * (AV[a0] - AC[0]) + ny * (AV[a0 + 1] - AC[1]) + nz * (AV[a0 + 2] - AC[2]) < 0) {
        nx = -nx;
        ny = -ny;
        nz = -nz;
      }`,
  separation:
    'const s = nx * (BV[b0] - AV[a0]) + ny * (BV[b0 + 1] - AV[a0 + 1]) + nz * (BV[b0 + 2] - AV[a0 + 2]);',
};

/** The module src/rigid/separating-axes.generated.ts (before formatting). */
export function emitSeparatingAxes(banner: string): string {
  return `${banner}
// The rigid narrow phase's edge × edge separating axes, one loop printed per shape pair
// (scripts/kernels/emit-separating-axes.ts says what is shared and what each pair adds).
import type { ConvexPolyhedron } from './polyhedron.js';

${edgeAxisLoop(BOX)}

${edgeAxisLoop(POLYHEDRA)}
`;
}
