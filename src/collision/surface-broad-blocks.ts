import type { SharedTask, TaskRunner } from '../core/step-context.js';
import { boundingSphere, unionBox, unionBox2 } from './surface-broad-items.js';
import type { BroadArrays } from './surface-broad-pairs.js';

/**
 * The per-vertex and per-item loops of the surface broad phase that ran on
 * the calling thread of a threaded world (docs/collision.md, "Eighth round
 * (session 14)"): the snapshot check's scan for strays, the snapshots of a
 * full rebuild, the triangle and edge boxes, and the swept boxes and
 * relative motions of every substep. Each is a loop whose iterations are
 * independent (a vertex's or an item's own values, from the same inputs),
 * so a block of it writes the same values whichever thread runs it; the
 * strays are written by each block into its own range and joined in block
 * order, so the list is the serial scan's, entry for entry. The sums that
 * precede two of them (the rigid frames of the check, the mean
 * displacement of the motions) stay on the calling thread: a sum in blocks
 * would round differently.
 *
 * One shared task for all four loops (and for the check with the swept
 * boxes in one job, OP_CHECK_SWEPT): the loop to run is a slot of a
 * shared array (`par`), so switching loops sends nothing to the workers.
 */

/** Loops of the task (par[P_OP]). */
const OP_CHECK = 0;
const OP_TAKE = 1;
const OP_ITEMS = 2;
const OP_SWEPT = 3;
/** The check's scan and the swept boxes in one job (BroadBlocks.alsoSwept; session 18). */
const OP_CHECK_SWEPT = 4;

/** Slots of BlocksArgs.par. */
const P_OP = 0;
const P_SLACK = 1;
const P_MEAN_EDGE = 2;
/** 1: only the dirty items' boxes (an incremental update). */
const P_DIRTY = 3;
/** The mean displacement of the surface vertices (relativeMotion). */
const P_CX = 4;
const P_CY = 5;
const P_CZ = 6;
/** The two rigid frames of the snapshots (SurfaceSnapshots.frames: at x, then at p, 15 each). */
const P_FRAMES = 8;
const P_SLOTS = 40;

/** Surface vertices below which the loops stay on the calling thread. */
export const BLOCKS_MIN_VERTICES = 2048;
/** Blocks of a loop (the values do not depend on it; small enough blocks even out the threads). */
const BLOCKS = 16;

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

/** Scratch of toFrame (one per thread: module state). */
const frameY = new Float64Array(3);

/**
 * y = Rᵀ (x − c) + c0 of the point x[g …] in the frame at F[f …] (R
 * row-major, c, c0: SurfaceSnapshots.fitFrames), into y.
 */
function toFrame(F: Float64Array, f: number, x: Float64Array, g: number, y: Float64Array): void {
  const ux = x[g] - F[f + 9],
    uy = x[g + 1] - F[f + 10],
    uz = x[g + 2] - F[f + 11];
  y[0] = F[f] * ux + F[f + 3] * uy + F[f + 6] * uz + F[f + 12];
  y[1] = F[f + 1] * ux + F[f + 4] * uy + F[f + 7] * uz + F[f + 13];
  y[2] = F[f + 2] * ux + F[f + 5] * uy + F[f + 8] * uz + F[f + 14];
}

/**
 * A new snapshot of surface vertex v (global index g) in the snapshot
 * frame (F: the frame at x from offset f, the frame at p from f + 15, see
 * SurfaceSnapshots.fitFrames), with an allowance from its motion of this
 * substep in that frame, at least dmin.
 */
export function takeSnapshot(
  snap: Float64Array,
  delta: Float64Array,
  vb: Float64Array,
  v: number,
  g: number,
  x: Float64Array,
  p: Float64Array,
  F: Float64Array,
  f: number,
  meanEdge: number,
  dmin: number,
): void {
  const s = 3 * v;
  const y = frameY;
  toFrame(F, f, x, g, y);
  const yx = y[0],
    yy = y[1],
    yz = y[2];
  toFrame(F, f + 15, p, g, y);
  const mx = y[0] - yx,
    my = y[1] - yy,
    mz = y[2] - yz;
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
  snap[s] = cx;
  snap[s + 1] = cy;
  snap[s + 2] = cz;
  delta[v] = d;
  const o = 6 * v;
  vb[o] = cx - d;
  vb[o + 1] = cy - d;
  vb[o + 2] = cz - d;
  vb[o + 3] = cx + d;
  vb[o + 4] = cy + d;
  vb[o + 5] = cz + d;
}

