import { insphere, orient3d } from 'robust-predicates';
import { PbdError, requireIntegerIn } from '../core/errors.js';
import {
  buildEdgeTopology,
  enclosedVolume,
  positionBounds,
  type TriangleMesh,
  triangleYZBounds,
  yzBoundsOut,
} from '../mesh/triangle-mesh.js';
import { type TetMesh, type TetQuality, tetDihedrals, tetQuality, tetSurface } from './tet-mesh.js';

export interface TetrahedralizeOptions {
  /** Lattice cells along the longest side of the bounding box (the mesh resolution). Default 8. */
  resolution?: number;
  /** Boundary tets whose smallest dihedral angle is below this (degrees) are removed as slivers. Default 15. */
  sliverAngle?: number;
}

/** The result of tetrahedralize: the mesh and its quality report. */
export interface TetrahedralizeResult {
  mesh: TetMesh;
  quality: TetQuality;
  /** Tets removed as boundary slivers. */
  slivers: number;
  /** Volume of the input surface and of the tet mesh (their ratio shows how well the mesh fills it). */
  surfaceVolume: number;
  meshVolume: number;
}

/**
 * pbdkit's tetrahedraliser for closed triangle surfaces.
 *
 * 1. Sample points: the surface (its vertices and, on large triangles,
 *    extra points, thinned to a spacing of 0.6 h) and the inside of a
 *    body-centred cubic lattice of spacing h = (longest side) / resolution,
 *    keeping lattice points at least 0.4 h from the surface. The BCC
 *    lattice's Delaunay tets are well shaped and unique (four Voronoi cells
 *    meet at every vertex), so the inside is free of slivers.
 * 2. Delaunay tetrahedralisation of the samples (Bowyer–Watson with exact
 *    orient3d / insphere predicates, so the cavity of each insertion is
 *    star-shaped and no flat tet is ever created).
 * 3. Keep the tets whose centroid lies inside the surface (winding number
 *    of a ray), then peel boundary slivers (smallest dihedral angle below
 *    `sliverAngle`).
 *
 * The tet boundary approximates the surface to about h; embed the original
 * surface in the tets for rendering (RenderEmbedding, 002 §5). An open
 * surface is rejected, naming a boundary edge.
 */
