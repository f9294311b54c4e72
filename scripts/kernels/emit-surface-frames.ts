/**
 * The per-contact formulas of the surface contacts (003 §4.3, eqs. 12–13), written once for the
 * vertex–triangle and the edge–edge kind (issue 14) and printed as TypeScript into
 * src/collision/surface-frames.generated.ts, which surface-vertex-triangle.ts and
 * surface-edge-edge.ts re-export:
 *
 * - the frame of a contact (frameVT, frameEE): the unit normal n̂ of its plane or of its two lines,
 *   the gradient weights c0 … c3 (∇_j C = s c_j n̂) and the signed distance d, which the response
 *   (surface-response.ts) projects with;
 * - the pushing of the narrow scans' hits into the contact list (addVertexTriangleHits,
 *   addEdgeEdgeHits): the side, the pair's thickness, mean friction and larger restitution, the
 *   fail-safe's crossed vertices and the normal velocity at the start of the substep
 *   (restitution).
 *
 * The two kinds share one skeleton; a `Frame` says how a kind loads its corners, when it is
 * degenerate and what its gradient weights are, and the candidate decoding is the narrow scans'
 * own (emit-narrow-scans.ts's KINDS). The printed code is the hand-written code it replaced,
 * token for token apart from the names of a few locals: the same floating-point operations in the
 * same order, hence the same bits (every scene's checksum).
 */
import { dot } from './emit-closest.js';
import { EE, type Kind, VT } from './emit-narrow-scans.js';

/** What a kind's frame adds to its candidates' decoding (Kind). */
interface Frame {
  /** The suffix of the functions' names (frameVT …), the list's type constant, the name of the hits' function. */
  tag: string;
  type: string;
  add: string;
  /** Its candidates, as the narrow scans decode them. */
  kind: Kind;
  /** The frame's doc comment; the scan whose hits the hits' function pushes. */
  doc: string;
  hitsDoc: string;
  /** The corners loaded from p: (name, the contact's vertex slot, the point it is taken from or none). */
  corners: [string, string, string | null][];
  /** Statements before the degeneracy test, and the test's extra condition (ending in ` || `). */
  pre: string;
  degenerate: string;
  /** The vector r from the second side's origin to the first side's point (a statement). */
  r: string;
  /** Statements after the thickness test: the coordinates of the closest points, and when they lie off the footprint. */
  coords: string;
  off: string;
  /** The gradient weights c0 … c3. */
  c: string[];
}

/** `const nx = p[i], ny = p[i + 1], nz = p[i + 2]` (less ox … with an origin o). */
function corner([n, i, o]: [string, string, string | null]): string {
  const at = (k: string, j: number) => `p[${i}${j ? ` + ${j}` : ''}]${o ? ` - ${o}${k}` : ''}`;
  return `  const ${['x', 'y', 'z'].map((k, j) => `${n}${k} = ${at(k, j)}`).join(',\n    ')};`;
}

/** The close of both frames' doc comments: what each mode checks. */
const MODES = `with FRAME_FOOTPRINT also for a proximity contact whose
 * closest points lie off the footprint (beyond FOOTPRINT: it does not act), with FRAME_ACTING
 * also when the constraint holds (s d ≥ h).
 */`;

