import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { PbdError } from '../core/errors.js';
import type { ParticleStore } from '../core/particles.js';
import { movePair } from '../math/pair-move.js';

/** Options of the hierarchical solver (Müller 2008, "Hierarchical Position Based Dynamics"). */
export interface HierarchyOptions {
  /**
   * k: every particle of a level that is not on the next coarser level gets
   * at least k coarse parents among its neighbours (HPBD §4.1). Default 2.
   */
  parents?: number;
  /** Most coarse levels built. Default 8. */
  maxLevels?: number;
  /** No coarser level is built once a level has this many particles or fewer. Default 32. */
  minParticles?: number;
}

/**
 * The hierarchical (multigrid) solver of Müller 2008, "Hierarchical
 * Position Based Dynamics" (HPBD), also the "hierarchical solver" of the
 * 2017 survey (seed 004: a Gauss–Seidel smoother on every mesh of a
 * hierarchy, corrections carried across levels by restriction and
 * prolongation).
 *
 * Levels (HPBD §4.1): level 0 is the body's particle graph (the edges of its
 * stretch constraints). A coarser level is a subset of the finer one's
 * particles: a maximal independent set of the finer graph (no two coarse
 * particles adjacent, every fine one next to a coarse one) taken in index
 * order, plus every fine particle that would otherwise have fewer than k
 * coarse neighbours. A fine particle's parents are its coarse neighbours,
 * with interpolation weights w_ij ∝ 1/|X_i − X_j| (rest distances)
 * normalised to Σ_j w_ij = 1; a coarse particle's mass is its own plus
 * Σ_i w_ij m_i of its children, so every level has the body's mass. Two
 * coarse particles are joined by a distance constraint when they are
 * neighbours on the finer level or parents of one fine particle, with the
 * rest distance as rest length.
 *
 * The coarse constraints are unilateral (HPBD §4.2): they only resist
 * stretching, C = |p_a − p_b| − d > 0. A bilateral coarse constraint would
 * forbid the fine mesh to fold or buckle between coarse particles; a
 * unilateral one is inactive whenever the fine edges are at their rest
 * lengths along a straight line, so the hierarchy changes how fast the solve
 * converges, not what it converges to for inextensible cloth (tested). With
 * compliant stretch the coarse levels still forbid stretch beyond the rest
 * distances, so the cloth comes out stiffer than its compliance says: use it
 * for stiff stretch (compliance 0, stiffness 1), where it matters.
 *
 * One V-cycle per solver iteration, before the fine sets' sweep (the set's
 * order is −1: after the attachments, once per iteration, also under the
 * symmetric sweep): going down, each level keeps its particles' positions
 * (restriction is injection: coarse particles are fine particles) and is
 * smoothed by one Gauss–Seidel sweep of its constraints; the coarsest level
 * is swept; going up, each level's correction since the descent is
 * prolongated to the finer particles that are not on it,
 * Δp_i = Σ_j w_ij Δp_j (HPBD §4.3), and the level is smoothed again. The
 * finest level's smoothing is the world's own sweep of the body's sets.
 * Particles with w = 0 (pins) are never moved by prolongation.
 */
export class HierarchicalSolver implements ConstraintSet {
  readonly kind = 'hierarchy';
  readonly order = -1;
  enabled = true;
  /** Coarse levels (level 0, the body, not counted). */
  readonly levels: number;
  /** Particles of each level, finest (the body) first. */
  readonly levelSizes: number[];
  /** Coarse constraints, all levels together. */
  readonly count: number;

