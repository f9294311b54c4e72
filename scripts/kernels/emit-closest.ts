/**
 * The closest-point formulas of the collision code, written once and emitted twice (issue 14):
 *
 * - as TypeScript into src/collision/closest.generated.ts (closestPointTriangleAt with its
 *   barycentrics, region and degenerate path, closestSegmentSegmentAt with s and t), which
 *   src/collision/geometry.ts re-exports;
 * - as AssemblyScript into wasm/closest.generated.ts (closestPointTriangle2, degenerate2,
 *   closestSegmentSegment2: the squared distance only, s and t into segS, segT), which
 *   wasm/closest.ts re-exports to the surfaces and narrow modules.
 *
 * Each formula below is one template; a `Lang` says how the language spells a type and a
 * comparison, and a variant says what the function reads (flat arrays at offsets, or twelve
 * numbers) and what it writes out (every result into `out`, or the squared distance returned).
 * Both languages get the same floating-point operations in the same order (WebAssembly's f64
 * arithmetic is IEEE and never contracts), hence the same bits: test/surface-broad-wasm,
 * test/surface-narrow-wasm.
 */

/** How a language spells what differs: the f64 type and the strict comparisons. */
export interface Lang {
  /** `number` or `f64`. */
  f64: string;
  /** `===` or `==`. */
  eq: string;
  /** `!==` or `!=`. */
  ne: string;
}

export const TS: Lang = { f64: 'number', eq: '===', ne: '!==' };
export const AS: Lang = { f64: 'f64', eq: '==', ne: '!=' };

/** The twelve coordinates of two points and two more (or a point and a triangle) as parameters. */
function params12(L: Lang, names: string[]): string {
  return names.map((n) => ['x', 'y', 'z'].map((c) => `${n}${c}: ${L.f64}`).join(', ')).join(', ');
}

/** `const ax = T[ia], ay = T[ia + 1], az = T[ia + 2]` for each (name, array, offset). */
function loads(reads: [string, string, string][]): string {
  const one = ([n, arr, at]: [string, string, string]) =>
    `${n}x = ${arr}[${at}],\n    ${n}y = ${arr}[${at} + 1],\n    ${n}z = ${arr}[${at} + 2]`;
  return `  const ${reads.map(one).join(',\n    ')};\n`;
}

/** `const <n>x = <a>x − <b>x, …` at indent `pad` (the vector from b to a). */
function diff(n: string, a: string, b: string, pad: string): string {
  const c = ['x', 'y', 'z'].map((k) => `${n}${k} = ${a}${k} - ${b}${k}`);
  return `${pad}const ${c.join(`,\n${pad}  `)};`;
}

/** The dot product u · v of two vectors named in scope (ux, uy, uz …), summed x, y, z. */
export const dot = (u: string, v: string) => `${u}x * ${v}x + ${u}y * ${v}y + ${u}z * ${v}z`;

/**
 * The cascade of Voronoi regions of closest point of triangle (a, b, c) to p (Ericson, Real-Time
 * Collision Detection §5.1.5), from the corner coordinates in scope to u, v, w (and, with
 * `full`, the region), or `degenerate` where no region is found (a zero-area or NaN triangle).
 * Each region is a test on the dot products d1 … d6 of the edges ab, ac with the vector from a
 * corner to p (vertex regions) or on their minors va, vb, vc (edge regions, the face).
 */
