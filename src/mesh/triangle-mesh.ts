import { PbdError } from '../core/errors.js';

/** An indexed triangle mesh: xyz-interleaved positions and three vertex indices per triangle. */
export interface TriangleMesh {
  positions: Float64Array;
  triangles: Uint32Array;
  /** Optional texture coordinates, two per vertex. */
  uvs?: Float64Array;
}

/** Number of vertices of a mesh. */
export function vertexCount(mesh: TriangleMesh): number {
  return mesh.positions.length / 3;
}

/** (p_b − p_a) × (p_c − p_a), as edgeCross leaves it: the normal that areas and volumes share. */
export const edgeCrossOut = new Float64Array(3);

/** (p_b − p_a) × (p_c − p_a) into `edgeCrossOut`, for the points at offsets a, b, c of x. */
export function edgeCross(x: ArrayLike<number>, a: number, b: number, c: number): void {
  const ux = x[b] - x[a],
    uy = x[b + 1] - x[a + 1],
    uz = x[b + 2] - x[a + 2];
  const vx = x[c] - x[a],
    vy = x[c + 1] - x[a + 1],
    vz = x[c + 2] - x[a + 2];
  edgeCrossOut[0] = uy * vz - uz * vy;
  edgeCrossOut[1] = uz * vx - ux * vz;
  edgeCrossOut[2] = ux * vy - uy * vx;
}

/**
 * The axis-aligned bounding box [lo, hi] of positions xyz-interleaved (lo
 * +∞ and hi −∞ where there are none), for setting up lattices, grids and
 * sizes; not for loops that run each step.
 */
export function positionBounds(pos: ArrayLike<number>): { lo: number[]; hi: number[] } {
  const lo = [Infinity, Infinity, Infinity],
    hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < pos.length; i += 3)
    for (let k = 0; k < 3; k++) {
      lo[k] = Math.min(lo[k], pos[i + k]);
      hi[k] = Math.max(hi[k], pos[i + k]);
    }
  return { lo, hi };
}

/** Area of triangle t. */
export function triangleArea(positions: ArrayLike<number>, triangles: ArrayLike<number>, t: number): number {
  edgeCross(positions, 3 * triangles[3 * t], 3 * triangles[3 * t + 1], 3 * triangles[3 * t + 2]);
  return 0.5 * Math.hypot(edgeCrossOut[0], edgeCrossOut[1], edgeCrossOut[2]);
}

/** Key of the undirected edge (a, b) for maps; exact for up to 2^26 vertices. */
export function edgeKey(a: number, b: number): number {
  return a < b ? a * 67108864 + b : b * 67108864 + a;
}

/** Edge topology of a triangle mesh. */
export interface EdgeTopology {
  /** Two vertex indices per edge (smaller first). */
  edges: Uint32Array;
  /** The (up to) two triangles of each edge; −1 for a boundary edge. */
  edgeTriangles: Int32Array;
  /** Edge index of each triangle's three edges (edge k joins corners k and k+1). */
  triangleEdges: Int32Array;
}

/**
 * Builds the edge list. Throws a PbdError naming the edge and its triangles
 * when an edge is shared by more than two triangles (non-manifold, 003 §4.1).
 */
