import type { ParticleStore } from '../core/particles.js';
import type { TaskRunner } from '../core/step-context.js';
import { Bvh } from './bvh.js';
import { closestPointTriangle } from './geometry.js';
import { sharedF64 } from './surface-broad-items.js';
import {
  DEGENERATE_PAIRS_PER_TRIANGLE,
  MAX_PAIRS_PER_TRIANGLE,
  MAX_TRIANGLES_PER_POINT,
  PAIR_BUDGET,
} from './surface-broad-phase.js';
import type { SurfaceTopology } from './surface-topology.js';
import { findRoot as find, unionRoots as union } from './union-find.js';
import {
  type CrossingArrays,
  type CrossingHits,
  crossingsOfPairs,
  ParallelCrossings,
  UNTANGLE_MIN_TRIANGLES,
} from './untangle-tasks.js';

const cp = new Float64Array(7);

/**
 * Untangling of cloth that is already intersecting (003 §4.3: "Testing
 * continuous collisions is insufficient if cloth gets into a tangled state,
 * so methods like the ones proposed by [BWK03] have to be applied").
 *
 * A global intersection analysis in the spirit of Baraff, Witkin and Kass
 * (2003), run at the start of a step on the positions x:
 *
 * 1. every edge is tested against the triangles near it (the overlapping
 *    pairs of a self-traversal of a triangle BVH, refitted each time) for a
 *    crossing; the crossing edges are where the intersection curves cut the
 *    surface;
 * 2. the surface is flood-filled without crossing the cut edges. In each
 *    connected piece the largest region is taken to be right; every other
 *    region is marked with a label (it is the part that went through);
 * 3. each marked region gets its partners: the triangles its cut edges pierce
 *    (and their neighbours), the vertices of the edges that pierce its
 *    triangles, and whole marked regions it intersects;
 * 4. untangling pairs: a marked vertex near a partner triangle gets a
 *    vertex–triangle constraint whose side is the *other* side from where it
 *    is now (eqs. 12/13 with s flipped), and likewise for partner vertices near
 *    a marked region's triangles. Ordinary contacts between vertices and
 *    triangles of different regions are switched off meanwhile, so they do
 *    not hold the tangle in place.
 *
 * Projecting the untangling pairs pushes the marked regions back through the
 * surfaces they crossed, a bounded step per projection, and the intersection
 * curves shrink until they vanish; the labels then clear and ordinary
 * contacts resume.
 */
export class Untangler {
  /** Region label of each surface vertex (0: untangled); pairs touching labelled vertices follow the rules above. */
  label = new Int32Array(0);
  /** True when some label is non-zero. */
  tangled = false;
  /** Untangling pairs (surface vertex, triangle, side) to add every substep. */
  flipPairs = new Int32Array(0);
  flipCount = 0;
  /** Largest correction (m) of one untangling projection. */
  flipStep = 0;
  /** Edge–triangle intersections found by the last analysis: (edge, triangle). */
  intersections: Int32Array = new Int32Array(0);
  intersectionCount = 0;
  /** Search radius for untangling pairs, in mean edge lengths. Default 2. */
  radiusFactor = 2;
  /** Triangles that reached the broad phase's pair budget in the intersection search, since the start. */
  capped = 0;
  private readonly topo: SurfaceTopology;
  /** (its nodes and boxes on shared memory: the pool's crossing search reads them where they are) */
  private readonly bvh = new Bvh(4, true);
  private boxes: Float64Array = new Float64Array(0);
  private readonly found: CrossingHits = { hits: new Int32Array(0), count: 0 };
  private readonly crossing = {} as CrossingArrays;
  private parallel: ParallelCrossings | null = null;
  private builtFor = -1;
  // union-find and scratch
  private parent = new Int32Array(0);
  private piece = new Int32Array(0);
  private size = new Int32Array(0);
  private cut = new Uint8Array(0);
  private partnerOfTri = new Int32Array(0);
  private partnerOfVert = new Int32Array(0);

