import type { ParticleStore } from '../core/particles.js';
import { closestSegmentSegmentAt } from './geometry.js';
import {
  FLAG_CCD,
  FOOTPRINT,
  FRAME_ACTING,
  FRAME_ONLY,
  frame,
  frameNormalVelocity,
  type SurfaceContactList,
  TYPE_EE,
} from './surface-contact-list.js';
import { SurfaceHitContacts } from './surface-hit-contacts.js';
import type { NarrowHits } from './surface-narrow-tasks.js';

const ss = new Float64Array(3);

/**
 * Edge–edge contacts: C = s (a − c) · n̂ − h with n̂ ∥ (b − a) × (d − c),
 * gradients s(1 − t) n̂, s t n̂, −s(1 − u) n̂, −s u n̂ at the closest points
 * a + t (b − a), c + u (d − c) of the two lines (the conservation argument
 * of the vertex–triangle contacts holds as well).
 *
 * Proximity constraints are made only between two sharp edges (creased by
 * more than 30° or on a boundary, SurfaceBroadPhase.sharp): across a flat
 * edge another edge cannot come within h unless a vertex comes within h of
 * that edge's triangles first, which the vertex–triangle contacts handle.
 * Crossings during x → p are tested for every candidate pair.
 */
export class EdgeEdgeContacts extends SurfaceHitContacts {
  /**
   * The contacts of the substep x → p: the hits of the edge–edge scan
   * (surface-narrow-scan.ts, run here or on the pool), pushed in candidate
   * order.
   */
  addHits(store: ParticleStore, x: Float64Array, found: NarrowHits, crossed: Uint8Array | null = null): void {
    const topo = this.topo,
      list = this.list;
    const v = store.v;
    const vert = topo.vertex,
      edge = topo.edge,
      es = topo.edgeSurface;
    const ee = this.broad.eeCand,
      hits = found.hits;
    for (let i = 0; i < found.count; i++) {
      const k = hits[2 * i],
        fl = hits[2 * i + 1];
      const e = ee[2 * k],
        f = ee[2 * k + 1];
      const ga = vert[edge[2 * e]],
        gb = vert[edge[2 * e + 1]],
        gc = vert[edge[2 * f]],
        gd = vert[edge[2 * f + 1]];
      const s = this.pushHit(TYPE_EE, fl, ga, gb, gc, gd, es[e], es[f]);
      // the fail-safe's crossings flag their vertices
      if (crossed !== null)
        crossed[edge[2 * e]] = crossed[edge[2 * e + 1]] = crossed[edge[2 * f]] = crossed[edge[2 * f + 1]] = 1;
      // relative normal velocity at the start of the substep (for restitution)
      const c = list.count - 1;
      if (topo.anyRestitution && frameEE(x, list, c, FRAME_ONLY))
        list.vn0[c] = s * frameNormalVelocity(v, 3 * ga, 3 * gb, 3 * gc, 3 * gd);
    }
  }
}

/**
 * Frame of edge–edge contact k of the list (edges a–b, c–d) at positions p
 * into `frame`: n̂ ∥ (b − a) × (d − c), c = (1 − t, t, u − 1, −u) with
 * a + t (b − a), c + u (d − c) the closest points of the two lines, d the
 * signed distance of the lines along n̂. False for (nearly) parallel edges;
 * with FRAME_FOOTPRINT also for a proximity contact whose closest points lie
 * off the edges (beyond FOOTPRINT), with FRAME_ACTING also when the
 * constraint holds (s d ≥ h).
 */
export function frameEE(p: Float64Array, list: SurfaceContactList, k: number, mode: number): boolean {
  const idx = list.idx;
  const i0 = 3 * idx[4 * k],
    i1 = 3 * idx[4 * k + 1],
    i2 = 3 * idx[4 * k + 2],
    i3 = 3 * idx[4 * k + 3];
  const ax = p[i0],
    ay = p[i0 + 1],
    az = p[i0 + 2];
  const ux = p[i1] - ax,
    uy = p[i1 + 1] - ay,
    uz = p[i1 + 2] - az;
  const cx = p[i2],
    cy = p[i2 + 1],
    cz = p[i2 + 2];
  const vx = p[i3] - cx,
    vy = p[i3 + 1] - cy,
    vz = p[i3 + 2] - cz;
  let nx = uy * vz - uz * vy,
    ny = uz * vx - ux * vz,
    nz = ux * vy - uy * vx;
  const n2 = nx * nx + ny * ny + nz * nz;
  const A = ux * ux + uy * uy + uz * uz,
    Cc = vx * vx + vy * vy + vz * vz;
  if (!(n2 > 1e-12 * A * Cc) || !(n2 > 1e-30)) return false;
  const inv = 1 / Math.sqrt(n2);
  nx *= inv;
  ny *= inv;
  nz *= inv;
  const rx = ax - cx,
    ry = ay - cy,
    rz = az - cz;
  const d = rx * nx + ry * ny + rz * nz;
  if (mode === FRAME_ACTING && list.side[k] * d >= list.thick[k]) return false;
  // closest points of the two lines: a + t (b − a), c + u (d − c)
  const B = ux * vx + uy * vy + uz * vz;
  const D = ux * rx + uy * ry + uz * rz,
    E = vx * rx + vy * ry + vz * rz;
  const den = A * Cc - B * B;
  const t = (B * E - Cc * D) / den,
    u = (A * E - B * D) / den;
  if (
    mode !== FRAME_ONLY &&
    (list.flags[k] & FLAG_CCD) === 0 &&
    (t < -FOOTPRINT || t > 1 + FOOTPRINT || u < -FOOTPRINT || u > 1 + FOOTPRINT)
  )
    return false;
  frame[0] = nx;
  frame[1] = ny;
  frame[2] = nz;
  frame[3] = 1 - t;
  frame[4] = t;
  frame[5] = u - 1;
  frame[6] = -u;
  frame[7] = d;
  return true;
}

/** Distance between edges a–b and c–d at x (global particle indices). */
function _edgeEdgeDistance(x: Float64Array, a: number, b: number, c: number, d: number): number {
  closestSegmentSegmentAt(x, 3 * a, 3 * b, x, 3 * c, 3 * d, ss);
  return Math.sqrt(ss[2]);
}
