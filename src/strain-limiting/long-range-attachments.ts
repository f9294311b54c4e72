/**
 * Long Range Attachments (survey 000 §3.5 and Figure 7, after Kim, Chentanez
 * and Müller 2012).
 *
 * Stretching artefacts appear where cloth hangs from attachments, because
 * the error of a local Gauss–Seidel solver travels one edge per iteration.
 * LRA attach every free particle i directly to each pinned particle a by a
 * unilateral constraint
 *
 *   C(p_i) = |p_i − p_a| − d_ia ≤ 0,
 *
 * so that the particle stays inside a sphere around the attachment whose
 * radius d_ia is its rest distance to it — the Euclidean distance in the rest
 * state or the geodesic distance along the mesh (src/strain-limiting/
 * geodesic.ts). Particles inside their spheres move freely; the others are
 * projected onto the sphere (the pinned particle does not move, w_a = 0).
 * One pass bounds the stretch of the whole cloth with respect to its pins.
 *
 * The attachments are the world's hard pins (compliance 0) on the body's
 * particles. They are found in `beginStep` and the constraints are rebuilt
 * whenever they change (a pin added or released at run time). With
 * `maxPerParticle` each particle is tethered only to that many of its nearest
 * pins (by rest distance). Constraints of one particle are sorted into
 * different colours (colour k holds the k-th nearest pin of every particle),
 * so a colour batch touches every moving particle at most once.
 */
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { PbdError, requireAtLeast } from '../core/errors.js';
import type { ParticleStore } from '../core/particles.js';
import { type ConstraintParams, ProjectionRule } from '../core/solver.js';
import type { World } from '../core/world.js';
import { GeodesicDistance } from './geodesic.js';

export interface LongRangeOptions extends ConstraintParams {
  /** Rest lengths: 'euclidean' (the rest-state distance, default) or 'geodesic' (along the mesh). */
  rest?: 'euclidean' | 'geodesic';
  /** Rest lengths are multiplied by this (≥ 1; above 1 lets the cloth stretch a little). Default 1. */
  scale?: number;
  /** Tether each particle to at most this many of its nearest pins. Default: all pins. */
  maxPerParticle?: number;
}

/** What LRA read of their body: its particle range, rest shape and triangles (a Cloth or FemCloth). */
export interface TetheredBody {
  readonly offset: number;
  readonly activeCount: number;
  /** Rest positions, body-local (xyz). */
  readonly restPositions: Float64Array;
  /** Triangles, body-local indices (for geodesic rest lengths). */
  readonly triangles: Uint32Array;
}

export class LongRangeAttachments implements ConstraintSet {
  readonly kind = 'long-range-attachment';
  readonly violationUnit = 'm';
  readonly order = 0;
  enabled = true;
  readonly rule: ProjectionRule;
  readonly restKind: 'euclidean' | 'geodesic';
  readonly scale: number;
  readonly maxPerParticle: number;
  /** Per constraint: the free particle, its pinned particle (global indices) and the rest distance. */
  particle: Int32Array = new Int32Array(0);
  anchor: Int32Array = new Int32Array(0);
  rest: Float64Array = new Float64Array(0);
  lambda: Float64Array = new Float64Array(0);
  colorOffsets: Int32Array = new Int32Array(1);
  count = 0;
  colors = 0;
  /** Pinned particles (body-local) the constraints were built for. */
  anchors: Int32Array = new Int32Array(0);
  /** Times the constraints were rebuilt (pins changed). */
  rebuilds = 0;
  private readonly world: World;
  private readonly body: TetheredBody;
  private isAnchor: Uint8Array = new Uint8Array(0);
  private geodesic: GeodesicDistance | null = null;
  private geodesicTriangles: Uint32Array | null = null;
  /** Distance fields from anchors already computed (body-local anchor → distances). */
  private readonly fields = new Map<number, Float64Array>();
  private dirty = true;

