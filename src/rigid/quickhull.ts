/**
 * The convex hull of a point set by quickhull (Barber, Dobkin and Huhdanpaa
 * 1996): start from a tetrahedron of extreme points, give every other point
 * to a face it lies above (its conflict list), then repeatedly take the
 * farthest point of a face, remove the faces it sees, and close the hole
 * with a cone of new faces from the horizon to the point, handing the
 * orphaned points to the new faces. Points within a tolerance of a face
 * (scaled to the input's size) count as on it, so duplicates and coplanar
 * points do not split faces. Coplanar triangles are then merged into convex
 * polygons and vertices on a polygon's straight edges removed, so that a
 * box's eight corners give six quadrilaterals — what face clipping wants.
 *
 * Build-time code (objects are fine here): the result is flat arrays.
 */
import { PbdError } from '../core/errors.js';

/** A convex polyhedron: vertices, polygonal faces (counter-clockwise seen from outside) and their planes. */
export interface HullData {
  /** xyz per vertex. */
  vertices: Float64Array;
  /** Face f has the vertices faceVerts[faceStart[f] .. faceStart[f + 1]) in counter-clockwise order. */
  faceStart: Int32Array;
  faceVerts: Int32Array;
  /** Outward unit normal per face (3 each). */
  normals: Float64Array;
}

interface Face {
  v: [number, number, number];
  n: [number, number, number];
  d: number;
  outside: number[];
  alive: boolean;
  visited: number;
}

