import { extractRotationRobust } from '../math/polar.js';
import { sharedF64 } from './surface-broad-items.js';
import type { SurfaceTopology } from './surface-topology.js';

/**
 * Allowance of a snapshot in units of the vertex's motion in its substep.
 * Small allowances keep the candidate lists short (they are walked twice
 * every substep) at the price of more frequent renewals, which the BVH
 * self-traversal makes cheap: 1.5 measured best on self-collision-6000 and
 * the projectile (4 made lists ~10× longer and frames no faster).
 */
const ALLOWANCE = 1.5;
/**
 * A snapshot is centred this many substeps ahead along the vertex's motion
 * (when that is at most one mesh spacing), so that a steadily moving vertex
 * stays inside its allowance for about twice as many substeps, and one that
 * stops stays inside too: full rebuilds of self-collision-6000 fell from
 * 487 to ~180 per 120 frames with 1 (2 was faster on slow scenes but made
 * the projectile's lists ~10× longer).
 */
const LEAD = 1;
/**
 * A slow vertex is centred LEAD_SLOW substeps ahead instead, while that
 * adds at most LEAD_REACH mesh spacings to its sphere (LEAD_SLOW · u ≤
 * LEAD_REACH · mean edge): a vertex creeping or sliding steadily then stays
 * inside for about twice as long, at a bounded cost in list length.
 * self-collision-6000: full rebuilds 2.58 → 2.24 per frame, median frame
 * ~10 % faster, mean unchanged; the collision scenes unchanged within noise
 * (a lead of 2 for all vertices had made the projectile's lists ~10× longer).
 */
const LEAD_SLOW = 2;
const LEAD_REACH = 0.15;
const IDENTITY_QUAT = new Float64Array([0, 0, 0, 1]);

/**
 * The snapshots behind the candidate lists of the surface broad phase: each
 * surface vertex has a snapshot position and an allowance δ, and its
 * candidate pairs stay valid while it stays within δ of its snapshot.
 *
 * Snapshots live in a frame that follows the best rigid motion of all
 * surface vertices (fitted anew at every check), so falling or tumbling
 * cloth is hashed once; a vertex that strays (a *violator*) renews its
 * snapshot and only its own pairs are searched again.
 */
export class SurfaceSnapshots {
  /** Snapshot of each surface vertex (xyz, in the snapshot frame). */
  snap: Float64Array = new Float64Array(0);
  /** Allowance δ of each surface vertex (m). */
  delta: Float64Array = new Float64Array(0);
  /** Box of each vertex's allowance sphere (min xyz, max xyz). */
  vBox: Float64Array = new Float64Array(0);
  /** The vertices found straying by the last check. */
  violators = new Int32Array(0);
  /** False until the first snapshot of every vertex (and after a topology change). */
  valid = false;
  /** Rigid frames of x and p relative to the snapshots: rotation (row-major), centroid, snapshot centroid. */
  private readonly frameX = new Float64Array(15);
  private readonly frameP = new Float64Array(15);
  private readonly quatX = new Float64Array([0, 0, 0, 1]);
  private readonly quatP = new Float64Array([0, 0, 0, 1]);
  private readonly cov = new Float64Array(9);
  /** Vertices that must renew their snapshot at the next check (e.g. an edge of theirs turned sharp). */
  private forced = new Int32Array(0);
  private forcedFlag = new Uint8Array(0);
  private forcedCount = 0;
  private readonly topo: SurfaceTopology;

  constructor(topology: SurfaceTopology) {
    this.topo = topology;
  }

  /** Sizes the arrays for the current topology (all snapshots invalid). */
  resize(): void {
    const nv = this.topo.vertexCount;
    // (on shared memory: the broad phase's tasks on the pool read them where they are)
    this.snap = sharedF64(3 * nv);
    this.delta = sharedF64(nv);
    this.vBox = sharedF64(6 * nv);
    this.violators = new Int32Array(nv);
    this.forced = new Int32Array(nv);
    this.forcedFlag = new Uint8Array(nv);
    this.forcedCount = 0;
    this.valid = false;
  }