export function buildEdgeTopology(triangles: Uint32Array, where = 'mesh'): EdgeTopology {
  const nt = triangles.length / 3;
  const nh = 3 * nt;
  // Half-edge h = 3t + k joins corners k and k + 1 of triangle t. They are
  // bucketed by their smaller vertex (a CSR of the vertices the mesh uses) and
  // sorted by the larger one within a bucket, so the half-edges of one edge
  // lie together: no map, no per-edge objects, and a vertex shared by a
  // million triangles costs one sort, not a scan per triangle.
  let vMin = Number.POSITIVE_INFINITY,
    vMax = -1;
  for (let k = 0; k < nh; k++) {
    const v = triangles[k];
    if (v < vMin) vMin = v;
    if (v > vMax) vMax = v;
  }
  const start = new Int32Array(Math.max(0, vMax - vMin) + 2);
  for (let h = 0; h < nh; h++) start[halfLo(triangles, h) - vMin + 1]++;
  for (let v = 1; v < start.length; v++) start[v] += start[v - 1];
  const bucket = new Int32Array(nh);
  const fill = start.slice(0, start.length - 1);
  for (let h = 0; h < nh; h++) bucket[fill[halfLo(triangles, h) - vMin]++] = h;
  // first[h]: the first half-edge of h's edge; second[f]: the second one of the edge first met at f (−1: none)
  const first = new Int32Array(nh);
  const second = new Int32Array(nh).fill(-1);
  let bad = -1; // the earliest half-edge that is the third of its edge
  for (let v = 0; v + 1 < start.length; v++) {
    const s = start[v],
      e = start[v + 1];
    sortByHigh(triangles, bucket, s, e);
    for (let i = s; i < e; ) {
      const f = bucket[i];
      const hi = halfHi(triangles, f);
      let j = i + 1;
      first[f] = f;
      for (; j < e && halfHi(triangles, bucket[j]) === hi; j++) first[bucket[j]] = f;
      if (j - i >= 2) second[f] = bucket[i + 1];
      if (j - i >= 3 && (bad < 0 || bucket[i + 2] < bad)) bad = bucket[i + 2];
      i = j;
    }
  }
  if (bad >= 0) {
    const f = first[bad];
    throw new PbdError(
      'mesh/non-manifold-edge',
      `${where}: edge (${halfLo(triangles, f)}, ${halfHi(triangles, f)})`,
      `is shared by more than two triangles (${Math.floor(f / 3)}, ${Math.floor(second[f] / 3)}, ${Math.floor(bad / 3)}); the mesh must be manifold`,
      'split the mesh along that edge or remove the extra triangle',
    );
  }
  // edges numbered in the order they are first met (triangle by triangle)
  const edgeOf = new Int32Array(nh);
  let ne = 0;
  for (let h = 0; h < nh; h++) if (first[h] === h) edgeOf[h] = ne++;
  const edges = new Uint32Array(2 * ne);
  const edgeTriangles = new Int32Array(2 * ne);
  const triangleEdges = new Int32Array(nh);
  for (let h = 0; h < nh; h++) {
    const f = first[h];
    const e = edgeOf[f];
    triangleEdges[h] = e;
    if (f !== h) continue;
    edges[2 * e] = halfLo(triangles, h);
    edges[2 * e + 1] = halfHi(triangles, h);
    edgeTriangles[2 * e] = Math.floor(h / 3);
    edgeTriangles[2 * e + 1] = second[h] < 0 ? -1 : Math.floor(second[h] / 3);
  }
  return { edges, edgeTriangles, triangleEdges };
}

/** The smaller vertex of half-edge h (corner h mod 3 to the next corner of triangle ⌊h/3⌋). */
function halfLo(triangles: Uint32Array, h: number): number {
  return Math.min(triangles[h], triangles[h % 3 === 2 ? h - 2 : h + 1]);
}

/** The larger vertex of half-edge h. */
function halfHi(triangles: Uint32Array, h: number): number {
  return Math.max(triangles[h], triangles[h % 3 === 2 ? h - 2 : h + 1]);
}

/** Sorts bucket[s, e) (half-edges, ascending) by their larger vertex, keeping the half-edge order among equals. */
function sortByHigh(triangles: Uint32Array, bucket: Int32Array, s: number, e: number): void {
  if (e - s > 32) {
    bucket.subarray(s, e).sort((x, y) => halfHi(triangles, x) - halfHi(triangles, y) || x - y);
    return;
  }
  for (let i = s + 1; i < e; i++) {
    const h = bucket[i];
    const key = halfHi(triangles, h);
    let j = i - 1;
    while (j >= s && halfHi(triangles, bucket[j]) > key) {
      bucket[j + 1] = bucket[j];
      j--;
    }
    bucket[j + 1] = h;
  }
}