function triangleRegions(L: Lang, full: boolean, degenerate: string): string {
  /** The barycentrics of a region ('u = …; v = …; w = …', assigned in that order) and its name, at indent pad. */
  const at = (pad: string, bary: string, region: string) =>
    [...bary.split('; '), ...(full ? [`region = ${region}`] : [])].map((e) => `${pad}${e};`).join('\n');
  /** The dot products of ab and ac with the vector from corner k to p (dA, dB), at indent pad. */
  const dots = (pad: string, k: string, dA: string, dB: string) =>
    `${diff(`${k}p`, 'p', k, pad)}\n${pad}const ${dA} = ${dot('ab', `${k}p`)};\n${pad}const ${dB} = ${dot('ac', `${k}p`)};`;
  /** Corner k's barycentrics: 1 on k, 0 on the others. */
  const corner = (pad: string, k: string, region: string) =>
    at(pad, ['a', 'b', 'c'].map((c, i) => `${'uvw'[i]} = ${c === k ? 1 : 0}`).join('; '), region);
  /** The levels of the cascade: what each computes first, its test (a comment names the region), the barycentrics. */
  type Level = { pre: (pad: string) => string; name: string; test: string; set: (pad: string) => string };
  /** Statements (lines of text) at indent pad. */
  const lines =
    (...text: string[]) =>
    (pad: string) =>
      text.map((t) => pad + t).join('\n');
  /** An edge region's test and barycentrics: minor m ≤ 0 with dA ≥ 0 ≥ dB; t = dA / (dA − dB), s = 1 − t, z = 0. */
  const edge = (m: string, dA: string, dB: string, [t, s, z]: string[], region: string) => ({
    name: `edge region ${region}`,
    test: `${m} <= 0 && ${dA} >= 0 && ${dB} <= 0 && ${dA} - ${dB} > 0`,
    set: (pad: string) =>
      at(pad, `${t} = ${dA} / (${dA} - ${dB}); ${s} = 1 - ${t}; ${z} = 0`, `REGION_${region}`),
  });
  const first = (pad: string) =>
    `${dots(pad, 'a', 'd1', 'd2')}\n${pad}let u: ${L.f64}, v: ${L.f64}, w: ${L.f64}${full ? `, region: ${L.f64}` : ''};`;
  const bc = lines('const va = d3 * d6 - d5 * d4;', 'const e43 = d4 - d3,', '  e56 = d5 - d6;');
  const onBC = (pad: string) => at(pad, 'w = e43 / (e43 + e56); v = 1 - w; u = 0', 'REGION_BC');
  const face = (pad: string) =>
    `${pad}const inv = 1 / sum;\n${at(pad, 'v = vb * inv; w = vc * inv; u = 1 - v - w', 'REGION_FACE')}`;
  /** A vertex region: the dot products of corner k (dA, dB) and its test. */
  const vertex = (k: string, dA: string, dB: string, test: string): Level => ({
    pre: (p) => dots(p, k, dA, dB),
    name: `vertex region ${k.toUpperCase()}`,
    test,
    set: (p) => corner(p, k, `REGION_${k.toUpperCase()}`),
  });
  const levels: Level[] = [
    { ...vertex('a', 'd1', 'd2', 'd1 <= 0 && d2 <= 0'), pre: first },
    vertex('b', 'd3', 'd4', 'd3 >= 0 && d4 <= d3'),
    { pre: lines('const vc = d1 * d4 - d3 * d2;'), ...edge('vc', 'd1', 'd3', ['v', 'u', 'w'], 'AB') },
    vertex('c', 'd5', 'd6', 'd6 >= 0 && d5 <= d6'),
    { pre: lines('const vb = d5 * d2 - d1 * d6;'), ...edge('vb', 'd2', 'd6', ['w', 'u', 'v'], 'CA') },
    { pre: bc, name: 'edge region BC', test: 'va <= 0 && e43 >= 0 && e56 >= 0 && e43 + e56 > 0', set: onBC },
    { pre: lines('const sum = va + vb + vc;'), name: 'the face', test: 'sum > 0', set: face },
  ];
  /** Level i and, in its else, the levels after it; past the last, the degenerate path. */
  const nest = (i: number, pad: string): string => {
    if (i === levels.length)
      return `${pad}// degenerate (zero-area) triangle: the nearest of its three edges\n${pad}${degenerate}`;
    const l = levels[i];
    const inner = `${pad}  `;
    return `${l.pre(pad)}\n${pad}// ${l.name}\n${pad}if (${l.test}) {\n${l.set(inner)}\n${pad}} else {\n${nest(i + 1, inner)}\n${pad}}`;
  };
  return `${diff('ab', 'b', 'a', '  ')}
${diff('ac', 'c', 'a', '  ')}
${nest(0, '  ')}
  const qx = u * ax + v * bx + w * cx,
    qy = u * ay + v * by + w * cy,
    qz = u * az + v * bz + w * cz;
${full ? `${['qx', 'qy', 'qz', 'u', 'v', 'w'].map((e, i) => `  out[${i}] = ${e};`).join('\n')}\n` : ''}${diff('d', 'p', 'q', '  ')}
${full ? `  out[6] = ${dot('d', 'd')};\n  return region;` : `  return ${dot('d', 'd')};`}
`;
}

/**
 * The degenerate path: the nearest of the triangle's three edges (each a segment clamped to
 * [0, 1]); with `full`, its barycentrics and region into out as closestPointTriangleAt's.
 */
