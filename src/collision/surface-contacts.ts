import type { Body } from '../core/body.js';
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { PbdError } from '../core/errors.js';
import type { ParticleStore } from '../core/particles.js';
import { Bvh } from './bvh.js';
import {
  closestPointTriangleAt,
  closestSegmentSegmentAt,
  edgeEdgeCcd,
  vertexTriangleCcd,
} from './geometry.js';
import { Untangler } from './untangle.js';

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
/**
 * Fraction of the vertices that may renew their snapshots in an incremental
 * update; beyond it the lists are built anew. An update costs about as much
 * per renewed vertex as a rebuild does per vertex times ~10 (each renewal
 * dirties ~6 triangles and ~6 edges), so 5 % measured best (25 %: ~10 % slower).
 */
const PARTIAL_LIMIT = 0.05;
const IDENTITY_QUAT = new Float64Array([0, 0, 0, 1]);

/** Contact settings of one registered surface (a cloth, a soft body's skin …). */
export interface SurfaceOptions {
  /** Cloth thickness h (m): vertices are kept this far from the triangles (003 §4.3, eqs. 12–13). Default 0.01. */
  thickness?: number;
  /** Self collision of this surface. Default true. */
  self?: boolean;
  /** Contact with the other registered surfaces. Default true. */
  others?: boolean;
  /** Kinetic friction coefficient μ. Default 0.3. */
  friction?: number;
  /** Static friction coefficient μs. Default: equal to `friction`. */
  staticFriction?: number;
  /** Coefficient of restitution e ∈ [0, 1] of contacts of this surface. Default 0. */
  restitution?: number;
}

/** A registered surface. */
export interface Surface {
  readonly body: Body;
  thickness: number;
  self: boolean;
  others: boolean;
  friction: number;
  staticFriction: number;
  restitution: number;
  /** Topology version the combined arrays were built from. */
  version: number;
}

/** Counters of the last step, for tests, plots and the benchmark. */
export interface SurfaceContactStats {
  /** Vertex–triangle and edge–edge candidate pairs of the broad phase. */
  vertexTriangleCandidates: number;
  edgeEdgeCandidates: number;
  /** Constraints generated in the last substep. */
  contacts: number;
  /** Full broad phase rebuilds since the start. */
  rebuilds: number;
  /** Incremental broad phase updates (only the vertices that moved too far) since the start. */
  partialUpdates: number;
  /** Crossings found by the fail-safe check after the solver (since the start). */
  failsafeCrossings: number;
  /** Vertices the fail-safe moved with a rigid impact zone (or stopped) since the start. */
  frozen: number;
  /** Edge–triangle intersections found by the last untangling analysis. */
  intersections: number;
}

const TYPE_VT = 0;
const TYPE_EE = 1;
/** Contact flags: found by proximity, by the continuous test, or an untangling pair (flipped side). */
const FLAG_PROXIMITY = 1;
const FLAG_CCD = 2;
const FLAG_FLIP = 4;

/** Barycentric tolerance for proximity contacts: the projection may lie this far outside the triangle. */
const FOOTPRINT = 0.05;

const cp = new Float64Array(7);
const ss = new Float64Array(3);

/**
 * Contacts between triangle surfaces of deformable bodies: cloth self
 * collision (003 §4.3) and collision between two dynamic bodies (003 §3.4,
 * last paragraph), with thickness, position-level friction, restitution and
 * a fail-safe.
 *
 * Constraints (all unilateral, stiffness 1, generated every substep):
 * - vertex–triangle, eqs. 12/13: C = s (q − p1) · n̂ − h with n̂ the unit
 *   normal of (p1, p2, p3) and s = ±1 the side the vertex came from. Its
 *   exact gradients are ∇q C = s n̂ and ∇pi C = −s bi n̂ with bi the
 *   barycentric coordinates of q's projection on the plane, so the
 *   projection moves the four points along n̂ and conserves linear and
 *   angular momentum (003 §3.3: Σ ∇C = 0 and Σ p × ∇C = s (q − Σ bi pi) × n̂ = 0);
 * - edge–edge: C = s (a − c) · n̂ − h with n̂ ∥ (b − a) × (d − c), gradients
 *   s(1 − t) n̂, s t n̂, −s(1 − u) n̂, −s u n̂ at the closest points of the two
 *   lines (same conservation argument).
 *
 * Detection: spatial hashes (dense tables, prefix sums) over boxes that
 * include a per-vertex motion allowance δ, filtered by exact distances, give
 * candidate pairs that stay valid while no vertex strays more than its δ
 * from its snapshot. Snapshots live in a frame that follows the best rigid
 * motion of all surface vertices, so falling or tumbling cloth is hashed
 * once; a vertex that strays renews its snapshot and only its own pairs (and
 * those of its triangles and edges) are searched again. Each candidate keeps
 * a lower bound of its distance, lowered every substep by the motion of its
 * pair, so far pairs cost a comparison. Every substep the near candidates
 * are tested for proximity (distance < h + margin at the prediction) and,
 * when they can touch at all, continuously for a crossing during x → p (the
 * cubic coplanarity test). The side s is the one before the first crossing,
 * or the present one when nothing crossed. Edge–edge proximity constraints
 * are made only between two sharp edges (creased by more than 30° or on a
 * boundary): across a flat edge another edge cannot come within h unless a
 * vertex comes within h of that edge's triangles first. Edge–edge crossings
 * are tested for every pair.
 *
 * Fail-safe: after the last solver iteration every candidate is tested for a
 * crossing during x → p once more; crossings get constraints and another
 * pass, and the vertices still crossing are gathered into rigid impact zones
 * (Provot 1997, Bridson et al. 2002) that move by their mean displacement (a
 * zone holding a pinned vertex stops). So, from an untangled start, no
 * crossing and hence no intersection is ever created — except by kinematic
 * vertices, which nothing can stop. Tangled input is resolved by the
 * Untangler.
 */
export class SurfaceContacts implements ConstraintSet {
  readonly kind = 'surface-contact';
  readonly order = 110;
  enabled = true;
  /** Contacts of the current substep. */
  count = 0;
  /** Extra distance (m) within which proximity contacts are generated, as a fraction of h. Default 0.5. */
  marginFactor = 0.5;
  /** Run the fail-safe crossing check after the solver. Default true. */
  failsafe = true;
  readonly surfaces: Surface[] = [];
  readonly stats: SurfaceContactStats = {
    vertexTriangleCandidates: 0,
    edgeEdgeCandidates: 0,
    contacts: 0,
    rebuilds: 0,
    partialUpdates: 0,
    failsafeCrossings: 0,
    frozen: 0,
    intersections: 0,
  };
  /**
   * Contacts are generated every this many substeps, from the motion
   * extrapolated over them, and projected in every substep; the fail-safe
   * then checks the straight path from the positions at the start of those
   * substeps to their end, so the state at the end of each period (and of
   * each step, when the period divides the substeps) is intersection-free.
   * 1 (default): every substep. Larger values trade response detail for speed.
   */
  detectEvery = 1;
  /** Positions at the start of the detection period (surface vertices, global layout) and the extrapolated end. */
  private start = new Float64Array(0);
  private ahead = new Float64Array(0);
  /** True in the last substep of a detection period. */
  private macroEnd = true;
  /** Detect and resolve existing intersections (see Untangler). Default true. */
  untangle = true;
  /** Run the untangling analysis every this many steps. Default 4. */
  untangleEvery = 4;
  private readonly untangler = new Untangler(this);
  private stepIndex = 0;
  private topologyVersion = 0;

  // ---- combined topology of all surfaces (surface-vertex ids and global particle ids)
  /** Global particle index of each surface vertex. */
  vertex = new Int32Array(0);
  /** Surface of each surface vertex. */
  vertexSurface = new Int32Array(0);
  /** Triangles: three surface-vertex ids each. */
  tri = new Int32Array(0);
  triSurface = new Int32Array(0);
  /** Edges: two surface-vertex ids each. */
  edge = new Int32Array(0);
  edgeSurface = new Int32Array(0);
  vertexCount = 0;
  triCount = 0;
  edgeCount = 0;
  /** Mean edge length at the last topology build (m). */
  meanEdge = 0;
  /** Pair switches: pairOn[a · S + b] for surfaces a, b. */
  private pairOn = new Uint8Array(0);
  private pairOverride = new Map<number, boolean>();
  private topologyDirty = true;

  // ---- broad phase state
  private snap = new Float64Array(0);
  private delta = new Float64Array(0);
  private vBox = new Float64Array(0);
  private tBox = new Float64Array(0);
  /** Bounding sphere of each triangle's snapshot (centroid xyz, radius), a cheap lower bound of vertex distances. */
  private tSphere = new Float64Array(0);
  /** Half the length of each edge's snapshot (the radius of its bounding sphere). */
  private eHalf = new Float64Array(0);
  private eBox = new Float64Array(0);
  /**
   * BVH over the triangle boxes (built once per topology, refitted at every
   * update): its self-traversal gives the overlapping triangle pairs, and
   * each vertex and edge is "owned" by one of its triangles, so that every
   * (vertex, triangle) and (edge, edge) pair is examined once.
   */
  private readonly tree = new Bvh(4);
  private treeVersion = -1;
  /** Vertices and edges owned by each triangle (CSR), and the vertices of no triangle (free points). */
  private ownVStart = new Int32Array(1);
  private ownV = new Int32Array(0);
  ownEStart = new Int32Array(1);
  ownE = new Int32Array(0);
  private freeV = new Int32Array(0);
  private valid = false;
  /** Rigid frames of x and p relative to the snapshots: rotation (row-major), centroid, snapshot centroid. */
  private readonly frameX = new Float64Array(15);
  private readonly frameP = new Float64Array(15);
  private readonly quatX = new Float64Array([0, 0, 0, 1]);
  private readonly quatP = new Float64Array([0, 0, 0, 1]);
  private readonly cov = new Float64Array(9);
  private violators = new Int32Array(0);
  private vDirty = new Uint8Array(0);
  private tDirty = new Uint8Array(0);
  private eDirty = new Uint8Array(0);
  private dirtyTris = new Int32Array(0);
  /** Ends of the groups of dirtyTris (the triangles each violator made dirty), for the partial update's queries. */
  private dirtyGroupEnd = new Int32Array(0);
  private dirtyEdges = new Int32Array(0);
  /** Vertex → triangles and vertex → edges (CSR). */
  private vtStart = new Int32Array(1);
  private vtList = new Int32Array(0);
  private veStart = new Int32Array(1);
  private veList = new Int32Array(0);
  /** The (up to) two triangles of each edge (−1: boundary), and which edges are sharp. */
  private edgeTris = new Int32Array(0);
  private sharp = new Uint8Array(0);
  private sharpVersion = -1;
  /** Vertices that must renew their snapshot at the next check (e.g. an edge of theirs turned sharp). */
  private forced = new Int32Array(0);
  /** Impact zones of the fail-safe (union-find over surface vertices, −1: none) and their sums. */
  private zone = new Int32Array(0);
  private zoneAcc = new Float64Array(0);
  /** Surface-vertex id of each particle (−1: not on a surface). */
  private localOf = new Int32Array(0);
  private forcedFlag = new Uint8Array(0);
  /**
   * Fail-safe rescans (verify): `crossed` flags the vertices of the pairs the
   * last findCrossings found crossing, `recheck` the vertices a rescan looks
   * at (crossed, or moved since the scan), `pKeep` the surface vertices' p
   * before a fail-safe move.
   */
  private crossed = new Uint8Array(0);
  private recheck = new Uint8Array(0);
  private pKeep = new Float64Array(0);
  private forcedCount = 0;
  /** Candidate vertex–triangle pairs: (surface vertex, triangle). */
  vtCand: Int32Array = new Int32Array(0);
  vtCount = 0;
  /** Candidate edge–edge pairs: (edge, edge). */
  eeCand: Int32Array = new Int32Array(0);
  eeCount = 0;
  /** Swept boxes of the current substep. */
  private sv = new Float64Array(0);
  /** |p − x| of every surface vertex in the current substep. */
  private motion = new Float64Array(0);
  /** Distance at x of each candidate pair (−1: not computed this substep). */
  private vtDist: Float64Array = new Float64Array(0);
  private eeDist: Float64Array = new Float64Array(0);

  // ---- untangling (see Untangler): per surface vertex region label, 0 = untangled
  /** Region labels from the untangling analysis; pairs touching labelled vertices follow its rules. */
  label = new Int32Array(0);
  /** Untangling pairs (surface vertex, triangle, side) to add every substep. */
  flipPairs = new Int32Array(0);
  flipCount = 0;
  /** Largest correction (m) of one untangling projection. */
  flipStep = 0;
  /** True when some label is non-zero. */
  tangled = false;