/**
 * Adds each triangle's (p_b − p_a) × (p_c − p_a) (its normal times twice its area) to the entries
 * of its three vertices in `out`: the area-weighted vertex normals, not yet normalised. The
 * triangles index vertices from particle `offset` of x.
 */
export function accumulateFaceNormals(
  x: ArrayLike<number>,
  tris: ArrayLike<number>,
  out: Float64Array | Float32Array,
  offset = 0,
): void {
  for (let t = 0; t < tris.length; t += 3) {
    const a = 3 * tris[t],
      b = 3 * tris[t + 1],
      c = 3 * tris[t + 2];
    const o = 3 * offset;
    edgeCross(x, o + a, o + b, o + c);
    const nx = edgeCrossOut[0],
      ny = edgeCrossOut[1],
      nz = edgeCrossOut[2];
    out[a] += nx;
    out[a + 1] += ny;
    out[a + 2] += nz;
    out[b] += nx;
    out[b + 1] += ny;
    out[b + 2] += nz;
    out[c] += nx;
    out[c + 1] += ny;
    out[c + 2] += nz;
  }
}

/** The yz bounding box of a triangle as triangleYZBounds leaves it: [y min, y max, z min, z max]. */
export const yzBoundsOut = new Float64Array(4);

/** The yz bounding box of triangle t (three indices a triangle into xyz-interleaved pos) into `yzBoundsOut`. */
export function triangleYZBounds(pos: ArrayLike<number>, tri: ArrayLike<number>, t: number): void {
  let y0 = Number.POSITIVE_INFINITY,
    y1 = Number.NEGATIVE_INFINITY,
    z0 = Number.POSITIVE_INFINITY,
    z1 = Number.NEGATIVE_INFINITY;
  for (let c = 0; c < 3; c++) {
    const v = 3 * tri[3 * t + c];
    y0 = Math.min(y0, pos[v + 1]);
    y1 = Math.max(y1, pos[v + 1]);
    z0 = Math.min(z0, pos[v + 2]);
    z1 = Math.max(z1, pos[v + 2]);
  }
  yzBoundsOut[0] = y0;
  yzBoundsOut[1] = y1;
  yzBoundsOut[2] = z0;
  yzBoundsOut[3] = z1;
}

/** Throws `${kind}/not-finite` at the first vertex of xyz-interleaved positions with a non-finite coordinate. */
export function checkFiniteVertices(positions: ArrayLike<number>, kind: string, where: string): void {
  for (let i = 0; i < positions.length; i++) {
    if (!Number.isFinite(positions[i])) {
      throw new PbdError(
        `${kind}/not-finite`,
        `${where}: vertex ${Math.floor(i / 3)}`,
        `has a non-finite coordinate (${positions[i]})`,
      );
    }
  }
}

/** Throws `code` at `where` (the element) when vertex index i is not an integer in [0, nv). */
export function checkVertexIndex(i: number, nv: number, code: string, where: string, fix: string): void {
  if (!(i < nv) || !Number.isInteger(i)) {
    throw new PbdError(
      code,
      where,
      `refers to vertex ${i} but the mesh has ${nv} vertices (0…${nv - 1})`,
      fix,
    );
  }
}

/**
 * Checks indices, degenerate triangles and non-finite coordinates; returns
 * the edge topology (which also checks manifoldness).
 */
