import type { ParticleStore } from '../core/particles.js';
import type { TaskRunner } from '../core/step-context.js';
import type { SurfaceBroadPhase } from './surface-broad-phase.js';
import type { SurfaceContactList } from './surface-contact-list.js';
import type { EdgeEdgeContacts } from './surface-edge-edge.js';
import type { SurfaceNarrowScan } from './surface-narrow-tasks.js';
import { projectContacts } from './surface-response.js';
import type { SurfaceContactStats, SurfaceTopology } from './surface-topology.js';
import type { VertexTriangleContacts } from './surface-vertex-triangle.js';
import { findRoot } from './union-find.js';

/**
 * The fail-safe of the surface contacts, after the last solver iteration:
 * every candidate pair is tested for a crossing during x → p once more;
 * crossings get constraints and another pass (twice at most), and the
 * vertices still crossing are gathered into rigid impact zones (Provot
 * 1997, Bridson et al. 2002, translation only) that move by their
 * mass-weighted mean displacement (a zone holding a pinned vertex stops).
 * A common translation creates no crossing inside a zone and keeps linear
 * momentum; zones that still cross others merge. So, from an untangled
 * start, no crossing and hence no intersection leaves the substep — except
 * by kinematic vertices, which nothing can stop.
 */
export class SurfaceFailsafe {
  /** Impact zones (union-find over surface vertices, −1: none) and their sums (mass-weighted motion, mass, pinned). */
  private zone = new Int32Array(0);
  private zoneAcc = new Float64Array(0);
  /**
   * Rescans: `crossed` flags the vertices of the pairs the last scan found
   * crossing, `recheck` the vertices a rescan looks at (crossed, or moved
   * since the scan), `pKeep` the surface vertices' p before a fail-safe move.
   */
  private crossed = new Uint8Array(0);
  private recheck = new Uint8Array(0);
  private pKeep = new Float64Array(0);
  private readonly topo: SurfaceTopology;
  private readonly broad: SurfaceBroadPhase;
  private readonly vt: VertexTriangleContacts;
  private readonly ee: EdgeEdgeContacts;
  private readonly list: SurfaceContactList;
  private readonly stats: SurfaceContactStats;
  private readonly narrow: SurfaceNarrowScan;
  /** The pool of the current step (null on one thread). */
  private tasks: TaskRunner | null = null;

  constructor(
    topo: SurfaceTopology,
    broad: SurfaceBroadPhase,
    vt: VertexTriangleContacts,
    ee: EdgeEdgeContacts,
    list: SurfaceContactList,
    stats: SurfaceContactStats,
    narrow: SurfaceNarrowScan,
  ) {
    this.narrow = narrow;
    this.topo = topo;
    this.broad = broad;
    this.vt = vt;
    this.ee = ee;
    this.list = list;
    this.stats = stats;
  }

  /** Sizes the arrays for the current topology. */
  resize(): void {
    const nv = this.topo.vertexCount;
    this.zone = new Int32Array(nv);
    this.zoneAcc = new Float64Array(5 * nv);
    this.crossed = new Uint8Array(nv);
    this.recheck = new Uint8Array(nv);
    this.pKeep = new Float64Array(3 * nv);
  }

  /**
   * Finds the candidates that cross during x → p after the solver, gives
   * them constraints and projects again (twice at most), then moves the
   * vertices of the remaining crossings with rigid impact zones.
   */
  verify(store: ParticleStore, x: Float64Array, tasks: TaskRunner | null = null): void {
    const p = store.p,
      w = store.invMass;
    const list = this.list;
    this.tasks = tasks;
    // the solver may have moved some vertices beyond their allowance
    // (and the first scan's swept boxes, in the check's job on the pool)
    // (the first scan's copies of x and p too, in the check's job: WasmNarrow.preload)
    this.broad.update(store, x, p, 0, tasks, true, this.narrow.ahead(store, x, p, tasks));
    // the first scan tests every candidate, each rescan only those with a vertex in `recheck`: a
    // pair none of whose vertices moved since a scan that found it not crossing still does not
    // cross (same x, same p, same test), so the rescans find exactly what full scans would
    let rescan = false;
    for (let round = 0; round < 2; round++) {
      const crossings = this.findCrossings(store, x, rescan, round > 0);
      if (crossings === 0) return;
      this.stats.failsafeCrossings += crossings;
      // one more pass over all contacts, the new ones included
      this.keepPositions(p);
      projectContacts(store, list, 0, list.count);
      this.markRecheck(p);
      rescan = true;
    }
    // still crossing: the vertices of each crossing join a zone, and every zone moves rigidly
    const zone = this.zone,
      local = this.topo.localOf,
      mass = store.mass;
    for (let i = 0; i < this.topo.vertexCount; i++) zone[i] = -1;
    for (let round = 0; round < 64; round++) {
      const before = list.count;
      if (this.findCrossings(store, x, rescan, true) === 0) break;
      for (let k = before; k < list.count; k++) {
        let root = -1;
        for (let j = 0; j < 4; j++) {
          const v = local[list.idx[4 * k + j]];
          if (zone[v] < 0) zone[v] = v;
          const r = findRoot(zone, v);
          if (root < 0) root = r;
          else if (r !== root) {
            if (r < root) {
              zone[root] = r;
              root = r;
            } else zone[r] = root;
          }
        }
      }
      list.count = before;
      this.keepPositions(p);
      this.moveZones(store, x, mass, w);
      this.markRecheck(p);
      rescan = true;
    }
    let moved = 0;
    for (let i = 0; i < this.topo.vertexCount; i++) if (zone[i] >= 0) moved++;
    this.stats.frozen += moved;
  }

