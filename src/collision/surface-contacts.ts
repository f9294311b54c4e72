import type { Body } from '../core/body.js';
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import type { ParticleStore } from '../core/particles.js';
import { clock } from '../core/timings.js';
import { SurfaceBroadPhase } from './surface-broad-phase.js';
import { CollapseRecovery } from './surface-collapse.js';
import { SurfaceContactList } from './surface-contact-list.js';
import { EdgeEdgeContacts } from './surface-edge-edge.js';
import { SurfaceFailsafe } from './surface-failsafe.js';
import { SurfaceNarrowScan } from './surface-narrow-tasks.js';
import { applyRestitution, maxPenetration, projectContacts } from './surface-response.js';
import {
  type Surface,
  type SurfaceContactStats,
  type SurfaceOptions,
  SurfaceTopology,
} from './surface-topology.js';
import { VertexTriangleContacts } from './surface-vertex-triangle.js';
import { Untangler } from './untangle.js';

export type { Surface, SurfaceContactStats, SurfaceOptions } from './surface-topology.js';

/**
 * Contacts between triangle surfaces of deformable bodies: cloth self
 * collision (003 §4.3) and collision between two dynamic bodies (003 §3.4,
 * last paragraph), with thickness, position-level friction, restitution and
 * a fail-safe.
 *
 * Constraints (all unilateral, stiffness 1, generated every substep):
 * vertex–triangle (eqs. 12/13, surface-vertex-triangle.ts) and edge–edge
 * (surface-edge-edge.ts), C = s d − h ≥ 0 with d the signed distance of
 * the pair along its normal and s = ±1 the side it came from; each
 * projection moves the four points along the normal and conserves linear
 * and angular momentum, then applies position-level friction
 * (surface-response.ts).
 *
 * The parts, each in its own file, around one shared state:
 * - surface-topology.ts: the registered surfaces and the one combined mesh
 *   (vertices, triangles, edges, adjacency) all parts read;
 * - surface-broad-phase.ts, surface-snapshots.ts: candidate pairs that stay
 *   valid while no vertex strays more than its allowance δ from its
 *   snapshot (in a frame that follows the best rigid motion of all surface
 *   vertices), renewed in full or for the strays only; each candidate keeps
 *   a lower bound of its distance, so far pairs cost a comparison;
 * - surface-vertex-triangle.ts, surface-edge-edge.ts: every substep the
 *   near candidates are tested for proximity (distance < h + margin at the
 *   prediction) and, when they can touch at all, continuously for a
 *   crossing during x → p (the cubic coplanarity test); the side s is the
 *   one before the first crossing, or the present one when nothing
 *   crossed; their projection kernels;
 * - surface-response.ts: the normal projection, friction and restitution;
 * - surface-failsafe.ts: after the last solver iteration every candidate is
 *   tested for a crossing during x → p once more; crossings get constraints
 *   and another pass, and the vertices still crossing move with rigid
 *   impact zones (Provot 1997, Bridson et al. 2002). So, from an untangled
 *   start, no crossing and hence no intersection is ever created — except
 *   by kinematic vertices, which nothing can stop;
 * - untangle.ts: tangled input is resolved by the Untangler.
 */
