/**
 * Regular lattices and FastLSM (Rivers & James 2007; survey 000 §4.3.1).
 *
 * Particles sit on the occupied nodes of a regular nx × ny × nz lattice of
 * spacing h. The region of particle r is the cube of half-width w lattice
 * steps around it, restricted to occupied nodes (so |ℜ_r| ≤ (2w + 1)³).
 *
 * FastLSM sums over these cubes in three passes: bars along x, plates in
 * the y direction from the bar sums, cubes in the z direction from the
 * plate sums. Each pass is a sliding window: the sum of two neighbouring
 * bars (plates, cubes) differs by one entering and one leaving element, so
 * every pass costs O(1) per lattice node whatever w is — O(n) in all,
 * against O(w³ n) for adding up each region. Empty nodes hold zero, so the
 * boundary needs no special sums. Cube membership is symmetric (j is in the
 * cube of r exactly when r is in the cube of j), so blending goal positions
 * (scatter) is the same box sum applied to per-region values.
 */
import { PbdError, requirePositiveAs } from '../core/errors.js';
import { positionBounds, type TriangleMesh, triangleYZBounds, yzBoundsOut } from '../mesh/triangle-mesh.js';
import type { RegionSummation } from './summation.js';

export class Lattice {
  readonly nx: number;
  readonly ny: number;
  readonly nz: number;
  /** Position of node (0, 0, 0). */
  readonly origin: Float64Array;
  readonly spacing: number;
  /** Particle index of each node, −1 when the node is empty. Node (i, j, k) is i + nx (j + ny k). */
  readonly nodeParticle: Int32Array;
  /** Node of each particle. */
  readonly particleNode: Int32Array;

  constructor(
    dims: [number, number, number],
    origin: ArrayLike<number>,
    spacing: number,
    occupied: ArrayLike<number | boolean>,
  ) {
    const [nx, ny, nz] = dims;
    if (![nx, ny, nz].every((d) => Number.isInteger(d) && d >= 1)) {
      throw new PbdError(
        'lattice/dims',
        'lattice',
        `dimensions must be integers ≥ 1, got [${dims.join(', ')}]`,
      );
    }
    requirePositiveAs(spacing, '> 0', 'lattice/spacing', 'lattice.spacing');
    this.nx = nx;
    this.ny = ny;
    this.nz = nz;
    this.origin = Float64Array.from(origin);
    this.spacing = spacing;
    const n = nx * ny * nz;
    this.nodeParticle = new Int32Array(n).fill(-1);
    const nodes: number[] = [];
    for (let c = 0; c < n; c++) {
      if (occupied[c]) {
        this.nodeParticle[c] = nodes.length;
        nodes.push(c);
      }
    }
    if (nodes.length === 0) {
      throw new PbdError(
        'lattice/empty',
        'lattice',
        'no lattice node lies inside the shape',
        'use a smaller spacing or check that the mesh is closed and outward-facing',
      );
    }
    this.particleNode = Int32Array.from(nodes);
  }

  get count(): number {
    return this.particleNode.length;
  }

  /** Rest positions of the particles (xyz interleaved). */
  positions(): Float64Array {
    const out = new Float64Array(3 * this.count);
    const { nx, ny, spacing: h, origin: o } = this;
    for (let p = 0; p < this.count; p++) {
      const c = this.particleNode[p];
      const i = c % nx,
        j = Math.floor(c / nx) % ny,
        k = Math.floor(c / (nx * ny));
      out[3 * p] = o[0] + i * h;
      out[3 * p + 1] = o[1] + j * h;
      out[3 * p + 2] = o[2] + k * h;
    }
    return out;
  }