  /**
   * Crossing test x → p over all candidates (with `rescan`, only those with a
   * vertex flagged in `recheck`; with `sweep`, the swept boxes of p first, which
   * the broad phase's update computed for the first scan); each crossing adds a constraint and flags
   * its vertices in `crossed`. Returns the number of crossings.
   */
  private findCrossings(store: ParticleStore, x: Float64Array, rescan: boolean, sweep: boolean): number {
    if (sweep) this.broad.sweptBoxes(x, store.p, this.tasks);
    this.crossed.fill(0);
    // the scans (here, or in blocks on the pool), then their contacts in candidate order
    const narrow = this.narrow;
    narrow.scanCrossings(store, x, rescan, this.recheck, this.tasks);
    this.vt.addHits(store, x, narrow.vt, this.crossed);
    this.ee.addHits(store, x, narrow.ee, this.crossed);
    return narrow.vt.count + narrow.ee.count;
  }

  /** Keeps p of every surface vertex (before a fail-safe move, for markRecheck). */
  private keepPositions(p: Float64Array): void {
    const vert = this.topo.vertex,
      keep = this.pKeep;
    for (let i = 0; i < this.topo.vertexCount; i++) {
      const g = 3 * vert[i];
      keep[3 * i] = p[g];
      keep[3 * i + 1] = p[g + 1];
      keep[3 * i + 2] = p[g + 2];
    }
  }

  /** recheck = the vertices of the last scan's crossings and those whose p changed since keepPositions. */
  private markRecheck(p: Float64Array): void {
    const vert = this.topo.vertex,
      keep = this.pKeep,
      crossed = this.crossed,
      recheck = this.recheck;
    for (let i = 0; i < this.topo.vertexCount; i++) {
      const g = 3 * vert[i];
      const moved = p[g] !== keep[3 * i] || p[g + 1] !== keep[3 * i + 1] || p[g + 2] !== keep[3 * i + 2];
      recheck[i] = crossed[i] !== 0 || moved ? 1 : 0;
    }
  }

  /** Moves every impact zone by its mass-weighted mean displacement x → p (a zone with a pinned vertex stops). */
  private moveZones(store: ParticleStore, x: Float64Array, mass: Float64Array, w: Float64Array): void {
    const zone = this.zone,
      vert = this.topo.vertex,
      acc = this.zoneAcc,
      p = store.p,
      sx = store.x,
      v = store.v;
    const nv = this.topo.vertexCount;
    for (let i = 0; i < nv; i++) {
      if (zone[i] < 0) continue;
      const r = findRoot(zone, i);
      acc[5 * r] = acc[5 * r + 1] = acc[5 * r + 2] = acc[5 * r + 3] = acc[5 * r + 4] = 0;
    }
    for (let i = 0; i < nv; i++) {
      if (zone[i] < 0) continue;
      const r = findRoot(zone, i),
        g = vert[i],
        g3 = 3 * g;
      if (w[g] === 0) {
        acc[5 * r + 4] = 1; // pinned: the zone stops
        continue;
      }
      const m = mass[g];
      acc[5 * r] += m * (p[g3] - x[g3]);
      acc[5 * r + 1] += m * (p[g3 + 1] - x[g3 + 1]);
      acc[5 * r + 2] += m * (p[g3 + 2] - x[g3 + 2]);
      acc[5 * r + 3] += m;
    }
    for (let i = 0; i < nv; i++) {
      if (zone[i] < 0) continue;
      const r = findRoot(zone, i),
        g = vert[i],
        g3 = 3 * g;
      if (w[g] === 0) continue;
      const stop = acc[5 * r + 4] !== 0 || !(acc[5 * r + 3] > 0);
      const inv = stop ? 0 : 1 / acc[5 * r + 3];
      p[g3] = x[g3] + acc[5 * r] * inv;
      p[g3 + 1] = x[g3 + 1] + acc[5 * r + 1] * inv;
      p[g3 + 2] = x[g3 + 2] + acc[5 * r + 2] * inv;
      if (x !== sx) {
        // a period of several substeps: the zone restarts from where the period began
        sx[g3] = x[g3];
        sx[g3 + 1] = x[g3 + 1];
        sx[g3 + 2] = x[g3 + 2];
        v[g3] = v[g3 + 1] = v[g3 + 2] = 0;
      }
    }
  }
}
