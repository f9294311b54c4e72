/**
 * Shapes for the shape-matching scenes, generated in code: a torus and a
 * rubber duck (Figure 14), plant skeletons and fin sheets of oriented
 * particles (Figure 18), and ellipsoid (or sphere) particles fitted to a
 * mesh (Figure 19).
 */
import { PbdError } from '../core/errors.js';
import { quatFromMat3 } from '../math/polar.js';
import { svd3 } from '../math/svd3.js';
import { icosphere } from '../mesh/generators.js';
import { orientConsistently, type TriangleMesh } from '../mesh/triangle-mesh.js';
import { Lattice } from './lattice.js';

/** A torus around the y axis: major radius R, tube radius r; closed, outward-facing. */
export function torusMesh(R: number, r: number, segments = 32, sides = 16): TriangleMesh {
  if (!(R > r && r > 0)) throw new PbdError('mesh/torus', 'torus', `needs R > r > 0, got R = ${R}, r = ${r}`);
  if (!(Number.isInteger(segments) && segments >= 3 && Number.isInteger(sides) && sides >= 3)) {
    throw new PbdError('mesh/torus', 'torus', 'segments and sides must be integers ≥ 3');
  }
  const pos: number[] = [];
  for (let i = 0; i < segments; i++) {
    const u = (2 * Math.PI * i) / segments;
    for (let j = 0; j < sides; j++) {
      const v = (2 * Math.PI * j) / sides;
      const w = R + r * Math.cos(v);
      pos.push(w * Math.cos(u), r * Math.sin(v), w * Math.sin(u));
    }
  }
  const tri: number[] = [];
  for (let i = 0; i < segments; i++)
    for (let j = 0; j < sides; j++) {
      const a = i * sides + j,
        b = ((i + 1) % segments) * sides + j;
      const c = i * sides + ((j + 1) % sides),
        d = ((i + 1) % segments) * sides + ((j + 1) % sides);
      tri.push(a, c, d, a, d, b);
    }
  const mesh = { positions: Float64Array.from(pos), triangles: Uint32Array.from(tri) };
  orientConsistently(mesh);
  return mesh;
}

/**
 * A closed box of the given full size centred at the origin, each face a
 * grid of quads no longer than `cell` (so that a lattice embedding finds a
 * vertex in every surface cell); outward-facing.
 */
export function boxMesh(
  size: ArrayLike<number>,
  cell = Math.min(size[0], size[1], size[2]) / 4,
): TriangleMesh {
  if (!(size[0] > 0 && size[1] > 0 && size[2] > 0)) {
    throw new PbdError(
      'mesh/box',
      'box.size',
      `every side must be > 0, got [${Array.from(size).join(', ')}]`,
    );
  }
  const pos: number[] = [];
  const tri: number[] = [];
  const index = new Map<string, number>();
  const vertex = (x: number, y: number, z: number): number => {
    const key = `${x.toFixed(9)},${y.toFixed(9)},${z.toFixed(9)}`;
    let i = index.get(key);
    if (i === undefined) {
      i = pos.length / 3;
      index.set(key, i);
      pos.push(x, y, z);
    }
    return i;
  };
  const h = [size[0] / 2, size[1] / 2, size[2] / 2];
  // each face: normal axis a with sign s, spanned by axes b and c (b × c = s e_a)
  for (const [a, sgn] of [
    [0, 1],
    [0, -1],
    [1, 1],
    [1, -1],
    [2, 1],
    [2, -1],
  ]) {
    const b = (a + 1) % 3,
      c = (a + 2) % 3;
    const nb = Math.max(1, Math.ceil(size[b] / cell)),
      nc = Math.max(1, Math.ceil(size[c] / cell));
    const id: number[] = [];
    for (let i = 0; i <= nb; i++)
      for (let j = 0; j <= nc; j++) {
        const p = [0, 0, 0];
        p[a] = sgn * h[a];
        p[b] = -h[b] + (size[b] * i) / nb;
        p[c] = -h[c] + (size[c] * j) / nc;
        id.push(vertex(p[0], p[1], p[2]));
      }
    for (let i = 0; i < nb; i++)
      for (let j = 0; j < nc; j++) {
        const v00 = id[i * (nc + 1) + j],
          v10 = id[(i + 1) * (nc + 1) + j],
          v01 = id[i * (nc + 1) + j + 1],
          v11 = id[(i + 1) * (nc + 1) + j + 1];
        if (sgn > 0) tri.push(v00, v10, v11, v00, v11, v01);
        else tri.push(v00, v11, v10, v00, v01, v11);
      }
  }
  const mesh = { positions: Float64Array.from(pos), triangles: Uint32Array.from(tri) };
  orientConsistently(mesh);
  return mesh;
}

