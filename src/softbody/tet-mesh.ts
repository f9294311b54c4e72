import { tetVolume } from '../constraints/volume.js';
import { PbdError, requirePositiveAs } from '../core/errors.js';
import { checkFiniteVertices, checkVertexIndex, edgeCross, edgeCrossOut } from '../mesh/triangle-mesh.js';

/** An indexed tetrahedral mesh: xyz-interleaved positions and four vertex indices per tet. */
export interface TetMesh {
  positions: Float64Array;
  tets: Uint32Array;
}

/**
 * Validates a tet mesh and orients it: indices must be in range and distinct
 * within a tet, coordinates finite, no tet may have (nearly) zero volume,
 * and all tets must share one orientation. A mesh whose tets are all
 * negatively oriented (another file convention) is flipped; a mesh that
 * mixes orientations has inverted tets and is rejected, naming the first
 * one. Returns a positively oriented copy (signed volume
 * (p1 − p0) × (p2 − p0) · (p3 − p0) / 6 > 0 for every tet (p0, p1, p2, p3)).
 */
export function validateTetMesh(mesh: TetMesh, where = 'tet mesh'): TetMesh {
  const { positions, tets } = mesh;
  if (positions.length % 3 !== 0 || positions.length === 0) {
    throw new PbdError(
      'tetmesh/bad-positions',
      `${where}.positions`,
      `length ${positions.length} is not a positive multiple of 3`,
    );
  }
  if (tets.length % 4 !== 0 || tets.length === 0) {
    throw new PbdError(
      'tetmesh/bad-tets',
      `${where}.tets`,
      `length ${tets.length} is not a positive multiple of 4`,
      'a tet mesh needs at least one tetrahedron',
    );
  }
  const nv = positions.length / 3;
  checkFiniteVertices(positions, 'tetmesh', where);
  const nt = tets.length / 4;
  const used = new Uint8Array(nv);
  for (let t = 0; t < nt; t++) {
    for (let k = 0; k < 4; k++) {
      const i = tets[4 * t + k];
      checkVertexIndex(
        i,
        nv,
        'tetmesh/bad-index',
        `${where}: tet ${t}`,
        'check the index base of the file (0- or 1-based) and that the node list is complete',
      );
      for (let j = 0; j < k; j++) {
        if (tets[4 * t + j] === i) {
          throw new PbdError(
            'tetmesh/repeated-vertex',
            `${where}: tet ${t}`,
            `uses vertex ${i} twice`,
            'remove the degenerate tet',
          );
        }
      }
      used[i] = 1;
    }
  }
  for (let i = 0; i < nv; i++) {
    if (!used[i]) {
      throw new PbdError(
        'tetmesh/unused-vertex',
        `${where}: vertex ${i}`,
        'belongs to no tet, so it would have no mass',
        'remove unreferenced vertices from the mesh',
      );
    }
  }
  // a volume below this is "zero": relative to the mean edge length cubed
  let scale = 0;
  for (let t = 0; t < nt; t++) {
    const a = 3 * tets[4 * t],
      b = 3 * tets[4 * t + 1];
    scale += Math.hypot(
      positions[b] - positions[a],
      positions[b + 1] - positions[a + 1],
      positions[b + 2] - positions[a + 2],
    );
  }
  scale /= nt;
  const eps = 1e-12 * scale * scale * scale;
  const vol = new Float64Array(nt);
  let pos = 0,
    neg = 0;
  for (let t = 0; t < nt; t++) {
    const v = tetVolume(positions, tets[4 * t], tets[4 * t + 1], tets[4 * t + 2], tets[4 * t + 3]);
    vol[t] = v;
    if (!(Math.abs(v) > eps)) {
      throw new PbdError(
        'tetmesh/zero-volume',
        `${where}: tet ${t}`,
        `has zero volume (${v.toExponential(2)}; vertices ${Array.from(tets.subarray(4 * t, 4 * t + 4)).join(', ')})`,
        'remove the flat tet or move its vertices apart',
      );
    }
    if (v > 0) pos++;
    else neg++;
  }
  if (pos > 0 && neg > 0) {
    const minority = pos >= neg ? -1 : 1;
    let t = 0;
    while (Math.sign(vol[t]) !== minority) t++;
    throw new PbdError(
      'tetmesh/inverted-tet',
      `${where}: tet ${t}`,
      `is inverted: ${Math.min(pos, neg)} of ${nt} tets are oriented against the rest (vertices ${Array.from(tets.subarray(4 * t, 4 * t + 4)).join(', ')})`,
      'swap two vertices of each inverted tet, or regenerate the mesh',
    );
  }
  const out = new Uint32Array(tets);
  if (neg > 0) {
    for (let t = 0; t < nt; t++) {
      const k = out[4 * t];
      out[4 * t] = out[4 * t + 1];
      out[4 * t + 1] = k;
    }
  }
  return { positions: new Float64Array(positions), tets: out };
}