  /**
   * Checks the snapshots: collects the vertices whose position at x or p,
   * carried back into the snapshot frame by the best rigid motion of all
   * surface vertices, strays more than their allowance δ (less `slack`)
   * from their snapshot, and those forced to renew. Returns their number
   * (into `violators`), or −1 when every snapshot must be taken anew.
   */
  check(x: Float64Array, p: Float64Array, slack: number): number {
    if (!this.valid) return -1;
    const nv = this.topo.vertexCount;
    const vert = this.topo.vertex,
      snap = this.snap,
      delta = this.delta;
    this.fitFrames(x, p);
    const RX = this.frameX,
      RP = this.frameP;
    let n = 0;
    const viol = this.violators;
    for (let v = 0; v < nv; v++) {
      const g = 3 * vert[v],
        s = 3 * v;
      const dv = delta[v] - slack;
      const d2 = dv * dv;
      // y = Rᵀ (x − c) + c0, compared with the snapshot
      let ux = x[g] - RX[9],
        uy = x[g + 1] - RX[10],
        uz = x[g + 2] - RX[11];
      let ax = RX[0] * ux + RX[3] * uy + RX[6] * uz + RX[12] - snap[s],
        ay = RX[1] * ux + RX[4] * uy + RX[7] * uz + RX[13] - snap[s + 1],
        az = RX[2] * ux + RX[5] * uy + RX[8] * uz + RX[14] - snap[s + 2];
      if (ax * ax + ay * ay + az * az > d2) {
        viol[n++] = v;
        continue;
      }
      ux = p[g] - RP[9];
      uy = p[g + 1] - RP[10];
      uz = p[g + 2] - RP[11];
      ax = RP[0] * ux + RP[3] * uy + RP[6] * uz + RP[12] - snap[s];
      ay = RP[1] * ux + RP[4] * uy + RP[7] * uz + RP[13] - snap[s + 1];
      az = RP[2] * ux + RP[5] * uy + RP[8] * uz + RP[14] - snap[s + 2];
      if (ax * ax + ay * ay + az * az > d2 || this.forcedFlag[v] !== 0) viol[n++] = v;
    }
    for (let k = 0; k < this.forcedCount; k++) this.forcedFlag[this.forced[k]] = 0;
    this.forcedCount = 0;
    return n;
  }

  /** Makes vertex v renew its snapshot (and its candidates) at the next check. */
  force(v: number): void {
    if (this.forcedFlag[v] !== 0) return;
    this.forcedFlag[v] = 1;
    this.forced[this.forcedCount++] = v;
  }

  /** Takes a snapshot of every vertex, in the frame of x itself (identity for x, fitted for p). */
  takeAll(x: Float64Array, p: Float64Array): void {
    const nv = this.topo.vertexCount,
      vert = this.topo.vertex;
    for (let v = 0; v < nv; v++) {
      const g = 3 * vert[v];
      this.snap[3 * v] = x[g];
      this.snap[3 * v + 1] = x[g + 1];
      this.snap[3 * v + 2] = x[g + 2];
    }
    this.quatX.set(IDENTITY_QUAT);
    this.quatP.set(IDENTITY_QUAT);
    this.fitFrames(x, p);
    for (let v = 0; v < nv; v++) this.take(v, x, p, this.vertexMinAllowance(v));
    this.valid = true;
  }

  /**
   * Takes a new snapshot of vertex v in the snapshot frame, with an allowance
   * from its motion of this substep in that frame.
   */
  take(v: number, x: Float64Array, p: Float64Array, dmin: number): void {
    const g = 3 * this.topo.vertex[v],
      s = 3 * v;
    const meanEdge = this.topo.meanEdge;
    const RX = this.frameX,
      RP = this.frameP;
    let ux = x[g] - RX[9],
      uy = x[g + 1] - RX[10],
      uz = x[g + 2] - RX[11];
    const yx = RX[0] * ux + RX[3] * uy + RX[6] * uz + RX[12],
      yy = RX[1] * ux + RX[4] * uy + RX[7] * uz + RX[13],
      yz = RX[2] * ux + RX[5] * uy + RX[8] * uz + RX[14];
    ux = p[g] - RP[9];
    uy = p[g + 1] - RP[10];
    uz = p[g + 2] - RP[11];
    const mx = RP[0] * ux + RP[3] * uy + RP[6] * uz + RP[12] - yx,
      my = RP[1] * ux + RP[4] * uy + RP[7] * uz + RP[13] - yy,
      mz = RP[2] * ux + RP[5] * uy + RP[8] * uz + RP[14] - yz;
    // room for a little more than one more substep like this one, but not beyond one mesh spacing more
    // (fast vertices renew their snapshot instead of sweeping huge boxes) …
    const u = Math.sqrt(mx * mx + my * my + mz * mz);
    let d = Math.max(dmin, Math.min(ALLOWANCE * u, u + meanEdge));
    let cx = yx,
      cy = yy,
      cz = yz;
    if (u <= meanEdge) {
      // … or, centred L (LEAD, or LEAD_SLOW for slow vertices) substeps ahead, room for L + ALLOWANCE − 1
      // such substeps around the centre plus the minimum δ around x (the sphere holds x, at L·u from the
      // centre, and p, at (L − 1)·u; any centre is valid, only the δ-sphere of each vertex matters to the
      // candidate tests)
      const L = LEAD_SLOW * u <= LEAD_REACH * meanEdge ? LEAD_SLOW : LEAD;
      cx = yx + L * mx;
      cy = yy + L * my;
      cz = yz + L * mz;
      d = Math.max(dmin + L * u, (L + ALLOWANCE - 1) * u);
    }
    this.snap[s] = cx;
    this.snap[s + 1] = cy;
    this.snap[s + 2] = cz;
    this.delta[v] = d;
    const o = 6 * v;
    const vb = this.vBox;
    vb[o] = cx - d;
    vb[o + 1] = cy - d;
    vb[o + 2] = cz - d;
    vb[o + 3] = cx + d;
    vb[o + 4] = cy + d;
    vb[o + 5] = cz + d;
  }