  constructor(topology: SurfaceTopology) {
    this.topo = topology;
  }

  /** Forgets every label (after a topology change). */
  reset(): void {
    this.label = new Int32Array(this.topo.vertexCount);
    this.flipCount = 0;
    this.tangled = false;
  }

  /** Clears the labels and untangling pairs (when untangling is switched off). */
  clear(): void {
    if (!this.tangled) return;
    this.label.fill(0);
    this.tangled = false;
    this.flipCount = 0;
  }

  private prepare(): void {
    const sc = this.topo;
    const nt = sc.triCount,
      nv = sc.vertexCount,
      ne = sc.edgeCount;
    this.boxes = sharedF64(6 * nt);
    this.parent = new Int32Array(nv);
    this.piece = new Int32Array(nv);
    this.size = new Int32Array(nv);
    this.cut = new Uint8Array(ne);
    this.partnerOfTri = new Int32Array(nt);
    this.partnerOfVert = new Int32Array(nv);
    this.builtFor = sc.version;
  }

  /** What the crossing search reads, pointed at the current arrays. */
  private crossingArrays(store: ParticleStore): CrossingArrays {
    const A = this.crossing,
      sc = this.topo;
    A.x = store.x;
    A.boxes = this.boxes;
    A.vertex = sc.vertex;
    A.tri = sc.tri;
    A.edge = sc.edge;
    A.ownEStart = sc.ownEStart;
    A.ownE = sc.ownE;
    A.edgeSurface = sc.edgeSurface;
    A.triSurface = sc.triSurface;
    A.pairOn = sc.pairTable;
    if (A.meta === undefined) A.meta = new Int32Array(1);
    A.meta[0] = sc.surfaces.length;
    A.group = store.group;
    A.mask = store.mask;
    return A;
  }

  private pooledCrossings(): ParallelCrossings {
    this.parallel ??= new ParallelCrossings();
    return this.parallel;
  }

  /** Analyses whose crossing search ran on the pool (statistics, tests). */
  get pooledSearches(): number {
    return this.parallel?.runs ?? 0;
  }