  constructor(world: World, body: TetheredBody, o: LongRangeOptions = {}, where = 'long range attachments') {
    this.world = world;
    this.body = body;
    this.rule = new ProjectionRule(o, where);
    const kind = o.rest ?? 'euclidean';
    if (kind !== 'euclidean' && kind !== 'geodesic') {
      throw new PbdError(
        'lra/rest',
        `${where}.rest`,
        `unknown rest length kind '${kind}'`,
        "use 'euclidean' or 'geodesic'",
      );
    }
    this.restKind = kind;
    this.scale = o.scale ?? 1;
    requireAtLeast(
      this.scale,
      1,
      'lra/scale',
      `${where}.scale`,
      'the tethers may be longer than the rest distance, never shorter (1.02 allows 2 % stretch)',
    );
    this.maxPerParticle = o.maxPerParticle ?? Number.POSITIVE_INFINITY;
    if (!(this.maxPerParticle >= 1)) {
      throw new PbdError(
        'lra/max-per-particle',
        `${where}.maxPerParticle`,
        `must be ≥ 1, got ${o.maxPerParticle}`,
        'leave it out to tether every particle to every pin',
      );
    }
  }

  /** Forgets cached geodesics and rebuilds at the next step (the body's topology changed). */
  invalidate(): void {
    this.fields.clear();
    this.geodesic = null;
    this.dirty = true;
  }

  beginStep(ctx: StepContext): void {
    if (this.dirty || this.pinsChanged()) this.rebuild(ctx.store);
    this.rule.update(ctx.solver, ctx.hSolve, ctx.passes);
    this.lambda.fill(0);
  }

  /** Whether the hard pins on the body differ from the anchors of the constraints (no allocation). */
  private pinsChanged(): boolean {
    const att = this.world.attachments;
    const off = this.body.offset,
      n = this.body.activeCount;
    if (this.isAnchor.length !== n) return true;
    let pins = 0;
    for (let e = 0; e < att.count; e++) {
      if (att.compliance[e] !== 0) continue;
      const i = att.particle[e] - off;
      if (i < 0 || i >= n) continue;
      if (this.isAnchor[i] === 0) return true;
      pins++;
    }
    return pins !== this.anchors.length;
  }

  /** Rebuilds the constraints for the body's current hard pins. */
  rebuild(store: ParticleStore): void {
    this.dirty = false;
    this.rebuilds++;
    const att = this.world.attachments;
    const off = this.body.offset,
      n = this.body.activeCount;
    const X = this.body.restPositions;
    this.isAnchor = new Uint8Array(n);
    const list: number[] = [];
    for (let e = 0; e < att.count; e++) {
      if (att.compliance[e] !== 0) continue;
      const i = att.particle[e] - off;
      if (i >= 0 && i < n && this.isAnchor[i] === 0) {
        this.isAnchor[i] = 1;
        list.push(i);
      }
    }
    list.sort((a, b) => a - b);
    this.anchors = Int32Array.from(list);
    const na = list.length;
    const k = Math.min(na, this.maxPerParticle);
    // rest distances of every particle to every anchor
    const dist: Float64Array[] = list.map((a) => this.distances(a, X, n));
    const free: number[] = [];
    for (let i = 0; i < n; i++) if (this.isAnchor[i] === 0 && store.invMass[off + i] > 0) free.push(i);
    const m = free.length * k;
    this.particle = new Int32Array(m);
    this.anchor = new Int32Array(m);
    this.rest = new Float64Array(m);
    this.lambda = new Float64Array(m);
    this.colorOffsets = new Int32Array(k + 1);
    const order = new Int32Array(na);
    const key = new Float64Array(na);
    let written = 0;
    for (let f = 0; f < free.length; f++) {
      const i = free[f];
      for (let a = 0; a < na; a++) {
        order[a] = a;
        key[a] = dist[a][i];
      }
      // the k nearest pins, nearest first (ties by anchor index: deterministic)
      const sorted = Array.from(order).sort((p, q) => key[p] - key[q] || p - q);
      for (let s = 0; s < k; s++) {
        const a = sorted[s];
        // constraint of slot s for free particle f: colour s, position s·|free| + f
        const c = s * free.length + f;
        this.particle[c] = off + i;
        this.anchor[c] = off + list[a];
        this.rest[c] = this.scale * key[a];
        written++;
      }
    }
    // unreachable pins (another piece of the mesh) give infinite rest lengths: never active
    for (let s = 0; s <= k; s++) this.colorOffsets[s] = s * free.length;
    this.count = written;
    this.colors = k;
  }

