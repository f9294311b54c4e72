import type { Body } from '../core/body.js';
import { PbdError, requireAtLeast } from '../core/errors.js';
import type { ParticleStore } from '../core/particles.js';

/**
 * The shared state of the surface contacts (SurfaceContacts): the
 * registered surfaces, their settings, and the one combined mesh of all of
 * them that every part reads — the broad phase (surface-broad-phase.ts),
 * the vertex–triangle and edge–edge tests (surface-vertex-triangle.ts,
 * surface-edge-edge.ts), the fail-safe (surface-failsafe.ts) and the
 * untangling analysis (untangle.ts).
 *
 * Ids: a *surface vertex* v (0 … vertexCount − 1) is one particle of a
 * registered body, `vertex[v]` its global particle index; triangles and
 * edges name surface vertices. Everything here is rebuilt by `refresh` when
 * a body's topology changes (tearing) or a setting does, and read-only in
 * between.
 */

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
  /** Vertices of collapsed patches restored to their rest shape since the start (see surface-collapse.ts). */
  restored: number;
  /**
   * Triangles and free points that reached their pair budget in the broad
   * phase (MAX_PAIRS_PER_TRIANGLE, or DEGENERATE_PAIRS_PER_TRIANGLE in a
   * rebuild past the step's budget; MAX_TRIANGLES_PER_POINT), since the start.
   */
  capped: number;
  /** Full rebuilds whose triangle pairs exceeded PAIR_BUDGET per triangle (coincident or collapsed geometry), since the start. */
  overBudget: number;
}

export class SurfaceTopology {
  readonly surfaces: Surface[] = [];
  /** Extra distance (m) within which proximity contacts are generated, as a fraction of h. Default 0.5. */
  marginFactor = 0.5;
  /** Increases with every rebuild of the combined arrays. */
  version = 0;
  /** Some surface has restitution > 0. */
  anyRestitution = false;

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
  /** Mean edge length at the last topology build (m): of the positions then, or of the rest shapes where those had collapsed. */
  meanEdge = 0;
  /** Rest length of each edge (m): from its body's rest shape, else its length at the last topology build. */
  restEdge = new Float64Array(0);
  /** Surface-vertex id of each particle (−1: not on a surface). */
  localOf = new Int32Array(0);
  /** Vertex → triangles and vertex → edges (CSR). */
  vtStart = new Int32Array(1);
  vtList = new Int32Array(0);
  veStart = new Int32Array(1);
  veList = new Int32Array(0);
  /** The (up to) two triangles of each edge (−1: boundary). */
  edgeTris = new Int32Array(0);
  /**
   * Ownership, so that every (vertex, triangle) and (edge, edge) pair is met
   * once in a traversal of overlapping triangle pairs: each vertex and edge
   * belongs to its first triangle (CSR per triangle); vertices of no
   * triangle are free points.
   */
  ownVStart = new Int32Array(1);
  ownV = new Int32Array(0);
  ownEStart = new Int32Array(1);
  ownE = new Int32Array(0);
  freeV = new Int32Array(0);
  /**
   * Half the contact distance (thickness plus margin) of each surface: boxes
   * are grown by their own surface's half, so that two of them meet within
   * the reach of their pair (h of the surface for self contacts, the mean of
   * the two h otherwise) and a thick body (grains) does not inflate the boxes
   * of a thin one.
   */
  halfReach = new Float64Array(0);

