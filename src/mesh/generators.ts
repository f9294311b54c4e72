import bunny from 'bunny';
import { PbdError, requireIntegerIn, requirePositiveAs } from '../core/errors.js';
import type { Vec3Tuple } from '../core/motion.js';
import { quatFromEulerDegrees, quatRotate } from '../math/quat.js';
import { orientConsistently, type TriangleMesh } from './triangle-mesh.js';

export interface GridOptions {
  /** Size along the first axis (m). */
  width: number;
  /** Size along the second axis (m). */
  height: number;
  /** Vertices along the first axis (≥ 2). */
  cols: number;
  /** Vertices along the second axis (≥ 2). */
  rows: number;
  /** Plane of the grid: 'xz' (horizontal, the default) or 'xy' (vertical, hanging). */
  plane?: 'xy' | 'xz';
  /** Diagonal pattern: 'alternate' (default, symmetric) or 'uniform'. */
  diagonals?: 'alternate' | 'uniform';
}

/**
 * A rectangular grid of rows × cols vertices centred at the origin. Vertex
 * (r, c) has index r·cols + c; row 0 is at −height/2 ('xz') or at the top,
 * y = +height/2 ('xy'), so that pinning row 0 hangs the cloth.
 */
export function gridMesh(o: GridOptions, where = 'grid'): TriangleMesh {
  const { width, height, cols, rows } = o;
  if (!(Number.isInteger(cols) && cols >= 2))
    throw new PbdError('mesh/grid', `${where}.cols`, `must be an integer ≥ 2, got ${cols}`);
  if (!(Number.isInteger(rows) && rows >= 2))
    throw new PbdError('mesh/grid', `${where}.rows`, `must be an integer ≥ 2, got ${rows}`);
  if (!(width > 0)) throw new PbdError('mesh/grid', `${where}.width`, `must be > 0, got ${width}`);
  if (!(height > 0)) throw new PbdError('mesh/grid', `${where}.height`, `must be > 0, got ${height}`);
  const plane = o.plane ?? 'xz';
  const positions = new Float64Array(rows * cols * 3);
  const uvs = new Float64Array(rows * cols * 2);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const i = r * cols + c;
      const u = c / (cols - 1),
        v = r / (rows - 1);
      positions[3 * i] = (u - 0.5) * width;
      if (plane === 'xz') {
        positions[3 * i + 2] = (v - 0.5) * height;
      } else {
        positions[3 * i + 1] = (0.5 - v) * height;
      }
      uvs[2 * i] = u;
      uvs[2 * i + 1] = 1 - v;
    }
  }
  const triangles = new Uint32Array((rows - 1) * (cols - 1) * 6);
  let t = 0;
  const alt = (o.diagonals ?? 'alternate') === 'alternate';
  for (let r = 0; r < rows - 1; r++) {
    for (let c = 0; c < cols - 1; c++) {
      const a = r * cols + c,
        b = a + 1,
        d = a + cols,
        e = d + 1;
      // consistent winding (+y normal for 'xz', +z normal for 'xy')
      const flip = alt && (r + c) % 2 === 1;
      if (plane === 'xz') {
        if (!flip) triangles.set([a, d, e, a, e, b], t);
        else triangles.set([a, d, b, b, d, e], t);
      } else {
        if (!flip) triangles.set([a, e, d, a, b, e], t);
        else triangles.set([a, b, d, b, e, d], t);
      }
      t += 6;
    }
  }
  return { positions, triangles, uvs };
}