  /**
   * Analyses the positions x; updates the contacts' labels and untangling
   * pairs. Returns the number of edge–triangle intersections found.
   */
  analyse(store: ParticleStore, tasks: TaskRunner | null = null): number {
    const sc = this.topo;
    const x = store.x;
    const nt = sc.triCount,
      nv = sc.vertexCount,
      ne = sc.edgeCount;
    const vert = sc.vertex,
      tri = sc.tri,
      edge = sc.edge;
    if (this.builtFor !== sc.version) this.prepare();
    // 1. triangle boxes at x and the BVH
    const boxes = this.boxes;
    for (let t = 0; t < nt; t++) {
      const a = 3 * vert[tri[3 * t]],
        b = 3 * vert[tri[3 * t + 1]],
        c = 3 * vert[tri[3 * t + 2]];
      for (let k = 0; k < 3; k++) {
        boxes[6 * t + k] = Math.min(x[a + k], x[b + k], x[c + k]);
        boxes[6 * t + 3 + k] = Math.max(x[a + k], x[b + k], x[c + k]);
      }
    }
    if (this.bvh.itemCount !== nt || this.bvh.nodeCount === 0) this.bvh.build(boxes, nt);
    else this.bvh.refit(boxes);
    // edge–triangle crossings: the overlapping triangle pairs of one self-traversal, each triangle's own
    // edges (every edge has one owner) against the other triangle (an edge's box lies inside its owner's);
    // in parts on the pool in a threaded world (untangle-tasks.ts), else here
    const cut = this.cut;
    cut.fill(0);
    const A = this.crossingArrays(store);
    const found = this.found;
    found.hits = this.intersections;
    found.count = 0;
    if (
      tasks === null ||
      nt < UNTANGLE_MIN_TRIANGLES ||
      !this.pooledCrossings().run(
        tasks,
        A,
        sc.version,
        this.bvh,
        MAX_PAIRS_PER_TRIANGLE,
        PAIR_BUDGET * nt,
        found,
      )
    ) {
      // within the broad phase's budgets (coincident or collapsed geometry: see surface-broad-phase.ts)
      let np = this.bvh.selfPairsBounded(boxes, MAX_PAIRS_PER_TRIANGLE, PAIR_BUDGET * nt);
      if (this.bvh.truncated) np = this.bvh.selfPairsBounded(boxes, DEGENERATE_PAIRS_PER_TRIANGLE, 0);
      this.capped += this.bvh.saturated;
      crossingsOfPairs(A, this.bvh.pairs, 0, np, found);
    }
    this.intersections = found.hits;
    const n = found.count;
    for (let k = 0; k < n; k++) cut[found.hits[2 * k]] = 1;
    // in (edge, triangle) order, whatever order the traversal met them in
    sortPairs(this.intersections, n);
    this.intersectionCount = n;
    const label = this.label;
    if (n === 0) {
      this.clear();
      return 0;
    }
    // 2. regions: union-find over uncut edges, pieces over all edges
    const parent = this.parent,
      piece = this.piece,
      size = this.size;
    for (let v = 0; v < nv; v++) {
      parent[v] = v;
      piece[v] = v;
    }
    for (let e = 0; e < ne; e++) {
      const a = edge[2 * e],
        b = edge[2 * e + 1];
      union(piece, a, b);
      if (!cut[e]) union(parent, a, b);
    }
    size.fill(0);
    for (let v = 0; v < nv; v++) size[find(parent, v)]++;
    // the largest region of each piece stays unlabelled
    const best = this.partnerOfVert; // scratch: largest region root per piece root
    best.fill(-1);
    for (let v = 0; v < nv; v++) {
      if (find(parent, v) !== v) continue;
      const pc = find(piece, v);
      const cur = best[pc];
      if (cur < 0 || size[v] > size[cur] || (size[v] === size[cur] && v < cur)) best[pc] = v;
    }
    let labels = 0;
    for (let v = 0; v < nv; v++) {
      const r = find(parent, v);
      label[v] = r === best[find(piece, v)] ? 0 : r + 1;
      if (label[v] !== 0) labels++;
    }
    if (labels === 0) {
      // crossings that cut off nothing (an open slit through a sheet): mark the smaller side of each cut edge
      for (let k = 0; k < n; k++) {
        const e = this.intersections[2 * k];
        const a = edge[2 * e],
          b = edge[2 * e + 1];
        label[a] = a + 1;
        label[b] = 0;
      }
    }
    // 3. partners
    const pTri = this.partnerOfTri,
      pVert = this.partnerOfVert;
    pTri.fill(0);
    pVert.fill(0);
    const full = new Set<number>();
    const vtStart = sc.vtStart,
      vtList = sc.vtList;
    for (let k = 0; k < n; k++) {
      const e = this.intersections[2 * k],
        t = this.intersections[2 * k + 1];
      const a = edge[2 * e],
        b = edge[2 * e + 1];
      const t0 = tri[3 * t],
        t1 = tri[3 * t + 1],
        t2 = tri[3 * t + 2];
      const lt = label[t0] === label[t1] && label[t0] === label[t2] ? label[t0] : -1;
      for (const l of [label[a], label[b]]) {
        if (l === 0) continue;
        if (lt > 0 && lt !== l) {
          full.add(l * 4194304 + lt);
          full.add(lt * 4194304 + l);
        }
        // the pierced triangle and the triangles around its corners
        for (const c of [t0, t1, t2]) {
          for (let j = vtStart[c]; j < vtStart[c + 1]; j++) {
            const u = vtList[j];
            if (label[tri[3 * u]] !== l && label[tri[3 * u + 1]] !== l && label[tri[3 * u + 2]] !== l)
              pTri[u] = l;
          }
        }
      }
      for (const l of [label[t0], label[t1], label[t2]]) {
        if (l === 0) continue;
        // the piercing edge's end points and their neighbours
        for (const c of [a, b]) {
          if (label[c] !== l) pVert[c] = l;
          for (let j = vtStart[c]; j < vtStart[c + 1]; j++) {
            const u = vtList[j];
            for (let i = 0; i < 3; i++) {
              const w = tri[3 * u + i];
              if (label[w] !== l) pVert[w] = l;
            }
          }
        }
      }
    }
    // 4. untangling pairs
    const R = this.radiusFactor * sc.meanEdge;
    let nf = 0;
    for (let q = 0; q < nv; q++) {
      const lq = label[q],
        pq = pVert[q];
      if (lq === 0 && pq === 0) continue;
      const g3 = 3 * vert[q];
      const qx = x[g3],
        qy = x[g3 + 1],
        qz = x[g3 + 2];
      const m = this.bvh.query(
        boxes,
        qx - R,
        qy - R,
        qz - R,
        qx + R,
        qy + R,
        qz + R,
        MAX_TRIANGLES_PER_POINT,
      );
      if (this.bvh.truncated) this.capped++;
      const res = this.bvh.result;
      for (let k = 0; k < m; k++) {
        const t = res[k];
        const t0 = tri[3 * t],
          t1 = tri[3 * t + 1],
          t2 = tri[3 * t + 2];
        if (t0 === q || t1 === q || t2 === q) continue;
        const lt = label[t0] === label[t1] && label[t0] === label[t2] ? label[t0] : -1;
        let flip = false;
        if (lq !== 0) flip = pTri[t] === lq || (lt > 0 && lt !== lq && full.has(lq * 4194304 + lt));
        else flip = lt > 0 && pq === lt;
        if (!flip) continue;
        const a3 = 3 * vert[t0],
          b3 = 3 * vert[t1],
          c3 = 3 * vert[t2];
        closestPointTriangle(
          qx,
          qy,
          qz,
          x[a3],
          x[a3 + 1],
          x[a3 + 2],
          x[b3],
          x[b3 + 1],
          x[b3 + 2],
          x[c3],
          x[c3 + 1],
          x[c3 + 2],
          cp,
        );
        if (cp[6] > R * R) continue;
        // the side opposite to where the vertex is now
        const ux = x[b3] - x[a3],
          uy = x[b3 + 1] - x[a3 + 1],
          uz = x[b3 + 2] - x[a3 + 2];
        const vx = x[c3] - x[a3],
          vy = x[c3 + 1] - x[a3 + 1],
          vz = x[c3 + 2] - x[a3 + 2];
        const d =
          (qx - x[a3]) * (uy * vz - uz * vy) +
          (qy - x[a3 + 1]) * (uz * vx - ux * vz) +
          (qz - x[a3 + 2]) * (ux * vy - uy * vx);
        if (3 * nf + 3 > this.flipPairs.length) {
          const g = new Int32Array(Math.max(96, 6 * nf + 6));
          g.set(this.flipPairs);
          this.flipPairs = g;
        }
        this.flipPairs[3 * nf] = q;
        this.flipPairs[3 * nf + 1] = t;
        this.flipPairs[3 * nf + 2] = d > 0 ? -1 : 1;
        nf++;
      }
    }
    this.flipCount = nf;
    this.flipStep = 0.25 * sc.meanEdge;
    this.tangled = true;
    return n;
  }
}

/** Sorts the first n (edge, triangle) pairs of `pairs` by edge, then triangle (insertion sort: the lists are short). */
function sortPairs(pairs: Int32Array, n: number): void {
  for (let i = 1; i < n; i++) {
    const e = pairs[2 * i],
      t = pairs[2 * i + 1];
    let j = i - 1;
    while (j >= 0 && (pairs[2 * j] > e || (pairs[2 * j] === e && pairs[2 * j + 1] > t))) {
      pairs[2 * j + 2] = pairs[2 * j];
      pairs[2 * j + 3] = pairs[2 * j + 1];
      j--;
    }
    pairs[2 * j + 2] = e;
    pairs[2 * j + 3] = t;
  }
}