/**
 * The boundary of a tet mesh: faces that belong to exactly one tet, with
 * outward normals (counter-clockwise seen from outside).
 */
export function tetSurface(mesh: TetMesh): Uint32Array {
  const { positions: x, tets } = mesh;
  const nt = tets.length / 4;
  const faces = new Map<string, number>();
  const out: number[] = [];
  const opposite = [
    [1, 2, 3, 0],
    [0, 3, 2, 1],
    [0, 1, 3, 2],
    [0, 2, 1, 3],
  ];
  const rec: number[] = [];
  for (let t = 0; t < nt; t++) {
    for (const [p, q, r, o] of opposite) {
      const a = tets[4 * t + p],
        b = tets[4 * t + q],
        c = tets[4 * t + r],
        d = tets[4 * t + o];
      const key = [a, b, c].sort((u, v) => u - v).join(',');
      const k = faces.get(key);
      if (k === undefined) {
        faces.set(key, rec.length);
        rec.push(a, b, c, d, 1);
      } else {
        rec[k + 4]++;
      }
    }
  }
  for (let k = 0; k < rec.length; k += 5) {
    if (rec[k + 4] !== 1) continue;
    const a = rec[k],
      d = rec[k + 3];
    let b = rec[k + 1],
      c = rec[k + 2];
    // the normal (b − a) × (c − a) must point away from the opposite vertex
    edgeCross(x, 3 * a, 3 * b, 3 * c);
    const n = edgeCrossOut;
    const dx = x[3 * d] - x[3 * a],
      dy = x[3 * d + 1] - x[3 * a + 1],
      dz = x[3 * d + 2] - x[3 * a + 2];
    if (n[0] * dx + n[1] * dy + n[2] * dz > 0) {
      const s = b;
      b = c;
      c = s;
    }
    out.push(a, b, c);
  }
  return Uint32Array.from(out);
}

/** The distinct edges of a tet mesh, two vertex indices each (smaller first). */
export function tetEdges(tets: ArrayLike<number>): Uint32Array {
  const seen = new Set<number>();
  const out: number[] = [];
  for (let t = 0; t < tets.length / 4; t++) {
    for (let i = 0; i < 4; i++) {
      for (let j = i + 1; j < 4; j++) {
        const a = Math.min(tets[4 * t + i], tets[4 * t + j]),
          b = Math.max(tets[4 * t + i], tets[4 * t + j]);
        const key = a * 67108864 + b;
        if (!seen.has(key)) {
          seen.add(key);
          out.push(a, b);
        }
      }
    }
  }
  return Uint32Array.from(out);
}

/** Quality figures of a tet mesh. */
export interface TetQuality {
  vertices: number;
  tets: number;
  /** Smallest and largest dihedral angle over all tets (degrees). */
  minDihedral: number;
  maxDihedral: number;
  /** Smallest and total volume. */
  minVolume: number;
  totalVolume: number;
  /** Largest ratio longest edge / (inradius · 2√6), 1 for a regular tet. */
  maxAspect: number;
}

/** Measures a tet mesh (see TetQuality). */
export function tetQuality(mesh: TetMesh): TetQuality {
  const { positions: x, tets } = mesh;
  const nt = tets.length / 4;
  let minD = 180,
    maxD = 0,
    minV = Infinity,
    total = 0,
    maxAspect = 0;
  const n = new Float64Array(12);
  for (let t = 0; t < nt; t++) {
    const v = tetDihedrals(x, tets, t, n);
    minD = Math.min(minD, n[0]);
    maxD = Math.max(maxD, n[1]);
    minV = Math.min(minV, v);
    total += v;
    maxAspect = Math.max(maxAspect, n[2]);
  }
  return {
    vertices: x.length / 3,
    tets: nt,
    minDihedral: minD,
    maxDihedral: maxD,
    minVolume: minV,
    totalVolume: total,
    maxAspect,
  };
}

/**
 * Signed volume of tet t; writes its smallest and largest dihedral angle
 * (degrees) and its aspect ratio to out[0..2].
 */
