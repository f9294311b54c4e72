/**
 * Adaptive lattices: octree sampling with summation nodes (Steinemann,
 * Otaduy, Gross 2008; survey 000 §4.3.2).
 *
 * A coarse cube is subdivided as an octree by a user criterion. A simulation
 * node (particle) sits at the centre of every leaf inside the shape; every
 * inner (virtual) node stands for the sum over its descendant leaves.
 *
 * Regions (the survey's "interval-based definition of the shape matching
 * regions"): particle i has a region width ω_i of its own (inhomogeneous
 * material) and a region level ℓ_i, the shallowest octree depth whose cell
 * size s_ℓ is at most ω_i (so ω_i / s_ℓ ∈ [1, 2), unless ω_i is below the
 * finest cell size). Every leaf j is represented at that level by q_ℓ(j),
 * the centre of its ancestor at depth ℓ (its own centre when the leaf is at
 * depth ≤ ℓ), and
 *
 *     ℜ_i = { j : ‖q_ℓi(j) − q_ℓi(i)‖∞ ≤ ω_i }.
 *
 * Where the octree is at least as fine as ℓ_i around particle i, this is
 * the index interval [a − 1, a + 1]³ of level-ℓ_i cells around the
 * particle's cell a: a cube of half-width 1.5 s_ℓ ∈ (0.75 ω_i, 1.5 ω_i],
 * equal to ω_i when ω_i = 1.5 × a cell size (the default), so the width
 * acts in octaves of the cell size; coarser leaves join when their centre
 * is within ω_i. Every particle lies in its own region, and two particles
 * with the same level and width lie in each other's regions or in neither.
 *
 * Summation nodes, once (000 §4.3.2): a top-down traversal computes for
 * each node the interval of distances from q_ℓi(i) of its descendants'
 * representatives; a node whose interval lies within ω_i is taken whole, a
 * node whose interval lies beyond ω_i is skipped, and only a node partly
 * inside is refined. The descendants of a node at depth ℓ_i share one
 * representative, so the interval has zero length there and the traversal
 * never goes deeper. The summation nodes of a region are disjoint cells of
 * size ≥ s_ℓ whose centres lie in a box of side 2ω_i < 4 s_ℓ, two of them
 * ≥ s_ℓ apart in some direction, so a region has at most 4³ = 64 summation
 * nodes whatever ω_i is (20 for a full 3³ block: its aligned 2³ sub-block
 * is one node) — O(1) per region, O(n) in all. (Measuring distances to the
 * finest leaves instead makes the faces of a region cube cut through
 * Θ((ω/s)²) leaves, so the cost grows with ω.) All distances are integers
 * on the grid of the finest level, so the traversal and the brute-force
 * definition (bruteForceMembers) decide ties identically.
 *
 * gather: leaf sums, then virtual-node sums bottom-up (O(n)), then each
 * region adds its summation nodes. scatter (blending goal positions): each
 * region adds its value to its summation nodes, then the node values are
 * pushed down to the leaves top-down, so every particle receives the sum
 * over the regions that contain it — the exact transpose of gather (O(n) in
 * all).
 */