/** An icosphere: a subdivided icosahedron projected onto a sphere; closed and outward-oriented. */
export function icosphere(radius = 1, subdivisions = 2): TriangleMesh {
  if (!(radius > 0)) throw new PbdError('mesh/icosphere', 'icosphere.radius', `must be > 0, got ${radius}`);
  requireIntegerIn(subdivisions, 0, 7, 'mesh/icosphere', 'icosphere.subdivisions');
  const t = (1 + Math.sqrt(5)) / 2;
  const verts: number[] = [
    -1,
    t,
    0,
    1,
    t,
    0,
    -1,
    -t,
    0,
    1,
    -t,
    0,
    0,
    -1,
    t,
    0,
    1,
    t,
    0,
    -1,
    -t,
    0,
    1,
    -t,
    t,
    0,
    -1,
    t,
    0,
    1,
    -t,
    0,
    -1,
    -t,
    0,
    1,
  ];
  let faces: number[] = [
    0, 11, 5, 0, 5, 1, 0, 1, 7, 0, 7, 10, 0, 10, 11, 1, 5, 9, 5, 11, 4, 11, 10, 2, 10, 7, 6, 7, 1, 8, 3, 9, 4,
    3, 4, 2, 3, 2, 6, 3, 6, 8, 3, 8, 9, 4, 9, 5, 2, 4, 11, 6, 2, 10, 8, 6, 7, 9, 8, 1,
  ];
  for (let s = 0; s < subdivisions; s++) {
    const mid = new Map<number, number>();
    const midpoint = (a: number, b: number): number => {
      const key = a < b ? a * 1e6 + b : b * 1e6 + a;
      let m = mid.get(key);
      if (m === undefined) {
        m = verts.length / 3;
        verts.push(
          (verts[3 * a] + verts[3 * b]) / 2,
          (verts[3 * a + 1] + verts[3 * b + 1]) / 2,
          (verts[3 * a + 2] + verts[3 * b + 2]) / 2,
        );
        mid.set(key, m);
      }
      return m;
    };
    const next: number[] = [];
    for (let f = 0; f < faces.length; f += 3) {
      const a = faces[f],
        b = faces[f + 1],
        c = faces[f + 2];
      const ab = midpoint(a, b),
        bc = midpoint(b, c),
        ca = midpoint(c, a);
      next.push(a, ab, ca, b, bc, ab, c, ca, bc, ab, bc, ca);
    }
    faces = next;
  }
  const positions = new Float64Array(verts.length);
  for (let i = 0; i < verts.length; i += 3) {
    const l = Math.hypot(verts[i], verts[i + 1], verts[i + 2]);
    positions[i] = (verts[i] / l) * radius;
    positions[i + 1] = (verts[i + 1] / l) * radius;
    positions[i + 2] = (verts[i + 2] / l) * radius;
  }
  const mesh = { positions, triangles: Uint32Array.from(faces) };
  orientConsistently(mesh);
  return mesh;
}

/**
 * The Stanford bunny surface from the npm package `bunny` (1,839 vertices,
 * 3,674 triangles, closed), scaled to `height` metres tall, standing on y = 0
 * and centred in x and z.
 */
export function bunnyMesh(height = 0.5): TriangleMesh {
  if (!(height > 0)) throw new PbdError('mesh/bunny', 'bunny.height', `must be > 0, got ${height}`);
  const src = bunny as { positions: number[][]; cells: number[][] };
  const n = src.positions.length;
  const lo = [Infinity, Infinity, Infinity],
    hi = [-Infinity, -Infinity, -Infinity];
  for (const p of src.positions) {
    for (let k = 0; k < 3; k++) {
      lo[k] = Math.min(lo[k], p[k]);
      hi[k] = Math.max(hi[k], p[k]);
    }
  }
  const s = height / (hi[1] - lo[1]);
  const positions = new Float64Array(3 * n);
  for (let i = 0; i < n; i++) {
    const p = src.positions[i];
    positions[3 * i] = (p[0] - (lo[0] + hi[0]) / 2) * s;
    positions[3 * i + 1] = (p[1] - lo[1]) * s;
    positions[3 * i + 2] = (p[2] - (lo[2] + hi[2]) / 2) * s;
  }
  const triangles = new Uint32Array(3 * src.cells.length);
  for (let t = 0; t < src.cells.length; t++) triangles.set(src.cells[t], 3 * t);
  const mesh = { positions, triangles };
  orientConsistently(mesh);
  return mesh;
}

/** A rigid placement: scale, then rotate (Euler degrees XYZ), then translate. */
export interface Placement {
  translate?: Vec3Tuple;
  rotate?: Vec3Tuple;
  scale?: number | Vec3Tuple;
}

/** Returns a copy of the mesh positions with the placement applied. */
export function placePositions(positions: Float64Array, place: Placement | undefined): Float64Array {
  const out = new Float64Array(positions);
  if (!place) return out;
  const s = place.scale ?? 1;
  const [sx, sy, sz] = typeof s === 'number' ? [s, s, s] : s;
  const q = new Float64Array([0, 0, 0, 1]);
  if (place.rotate) quatFromEulerDegrees(q, 0, place.rotate[0], place.rotate[1], place.rotate[2]);
  const t = place.translate ?? [0, 0, 0];
  for (let i = 0; i < out.length; i += 3) {
    quatRotate(out, i, q, 0, out[i] * sx, out[i + 1] * sy, out[i + 2] * sz);
    out[i] += t[0];
    out[i + 1] += t[1];
    out[i + 2] += t[2];
  }
  return out;
}