export function tetDihedrals(
  x: ArrayLike<number>,
  tets: ArrayLike<number>,
  t: number,
  out: Float64Array,
): number {
  const p = [0, 1, 2, 3].map((k) => 3 * tets[4 * t + k]);
  const vol = tetVolume(x, tets[4 * t], tets[4 * t + 1], tets[4 * t + 2], tets[4 * t + 3]);
  // outward face normals (area-weighted) of the faces opposite each vertex
  const normals: number[][] = [];
  let area = 0;
  for (let o = 0; o < 4; o++) {
    const [a, b, c] = [0, 1, 2, 3].filter((k) => k !== o).map((k) => p[k]);
    edgeCross(x, a, b, c);
    let nx = edgeCrossOut[0],
      ny = edgeCrossOut[1],
      nz = edgeCrossOut[2];
    const dx = x[p[o]] - x[a],
      dy = x[p[o] + 1] - x[a + 1],
      dz = x[p[o] + 2] - x[a + 2];
    if (nx * dx + ny * dy + nz * dz > 0) {
      nx = -nx;
      ny = -ny;
      nz = -nz;
    }
    const l = Math.hypot(nx, ny, nz);
    area += 0.5 * l;
    normals.push(l > 0 ? [nx / l, ny / l, nz / l] : [0, 0, 0]);
  }
  let minD = 180,
    maxD = 0;
  for (let i = 0; i < 4; i++) {
    for (let j = i + 1; j < 4; j++) {
      const d = normals[i][0] * normals[j][0] + normals[i][1] * normals[j][1] + normals[i][2] * normals[j][2];
      const ang = 180 - (Math.acos(Math.max(-1, Math.min(1, d))) * 180) / Math.PI;
      minD = Math.min(minD, ang);
      maxD = Math.max(maxD, ang);
    }
  }
  let longest = 0;
  for (let i = 0; i < 4; i++)
    for (let j = i + 1; j < 4; j++)
      longest = Math.max(
        longest,
        Math.hypot(x[p[i]] - x[p[j]], x[p[i] + 1] - x[p[j] + 1], x[p[i] + 2] - x[p[j] + 2]),
      );
  const inradius = area > 0 ? (3 * Math.abs(vol)) / area : 0;
  out[0] = minD;
  out[1] = maxD;
  out[2] = inradius > 0 ? longest / (inradius * 2 * Math.sqrt(6)) : Infinity;
  return vol;
}

export interface TetBoxOptions {
  /** Size along x, y, z (m). */
  size: [number, number, number];
  /** Vertices along x, y, z (≥ 2 each). */
  resolution: [number, number, number];
  /** Position of the box's minimum corner. Default [0, 0, 0]. */
  origin?: [number, number, number];
}

/**
 * A box (or bar) of hexahedral cells, each split into five tetrahedra; the
 * split alternates between neighbouring cells so that shared faces use the
 * same diagonal and the mesh is conforming.
 */
export function tetBox(o: TetBoxOptions, where = 'box'): TetMesh {
  const [nx, ny, nz] = o.resolution;
  for (const [k, n] of [nx, ny, nz].entries()) {
    if (!(Number.isInteger(n) && n >= 2)) {
      throw new PbdError('tetmesh/box', `${where}.resolution[${k}]`, `must be an integer ≥ 2, got ${n}`);
    }
  }
  for (const [k, s] of o.size.entries()) {
    requirePositiveAs(s, '> 0', 'tetmesh/box', `${where}.size[${k}]`);
  }
  const [ox, oy, oz] = o.origin ?? [0, 0, 0];
  const positions = new Float64Array(3 * nx * ny * nz);
  const id = (i: number, j: number, k: number) => (i * ny + j) * nz + k;
  for (let i = 0; i < nx; i++)
    for (let j = 0; j < ny; j++)
      for (let k = 0; k < nz; k++) {
        const v = 3 * id(i, j, k);
        positions[v] = ox + (o.size[0] * i) / (nx - 1);
        positions[v + 1] = oy + (o.size[1] * j) / (ny - 1);
        positions[v + 2] = oz + (o.size[2] * k) / (nz - 1);
      }
  const tets: number[] = [];
  for (let i = 0; i + 1 < nx; i++)
    for (let j = 0; j + 1 < ny; j++)
      for (let k = 0; k + 1 < nz; k++) {
        const c = (a: number, b: number, d: number) => id(i + a, j + b, k + d);
        const v000 = c(0, 0, 0),
          v100 = c(1, 0, 0),
          v010 = c(0, 1, 0),
          v001 = c(0, 0, 1);
        const v110 = c(1, 1, 0),
          v101 = c(1, 0, 1),
          v011 = c(0, 1, 1),
          v111 = c(1, 1, 1);
        if ((i + j + k) % 2 === 0) {
          tets.push(
            v000,
            v100,
            v010,
            v001,
            v110,
            v100,
            v010,
            v111,
            v101,
            v100,
            v001,
            v111,
            v011,
            v010,
            v001,
            v111,
          );
          tets.push(v100, v010, v001, v111);
        } else {
          tets.push(
            v100,
            v000,
            v110,
            v101,
            v010,
            v000,
            v110,
            v011,
            v001,
            v000,
            v101,
            v011,
            v111,
            v110,
            v101,
            v011,
          );
          tets.push(v000, v110, v101, v011);
        }
      }
  const out = Uint32Array.from(tets);
  orientTets(positions, out);
  return { positions, tets: out };
}

/** Swaps two vertices of every negatively oriented tet (in place). */
export function orientTets(positions: ArrayLike<number>, tets: Uint32Array): void {
  for (let t = 0; t < tets.length / 4; t++) {
    if (tetVolume(positions, tets[4 * t], tets[4 * t + 1], tets[4 * t + 2], tets[4 * t + 3]) < 0) {
      const s = tets[4 * t];
      tets[4 * t] = tets[4 * t + 1];
      tets[4 * t + 1] = s;
    }
  }
}