/** Smallest allowance of a vertex of a surface with half reach hr: a quarter of the reach, at least a tenth of the mean edge. */
export function minAllowanceOf(hr: number, meanEdge: number): number {
  return Math.max(0.5 * hr, 0.1 * meanEdge);
}

/**
 * The snapshot check of vertices v0 … v1 − 1 (SurfaceSnapshots.check): those
 * whose position at x or p, carried into the snapshot frame (F from f at
 * x, from f + 15 at p), lies more than their allowance less `slack` from their
 * snapshot, or that are forced to renew, written to out from `at` on, in
 * vertex order. Returns how many.
 */
export function checkRange(
  vert: Int32Array,
  snap: Float64Array,
  delta: Float64Array,
  forced: Uint8Array,
  x: Float64Array,
  p: Float64Array,
  F: Float64Array,
  f: number,
  slack: number,
  v0: number,
  v1: number,
  out: Int32Array,
  at: number,
): number {
  let n = at;
  const y = frameY;
  for (let v = v0; v < v1; v++) {
    const g = 3 * vert[v],
      s = 3 * v;
    const dv = delta[v] - slack;
    const d2 = dv * dv;
    // y = Rᵀ (x − c) + c0, compared with the snapshot
    toFrame(F, f, x, g, y);
    let ax = y[0] - snap[s],
      ay = y[1] - snap[s + 1],
      az = y[2] - snap[s + 2];
    if (ax * ax + ay * ay + az * az > d2) {
      out[n++] = v;
      continue;
    }
    toFrame(F, f + 15, p, g, y);
    ax = y[0] - snap[s];
    ay = y[1] - snap[s + 1];
    az = y[2] - snap[s + 2];
    if (ax * ax + ay * ay + az * az > d2 || forced[v] !== 0) out[n++] = v;
  }
  return n - at;
}

/** What the item boxes read and write (SurfaceBroadPhase.itemBoxes). */
export interface ItemArrays {
  tri: Int32Array;
  edge: Int32Array;
  triSurface: Int32Array;
  edgeSurface: Int32Array;
  halfReach: Float64Array;
  snap: Float64Array;
  vBox: Float64Array;
  sharp: Uint8Array;
  tDirty: Uint8Array;
  eDirty: Uint8Array;
  tBox: Float64Array;
  tSphere: Float64Array;
  eBox: Float64Array;
  eHalf: Float64Array;
}

/**
 * Boxes of items i0 … i1 − 1, where items 0 … nt − 1 are the triangles
 * (box and bounding sphere) and nt … the edges (box, grown only when
 * sharp, and half length); `dirty`: only the items flagged dirty.
 */
export function itemBoxesRange(A: ItemArrays, nt: number, i0: number, i1: number, dirty: boolean): void {
  const hr = A.halfReach,
    ts = A.triSurface,
    es = A.edgeSurface,
    tri = A.tri,
    edge = A.edge,
    vBox = A.vBox,
    S = A.snap,
    eHalf = A.eHalf,
    td = A.tDirty,
    ed = A.eDirty;
  const t1 = Math.min(i1, nt);
  for (let t = i0; t < t1; t++) {
    if (!dirty || td[t] !== 0) {
      unionBox(A.tBox, t, vBox, tri[3 * t], tri[3 * t + 1], tri[3 * t + 2], hr[ts[t]]);
      boundingSphere(A.tSphere, t, S, tri[3 * t], tri[3 * t + 1], tri[3 * t + 2]);
    }
  }
  for (let e = Math.max(i0, nt) - nt; e < i1 - nt; e++) {
    if (!dirty || ed[e] !== 0) {
      const a = edge[2 * e],
        b = edge[2 * e + 1];
      unionBox2(A.eBox, e, vBox, a, b, A.sharp[e] !== 0 ? hr[es[e]] : 0);
      const a3 = 3 * a,
        b3 = 3 * b;
      const dx = S[b3] - S[a3],
        dy = S[b3 + 1] - S[a3 + 1],
        dz = S[b3 + 2] - S[a3 + 2];
      eHalf[e] = 0.5 * Math.sqrt(dx * dx + dy * dy + dz * dz);
    }
  }
}