function degenerateEdges(L: Lang, full: boolean): string {
  const lets = full
    ? `  let best = Number.POSITIVE_INFINITY,
    region = REGION_A,
    bu = 1,
    bv = 0,
    bw = 0;`
    : '  let best = Infinity;';
  const keep = full
    ? ` {
      best = d2;
      region = e ${L.eq} 0 ? REGION_AB : e ${L.eq} 1 ? REGION_BC : REGION_CA;
      if (e ${L.eq} 0) {
        bu = 1 - s;
        bv = s;
        bw = 0;
      } else if (e ${L.eq} 1) {
        bu = 0;
        bv = 1 - s;
        bw = s;
      } else {
        bu = s;
        bv = 0;
        bw = 1 - s;
      }
    }`
    : ' best = d2;';
  const tail = full
    ? `  out[0] = bu * ax + bv * bx + bw * cx;
  out[1] = bu * ay + bv * by + bw * cy;
  out[2] = bu * az + bv * bz + bw * cz;
  out[3] = bu;
  out[4] = bv;
  out[5] = bw;
  out[6] = best;
  return region;`
    : '  return best;';
  const e = L.eq;
  return `${lets}
  for (let e = 0; e < 3; e++) {
    const sx = e ${e} 0 ? ax : e ${e} 1 ? bx : cx,
      sy = e ${e} 0 ? ay : e ${e} 1 ? by : cy,
      sz = e ${e} 0 ? az : e ${e} 1 ? bz : cz;
    const tx = e ${e} 0 ? bx : e ${e} 1 ? cx : ax,
      ty = e ${e} 0 ? by : e ${e} 1 ? cy : ay,
      tz = e ${e} 0 ? bz : e ${e} 1 ? cz : az;
${diff('d', 't', 's', '    ')}
    const len2 = ${dot('d', 'd')};
    let s = len2 > 0 ? ((px - sx) * dx + (py - sy) * dy + (pz - sz) * dz) / len2 : 0;
    s = s < 0 ? 0 : Math.min(s, 1);
    const qx = sx + s * dx - px,
      qy = sy + s * dy - py,
      qz = sz + s * dz - pz;
    const d2 = ${dot('q', 'q')};
    if (d2 < best)${keep}
  }
${tail}
`;
}

/**
 * Closest points of segments p1–q1 and p2–q2 (Ericson §5.1.9) from the coordinates in scope:
 * s on p1–q1, t on p2–q2, then `tail` (which writes them out) and the squared distance d2.
 */
function segmentSegment(L: Lang, keep: string, distance: (d2: string) => string): string {
  return `${diff('d1', 'q1', 'p1', '  ')}
${diff('d2', 'q2', 'p2', '  ')}
${diff('r', 'p1', 'p2', '  ')}
  const a = ${dot('d1', 'd1')};
  const e = ${dot('d2', 'd2')};
  const f = ${dot('d2', 'r')};
  let s: ${L.f64}, t: ${L.f64};
  const tiny = 1e-300;
  if (a <= tiny && e <= tiny) {
    // both segments are points
    s = 0;
    t = 0;
  } else if (a <= tiny) {
    s = 0;
    t = clamp01(f / e);
  } else {
    const c = ${dot('d1', 'r')};
    if (e <= tiny) {
      t = 0;
      s = clamp01(-c / a);
    } else {
      // the general case; parallel segments (denom ≈ 0) take s = 0
      const b = ${dot('d1', 'd2')};
      const denom = a * e - b * b;
      s = denom > 1e-14 * a * e ? clamp01((b * f - c * e) / denom) : 0;
      t = (b * s + f) / e;
      if (t < 0) {
        t = 0;
        s = clamp01(-c / a);
      } else if (t > 1) {
        t = 1;
        s = clamp01((b - c) / a);
      }
    }
  }
${keep}  const dx = p1x + d1x * s - (p2x + d2x * t),
    dy = p1y + d1y * s - (p2y + d2y * t),
    dz = p1z + d1z * s - (p2z + d2z * t);
  ${distance(dot('d', 'd'))}
`;
}

const CLAMP01 = (L: Lang, at: string) => `${at}function clamp01(x: ${L.f64}): ${L.f64} {
  return x < 0 ? 0 : Math.min(x, 1);
}
`;