  /** Rest distances (body-local) from anchor a to every particle. */
  private distances(a: number, X: Float64Array, n: number): Float64Array {
    const cached = this.fields.get(a);
    if (cached && cached.length === n) return cached;
    const out = new Float64Array(n);
    if (this.restKind === 'geodesic') {
      const tris = this.body.triangles;
      if (!this.geodesic || this.geodesicTriangles !== tris) {
        this.geodesic = new GeodesicDistance(X, tris, n);
        this.geodesicTriangles = tris;
        this.fields.clear();
      }
      this.geodesic.from(a, out);
    } else {
      for (let i = 0; i < n; i++) {
        out[i] = Math.hypot(X[3 * i] - X[3 * a], X[3 * i + 1] - X[3 * a + 1], X[3 * i + 2] - X[3 * a + 2]);
      }
    }
    this.fields.set(a, out);
    return out;
  }

  project(ctx: StepContext): void {
    const p = ctx.store.p,
      x = ctx.store.x,
      w = ctx.store.invMass;
    const pi = this.particle,
      pa = this.anchor,
      rest = this.rest,
      lam = this.lambda;
    const kp = this.rule.kPrime,
      at = this.rule.alphaTilde,
      gamma = this.rule.gamma;
    const n = this.count;
    const step = ctx.reverse ? -1 : 1;
    const end = ctx.reverse ? -1 : n;
    for (let c = ctx.reverse ? n - 1 : 0; c !== end; c += step) {
      const i = pi[c];
      const wi = w[i];
      if (wi === 0) continue;
      const i3 = 3 * i,
        a3 = 3 * pa[c];
      const dx = p[i3] - p[a3],
        dy = p[i3 + 1] - p[a3 + 1],
        dz = p[i3 + 2] - p[a3 + 2];
      const d2 = dx * dx + dy * dy + dz * dz;
      const r = rest[c];
      // inside its sphere: free
      if (!(d2 > r * r)) continue;
      const len = Math.sqrt(d2);
      const C = len - r;
      const inv = 1 / len;
      const nx = dx * inv,
        ny = dy * inv,
        nz = dz * inv;
      let damp = 0;
      if (gamma !== 0) {
        damp = gamma * (nx * (p[i3] - x[i3]) + ny * (p[i3 + 1] - x[i3 + 1]) + nz * (p[i3 + 2] - x[i3 + 2]));
      }
      // ∇_i C = n, the pinned particle has w_a = 0
      const dl = (kp * (-C - at * lam[c] - damp)) / ((1 + gamma) * wi + at);
      lam[c] += dl;
      const s = wi * dl;
      p[i3] += nx * s;
      p[i3 + 1] += ny * s;
      p[i3 + 2] += nz * s;
    }
  }

  /** Largest distance (m) by which a particle lies outside its sphere, at x. */
  maxViolation(store: ParticleStore): number {
    const x = store.x;
    let m = 0;
    for (let c = 0; c < this.count; c++) {
      const i3 = 3 * this.particle[c],
        a3 = 3 * this.anchor[c];
      const d = Math.hypot(x[i3] - x[a3], x[i3 + 1] - x[a3 + 1], x[i3 + 2] - x[a3 + 2]) - this.rest[c];
      if (d > m) m = d;
    }
    return m;
  }
}