/**
 * The signed-distance-like function of a rubber duck of body length ≈ 2·size
 * (negative inside): a smooth union (soft minimum) of the body, head, beak
 * and tail ellipsoids. Facing +x, standing on y ≈ −0.6·size.
 */
export function duckField(size: number): (x: number, y: number, z: number) => number {
  const parts: number[][] = [
    // centre (3), radii (3)
    [0, 0, 0, 1, 0.6, 0.75],
    [0.62, 0.78, 0, 0.42, 0.42, 0.42],
    [1.08, 0.7, 0, 0.28, 0.09, 0.17],
    [-0.85, 0.3, 0, 0.32, 0.22, 0.3],
  ].map((p) => p.map((v) => v * size));
  const k = 0.12 * size;
  return (x, y, z) => {
    let s = 0;
    for (const p of parts) {
      const dx = (x - p[0]) / p[3],
        dy = (y - p[1]) / p[4],
        dz = (z - p[2]) / p[5];
      const f = (Math.sqrt(dx * dx + dy * dy + dz * dz) - 1) * Math.min(p[3], p[4], p[5]);
      s += Math.exp(-f / k);
    }
    return -k * Math.log(s);
  };
}

/**
 * A rubber duck surface (Figure 14): an icosphere projected radially onto
 * the duck field from a point inside the body (the farthest crossing along
 * each ray, so the surface is star-shaped and closed).
 */
export function duckMesh(size = 0.2, subdivisions = 3): TriangleMesh {
  if (!(size > 0)) throw new PbdError('mesh/duck', 'duck.size', `must be > 0, got ${size}`);
  const f = duckField(size);
  const mesh = icosphere(1, subdivisions);
  const c = [0.25 * size, 0.3 * size, 0];
  const p = mesh.positions;
  const tMax = 3 * size;
  for (let i = 0; i < p.length; i += 3) {
    const dx = p[i],
      dy = p[i + 1],
      dz = p[i + 2];
    // march inward from outside to the first inside point, then bisect
    let hi = tMax,
      lo = tMax;
    const steps = 120;
    for (let s = 1; s <= steps; s++) {
      const t = tMax * (1 - s / steps);
      if (f(c[0] + t * dx, c[1] + t * dy, c[2] + t * dz) < 0) {
        lo = t;
        hi = t + tMax / steps;
        break;
      }
    }
    for (let it = 0; it < 40; it++) {
      const m = 0.5 * (lo + hi);
      if (f(c[0] + m * dx, c[1] + m * dy, c[2] + m * dz) < 0) lo = m;
      else hi = m;
    }
    p[i] = c[0] + lo * dx;
    p[i + 1] = c[1] + lo * dy;
    p[i + 2] = c[2] + lo * dz;
  }
  orientConsistently(mesh);
  return mesh;
}

/** Rest positions and edges of oriented particles. */
export interface ParticleGraph {
  positions: Float64Array;
  edges: Uint32Array;
  /** Particles to pin (roots, a fin's base). */
  pinned: number[];
}

/**
 * A plant (Figure 18): a stem of `segments` particles from `base` upwards,
 * gently curved, with side branches (one every `branchEvery` stem particles,
 * alternating sides, `branchLength` particles each). The root is pinned.
 */