/**
 * Swept boxes x → p (sv) and motions |(p − x) − c| relative to the mean
 * displacement c (SurfaceBroadPhase.sweptBoxes) of vertices v0 … v1 − 1.
 */
export function sweptRange(
  vert: Int32Array,
  x: Float64Array,
  p: Float64Array,
  sv: Float64Array,
  motion: Float64Array,
  cx: number,
  cy: number,
  cz: number,
  v0: number,
  v1: number,
): void {
  for (let v = v0; v < v1; v++) {
    const g = 3 * vert[v],
      o = 6 * v;
    const x0 = x[g],
      y0 = x[g + 1],
      z0 = x[g + 2],
      x1 = p[g],
      y1 = p[g + 1],
      z1 = p[g + 2];
    sv[o] = Math.min(x0, x1);
    sv[o + 1] = Math.min(y0, y1);
    sv[o + 2] = Math.min(z0, z1);
    sv[o + 3] = Math.max(x0, x1);
    sv[o + 4] = Math.max(y0, y1);
    sv[o + 5] = Math.max(z0, z1);
    const mx = x1 - x0 - cx,
      my = y1 - y0 - cy,
      mz = z1 - z0 - cz;
    motion[v] = Math.sqrt(mx * mx + my * my + mz * mz);
  }
}

/** Arguments of the 'surface-broad-blocks' task. */
interface BlocksArgs extends ItemArrays {
  par: Float64Array;
  vertex: Int32Array;
  vertexSurface: Int32Array;
  x: Float64Array;
  p: Float64Array;
  delta: Float64Array;
  forced: Uint8Array;
  sv: Float64Array;
  motion: Float64Array;
  /** The check's strays: block b writes from the first vertex of its range; counts[b]: how many. */
  viol: Int32Array;
  counts: Int32Array;
}

/** The task's kernel: block `block` = vertices (or items) [from, to) of the loop par[P_OP]. */
export function broadBlocksTask(A: BlocksArgs, from: number, to: number, block: number): void {
  const par = A.par;
  const op = par[P_OP];
  // the swept boxes of the check's vertices first, then their check (one job for both)
  if (op === OP_CHECK_SWEPT)
    sweptRange(A.vertex, A.x, A.p, A.sv, A.motion, par[P_CX], par[P_CY], par[P_CZ], from, to);
  switch (op === OP_CHECK_SWEPT ? OP_CHECK : op) {
    case OP_CHECK:
      A.counts[block] = checkRange(
        A.vertex,
        A.snap,
        A.delta,
        A.forced,
        A.x,
        A.p,
        par,
        P_FRAMES,
        par[P_SLACK],
        from,
        to,
        A.viol,
        from,
      );
      break;
    case OP_TAKE: {
      const meanEdge = par[P_MEAN_EDGE],
        vert = A.vertex,
        vs = A.vertexSurface,
        hr = A.halfReach;
      for (let v = from; v < to; v++)
        takeSnapshot(
          A.snap,
          A.delta,
          A.vBox,
          v,
          3 * vert[v],
          A.x,
          A.p,
          par,
          P_FRAMES,
          meanEdge,
          minAllowanceOf(hr[vs[v]], meanEdge),
        );
      break;
    }
    case OP_ITEMS:
      itemBoxesRange(A, A.tri.length / 3, from, to, par[P_DIRTY] !== 0);
      break;
    case OP_SWEPT:
      sweptRange(A.vertex, A.x, A.p, A.sv, A.motion, par[P_CX], par[P_CY], par[P_CZ], from, to);
      break;
  }
}