import { PbdError } from '../core/errors.js';
import { grownArray } from '../math/arrays.js';
import { type RegionSummation, sumLists } from './summation.js';

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
  /** Deepest level the tree may have (the option maxDepth); the grid below counts in halves of its cell size. */
  readonly maxDepth: number;
  /**
   * Per node: integer centre (3) on the grid of spacing unit = size / 2^(maxDepth+1): a node at depth d with
   * cell index a along an axis has coordinate (2a + 1)·2^(maxDepth−d).
   */
  readonly grid: Int32Array;
  /** Per node: integer bounding box of its inside descendant leaves' grid centres (min xyz, max xyz); empty: min > max. */
  readonly gridBounds: Int32Array;
  /** Grid spacing: half the cell size at depth maxDepth. */
  readonly unit: number;
  /** Per node: smallest depth of its inside descendant leaves (maxDepth + 1 when it has none). */
  readonly minLeafDepth: Int32Array;

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
    this.maxDepth = o.maxDepth;
    this.unit = o.size / 2 ** (o.maxDepth + 1);
    const grid = new Int32Array(3 * nn);
    grid[0] = grid[1] = grid[2] = 1 << o.maxDepth;
    for (let n = 0; n < nn; n++) {
      if (first[n] < 0) continue;
      const h = 1 << (o.maxDepth - depth[n] - 1); // half a child's cell
      for (let c = 0; c < 8; c++) {
        const m = first[n] + c;
        grid[3 * m] = grid[3 * n] + (c & 1 ? h : -h);
        grid[3 * m + 1] = grid[3 * n + 1] + ((c >> 1) & 1 ? h : -h);
        grid[3 * m + 2] = grid[3 * n + 2] + (c >> 2 ? h : -h);
      }
    }
    this.grid = grid;
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
    const gb = new Int32Array(6 * nn);
    const mld = new Int32Array(nn).fill(o.maxDepth + 1);
    for (let n = 0; n < nn; n++) {
      b[6 * n] = b[6 * n + 1] = b[6 * n + 2] = Infinity;
      b[6 * n + 3] = b[6 * n + 4] = b[6 * n + 5] = -Infinity;
      gb[6 * n] = gb[6 * n + 1] = gb[6 * n + 2] = 0x7fffffff;
      gb[6 * n + 3] = gb[6 * n + 4] = gb[6 * n + 5] = -1;
    }
    for (let n = nn - 1; n >= 0; n--) {
      if (this.nodeParticle[n] >= 0) {
        mld[n] = depth[n];
        for (let k = 0; k < 3; k++) {
          b[6 * n + k] = Math.min(b[6 * n + k], center[3 * n + k]);
          b[6 * n + 3 + k] = Math.max(b[6 * n + 3 + k], center[3 * n + k]);
          gb[6 * n + k] = Math.min(gb[6 * n + k], grid[3 * n + k]);
          gb[6 * n + 3 + k] = Math.max(gb[6 * n + 3 + k], grid[3 * n + k]);
        }
      }
      const p = parent[n];
      if (p >= 0) {
        mld[p] = Math.min(mld[p], mld[n]);
        for (let k = 0; k < 3; k++) {
          b[6 * p + k] = Math.min(b[6 * p + k], b[6 * n + k]);
          b[6 * p + 3 + k] = Math.max(b[6 * p + 3 + k], b[6 * n + 3 + k]);
          gb[6 * p + k] = Math.min(gb[6 * p + k], gb[6 * n + k]);
          gb[6 * p + 3 + k] = Math.max(gb[6 * p + 3 + k], gb[6 * n + 3 + k]);
        }
      }
    }
    this.bounds = b;
    this.gridBounds = gb;
    this.minLeafDepth = mld;
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

/**
 * Region level of a width w given in grid units: the shallowest depth ℓ ≤ maxDepth whose cell size
 * 2^(maxDepth−ℓ+1) is at most w (the deepest level, maxDepth, when even its cells are wider than w).
 */
function regionLevel(w: number, maxDepth: number): number {
  let l = maxDepth;
  while (l > 0 && 2 ** (maxDepth - l + 2) <= w) l--;
  return l;
}