  /** Per coarse level l ≥ 1 (index l − 1): global particle indices of its members. */
  private readonly members: Int32Array[] = [];
  /** Per coarse level: its constraints as pairs of member indices, and their rest lengths. */
  private readonly pairs: Int32Array[] = [];
  private readonly rest: Float64Array[] = [];
  /** Per coarse level: the members' masses on that level, and inverse masses for this substep. */
  private readonly mass: Float64Array[] = [];
  private readonly invMass: Float64Array[] = [];
  /** Per coarse level: the members' positions kept on the descent (3 per member). */
  private readonly kept: Float64Array[] = [];
  /**
   * Per coarse level l: the particles of level l − 1 that are not on level l
   * (global indices), their parents on level l (CSR: parentStart, parent as
   * member indices of level l) and the weights.
   */
  private readonly children: Int32Array[] = [];
  private readonly parentStart: Int32Array[] = [];
  private readonly parent: Int32Array[] = [];
  private readonly weight: Float64Array[] = [];

  /**
   * @param store     the particle store (masses are read now, inverse masses every substep)
   * @param offset    the body's first particle
   * @param n         the body's particles
   * @param edges     the body's edges, global particle indices (two per edge)
   * @param restPositions the body's rest positions, body-local (3 per particle)
   */
  constructor(
    store: ParticleStore,
    offset: number,
    n: number,
    edges: ArrayLike<number>,
    restPositions: ArrayLike<number>,
    options: HierarchyOptions = {},
    where = 'hierarchy',
  ) {
    const k = options.parents ?? 2;
    const maxLevels = options.maxLevels ?? 8;
    const minParticles = options.minParticles ?? 32;
    if (!(Number.isInteger(k) && k >= 1 && k <= 6))
      throw new PbdError('hierarchy/parents', `${where}.parents`, `must be an integer from 1 to 6, got ${k}`);
    if (!(Number.isInteger(maxLevels) && maxLevels >= 1 && maxLevels <= 16))
      throw new PbdError(
        'hierarchy/levels',
        `${where}.maxLevels`,
        `must be an integer from 1 to 16, got ${maxLevels}`,
      );
    if (!(Number.isInteger(minParticles) && minParticles >= 2))
      throw new PbdError(
        'hierarchy/min-particles',
        `${where}.minParticles`,
        `must be an integer ≥ 2, got ${minParticles}`,
      );
    // level 0 in body-local indices
    let nodes = Int32Array.from({ length: n }, (_, i) => i);
    let nodeMass = new Float64Array(n);
    for (let i = 0; i < n; i++) nodeMass[i] = store.mass[offset + i];
    let graph = adjacency(n, edgesLocal(edges, offset, n));
    const sizes = [n];
    let total = 0;
    const rp = restPositions;
    const dist = (a: number, b: number): number =>
      Math.hypot(rp[3 * a] - rp[3 * b], rp[3 * a + 1] - rp[3 * b + 1], rp[3 * a + 2] - rp[3 * b + 2]);
    for (let level = 1; level <= maxLevels && nodes.length > minParticles; level++) {
      const m = nodes.length;
      const { start, list } = graph;
      // HPBD §4.1: a maximal independent set in index order, then every node short of k coarse neighbours
      const coarse = new Uint8Array(m);
      for (let i = 0; i < m; i++) {
        let free = true;
        for (let e = start[i]; e < start[i + 1]; e++) if (coarse[list[e]]) free = false;
        if (free) coarse[i] = 1;
      }
      for (let i = 0; i < m; i++) {
        if (coarse[i]) continue;
        let c = 0;
        for (let e = start[i]; e < start[i + 1]; e++) c += coarse[list[e]];
        if (c < k) coarse[i] = 1;
      }
      const local = new Int32Array(m).fill(-1);
      let nc = 0;
      for (let i = 0; i < m; i++) if (coarse[i]) local[i] = nc++;
      if (nc >= m * 0.9) break; // no longer coarsening: stop
      const cNodes = new Int32Array(nc);
      const cMass = new Float64Array(nc);
      for (let i = 0; i < m; i++)
        if (coarse[i]) {
          cNodes[local[i]] = nodes[i];
          cMass[local[i]] = nodeMass[i];
        }
      // parents and weights w_ij ∝ 1/|X_i − X_j|, Σ_j w_ij = 1; children's mass to the parents
      const kids: number[] = [];
      const pStart: number[] = [0];
      const par: number[] = [];
      const wt: number[] = [];
      const coarseEdges = new Set<number>();
      const addEdge = (a: number, b: number): void => {
        if (a === b) return;
        coarseEdges.add(a < b ? a * nc + b : b * nc + a);
      };
      for (let i = 0; i < m; i++) {
        if (coarse[i]) {
          for (let e = start[i]; e < start[i + 1]; e++)
            if (coarse[list[e]]) addEdge(local[i], local[list[e]]);
          continue;
        }
        let sum = 0;
        const first = par.length;
        for (let e = start[i]; e < start[i + 1]; e++) {
          const j = list[e];
          if (!coarse[j]) continue;
          const w = 1 / Math.max(dist(nodes[i], nodes[j]), 1e-12);
          par.push(local[j]);
          wt.push(w);
          sum += w;
        }
        for (let q = first; q < par.length; q++) {
          wt[q] /= sum;
          cMass[par[q]] += wt[q] * nodeMass[i];
          for (let r = first; r < q; r++) addEdge(par[q], par[r]);
        }
        kids.push(offset + nodes[i]);
        pStart.push(par.length);
      }
      const cPairs = new Int32Array(2 * coarseEdges.size);
      const cRest = new Float64Array(coarseEdges.size);
      let c = 0;
      for (const key of [...coarseEdges].sort((a, b) => a - b)) {
        const a = Math.floor(key / nc);
        const b = key - a * nc;
        cPairs[2 * c] = a;
        cPairs[2 * c + 1] = b;
        cRest[c] = dist(cNodes[a], cNodes[b]);
        c++;
      }
      const global = new Int32Array(nc);
      for (let j = 0; j < nc; j++) global[j] = offset + cNodes[j];
      this.members.push(global);
      this.pairs.push(cPairs);
      this.rest.push(cRest);
      this.mass.push(cMass);
      this.invMass.push(new Float64Array(nc));
      this.kept.push(new Float64Array(3 * nc));
      this.children.push(Int32Array.from(kids));
      this.parentStart.push(Int32Array.from(pStart));
      this.parent.push(Int32Array.from(par));
      this.weight.push(Float64Array.from(wt));
      total += cRest.length;
      sizes.push(nc);
      nodes = cNodes;
      nodeMass = cMass;
      graph = adjacency(nc, cPairs);
    }
    this.levels = this.members.length;
    this.levelSizes = sizes;
    this.count = total;
  }