export function plantGraph(
  base: ArrayLike<number>,
  height: number,
  segments: number,
  branchEvery = 3,
  branchLength = 3,
  seed = 1,
): ParticleGraph {
  if (!(height > 0) || !(Number.isInteger(segments) && segments >= 2)) {
    throw new PbdError('shape/plant', 'plant', 'needs height > 0 and at least 2 segments');
  }
  const pos: number[] = [];
  const edges: number[] = [];
  const d = height / (segments - 1);
  let phase = seed * 2.39996;
  for (let s = 0; s < segments; s++) {
    const t = s / (segments - 1);
    pos.push(
      base[0] + 0.15 * height * t * t * Math.cos(phase),
      base[1] + s * d,
      base[2] + 0.15 * height * t * t * Math.sin(phase),
    );
    if (s > 0) edges.push(s - 1, s);
  }
  for (let s = branchEvery; s < segments - 1; s += branchEvery) {
    phase += 2.39996; // golden angle between successive branches
    const dx = Math.cos(phase),
      dz = Math.sin(phase);
    let prev = s;
    for (let k = 1; k <= branchLength; k++) {
      const i = pos.length / 3;
      pos.push(
        pos[3 * s] + dx * k * d * 0.8,
        pos[3 * s + 1] + k * d * 0.45,
        pos[3 * s + 2] + dz * k * d * 0.8,
      );
      edges.push(prev, i);
      prev = i;
    }
  }
  return { positions: Float64Array.from(pos), edges: Uint32Array.from(edges), pinned: [0] };
}

/**
 * A fin (Figure 18): a cols × rows sheet of particles in the xy plane
 * (width along x, height along y) with structural edges; the column at x =
 * min (the base) is pinned.
 */
export function sheetGraph(
  origin: ArrayLike<number>,
  width: number,
  height: number,
  cols: number,
  rows: number,
): ParticleGraph {
  if (!(cols >= 2 && rows >= 2 && Number.isInteger(cols) && Number.isInteger(rows))) {
    throw new PbdError('shape/sheet', 'sheet', 'needs integer cols, rows ≥ 2');
  }
  const pos: number[] = [];
  const edges: number[] = [];
  const pinned: number[] = [];
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++) {
      const i = r * cols + c;
      // a fin tapers: rows fan out towards the tip
      const taper = 1 - 0.4 * (c / (cols - 1));
      pos.push(
        origin[0] + (width * c) / (cols - 1),
        origin[1] + height * (r / (rows - 1) - 0.5) * taper,
        origin[2],
      );
      if (c > 0) edges.push(i - 1, i);
      if (r > 0) edges.push(i - cols, i);
      if (c === 0) pinned.push(i);
    }
  return { positions: Float64Array.from(pos), edges: Uint32Array.from(edges), pinned };
}

/** Oriented particles fitted to a solid (Figure 19). */
export interface FittedParticles {
  positions: Float64Array;
  /** Radii a, b, c per particle. */
  radii: Float64Array;
  /** Orientations (x, y, z, w per particle): the principal axes of each cluster. */
  orientations: Float64Array;
  /** Neighbouring clusters (their cells touch). */
  edges: Uint32Array;
  /** Volume of each cluster (m³). */
  volumes: Float64Array;
}

/**
 * Splits the solid bounded by a closed mesh into `count` clusters of a fine
 * sampling lattice (k-means, deterministic seeding along the longest axis)
 * and represents each by an ellipsoid with the cluster's second moments —
 * a solid ellipsoid with radii (a, b, c) has covariance diag(a², b², c²)/5,
 * so a = √(5 λ) along each principal axis — or, with `spheres`, by the
 * sphere of the same volume (radius ∛(abc)). Clusters whose lattice cells
 * touch are joined by an edge (the shape-matching groups).
 */