export function tetrahedralize(
  surface: TriangleMesh,
  options: TetrahedralizeOptions = {},
  where = 'tetrahedralize',
): TetrahedralizeResult {
  const res = options.resolution ?? 8;
  requireIntegerIn(res, 1, 200, 'tetrahedralize/resolution', `${where}.resolution`);
  const sliverAngle = options.sliverAngle ?? 15;
  const { positions: sp, triangles } = surface;
  const topo = buildEdgeTopology(triangles, `${where}.surface`);
  for (let e = 0; e < topo.edges.length / 2; e++) {
    if (topo.edgeTriangles[2 * e + 1] < 0) {
      throw new PbdError(
        'tetrahedralize/open-surface',
        `${where}.surface: edge (${topo.edges[2 * e]}, ${topo.edges[2 * e + 1]})`,
        'belongs to one triangle only: the surface is open and has no inside to fill',
        'close the holes of the mesh (or use it as cloth)',
      );
    }
  }
  const surfaceVolume = enclosedVolume(sp, triangles);
  if (!(Math.abs(surfaceVolume) > 0)) {
    throw new PbdError('tetrahedralize/flat-surface', `${where}.surface`, 'encloses no volume');
  }
  const inside = new InsideTest(sp, triangles, surfaceVolume > 0 ? 1 : -1);
  const { lo, hi } = positionBounds(sp);
  const h = Math.max(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]) / res;

  // 1. samples: dense surface points (for distances), thinned surface points, lattice
  const dense = new PointGrid(0.5 * h);
  const pts: number[] = [];
  const thin = new PointGrid(0.6 * h);
  const addSurface = (x: number, y: number, z: number) => {
    dense.add(x, y, z);
    if (!thin.near(x, y, z, 0.6 * h)) {
      thin.add(x, y, z);
      pts.push(x, y, z);
    }
  };
  for (let i = 0; i < sp.length; i += 3) addSurface(sp[i], sp[i + 1], sp[i + 2]);
  const step = 0.3 * h;
  for (let t = 0; t < triangles.length; t += 3) {
    const a = 3 * triangles[t],
      b = 3 * triangles[t + 1],
      c = 3 * triangles[t + 2];
    const lab = Math.hypot(sp[b] - sp[a], sp[b + 1] - sp[a + 1], sp[b + 2] - sp[a + 2]);
    const lac = Math.hypot(sp[c] - sp[a], sp[c + 1] - sp[a + 1], sp[c + 2] - sp[a + 2]);
    const lbc = Math.hypot(sp[c] - sp[b], sp[c + 1] - sp[b + 1], sp[c + 2] - sp[b + 2]);
    const n = Math.ceil(Math.max(lab, lac, lbc) / step);
    if (n <= 1) continue;
    for (let i = 0; i <= n; i++)
      for (let j = 0; i + j <= n; j++) {
        const u = i / n,
          v = j / n,
          w = 1 - u - v;
        addSurface(
          w * sp[a] + u * sp[b] + v * sp[c],
          w * sp[a + 1] + u * sp[b + 1] + v * sp[c + 1],
          w * sp[a + 2] + u * sp[b + 2] + v * sp[c + 2],
        );
      }
  }
  const nsurf = pts.length / 3;
  for (let pass = 0; pass < 2; pass++) {
    const off = pass * 0.5 * h;
    for (let i = -1; i * h + off <= hi[0] - lo[0] + h; i++)
      for (let j = -1; j * h + off <= hi[1] - lo[1] + h; j++)
        for (let k = -1; k * h + off <= hi[2] - lo[2] + h; k++) {
          const x = lo[0] + i * h + off,
            y = lo[1] + j * h + off,
            z = lo[2] + k * h + off;
          if (dense.near(x, y, z, 0.4 * h)) continue;
          if (inside.winding(x, y, z) !== 0) pts.push(x, y, z);
        }
  }
  if (pts.length / 3 - nsurf < 1 && pts.length / 3 < 4) {
    throw new PbdError(
      'tetrahedralize/too-coarse',
      `${where}.resolution`,
      `${res} leaves too few points`,
      'raise the resolution',
    );
  }

  // 2. Delaunay
  const del = delaunay(Float64Array.from(pts));

  // 3. keep inside tets
  const P = del.points;
  const keep: number[] = [];
  for (let t = 0; t < del.tets.length; t += 4) {
    const a = 3 * del.tets[t],
      b = 3 * del.tets[t + 1],
      c = 3 * del.tets[t + 2],
      d = 3 * del.tets[t + 3];
    const cx = 0.25 * (P[a] + P[b] + P[c] + P[d]),
      cy = 0.25 * (P[a + 1] + P[b + 1] + P[c + 1] + P[d + 1]),
      cz = 0.25 * (P[a + 2] + P[b + 2] + P[c + 2] + P[d + 2]);
    if (inside.winding(cx, cy, cz) !== 0)
      keep.push(del.tets[t], del.tets[t + 1], del.tets[t + 2], del.tets[t + 3]);
  }
  let tets = Uint32Array.from(keep);
  // peel boundary slivers
  let slivers = 0;
  const q = new Float64Array(3);
  for (let pass = 0; pass < 4; pass++) {
    const boundary = boundaryTets(tets);
    const out: number[] = [];
    let removed = 0;
    for (let t = 0; t < tets.length / 4; t++) {
      tetDihedrals(P, tets, t, q);
      if (boundary[t] && q[0] < sliverAngle) {
        removed++;
        continue;
      }
      out.push(tets[4 * t], tets[4 * t + 1], tets[4 * t + 2], tets[4 * t + 3]);
    }
    slivers += removed;
    tets = Uint32Array.from(out);
    if (removed === 0) break;
  }
  if (tets.length === 0) {
    throw new PbdError(
      'tetrahedralize/empty',
      where,
      'no tet lies inside the surface',
      'raise the resolution',
    );
  }
  // compact the vertices
  const map = new Int32Array(P.length / 3).fill(-1);
  const positions: number[] = [];
  for (let k = 0; k < tets.length; k++) {
    const v = tets[k];
    if (map[v] < 0) {
      map[v] = positions.length / 3;
      positions.push(P[3 * v], P[3 * v + 1], P[3 * v + 2]);
    }
    tets[k] = map[v];
  }
  const mesh: TetMesh = { positions: Float64Array.from(positions), tets };
  const quality = tetQuality(mesh);
  return { mesh, quality, slivers, surfaceVolume: Math.abs(surfaceVolume), meshVolume: quality.totalVolume };
}