/**
 * A sack (the cloth bag of 003 Figure 3): an open cylinder along y with its
 * rim at y = 0 reaching down to y = −height, closed by a hemispherical
 * bottom (lowest point y = −height − radius). `segments` vertices around,
 * `rings` rings along the cylinder. The rim is the only boundary.
 */
export function sackMesh(radius: number, height: number, segments = 24, rings = 12): TriangleMesh {
  if (!(radius > 0) || !(height > 0))
    throw new PbdError('mesh/sack', 'sack', 'radius and height must be > 0');
  if (!(Number.isInteger(segments) && segments >= 3 && Number.isInteger(rings) && rings >= 1)) {
    throw new PbdError('mesh/sack', 'sack', 'segments must be an integer ≥ 3 and rings an integer ≥ 1');
  }
  const capRings = Math.max(2, Math.round(rings / 2));
  const pos: number[] = [];
  // cylinder rings from the rim (y = 0) down to y = −height, then the hemisphere
  const ringY: number[] = [];
  const ringR: number[] = [];
  for (let r = 0; r <= rings; r++) {
    ringY.push(-(height * r) / rings);
    ringR.push(radius);
  }
  for (let r = 1; r < capRings; r++) {
    const a = ((Math.PI / 2) * r) / capRings;
    ringY.push(-height - radius * Math.sin(a));
    ringR.push(radius * Math.cos(a));
  }
  for (let r = 0; r < ringY.length; r++) {
    for (let s = 0; s < segments; s++) {
      const t = (2 * Math.PI * s) / segments;
      pos.push(ringR[r] * Math.cos(t), ringY[r], ringR[r] * Math.sin(t));
    }
  }
  const bottom = pos.length / 3;
  pos.push(0, -height - radius, 0);
  const tris: number[] = [];
  for (let r = 0; r + 1 < ringY.length; r++) {
    for (let s = 0; s < segments; s++) {
      const a = r * segments + s,
        b = r * segments + ((s + 1) % segments);
      const c = a + segments,
        d = b + segments;
      tris.push(a, b, d, a, d, c);
    }
  }
  const last = (ringY.length - 1) * segments;
  for (let s = 0; s < segments; s++) tris.push(last + s, last + ((s + 1) % segments), bottom);
  return { positions: Float64Array.from(pos), triangles: Uint32Array.from(tris) };
}

/**
 * The surface of a box of half extents (hx, hy, hz) centred at the origin,
 * each face a grid of `cells` cells along its longest side (at least one
 * per side): closed, welded, outward-oriented.
 */
export function boxMesh(hx: number, hy: number, hz: number, cells = 4): TriangleMesh {
  const h = [hx, hy, hz];
  for (let a = 0; a < 3; a++) {
    requirePositiveAs(h[a], 'a finite number > 0', 'mesh/box', `box.halfExtents[${a}]`);
  }
  requireIntegerIn(cells, 1, 1024, 'mesh/box', 'box.cells');
  const longest = Math.max(hx, hy, hz);
  const n = h.map((e) => Math.max(1, Math.round((cells * e) / longest)));
  const index = new Map<number, number>();
  const positions: number[] = [];
  const key = (i: number, j: number, k: number) => (i * (n[1] + 1) + j) * (n[2] + 1) + k;
  const vertex = (c: number[]): number => {
    const kk = key(c[0], c[1], c[2]);
    let v = index.get(kk);
    if (v === undefined) {
      v = positions.length / 3;
      index.set(kk, v);
      for (let a = 0; a < 3; a++) positions.push(-h[a] + (2 * h[a] * c[a]) / n[a]);
    }
    return v;
  };
  const triangles: number[] = [];
  for (let ax = 0; ax < 3; ax++) {
    // u × v points along +ax: the quad (a, b, c, d) is counter-clockwise seen from +ax
    const u = (ax + 1) % 3,
      w = (ax + 2) % 3;
    for (let side = 0; side < 2; side++) {
      for (let i = 0; i < n[u]; i++) {
        for (let j = 0; j < n[w]; j++) {
          const c = [0, 0, 0];
          c[ax] = side * n[ax];
          const at = (di: number, dj: number) => {
            c[u] = i + di;
            c[w] = j + dj;
            return vertex(c);
          };
          const a = at(0, 0),
            b = at(1, 0),
            cc = at(1, 1),
            d = at(0, 1);
          if (side === 1) triangles.push(a, b, cc, a, cc, d);
          else triangles.push(a, cc, b, a, d, cc);
        }
      }
    }
  }
  return { positions: Float64Array.from(positions), triangles: Uint32Array.from(triangles) };
}