type Shareable = Int32Array | Float64Array | Uint8Array;

/** The arrays that the task reads and writes where they are (shared memory). */
const OWN = [
  'snap',
  'delta',
  'vBox',
  'sharp',
  'tDirty',
  'eDirty',
  'tBox',
  'tSphere',
  'eBox',
  'eHalf',
] as const;

/** What the loops read and write: the candidate tests' arrays (SurfaceBroadPhase), and more. */
export interface BlocksSource {
  A: BroadArrays;
  /** The topology's version: its arrays are copied again when it changes. */
  topology: number;
  /** Vertices forced to renew (SurfaceSnapshots), swept boxes and relative motions (SurfaceBroadPhase). */
  forced: Uint8Array;
  sv: Float64Array;
  motion: Float64Array;
}

/**
 * The four loops on the pool for one broad phase. Each `run…` returns false
 * when it did not run there (no pool now, too few vertices, arrays not on
 * shared memory, or arguments just sent: the workers receive them before
 * the next step); the caller then runs the loop itself.
 */
export class BroadBlocks {
  private readonly task: SharedTask = { kind: 'surface-broad-blocks', args: {}, version: 0 };
  private readonly par = new Float64Array(new SharedArrayBuffer(8 * P_SLOTS));
  private readonly shared: Record<string, Shareable> = {};
  private viol: Int32Array = new Int32Array(0);
  private readonly counts = new Int32Array(new SharedArrayBuffer(4 * BLOCKS));
  private topology = -1;
  private stale = true;
  /** Loops run on the pool (statistics, tests). */
  runs = 0;
  /** Whether the next check also computes the swept boxes (alsoSwept), and whether the last one did. */
  private fuse = false;
  private sweptRan = false;
  /** Checks that computed the swept boxes in the same job (statistics, tests). */
  fused = 0;

  /**
   * The next check's job also computes the swept boxes and relative motions (sweptRange, c the
   * mean displacement): one job instead of two where nothing between them reads or writes x, p,
   * sv or motion (SurfaceBroadPhase.update with `sweep`). `sweptRan` says whether it did.
   */
  alsoSwept(cx: number, cy: number, cz: number): void {
    const par = this.par;
    par[P_CX] = cx;
    par[P_CY] = cy;
    par[P_CZ] = cz;
    this.fuse = true;
  }

  /** Whether the last check computed the swept boxes (alsoSwept); forgets the request either way. */
  endSwept(): boolean {
    const ran = this.sweptRan;
    this.fuse = false;
    this.sweptRan = false;
    return ran;
  }

  /** The check's scan; the strays joined into `out` in vertex order. Returns their number, or −1. */
  check(
    tasks: TaskRunner,
    src: BlocksSource,
    x: Float64Array,
    p: Float64Array,
    frames: Float64Array,
    slack: number,
    out: Int32Array,
    lead: (() => void) | null = null,
  ): number {
    const nv = src.A.vertex.length;
    const fuse = this.fuse;
    this.fuse = false;
    this.sweptRan = false;
    if (!this.ready(tasks, src, x, p)) return -1;
    const par = this.par;
    par.set(frames, P_FRAMES);
    par[P_SLACK] = slack;
    if (!this.go(tasks, fuse ? OP_CHECK_SWEPT : OP_CHECK, nv, lead)) return -1;
    if (fuse) {
      this.sweptRan = true;
      this.fused++;
    }
    const B = Math.ceil(nv / BLOCKS),
      total = Math.ceil(nv / B);
    const c = this.counts,
      viol = this.viol;
    let n = 0;
    for (let b = 0; b < total; b++) {
      const k = c[b];
      out.set(viol.subarray(b * B, b * B + k), n);
      n += k;
    }
    return n;
  }