/** Flags tets that have a face on the boundary of the tet set. */
function boundaryTets(tets: Uint32Array): Uint8Array {
  const count = new Map<string, number>();
  const nt = tets.length / 4;
  const key = (t: number, o: number) => {
    const f: number[] = [];
    for (let k = 0; k < 4; k++) if (k !== o) f.push(tets[4 * t + k]);
    f.sort((a, b) => a - b);
    return f.join(',');
  };
  for (let t = 0; t < nt; t++)
    for (let o = 0; o < 4; o++) count.set(key(t, o), (count.get(key(t, o)) ?? 0) + 1);
  const out = new Uint8Array(nt);
  for (let t = 0; t < nt; t++) for (let o = 0; o < 4; o++) if (count.get(key(t, o)) === 1) out[t] = 1;
  return out;
}

/** The surface of a tetrahedralisation as a triangle mesh (outward normals). */
export function tetMeshSurface(mesh: TetMesh): TriangleMesh {
  return { positions: mesh.positions, triangles: tetSurface(mesh) };
}

// ---- inside test --------------------------------------------------------------------

/**
 * Winding number of a closed surface around a point, from the signed
 * crossings of the ray in +x: triangles are binned by their y–z bounds.
 * The query is nudged by a tiny fixed offset so the ray never grazes an
 * edge or vertex of a lattice-aligned mesh.
 */
class InsideTest {
  private readonly cells: Int32Array[];
  private readonly n: number;
  private readonly y0: number;
  private readonly z0: number;
  private readonly cy: number;
  private readonly cz: number;
  private readonly nudge: number;

  constructor(
    private readonly x: ArrayLike<number>,
    private readonly tris: ArrayLike<number>,
    private readonly sign: number,
  ) {
    let ylo = Infinity,
      yhi = -Infinity,
      zlo = Infinity,
      zhi = -Infinity;
    for (let i = 0; i < x.length; i += 3) {
      ylo = Math.min(ylo, x[i + 1]);
      yhi = Math.max(yhi, x[i + 1]);
      zlo = Math.min(zlo, x[i + 2]);
      zhi = Math.max(zhi, x[i + 2]);
    }
    const nt = tris.length / 3;
    this.n = Math.max(1, Math.min(256, Math.round(Math.sqrt(nt / 2))));
    this.y0 = ylo;
    this.z0 = zlo;
    this.cy = (yhi - ylo) / this.n || 1;
    this.cz = (zhi - zlo) / this.n || 1;
    this.nudge = 1.3e-9 * Math.max(yhi - ylo, zhi - zlo, 1e-9);
    const lists: number[][] = Array.from({ length: this.n * this.n }, () => []);
    for (let t = 0; t < nt; t++) {
      triangleYZBounds(x, tris, t);
      const [a, b, c, d] = yzBoundsOut;
      for (let i = this.cell(a, this.y0, this.cy); i <= this.cell(b, this.y0, this.cy); i++)
        for (let j = this.cell(c, this.z0, this.cz); j <= this.cell(d, this.z0, this.cz); j++)
          lists[i * this.n + j].push(t);
    }
    this.cells = lists.map((l) => Int32Array.from(l));
  }

  private cell(v: number, o: number, s: number): number {
    return Math.max(0, Math.min(this.n - 1, Math.floor((v - o) / s)));
  }

  /** Signed crossing count: ±1 inside (the sign of the surface orientation removed), 0 outside. */
  winding(px: number, py0: number, pz0: number): number {
    const py = py0 + this.nudge,
      pz = pz0 + 0.7 * this.nudge;
    const list = this.cells[this.cell(py, this.y0, this.cy) * this.n + this.cell(pz, this.z0, this.cz)];
    const x = this.x,
      tris = this.tris;
    let w = 0;
    for (let k = 0; k < list.length; k++) {
      const t = list[k];
      const a = 3 * tris[3 * t],
        b = 3 * tris[3 * t + 1],
        c = 3 * tris[3 * t + 2];
      // barycentric coordinates of (py, pz) in the projected triangle
      const ay = x[a + 1] - py,
        az = x[a + 2] - pz,
        by = x[b + 1] - py,
        bz = x[b + 2] - pz,
        cy = x[c + 1] - py,
        cz = x[c + 2] - pz;
      const u = by * cz - bz * cy,
        v = cy * az - cz * ay,
        ww = ay * bz - az * by;
      if (!((u >= 0 && v >= 0 && ww >= 0) || (u <= 0 && v <= 0 && ww <= 0))) continue;
      const s = u + v + ww;
      if (s === 0) continue;
      const hx = (u * x[a] + v * x[b] + ww * x[c]) / s;
      if (hx > px) w += s > 0 ? 1 : -1;
    }
    return w * this.sign;
  }
}

