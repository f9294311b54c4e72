/**
 * Adaptive lattices: octree sampling with summation nodes (Steinemann,
 * Otaduy, Gross 2008; survey 000 §4.3.2).
 *
 * A coarse cube is subdivided as an octree by a user criterion. A simulation
 * node (particle) sits at the centre of every leaf inside the shape; every
 * inner (virtual) node stands for the sum over its descendant leaves.
 *
 * The region of particle i is every leaf within its region width ω_i
 * (L∞ distance between leaf centres, so regions are cubes as in lattice
 * shape matching, and widths may differ per particle — inhomogeneous
 * material). A top-down traversal, once, assigns each region its
 * summation nodes: a node whose descendant leaves all lie within ω_i is
 * taken whole; a node whose leaves all lie outside is skipped; only a node
 * that is partly inside is refined. For a roughly balanced octree this
 * gives O(1) summation nodes per region.
 *
 * gather: leaf sums, then virtual-node sums bottom-up (O(n)), then each
 * region adds its O(1) summation nodes. scatter (blending goal positions):
 * each region adds its value to its summation nodes, then the node values
 * are pushed down to the leaves top-down, so every particle receives the
 * sum over the regions that contain it (O(n) in all).
 */
import { PbdError } from '../core/errors.js';
import type { RegionSummation } from './summation.js';

export interface OctreeOptions {
  /** Corner of the root cube with the smallest coordinates. */
  min: ArrayLike<number>;
  /** Edge length of the root cube. */
  size: number;
  /** Deepest level (the root is level 0). */
  maxDepth: number;
  /** Whether a cell (centre, edge length, depth) should be split further. */
  refine: (x: number, y: number, z: number, size: number, depth: number) => boolean;
  /** Whether a leaf centre lies inside the simulated shape. */
  inside: (x: number, y: number, z: number) => boolean;
}

/** An octree whose inside leaves are the simulation nodes. */
export class AdaptiveLattice {
  /** Per node: parent (−1 for the root), first child (−1 for a leaf; children are consecutive), depth. */
  readonly parent: Int32Array;
  readonly firstChild: Int32Array;
  readonly depth: Int32Array;
  /** Per node: centre (3) and edge length. */
  readonly center: Float64Array;
  readonly size: Float64Array;
  /** Particle of each node (−1 for virtual nodes and empty leaves); node of each particle. */
  readonly nodeParticle: Int32Array;
  readonly particleNode: Int32Array;
  /** Bounding box of the descendant leaf centres of each node (min xyz, max xyz); empty nodes have min > max. */
  readonly bounds: Float64Array;

  constructor(o: OctreeOptions) {
    if (!(o.size > 0) || !(Number.isInteger(o.maxDepth) && o.maxDepth >= 0 && o.maxDepth <= 12)) {
      throw new PbdError(
        'octree/invalid',
        'octree',
        `needs size > 0 and an integer maxDepth in 0…12, got size ${o.size}, maxDepth ${o.maxDepth}`,
      );
    }
    const parent: number[] = [-1],
      first: number[] = [-1],
      depth: number[] = [0];
    const center: number[] = [o.min[0] + o.size / 2, o.min[1] + o.size / 2, o.min[2] + o.size / 2];
    const size: number[] = [o.size];
    // breadth-first construction: children of a node are consecutive, parents precede children
    for (let n = 0; n < parent.length; n++) {
      const s = size[n];
      if (depth[n] >= o.maxDepth) continue;
      if (!o.refine(center[3 * n], center[3 * n + 1], center[3 * n + 2], s, depth[n])) continue;
      first[n] = parent.length;
      for (let c = 0; c < 8; c++) {
        parent.push(n);
        first.push(-1);
        depth.push(depth[n] + 1);
        size.push(s / 2);
        center.push(
          center[3 * n] + ((c & 1) - 0.5) * (s / 2),
          center[3 * n + 1] + (((c >> 1) & 1) - 0.5) * (s / 2),
          center[3 * n + 2] + ((c >> 2) - 0.5) * (s / 2),
        );
      }
    }
    const nn = parent.length;
    this.parent = Int32Array.from(parent);
    this.firstChild = Int32Array.from(first);
    this.depth = Int32Array.from(depth);
    this.center = Float64Array.from(center);
    this.size = Float64Array.from(size);
    this.nodeParticle = new Int32Array(nn).fill(-1);
    const leaves: number[] = [];
    for (let n = 0; n < nn; n++) {
      if (first[n] < 0 && o.inside(center[3 * n], center[3 * n + 1], center[3 * n + 2])) {
        this.nodeParticle[n] = leaves.length;
        leaves.push(n);
      }
    }
    if (leaves.length === 0) {
      throw new PbdError('octree/empty', 'octree', 'no leaf centre lies inside the shape', 'refine further');
    }
    this.particleNode = Int32Array.from(leaves);
    const b = new Float64Array(6 * nn);
    for (let n = 0; n < nn; n++) {
      b[6 * n] = b[6 * n + 1] = b[6 * n + 2] = Infinity;
      b[6 * n + 3] = b[6 * n + 4] = b[6 * n + 5] = -Infinity;
    }
    for (let n = nn - 1; n >= 0; n--) {
      if (this.nodeParticle[n] >= 0) {
        for (let k = 0; k < 3; k++) {
          b[6 * n + k] = Math.min(b[6 * n + k], center[3 * n + k]);
          b[6 * n + 3 + k] = Math.max(b[6 * n + 3 + k], center[3 * n + k]);
        }
      }
      const p = parent[n];
      if (p >= 0) {
        for (let k = 0; k < 3; k++) {
          b[6 * p + k] = Math.min(b[6 * p + k], b[6 * n + k]);
          b[6 * p + 3 + k] = Math.max(b[6 * p + 3 + k], b[6 * n + 3 + k]);
        }
      }
    }
    this.bounds = b;
  }