  // ---- constraints of the substep
  private type = new Uint8Array(0);
  private flags = new Uint8Array(0);
  /** Four global particle indices per contact: VT (q, a, b, c), EE (a, b, c, d). */
  idx = new Int32Array(0);
  side = new Float64Array(0);
  thick = new Float64Array(0);
  muS = new Float64Array(0);
  muK = new Float64Array(0);
  rest = new Float64Array(0);
  lambda = new Float64Array(0);
  vn0 = new Float64Array(0);
  private capacity = 0;
  private anyRestitution = false;

  /** Registers a body's surface (its contact triangles, over its particles). */
  addSurface(body: Body, o: SurfaceOptions = {}): Surface {
    const where = `contacts of '${body.name}'`;
    const h = o.thickness ?? 0.01;
    if (!(h > 0) || !Number.isFinite(h)) {
      throw new PbdError(
        'contact/thickness',
        `${where}.thickness`,
        `must be a positive length (m), got ${o.thickness}`,
        'cloth thickness is typically 0.5–2 % of the cloth size',
      );
    }
    const mu = o.friction ?? 0.3;
    const mus = o.staticFriction ?? mu;
    const e = o.restitution ?? 0;
    for (const [k, v] of [
      ['friction', mu],
      ['staticFriction', mus],
    ] as const) {
      if (!(v >= 0) || !Number.isFinite(v))
        throw new PbdError('contact/friction', `${where}.${k}`, `must be a finite number ≥ 0, got ${v}`);
    }
    if (!(e >= 0 && e <= 1))
      throw new PbdError('contact/restitution', `${where}.restitution`, `must lie in [0, 1], got ${e}`);
    if (this.surfaces.some((s) => s.body === body)) {
      throw new PbdError(
        'contact/duplicate',
        where,
        'the body is already registered',
        'change its settings with surfaceOf(body)',
      );
    }
    const s: Surface = {
      body,
      thickness: h,
      self: o.self ?? true,
      others: o.others ?? true,
      friction: mu,
      staticFriction: mus,
      restitution: e,
      version: -1,
    };
    this.surfaces.push(s);
    this.topologyDirty = true;
    return s;
  }

  surfaceOf(body: Body): Surface | undefined {
    return this.surfaces.find((s) => s.body === body);
  }

  /** Switches contact between two registered bodies (or a body's self collision when a === b). */
  setPair(a: Body, b: Body, enabled: boolean): void {
    const ia = this.surfaces.findIndex((s) => s.body === a),
      ib = this.surfaces.findIndex((s) => s.body === b);
    if (ia < 0 || ib < 0) {
      throw new PbdError(
        'contact/unknown-body',
        `contact pair ('${a.name}', '${b.name}')`,
        'both bodies must be registered for contacts first',
      );
    }
    this.pairOverride.set(Math.min(ia, ib) * 65536 + Math.max(ia, ib), enabled);
    this.topologyDirty = true;
  }

  /** Marks the topology for rebuilding (after a change of settings). */
  invalidate(): void {
    this.topologyDirty = true;
  }

  /** Are contacts between surfaces a and b (indices into `surfaces`) switched on? */
  pairActive(a: number, b: number): boolean {
    return this.pairOn[a * this.surfaces.length + b] === 1;
  }

  private pairEnabled(a: number, b: number): boolean {
    const o = this.pairOverride.get(Math.min(a, b) * 65536 + Math.max(a, b));
    if (o !== undefined) return o;
    const sa = this.surfaces[a],
      sb = this.surfaces[b];
    return a === b ? sa.self : sa.others && sb.others;
  }

  // ---- topology ------------------------------------------------------------

  private refreshTopology(store: ParticleStore): void {
    let dirty = this.topologyDirty;
    for (const s of this.surfaces) if (s.version !== s.body.topologyVersion) dirty = true;
    if (!dirty) return;
    this.topologyDirty = false;
    this.topologyVersion++;
    const S = this.surfaces.length;
    this.pairOn = new Uint8Array(S * S);
    for (let a = 0; a < S; a++)
      for (let b = 0; b < S; b++) this.pairOn[a * S + b] = this.pairEnabled(a, b) ? 1 : 0;
    const verts: number[] = [],
      vsurf: number[] = [],
      tris: number[] = [],
      tsurf: number[] = [],
      edges: number[] = [],
      esurf: number[] = [];
    const local = new Map<number, number>();
    for (let si = 0; si < S; si++) {
      const s = this.surfaces[si];
      s.version = s.body.topologyVersion;
      const t = s.body.contactTriangles();
      const off = s.body.offset;
      if (t.length === 0) {
        // a body without triangles takes part as points (vertex–triangle contacts only)
        for (let i = 0; i < s.body.activeCount; i++) {
          const g = off + i;
          if (local.has(g)) continue;
          local.set(g, verts.length);
          verts.push(g);
          vsurf.push(si);
        }
        continue;
      }
      const edgeSeen = new Set<number>();
      for (let k = 0; k < t.length; k += 3) {
        const ids = [0, 0, 0];
        for (let j = 0; j < 3; j++) {
          const g = t[k + j] + off;
          let v = local.get(g);
          if (v === undefined) {
            v = verts.length;
            local.set(g, v);
            verts.push(g);
            vsurf.push(si);
          }
          ids[j] = v;
        }
        tris.push(ids[0], ids[1], ids[2]);
        tsurf.push(si);
        for (let j = 0; j < 3; j++) {
          const a = ids[j],
            b = ids[(j + 1) % 3];
          const key = Math.min(a, b) * 67108864 + Math.max(a, b);
          if (edgeSeen.has(key)) continue;
          edgeSeen.add(key);
          edges.push(Math.min(a, b), Math.max(a, b));
          esurf.push(si);
        }
      }
    }
    this.vertex = Int32Array.from(verts);
    this.vertexSurface = Int32Array.from(vsurf);
    this.tri = Int32Array.from(tris);
    this.triSurface = Int32Array.from(tsurf);
    this.edge = Int32Array.from(edges);
    this.edgeSurface = Int32Array.from(esurf);
    this.vertexCount = verts.length;
    this.triCount = tris.length / 3;
    this.edgeCount = edges.length / 2;
    const nv = this.vertexCount;
    this.snap = new Float64Array(3 * nv);
    this.delta = new Float64Array(nv);
    this.vBox = new Float64Array(6 * nv);
    this.sv = new Float64Array(6 * nv);
    this.motion = new Float64Array(nv);
    this.tBox = new Float64Array(6 * this.triCount);
    this.tSphere = new Float64Array(4 * this.triCount);
    this.eHalf = new Float64Array(this.edgeCount);
    this.eBox = new Float64Array(6 * this.edgeCount);
    this.label = new Int32Array(nv);
    this.violators = new Int32Array(nv);
    this.zone = new Int32Array(nv);
    this.zoneAcc = new Float64Array(5 * nv);
    this.localOf = new Int32Array(store.count).fill(-1);
    for (let i = 0; i < nv; i++) this.localOf[this.vertex[i]] = i;
    this.forced = new Int32Array(nv);
    this.forcedFlag = new Uint8Array(nv);
    this.crossed = new Uint8Array(nv);
    this.recheck = new Uint8Array(nv);
    this.pKeep = new Float64Array(3 * nv);
    this.forcedCount = 0;
    this.vDirty = new Uint8Array(nv);
    this.tDirty = new Uint8Array(this.triCount);
    this.eDirty = new Uint8Array(this.edgeCount);
    this.dirtyTris = new Int32Array(this.triCount);
    this.dirtyGroupEnd = new Int32Array(this.triCount);
    this.dirtyEdges = new Int32Array(this.edgeCount);
    const csr = (
      items: Int32Array,
      arity: number,
      count: number,
    ): [Int32Array<ArrayBuffer>, Int32Array<ArrayBuffer>] => {
      const start = new Int32Array(nv + 1);
      for (let k = 0; k < arity * count; k++) start[items[k] + 1]++;
      for (let v = 0; v < nv; v++) start[v + 1] += start[v];
      const list = new Int32Array(arity * count);
      const cur = start.slice(0, nv);
      for (let i = 0; i < count; i++) for (let j = 0; j < arity; j++) list[cur[items[arity * i + j]]++] = i;
      return [start, list];
    };
    [this.vtStart, this.vtList] = csr(this.tri, 3, this.triCount);
    [this.veStart, this.veList] = csr(this.edge, 2, this.edgeCount);
    // the triangles of each edge (through the vertex → triangle lists of its end points)
    this.edgeTris = new Int32Array(2 * this.edgeCount).fill(-1);
    for (let e = 0; e < this.edgeCount; e++) {
      const a = this.edge[2 * e],
        b = this.edge[2 * e + 1];
      let n = 0;
      for (let j = this.vtStart[a]; j < this.vtStart[a + 1] && n < 2; j++) {
        const t = this.vtList[j];
        const t0 = this.tri[3 * t],
          t1 = this.tri[3 * t + 1],
          t2 = this.tri[3 * t + 2];
        if (t0 === b || t1 === b || t2 === b) this.edgeTris[2 * e + n++] = t;
      }
    }
    // ownership: each vertex and edge belongs to its first triangle (free points to none)
    const nt = this.triCount;
    this.ownVStart = new Int32Array(nt + 1);
    this.ownEStart = new Int32Array(nt + 1);
    let nFree = 0;
    for (let v = 0; v < nv; v++) {
      if (this.vtStart[v + 1] > this.vtStart[v]) this.ownVStart[this.vtList[this.vtStart[v]] + 1]++;
      else nFree++;
    }
    for (let e = 0; e < this.edgeCount; e++) this.ownEStart[this.edgeTris[2 * e] + 1]++;
    for (let t = 0; t < nt; t++) {
      this.ownVStart[t + 1] += this.ownVStart[t];
      this.ownEStart[t + 1] += this.ownEStart[t];
    }
    this.ownV = new Int32Array(nv - nFree);
    this.ownE = new Int32Array(this.edgeCount);
    this.freeV = new Int32Array(nFree);
    const curV = this.ownVStart.slice(0, nt),
      curE = this.ownEStart.slice(0, nt);
    nFree = 0;
    for (let v = 0; v < nv; v++) {
      if (this.vtStart[v + 1] > this.vtStart[v]) this.ownV[curV[this.vtList[this.vtStart[v]]]++] = v;
      else this.freeV[nFree++] = v;
    }
    for (let e = 0; e < this.edgeCount; e++) this.ownE[curE[this.edgeTris[2 * e]]++] = e;
    this.flipCount = 0;
    this.tangled = false;
    // mean edge length, for the hash cells
    const x = store.x;
    let sum = 0;
    for (let e = 0; e < this.edgeCount; e++) {
      const a = 3 * verts[edges[2 * e]],
        b = 3 * verts[edges[2 * e + 1]];
      sum += Math.hypot(x[a] - x[b], x[a + 1] - x[b + 1], x[a + 2] - x[b + 2]);
    }
    this.meanEdge = this.edgeCount > 0 ? sum / this.edgeCount : 1;
    this.valid = false;
    this.anyRestitution = this.surfaces.some((s) => s.restitution > 0);
  }

  /**
   * Half the contact distance (thickness plus margin) of each surface: boxes
   * are grown by their own surface's half, so that two of them meet within
   * the reach of their pair (h of the surface for self contacts, the mean of
   * the two h otherwise) and a thick body (grains) does not inflate the boxes
   * of a thin one.
   */
  private halfReach = new Float64Array(0);

  private refreshReach(): void {
    const S = this.surfaces.length;
    if (this.halfReach.length !== S) this.halfReach = new Float64Array(S);
    for (let i = 0; i < S; i++)
      this.halfReach[i] = 0.5 * this.surfaces[i].thickness * (1 + this.marginFactor);
  }

  // ---- broad phase -----------------------------------------------------------