/** Convex hull of the points (xyz interleaved). Throws a PbdError when they span no volume. */
export function quickhull(points: ArrayLike<number>, where = 'convex hull'): HullData {
  const n = Math.floor(points.length / 3);
  if (n < 4 || points.length % 3 !== 0) {
    throw new PbdError(
      'rigid/hull-points',
      `${where}.points`,
      `needs at least 4 points as x, y, z triples, got ${points.length} numbers`,
      'give the vertices of a mesh with volume',
    );
  }
  const P = (i: number, k: number) => points[3 * i + k];
  let scale = 0;
  for (let i = 0; i < 3 * n; i++) {
    if (!Number.isFinite(points[i])) {
      throw new PbdError('rigid/hull-points', `${where}.points[${i}]`, `must be finite, got ${points[i]}`);
    }
    scale = Math.max(scale, Math.abs(points[i]));
  }
  const eps = Math.max(1e-12, 1e-9 * scale);

  // extreme points along the axes, then the most distant pair, the farthest from their line and plane
  const ext: number[] = [];
  for (let k = 0; k < 3; k++) {
    let lo = 0,
      hi = 0;
    for (let i = 1; i < n; i++) {
      if (P(i, k) < P(lo, k)) lo = i;
      if (P(i, k) > P(hi, k)) hi = i;
    }
    ext.push(lo, hi);
  }
  const d2 = (a: number, b: number) =>
    (P(a, 0) - P(b, 0)) ** 2 + (P(a, 1) - P(b, 1)) ** 2 + (P(a, 2) - P(b, 2)) ** 2;
  let a = ext[0],
    b = ext[1],
    best = -1;
  for (const i of ext)
    for (const j of ext) {
      const d = d2(i, j);
      if (d > best) {
        best = d;
        a = i;
        b = j;
      }
    }
  const degenerate = (what: string) =>
    new PbdError(
      'rigid/hull-flat',
      `${where}.points`,
      `are ${what}: a convex hull needs volume`,
      'give points that span a solid',
    );
  if (!(Math.sqrt(best) > eps)) throw degenerate('all at one place');
  const ux = P(b, 0) - P(a, 0),
    uy = P(b, 1) - P(a, 1),
    uz = P(b, 2) - P(a, 2);
  let c = -1;
  best = 0;
  for (let i = 0; i < n; i++) {
    const wx = P(i, 0) - P(a, 0),
      wy = P(i, 1) - P(a, 1),
      wz = P(i, 2) - P(a, 2);
    const cx = uy * wz - uz * wy,
      cy = uz * wx - ux * wz,
      cz = ux * wy - uy * wx;
    const d = cx * cx + cy * cy + cz * cz;
    if (d > best) {
      best = d;
      c = i;
    }
  }
  if (c < 0 || !(Math.sqrt(best) / Math.sqrt(d2(a, b)) > eps)) throw degenerate('on one line');
  const pn = planeOf(points, a, b, c);
  let dIdx = -1;
  best = 0;
  for (let i = 0; i < n; i++) {
    const d = Math.abs(pn.n[0] * P(i, 0) + pn.n[1] * P(i, 1) + pn.n[2] * P(i, 2) - pn.d);
    if (d > best) {
      best = d;
      dIdx = i;
    }
  }
  if (dIdx < 0 || !(best > eps)) throw degenerate('in one plane');

  const faces: Face[] = [];
  const edgeFace = new Map<number, Face>(); // directed edge (u → v) → its face
  const key = (u: number, v: number) => u * n + v;
  const addFace = (u: number, v: number, w: number): Face => {
    const pl = planeOf(points, u, v, w);
    const f: Face = { v: [u, v, w], n: pl.n, d: pl.d, outside: [], alive: true, visited: 0 };
    faces.push(f);
    edgeFace.set(key(u, v), f);
    edgeFace.set(key(v, w), f);
    edgeFace.set(key(w, u), f);
    return f;
  };
  const dist = (f: Face, i: number) => f.n[0] * P(i, 0) + f.n[1] * P(i, 1) + f.n[2] * P(i, 2) - f.d;
  // the tetrahedron, oriented outward
  const above = pn.n[0] * P(dIdx, 0) + pn.n[1] * P(dIdx, 1) + pn.n[2] * P(dIdx, 2) - pn.d > 0;
  const [t0, t1, t2] = above ? [a, c, b] : [a, b, c];
  const initial = [addFace(t0, t1, t2), addFace(t0, dIdx, t1), addFace(t1, dIdx, t2), addFace(t2, dIdx, t0)];
  const assign = (list: number[], cands: Face[]) => {
    for (const i of list) {
      let bestF: Face | null = null,
        bestD = eps;
      for (const f of cands) {
        const d = dist(f, i);
        if (d > bestD) {
          bestD = d;
          bestF = f;
        }
      }
      if (bestF) bestF.outside.push(i);
    }
  };
  const rest: number[] = [];
  for (let i = 0; i < n; i++) if (i !== t0 && i !== t1 && i !== t2 && i !== dIdx) rest.push(i);
  assign(rest, initial);

  let stamp = 0;
  for (let guard = 0; guard < 4 * n + 16; guard++) {
    const f0 = faces.find((f) => f.alive && f.outside.length > 0);
    if (!f0) break;
    let eye = f0.outside[0],
      far = dist(f0, eye);
    for (const i of f0.outside) {
      const d = dist(f0, i);
      if (d > far) {
        far = d;
        eye = i;
      }
    }
    // the faces the eye sees, by a walk over neighbours; the horizon as directed edges (u → v) of visible faces
    stamp++;
    const visible: Face[] = [];
    const horizon: [number, number][] = [];
    const stack: Face[] = [f0];
    f0.visited = stamp;
    while (stack.length > 0) {
      const f = stack.pop()!;
      visible.push(f);
      for (let k = 0; k < 3; k++) {
        const u = f.v[k],
          v = f.v[(k + 1) % 3];
        const g = edgeFace.get(key(v, u))!;
        if (g.visited === stamp) continue;
        if (dist(g, eye) > eps) {
          g.visited = stamp;
          stack.push(g);
        } else horizon.push([u, v]);
      }
    }
    const orphans: number[] = [];
    for (const f of visible) {
      f.alive = false;
      for (const i of f.outside) if (i !== eye) orphans.push(i);
      f.outside = [];
      for (let k = 0; k < 3; k++) {
        const kk = key(f.v[k], f.v[(k + 1) % 3]);
        if (edgeFace.get(kk) === f) edgeFace.delete(kk);
      }
    }
    const cone = horizon.map(([u, v]) => addFace(u, v, eye));
    assign(orphans, cone);
  }
  return mergeCoplanar(
    points,
    faces.filter((f) => f.alive),
    n,
  );
}

