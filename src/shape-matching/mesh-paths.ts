/**
 * Regions on triangle meshes and their fast summation by disjoint paths
 * (Diziol, Bender, Bayer 2011; survey 000 §4.2, §4.3.3, Figure 17).
 *
 * Region i is the ω-ring of vertex i: every vertex within ω edges of it.
 * Rings are symmetric (j is in the ω-ring of i exactly when i is in the
 * ω-ring of j), so blending goal positions needs the same structure as
 * summing over regions.
 *
 * The vertices are split into disjoint paths (chains of vertices joined by
 * mesh edges). Per path, prefix sums P_k = Σ_{l ≤ k} f_l are formed (eq. 9);
 * a region meets a path in a few intervals [a, b] and its sum is the sum of
 * P_b − P_{a−1} over them (eq. 9's region update). A region of a 2D mesh
 * meets O(ω) paths, so the sums cost O(ω n) against O(ω² n) for adding up
 * every region. Blending uses the transpose: every region adds its value at
 * the start of each interval and subtracts it after the end; a running sum
 * along each path then gives every vertex the sum over its regions.
 */
import { PbdError } from '../core/errors.js';
import { buildEdgeTopology } from '../mesh/triangle-mesh.js';
import type { RegionSummation } from './summation.js';

/** Vertex adjacency (compressed rows) of a triangle mesh. */
export interface Adjacency {
  start: Int32Array;
  neighbors: Int32Array;
}

export function meshAdjacency(vertices: number, triangles: Uint32Array): Adjacency {
  const topo = buildEdgeTopology(triangles);
  const deg = new Int32Array(vertices + 1);
  const e = topo.edges;
  for (let k = 0; k < e.length; k++) deg[e[k] + 1]++;
  for (let v = 0; v < vertices; v++) deg[v + 1] += deg[v];
  const start = deg.slice();
  const cur = deg.slice(0, vertices);
  const nb = new Int32Array(e.length);
  for (let k = 0; k < e.length; k += 2) {
    nb[cur[e[k]]++] = e[k + 1];
    nb[cur[e[k + 1]]++] = e[k];
  }
  return { start, neighbors: nb };
}

/** The ω-ring of every vertex (breadth-first, sorted), as membership lists. */
export function ringRegions(adj: Adjacency, rings: number, where = 'regions'): Int32Array[] {
  if (!(Number.isInteger(rings) && rings >= 0)) {
    throw new PbdError('shape-matching/rings', `${where}.rings`, `must be an integer ≥ 0, got ${rings}`);
  }
  const n = adj.start.length - 1;
  const mark = new Int32Array(n).fill(-1);
  const out: Int32Array[] = [];
  const list: number[] = [];
  for (let i = 0; i < n; i++) {
    list.length = 0;
    list.push(i);
    mark[i] = i;
    let head = 0;
    for (let ring = 0; ring < rings; ring++) {
      const end = list.length;
      for (; head < end; head++) {
        const v = list[head];
        for (let k = adj.start[v]; k < adj.start[v + 1]; k++) {
          const u = adj.neighbors[k];
          if (mark[u] !== i) {
            mark[u] = i;
            list.push(u);
          }
        }
      }
    }
    out.push(Int32Array.from(list).sort());
  }
  return out;
}

/**
 * Splits the vertices into disjoint paths along mesh edges (the heuristic of
 * 000 §4.3.3): a path starts at the lowest unassigned vertex (in the order of
 * `axis`) and grows from its end, preferring the neighbour with most
 * assigned neighbours (to avoid gaps) and then the one closest to the plane
 * through the start vertex perpendicular to `axis` (so paths run parallel),
 * until it reaches `maxLength` or cannot grow. Returns the vertices in path
 * order and the start of each path (length paths + 1).
 */
