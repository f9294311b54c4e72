import type { ParticleStore } from '../core/particles.js';
import type { SurfaceTopology } from './surface-topology.js';
import { findRoot, unionRoots } from './union-find.js';

/** An edge shorter than this fraction of its rest length is collapsed. */
const COLLAPSE = 0.01;

/**
 * Recovery of collapsed patches of a surface (degenerate input: a cloth
 * whose vertices all start at one point, a patch crushed to a point).
 *
 * A vertex is collapsed when every edge at it is shorter than 1 % of its
 * rest length. Such a patch has no normals for the contacts (every pair
 * touches, so the broad phase degenerates to all pairs and the fail-safe to
 * impact zones of everything) and gives its edge constraints no direction
 * to push along, so nothing could bring it back. Each connected collapsed
 * patch is therefore put back into its rest shape, placed rigidly — the
 * way a rigid impact zone moves — about its centroid (about a pinned vertex
 * of it, which stays, if it has one), x and p moved together so that its
 * velocity is kept: from there the material and the contacts carry on as
 * for any cloth. Bodies without a rest shape (Body.restShape) are left as
 * they are. The check costs one pass over the edges, once per step.
 */
export class CollapseRecovery {
  private readonly topo: SurfaceTopology;
  private collapsed = new Uint8Array(0);
  private parent = new Int32Array(0);
  /** Per root: centroid of x (3), of the rest shape (3), members (1), anchor (pinned member or −1). */
  private acc = new Float64Array(0);

  constructor(topo: SurfaceTopology) {
    this.topo = topo;
  }

  /** Restores the collapsed patches at x (p moves with x); returns the number of vertices restored. */
  restore(store: ParticleStore): number {
    const t = this.topo;
    const nv = t.vertexCount,
      ne = t.edgeCount;
    if (ne === 0) return 0;
    if (this.collapsed.length !== nv) {
      this.collapsed = new Uint8Array(nv);
      this.parent = new Int32Array(nv);
      this.acc = new Float64Array(8 * nv);
    }
    const x = store.x,
      p = store.p;
    const vert = t.vertex,
      edge = t.edge,
      rest = t.restEdge;
    const col = this.collapsed;
    // a vertex is collapsed until one of its edges is not
    col.fill(1);
    let any = false;
    for (let e = 0; e < ne; e++) {
      const a = 3 * vert[edge[2 * e]],
        b = 3 * vert[edge[2 * e + 1]];
      const dx = x[a] - x[b],
        dy = x[a + 1] - x[b + 1],
        dz = x[a + 2] - x[b + 2];
      const lim = COLLAPSE * rest[e];
      if (dx * dx + dy * dy + dz * dz >= lim * lim) {
        col[edge[2 * e]] = 0;
        col[edge[2 * e + 1]] = 0;
      } else any = true;
    }
    if (!any) return 0;
    const vs = t.veStart;
    let n = 0;
    for (let v = 0; v < nv; v++) {
      if (vs[v + 1] === vs[v]) col[v] = 0; // free points have no edges to collapse
      if (col[v] !== 0) n++;
    }
    if (n === 0) return 0;
    // the patches: collapsed vertices joined by their (collapsed) edges
    const parent = this.parent;
    for (let v = 0; v < nv; v++) parent[v] = v;
    for (let e = 0; e < ne; e++) {
      const a = edge[2 * e],
        b = edge[2 * e + 1];
      if (col[a] !== 0 && col[b] !== 0) unionRoots(parent, a, b);
    }
    const acc = this.acc,
      w = store.invMass,
      mass = store.mass;
    for (let v = 0; v < nv; v++) {
      if (col[v] === 0) continue;
      const r = 8 * findRoot(parent, v);
      for (let k = 0; k < 7; k++) acc[r + k] = 0;
      acc[r + 7] = -1;
    }
    let restored = 0;
    for (let pass = 0; pass < 2; pass++) {
      for (let v = 0; v < nv; v++) {
        if (col[v] === 0) continue;
        const r = 8 * findRoot(parent, v);
        const g = vert[v];
        const body = t.surfaces[t.vertexSurface[v]].body;
        const shape = body.restShape();
        if (!shape) continue;
        const g3 = 3 * g,
          l3 = 3 * (g - body.offset);
        if (pass === 0) {
          // centroids, and a pinned member as the anchor
          acc[r] += x[g3];
          acc[r + 1] += x[g3 + 1];
          acc[r + 2] += x[g3 + 2];
          acc[r + 3] += shape[l3];
          acc[r + 4] += shape[l3 + 1];
          acc[r + 5] += shape[l3 + 2];
          acc[r + 6]++;
          if (w[g] === 0 && mass[g] > 0 && acc[r + 7] < 0) acc[r + 7] = v;
          continue;
        }
        if (w[g] === 0) continue;
        // x = c + (x̄ − c̄), about the centroid or the anchor
        let cx: number, cy: number, cz: number, rx: number, ry: number, rz: number;
        const anchor = acc[r + 7];
        if (anchor >= 0) {
          const ga = vert[anchor],
            la = 3 * (ga - body.offset);
          cx = x[3 * ga];
          cy = x[3 * ga + 1];
          cz = x[3 * ga + 2];
          rx = shape[la];
          ry = shape[la + 1];
          rz = shape[la + 2];
        } else {
          const m = acc[r + 6];
          cx = acc[r] / m;
          cy = acc[r + 1] / m;
          cz = acc[r + 2] / m;
          rx = acc[r + 3] / m;
          ry = acc[r + 4] / m;
          rz = acc[r + 5] / m;
        }
        const nx = cx + shape[l3] - rx,
          ny = cy + shape[l3 + 1] - ry,
          nz = cz + shape[l3 + 2] - rz;
        p[g3] += nx - x[g3];
        p[g3 + 1] += ny - x[g3 + 1];
        p[g3 + 2] += nz - x[g3 + 2];
        x[g3] = nx;
        x[g3 + 1] = ny;
        x[g3 + 2] = nz;
        restored++;
      }
    }
    return restored;
  }
}