// ---- spatial hash of points -----------------------------------------------------------

class PointGrid {
  private readonly map = new Map<string, number[]>();
  constructor(private readonly size: number) {}

  private key(i: number, j: number, k: number): string {
    return `${i},${j},${k}`;
  }

  add(x: number, y: number, z: number): void {
    const k = this.key(Math.floor(x / this.size), Math.floor(y / this.size), Math.floor(z / this.size));
    let l = this.map.get(k);
    if (!l) {
      l = [];
      this.map.set(k, l);
    }
    l.push(x, y, z);
  }

  near(x: number, y: number, z: number, r: number): boolean {
    const s = this.size;
    const span = Math.ceil(r / s);
    const i0 = Math.floor(x / s),
      j0 = Math.floor(y / s),
      k0 = Math.floor(z / s);
    const r2 = r * r;
    for (let i = i0 - span; i <= i0 + span; i++)
      for (let j = j0 - span; j <= j0 + span; j++)
        for (let k = k0 - span; k <= k0 + span; k++) {
          const l = this.map.get(this.key(i, j, k));
          if (!l) continue;
          for (let m = 0; m < l.length; m += 3) {
            const dx = l[m] - x,
              dy = l[m + 1] - y,
              dz = l[m + 2] - z;
            if (dx * dx + dy * dy + dz * dz < r2) return true;
          }
        }
    return false;
  }
}

// ---- Delaunay tetrahedralisation (Bowyer–Watson) ----------------------------------------

/** Faces of a tet (a, b, c, d) opposite each vertex, in an order whose normals point outward for a positive tet. */
const FACE = [
  [1, 2, 3],
  [0, 3, 2],
  [0, 1, 3],
  [0, 2, 1],
];

/**
 * Delaunay tetrahedralisation of a point set (duplicates are merged). Tets
 * are positively oriented ((b − a) × (c − a) · (d − a) > 0). Exposed for
 * tests; `tetrahedralize` is the user-facing entry.
 */