export function buildPaths(
  positions: ArrayLike<number>,
  adj: Adjacency,
  maxLength = 512,
  axis: 0 | 1 | 2 = 1,
): { order: Int32Array; pathStart: Int32Array } {
  const n = adj.start.length - 1;
  const assigned = new Uint8Array(n);
  const assignedNb = new Int32Array(n);
  const seeds = Array.from({ length: n }, (_, i) => i).sort(
    (a, b) => positions[3 * a + axis] - positions[3 * b + axis] || a - b,
  );
  // mean edge length, to weigh plane distance against the gap count
  let len = 0;
  for (let v = 0; v < n; v++)
    for (let k = adj.start[v]; k < adj.start[v + 1]; k++) {
      const u = adj.neighbors[k];
      len += Math.hypot(
        positions[3 * u] - positions[3 * v],
        positions[3 * u + 1] - positions[3 * v + 1],
        positions[3 * u + 2] - positions[3 * v + 2],
      );
    }
  len = len / Math.max(1, adj.neighbors.length) || 1;
  const order: number[] = [];
  const pathStart = [0];
  const take = (v: number) => {
    assigned[v] = 1;
    order.push(v);
    for (let k = adj.start[v]; k < adj.start[v + 1]; k++) assignedNb[adj.neighbors[k]]++;
  };
  for (const seed of seeds) {
    if (assigned[seed]) continue;
    const plane = positions[3 * seed + axis];
    take(seed);
    let tail = seed,
      length = 1;
    while (length < maxLength) {
      let best = -1,
        bestScore = Infinity;
      for (let k = adj.start[tail]; k < adj.start[tail + 1]; k++) {
        const u = adj.neighbors[k];
        if (assigned[u]) continue;
        const score = Math.abs(positions[3 * u + axis] - plane) / len - assignedNb[u];
        if (score < bestScore || (score === bestScore && u < best)) {
          bestScore = score;
          best = u;
        }
      }
      if (best < 0) break;
      take(best);
      tail = best;
      length++;
    }
    pathStart.push(order.length);
  }
  return { order: Int32Array.from(order), pathStart: Int32Array.from(pathStart) };
}

/** Fast region sums over disjoint paths with prefix sums (see the file comment). */
export class PathSummation implements RegionSummation {
  readonly kind = 'paths';
  readonly particles: number;
  readonly regions: number;
  /** Vertices in path order; pathStart[p] … pathStart[p + 1] is path p. */
  readonly order: Int32Array;
  readonly pathStart: Int32Array;
  /**
   * Slot of each vertex in the prefix array: path p owns slots
   * pathStart[p] + p … pathStart[p + 1] + p (one more than its length, the
   * first holding 0), so vertex order[k] of path p has slot k + p + 1.
   */
  readonly slot: Int32Array;
  /** Region r meets the paths in intervals intervalLo/Hi[intervalStart[r] … intervalStart[r + 1]): sum = Q[hi] − Q[lo]. */
  readonly intervalStart: Int32Array;
  readonly intervalLo: Int32Array;
  readonly intervalHi: Int32Array;
  private readonly regionLists: Int32Array[];
  private q = new Float64Array(0);

  constructor(particles: number, regions: Int32Array[], order: Int32Array, pathStart: Int32Array) {
    this.particles = particles;
    this.regions = regions.length;
    this.order = order;
    this.pathStart = pathStart;
    this.regionLists = regions;
    if (order.length !== particles) {
      throw new PbdError('paths/cover', 'paths', `cover ${order.length} of ${particles} vertices`);
    }
    const slot = new Int32Array(particles).fill(-1);
    for (let p = 0; p + 1 < pathStart.length; p++) {
      for (let k = pathStart[p]; k < pathStart[p + 1]; k++) {
        if (slot[order[k]] >= 0)
          throw new PbdError('paths/disjoint', 'paths', `vertex ${order[k]} is on two paths`);
        slot[order[k]] = k + p + 1;
      }
    }
    this.slot = slot;
    const istart = [0],
      lo: number[] = [],
      hi: number[] = [];
    const slots: number[] = [];
    for (const members of regions) {
      slots.length = 0;
      for (let m = 0; m < members.length; m++) slots.push(slot[members[m]]);
      slots.sort((a, b) => a - b);
      if (slots.length === 0) {
        istart.push(lo.length);
        continue;
      }
      // consecutive slots lie on one path (a path's slots are contiguous and separated by its 0 slot)
      let a = slots[0];
      for (let m = 1; m <= slots.length; m++) {
        if (m < slots.length && slots[m] === slots[m - 1] + 1) continue;
        lo.push(a - 1);
        hi.push(slots[m - 1]);
        if (m < slots.length) a = slots[m];
      }
      istart.push(lo.length);
    }
    this.intervalStart = Int32Array.from(istart);
    this.intervalLo = Int32Array.from(lo);
    this.intervalHi = Int32Array.from(hi);
  }

