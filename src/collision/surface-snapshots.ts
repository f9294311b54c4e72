import type { TaskRunner } from '../core/step-context.js';
import { extractRotationRobust } from '../math/polar.js';
import {
  type BlocksSource,
  type BroadBlocks,
  checkRange,
  minAllowanceOf,
  takeSnapshot,
} from './surface-broad-blocks.js';
import { type ArrayAlloc, sharedAlloc, sharedU8 } from './surface-broad-items.js';
import type { SurfaceTopology } from './surface-topology.js';

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
  private readonly frames = new Float64Array(30);
  private readonly frameX = this.frames.subarray(0, 15);
  private readonly frameP = this.frames.subarray(15, 30);
  private readonly quatX = new Float64Array([0, 0, 0, 1]);
  private readonly quatP = new Float64Array([0, 0, 0, 1]);
  private readonly cov = new Float64Array(9);
  /** Vertices that must renew their snapshot at the next check (e.g. an edge of theirs turned sharp). */
  private forced = new Int32Array(0);
  /** (on shared memory: the check's blocks on the pool read it) */
  forcedFlag: Uint8Array = new Uint8Array(0);
  private forcedCount = 0;
  private readonly topo: SurfaceTopology;

  constructor(topology: SurfaceTopology) {
    this.topo = topology;
  }

  /** Sizes the arrays for the current topology (all snapshots invalid); `alloc`: where the broad phase's arrays live. */
  resize(alloc: ArrayAlloc = sharedAlloc): void {
    const nv = this.topo.vertexCount;
    // (on shared memory: the broad phase's tasks on the pool, and its WebAssembly tests, read them where they are)
    this.snap = alloc.f64(3 * nv);
    this.delta = alloc.f64(nv);
    this.vBox = alloc.f64(6 * nv);
    this.violators = new Int32Array(nv);
    this.forced = new Int32Array(nv);
    this.forcedFlag = sharedU8(nv);
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
  check(
    x: Float64Array,
    p: Float64Array,
    slack: number,
    tasks: TaskRunner | null = null,
    blocks: BroadBlocks | null = null,
    src: BlocksSource | null = null,
    lead: (() => void) | null = null,
  ): number {
    if (!this.valid) return -1;
    const nv = this.topo.vertexCount;
    this.fitFrames(x, p);
    let n = -1;
    // in blocks on the pool (the strays joined in vertex order), or here
    if (tasks !== null && blocks !== null && src !== null)
      n = blocks.check(tasks, src, x, p, this.frames, slack, this.violators, lead);
    if (n < 0)
      n = checkRange(
        this.topo.vertex,
        this.snap,
        this.delta,
        this.forcedFlag,
        x,
        p,
        this.frames,
        0,
        slack,
        0,
        nv,
        this.violators,
        0,
      );
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

  /** Takes a snapshot of every vertex, in the frame of x itself (identity for x, fitted for p); in blocks on the pool where it can. */
  takeAll(
    x: Float64Array,
    p: Float64Array,
    tasks: TaskRunner | null = null,
    blocks: BroadBlocks | null = null,
    src: BlocksSource | null = null,
  ): void {
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
    this.valid = true;
    if (
      tasks !== null &&
      blocks !== null &&
      src !== null &&
      blocks.take(tasks, src, x, p, this.frames, this.topo.meanEdge)
    )
      return;
    for (let v = 0; v < nv; v++) this.take(v, x, p, this.vertexMinAllowance(v));
  }

  /**
   * Takes a new snapshot of vertex v in the snapshot frame, with an allowance
   * from its motion of this substep in that frame (takeSnapshot).
   */
  take(v: number, x: Float64Array, p: Float64Array, dmin: number): void {
    takeSnapshot(
      this.snap,
      this.delta,
      this.vBox,
      v,
      3 * this.topo.vertex[v],
      x,
      p,
      this.frames,
      0,
      this.topo.meanEdge,
      dmin,
    );
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
    return minAllowanceOf(this.topo.halfReach[this.topo.vertexSurface[v]], this.topo.meanEdge);
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
    const A = this.cov;
    covariance(A, x, cx, cy, cz, this.topo.vertex, this.snap, sx, sy, sz, this.topo.vertexCount);
    extractRotationRobust(A, q, F);
    F[9] = cx;
    F[10] = cy;
    F[11] = cz;
    F[12] = sx;
    F[13] = sy;
    F[14] = sz;
  }
}

/**
 * A = Σ (x − c)(ŝ − s0)ᵀ over the nv surface vertices (row-major), each entry
 * summed in a scalar (a register, not the array: the same products added in
 * the same order, so the same bits as summing into A; docs/collision.md,
 * "Twelfth round": the calling thread's time in the rigid fit).
 */
function covariance(
  A: Float64Array,
  x: Float64Array,
  cx: number,
  cy: number,
  cz: number,
  vert: Int32Array,
  snap: Float64Array,
  sx: number,
  sy: number,
  sz: number,
  nv: number,
): void {
  // the nine sums, row by row
  let a0 = 0;
  let a1 = 0;
  let a2 = 0;
  let a3 = 0;
  let a4 = 0;
  let a5 = 0;
  let a6 = 0;
  let a7 = 0;
  let a8 = 0;
  for (let v = 0; v < nv; v++) {
    const g = 3 * vert[v],
      s = 3 * v;
    const ux = x[g] - cx,
      uy = x[g + 1] - cy,
      uz = x[g + 2] - cz;
    const rx = snap[s] - sx,
      ry = snap[s + 1] - sy,
      rz = snap[s + 2] - sz;
    a0 += ux * rx;
    a1 += ux * ry;
    a2 += ux * rz;
    a3 += uy * rx;
    a4 += uy * ry;
    a5 += uy * rz;
    a6 += uz * rx;
    a7 += uz * ry;
    a8 += uz * rz;
  }
  A[0] = a0;
  A[1] = a1;
  A[2] = a2;
  A[3] = a3;
  A[4] = a4;
  A[5] = a5;
  A[6] = a6;
  A[7] = a7;
  A[8] = a8;
}