export function delaunay(points: Float64Array): { points: Float64Array; tets: Uint32Array } {
  const n = points.length / 3;
  let { lo, hi } = positionBounds(points);
  const size = Math.max(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], 1e-9);
  const cx = 0.5 * (lo[0] + hi[0]),
    cy = 0.5 * (lo[1] + hi[1]),
    cz = 0.5 * (lo[2] + hi[2]);
  // the points plus a super tetrahedron (the last four vertices)
  const X: number[] = Array.from(points);
  const R = 1e4 * size;
  X.push(
    cx - R,
    cy - R,
    cz - R,
    cx + 3 * R,
    cy - R,
    cz - R,
    cx - R,
    cy + 3 * R,
    cz - R,
    cx - R,
    cy - R,
    cz + 3 * R,
  );
  const sup = n;
  // insertion order along a Morton curve keeps the walks short
  const order = Array.from({ length: n }, (_, i) => i);
  const code = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let c = 0;
    const q = [0, 1, 2].map((k) => Math.min(1023, Math.floor(((points[3 * i + k] - lo[k]) / size) * 1023)));
    for (let bit = 9; bit >= 0; bit--) for (let k = 0; k < 3; k++) c = c * 2 + ((q[k] >> bit) & 1);
    code[i] = c;
  }
  order.sort((a, b) => code[a] - code[b] || a - b);
  lo = hi = [];

  const tv: number[] = []; // 4 vertices per tet
  const tn: number[] = []; // 4 neighbours per tet (opposite each vertex), −1 none
  const alive: boolean[] = [];
  const orient = (a: number, b: number, c: number, d: number) =>
    -orient3d(
      X[3 * a],
      X[3 * a + 1],
      X[3 * a + 2],
      X[3 * b],
      X[3 * b + 1],
      X[3 * b + 2],
      X[3 * c],
      X[3 * c + 1],
      X[3 * c + 2],
      X[3 * d],
      X[3 * d + 1],
      X[3 * d + 2],
    );
  const newTet = (a: number, b: number, c: number, d: number): number => {
    const t = alive.length;
    tv.push(a, b, c, d);
    tn.push(-1, -1, -1, -1);
    alive.push(true);
    return t;
  };
  newTet(sup, sup + 1, sup + 2, sup + 3);
  if (orient(sup, sup + 1, sup + 2, sup + 3) < 0) {
    tv[0] = sup + 1;
    tv[1] = sup;
  }
  const inSphere = (t: number, p: number): boolean => {
    const a = 3 * tv[4 * t],
      b = 3 * tv[4 * t + 1],
      c = 3 * tv[4 * t + 2],
      d = 3 * tv[4 * t + 3];
    // robust-predicates' insphere is negative inside for orient3d > 0; our tets have orient3d < 0
    return (
      insphere(
        X[a],
        X[a + 1],
        X[a + 2],
        X[b],
        X[b + 1],
        X[b + 2],
        X[c],
        X[c + 1],
        X[c + 2],
        X[d],
        X[d + 1],
        X[d + 2],
        X[3 * p],
        X[3 * p + 1],
        X[3 * p + 2],
      ) > 0
    );
  };
  let last = 0;
  let rot = 0;
  const stamp: number[] = [];
  let mark = 0;
  const cavity: number[] = [];
  const stack: number[] = [];
  const edgeMap = new Map<number, number>();
  const seen = new Set<string>();
  for (const p of order) {
    const key = `${X[3 * p]},${X[3 * p + 1]},${X[3 * p + 2]}`;
    if (seen.has(key)) continue; // duplicate point
    seen.add(key);
    // locate: visibility walk
    let t = last;
    while (!alive[t]) t--;
    for (let guard = 0; guard < 100000; guard++) {
      let moved = false;
      rot = (rot + 1) & 3;
      for (let kk = 0; kk < 4; kk++) {
        const k = (kk + rot) & 3;
        const f = FACE[k];
        const a = tv[4 * t + f[0]],
          b = tv[4 * t + f[1]],
          c = tv[4 * t + f[2]];
        // outward face (a, b, c): p lies beyond it when orient(a, b, c, p) > 0
        if (orient(a, b, c, p) > 0 && tn[4 * t + k] >= 0) {
          t = tn[4 * t + k];
          moved = true;
          break;
        }
      }
      if (!moved) break;
    }
    // cavity: tets whose circumsphere strictly contains p, grown from t
    mark++;
    cavity.length = 0;
    stack.length = 0;
    stack.push(t);
    stamp[t] = mark;
    while (stack.length) {
      const c = stack.pop() as number;
      cavity.push(c);
      for (let k = 0; k < 4; k++) {
        const nb = tn[4 * c + k];
        if (nb < 0 || stamp[nb] === mark) continue;
        if (inSphere(nb, p)) {
          stamp[nb] = mark;
          stack.push(nb);
        }
      }
    }
    // new tets on the cavity's boundary faces
    edgeMap.clear();
    const created: number[] = [];
    for (const c of cavity) {
      for (let k = 0; k < 4; k++) {
        const nb = tn[4 * c + k];
        if (nb >= 0 && stamp[nb] === mark) continue;
        const f = FACE[k];
        const a = tv[4 * c + f[0]],
          b = tv[4 * c + f[1]],
          d = tv[4 * c + f[2]];
        // (a, b, d) faces out of the cavity and p lies inside it, so (b, a, d, p) is positive
        const nt = newTet(a, b, d, p);
        if (orient(a, b, d, p) < 0) {
          tv[4 * nt] = b;
          tv[4 * nt + 1] = a;
        }
        // neighbour across the old face is opposite p (local index 3)
        tn[4 * nt + 3] = nb;
        if (nb >= 0) {
          for (let j = 0; j < 4; j++) if (tn[4 * nb + j] === c) tn[4 * nb + j] = nt;
        }
        created.push(nt);
      }
    }
    for (const c of cavity) alive[c] = false;
    // connect the new tets through their faces containing p: the face opposite
    // vertex j (j < 3) holds p and the edge of the other two base vertices
    for (const nt of created) {
      for (let j = 0; j < 3; j++) {
        const u = tv[4 * nt + ((j + 1) % 3)],
          v = tv[4 * nt + ((j + 2) % 3)];
        const e = Math.min(u, v) * 4194304 + Math.max(u, v);
        const other = edgeMap.get(e);
        if (other === undefined) edgeMap.set(e, 4 * nt + j);
        else {
          tn[4 * nt + j] = other >> 2;
          tn[other] = nt;
          edgeMap.delete(e);
        }
      }
    }
    last = created[created.length - 1];
  }
  const out: number[] = [];
  for (let t = 0; t < alive.length; t++) {
    if (!alive[t]) continue;
    const a = tv[4 * t],
      b = tv[4 * t + 1],
      c = tv[4 * t + 2],
      d = tv[4 * t + 3];
    if (a >= sup || b >= sup || c >= sup || d >= sup) continue;
    out.push(a, b, c, d);
  }
  return { points, tets: Uint32Array.from(out) };
}