/** The two kinds side by side, [vertex–triangle, edge–edge]: a row a field of Frame. */
const COLUMNS: { [F in keyof Frame]: [Frame[F], Frame[F]] } = {
  tag: ['VT', 'EE'],
  type: ['TYPE_VT', 'TYPE_EE'],
  add: ['addVertexTriangleHits', 'addEdgeEdgeHits'],
  kind: [VT, EE],
  doc: [
    `/**
 * Frame of vertex–triangle contact k of the list (q, a, b, c) at positions p into \`frame\`: n̂
 * the unit normal of the triangle, c = (1, −b_a, −b_b, −b_c) with b the barycentric coordinates
 * of q's projection on its plane (003 §4.3, eqs. 12–13), d the signed distance of q from that
 * plane. False for a degenerate triangle; ${MODES}`,
    `/**
 * Frame of edge–edge contact k of the list (edges a–b, c–d) at positions p into \`frame\`:
 * n̂ ∥ (b − a) × (d − c), c = (1 − t, t, u − 1, −u) with a + t (b − a), c + u (d − c) the closest
 * points of the two lines, d the signed distance of the lines along n̂. False for (nearly)
 * parallel edges; ${MODES}`,
  ],
  hitsDoc: [
    'vertex–triangle scan (surface-narrow-scan.ts: the candidates’ distance bounds,\n * proximity at p and the continuous test x → p)',
    'edge–edge scan (surface-narrow-scan.ts: proximity between sharp edges at p, the\n * continuous test x → p for every candidate)',
  ],
  corners: [
    [
      ['a', 'i1', null],
      ['u', 'i2', 'a'],
      ['v', 'i3', 'a'],
    ],
    [
      ['a', 'i0', null],
      ['u', 'i1', 'a'],
      ['c', 'i2', null],
      ['v', 'i3', 'c'],
    ],
  ],
  pre: ['', `  const A = ${dot('u', 'u')},\n    Cc = ${dot('v', 'v')};\n`],
  degenerate: ['', '!(n2 > 1e-12 * A * Cc) || '],
  r: [corner(['r', 'i0', 'a']), '  const rx = ax - cx,\n    ry = ay - cy,\n    rz = az - cz;'],
  coords: [
    `  // barycentric coordinates of q's projection: (r × v)·n̂ / |n|, (u × r)·n̂ / |n|
  const bb = ((ry * vz - rz * vy) * nx + (rz * vx - rx * vz) * ny + (rx * vy - ry * vx) * nz) * inv;
  const bc = ((uy * rz - uz * ry) * nx + (uz * rx - ux * rz) * ny + (ux * ry - uy * rx) * nz) * inv;
  const ba = 1 - bb - bc;`,
    `  // closest points of the two lines: a + t (b − a), c + u (d − c)
  const B = ${dot('u', 'v')};
  const D = ${dot('u', 'r')},
    E = ${dot('v', 'r')};
  const den = A * Cc - B * B;
  const t = (B * E - Cc * D) / den,
    u = (A * E - B * D) / den;`,
  ],
  off: [
    'ba < -FOOTPRINT || bb < -FOOTPRINT || bc < -FOOTPRINT',
    't < -FOOTPRINT || t > 1 + FOOTPRINT || u < -FOOTPRINT || u > 1 + FOOTPRINT',
  ],
  c: [
    ['1', '-ba', '-bb', '-bc'],
    ['1 - t', 't', 'u - 1', '-u'],
  ],
};

const FRAMES = [0, 1].map(
  (j) => Object.fromEntries(Object.entries(COLUMNS).map(([f, v]) => [f, v[j]])) as unknown as Frame,
);

/** The frame function of kind F. */
function frameFunction(F: Frame): string {
  const writes = ['nx', 'ny', 'nz', ...F.c, 'd'].map((v, j) => `  frame[${j}] = ${v};`).join('\n');
  return `${F.doc}
export function frame${F.tag}(p: Float64Array, list: SurfaceContactList, k: number, mode: number): boolean {
  const idx = list.idx;
  const ${[0, 1, 2, 3].map((j) => `i${j} = 3 * idx[4 * k${j ? ` + ${j}` : ''}]`).join(',\n    ')};
${F.corners.map(corner).join('\n')}
  let nx = uy * vz - uz * vy,
    ny = uz * vx - ux * vz,
    nz = ux * vy - uy * vx;
  const n2 = ${dot('n', 'n')};
${F.pre}  if (${F.degenerate}!(n2 > 1e-30)) return false;
  const inv = 1 / Math.sqrt(n2);
  nx *= inv;
  ny *= inv;
  nz *= inv;
${F.r}
  const d = ${dot('r', 'n')};
  if (mode === FRAME_ACTING && list.side[k] * d >= list.thick[k]) return false;
${F.coords}
  if (mode !== FRAME_ONLY && (list.flags[k] & FLAG_CCD) === 0 && (${F.off})) return false;
${writes}
  return true;
}
`;
}