  /** Total mass of coarse level l ≥ 1 (each level carries the body's mass, HPBD §4.1). */
  levelMass(l: number): number {
    const m = this.mass[l - 1];
    let s = 0;
    for (let j = 0; j < m.length; j++) s += m[j];
    return s;
  }

  /** The fewest coarse parents of any particle of level l − 1 not on coarse level l ≥ 1. */
  fewestParents(l: number): number {
    const start = this.parentStart[l - 1];
    let k = Number.POSITIVE_INFINITY;
    for (let c = 0; c + 1 < start.length; c++) k = Math.min(k, start[c + 1] - start[c]);
    return k;
  }

  /** Coarse inverse masses for this substep: 0 where the particle is pinned (w = 0 in the store). */
  beginStep(ctx: StepContext): void {
    const w = ctx.store.invMass;
    for (let l = 0; l < this.levels; l++) {
      const g = this.members[l];
      const m = this.mass[l];
      const inv = this.invMass[l];
      for (let j = 0; j < g.length; j++) inv[j] = w[g[j]] === 0 || !(m[j] > 0) ? 0 : 1 / m[j];
    }
  }

  /** One V-cycle over the coarse levels (see the class comment); nothing in the backward half of a symmetric sweep. */
  project(ctx: StepContext): void {
    if (ctx.reverse || this.levels === 0) return;
    const p = ctx.store.p;
    const top = this.levels - 1;
    for (let l = 0; l <= top; l++) {
      const g = this.members[l];
      const kept = this.kept[l];
      for (let j = 0; j < g.length; j++) {
        const a = 3 * g[j];
        kept[3 * j] = p[a];
        kept[3 * j + 1] = p[a + 1];
        kept[3 * j + 2] = p[a + 2];
      }
      this.smooth(l, p);
    }
    for (let l = top; l >= 0; l--) {
      if (l < top) this.smooth(l, p);
      this.prolongate(l, p, ctx.store.invMass);
    }
  }