  get count(): number {
    return this.particleNode.length;
  }

  get nodes(): number {
    return this.parent.length;
  }

  /** Rest positions of the particles (leaf centres). */
  positions(): Float64Array {
    const out = new Float64Array(3 * this.count);
    for (let p = 0; p < this.count; p++) {
      const n = this.particleNode[p];
      out.set(this.center.subarray(3 * n, 3 * n + 3), 3 * p);
    }
    return out;
  }

  /** Edge length of each particle's leaf cell (for masses m = ρ s³ and region widths). */
  cellSizes(): Float64Array {
    const out = new Float64Array(this.count);
    for (let p = 0; p < this.count; p++) out[p] = this.size[this.particleNode[p]];
    return out;
  }
}

/** Octree fast summation with per-region widths ω_i (see the file comment). */
export class OctreeSummation implements RegionSummation {
  readonly kind = 'octree';
  readonly tree: AdaptiveLattice;
  readonly particles: number;
  readonly regions: number;
  /** Region r sums the nodes sumNode[sumStart[r] … sumStart[r + 1]). */
  readonly sumStart: Int32Array;
  readonly sumNode: Int32Array;
  private nodeValues = new Float64Array(0);

  /** @param widths region width ω_r of each particle's region (L∞ distance between leaf centres) */
  constructor(tree: AdaptiveLattice, widths: ArrayLike<number>) {
    this.tree = tree;
    this.particles = tree.count;
    this.regions = tree.count;
    if (widths.length !== tree.count) {
      throw new PbdError(
        'octree/widths',
        'regionWidths',
        `has ${widths.length} entries for ${tree.count} particles`,
      );
    }
    const start = [0];
    const nodes: number[] = [];
    const stack: number[] = [];
    const b = tree.bounds,
      c = tree.center,
      first = tree.firstChild;
    for (let r = 0; r < tree.count; r++) {
      const w = widths[r];
      const pn = tree.particleNode[r];
      const px = c[3 * pn],
        py = c[3 * pn + 1],
        pz = c[3 * pn + 2];
      stack.length = 0;
      stack.push(0);
      while (stack.length > 0) {
        const n = stack.pop()!;
        if (b[6 * n] > b[6 * n + 3]) continue; // no leaf inside the shape below n
        // exact largest L∞ distance of the descendant leaves (per axis, a box corner is attained)
        const maxD = Math.max(
          Math.max(Math.abs(b[6 * n] - px), Math.abs(b[6 * n + 3] - px)),
          Math.max(Math.abs(b[6 * n + 1] - py), Math.abs(b[6 * n + 4] - py)),
          Math.max(Math.abs(b[6 * n + 2] - pz), Math.abs(b[6 * n + 5] - pz)),
        );
        if (maxD <= w) {
          nodes.push(n);
          continue;
        }
        const minD = Math.max(
          Math.max(b[6 * n] - px, px - b[6 * n + 3], 0),
          Math.max(b[6 * n + 1] - py, py - b[6 * n + 4], 0),
          Math.max(b[6 * n + 2] - pz, pz - b[6 * n + 5], 0),
        );
        if (minD > w || first[n] < 0) continue;
        for (let k = 7; k >= 0; k--) stack.push(first[n] + k);
      }
      start.push(nodes.length);
    }
    this.sumStart = Int32Array.from(start);
    this.sumNode = Int32Array.from(nodes);
  }