/** The topology's array behind each logical name of the narrow scans' KINDS. */
const TOPOLOGY: Record<string, string> = {
  tri: 'tri',
  edge: 'edge',
  vs: 'vertexSurface',
  ts: 'triSurface',
  es: 'edgeSurface',
};

/** The hits' function of kind F: decode, push with side and thickness, flag the crossed, the restitution's normal velocity. */
function hitsFunction(F: Frame): string {
  const K = F.kind;
  const [u, w] = K.ids;
  const arrays = [...new Set([...K.reads.map((r) => r[1]), K.pair[0], K.pair[2]])];
  const g = K.four.map((v) => `g${v}`);
  return `/**
 * The contacts of the substep x → p (003 §4.3), pushed in candidate order: the hits of the
 * ${F.hitsDoc}.
 */
export function ${F.add}(topo: SurfaceTopology, ${K.cand}: Int32Array, list: SurfaceContactList, v: Float64Array, x: Float64Array, found: NarrowHits, crossed: Uint8Array | null): void {
  const surfaces = list.surfaces;
  const vert = topo.vertex, ${arrays.map((a) => `${a} = topo.${TOPOLOGY[a]}`).join(', ')};
  const hits = found.hits;
  for (let i = 0; i < found.count; i++) {
    const k = hits[2 * i], fl = hits[2 * i + 1];
    const ${u} = ${K.cand}[2 * k], ${w} = ${K.cand}[2 * k + 1];
    const ${K.reads.map(([n, a, i]) => `${n} = ${a}[${i}]`).join(', ')};
    const ${K.four.map((v, j) => `${g[j]} = vert[${v}]`).join(', ')};
    // the side s = ±1 (SIDE_NEG); the pair's thickness, mean friction and larger restitution
    const s = (fl & SIDE_NEG) !== 0 ? -1 : 1;
    const sA = ${K.pair[0]}[${K.pair[1]}], sB = ${K.pair[2]}[${K.pair[3]}];
    const A = surfaces[sA], B = surfaces[sB];
    list.push(${F.type}, fl & ~SIDE_NEG, ${g.join(', ')}, s, topo.pairThickness(sA, sB), 0.5 * (A.staticFriction + B.staticFriction), 0.5 * (A.friction + B.friction), Math.max(A.restitution, B.restitution), 0);
    // the fail-safe's crossings flag their vertices
    if (crossed !== null) ${K.four.map((v) => `crossed[${v}]`).join(' = ')} = 1;
    // relative normal velocity at the start of the substep (for restitution)
    const last = list.count - 1;
    if (topo.anyRestitution && frame${F.tag}(x, list, last, FRAME_ONLY))
      list.vn0[last] = s * frameNormalVelocity(v, ${g.map((n) => `3 * ${n}`).join(', ')});
  }
}
`;
}

/** src/collision/surface-frames.generated.ts. */
export function emitSurfaceFramesTs(banner: string): string {
  return `${banner}
// The frames of the vertex–triangle and edge–edge contacts and the pushing of their hits, written
// once for both kinds in scripts/kernels/emit-surface-frames.ts (surface-vertex-triangle.ts and
// surface-edge-edge.ts re-export the frames).
import {
  FLAG_CCD,
  FOOTPRINT,
  FRAME_ACTING,
  FRAME_ONLY,
  frame,
  frameNormalVelocity,
  type SurfaceContactList,
  TYPE_EE,
  TYPE_VT,
} from './surface-contact-list.js';
import { SIDE_NEG } from './surface-narrow-scan.js';
import type { NarrowHits } from './surface-narrow-tasks.js';
import type { SurfaceTopology } from './surface-topology.js';

${FRAMES.map((F) => `${frameFunction(F)}\n${hitsFunction(F)}`).join('\n')}`;
}
