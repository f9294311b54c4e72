import type { ParticleStore } from '../core/particles.js';
import { closestPointTriangleAt } from './geometry.js';
import {
  FLAG_CCD,
  FLAG_FLIP,
  FOOTPRINT,
  FRAME_ACTING,
  FRAME_ONLY,
  frame,
  frameNormalVelocity,
  type SurfaceContactList,
  TYPE_VT,
} from './surface-contact-list.js';
import { SurfaceHitContacts } from './surface-hit-contacts.js';
import type { NarrowHits } from './surface-narrow-tasks.js';

const cp = new Float64Array(7);

/**
 * Vertex–triangle contacts (003 §4.3, eqs. 12–13): C = s (q − p1) · n̂ − h
 * with n̂ the unit normal of (p1, p2, p3) and s = ±1 the side the vertex
 * came from. Its exact gradients are ∇q C = s n̂ and ∇pi C = −s bi n̂ with
 * bi the barycentric coordinates of q's projection on the plane, so the
 * projection moves the four points along n̂ and conserves linear and
 * angular momentum (003 §3.3: Σ ∇C = 0 and Σ p × ∇C = s (q − Σ bi pi) × n̂ = 0).
 *
 * Detection runs over the broad phase's candidates: a candidate whose
 * distance bound (less the motion of its pair) exceeds the reach is
 * skipped; the others are tested for proximity at p (distance < h + margin)
 * and, when they can touch at all, continuously for a crossing during
 * x → p (the cubic coplanarity test, geometry.ts). Pairs across regions of
 * a tangled surface follow the untangling rules (untangle.ts) instead.
 */
export class VertexTriangleContacts extends SurfaceHitContacts {
  /**
   * The contacts of the substep x → p: the hits of the vertex–triangle scan
   * (surface-narrow-scan.ts: the candidates' distance bounds, proximity at
   * p and the continuous test x → p, run here or on the pool), pushed in
   * candidate order.
   */
  addHits(store: ParticleStore, x: Float64Array, found: NarrowHits, crossed: Uint8Array | null = null): void {
    const topo = this.topo,
      list = this.list;
    const v = store.v;
    const vert = topo.vertex,
      tri = topo.tri,
      vs = topo.vertexSurface,
      ts = topo.triSurface;
    const vt = this.broad.vtCand,
      hits = found.hits;
    for (let i = 0; i < found.count; i++) {
      const k = hits[2 * i],
        fl = hits[2 * i + 1];
      const q = vt[2 * k],
        t = vt[2 * k + 1];
      const gq = vert[q],
        ga = vert[tri[3 * t]],
        gb = vert[tri[3 * t + 1]],
        gc = vert[tri[3 * t + 2]];
      const s = this.pushHit(TYPE_VT, fl, gq, ga, gb, gc, vs[q], ts[t]);
      // the fail-safe's crossings flag their vertices
      if (crossed !== null)
        crossed[q] = crossed[tri[3 * t]] = crossed[tri[3 * t + 1]] = crossed[tri[3 * t + 2]] = 1;
      // relative normal velocity at the start of the substep (for restitution)
      const c = list.count - 1;
      if (topo.anyRestitution && frameVT(x, list, c, FRAME_ONLY))
        list.vn0[c] = s * frameNormalVelocity(v, 3 * gq, 3 * ga, 3 * gb, 3 * gc);
    }
  }

  /**
   * The untangling pairs of the current analysis (003 §4.3: "methods like
   * [BWK03] have to be applied"): vertex–triangle constraints whose side is
   * the one the vertex must go back to (see Untangler).
   */
  addUntanglingPairs(): void {
    const topo = this.topo,
      un = this.untangler;
    const vert = topo.vertex,
      tri = topo.tri;
    const fp = un.flipPairs;
    this.list.flipStep = un.flipStep;
    for (let k = 0; k < un.flipCount; k++) {
      const q = fp[3 * k],
        t = fp[3 * k + 1];
      const h = topo.pairThickness(topo.vertexSurface[q], topo.triSurface[t]);
      this.list.push(
        TYPE_VT,
        FLAG_FLIP,
        vert[q],
        vert[tri[3 * t]],
        vert[tri[3 * t + 1]],
        vert[tri[3 * t + 2]],
        fp[3 * k + 2],
        h,
        0,
        0,
        0,
        0,
      );
    }
  }
}

/**
 * Frame of vertex–triangle contact k of the list (q, a, b, c) at positions p
 * into `frame`: n̂ the unit normal of the triangle, c = (1, −b_a, −b_b, −b_c)
 * with b the barycentric coordinates of q's projection on its plane (eqs.
 * 12–13), d the signed distance of q from that plane. False for a
 * degenerate triangle; with FRAME_FOOTPRINT also for a proximity contact
 * whose projection lies off the triangle (beyond FOOTPRINT: it does not
 * act), with FRAME_ACTING also when the constraint holds (s d ≥ h).
 */
export function frameVT(p: Float64Array, list: SurfaceContactList, k: number, mode: number): boolean {
  const idx = list.idx;
  const i0 = 3 * idx[4 * k],
    i1 = 3 * idx[4 * k + 1],
    i2 = 3 * idx[4 * k + 2],
    i3 = 3 * idx[4 * k + 3];
  const ax = p[i1],
    ay = p[i1 + 1],
    az = p[i1 + 2];
  const ux = p[i2] - ax,
    uy = p[i2 + 1] - ay,
    uz = p[i2 + 2] - az;
  const vx = p[i3] - ax,
    vy = p[i3 + 1] - ay,
    vz = p[i3 + 2] - az;
  let nx = uy * vz - uz * vy,
    ny = uz * vx - ux * vz,
    nz = ux * vy - uy * vx;
  const n2 = nx * nx + ny * ny + nz * nz;
  if (!(n2 > 1e-30)) return false;
  const inv = 1 / Math.sqrt(n2);
  nx *= inv;
  ny *= inv;
  nz *= inv;
  const rx = p[i0] - ax,
    ry = p[i0 + 1] - ay,
    rz = p[i0 + 2] - az;
  const d = rx * nx + ry * ny + rz * nz;
  if (mode === FRAME_ACTING && list.side[k] * d >= list.thick[k]) return false;
  // barycentric coordinates of q's projection: (r × v)·n̂ / |n|, (u × r)·n̂ / |n|
  const bb = ((ry * vz - rz * vy) * nx + (rz * vx - rx * vz) * ny + (rx * vy - ry * vx) * nz) * inv;
  const bc = ((uy * rz - uz * ry) * nx + (uz * rx - ux * rz) * ny + (ux * ry - uy * rx) * nz) * inv;
  const ba = 1 - bb - bc;
  if (
    mode !== FRAME_ONLY &&
    (list.flags[k] & FLAG_CCD) === 0 &&
    (ba < -FOOTPRINT || bb < -FOOTPRINT || bc < -FOOTPRINT)
  )
    return false;
  frame[0] = nx;
  frame[1] = ny;
  frame[2] = nz;
  frame[3] = 1;
  frame[4] = -ba;
  frame[5] = -bb;
  frame[6] = -bc;
  frame[7] = d;
  return true;
}

/** Distance from vertex q to triangle (a, b, c) at x (global particle indices). */
function _vertexTriangleDistance(x: Float64Array, q: number, a: number, b: number, c: number): number {
  closestPointTriangleAt(x, 3 * q, x, 3 * a, 3 * b, 3 * c, cp);
  return Math.sqrt(cp[6]);
}