export function validateTriangleMesh(mesh: TriangleMesh, where = 'mesh'): EdgeTopology {
  const { positions, triangles } = mesh;
  if (positions.length % 3 !== 0) {
    throw new PbdError(
      'mesh/bad-positions',
      `${where}.positions`,
      `length ${positions.length} is not a multiple of 3`,
    );
  }
  if (triangles.length % 3 !== 0 || triangles.length === 0) {
    throw new PbdError(
      'mesh/bad-triangles',
      `${where}.triangles`,
      `length ${triangles.length} is not a positive multiple of 3`,
    );
  }
  const nv = positions.length / 3;
  checkFiniteVertices(positions, 'mesh', where);
  let scale = 0;
  for (let i = 0; i < positions.length; i++) scale = Math.max(scale, Math.abs(positions[i]));
  const nt = triangles.length / 3;
  for (let t = 0; t < nt; t++) {
    const a = triangles[3 * t],
      b = triangles[3 * t + 1],
      c = triangles[3 * t + 2];
    checkVertexIndex(a, nv, 'mesh/index-out-of-range', `${where}: triangle ${t}`, 'fix the face indices');
    checkVertexIndex(b, nv, 'mesh/index-out-of-range', `${where}: triangle ${t}`, 'fix the face indices');
    checkVertexIndex(c, nv, 'mesh/index-out-of-range', `${where}: triangle ${t}`, 'fix the face indices');
    if (a === b || b === c || a === c) {
      throw new PbdError(
        'mesh/degenerate-triangle',
        `${where}: triangle ${t}`,
        `repeats a vertex (${a}, ${b}, ${c})`,
        'remove the triangle',
      );
    }
    const area = triangleArea(positions, triangles, t);
    if (!(area > 1e-14 * Math.max(1e-300, scale * scale))) {
      throw new PbdError(
        'mesh/degenerate-triangle',
        `${where}: triangle ${t}`,
        `has zero area (vertices ${a}, ${b}, ${c})`,
        'remove the triangle or move its vertices apart',
      );
    }
  }
  return buildEdgeTopology(triangles, where);
}

/**
 * For each interior edge, the four vertices (p1, p2, p3, p4) of its two
 * triangles (p1, p3, p2) and (p1, p2, p4) as in 003 §4.1: p1–p2 is the shared
 * edge, p3 and p4 the opposite vertices.
 */
export function buildBendingQuads(triangles: Uint32Array, topo: EdgeTopology): Uint32Array {
  const ne = topo.edges.length / 2;
  let interior = 0;
  for (let e = 0; e < ne; e++) if (topo.edgeTriangles[2 * e + 1] >= 0) interior++;
  const out = new Uint32Array(4 * interior);
  let q = 0;
  for (let e = 0; e < ne; e++) {
    const t0 = topo.edgeTriangles[2 * e],
      t1 = topo.edgeTriangles[2 * e + 1];
    if (t1 < 0) continue;
    const a = topo.edges[2 * e],
      b = topo.edges[2 * e + 1];
    out[q++] = a;
    out[q++] = b;
    out[q++] = oppositeVertex(triangles, t0, a, b);
    out[q++] = oppositeVertex(triangles, t1, a, b);
  }
  return out;
}

function oppositeVertex(triangles: Uint32Array, t: number, a: number, b: number): number {
  for (let k = 0; k < 3; k++) {
    const v = triangles[3 * t + k];
    if (v !== a && v !== b) return v;
  }
  return triangles[3 * t];
}

/** Vertices of a mesh that lie on a boundary edge (an edge with one triangle). */
export function boundaryVertices(topo: EdgeTopology): Set<number> {
  const out = new Set<number>();
  const ne = topo.edges.length / 2;
  for (let e = 0; e < ne; e++) {
    if (topo.edgeTriangles[2 * e + 1] < 0) {
      out.add(topo.edges[2 * e]);
      out.add(topo.edges[2 * e + 1]);
    }
  }
  return out;
}

/** True when every edge has exactly two triangles. */
export function isClosed(topo: EdgeTopology): boolean {
  const ne = topo.edges.length / 2;
  for (let e = 0; e < ne; e++) if (topo.edgeTriangles[2 * e + 1] < 0) return false;
  return true;
}

/**
 * Throws unless the mesh bounds a volume the way a pressure or a volume-based mass needs: closed
 * (every edge has two triangles; `${family}/open-mesh`) and outward-facing (a positive enclosed
 * volume; `${family}/inverted-mesh`). `topo` is the mesh's edge topology, `what` names the use
 * ('a balloon') in the message.
 */