  /** One Gauss–Seidel sweep of level l's unilateral distance constraints (PBD, k = 1). */
  private smooth(l: number, p: Float64Array): void {
    const g = this.members[l];
    const pairs = this.pairs[l];
    const rest = this.rest[l];
    const inv = this.invMass[l];
    for (let c = 0; c < rest.length; c++) {
      const ja = pairs[2 * c];
      const jb = pairs[2 * c + 1];
      const wa = inv[ja];
      const wb = inv[jb];
      const ws = wa + wb;
      if (ws === 0) continue;
      const a = 3 * g[ja];
      const b = 3 * g[jb];
      const dx = p[a] - p[b];
      const dy = p[a + 1] - p[b + 1];
      const dz = p[a + 2] - p[b + 2];
      const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
      const C = d - rest[c];
      if (!(C > 0)) continue; // unilateral: only stretch is resisted (HPBD §4.2)
      const s = C / (ws * d);
      movePair(p, a, b, -(wa * s), -(wb * s), dx, dy, dz);
    }
  }

  /** HPBD §4.3: Δp_i = Σ_j w_ij Δp_j for the finer particles not on level l, Δp_j the level's change since the descent. */
  private prolongate(l: number, p: Float64Array, w: Float64Array): void {
    const g = this.members[l];
    const kept = this.kept[l];
    const kids = this.children[l];
    const start = this.parentStart[l];
    const par = this.parent[l];
    const wt = this.weight[l];
    for (let c = 0; c < kids.length; c++) {
      const i = kids[c];
      if (w[i] === 0) continue;
      let dx = 0;
      let dy = 0;
      let dz = 0;
      for (let e = start[c]; e < start[c + 1]; e++) {
        const j = par[e];
        const a = 3 * g[j];
        const f = wt[e];
        dx += f * (p[a] - kept[3 * j]);
        dy += f * (p[a + 1] - kept[3 * j + 1]);
        dz += f * (p[a + 2] - kept[3 * j + 2]);
      }
      p[3 * i] += dx;
      p[3 * i + 1] += dy;
      p[3 * i + 2] += dz;
    }
  }
}

/** Edges in body-local indices, dropping any outside the body. */
function edgesLocal(edges: ArrayLike<number>, offset: number, n: number): Int32Array {
  const out: number[] = [];
  for (let e = 0; e + 1 < edges.length; e += 2) {
    const a = edges[e] - offset;
    const b = edges[e + 1] - offset;
    if (a >= 0 && a < n && b >= 0 && b < n && a !== b) out.push(a, b);
  }
  return Int32Array.from(out);
}

/** The neighbour lists (CSR, each sorted) of a graph of n nodes given as pairs. */
function adjacency(n: number, pairs: ArrayLike<number>): { start: Int32Array; list: Int32Array } {
  const deg = new Int32Array(n + 1);
  for (let e = 0; e < pairs.length; e++) deg[pairs[e] + 1]++;
  for (let i = 0; i < n; i++) deg[i + 1] += deg[i];
  const start = deg.slice();
  const fill = deg.slice(0, n);
  const list = new Int32Array(pairs.length);
  for (let e = 0; e + 1 < pairs.length; e += 2) {
    const a = pairs[e];
    const b = pairs[e + 1];
    list[fill[a]++] = b;
    list[fill[b]++] = a;
  }
  for (let i = 0; i < n; i++) list.subarray(start[i], start[i + 1]).sort();
  return { start, list };
}