/** src/collision/closest.generated.ts: the TypeScript functions (re-exported by geometry.ts). */
export function emitClosestTs(banner: string): string {
  const P12 = ['p', 'a', 'b', 'c'];
  return `${banner}
// The closest-point formulas and the static crossing test of src/collision/geometry.ts, written once
// in scripts/kernels/emit-closest.ts (which also writes the closest points' AssemblyScript twins,
// wasm/closest.generated.ts).

/** Region of a triangle holding the closest point: the face, a vertex or an edge. */
export const REGION_FACE = 0;
export const REGION_A = 1;
export const REGION_B = 2;
export const REGION_C = 3;
export const REGION_AB = 4;
export const REGION_BC = 5;
export const REGION_CA = 6;

/**
 * Closest point of triangle (a, b, c) to point p (Ericson, Real-Time Collision Detection §5.1.5)
 * with the point at P[ip … ip + 2] and the corners at T[ia …], T[ib …], T[ic …]. Writes
 * out[0..2] = the closest point, out[3..5] = its barycentric coordinates (on a, b, c), out[6] =
 * the squared distance; returns the region (REGION_*). Degenerate triangles are handled (their
 * closest point lies on an edge). Array offsets rather than numbers: V8 boxes every double
 * argument of a call it does not inline.
 */
export function closestPointTriangleAt(P: Float64Array, ip: number, T: Float64Array, ia: number, ib: number, ic: number, out: Float64Array): number {
  const px = P[ip],
    py = P[ip + 1],
    pz = P[ip + 2];
${loads([
  ['a', 'T', 'ia'],
  ['b', 'T', 'ib'],
  ['c', 'T', 'ic'],
])}${triangleRegions(TS, true, 'return closestOnDegenerate(px, py, pz, ax, ay, az, bx, by, bz, cx, cy, cz, out);')}}

/** The degenerate path of closestPointTriangleAt: the nearest of the three edges, into out. */
function closestOnDegenerate(${params12(TS, P12)}, out: Float64Array): number {
${degenerateEdges(TS, true)}}

/**
 * Closest points of segments p1–q1 and p2–q2 (Ericson §5.1.9), the first at S[i1 …] – S[j1 …]
 * and the second at R[i2 …] – R[j2 …]. Writes out[0] = s (on p1–q1), out[1] = t (on p2–q2),
 * out[2] = the squared distance.
 */
export function closestSegmentSegmentAt(S: Float64Array, i1: number, j1: number, R: Float64Array, i2: number, j2: number, out: Float64Array): void {
${loads([
  ['p1', 'S', 'i1'],
  ['q1', 'S', 'j1'],
  ['p2', 'R', 'i2'],
  ['q2', 'R', 'j2'],
])}${segmentSegment(TS, '', (d2) => `out[0] = s;\n  out[1] = t;\n  out[2] = ${d2};`)}}

${CLAMP01(TS, '')}
/**
 * Coordinates passed through this scratch to the array forms: a call of a function that is not
 * inlined boxes each double argument (an allocation in V8), while array offsets are small integers.
 */
const args12 = new Float64Array(12);

/**
 * Closest point of triangle (a, b, c) to point p: closestPointTriangleAt on numbers. Writes
 * out[0..2] = the closest point, out[3..5] = its barycentric coordinates (on a, b, c), out[6] = the
 * squared distance; returns the region (REGION_*).
 */
${numberForm('closestPointTriangle', P12, 'number', 'return closestPointTriangleAt(A, 0, A, 3, 6, 9, out);')}
/**
 * Closest points of segments p1–q1 and p2–q2: closestSegmentSegmentAt on numbers. Writes out[0] = s
 * (on p1–q1), out[1] = t (on p2–q2), out[2] = the squared distance.
 */
${numberForm('closestSegmentSegment', ['p1', 'q1', 'p2', 'q2'], 'void', 'closestSegmentSegmentAt(A, 0, 3, A, 6, 9, out);')}
${crossing()}`;
}

/** The coordinates of the points named, as arguments: `px, py, pz, qx, …`. */
const xyz = (points: string[]) => points.map((n) => `${n}x, ${n}y, ${n}z`).join(', ');

/**
 * The static crossing test of the fail-safe's untangling (untangle-tasks.ts): orient3d, six times
 * a tetrahedron's signed volume, and segmentCrossesTriangle from signed volumes (TypeScript only:
 * no AssemblyScript caller yet).
 */