export function fitParticles(
  mesh: TriangleMesh,
  count: number,
  spheres = false,
  resolution = 24,
): FittedParticles {
  if (!(Number.isInteger(count) && count >= 1))
    throw new PbdError('shape/fit', 'fit.particles', `must be an integer ≥ 1, got ${count}`);
  const pos = mesh.positions;
  let ext = 0;
  for (let k = 0; k < 3; k++) {
    let lo = Infinity,
      hi = -Infinity;
    for (let i = k; i < pos.length; i += 3) {
      lo = Math.min(lo, pos[i]);
      hi = Math.max(hi, pos[i]);
    }
    ext = Math.max(ext, hi - lo);
  }
  const h = ext / resolution;
  const lat = Lattice.fromMesh(mesh, h, 'fit');
  const pts = lat.positions();
  const n = pts.length / 3;
  if (n < count)
    throw new PbdError(
      'shape/fit',
      'fit.particles',
      `the solid has only ${n} samples for ${count} particles`,
      'use fewer particles',
    );
  // deterministic seeding: samples spread along the principal axis order, then Lloyd iterations
  const order = Array.from({ length: n }, (_, i) => i).sort(
    (a, b) =>
      pts[3 * a] +
      0.37 * pts[3 * a + 1] +
      0.11 * pts[3 * a + 2] -
      (pts[3 * b] + 0.37 * pts[3 * b + 1] + 0.11 * pts[3 * b + 2]),
  );
  const cen = new Float64Array(3 * count);
  for (let c = 0; c < count; c++) {
    const s = order[Math.floor(((c + 0.5) * n) / count)];
    cen.set(pts.subarray(3 * s, 3 * s + 3), 3 * c);
  }
  const label = new Int32Array(n);
  for (let it = 0; it < 30; it++) {
    for (let i = 0; i < n; i++) {
      let best = 0,
        bd = Infinity;
      for (let c = 0; c < count; c++) {
        const d =
          (pts[3 * i] - cen[3 * c]) ** 2 +
          (pts[3 * i + 1] - cen[3 * c + 1]) ** 2 +
          (pts[3 * i + 2] - cen[3 * c + 2]) ** 2;
        if (d < bd) {
          bd = d;
          best = c;
        }
      }
      label[i] = best;
    }
    const sum = new Float64Array(4 * count);
    for (let i = 0; i < n; i++) {
      const c = label[i];
      for (let k = 0; k < 3; k++) sum[4 * c + k] += pts[3 * i + k];
      sum[4 * c + 3]++;
    }
    for (let c = 0; c < count; c++)
      if (sum[4 * c + 3] > 0) for (let k = 0; k < 3; k++) cen[3 * c + k] = sum[4 * c + k] / sum[4 * c + 3];
  }
  const cov = new Float64Array(9 * count),
    num = new Float64Array(count);
  for (let i = 0; i < n; i++) {
    const c = label[i];
    num[c]++;
    for (let a = 0; a < 3; a++)
      for (let b = 0; b < 3; b++)
        cov[9 * c + 3 * a + b] += (pts[3 * i + a] - cen[3 * c + a]) * (pts[3 * i + b] - cen[3 * c + b]);
  }
  const radii = new Float64Array(3 * count),
    orient = new Float64Array(4 * count),
    volumes = new Float64Array(count);
  const U = new Float64Array(9),
    S = new Float64Array(3),
    V = new Float64Array(9);
  for (let c = 0; c < count; c++) {
    const m = Math.max(1, num[c]);
    // each sample stands for a cube of side h, whose own second moment is h²/12 per axis
    for (let k = 0; k < 9; k++) cov[9 * c + k] = cov[9 * c + k] / m + (k % 4 === 0 ? (h * h) / 12 : 0);
    svd3(cov, 9 * c, U, 0, S, 0, V, 0);
    for (let k = 0; k < 3; k++) radii[3 * c + k] = Math.sqrt(5 * Math.max(S[k], (h * h) / 12));
    if (spheres) {
      const r = Math.cbrt(radii[3 * c] * radii[3 * c + 1] * radii[3 * c + 2]);
      radii[3 * c] = radii[3 * c + 1] = radii[3 * c + 2] = r;
    }
    quatFromMat3(orient, 4 * c, U, 0);
    volumes[c] = num[c] * h ** 3;
  }
  // clusters whose samples are lattice neighbours are joined
  const edgeSet = new Set<number>();
  const { nx, ny, nz, nodeParticle, particleNode } = lat;
  for (let i = 0; i < n; i++) {
    const node = particleNode[i];
    const x = node % nx,
      y = Math.floor(node / nx) % ny,
      z = Math.floor(node / (nx * ny));
    for (const [dx, dy, dz] of [
      [1, 0, 0],
      [0, 1, 0],
      [0, 0, 1],
    ]) {
      if (x + dx >= nx || y + dy >= ny || z + dz >= nz) continue;
      const j = nodeParticle[x + dx + nx * (y + dy + ny * (z + dz))];
      if (j < 0 || label[j] === label[i]) continue;
      const a = Math.min(label[i], label[j]),
        b = Math.max(label[i], label[j]);
      edgeSet.add(a * count + b);
    }
  }
  const edges = Uint32Array.from(
    [...edgeSet].sort((a, b) => a - b).flatMap((k) => [Math.floor(k / count), k % count]),
  );
  return { positions: cen, radii, orientations: orient, edges, volumes };
}