  /**
   * Checks the candidate lists: collects the vertices whose position at x or
   * p, carried back into the snapshot frame by the best rigid motion of all
   * surface vertices, strays more than their allowance δ from their
   * snapshot. Returns their number (into `violators`), or −1 when the lists
   * must be built anew.
   */
  private checkValid(x: Float64Array, p: Float64Array, slack: number): number {
    if (!this.valid) return -1;
    const nv = this.vertexCount;
    const vert = this.vertex,
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

  /**
   * The rigid motions (rotation R, centroid c) that best carry the snapshots
   * onto x and onto p: R is the rotational part of Σ (x − c)(ŝ − c0)ᵀ
   * (Müller et al. 2016, warm-started). Pair distances do not change under a
   * rigid motion, so any choice is valid; a good fit just keeps tumbling and
   * falling cloth from looking like motion. Frames: R (9, row-major), c (3), c0 (3).
   */
  private fitFrames(x: Float64Array, p: Float64Array): void {
    const nv = this.vertexCount,
      vert = this.vertex,
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
    const nv = this.vertexCount,
      vert = this.vertex,
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
    extractRotation(A, q, F);
    F[9] = cx;
    F[10] = cy;
    F[11] = cz;
    F[12] = sx;
    F[13] = sy;
    F[14] = sz;
  }

  /**
   * Takes a new snapshot of vertex v in the snapshot frame, with an allowance
   * from its motion of this substep in that frame.
   */
  private snapshot(v: number, x: Float64Array, p: Float64Array, dmin: number): void {
    const g = 3 * this.vertex[v],
      s = 3 * v;
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
    let d = Math.max(dmin, Math.min(ALLOWANCE * u, u + this.meanEdge));
    let cx = yx,
      cy = yy,
      cz = yz;
    if (u <= this.meanEdge) {
      // … or, centred L (LEAD, or LEAD_SLOW for slow vertices) substeps ahead, room for L + ALLOWANCE − 1
      // such substeps around the centre plus the minimum δ around x (the sphere holds x, at L·u from the
      // centre, and p, at (L − 1)·u; any centre is valid, only the δ-sphere of each vertex matters to the
      // candidate tests)
      const L = LEAD_SLOW * u <= LEAD_REACH * this.meanEdge ? LEAD_SLOW : LEAD;
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
  private minAllowance(): number {
    let r = Infinity;
    for (let i = 0; i < this.halfReach.length; i++) r = Math.min(r, this.halfReach[i]);
    return Math.max(0.5 * (Number.isFinite(r) ? r : 0), 0.1 * this.meanEdge);
  }

  /** Smallest allowance δ (m) of vertex v: a quarter of its surface's reach, at least a tenth of the mean edge. */
  private vertexMinAllowance(v: number): number {
    return Math.max(0.5 * this.halfReach[this.vertexSurface[v]], 0.1 * this.meanEdge);
  }

  /** Builds the candidate lists anew from x (snapshots of every vertex). */
  private fullRebuild(store: ParticleStore, x: Float64Array, p: Float64Array): void {
    this.stats.rebuilds++;
    const nv = this.vertexCount,
      vert = this.vertex;
    // the snapshot frame is x itself: identity frames for x, the fitted one for p
    for (let v = 0; v < nv; v++) {
      const g = 3 * vert[v];
      this.snap[3 * v] = x[g];
      this.snap[3 * v + 1] = x[g + 1];
      this.snap[3 * v + 2] = x[g + 2];
    }
    this.quatX.set(IDENTITY_QUAT);
    this.quatP.set(IDENTITY_QUAT);
    this.fitFrames(x, p);
    for (let v = 0; v < nv; v++) this.snapshot(v, x, p, this.vertexMinAllowance(v));
    this.itemBoxes(null);
    this.fitTree();
    this.vtCount = 0;
    this.eeCount = 0;
    const group = store.group,
      mask = store.mask;
    this.collectPairs(group, mask, false);
    this.listsChanged();
  }

  /** Updates the candidate lists for the violating vertices only. */
  private partialUpdate(store: ParticleStore, x: Float64Array, p: Float64Array, n: number): void {
    this.stats.partialUpdates++;
    const viol = this.violators;
    const vd = this.vDirty,
      td = this.tDirty,
      ed = this.eDirty;
    // re-snapshot the violators; their triangles and edges change boxes
    for (let k = 0; k < n; k++) {
      const v = viol[k];
      this.snapshot(v, x, p, this.vertexMinAllowance(v));
      vd[v] = 1;
    }
    let nt = 0,
      ne = 0;
    const vts = this.vtStart,
      vtl = this.vtList,
      ves = this.veStart,
      vel = this.veList;
    let ng = 0;
    for (let k = 0; k < n; k++) {
      const v = viol[k];
      for (let j = vts[v]; j < vts[v + 1]; j++) {
        const t = vtl[j];
        if (td[t] === 0) {
          td[t] = 1;
          this.dirtyTris[nt++] = t;
        }
      }
      // the triangles this violator made dirty form one group (they are neighbours)
      if (nt > (ng === 0 ? 0 : this.dirtyGroupEnd[ng - 1])) this.dirtyGroupEnd[ng++] = nt;
      for (let j = ves[v]; j < ves[v + 1]; j++) {
        const e = vel[j];
        if (ed[e] === 0) {
          ed[e] = 1;
          this.dirtyEdges[ne++] = e;
        }
      }
    }
    this.itemBoxes(n);
    this.tree.refitItems(this.tBox, this.dirtyTris, nt);
    // drop the pairs that involve a changed item (the distance bounds of the others stay)
    const vt = this.vtCand,
      vtDist = this.vtDist;
    let m = 0;
    for (let k = 0; k < this.vtCount; k++) {
      const q = vt[2 * k],
        t = vt[2 * k + 1];
      if (vd[q] !== 0 || td[t] !== 0) continue;
      vt[2 * m] = q;
      vt[2 * m + 1] = t;
      vtDist[m] = vtDist[k];
      m++;
    }
    this.vtCount = m;
    const ee = this.eeCand,
      eeDist = this.eeDist;
    m = 0;
    for (let k = 0; k < this.eeCount; k++) {
      const e = ee[2 * k],
        f = ee[2 * k + 1];
      if (ed[e] !== 0 || ed[f] !== 0) continue;
      ee[2 * m] = e;
      ee[2 * m + 1] = f;
      eeDist[m] = eeDist[k];
      m++;
    }
    this.eeCount = m;
    // and find their pairs again
    const group = store.group,
      mask = store.mask;
    this.collectPairs(group, mask, true, ng);
    for (let k = 0; k < n; k++) vd[viol[k]] = 0;
    for (let k = 0; k < nt; k++) td[this.dirtyTris[k]] = 0;
    for (let k = 0; k < ne; k++) ed[this.dirtyEdges[k]] = 0;
    this.listsChanged();
  }

  private listsChanged(): void {
    const nvt = this.vtCount,
      nee = this.eeCount;
    this.stats.vertexTriangleCandidates = nvt;
    this.stats.edgeEdgeCandidates = nee;
    this.valid = true;
  }

  /** Triangle and edge boxes from the vertex boxes: all of them (null), or those of the dirty items. */
  private itemBoxes(dirty: number | null): void {
    const hr = this.halfReach,
      ts = this.triSurface,
      es = this.edgeSurface;
    const tri = this.tri,
      edge = this.edge,
      vBox = this.vBox;
    for (let t = 0; t < this.triCount; t++) {
      if (dirty === null || this.tDirty[t] !== 0) {
        unionBox(this.tBox, t, vBox, tri[3 * t], tri[3 * t + 1], tri[3 * t + 2], hr[ts[t]]);
        boundingSphere(this.tSphere, t, this.snap, tri[3 * t], tri[3 * t + 1], tri[3 * t + 2]);
      }
    }
    const S = this.snap,
      eHalf = this.eHalf;
    for (let e = 0; e < this.edgeCount; e++) {
      if (dirty === null || this.eDirty[e] !== 0) {
        const a = edge[2 * e],
          b = edge[2 * e + 1];
        unionBox2(this.eBox, e, vBox, a, b, this.sharp[e] !== 0 ? hr[es[e]] : 0);
        const a3 = 3 * a,
          b3 = 3 * b;
        const dx = S[b3] - S[a3],
          dy = S[b3 + 1] - S[a3 + 1],
          dz = S[b3 + 2] - S[a3 + 2];
        eHalf[e] = 0.5 * Math.sqrt(dx * dx + dy * dy + dz * dz);
      }
    }
  }

  /** Builds the triangle tree (once per topology) or refits it to the current triangle boxes. */
  private fitTree(): void {
    if (this.treeVersion !== this.topologyVersion || this.tree.itemCount !== this.triCount) {
      this.tree.build(this.tBox, this.triCount);
      this.treeVersion = this.topologyVersion;
    } else this.tree.refit(this.tBox);
  }

  /** Can vertex q and triangle t be in contact before their snapshots go stale? (surface-vertex ids) */
  private vtCandidate(q: number, t: number, group: Int32Array, mask: Int32Array): boolean {
    const tri = this.tri;
    const a = tri[3 * t],
      b = tri[3 * t + 1],
      c = tri[3 * t + 2];
    if (q === a || q === b || q === c) return false;
    const sQ = this.vertexSurface[q],
      sT = this.triSurface[t];
    if (this.pairOn[sQ * this.surfaces.length + sT] === 0) return false;
    const gq = this.vertex[q],
      ga = this.vertex[a];
    if ((mask[gq] & group[ga]) === 0 || (mask[ga] & group[gq]) === 0) return false;
    const delta = this.delta,
      S = this.snap;
    const lim =
      this.pairThickness(sQ, sT) * (1 + this.marginFactor) +
      delta[q] +
      Math.max(delta[a], delta[b], delta[c]);
    const q3 = 3 * q,
      a3 = 3 * a,
      b3 = 3 * b,
      c3 = 3 * c;
    // the triangle lies within its bounding sphere: |q − centre| − radius bounds the distance from below
    // (the relative 1e-9 keeps round-off from rejecting a pair the exact test would accept)
    const TS = this.tSphere,
      o4 = 4 * t;
    const sx = S[q3] - TS[o4],
      sy = S[q3 + 1] - TS[o4 + 1],
      sz = S[q3 + 2] - TS[o4 + 2];
    const far = (TS[o4 + 3] + lim) * (1 + 1e-9);
    if (sx * sx + sy * sy + sz * sz > far * far) return false;
    closestPointTriangleAt(S, q3, S, a3, b3, c3, cp);
    return cp[6] <= lim * lim;
  }

  private eeCandidate(e: number, f: number, group: Int32Array, mask: Int32Array): boolean {
    const edge = this.edge;
    const a = edge[2 * e],
      b = edge[2 * e + 1],
      c = edge[2 * f],
      d = edge[2 * f + 1];
    if (c === a || c === b || d === a || d === b) return false;
    const sE = this.edgeSurface[e],
      sF = this.edgeSurface[f];
    if (this.pairOn[sE * this.surfaces.length + sF] === 0) return false;
    const ga = this.vertex[a],
      gc = this.vertex[c];
    if ((mask[ga] & group[gc]) === 0 || (mask[gc] & group[ga]) === 0) return false;
    const delta = this.delta,
      S = this.snap;
    // two sharp edges can be in contact (within reach); other pairs matter only if they can cross
    const sharp = this.sharp[e] !== 0 && this.sharp[f] !== 0;
    const lim =
      (sharp ? this.pairThickness(sE, sF) * (1 + this.marginFactor) : 1e-9 * this.meanEdge) +
      Math.max(delta[a], delta[b]) +
      Math.max(delta[c], delta[d]);
    const a3 = 3 * a,
      b3 = 3 * b,
      c3 = 3 * c,
      d3 = 3 * d;
    // bounding spheres first
    const ax = S[a3],
      ay = S[a3 + 1],
      az = S[a3 + 2],
      bx = S[b3],
      by = S[b3 + 1],
      bz = S[b3 + 2],
      cx = S[c3],
      cy = S[c3 + 1],
      cz = S[c3 + 2],
      dx = S[d3],
      dy = S[d3 + 1],
      dz = S[d3 + 2];
    const re = this.eHalf[e],
      rf = this.eHalf[f];
    const ux = 0.5 * (cx + dx - ax - bx),
      uy = 0.5 * (cy + dy - ay - by),
      uz = 0.5 * (cz + dz - az - bz);
    const rr = re + rf + lim;
    if (ux * ux + uy * uy + uz * uz > rr * rr) return false;
    closestSegmentSegmentAt(S, a3, b3, S, c3, d3, ss);
    return ss[2] <= lim * lim;
  }

  /**
   * Collects the candidate pairs from the overlapping triangle pairs of the
   * tree: the vertices each triangle owns against the other triangle, and
   * the edges each owns against the other's (every pair once, as every
   * vertex and edge has one owner). Free points query the tree on their
   * own. `partial`: only the pairs with a changed (dirty) vertex, triangle
   * or edge, found by querying the tree with the boxes of the dirty
   * triangles (a dirty vertex or edge makes its triangles dirty), in
   * `nDirty` groups (see dirtyGroupEnd), in time proportional to them rather
   * than to the whole tree.
   */
  private collectPairs(group: Int32Array, mask: Int32Array, partial: boolean, nDirty = 0): void {
    const td = this.tDirty,
      vd = this.vDirty;
    if (!partial) {
      const np = this.tree.selfPairs(this.tBox, null);
      const pairs = this.tree.pairs;
      for (let k = 0; k < np; k++)
        this.collectTrianglePair(pairs[2 * k], pairs[2 * k + 1], group, mask, false);
    } else {
      // each dirty triangle against the triangles its box overlaps (the pairs a marked self-traversal
      // gives, found in time proportional to the dirty triangles); a pair of two dirty triangles is
      // taken from the smaller index. One query per group (the triangles one violator made dirty, which
      // are neighbours) with the union of their boxes: the tree reports items in the same depth-first
      // order whatever the query box, so filtering its answer by each triangle's own box gives exactly
      // the items, in the same order, that a query with that box alone would.
      const tBox = this.tBox,
        dirty = this.dirtyTris,
        ends = this.dirtyGroupEnd,
        tree = this.tree;
      let g0 = 0;
      for (let gi = 0; gi < nDirty; gi++) {
        const g1 = ends[gi];
        let x0 = Infinity,
          y0 = Infinity,
          z0 = Infinity,
          x1 = -Infinity,
          y1 = -Infinity,
          z1 = -Infinity;
        for (let i = g0; i < g1; i++) {
          const o = 6 * dirty[i];
          if (tBox[o] < x0) x0 = tBox[o];
          if (tBox[o + 1] < y0) y0 = tBox[o + 1];
          if (tBox[o + 2] < z0) z0 = tBox[o + 2];
          if (tBox[o + 3] > x1) x1 = tBox[o + 3];
          if (tBox[o + 4] > y1) y1 = tBox[o + 4];
          if (tBox[o + 5] > z1) z1 = tBox[o + 5];
        }
        const m = tree.query(tBox, x0, y0, z0, x1, y1, z1);
        const res = tree.result;
        for (let i = g0; i < g1; i++) {
          const t1 = dirty[i],
            o = 6 * t1;
          const ax0 = tBox[o],
            ay0 = tBox[o + 1],
            az0 = tBox[o + 2],
            ax1 = tBox[o + 3],
            ay1 = tBox[o + 4],
            az1 = tBox[o + 5];
          for (let k = 0; k < m; k++) {
            const t2 = res[k];
            if (t2 === t1 || (td[t2] !== 0 && t2 < t1)) continue;
            // the test of Bvh.query with t1's box
            const b = 6 * t2;
            if (
              tBox[b] <= ax1 &&
              tBox[b + 3] >= ax0 &&
              tBox[b + 1] <= ay1 &&
              tBox[b + 4] >= ay0 &&
              tBox[b + 2] <= az1 &&
              tBox[b + 5] >= az0
            )
              this.collectTrianglePair(t1, t2, group, mask, true);
          }
        }
        g0 = g1;
      }
    }
    const free = this.freeV;
    for (let k = 0; k < free.length; k++) {
      const q = free[k];
      if (!partial || vd[q] !== 0) this.collectForVertex(q, group, mask, false);
      else this.collectForVertex(q, group, mask, true);
    }
  }

  /**
   * The candidates of one overlapping triangle pair: the vertices each owns
   * against the other triangle, and the edges each owns against the other's.
   * `partial`: only the pairs with a dirty vertex, triangle or edge.
   */
  private collectTrianglePair(
    t1: number,
    t2: number,
    group: Int32Array,
    mask: Int32Array,
    partial: boolean,
  ): void {
    const vd = this.vDirty,
      td = this.tDirty,
      ed = this.eDirty;
    const ovs = this.ownVStart,
      ov = this.ownV,
      oes = this.ownEStart,
      oe = this.ownE;
    const vBox = this.vBox,
      tBox = this.tBox,
      eBox = this.eBox;
    // triangle boxes carry half the reach of their surface: a vertex box must come within its own half
    const hr = this.halfReach,
      vs = this.vertexSurface;
    const d1 = partial && td[t1] === 0,
      d2 = partial && td[t2] === 0;
    const tri = this.tri,
      edge = this.edge;
    const a1 = tri[3 * t1],
      b1 = tri[3 * t1 + 1],
      c1 = tri[3 * t1 + 2],
      a2 = tri[3 * t2],
      b2 = tri[3 * t2 + 1],
      c2 = tri[3 * t2 + 2];
    // (a vertex of the other triangle is never a candidate: tested here before the boxes)
    for (let j = ovs[t1]; j < ovs[t1 + 1]; j++) {
      const q = ov[j];
      if ((d2 && vd[q] === 0) || q === a2 || q === b2 || q === c2) continue;
      if (boxesNear(vBox, q, tBox, t2, hr[vs[q]]) && this.vtCandidate(q, t2, group, mask)) this.addVT(q, t2);
    }
    for (let j = ovs[t2]; j < ovs[t2 + 1]; j++) {
      const q = ov[j];
      if ((d1 && vd[q] === 0) || q === a1 || q === b1 || q === c1) continue;
      if (boxesNear(vBox, q, tBox, t1, hr[vs[q]]) && this.vtCandidate(q, t1, group, mask)) this.addVT(q, t1);
    }
    const e1 = oes[t2],
      e2 = oes[t2 + 1];
    if (e1 === e2) return;
    for (let i = oes[t1]; i < oes[t1 + 1]; i++) {
      const e = oe[i];
      const ce = partial && ed[e] === 0;
      // every edge box of t2 lies inside t2's box
      if (!boxesOverlap(eBox, e, tBox, t2)) continue;
      const ea = edge[2 * e],
        eb = edge[2 * e + 1];
      for (let j = e1; j < e2; j++) {
        const f = oe[j];
        if (ce && ed[f] === 0) continue;
        // edges that share a vertex are never candidates
        const fa = edge[2 * f],
          fb = edge[2 * f + 1];
        if (fa === ea || fa === eb || fb === ea || fb === eb) continue;
        if (boxesOverlap(eBox, e, eBox, f) && this.eeCandidate(e, f, group, mask)) this.addEE(e, f);
      }
    }
  }

  /** Adds the pairs (q, t) for all triangles t near vertex q. */
  private collectForVertex(q: number, group: Int32Array, mask: Int32Array, dirtyOnly: boolean): void {
    const o = 6 * q,
      vb = this.vBox;
    const g = this.halfReach[this.vertexSurface[q]];
    const m = this.tree.query(
      this.tBox,
      vb[o] - g,
      vb[o + 1] - g,
      vb[o + 2] - g,
      vb[o + 3] + g,
      vb[o + 4] + g,
      vb[o + 5] + g,
    );
    const res = this.tree.result;
    const td = this.tDirty;
    for (let k = 0; k < m; k++) {
      const t = res[k];
      if (dirtyOnly && td[t] === 0) continue;
      if (this.vtCandidate(q, t, group, mask)) this.addVT(q, t);
    }
  }

  private addEE(e: number, f: number): void {
    if (2 * this.eeCount + 2 > this.eeCand.length) {
      this.eeCand = grow32(this.eeCand, 2 * this.eeCount + 2);
      this.eeDist = grow64(this.eeDist, this.eeCand.length / 2);
    }
    this.eeCand[2 * this.eeCount] = e;
    this.eeCand[2 * this.eeCount + 1] = f;
    this.eeDist[this.eeCount] = -1;
    this.eeCount++;
  }

  private addVT(q: number, t: number): void {
    if (2 * this.vtCount + 2 > this.vtCand.length) {
      this.vtCand = grow32(this.vtCand, 2 * this.vtCount + 2);
      this.vtDist = grow64(this.vtDist, this.vtCand.length / 2);
    }
    this.vtCand[2 * this.vtCount] = q;
    this.vtCand[2 * this.vtCount + 1] = t;
    this.vtDist[this.vtCount] = -1;
    this.vtCount++;
  }

  /**
   * Brings the candidate lists up to date for the motion x → p (full rebuild
   * or incremental update). With `slack` > 0 vertices renew their snapshot
   * that much before their allowance runs out, so that the solver's
   * corrections rarely force another update after the solve.
   */
  private updateCandidates(store: ParticleStore, x: Float64Array, p: Float64Array, slack = 0): void {
    const n = this.checkValid(x, p, slack);
    if (n < 0 || n > PARTIAL_LIMIT * this.vertexCount) this.fullRebuild(store, x, p);
    else if (n > 0) this.partialUpdate(store, x, p, n);
  }

  /** Swept boxes x → p and the motion of every surface vertex (see relativeMotion). */
  private sweptBoxes(x: Float64Array, p: Float64Array): void {
    const nv = this.vertexCount;
    const vert = this.vertex,
      sv = this.sv;
    for (let v = 0; v < nv; v++) {
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
    }
    this.relativeMotion(x, p);
  }

  /**
   * The motion |(p − x) − c| of every surface vertex relative to the mean
   * displacement c of all of them. Along straight paths x → p the distance
   * of a vertex–triangle (or edge–edge) pair changes by at most the sum of
   * the relative motions of its vertex and of the fastest vertex of the
   * other side: the common c cancels in q − Σ bᵢ pᵢ because Σ bᵢ = 1. So
   * the distance bounds of falling or drifting cloth decay only by how fast
   * its parts move against each other.
   */
  private relativeMotion(x: Float64Array, p: Float64Array): void {
    const nv = this.vertexCount;
    const vert = this.vertex,
      motion = this.motion;
    let cx = 0,
      cy = 0,
      cz = 0;
    for (let v = 0; v < nv; v++) {
      const g = 3 * vert[v];
      cx += p[g] - x[g];
      cy += p[g + 1] - x[g + 1];
      cz += p[g + 2] - x[g + 2];
    }
    const inv = 1 / Math.max(1, nv);
    cx *= inv;
    cy *= inv;
    cz *= inv;
    for (let v = 0; v < nv; v++) {
      const g = 3 * vert[v];
      const mx = p[g] - x[g] - cx,
        my = p[g + 1] - x[g + 1] - cy,
        mz = p[g + 2] - x[g + 2] - cz;
      motion[v] = Math.sqrt(mx * mx + my * my + mz * mz);
    }
  }

  // ---- the step ----------------------------------------------------------------

  beginStep(ctx: StepContext): void {
    const store = ctx.store;
    this.refreshTopology(store);
    this.refreshReach();
    if (this.vertexCount === 0) {
      this.count = 0;
      return;
    }
    const k = this.detectEvery;
    if (k > 1 && ctx.substep % k !== 0) {
      // inside a detection period: the contacts found at its start are projected again
      this.macroEnd = (ctx.substep + 1) % k === 0 || ctx.substep === ctx.substeps - 1;
      return;
    }
    this.count = 0;
    this.macroEnd = k === 1 || ctx.substep === ctx.substeps - 1;
    const x = store.x,
      v = store.v;
    // the end of the motion to test: this substep's prediction, or over k substeps extrapolated
    const p = k === 1 ? store.p : this.predictPeriod(ctx, k);
    if (k > 1) {
      if (this.start.length !== store.x.length) this.start = new Float64Array(store.x.length);
      const vert = this.vertex,
        start = this.start;
      for (let i = 0; i < this.vertexCount; i++) {
        const g = 3 * vert[i];
        start[g] = x[g];
        start[g + 1] = x[g + 1];
        start[g + 2] = x[g + 2];
      }
    }
    if (ctx.substep === 0) {
      if (this.untangle && this.stepIndex % this.untangleEvery === 0)
        this.stats.intersections = this.untangler.analyse(store, this.topologyVersion);
      else if (!this.untangle && this.tangled) {
        this.label.fill(0);
        this.tangled = false;
        this.flipCount = 0;
      }
      this.stepIndex++;
    }
    if (ctx.substep === 0 || this.sharpVersion !== this.topologyVersion) this.classifyEdges(x);
    this.updateCandidates(store, x, p, 0.25 * this.minAllowance());
    const hr = this.halfReach;
    this.sweptBoxes(x, p);
    const vert = this.vertex,
      tri = this.tri,
      edge = this.edge;
    const sv = this.sv;
    const w = store.invMass;
    const label = this.label;
    const tangled = this.tangled;
    const motion = this.motion;
    const vs = this.vertexSurface,
      ts = this.triSurface,
      es = this.edgeSurface;
    const mf = this.marginFactor;
    const tol = 1e-9 * this.meanEdge;
    const vtDist = this.vtDist,
      eeDist = this.eeDist;
    const sharpE = this.sharp;
    // vertex–triangle
    const vt = this.vtCand;
    for (let k = 0; k < this.vtCount; k++) {
      const q = vt[2 * k],
        t = vt[2 * k + 1];
      const a = tri[3 * t],
        b = tri[3 * t + 1],
        c = tri[3 * t + 2];
      // a lower bound of the distance at x, carried over from earlier substeps
      const mv = motion[q] + Math.max(motion[a], motion[b], motion[c]);
      const lb = vtDist[k];
      const reach = hr[vs[q]] + hr[ts[t]];
      if (lb >= 0 && lb - mv > reach) continue;
      if (!boxNearTriangle(sv, 6 * q, 6 * a, 6 * b, 6 * c, reach)) continue;
      if (tangled && !(label[q] === label[a] && label[q] === label[b] && label[q] === label[c])) continue;
      const gq = vert[q],
        ga = vert[a],
        gb = vert[b],
        gc = vert[c];
      if (w[gq] === 0 && w[ga] === 0 && w[gb] === 0 && w[gc] === 0) continue;
      // the distance at x less the motion of the pair bounds the distance during the substep
      const dX = this.vertexTriangleDistance(x, gq, ga, gb, gc);
      vtDist[k] = dX;
      const h = this.pairThickness(vs[q], ts[t]);
      if (dX - mv > h * (1 + mf)) continue;
      this.detectVertexTriangle(x, p, v, q, t, gq, ga, gb, gc, 0, dX <= mv + tol);
    }
    // edge–edge
    const ee = this.eeCand;
    for (let k = 0; k < this.eeCount; k++) {
      const e = ee[2 * k],
        f = ee[2 * k + 1];
      const a = edge[2 * e],
        b = edge[2 * e + 1],
        c = edge[2 * f],
        d = edge[2 * f + 1];
      const mv = Math.max(motion[a], motion[b]) + Math.max(motion[c], motion[d]);
      const lb = eeDist[k];
      // proximity contacts only between two sharp (creased or boundary) edges: across a flat edge another
      // edge cannot come within h unless a vertex comes within h of the edge's triangles first, which the
      // vertex–triangle contacts handle; crossings are tested for every pair
      const sharp = sharpE[e] !== 0 && sharpE[f] !== 0;
      const reach = hr[es[e]] + hr[es[f]];
      if (lb >= 0 && lb - mv > (sharp ? reach : tol)) continue;
      // edge boxes from the vertex boxes
      const oa = 6 * a,
        ob = 6 * b,
        oc = 6 * c,
        od = 6 * d;
      const h = reach;
      const e0x = Math.min(sv[oa], sv[ob]) - h,
        e1x = Math.max(sv[oa + 3], sv[ob + 3]) + h;
      const f0x = Math.min(sv[oc], sv[od]),
        f1x = Math.max(sv[oc + 3], sv[od + 3]);
      if (e0x > f1x || e1x < f0x) continue;
      const e0y = Math.min(sv[oa + 1], sv[ob + 1]) - h,
        e1y = Math.max(sv[oa + 4], sv[ob + 4]) + h;
      const f0y = Math.min(sv[oc + 1], sv[od + 1]),
        f1y = Math.max(sv[oc + 4], sv[od + 4]);
      if (e0y > f1y || e1y < f0y) continue;
      const e0z = Math.min(sv[oa + 2], sv[ob + 2]) - h,
        e1z = Math.max(sv[oa + 5], sv[ob + 5]) + h;
      const f0z = Math.min(sv[oc + 2], sv[od + 2]),
        f1z = Math.max(sv[oc + 5], sv[od + 5]);
      if (e0z > f1z || e1z < f0z) continue;
      if (tangled && !(label[a] === label[b] && label[a] === label[c] && label[a] === label[d])) continue;
      const ga = vert[a],
        gb = vert[b],
        gc = vert[c],
        gd = vert[d];
      if (w[ga] === 0 && w[gb] === 0 && w[gc] === 0 && w[gd] === 0) continue;
      const dX = edgeEdgeDistance(x, ga, gb, gc, gd);
      eeDist[k] = dX;
      if (!sharp) {
        if (dX <= mv + tol) this.detectEdgeEdge(x, p, v, e, f, ga, gb, gc, gd, 1, true);
        continue;
      }
      const hp = this.pairThickness(es[e], es[f]);
      if (dX - mv > hp * (1 + mf)) continue;
      this.detectEdgeEdge(x, p, v, e, f, ga, gb, gc, gd, 0, dX <= mv + tol);
    }
    // untangling pairs (003 §4.3: "methods like [BWK03] have to be applied")
    if (this.tangled) {
      const fp = this.flipPairs;
      for (let k = 0; k < this.flipCount; k++) {
        const q = fp[3 * k],
          t = fp[3 * k + 1];
        const sT = this.triSurface[t],
          sQ = this.vertexSurface[q];
        const h =
          sQ === sT
            ? this.surfaces[sT].thickness
            : 0.5 * (this.surfaces[sT].thickness + this.surfaces[sQ].thickness);
        this.push(
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
    this.stats.contacts = this.count;
  }

  /**
   * Tests the pair (surface vertex q, triangle t) over x → p and adds a
   * constraint when it is within reach at p or crosses during the substep.
   * `mode` 1: fail-safe (only crossings, always added); returns true when a
   * crossing was found.
   */
  /**
   * Marks the sharp edges: boundary edges, and edges whose two triangles turn
   * by more than 30° against each other (at x, once per step).
   */
  private classifyEdges(x: Float64Array): void {
    const ne = this.edgeCount;
    const fresh = this.sharpVersion === this.topologyVersion && this.sharp.length === ne;
    if (this.sharp.length !== ne) this.sharp = new Uint8Array(ne);
    const sharp = this.sharp;
    const et = this.edgeTris,
      tri = this.tri,
      vert = this.vertex;
    const cos30 = Math.cos(Math.PI / 6);
    for (let e = 0; e < ne; e++) {
      const t0 = et[2 * e],
        t1 = et[2 * e + 1];
      if (t1 < 0) {
        sharp[e] = 1;
        continue;
      }
      triangleNormal(x, vert, tri, t0, nA);
      triangleNormal(x, vert, tri, t1, nB);
      // consistently wound neighbours have normals that agree on a flat edge
      const now = nA[0] * nB[0] + nA[1] * nB[1] + nA[2] * nB[2] < cos30 ? 1 : 0;
      // an edge turning sharp needs its contact candidates (within reach): renew its end points
      if (now === 1 && sharp[e] === 0 && fresh) {
        this.force(this.edge[2 * e]);
        this.force(this.edge[2 * e + 1]);
      }
      sharp[e] = now;
    }
    this.sharpVersion = this.topologyVersion;
  }

  /** Makes vertex v renew its snapshot (and its candidates) at the next check. */
  private force(v: number): void {
    if (this.forcedFlag[v] !== 0) return;
    this.forcedFlag[v] = 1;
    this.forced[this.forcedCount++] = v;
  }

  /** Thickness of a pair of surfaces: h of the surface for self contacts, the mean of the two otherwise. */
  private pairThickness(a: number, b: number): number {
    const ha = this.surfaces[a].thickness;
    return a === b ? ha : 0.5 * (ha + this.surfaces[b].thickness);
  }

  /** Distance from vertex q to triangle (a, b, c) at x (global particle indices). */
  private vertexTriangleDistance(x: Float64Array, q: number, a: number, b: number, c: number): number {
    const q3 = 3 * q,
      a3 = 3 * a,
      b3 = 3 * b,
      c3 = 3 * c;
    closestPointTriangleAt(x, q3, x, a3, b3, c3, cp);
    return Math.sqrt(cp[6]);
  }

  /**
   * Tests the pair (surface vertex q, triangle t) over x → p and adds a
   * constraint when it is within reach at p (mode 0) or crosses during the
   * substep (tested only when `mayCross`). Returns true when a crossing was
   * found. Mode 1 (the fail-safe) tests crossings only.
   */
  private detectVertexTriangle(
    x: Float64Array,
    p: Float64Array,
    v: Float64Array,
    q: number,
    t: number,
    gq: number,
    ga: number,
    gb: number,
    gc: number,
    mode: number,
    mayCross: boolean,
  ): boolean {
    const sQ = this.vertexSurface[q],
      sT = this.triSurface[t];
    const h = this.pairThickness(sQ, sT);
    const q3 = 3 * gq,
      a3 = 3 * ga,
      b3 = 3 * gb,
      c3 = 3 * gc;
    let flags = 0;
    if (mode === 0) {
      closestPointTriangleAt(p, q3, p, a3, b3, c3, cp);
      const reach = h * (1 + this.marginFactor);
      if (cp[6] < reach * reach) flags |= FLAG_PROXIMITY;
    }
    const tHit = mayCross ? vertexTriangleCcd(x, p, q3, a3, b3, c3, 1e-9 * this.meanEdge) : -1;
    if (tHit >= 0) flags |= FLAG_CCD;
    if (flags === 0) return false;
    // the side the vertex came from: before the first crossing, or where it is now
    const dX = planeDistance(x, q3, a3, b3, c3);
    const dP = planeDistance(p, q3, a3, b3, c3);
    const s = contactSide(tHit >= 0, dX, dP);
    // relative normal velocity at the start of the substep (for restitution)
    const vn0 = this.anyRestitution ? s * relativeNormalVelocityVT(x, v, q3, a3, b3, c3) : 0;
    this.pushBetween(TYPE_VT, flags, gq, ga, gb, gc, s, h, sQ, sT, vn0);
    return tHit >= 0;
  }

  private detectEdgeEdge(
    x: Float64Array,
    p: Float64Array,
    v: Float64Array,
    e: number,
    f: number,
    ga: number,
    gb: number,
    gc: number,
    gd: number,
    mode: number,
    mayCross: boolean,
  ): boolean {
    const sE = this.edgeSurface[e],
      sF = this.edgeSurface[f];
    const h = this.pairThickness(sE, sF);
    const a3 = 3 * ga,
      b3 = 3 * gb,
      c3 = 3 * gc,
      d3 = 3 * gd;
    let flags = 0;
    if (mode === 0) {
      closestSegmentSegmentAt(p, a3, b3, p, c3, d3, ss);
      const reach = h * (1 + this.marginFactor);
      // closest points strictly inside both edges: end points are vertex–triangle business
      if (ss[2] < reach * reach && ss[0] > 0 && ss[0] < 1 && ss[1] > 0 && ss[1] < 1) flags |= FLAG_PROXIMITY;
    }
    const tHit = mayCross ? edgeEdgeCcd(x, p, a3, b3, c3, d3, 1e-9 * this.meanEdge) : -1;
    if (tHit >= 0) flags |= FLAG_CCD;
    if (flags === 0) return false;
    const dX = lineDistance(x, a3, b3, c3, d3);
    const dP = lineDistance(p, a3, b3, c3, d3);
    const s = contactSide(tHit >= 0, dX, dP);
    const vn0 = this.anyRestitution ? s * relativeNormalVelocityEE(x, v, a3, b3, c3, d3) : 0;
    this.pushBetween(TYPE_EE, flags, ga, gb, gc, gd, s, h, sE, sF, vn0);
    return tHit >= 0;
  }

  /** Adds a contact between surfaces sa and sb, with their mean friction and larger restitution. */
  private pushBetween(
    type: number,
    flags: number,
    i0: number,
    i1: number,
    i2: number,
    i3: number,
    s: number,
    h: number,
    sa: number,
    sb: number,
    vn0: number,
  ): void {
    const A = this.surfaces[sa],
      B = this.surfaces[sb];
    this.push(
      type,
      flags,
      i0,
      i1,
      i2,
      i3,
      s,
      h,
      0.5 * (A.staticFriction + B.staticFriction),
      0.5 * (A.friction + B.friction),
      Math.max(A.restitution, B.restitution),
      vn0,
    );
  }

  private push(
    type: number,
    flags: number,
    i0: number,
    i1: number,
    i2: number,
    i3: number,
    side: number,
    h: number,
    muS: number,
    muK: number,
    e: number,
    vn0: number,
  ): void {
    if (this.count === this.capacity) this.grow(Math.max(256, 2 * this.capacity));
    const k = this.count++;
    this.type[k] = type;
    this.flags[k] = flags;
    this.idx[4 * k] = i0;
    this.idx[4 * k + 1] = i1;
    this.idx[4 * k + 2] = i2;
    this.idx[4 * k + 3] = i3;
    this.side[k] = side;
    this.thick[k] = h;
    this.muS[k] = muS;
    this.muK[k] = muK;
    this.rest[k] = e;
    this.lambda[k] = 0;
    this.vn0[k] = vn0;
  }

  private grow(cap: number): void {
    const n = this.count;
    const g8 = (a: Uint8Array, s: number) => {
      const b = new Uint8Array(cap * s);
      b.set(a.subarray(0, n * s));
      return b;
    };
    const g64 = (a: Float64Array, s: number) => {
      const b = new Float64Array(cap * s);
      b.set(a.subarray(0, n * s));
      return b;
    };
    this.type = g8(this.type, 1);
    this.flags = g8(this.flags, 1);
    const idx = new Int32Array(cap * 4);
    idx.set(this.idx.subarray(0, 4 * n));
    this.idx = idx;
    this.side = g64(this.side, 1);
    this.thick = g64(this.thick, 1);
    this.muS = g64(this.muS, 1);
    this.muK = g64(this.muK, 1);
    this.rest = g64(this.rest, 1);
    this.lambda = g64(this.lambda, 1);
    this.vn0 = g64(this.vn0, 1);
    this.capacity = cap;
  }

  project(ctx: StepContext): void {
    if (this.count > 0) this.projectRange(ctx.store, 0, this.count);
    if (ctx.iteration === ctx.iterations - 1 && this.vertexCount > 0 && this.macroEnd) {
      // from the start of the detection period (this substep, or k substeps ago) to p
      const start = this.detectEvery === 1 ? ctx.store.x : this.start;
      // the fail-safe scan also lowers the distance bounds by the motion of the period
      if (this.failsafe) this.verify(ctx.store, start);
      else this.decayBounds(start, ctx.store.p);
    }
  }

  /**
   * The positions k substeps ahead, extrapolated from this substep's
   * prediction with constant acceleration: x + k (p − x) + ½ g h² k (k − 1).
   */
  private predictPeriod(ctx: StepContext, k: number): Float64Array {
    const store = ctx.store;
    if (this.ahead.length !== store.p.length) this.ahead = new Float64Array(store.p.length);
    const x = store.x,
      p = store.p,
      a = this.ahead,
      vert = this.vertex,
      w = store.invMass;
    const g = ctx.gravity,
      c = 0.5 * ctx.h * ctx.h * k * (k - 1);
    for (let i = 0; i < this.vertexCount; i++) {
      const gi = vert[i],
        g3 = 3 * gi;
      const free = w[gi] !== 0 ? c : 0;
      a[g3] = x[g3] + k * (p[g3] - x[g3]) + free * g[0];
      a[g3 + 1] = x[g3 + 1] + k * (p[g3 + 1] - x[g3 + 1]) + free * g[1];
      a[g3 + 2] = x[g3 + 2] + k * (p[g3 + 2] - x[g3 + 2]) + free * g[2];
    }
    return a;
  }

  /**
   * The distance bounds of the candidates hold at x; x moves to p at the end
   * of the substep, so each bound drops by the motion of its pair.
   */
  private decayBounds(x: Float64Array, p: Float64Array): void {
    const motion = this.motion;
    this.relativeMotion(x, p);
    const tri = this.tri,
      edge = this.edge,
      vt = this.vtCand,
      ee = this.eeCand,
      vtDist = this.vtDist,
      eeDist = this.eeDist;
    for (let k = 0; k < this.vtCount; k++) {
      const lb = vtDist[k];
      if (lb < 0) continue;
      const t = vt[2 * k + 1];
      const d =
        lb - motion[vt[2 * k]] - Math.max(motion[tri[3 * t]], motion[tri[3 * t + 1]], motion[tri[3 * t + 2]]);
      vtDist[k] = d > 0 ? d : -1;
    }
    for (let k = 0; k < this.eeCount; k++) {
      const lb = eeDist[k];
      if (lb < 0) continue;
      const e = ee[2 * k],
        f = ee[2 * k + 1];
      const d =
        lb -
        Math.max(motion[edge[2 * e]], motion[edge[2 * e + 1]]) -
        Math.max(motion[edge[2 * f]], motion[edge[2 * f + 1]]);
      eeDist[k] = d > 0 ? d : -1;
    }
  }

  /** One Gauss–Seidel pass over contacts [k0, k1). */
  projectRange(store: ParticleStore, k0: number, k1: number): void {
    const p = store.p,
      x = store.x,
      w = store.invMass;
    const idx = this.idx,
      type = this.type,
      flags = this.flags,
      side = this.side,
      thick = this.thick;
    const flipStep = this.flipStep;
    for (let k = k0; k < k1; k++) {
      const g0 = idx[4 * k],
        g1 = idx[4 * k + 1],
        g2 = idx[4 * k + 2],
        g3 = idx[4 * k + 3];
      const i0 = 3 * g0,
        i1 = 3 * g1,
        i2 = 3 * g2,
        i3 = 3 * g3;
      const s = side[k];
      const fl = flags[k];
      // the four weights of the gradient, c0 … c3 (∇_j C = s c_j n̂), and the normal
      let c0: number, c1: number, c2: number, c3: number, nx: number, ny: number, nz: number, d: number;
      if (type[k] === TYPE_VT) {
        // q = i0, triangle (i1, i2, i3): eqs. 12/13
        const ax = p[i1],
          ay = p[i1 + 1],
          az = p[i1 + 2];
        const ux = p[i2] - ax,
          uy = p[i2 + 1] - ay,
          uz = p[i2 + 2] - az;
        const vx = p[i3] - ax,
          vy = p[i3 + 1] - ay,
          vz = p[i3 + 2] - az;
        nx = uy * vz - uz * vy;
        ny = uz * vx - ux * vz;
        nz = ux * vy - uy * vx;
        const n2 = nx * nx + ny * ny + nz * nz;
        if (!(n2 > 1e-30)) continue;
        const inv = 1 / Math.sqrt(n2);
        nx *= inv;
        ny *= inv;
        nz *= inv;
        const rx = p[i0] - ax,
          ry = p[i0 + 1] - ay,
          rz = p[i0 + 2] - az;
        d = rx * nx + ry * ny + rz * nz;
        if (s * d >= thick[k]) continue;
        // barycentric coordinates of q's projection: (r × v)·n̂ / |n|, (u × r)·n̂ / |n|
        const bb = ((ry * vz - rz * vy) * nx + (rz * vx - rx * vz) * ny + (rx * vy - ry * vx) * nz) * inv;
        const bc = ((uy * rz - uz * ry) * nx + (uz * rx - ux * rz) * ny + (ux * ry - uy * rx) * nz) * inv;
        const ba = 1 - bb - bc;
        if ((fl & FLAG_CCD) === 0 && (ba < -FOOTPRINT || bb < -FOOTPRINT || bc < -FOOTPRINT)) continue;
        c0 = 1;
        c1 = -ba;
        c2 = -bb;
        c3 = -bc;
      } else {
        // edges (i0, i1) and (i2, i3)
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
        nx = uy * vz - uz * vy;
        ny = uz * vx - ux * vz;
        nz = ux * vy - uy * vx;
        const n2 = nx * nx + ny * ny + nz * nz;
        const A = ux * ux + uy * uy + uz * uz,
          Cc = vx * vx + vy * vy + vz * vz;
        if (!(n2 > 1e-12 * A * Cc) || !(n2 > 1e-30)) continue;
        const inv = 1 / Math.sqrt(n2);
        nx *= inv;
        ny *= inv;
        nz *= inv;
        const rx = ax - cx,
          ry = ay - cy,
          rz = az - cz;
        d = rx * nx + ry * ny + rz * nz;
        if (s * d >= thick[k]) continue;
        // closest points of the two lines: a + t (b − a), c + u (d − c)
        const B = ux * vx + uy * vy + uz * vz;
        const D = ux * rx + uy * ry + uz * rz,
          E = vx * rx + vy * ry + vz * rz;
        const den = A * Cc - B * B;
        const t = (B * E - Cc * D) / den,
          u = (A * E - B * D) / den;
        if (
          (fl & FLAG_CCD) === 0 &&
          (t < -FOOTPRINT || t > 1 + FOOTPRINT || u < -FOOTPRINT || u > 1 + FOOTPRINT)
        )
          continue;
        c0 = 1 - t;
        c1 = t;
        c2 = u - 1;
        c3 = -u;
      }
      const w0 = w[g0],
        w1 = w[g1],
        w2 = w[g2],
        w3 = w[g3];
      const W = w0 * c0 * c0 + w1 * c1 * c1 + w2 * c2 * c2 + w3 * c3 * c3;
      if (!(W > 1e-30)) continue;
      // C = s d − h < 0; Δλ = −C / Σ w |∇C|² (stiffness 1), Δp_j = w_j ∇_j C Δλ
      let C = s * d - thick[k];
      if ((fl & FLAG_FLIP) !== 0 && C < -flipStep) C = -flipStep;
      const dl = -C / W;
      this.lambda[k] += dl;
      let f = s * dl;
      p[i0] += w0 * c0 * f * nx;
      p[i0 + 1] += w0 * c0 * f * ny;
      p[i0 + 2] += w0 * c0 * f * nz;
      p[i1] += w1 * c1 * f * nx;
      p[i1 + 1] += w1 * c1 * f * ny;
      p[i1 + 2] += w1 * c1 * f * nz;
      p[i2] += w2 * c2 * f * nx;
      p[i2 + 1] += w2 * c2 * f * ny;
      p[i2 + 2] += w2 * c2 * f * nz;
      p[i3] += w3 * c3 * f * nx;
      p[i3 + 1] += w3 * c3 * f * ny;
      p[i3 + 2] += w3 * c3 * f * nz;
      // position-level Coulomb friction on the relative tangential motion of the substep
      const muK = this.muK[k];
      if (muK === 0 && this.muS[k] === 0) continue;
      // relative displacement Σ c_j (p_j − x_j) (the contact point of the second side moves with weights −c)
      const rx = c0 * (p[i0] - x[i0]) + c1 * (p[i1] - x[i1]) + c2 * (p[i2] - x[i2]) + c3 * (p[i3] - x[i3]);
      const ry =
        c0 * (p[i0 + 1] - x[i0 + 1]) +
        c1 * (p[i1 + 1] - x[i1 + 1]) +
        c2 * (p[i2 + 1] - x[i2 + 1]) +
        c3 * (p[i3 + 1] - x[i3 + 1]);
      const rz =
        c0 * (p[i0 + 2] - x[i0 + 2]) +
        c1 * (p[i1 + 2] - x[i1 + 2]) +
        c2 * (p[i2 + 2] - x[i2 + 2]) +
        c3 * (p[i3 + 2] - x[i3 + 2]);
      const rn = rx * nx + ry * ny + rz * nz;
      const tx = rx - rn * nx,
        ty = ry - rn * ny,
        tz = rz - rn * nz;
      const tl = Math.sqrt(tx * tx + ty * ty + tz * tz);
      if (!(tl > 1e-15)) continue;
      const dn = -C; // normal correction of this projection (relative)
      const g = tl < this.muS[k] * dn ? 1 : Math.min((muK * dn) / tl, 1);
      f = -g / W;
      p[i0] += w0 * c0 * f * tx;
      p[i0 + 1] += w0 * c0 * f * ty;
      p[i0 + 2] += w0 * c0 * f * tz;
      p[i1] += w1 * c1 * f * tx;
      p[i1 + 1] += w1 * c1 * f * ty;
      p[i1 + 2] += w1 * c1 * f * tz;
      p[i2] += w2 * c2 * f * tx;
      p[i2 + 1] += w2 * c2 * f * ty;
      p[i2 + 2] += w2 * c2 * f * tz;
      p[i3] += w3 * c3 * f * tx;
      p[i3 + 1] += w3 * c3 * f * ty;
      p[i3 + 2] += w3 * c3 * f * tz;
    }
  }

  /**
   * The fail-safe: finds the candidates that cross during x → p after the
   * solver, gives them constraints and projects again (twice at most), then
   * moves the vertices of the remaining crossings with rigid impact zones.
   */
  private verify(store: ParticleStore, x: Float64Array): void {
    const p = store.p,
      w = store.invMass;
    // the solver may have moved some vertices beyond their allowance
    this.updateCandidates(store, x, p);
    // the first scan tests every candidate, each rescan only those with a vertex in `recheck`: a
    // pair none of whose vertices moved since a scan that found it not crossing still does not
    // cross (same x, same p, same test), so the rescans find exactly what full scans would
    let rescan = false;
    for (let round = 0; round < 2; round++) {
      const crossings = this.findCrossings(store, x, rescan);
      if (crossings === 0) return;
      this.stats.failsafeCrossings += crossings;
      // one more pass over all contacts, the new ones included
      this.keepPositions(p);
      this.projectRange(store, 0, this.count);
      this.markRecheck(p);
      rescan = true;
    }
    // still crossing: rigid impact zones (Provot 1997, Bridson et al. 2002, translation only): the
    // vertices of each crossing join a zone, and every zone moves by its mass-weighted mean
    // displacement; a common translation creates no crossing inside a zone and keeps linear
    // momentum. Zones that still cross others merge; a zone with a pinned vertex stops.
    const zone = this.zone,
      local = this.localOf,
      mass = store.mass;
    for (let i = 0; i < this.vertexCount; i++) zone[i] = -1;
    for (let round = 0; round < 64; round++) {
      const before = this.count;
      if (this.findCrossings(store, x, rescan) === 0) break;
      for (let k = before; k < this.count; k++) {
        let root = -1;
        for (let j = 0; j < 4; j++) {
          const v = local[this.idx[4 * k + j]];
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
      this.count = before;
      this.keepPositions(p);
      this.moveZones(store, x, mass, w);
      this.markRecheck(p);
      rescan = true;
    }
    let moved = 0;
    for (let i = 0; i < this.vertexCount; i++) if (zone[i] >= 0) moved++;
    this.stats.frozen += moved;
  }

  /** Keeps p of every surface vertex (before a fail-safe move, for markRecheck). */
  private keepPositions(p: Float64Array): void {
    const vert = this.vertex,
      keep = this.pKeep;
    for (let i = 0; i < this.vertexCount; i++) {
      const g = 3 * vert[i];
      keep[3 * i] = p[g];
      keep[3 * i + 1] = p[g + 1];
      keep[3 * i + 2] = p[g + 2];
    }
  }

  /** recheck = the vertices of the last scan's crossings and those whose p changed since keepPositions. */
  private markRecheck(p: Float64Array): void {
    const vert = this.vertex,
      keep = this.pKeep,
      crossed = this.crossed,
      recheck = this.recheck;
    for (let i = 0; i < this.vertexCount; i++) {
      const g = 3 * vert[i];
      const moved = p[g] !== keep[3 * i] || p[g + 1] !== keep[3 * i + 1] || p[g + 2] !== keep[3 * i + 2];
      recheck[i] = crossed[i] !== 0 || moved ? 1 : 0;
    }
  }

  /** Moves every impact zone by its mass-weighted mean displacement x → p (a zone with a pinned vertex stops). */
  private moveZones(store: ParticleStore, x: Float64Array, mass: Float64Array, w: Float64Array): void {
    const zone = this.zone,
      vert = this.vertex,
      acc = this.zoneAcc,
      p = store.p,
      sx = store.x,
      v = store.v;
    const nv = this.vertexCount;
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

  /**
   * Crossing test x → p over all candidates (with `rescan`, only those with a
   * vertex flagged in `recheck`); each crossing adds a constraint and flags
   * its vertices in `crossed`. Returns the number of crossings.
   */
  private findCrossings(store: ParticleStore, x: Float64Array, rescan: boolean): number {
    const p = store.p,
      v = store.v;
    this.sweptBoxes(x, p);
    const vert = this.vertex,
      tri = this.tri,
      edge = this.edge,
      sv = this.sv,
      label = this.label,
      motion = this.motion;
    const tangled = this.tangled;
    const tol = 1e-9 * this.meanEdge;
    const vtDist = this.vtDist,
      eeDist = this.eeDist;
    const crossed = this.crossed,
      recheck = this.recheck;
    crossed.fill(0);
    let n = 0;
    const vt = this.vtCand;
    for (let k = 0; k < this.vtCount; k++) {
      const q = vt[2 * k],
        t = vt[2 * k + 1];
      const ta = tri[3 * t],
        tb = tri[3 * t + 1],
        tc = tri[3 * t + 2];
      if (rescan && (recheck[q] | recheck[ta] | recheck[tb] | recheck[tc]) === 0) continue;
      const mv = motion[q] + Math.max(motion[ta], motion[tb], motion[tc]);
      // x moves to p at the end of the substep: the bound drops by the motion of the pair
      const lb = vtDist[k];
      if (lb >= 0) {
        const next = lb - mv;
        vtDist[k] = next > 0 ? next : -1;
        if (next > tol) continue;
      }
      if (!boxNearTriangle(sv, 6 * q, 6 * ta, 6 * tb, 6 * tc, 0)) continue;
      const a = tri[3 * t],
        b = tri[3 * t + 1],
        c = tri[3 * t + 2];
      if (tangled && (label[q] !== 0 || label[a] !== 0 || label[b] !== 0 || label[c] !== 0)) continue;
      const gq = vert[q],
        ga = vert[a],
        gb = vert[b],
        gc = vert[c];
      // a pair farther apart at x than it moves cannot cross (lb ≤ mv + tol here, or unknown)
      let dX = lb;
      if (dX < 0) {
        dX = this.vertexTriangleDistance(x, gq, ga, gb, gc);
        const next = dX - mv;
        vtDist[k] = next > 0 ? next : -1;
      }
      if (dX > mv + tol) continue;
      if (this.detectVertexTriangle(x, p, v, q, t, gq, ga, gb, gc, 1, true)) {
        n++;
        crossed[q] = crossed[a] = crossed[b] = crossed[c] = 1;
      }
    }
    const ee = this.eeCand;
    for (let k = 0; k < this.eeCount; k++) {
      const e = ee[2 * k],
        f = ee[2 * k + 1];
      const a = edge[2 * e],
        b = edge[2 * e + 1],
        c = edge[2 * f],
        d = edge[2 * f + 1];
      if (rescan && (recheck[a] | recheck[b] | recheck[c] | recheck[d]) === 0) continue;
      const mv = Math.max(motion[a], motion[b]) + Math.max(motion[c], motion[d]);
      const lb = eeDist[k];
      if (lb >= 0) {
        const next = lb - mv;
        eeDist[k] = next > 0 ? next : -1;
        if (next > tol) continue;
      }
      const oa = 6 * a,
        ob = 6 * b,
        oc = 6 * c,
        od = 6 * d;
      if (
        Math.min(sv[oa], sv[ob]) > Math.max(sv[oc + 3], sv[od + 3]) ||
        Math.max(sv[oa + 3], sv[ob + 3]) < Math.min(sv[oc], sv[od]) ||
        Math.min(sv[oa + 1], sv[ob + 1]) > Math.max(sv[oc + 4], sv[od + 4]) ||
        Math.max(sv[oa + 4], sv[ob + 4]) < Math.min(sv[oc + 1], sv[od + 1]) ||
        Math.min(sv[oa + 2], sv[ob + 2]) > Math.max(sv[oc + 5], sv[od + 5]) ||
        Math.max(sv[oa + 5], sv[ob + 5]) < Math.min(sv[oc + 2], sv[od + 2])
      )
        continue;
      if (tangled && (label[a] !== 0 || label[b] !== 0 || label[c] !== 0 || label[d] !== 0)) continue;
      const ga = vert[a],
        gb = vert[b],
        gc = vert[c],
        gd = vert[d];
      let dX = lb;
      if (dX < 0) {
        dX = edgeEdgeDistance(x, ga, gb, gc, gd);
        const next = dX - mv;
        eeDist[k] = next > 0 ? next : -1;
      }
      if (dX > mv + tol) continue;
      if (this.detectEdgeEdge(x, p, v, e, f, ga, gb, gc, gd, 1, true)) {
        n++;
        crossed[a] = crossed[b] = crossed[c] = crossed[d] = 1;
      }
    }
    return n;
  }

  endStep(ctx: StepContext): void {
    if (!this.anyRestitution || this.count === 0 || !this.macroEnd) return;
    // restitution (Algorithm 1, line 16): reflect the relative normal velocity of contacts that acted
    const v = ctx.store.v,
      w = ctx.store.invMass,
      p = ctx.store.x;
    const g = ctx.gravity;
    const threshold = 2 * Math.sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]) * ctx.h;
    for (let k = 0; k < this.count; k++) {
      const e = this.rest[k];
      if (e === 0 || this.lambda[k] <= 0 || -this.vn0[k] <= threshold) continue;
      const i0 = 3 * this.idx[4 * k],
        i1 = 3 * this.idx[4 * k + 1],
        i2 = 3 * this.idx[4 * k + 2],
        i3 = 3 * this.idx[4 * k + 3];
      const s = this.side[k];
      let c0: number, c1: number, c2: number, c3: number;
      let nx: number, ny: number, nz: number;
      if (this.type[k] === TYPE_VT) {
        const r = contactFrameVT(p, i0, i1, i2, i3);
        if (!r) continue;
        nx = frame[0];
        ny = frame[1];
        nz = frame[2];
        c0 = 1;
        c1 = -frame[3];
        c2 = -frame[4];
        c3 = -frame[5];
      } else {
        const r = contactFrameEE(p, i0, i1, i2, i3);
        if (!r) continue;
        nx = frame[0];
        ny = frame[1];
        nz = frame[2];
        c0 = 1 - frame[3];
        c1 = frame[3];
        c2 = frame[4] - 1;
        c3 = -frame[4];
      }
      const vn =
        s *
        ((c0 * v[i0] + c1 * v[i1] + c2 * v[i2] + c3 * v[i3]) * nx +
          (c0 * v[i0 + 1] + c1 * v[i1 + 1] + c2 * v[i2 + 1] + c3 * v[i3 + 1]) * ny +
          (c0 * v[i0 + 2] + c1 * v[i1 + 2] + c2 * v[i2 + 2] + c3 * v[i3 + 2]) * nz);
      const target = -e * this.vn0[k];
      const dv = target - vn;
      if (dv <= 0) continue;
      const w0 = w[i0 / 3],
        w1 = w[i1 / 3],
        w2 = w[i2 / 3],
        w3 = w[i3 / 3];
      const W = w0 * c0 * c0 + w1 * c1 * c1 + w2 * c2 * c2 + w3 * c3 * c3;
      if (!(W > 1e-30)) continue;
      const f = (s * dv) / W;
      for (let j = 0; j < 3; j++) {
        const n = j === 0 ? nx : j === 1 ? ny : nz;
        v[i0 + j] += w0 * c0 * f * n;
        v[i1 + j] += w1 * c1 * f * n;
        v[i2 + j] += w2 * c2 * f * n;
        v[i3 + j] += w3 * c3 * f * n;
      }
    }
  }

  /** Largest penetration h − s·d (m) over the current contacts, at x. */
  maxViolation(store: ParticleStore): number {
    const x = store.x;
    let m = 0;
    for (let k = 0; k < this.count; k++) {
      if ((this.flags[k] & FLAG_FLIP) !== 0) continue;
      const i0 = 3 * this.idx[4 * k],
        i1 = 3 * this.idx[4 * k + 1],
        i2 = 3 * this.idx[4 * k + 2],
        i3 = 3 * this.idx[4 * k + 3];
      const vt = this.type[k] === TYPE_VT;
      const ok = vt ? contactFrameVT(x, i0, i1, i2, i3) : contactFrameEE(x, i0, i1, i2, i3);
      if (!ok) continue;
      // proximity contacts act only over their footprint (as in the projection)
      if ((this.flags[k] & FLAG_CCD) === 0) {
        const out = vt
          ? frame[3] < -FOOTPRINT || frame[4] < -FOOTPRINT || frame[5] < -FOOTPRINT
          : frame[3] < -FOOTPRINT ||
            frame[3] > 1 + FOOTPRINT ||
            frame[4] < -FOOTPRINT ||
            frame[4] > 1 + FOOTPRINT;
        if (out) continue;
      }
      const pen = this.thick[k] - this.side[k] * frame[6];
      if (pen > m) m = pen;
    }
    return m;
  }

  /** Contact k for inspection and tests: type, particle indices, side, thickness. */
  contact(k: number): {
    type: 'vertex-triangle' | 'edge-edge';
    particles: number[];
    side: number;
    thickness: number;
  } {
    return {
      type: this.type[k] === TYPE_VT ? 'vertex-triangle' : 'edge-edge',
      particles: Array.from(this.idx.subarray(4 * k, 4 * k + 4)),
      side: this.side[k],
      thickness: this.thick[k],
    };
  }
}

/** Output of contactFrame*: normal (3), two or three weights, signed distance at [6]. */
const frame = new Float64Array(7);

/** Normal, barycentric coordinates and signed plane distance of a vertex–triangle contact. */
function contactFrameVT(p: Float64Array, i0: number, i1: number, i2: number, i3: number): boolean {
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
  const bb = ((ry * vz - rz * vy) * nx + (rz * vx - rx * vz) * ny + (rx * vy - ry * vx) * nz) * inv;
  const bc = ((uy * rz - uz * ry) * nx + (uz * rx - ux * rz) * ny + (ux * ry - uy * rx) * nz) * inv;
  frame[0] = nx;
  frame[1] = ny;
  frame[2] = nz;
  frame[3] = 1 - bb - bc;
  frame[4] = bb;
  frame[5] = bc;
  frame[6] = rx * nx + ry * ny + rz * nz;
  return true;
}

/** Normal, line parameters (t, u) and signed line distance of an edge–edge contact. */
function contactFrameEE(p: Float64Array, i0: number, i1: number, i2: number, i3: number): boolean {
  const ux = p[i1] - p[i0],
    uy = p[i1 + 1] - p[i0 + 1],
    uz = p[i1 + 2] - p[i0 + 2];
  const vx = p[i3] - p[i2],
    vy = p[i3 + 1] - p[i2 + 1],
    vz = p[i3 + 2] - p[i2 + 2];
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
  const rx = p[i0] - p[i2],
    ry = p[i0 + 1] - p[i2 + 1],
    rz = p[i0 + 2] - p[i2 + 2];
  const B = ux * vx + uy * vy + uz * vz;
  const D = ux * rx + uy * ry + uz * rz,
    E = vx * rx + vy * ry + vz * rz;
  const den = A * Cc - B * B;
  frame[0] = nx;
  frame[1] = ny;
  frame[2] = nz;
  frame[3] = (B * E - Cc * D) / den;
  frame[4] = (A * E - B * D) / den;
  frame[6] = rx * nx + ry * ny + rz * nz;
  return true;
}

/** Signed distance of q from the plane of (a, b, c) (0 for a degenerate triangle). */
function planeDistance(p: Float64Array, q3: number, a3: number, b3: number, c3: number): number {
  const ax = p[a3],
    ay = p[a3 + 1],
    az = p[a3 + 2];
  const ux = p[b3] - ax,
    uy = p[b3 + 1] - ay,
    uz = p[b3 + 2] - az;
  const vx = p[c3] - ax,
    vy = p[c3 + 1] - ay,
    vz = p[c3 + 2] - az;
  const nx = uy * vz - uz * vy,
    ny = uz * vx - ux * vz,
    nz = ux * vy - uy * vx;
  const n = Math.sqrt(nx * nx + ny * ny + nz * nz);
  if (!(n > 1e-300)) return 0;
  return ((p[q3] - ax) * nx + (p[q3 + 1] - ay) * ny + (p[q3 + 2] - az) * nz) / n;
}

/** Signed distance between the lines a–b and c–d along (b − a) × (d − c) (0 when parallel). */
function lineDistance(p: Float64Array, a3: number, b3: number, c3: number, d3: number): number {
  const ux = p[b3] - p[a3],
    uy = p[b3 + 1] - p[a3 + 1],
    uz = p[b3 + 2] - p[a3 + 2];
  const vx = p[d3] - p[c3],
    vy = p[d3 + 1] - p[c3 + 1],
    vz = p[d3 + 2] - p[c3 + 2];
  const nx = uy * vz - uz * vy,
    ny = uz * vx - ux * vz,
    nz = ux * vy - uy * vx;
  const n = Math.sqrt(nx * nx + ny * ny + nz * nz);
  if (!(n > 1e-300)) return 0;
  return ((p[a3] - p[c3]) * nx + (p[a3 + 1] - p[c3 + 1]) * ny + (p[a3 + 2] - p[c3 + 2]) * nz) / n;
}

function relativeNormalVelocityVT(
  x: Float64Array,
  v: Float64Array,
  q3: number,
  a3: number,
  b3: number,
  c3: number,
): number {
  if (!contactFrameVT(x, q3, a3, b3, c3)) return 0;
  const ba = frame[3],
    bb = frame[4],
    bc = frame[5];
  let r = 0;
  for (let j = 0; j < 3; j++) r += (v[q3 + j] - ba * v[a3 + j] - bb * v[b3 + j] - bc * v[c3 + j]) * frame[j];
  return r;
}

function relativeNormalVelocityEE(
  x: Float64Array,
  v: Float64Array,
  a3: number,
  b3: number,
  c3: number,
  d3: number,
): number {
  if (!contactFrameEE(x, a3, b3, c3, d3)) return 0;
  const t = frame[3],
    u = frame[4];
  let r = 0;
  for (let j = 0; j < 3; j++)
    r += ((1 - t) * v[a3 + j] + t * v[b3 + j] - (1 - u) * v[c3 + j] - u * v[d3 + j]) * frame[j];
  return r;
}

/** out box t = union of the vertex boxes a, b, c grown by g. */
function unionBox(
  out: Float64Array,
  t: number,
  vb: Float64Array,
  a: number,
  b: number,
  c: number,
  g: number,
): void {
  const o = 6 * t,
    oa = 6 * a,
    ob = 6 * b,
    oc = 6 * c;
  for (let k = 0; k < 3; k++) {
    let lo = vb[oa + k];
    if (vb[ob + k] < lo) lo = vb[ob + k];
    if (vb[oc + k] < lo) lo = vb[oc + k];
    let hi = vb[oa + 3 + k];
    if (vb[ob + 3 + k] > hi) hi = vb[ob + 3 + k];
    if (vb[oc + 3 + k] > hi) hi = vb[oc + 3 + k];
    out[o + k] = lo - g;
    out[o + 3 + k] = hi + g;
  }
}

/** Centroid and radius (largest vertex distance) of snapshot triangle (a, b, c) into out[4t .. 4t + 3]. */
function boundingSphere(
  out: Float64Array,
  t: number,
  S: Float64Array,
  a: number,
  b: number,
  c: number,
): void {
  const a3 = 3 * a,
    b3 = 3 * b,
    c3 = 3 * c;
  const cx = (S[a3] + S[b3] + S[c3]) / 3,
    cy = (S[a3 + 1] + S[b3 + 1] + S[c3 + 1]) / 3,
    cz = (S[a3 + 2] + S[b3 + 2] + S[c3 + 2]) / 3;
  const ra = (S[a3] - cx) ** 2 + (S[a3 + 1] - cy) ** 2 + (S[a3 + 2] - cz) ** 2,
    rb = (S[b3] - cx) ** 2 + (S[b3 + 1] - cy) ** 2 + (S[b3 + 2] - cz) ** 2,
    rc = (S[c3] - cx) ** 2 + (S[c3 + 1] - cy) ** 2 + (S[c3 + 2] - cz) ** 2;
  const o = 4 * t;
  out[o] = cx;
  out[o + 1] = cy;
  out[o + 2] = cz;
  out[o + 3] = Math.sqrt(Math.max(ra, rb, rc));
}

function unionBox2(out: Float64Array, e: number, vb: Float64Array, a: number, b: number, g: number): void {
  const o = 6 * e,
    oa = 6 * a,
    ob = 6 * b;
  for (let k = 0; k < 3; k++) {
    out[o + k] = Math.min(vb[oa + k], vb[ob + k]) - g;
    out[o + 3 + k] = Math.max(vb[oa + 3 + k], vb[ob + 3 + k]) + g;
  }
}

function grow64(a: Float64Array, need: number): Float64Array<ArrayBuffer> {
  const b = new Float64Array(Math.max(need, 2 * a.length, 64));
  b.set(a);
  return b;
}

function grow32(a: Int32Array, need: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(Math.max(need, 2 * a.length, 64));
  b.set(a);
  return b;
}

/** Distance between edges a–b and c–d at x (global particle indices). */
function edgeEdgeDistance(x: Float64Array, a: number, b: number, c: number, d: number): number {
  const a3 = 3 * a,
    b3 = 3 * b,
    c3 = 3 * c,
    d3 = 3 * d;
  closestSegmentSegmentAt(x, a3, b3, x, c3, d3, ss);
  return Math.sqrt(ss[2]);
}

/**
 * The rotational part of A (row-major 3×3) by the iteration of Müller,
 * Bender, Chentanez and Macklin 2016 ("A robust method to extract the
 * rotational part of deformations"), warm-started from q (x, y, z, w);
 * writes q and the rotation matrix into R[0..8] (row-major).
 */
function extractRotation(A: Float64Array, q: Float64Array, R: Float64Array): void {
  for (let it = 0; it < 20; it++) {
    quatToMatrix(q, R);
    // ω = Σ_k r_k × a_k / |Σ_k r_k · a_k| over the columns k
    let ox = 0,
      oy = 0,
      oz = 0,
      dot = 0;
    for (let k = 0; k < 3; k++) {
      const rx = R[k],
        ry = R[3 + k],
        rz = R[6 + k];
      const ax = A[k],
        ay = A[3 + k],
        az = A[6 + k];
      ox += ry * az - rz * ay;
      oy += rz * ax - rx * az;
      oz += rx * ay - ry * ax;
      dot += rx * ax + ry * ay + rz * az;
    }
    const s = 1 / (Math.abs(dot) + 1e-30);
    ox *= s;
    oy *= s;
    oz *= s;
    const w = Math.sqrt(ox * ox + oy * oy + oz * oz);
    if (!(w > 1e-12)) break;
    const h = 0.5 * w,
      sn = Math.sin(h) / w;
    const dx = ox * sn,
      dy = oy * sn,
      dz = oz * sn,
      dw = Math.cos(h);
    // q ← dq · q
    const x = q[0],
      y = q[1],
      z = q[2],
      qw = q[3];
    q[0] = dw * x + dx * qw + dy * z - dz * y;
    q[1] = dw * y - dx * z + dy * qw + dz * x;
    q[2] = dw * z + dx * y - dy * x + dz * qw;
    q[3] = dw * qw - dx * x - dy * y - dz * z;
    const l = Math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    q[0] /= l;
    q[1] /= l;
    q[2] /= l;
    q[3] /= l;
  }
  quatToMatrix(q, R);
}

function quatToMatrix(q: Float64Array, R: Float64Array): void {
  const x = q[0],
    y = q[1],
    z = q[2],
    w = q[3];
  R[0] = 1 - 2 * (y * y + z * z);
  R[1] = 2 * (x * y - z * w);
  R[2] = 2 * (x * z + y * w);
  R[3] = 2 * (x * y + z * w);
  R[4] = 1 - 2 * (x * x + z * z);
  R[5] = 2 * (y * z - x * w);
  R[6] = 2 * (x * z - y * w);
  R[7] = 2 * (y * z + x * w);
  R[8] = 1 - 2 * (x * x + y * y);
}

const nA = new Float64Array(3);
const nB = new Float64Array(3);

/** Unit normal of triangle t (surface-vertex ids) at x into out (0 for a degenerate one). */
function triangleNormal(
  x: Float64Array,
  vert: Int32Array,
  tri: Int32Array,
  t: number,
  out: Float64Array,
): void {
  const a = 3 * vert[tri[3 * t]],
    b = 3 * vert[tri[3 * t + 1]],
    c = 3 * vert[tri[3 * t + 2]];
  const ux = x[b] - x[a],
    uy = x[b + 1] - x[a + 1],
    uz = x[b + 2] - x[a + 2];
  const vx = x[c] - x[a],
    vy = x[c + 1] - x[a + 1],
    vz = x[c + 2] - x[a + 2];
  const nx = uy * vz - uz * vy,
    ny = uz * vx - ux * vz,
    nz = ux * vy - uy * vx;
  const l = Math.sqrt(nx * nx + ny * ny + nz * nz);
  const inv = l > 0 ? 1 / l : 0;
  out[0] = nx * inv;
  out[1] = ny * inv;
  out[2] = nz * inv;
}

function findRoot(parent: Int32Array, v: number): number {
  let r = v;
  while (parent[r] !== r) r = parent[r];
  while (parent[v] !== r) {
    const next = parent[v];
    parent[v] = r;
    v = next;
  }
  return r;
}

/** Does the box of vertex q (at oq) come within g of the box of the triangle with vertex boxes at oa, ob, oc? */
function boxNearTriangle(
  b: Float64Array,
  oq: number,
  oa: number,
  ob: number,
  oc: number,
  g: number,
): boolean {
  for (let k = 0; k < 3; k++) {
    const hi = Math.max(b[oa + 3 + k], b[ob + 3 + k], b[oc + 3 + k]) + g;
    if (b[oq + k] > hi) return false;
    const lo = Math.min(b[oa + k], b[ob + k], b[oc + k]) - g;
    if (b[oq + 3 + k] < lo) return false;
  }
  return true;
}

/** Do box i of A and box j of B overlap (closed boxes)? */
function boxesOverlap(A: Float64Array, i: number, B: Float64Array, j: number): boolean {
  const a = 6 * i,
    b = 6 * j;
  return (
    A[a] <= B[b + 3] &&
    A[a + 3] >= B[b] &&
    A[a + 1] <= B[b + 4] &&
    A[a + 4] >= B[b + 1] &&
    A[a + 2] <= B[b + 5] &&
    A[a + 5] >= B[b + 2]
  );
}

/** Does box i of A come within g of box j of B (per axis)? */
function boxesNear(A: Float64Array, i: number, B: Float64Array, j: number, g: number): boolean {
  const a = 6 * i,
    b = 6 * j;
  return (
    A[a] <= B[b + 3] + g &&
    A[a + 3] + g >= B[b] &&
    A[a + 1] <= B[b + 4] + g &&
    A[a + 4] + g >= B[b + 1] &&
    A[a + 2] <= B[b + 5] + g &&
    A[a + 5] + g >= B[b + 2]
  );
}

/**
 * The side a contact keeps: where the pair was before its first crossing
 * (the start of the substep), or where it is at the prediction when nothing
 * crossed; exact zeros fall back to the other end.
 */
function contactSide(crossed: boolean, dX: number, dP: number): number {
  if (crossed) return dX > 0 ? 1 : dX < 0 ? -1 : dP > 0 ? -1 : 1;
  return dP > 0 ? 1 : dP < 0 ? -1 : dX >= 0 ? 1 : -1;
}