  /** Smallest allowance δ (m). */
  minAllowance(): number {
    const hr = this.topo.halfReach;
    let r = Infinity;
    for (let i = 0; i < hr.length; i++) r = Math.min(r, hr[i]);
    return Math.max(0.5 * (Number.isFinite(r) ? r : 0), 0.1 * this.topo.meanEdge);
  }

  /** Smallest allowance δ (m) of vertex v: a quarter of its surface's reach, at least a tenth of the mean edge. */
  vertexMinAllowance(v: number): number {
    return Math.max(0.5 * this.topo.halfReach[this.topo.vertexSurface[v]], 0.1 * this.topo.meanEdge);
  }

  /**
   * The rigid motions (rotation R, centroid c) that best carry the snapshots
   * onto x and onto p: R is the rotational part of Σ (x − c)(ŝ − c0)ᵀ
   * (extractRotationRobust: Müller et al. 2016, warm-started). Pair distances do not change under a
   * rigid motion, so any choice is valid; a good fit just keeps tumbling and
   * falling cloth from looking like motion. Frames: R (9, row-major), c (3), c0 (3).
   */
  private fitFrames(x: Float64Array, p: Float64Array): void {
    const nv = this.topo.vertexCount,
      vert = this.topo.vertex,
      snap = this.snap;
    let sx = 0,
      sy = 0,
      sz = 0,
      cx = 0,
      cy = 0,
      cz = 0,
      qx = 0,
      qy = 0,
      qz = 0;
    for (let v = 0; v < nv; v++) {
      const g = 3 * vert[v],
        s = 3 * v;
      sx += snap[s];
      sy += snap[s + 1];
      sz += snap[s + 2];
      cx += x[g];
      cy += x[g + 1];
      cz += x[g + 2];
      qx += p[g];
      qy += p[g + 1];
      qz += p[g + 2];
    }
    const inv = 1 / Math.max(1, nv);
    sx *= inv;
    sy *= inv;
    sz *= inv;
    this.fitOne(x, cx * inv, cy * inv, cz * inv, sx, sy, sz, this.quatX, this.frameX);
    this.fitOne(p, qx * inv, qy * inv, qz * inv, sx, sy, sz, this.quatP, this.frameP);
  }

  private fitOne(
    x: Float64Array,
    cx: number,
    cy: number,
    cz: number,
    sx: number,
    sy: number,
    sz: number,
    q: Float64Array,
    F: Float64Array,
  ): void {
    const nv = this.topo.vertexCount,
      vert = this.topo.vertex,
      snap = this.snap;
    const A = this.cov;
    A.fill(0);
    for (let v = 0; v < nv; v++) {
      const g = 3 * vert[v],
        s = 3 * v;
      const ux = x[g] - cx,
        uy = x[g + 1] - cy,
        uz = x[g + 2] - cz;
      const rx = snap[s] - sx,
        ry = snap[s + 1] - sy,
        rz = snap[s + 2] - sz;
      A[0] += ux * rx;
      A[1] += ux * ry;
      A[2] += ux * rz;
      A[3] += uy * rx;
      A[4] += uy * ry;
      A[5] += uy * rz;
      A[6] += uz * rx;
      A[7] += uz * ry;
      A[8] += uz * rz;
    }
    extractRotationRobust(A, q, F);
    F[9] = cx;
    F[10] = cy;
    F[11] = cz;
    F[12] = sx;
    F[13] = sy;
    F[14] = sz;
  }
}