function crossing(): string {
  const orient = (pts: string[]) => `orient3d(${xyz(pts)})`;
  const sides = ['ab', 'bc', 'ca'].map(([u, v], i) => `  const s${i + 1} = ${orient(['p', 'q', u, v])};`);
  return `/** Six times the signed volume of tetrahedron (a, b, c, d): (b − a) · ((c − a) × (d − a)). */
export function orient3d(${params12(TS, ['a', 'b', 'c', 'd'])}): number {
${diff('u', 'b', 'a', '  ')}
${diff('v', 'c', 'a', '  ')}
${diff('w', 'd', 'a', '  ')}
  return ux * (vy * wz - vz * wy) + uy * (vz * wx - vx * wz) + uz * (vx * wy - vy * wx);
}

/**
 * Does segment e0–e1 cross triangle (a, b, c)? Read from a flat xyz array with offsets (3 ×
 * index). Uses signed volumes: the end points must lie on opposite sides of the plane by more
 * than rounding (touching and coplanar configurations are not crossings), and the segment's line
 * must pass inside the three edges (a zero volume counts as inside, so a segment through an edge
 * of two triangles is counted for both).
 */
export function segmentCrossesTriangle(x: Float64Array, e0: number, e1: number, a: number, b: number, c: number): boolean {
${[
  ['a', 'x', 'a'],
  ['b', 'x', 'b'],
  ['c', 'x', 'c'],
  ['p', 'x', 'e0'],
  ['q', 'x', 'e1'],
]
  .map((r) => loads([r as [string, string, string]]))
  .join('')}  const sp = ${orient(['a', 'b', 'c', 'p'])};
  const sq = ${orient(['a', 'b', 'c', 'q'])};
  // the end points must lie on opposite sides by more than rounding: touching and coplanar
  // configurations (whose volumes are noise) do not count as crossings
${diff('u', 'b', 'a', '  ')}
${diff('v', 'c', 'a', '  ')}
  const nx = uy * vz - uz * vy,
    ny = uz * vx - ux * vz,
    nz = ux * vy - uy * vx;
  const eps = 1e-10 * Math.sqrt((${dot('n', 'n')}) * ((qx - px) ** 2 + (qy - py) ** 2 + (qz - pz) ** 2));
  if (!((sp > eps && sq < -eps) || (sp < -eps && sq > eps))) return false;
${sides.join('\n')}
  return (s1 >= 0 && s2 >= 0 && s3 >= 0) || (s1 <= 0 && s2 <= 0 && s3 <= 0);
}
`;
}

/** A function of twelve numbers that packs them into args12 and calls its array form (`call`). */
function numberForm(name: string, points: string[], ret: string, call: string): string {
  const names = points.flatMap((n) => ['x', 'y', 'z'].map((c) => `${n}${c}`));
  return `export function ${name}(${params12(TS, points)}, out: Float64Array): ${ret} {
  const A = args12;
${names.map((n, i) => `  A[${i}] = ${n};`).join('\n')}
  ${call}
}
`;
}

/** wasm/closest.generated.ts: the AssemblyScript twins (re-exported by wasm/closest.ts). */
export function emitClosestAs(banner: string): string {
  const P12 = ['p', 'a', 'b', 'c'];
  return `${banner}
// The closest-point formulas of src/collision/geometry.ts in AssemblyScript, written once with
// their TypeScript in scripts/kernels/emit-closest.ts: the same operations in the same order.

/** The last closestSegmentSegment2's parameters s and t along its two segments (out[0], out[1]). */
export let segS: f64 = 0,
  segT: f64 = 0;

/**
 * closestPointTriangleAt's squared distance (out[6]) of point (px, py, pz) from triangle a, b, c
 * (Ericson §5.1.5); −1 where the JavaScript takes its degenerate path (no region found: a
 * zero-area or NaN triangle), whose distance is degenerate2's.
 */
@inline export function closestPointTriangle2(${params12(AS, P12)}): f64 {
${triangleRegions(AS, false, 'return -1;')}}

/** closestPointTriangleAt's degenerate path (closestOnDegenerate): the squared distance of the nearest edge. */
export function degenerate2(${params12(AS, P12)}): f64 {
${degenerateEdges(AS, false)}}

/** closestPointTriangleAt's squared distance (out[6]), its degenerate path included. */
export function pointTriangle2(${params12(AS, P12)}): f64 {
  const d = closestPointTriangle2(px, py, pz, ax, ay, az, bx, by, bz, cx, cy, cz);
  return d < 0 ? degenerate2(px, py, pz, ax, ay, az, bx, by, bz, cx, cy, cz) : d;
}

${CLAMP01(AS, '@inline export ')}
/** closestSegmentSegmentAt (Ericson §5.1.9): the squared distance (out[2]); s and t (out[0], out[1]) into segS, segT. */
@inline export function closestSegmentSegment2(${params12(AS, ['p1', 'q1', 'p2', 'q2'])}): f64 {
${segmentSegment(AS, '  segS = s;\n  segT = t;\n', (d2) => `return ${d2};`)}}
`;
}