export class SurfaceContacts implements ConstraintSet {
  readonly kind = 'surface-contact';
  readonly violationUnit = 'm';
  readonly order = 110;
  enabled = true;
  /** Run the fail-safe crossing check after the solver. Default true. */
  failsafe = true;
  /**
   * Contacts are generated every this many substeps, from the motion
   * extrapolated over them, and projected in every substep; the fail-safe
   * then checks the straight path from the positions at the start of those
   * substeps to their end, so the state at the end of each period (and of
   * each step, when the period divides the substeps) is intersection-free.
   * 1 (default): every substep. Larger values trade response detail for speed.
   */
  detectEvery = 1;
  /** Detect and resolve existing intersections (see Untangler). Default true. */
  untangle = true;
  /** Run the untangling analysis every this many steps. Default 4. */
  untangleEvery = 4;
  readonly stats: SurfaceContactStats = {
    vertexTriangleCandidates: 0,
    edgeEdgeCandidates: 0,
    contacts: 0,
    rebuilds: 0,
    partialUpdates: 0,
    failsafeCrossings: 0,
    frozen: 0,
    intersections: 0,
    restored: 0,
    capped: 0,
    overBudget: 0,
  };
  /** The registered surfaces and their combined mesh. */
  readonly topology = new SurfaceTopology();
  readonly broadPhase = new SurfaceBroadPhase(this.topology, this.stats);
  readonly untangler = new Untangler(this.topology);
  /** The constraints of the current substep. */
  readonly list = new SurfaceContactList(this.topology.surfaces);
  private readonly vertexTriangles = new VertexTriangleContacts(
    this.topology,
    this.broadPhase,
    this.untangler,
    this.list,
  );
  private readonly edgeEdges = new EdgeEdgeContacts(
    this.topology,
    this.broadPhase,
    this.untangler,
    this.list,
  );
  /** The detection scans of the narrow phase (on the pool in a threaded world). */
  readonly narrowScan = new SurfaceNarrowScan(this.topology, this.broadPhase, this.untangler);
  private readonly failsafeCheck = new SurfaceFailsafe(
    this.topology,
    this.broadPhase,
    this.vertexTriangles,
    this.edgeEdges,
    this.list,
    this.stats,
    this.narrowScan,
  );
  private readonly collapse = new CollapseRecovery(this.topology);
  /** Positions at the start of the detection period (surface vertices, global layout) and the extrapolated end. */
  private start = new Float64Array(0);
  private ahead = new Float64Array(0);
  /** True in the last substep of a detection period. */
  private macroEnd = true;
  private stepIndex = 0;

  /** Contacts of the current substep. */
  get count(): number {
    return this.list.count;
  }
  get surfaces(): Surface[] {
    return this.topology.surfaces;
  }
  /** Extra distance (m) within which proximity contacts are generated, as a fraction of h. Default 0.5. */
  get marginFactor(): number {
    return this.topology.marginFactor;
  }
  set marginFactor(m: number) {
    this.topology.marginFactor = m;
  }

  /** Registers a body's surface (its contact triangles, over its particles). */
  addSurface(body: Body, o: SurfaceOptions = {}): Surface {
    return this.topology.addSurface(body, o);
  }

  surfaceOf(body: Body): Surface | undefined {
    return this.topology.surfaceOf(body);
  }

  /** Switches contact between two registered bodies (or a body's self collision when a === b). */
  setPair(a: Body, b: Body, enabled: boolean): void {
    this.topology.setPair(a, b, enabled);
  }

  /** Marks the topology for rebuilding (after a change of settings). */
  invalidate(): void {
    this.topology.invalidate();
  }

  /** Are contacts between surfaces a and b (indices into `surfaces`) switched on? */
  pairActive(a: number, b: number): boolean {
    return this.topology.pairActive(a, b);
  }

  beginStep(ctx: StepContext): void {
    const store = ctx.store;
    const topo = this.topology;
    if (topo.refresh(store)) {
      this.broadPhase.resize();
      this.failsafeCheck.resize();
      this.untangler.reset();
    }
    topo.refreshReach();
    if (topo.vertexCount === 0) {
      this.list.count = 0;
      return;
    }
    // a collapsed patch (degenerate input) goes back to its rest shape before anything tests it
    if (ctx.substep === 0) this.stats.restored += this.collapse.restore(store);
    const k = this.detectEvery;
    if (k > 1 && ctx.substep % k !== 0) {
      // inside a detection period: the contacts found at its start are projected again
      this.macroEnd = (ctx.substep + 1) % k === 0 || ctx.substep === ctx.substeps - 1;
      return;
    }
    this.list.count = 0;
    this.macroEnd = k === 1 || ctx.substep === ctx.substeps - 1;
    const x = store.x;
    // the end of the motion to test: this substep's prediction, or over k substeps extrapolated
    const p = k === 1 ? store.p : this.predictPeriod(ctx, k);
    if (k > 1) {
      if (this.start.length !== store.x.length) this.start = new Float64Array(store.x.length);
      const vert = topo.vertex,
        start = this.start;
      for (let i = 0; i < topo.vertexCount; i++) {
        const g = 3 * vert[i];
        start[g] = x[g];
        start[g + 1] = x[g + 1];
        start[g + 2] = x[g + 2];
      }
    }
    if (ctx.substep === 0) {
      if (this.untangle && this.stepIndex % this.untangleEvery === 0) {
        const capped = this.untangler.capped;
        this.stats.intersections = this.untangler.analyse(store, ctx.tasks ?? null);
        this.stats.capped += this.untangler.capped - capped;
      } else if (!this.untangle) this.untangler.clear();
      this.stepIndex++;
    }
    const broad = this.broadPhase;
    const timings = ctx.timings;
    const t0 = clock();
    broad.classifyEdges(x, ctx.substep === 0);
    const tasks = ctx.tasks ?? null;
    const lead = this.narrowScan.ahead(store, x, p, tasks);
    broad.update(store, x, p, 0.25 * broad.snapshots.minAllowance(), tasks, true, lead);
    const t1 = clock();
    // the detection scans (here, or in blocks on the pool), then their contacts in candidate order
    this.narrowScan.scan(store, x, p, ctx.tasks ?? null);
    this.vertexTriangles.addHits(store, x, this.narrowScan.vt);
    this.edgeEdges.addHits(store, x, this.narrowScan.ee);
    if (this.untangler.tangled) this.vertexTriangles.addUntanglingPairs();
    // the step's timings: candidate lists (broad phase) and the proximity and continuous tests (narrow phase)
    timings.add(timings.slot('collision.broad'), t1 - t0);
    timings.add(timings.slot('collision.narrow'), clock() - t1);
    this.broadTimings(ctx);
    this.stats.contacts = this.list.count;
  }