  /** The nodes of the lattice of spacing h over the bounding box of `mesh` that lie inside the closed mesh. */
  static fromMesh(mesh: TriangleMesh, spacing: number, where = 'lattice'): Lattice {
    requirePositiveAs(spacing, '> 0', 'lattice/spacing', `${where}.spacing`);
    const pos = mesh.positions;
    const { lo, hi } = positionBounds(pos);
    const dims: [number, number, number] = [0, 0, 0];
    const origin = [0, 0, 0];
    for (let k = 0; k < 3; k++) {
      dims[k] = Math.floor((hi[k] - lo[k]) / spacing) + 3;
      origin[k] = 0.5 * (lo[k] + hi[k]) - 0.5 * (dims[k] - 1) * spacing;
    }
    if (dims[0] * dims[1] * dims[2] > 4e6) {
      throw new PbdError(
        'lattice/too-fine',
        `${where}.spacing`,
        `spacing ${spacing} gives a ${dims.join(' × ')} lattice`,
        'use a larger spacing (a few thousand particles are plenty for shape matching)',
      );
    }
    const inside = insideMask(mesh, dims, origin, spacing);
    // crop to the occupied nodes: FastLSM's passes cost O(lattice nodes), empty ones included
    const [nx, ny, nz] = dims;
    const n0 = [nx, ny, nz],
      n1 = [-1, -1, -1];
    for (let c = 0; c < inside.length; c++) {
      if (!inside[c]) continue;
      const ijk = [c % nx, Math.floor(c / nx) % ny, Math.floor(c / (nx * ny))];
      for (let k = 0; k < 3; k++) {
        n0[k] = Math.min(n0[k], ijk[k]);
        n1[k] = Math.max(n1[k], ijk[k]);
      }
    }
    if (n1[0] < 0) return new Lattice(dims, origin, spacing, inside); // empty: the constructor names the problem
    const cd: [number, number, number] = [n1[0] - n0[0] + 1, n1[1] - n0[1] + 1, n1[2] - n0[2] + 1];
    const cropped = new Uint8Array(cd[0] * cd[1] * cd[2]);
    for (let k = 0; k < cd[2]; k++)
      for (let j = 0; j < cd[1]; j++)
        for (let i = 0; i < cd[0]; i++)
          cropped[i + cd[0] * (j + cd[1] * k)] = inside[i + n0[0] + nx * (j + n0[1] + ny * (k + n0[2]))];
    const co = [0, 1, 2].map((k) => origin[k] + n0[k] * spacing);
    return new Lattice(cd, co, spacing, cropped);
  }

  /** The lattice nodes inside an implicit shape (inside(x, y, z) true) over a box. */
  static fromInside(
    min: ArrayLike<number>,
    max: ArrayLike<number>,
    spacing: number,
    inside: (x: number, y: number, z: number) => boolean,
  ): Lattice {
    const dims: [number, number, number] = [0, 0, 0];
    for (let k = 0; k < 3; k++) dims[k] = Math.floor((max[k] - min[k]) / spacing + 1e-9) + 1;
    const [nx, ny, nz] = dims;
    const occ = new Uint8Array(nx * ny * nz);
    for (let k = 0; k < nz; k++)
      for (let j = 0; j < ny; j++)
        for (let i = 0; i < nx; i++)
          occ[i + nx * (j + ny * k)] = inside(
            min[0] + i * spacing,
            min[1] + j * spacing,
            min[2] + k * spacing,
          )
            ? 1
            : 0;
    return new Lattice(dims, min, spacing, occ);
  }
}

/**
 * Which nodes of the lattice lie inside the closed mesh: a ray along +x per
 * (j, k) line, crossing parity. The ray is offset by an irrational fraction
 * of the spacing so that it never passes exactly through a mesh edge.
 */
function insideMask(mesh: TriangleMesh, dims: number[], origin: number[], h: number): Uint8Array {
  const [nx, ny, nz] = dims;
  const out = new Uint8Array(nx * ny * nz);
  const pos = mesh.positions,
    tri = mesh.triangles;
  const nt = tri.length / 3;
  // bin triangles by the (j, k) lines their yz bounding box covers
  const bins: number[][] = Array.from({ length: ny * nz }, () => []);
  const dy = 1.37e-7 * h,
    dz = 2.71e-7 * h;
  for (let t = 0; t < nt; t++) {
    triangleYZBounds(pos, tri, t);
    const [y0, y1, z0, z1] = yzBoundsOut;
    const j0 = Math.max(0, Math.ceil((y0 - origin[1] - dy) / h)),
      j1 = Math.min(ny - 1, Math.floor((y1 - origin[1] - dy) / h));
    const k0 = Math.max(0, Math.ceil((z0 - origin[2] - dz) / h)),
      k1 = Math.min(nz - 1, Math.floor((z1 - origin[2] - dz) / h));
    for (let k = k0; k <= k1; k++) for (let j = j0; j <= j1; j++) bins[j + ny * k].push(t);
  }
  const xs: number[] = [];
  for (let k = 0; k < nz; k++) {
    for (let j = 0; j < ny; j++) {
      const py = origin[1] + j * h + dy,
        pz = origin[2] + k * h + dz;
      xs.length = 0;
      for (const t of bins[j + ny * k]) {
        const x = crossingX(pos, 3 * tri[3 * t], 3 * tri[3 * t + 1], 3 * tri[3 * t + 2], py, pz);
        if (!Number.isNaN(x)) xs.push(x);
      }
      xs.sort((p, q) => p - q);
      for (let m = 0; m + 1 < xs.length; m += 2) {
        const i0 = Math.max(0, Math.ceil((xs[m] - origin[0]) / h)),
          i1 = Math.min(nx - 1, Math.floor((xs[m + 1] - origin[0]) / h));
        for (let i = i0; i <= i1; i++) out[i + nx * (j + ny * k)] = 1;
      }
    }
  }
  return out;
}