function planeOf(
  points: ArrayLike<number>,
  a: number,
  b: number,
  c: number,
): { n: [number, number, number]; d: number } {
  const ax = points[3 * a],
    ay = points[3 * a + 1],
    az = points[3 * a + 2];
  const ux = points[3 * b] - ax,
    uy = points[3 * b + 1] - ay,
    uz = points[3 * b + 2] - az;
  const vx = points[3 * c] - ax,
    vy = points[3 * c + 1] - ay,
    vz = points[3 * c + 2] - az;
  let nx = uy * vz - uz * vy,
    ny = uz * vx - ux * vz,
    nz = ux * vy - uy * vx;
  const len = Math.hypot(nx, ny, nz) || 1;
  nx /= len;
  ny /= len;
  nz /= len;
  return { n: [nx, ny, nz], d: nx * ax + ny * ay + nz * az };
}

/** Merges adjacent triangles with (nearly) equal planes into polygons and drops straight-edge vertices. */
function mergeCoplanar(points: ArrayLike<number>, tris: Face[], n: number): HullData {
  const m = tris.length;
  const parent = Int32Array.from({ length: m }, (_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]];
    return i;
  };
  const owner = new Map<number, number>();
  tris.forEach((f, t) => {
    for (let k = 0; k < 3; k++) owner.set(f.v[k] * n + f.v[(k + 1) % 3], t);
  });
  tris.forEach((f, t) => {
    for (let k = 0; k < 3; k++) {
      const u = f.v[k],
        v = f.v[(k + 1) % 3];
      const s = owner.get(v * n + u);
      if (s === undefined) continue;
      const g = tris[s];
      const dot = f.n[0] * g.n[0] + f.n[1] * g.n[1] + f.n[2] * g.n[2];
      if (dot > 1 - 1e-7) {
        const ra = find(t),
          rb = find(s);
        if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
      }
    }
  });
  const groups = new Map<number, number[]>();
  for (let t = 0; t < m; t++) {
    const r = find(t);
    if (!groups.has(r)) groups.set(r, []);
    groups.get(r)!.push(t);
  }
  const used = new Map<number, number>();
  const verts: number[] = [];
  const faceStart: number[] = [0];
  const faceVerts: number[] = [];
  const normals: number[] = [];
  for (const group of groups.values()) {
    const inGroup = new Set(group);
    // boundary edges of the group: those whose twin lies in another group
    const next = new Map<number, number>();
    let nx = 0,
      ny = 0,
      nz = 0;
    for (const t of group) {
      const f = tris[t];
      nx += f.n[0];
      ny += f.n[1];
      nz += f.n[2];
      for (let k = 0; k < 3; k++) {
        const u = f.v[k],
          v = f.v[(k + 1) % 3];
        const s = owner.get(v * n + u);
        if (s === undefined || !inGroup.has(s)) next.set(u, v);
      }
    }
    const len = Math.hypot(nx, ny, nz);
    nx /= len;
    ny /= len;
    nz /= len;
    const start = Math.min(...next.keys());
    const loop: number[] = [start];
    for (let v = next.get(start)!; v !== start && loop.length <= next.size; v = next.get(v)!) loop.push(v);
    // drop vertices where the boundary runs straight on
    const kept = loop.filter((v, k) => {
      const u = loop[(k + loop.length - 1) % loop.length],
        w = loop[(k + 1) % loop.length];
      const ax = points[3 * v] - points[3 * u],
        ay = points[3 * v + 1] - points[3 * u + 1],
        az = points[3 * v + 2] - points[3 * u + 2];
      const bx = points[3 * w] - points[3 * v],
        by = points[3 * w + 1] - points[3 * v + 1],
        bz = points[3 * w + 2] - points[3 * v + 2];
      const cx = ay * bz - az * by,
        cy = az * bx - ax * bz,
        cz = ax * by - ay * bx;
      return cx * nx + cy * ny + cz * nz > 1e-9 * Math.hypot(ax, ay, az) * Math.hypot(bx, by, bz);
    });
    if (kept.length < 3) continue;
    for (const v of kept) {
      if (!used.has(v)) {
        used.set(v, verts.length / 3);
        verts.push(points[3 * v], points[3 * v + 1], points[3 * v + 2]);
      }
      faceVerts.push(used.get(v)!);
    }
    faceStart.push(faceVerts.length);
    normals.push(nx, ny, nz);
  }
  return {
    vertices: Float64Array.from(verts),
    faceStart: Int32Array.from(faceStart),
    faceVerts: Int32Array.from(faceVerts),
    normals: Float64Array.from(normals),
  };
}