  /** Pair switches: pairOn[a · S + b] for surfaces a, b. */
  private pairOn = new Uint8Array(0);
  /** The pair switches as a table: pairTable[a · S + b] = 1 where surfaces a and b collide (S surfaces). */
  get pairTable(): Uint8Array {
    return this.pairOn;
  }
  private pairOverride = new Map<number, boolean>();
  private dirty = true;

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
      requireAtLeast(v, 0, 'contact/friction', `${where}.${k}`);
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
    this.dirty = true;
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
    this.dirty = true;
  }

  /** Marks the topology for rebuilding (after a change of settings). */
  invalidate(): void {
    this.dirty = true;
  }

  /** Are contacts between surfaces a and b (indices into `surfaces`) switched on? */
  pairActive(a: number, b: number): boolean {
    return this.pairOn[a * this.surfaces.length + b] === 1;
  }

  /** Thickness of a pair of surfaces: h of the surface for self contacts, the mean of the two otherwise. */
  pairThickness(a: number, b: number): number {
    const ha = this.surfaces[a].thickness;
    return a === b ? ha : 0.5 * (ha + this.surfaces[b].thickness);
  }

  private pairEnabled(a: number, b: number): boolean {
    const o = this.pairOverride.get(Math.min(a, b) * 65536 + Math.max(a, b));
    if (o !== undefined) return o;
    const sa = this.surfaces[a],
      sb = this.surfaces[b];
    return a === b ? sa.self : sa.others && sb.others;
  }

  /** Brings halfReach up to date with the surfaces' thickness and the margin (every substep: settings may change). */
  refreshReach(): void {
    const S = this.surfaces.length;
    if (this.halfReach.length !== S) this.halfReach = new Float64Array(S);
    for (let i = 0; i < S; i++)
      this.halfReach[i] = 0.5 * this.surfaces[i].thickness * (1 + this.marginFactor);
  }

  /**
   * Rebuilds the combined arrays when a surface's topology or a setting
   * changed; returns true when it did (the other parts then resize theirs).
   */
  refresh(store: ParticleStore): boolean {
    let dirty = this.dirty;
    for (const s of this.surfaces) if (s.version !== s.body.topologyVersion) dirty = true;
    if (!dirty) return false;
    this.dirty = false;
    this.version++;
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
    this.localOf = new Int32Array(store.count).fill(-1);
    for (let i = 0; i < nv; i++) this.localOf[this.vertex[i]] = i;
    [this.vtStart, this.vtList] = incidence(this.tri, 3, this.triCount, nv);
    [this.veStart, this.veList] = incidence(this.edge, 2, this.edgeCount, nv);
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
    // mean edge length, for the allowances and tolerances, and the rest length of every edge
    const x = store.x;
    this.restEdge = new Float64Array(this.edgeCount);
    let sum = 0,
      restSum = 0;
    for (let e = 0; e < this.edgeCount; e++) {
      const a = 3 * verts[edges[2 * e]],
        b = 3 * verts[edges[2 * e + 1]];
      const len = Math.hypot(x[a] - x[b], x[a + 1] - x[b + 1], x[a + 2] - x[b + 2]);
      sum += len;
      const body = this.surfaces[esurf[e]].body;
      const rest = body.restShape();
      const ra = edges[2 * e],
        rb = edges[2 * e + 1];
      const la = 3 * (verts[ra] - body.offset),
        lb = 3 * (verts[rb] - body.offset);
      this.restEdge[e] = rest
        ? Math.hypot(rest[la] - rest[lb], rest[la + 1] - rest[lb + 1], rest[la + 2] - rest[lb + 2])
        : len;
      restSum += this.restEdge[e];
    }
    this.meanEdge = this.edgeCount > 0 ? sum / this.edgeCount : 1;
    // a surface collapsed at the build (all its vertices at one point) still needs a length scale
    if (!(this.meanEdge > 0)) {
      this.meanEdge =
        restSum > 0 ? restSum / this.edgeCount : Math.max(1e-3, ...this.surfaces.map((s) => s.thickness));
    }
    this.anyRestitution = this.surfaces.some((s) => s.restitution > 0);
    return true;
  }
}

/** Item → vertex incidence (CSR over nv vertices) of `count` items of `arity` surface-vertex ids each. */
export function incidence(
  items: Int32Array,
  arity: number,
  count: number,
  nv: number,
): [Int32Array<ArrayBuffer>, Int32Array<ArrayBuffer>] {
  const start = new Int32Array(nv + 1);
  for (let k = 0; k < arity * count; k++) start[items[k] + 1]++;
  for (let v = 0; v < nv; v++) start[v + 1] += start[v];
  const list = new Int32Array(arity * count);
  const cur = start.slice(0, nv);
  for (let i = 0; i < count; i++) for (let j = 0; j < arity; j++) list[cur[items[arity * i + j]]++] = i;
  return [start, list];
}

/**
 * The topology arrays the broad phase's pair tests and the narrow phase's
 * scans read (BroadArrays and NarrowArrays extend it): triangles and edges
 * as surface-vertex ids, global index and surface of each, and per surface
 * half its contact reach and its thickness.
 */
export interface TopologyArrays {
  tri: Int32Array;
  edge: Int32Array;
  vertex: Int32Array;
  vertexSurface: Int32Array;
  triSurface: Int32Array;
  edgeSurface: Int32Array;
  halfReach: Float64Array;
  thickness: Float64Array;
}

/** Empty topology arrays, the head of a record that binds them before each use. */
export function emptyTopologyArrays(): TopologyArrays {
  const i = new Int32Array(0);
  return {
    tri: i,
    edge: i,
    vertex: i,
    vertexSurface: i,
    triSurface: i,
    edgeSurface: i,
    halfReach: new Float64Array(0),
    thickness: new Float64Array(0),
  };
}

/** Points A's topology arrays at topo's current ones and copies each surface's thickness into A.thickness. */
export function bindTopologyArrays(A: TopologyArrays, topo: SurfaceTopology): void {
  A.tri = topo.tri;
  A.edge = topo.edge;
  A.vertex = topo.vertex;
  A.vertexSurface = topo.vertexSurface;
  A.triSurface = topo.triSurface;
  A.edgeSurface = topo.edgeSurface;
  A.halfReach = topo.halfReach;
  const S = topo.surfaces.length;
  if (A.thickness.length !== S) A.thickness = new Float64Array(S);
  for (let s = 0; s < S; s++) A.thickness[s] = topo.surfaces[s].thickness;
}