export function requireEnclosing(
  topo: EdgeTopology,
  mesh: TriangleMesh,
  family: string,
  where: string,
  what: string,
): void {
  if (!isClosed(topo)) {
    throw new PbdError(
      `${family}/open-mesh`,
      where,
      `is not closed (it has boundary edges): ${what} needs a closed mesh`,
      'close the holes (every edge must have two triangles)',
    );
  }
  if (!(enclosedVolume(mesh.positions, mesh.triangles) > 0)) {
    throw new PbdError(
      `${family}/inverted-mesh`,
      where,
      'the mesh encloses a negative volume (its triangles face inward)',
      'reverse the triangle winding',
    );
  }
}

/** Signed volume enclosed by a closed, consistently oriented mesh (divergence theorem). */
export function enclosedVolume(
  positions: ArrayLike<number>,
  triangles: ArrayLike<number>,
  offset = 0,
): number {
  let v = 0;
  const nt = triangles.length / 3;
  for (let t = 0; t < nt; t++) {
    const a = 3 * (offset + triangles[3 * t]),
      b = 3 * (offset + triangles[3 * t + 1]),
      c = 3 * (offset + triangles[3 * t + 2]);
    const ax = positions[a],
      ay = positions[a + 1],
      az = positions[a + 2];
    const bx = positions[b],
      by = positions[b + 1],
      bz = positions[b + 2];
    const cx = positions[c],
      cy = positions[c + 1],
      cz = positions[c + 2];
    v += (ay * bz - az * by) * cx + (az * bx - ax * bz) * cy + (ax * by - ay * bx) * cz;
  }
  return v / 6;
}

/**
 * Reorients the triangles of each connected component consistently (by
 * propagation across shared edges) and so that the enclosed volume is
 * positive. Returns the number of flipped triangles.
 */
export function orientConsistently(mesh: TriangleMesh): number {
  const tris = mesh.triangles;
  const topo = buildEdgeTopology(tris);
  const nt = tris.length / 3;
  const visited = new Uint8Array(nt);
  let flipped = 0;
  const stack: number[] = [];
  for (let seed = 0; seed < nt; seed++) {
    if (visited[seed]) continue;
    visited[seed] = 1;
    stack.push(seed);
    const component: number[] = [];
    while (stack.length) {
      const t = stack.pop()!;
      component.push(t);
      for (let k = 0; k < 3; k++) {
        const e = topo.triangleEdges[3 * t + k];
        const other =
          topo.edgeTriangles[2 * e] === t ? topo.edgeTriangles[2 * e + 1] : topo.edgeTriangles[2 * e];
        if (other < 0 || visited[other]) continue;
        // consistent orientation: the shared edge is traversed in opposite directions
        const a = tris[3 * t + k],
          b = tris[3 * t + ((k + 1) % 3)];
        let same = false;
        for (let j = 0; j < 3; j++) {
          if (tris[3 * other + j] === a && tris[3 * other + ((j + 1) % 3)] === b) same = true;
        }
        if (same) {
          const s = tris[3 * other + 1];
          tris[3 * other + 1] = tris[3 * other + 2];
          tris[3 * other + 2] = s;
          flipped++;
        }
        visited[other] = 1;
        stack.push(other);
      }
    }
    // make the component's volume positive
    let vol = 0;
    const p = mesh.positions;
    for (const t of component) {
      const a = 3 * tris[3 * t],
        b = 3 * tris[3 * t + 1],
        c = 3 * tris[3 * t + 2];
      vol +=
        (p[a + 1] * p[b + 2] - p[a + 2] * p[b + 1]) * p[c] +
        (p[a + 2] * p[b] - p[a] * p[b + 2]) * p[c + 1] +
        (p[a] * p[b + 1] - p[a + 1] * p[b]) * p[c + 2];
    }
    if (vol < 0) {
      for (const t of component) {
        const s = tris[3 * t + 1];
        tris[3 * t + 1] = tris[3 * t + 2];
        tris[3 * t + 2] = s;
        flipped++;
      }
    }
  }
  return flipped;
}