/** Representative of a grid coordinate at cell size S (a power of two): the centre of its cell. */
function quantize(c: number, S: number): number {
  return (c & -S) + (S >> 1);
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
  /** Region level ℓ_r of each region: the depth at which its members are resolved. */
  readonly level: Int32Array;
  private nodeValues = new Float64Array(0);

  /** @param widths region width ω_r of each particle's region (L∞ half-width in length units, see the file comment) */
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
    const D = tree.maxDepth;
    const start = new Int32Array(tree.count + 1);
    let nodes = new Int32Array(16 * tree.count + 64); // grows when needed (at most 64 per region)
    let count = 0;
    const stack = new Int32Array(8 * (D + 1) + 1);
    const g = tree.grid,
      gb = tree.gridBounds,
      first = tree.firstChild,
      depth = tree.depth;
    this.level = new Int32Array(tree.count);
    for (let r = 0; r < tree.count; r++) {
      const omega = widths[r];
      if (!(omega >= 0 && Number.isFinite(omega))) {
        throw new PbdError(
          'octree/widths',
          `regionWidths[${r}]`,
          `must be a finite width ≥ 0, got ${omega}`,
          'the region of a particle is the cube of half-width ω around it',
        );
      }
      const w = omega / tree.unit;
      const l = regionLevel(w, D);
      this.level[r] = l;
      const S = 2 ** (D - l + 1); // level cell size in grid units
      const pn = tree.particleNode[r];
      const own = depth[pn] > l;
      const px = own ? quantize(g[3 * pn], S) : g[3 * pn],
        py = own ? quantize(g[3 * pn + 1], S) : g[3 * pn + 1],
        pz = own ? quantize(g[3 * pn + 2], S) : g[3 * pn + 2];
      let top = 0;
      stack[top++] = 0;
      while (top > 0) {
        const n = stack[--top];
        if (gb[6 * n] > gb[6 * n + 3]) continue; // no leaf inside the shape below n
        let take: boolean;
        if (depth[n] >= l || first[n] < 0) {
          // one representative for every descendant: decided exactly
          const q = depth[n] > l;
          const d = Math.max(
            Math.abs((q ? quantize(g[3 * n], S) : g[3 * n]) - px),
            Math.abs((q ? quantize(g[3 * n + 1], S) : g[3 * n + 1]) - py),
            Math.abs((q ? quantize(g[3 * n + 2], S) : g[3 * n + 2]) - pz),
          );
          take = d <= w;
        } else {
          // the representatives of the descendants lie in [Q(min), Q(max)] per axis, Q monotone (exactly
          // this box when every descendant leaf is at depth ≥ ℓ; a leaf above ℓ is its own centre,
          // Q(c) − S/2, hence the margin); the interval of their distances from q(i) decides
          const h = tree.minLeafDepth[n] < l ? S >> 1 : 0;
          const x0 = quantize(gb[6 * n], S) - h,
            x1 = quantize(gb[6 * n + 3], S),
            y0 = quantize(gb[6 * n + 1], S) - h,
            y1 = quantize(gb[6 * n + 4], S),
            z0 = quantize(gb[6 * n + 2], S) - h,
            z1 = quantize(gb[6 * n + 5], S);
          const dmax = Math.max(px - x0, x1 - px, py - y0, y1 - py, pz - z0, z1 - pz);
          take = dmax <= w;
          if (!take) {
            const dmin = Math.max(x0 - px, px - x1, y0 - py, py - y1, z0 - pz, pz - z1, 0);
            if (dmin <= w) for (let k = 7; k >= 0; k--) stack[top++] = first[n] + k;
          }
        }
        if (take) {
          if (count === nodes.length) nodes = grownArray(nodes, 2 * nodes.length);
          nodes[count++] = n;
        }
      }
      start[r + 1] = count;
    }
    this.sumStart = start;
    this.sumNode = nodes.slice(0, count);
  }

  /** Average number of summation nodes per region. */
  get nodesPerRegion(): number {
    return this.sumNode.length / Math.max(1, this.regions);
  }

  /** Largest number of summation nodes of a region (at most 64 by construction, see the file comment). */
  get maxNodesPerRegion(): number {
    let m = 0;
    for (let r = 0; r < this.regions; r++) m = Math.max(m, this.sumStart[r + 1] - this.sumStart[r]);
    return m;
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
    sumLists(nv, out, stride, this.regions, this.sumStart, this.sumNode);
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

  /**
   * The members of region r found by testing every leaf against the definition in the file comment
   * (what the summation nodes must reproduce).
   */
  static bruteForceMembers(tree: AdaptiveLattice, r: number, width: number): Int32Array {
    const g = tree.grid;
    const D = tree.maxDepth;
    const w = width / tree.unit;
    const l = regionLevel(w, D);
    const S = 2 ** (D - l + 1);
    const rep = (n: number, k: number) => (tree.depth[n] > l ? quantize(g[3 * n + k], S) : g[3 * n + k]);
    const pn = tree.particleNode[r];
    const out: number[] = [];
    for (let p = 0; p < tree.count; p++) {
      const n = tree.particleNode[p];
      let d = 0;
      for (let k = 0; k < 3; k++) d = Math.max(d, Math.abs(rep(n, k) - rep(pn, k)));
      if (d <= w) out.push(p);
    }
    return Int32Array.from(out);
  }
}