/**
 * Where the line {(x, py, pz)} crosses the triangle with corners at pos[a],
 * pos[b], pos[c] (offsets of x): its x coordinate, or NaN when it misses
 * (barycentric coordinates in the yz projection).
 */
export function crossingX(
  pos: ArrayLike<number>,
  a: number,
  b: number,
  c: number,
  py: number,
  pz: number,
): number {
  const ay = pos[a + 1] - py,
    az = pos[a + 2] - pz;
  const by = pos[b + 1] - py,
    bz = pos[b + 2] - pz;
  const cy = pos[c + 1] - py,
    cz = pos[c + 2] - pz;
  const u = by * cz - bz * cy,
    v = cy * az - cz * ay,
    w = ay * bz - az * by;
  if ((u < 0 || v < 0 || w < 0) && (u > 0 || v > 0 || w > 0)) return Number.NaN;
  const s = u + v + w;
  if (s === 0) return Number.NaN;
  return (u * pos[a] + v * pos[b] + w * pos[c]) / s;
}

/** FastLSM region sums over the cubes of half-width w (see the file comment). */
export class LatticeSummation implements RegionSummation {
  readonly kind = 'lattice';
  readonly lattice: Lattice;
  readonly halfWidth: number;
  readonly particles: number;
  readonly regions: number;
  private a = new Float64Array(0);
  private b = new Float64Array(0);

  constructor(lattice: Lattice, halfWidth: number) {
    if (!(Number.isInteger(halfWidth) && halfWidth >= 0)) {
      throw new PbdError(
        'lattice/region-width',
        'regionHalfWidth',
        `must be an integer ≥ 0, got ${halfWidth}`,
        'the region of a node is the cube of ±w lattice steps around it',
      );
    }
    this.lattice = lattice;
    this.halfWidth = halfWidth;
    this.particles = lattice.count;
    this.regions = lattice.count;
  }

  private ensure(): void {
    const need = this.lattice.nodeParticle.length;
    if (this.a.length < need) {
      this.a = new Float64Array(need);
      this.b = new Float64Array(need);
    }
  }

  /**
   * out[p] = Σ over the cube around particle p of the values at the particles
   * in it, one component at a time (scalar sliding windows over whole
   * lattice lines are what V8 runs fastest).
   */
  private boxSum(values: Float64Array, out: Float64Array, stride: number): void {
    this.ensure();
    const { nx, ny, nz, particleNode } = this.lattice;
    const a = this.a,
      b = this.b;
    const N = nx * ny * nz;
    const w = this.halfWidth;
    const np = this.particles;
    for (let k = 0; k < stride; k++) {
      a.fill(0, 0, N);
      for (let p = 0; p < np; p++) a[particleNode[p]] = values[p * stride + k];
      // bars along x, plates along y, cubes along z
      for (let line = 0; line < ny * nz; line++) slide(a, b, line * nx, 1, nx, w);
      for (let kk = 0; kk < nz; kk++) for (let i = 0; i < nx; i++) slide(b, a, i + nx * ny * kk, nx, ny, w);
      for (let j = 0; j < nx * ny; j++) slide(a, b, j, nx * ny, nz, w);
      for (let p = 0; p < np; p++) out[p * stride + k] = b[particleNode[p]];
    }
  }

  gather(values: Float64Array, out: Float64Array, stride: number): void {
    this.boxSum(values, out, stride);
  }

  scatter(values: Float64Array, out: Float64Array, stride: number): void {
    this.boxSum(values, out, stride);
  }

  members(r: number): Int32Array {
    const { nx, ny, nz, nodeParticle, particleNode } = this.lattice;
    const c = particleNode[r];
    const i = c % nx,
      j = Math.floor(c / nx) % ny,
      k = Math.floor(c / (nx * ny));
    const w = this.halfWidth;
    const out: number[] = [];
    for (let kk = Math.max(0, k - w); kk <= Math.min(nz - 1, k + w); kk++)
      for (let jj = Math.max(0, j - w); jj <= Math.min(ny - 1, j + w); jj++)
        for (let ii = Math.max(0, i - w); ii <= Math.min(nx - 1, i + w); ii++) {
          const p = nodeParticle[ii + nx * (jj + ny * kk)];
          if (p >= 0) out.push(p);
        }
    return Int32Array.from(out);
  }
}

/** Sliding-window sums of half-width w along one lattice line (first node, step between nodes, length). */
function slide(
  src: Float64Array,
  dst: Float64Array,
  base: number,
  step: number,
  len: number,
  w: number,
): void {
  let acc = 0;
  const first = Math.min(w, len - 1);
  for (let i = 0; i <= first; i++) acc += src[base + i * step];
  dst[base] = acc;
  for (let i = 1; i < len; i++) {
    if (i + w < len) acc += src[base + (i + w) * step];
    if (i - w - 1 >= 0) acc -= src[base + (i - w - 1) * step];
    dst[base + i * step] = acc;
  }
}