  /** Average number of summation nodes per region. */
  get nodesPerRegion(): number {
    return this.sumNode.length / Math.max(1, this.regions);
  }

  private ensure(stride: number): Float64Array {
    const need = this.tree.nodes * stride;
    if (this.nodeValues.length < need) this.nodeValues = new Float64Array(need);
    return this.nodeValues;
  }

  gather(values: Float64Array, out: Float64Array, stride: number): void {
    const nv = this.ensure(stride);
    const t = this.tree;
    const nn = t.nodes;
    nv.fill(0, 0, nn * stride);
    for (let p = 0; p < this.particles; p++) {
      const d = t.particleNode[p] * stride,
        s = p * stride;
      for (let k = 0; k < stride; k++) nv[d + k] = values[s + k];
    }
    // bottom-up: children come after their parents in the node order
    const parent = t.parent;
    for (let n = nn - 1; n > 0; n--) {
      const d = parent[n] * stride,
        s = n * stride;
      for (let k = 0; k < stride; k++) nv[d + k] += nv[s + k];
    }
    const start = this.sumStart,
      sn = this.sumNode;
    for (let r = 0; r < this.regions; r++) {
      const o = r * stride;
      for (let k = 0; k < stride; k++) out[o + k] = 0;
      for (let m = start[r]; m < start[r + 1]; m++) {
        const s = sn[m] * stride;
        for (let k = 0; k < stride; k++) out[o + k] += nv[s + k];
      }
    }
  }

  scatter(values: Float64Array, out: Float64Array, stride: number): void {
    const nv = this.ensure(stride);
    const t = this.tree;
    const nn = t.nodes;
    nv.fill(0, 0, nn * stride);
    const start = this.sumStart,
      sn = this.sumNode;
    for (let r = 0; r < this.regions; r++) {
      const s = r * stride;
      for (let m = start[r]; m < start[r + 1]; m++) {
        const d = sn[m] * stride;
        for (let k = 0; k < stride; k++) nv[d + k] += values[s + k];
      }
    }
    // top-down: a leaf receives what was added to it and to every ancestor
    const parent = t.parent;
    for (let n = 1; n < nn; n++) {
      const s = parent[n] * stride,
        d = n * stride;
      for (let k = 0; k < stride; k++) nv[d + k] += nv[s + k];
    }
    for (let p = 0; p < this.particles; p++) {
      const s = t.particleNode[p] * stride,
        d = p * stride;
      for (let k = 0; k < stride; k++) out[d + k] = nv[s + k];
    }
  }

  members(r: number): Int32Array {
    const out: number[] = [];
    const t = this.tree;
    const stack: number[] = [];
    for (let m = this.sumStart[r]; m < this.sumStart[r + 1]; m++) {
      stack.push(this.sumNode[m]);
      while (stack.length > 0) {
        const n = stack.pop()!;
        if (t.nodeParticle[n] >= 0) out.push(t.nodeParticle[n]);
        else if (t.firstChild[n] >= 0) for (let k = 0; k < 8; k++) stack.push(t.firstChild[n] + k);
      }
    }
    return Int32Array.from(out).sort();
  }

  /** The members of region r found by testing every leaf (the definition the summation nodes must reproduce). */
  static bruteForceMembers(tree: AdaptiveLattice, r: number, width: number): Int32Array {
    const c = tree.center;
    const pn = tree.particleNode[r];
    const out: number[] = [];
    for (let p = 0; p < tree.count; p++) {
      const n = tree.particleNode[p];
      const d = Math.max(
        Math.abs(c[3 * n] - c[3 * pn]),
        Math.abs(c[3 * n + 1] - c[3 * pn + 1]),
        Math.abs(c[3 * n + 2] - c[3 * pn + 2]),
      );
      if (d <= width) out.push(p);
    }
    return Int32Array.from(out);
  }
}