  /** Paths and ω-ring regions of a triangle mesh. */
  static fromMesh(
    positions: ArrayLike<number>,
    triangles: Uint32Array,
    rings: number,
    maxPathLength = 512,
  ): PathSummation {
    const n = positions.length / 3;
    const adj = meshAdjacency(n, triangles);
    const regions = ringRegions(adj, rings);
    const { order, pathStart } = buildPaths(positions, adj, maxPathLength);
    return new PathSummation(n, regions, order, pathStart);
  }

  get paths(): number {
    return this.pathStart.length - 1;
  }

  /** Average number of path intervals per region. */
  get intervalsPerRegion(): number {
    return this.intervalLo.length / Math.max(1, this.regions);
  }

  /**
   * The prefix array, with one spare slot at the end: scatter's difference
   * entry after an interval that ends the last path lands there. (Written
   * past the end of the array it was dropped, but V8 then compiles that
   * store as a generic one that boxes every double of the loop: scatter ran
   * 7× slower and allocated about 0.5 MB per call in shape-matching-squeeze.)
   */
  private ensure(stride: number): Float64Array {
    const need = (this.particles + this.paths + 1) * stride;
    if (this.q.length < need) this.q = new Float64Array(need);
    return this.q;
  }

  gather(values: Float64Array, out: Float64Array, stride: number): void {
    const q = this.ensure(stride);
    const order = this.order,
      ps = this.pathStart;
    // prefix sums per path (eq. 9), each path preceded by a zero slot
    for (let p = 0; p + 1 < ps.length; p++) {
      let d = (ps[p] + p) * stride;
      for (let k = 0; k < stride; k++) q[d + k] = 0;
      for (let m = ps[p]; m < ps[p + 1]; m++) {
        const s = order[m] * stride;
        const nd = d + stride;
        for (let k = 0; k < stride; k++) q[nd + k] = q[d + k] + values[s + k];
        d = nd;
      }
    }
    const is = this.intervalStart,
      lo = this.intervalLo,
      hi = this.intervalHi;
    for (let r = 0; r < this.regions; r++) {
      const o = r * stride;
      for (let k = 0; k < stride; k++) out[o + k] = 0;
      for (let m = is[r]; m < is[r + 1]; m++) {
        const a = lo[m] * stride,
          b = hi[m] * stride;
        for (let k = 0; k < stride; k++) out[o + k] += q[b + k] - q[a + k];
      }
    }
  }

  scatter(values: Float64Array, out: Float64Array, stride: number): void {
    const q = this.ensure(stride);
    const total = (this.particles + this.paths) * stride;
    q.fill(0, 0, total);
    const is = this.intervalStart,
      lo = this.intervalLo,
      hi = this.intervalHi;
    // difference array: +h_r at the first slot of each interval, −h_r after its last
    for (let r = 0; r < this.regions; r++) {
      const s = r * stride;
      for (let m = is[r]; m < is[r + 1]; m++) {
        const a = (lo[m] + 1) * stride,
          b = (hi[m] + 1) * stride;
        for (let k = 0; k < stride; k++) {
          q[a + k] += values[s + k];
          q[b + k] -= values[s + k];
        }
      }
    }
    const order = this.order,
      ps = this.pathStart;
    for (let p = 0; p + 1 < ps.length; p++) {
      // running sum along the path; its zero slot starts it afresh
      let prev = (ps[p] + p) * stride;
      for (let k = 0; k < stride; k++) q[prev + k] = 0;
      for (let m = ps[p]; m < ps[p + 1]; m++) {
        const d = prev + stride;
        const o = order[m] * stride;
        for (let k = 0; k < stride; k++) {
          const v = q[d + k] + q[prev + k];
          q[d + k] = v;
          out[o + k] = v;
        }
        prev = d;
      }
    }
  }

  members(r: number): Int32Array {
    return this.regionLists[r].slice();
  }
}