  /** Every vertex's snapshot (takeSnapshot) in the frames (SurfaceSnapshots.frames). */
  take(
    tasks: TaskRunner,
    src: BlocksSource,
    x: Float64Array,
    p: Float64Array,
    frames: Float64Array,
    meanEdge: number,
  ): boolean {
    if (!this.ready(tasks, src, x, p)) return false;
    const par = this.par;
    par.set(frames, P_FRAMES);
    par[P_MEAN_EDGE] = meanEdge;
    return this.go(tasks, OP_TAKE, src.A.vertex.length);
  }

  /** The boxes of every item, or of the dirty ones. */
  items(tasks: TaskRunner, src: BlocksSource, x: Float64Array, p: Float64Array, dirty: boolean): boolean {
    if (!this.ready(tasks, src, x, p)) return false;
    this.par[P_DIRTY] = dirty ? 1 : 0;
    return this.go(tasks, OP_ITEMS, src.A.tri.length / 3 + src.A.edge.length / 2);
  }

  /** Swept boxes and relative motions, c being the mean displacement. */
  swept(
    tasks: TaskRunner,
    src: BlocksSource,
    x: Float64Array,
    p: Float64Array,
    cx: number,
    cy: number,
    cz: number,
  ): boolean {
    if (!this.ready(tasks, src, x, p)) return false;
    const par = this.par;
    par[P_CX] = cx;
    par[P_CY] = cy;
    par[P_CZ] = cz;
    return this.go(tasks, OP_SWEPT, src.A.vertex.length);
  }

  /** Points the record's `key` at `a`, an array on shared memory (false where it is not: the loops then stay here). */
  private point(key: string, a: Shareable): boolean {
    // the broad phase's and the store's own arrays: read and written where they are, or not at all
    if (!(a.buffer instanceof SharedArrayBuffer)) return false;
    if (this.shared[key] !== a) {
      this.shared[key] = a;
      this.stale = true;
    }
    return true;
  }

  /** Runs the op's job (`lead`: the calling thread's own work meanwhile, WorkerPool.run). */
  private go(tasks: TaskRunner, op: number, n: number, lead: (() => void) | null = null): boolean {
    this.par[P_OP] = op;
    if (!tasks.runTask(this.task, n, BLOCKS, lead)) return false;
    this.runs++;
    return true;
  }

  /**
   * Points the task's record at the current arrays (copies of the topology's
   * and the per-surface ones where they are not shared). False when a loop
   * cannot run on the pool now.
   */
  private ready(tasks: TaskRunner, src: BlocksSource, x: Float64Array, p: Float64Array): boolean {
    const nv = src.A.vertex.length;
    if (nv < BLOCKS_MIN_VERTICES || tasks.threads < 2) return false;
    const S = this.shared;
    const from = src.A as unknown as Record<string, Shareable>;
    for (let k = 0; k < OWN.length; k++) {
      const key = OWN[k];
      if (!this.point(key, from[key])) return false;
    }
    if (!this.point('forced', src.forced) || !this.point('sv', src.sv) || !this.point('motion', src.motion))
      return false;
    if (!this.point('x', x) || !this.point('p', p)) return false;
    if (this.topology !== src.topology) {
      for (const key of ['vertex', 'vertexSurface', 'tri', 'edge', 'triSurface', 'edgeSurface'] as const) {
        const a = src.A[key];
        S[key] = new Int32Array(new SharedArrayBuffer(4 * Math.max(1, a.length))).subarray(0, a.length);
        S[key].set(a);
      }
      this.viol = new Int32Array(new SharedArrayBuffer(4 * Math.max(1, nv)));
      this.topology = src.topology;
      this.stale = true;
    }
    const hr = src.A.halfReach;
    if (S.halfReach === undefined || S.halfReach.length !== hr.length) {
      S.halfReach = new Float64Array(new SharedArrayBuffer(8 * Math.max(1, hr.length))).subarray(
        0,
        hr.length,
      );
      this.stale = true;
    }
    S.halfReach.set(hr);
    if (this.stale) {
      this.task.version++;
      this.task.args = { ...S, par: this.par, viol: this.viol, counts: this.counts };
      this.stale = false;
    }
    return true;
  }
}