  /**
   * The broad phase's parts since the last call into the step's timings
   * (`collision.broad.check`, `.rebuild` — of it `.rebuildSetup`,
   * `.rebuildTraversal`, `.rebuildTests` — and `.update`): the updates
   * before the solve, which `collision.broad` holds, and those the fail-safe
   * runs after it, which `collision.failsafe` holds.
   */
  private broadTimings(ctx: StepContext): void {
    const ms = this.broadPhase.ms,
      timings = ctx.timings;
    timings.add(timings.slot('collision.broad.check'), ms.check);
    timings.add(timings.slot('collision.broad.rebuild'), ms.rebuild);
    timings.add(timings.slot('collision.broad.rebuildSetup'), ms.setup);
    timings.add(timings.slot('collision.broad.rebuildTraversal'), ms.traversal);
    timings.add(timings.slot('collision.broad.rebuildTests'), ms.tests);
    timings.add(timings.slot('collision.broad.update'), ms.update);
    ms.check = ms.rebuild = ms.setup = ms.traversal = ms.tests = ms.update = 0;
  }

  project(ctx: StepContext): void {
    const list = this.list;
    if (list.count > 0) projectContacts(ctx.store, list, 0, list.count);
    if (ctx.iteration === ctx.iterations - 1 && this.topology.vertexCount > 0 && this.macroEnd) {
      // from the start of the detection period (this substep, or k substeps ago) to p
      const start = this.detectEvery === 1 ? ctx.store.x : this.start;
      // the fail-safe scan also lowers the distance bounds by the motion of the period
      const t0 = clock();
      if (this.failsafe) this.failsafeCheck.verify(ctx.store, start, ctx.tasks ?? null);
      else this.broadPhase.decayBounds(start, ctx.store.p);
      ctx.timings.add(ctx.timings.slot('collision.failsafe'), clock() - t0);
      this.broadTimings(ctx);
    }
  }

  /** One Gauss–Seidel pass over contacts [k0, k1). */
  projectRange(store: ParticleStore, k0: number, k1: number): void {
    projectContacts(store, this.list, k0, k1);
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
      vert = this.topology.vertex,
      w = store.invMass;
    const g = ctx.gravity,
      c = 0.5 * ctx.h * ctx.h * k * (k - 1);
    for (let i = 0; i < this.topology.vertexCount; i++) {
      const gi = vert[i],
        g3 = 3 * gi;
      const free = w[gi] !== 0 ? c : 0;
      a[g3] = x[g3] + k * (p[g3] - x[g3]) + free * g[0];
      a[g3 + 1] = x[g3 + 1] + k * (p[g3 + 1] - x[g3 + 1]) + free * g[1];
      a[g3 + 2] = x[g3 + 2] + k * (p[g3 + 2] - x[g3 + 2]) + free * g[2];
    }
    return a;
  }

  endStep(ctx: StepContext): void {
    if (!this.topology.anyRestitution || this.list.count === 0 || !this.macroEnd) return;
    applyRestitution(ctx, this.list);
  }

  /** Largest penetration h − s·d (m) over the current contacts, at x. */
  maxViolation(store: ParticleStore): number {
    return maxPenetration(store, this.list);
  }

  /** Contact k for inspection and tests: type, particle indices, side, thickness. */
  contact(k: number): ReturnType<SurfaceContactList['contact']> {
    return this.list.contact(k);
  }
}
