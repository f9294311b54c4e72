import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import type { ParticleStore } from '../core/particles.js';
import type { SystemKind, World } from '../core/world.js';
import type { WorldCollider } from '../core/world-collider.js';
import { grownArray } from '../math/arrays.js';
import { ColliderContactArrays } from './collider-contact-arrays.generated.js';
import { buildChunkBoxes, ensureChunkBoxes } from './collider-contact-chunks.js';
import { generateColliderContacts, generateSphereContacts } from './collider-contact-loops.generated.js';
import type { SphereLike } from './collider-contact-targets.js';
import {
  ContactBlocks,
  OPENING,
  PROJECT,
  plainVelocities,
  projectPlainContacts,
  VELOCITIES,
  writePoses,
} from './collider-contacts-blocks.js';
import { isPoolPlane, PlaneContactsPool } from './collider-contacts-planes.js';
import { depenetrateBodies } from './collider-depenetration.js';
import { projectCoupledContact, reflectCoupledContact } from './rigid-coupling.js';

/** Particles per culling chunk in ColliderContacts.beginStep (a power of two). */
const CHUNK = 16;
/** Culling keeps chunks this close (m) beyond their reach, against rounding. */
const CULL_SLACK = 1e-7;
/**
 * When a substep's culling rejected fewer than 1/CULL_WORTH of the chunk tests, the next CULL_PAUSE
 * substeps generate without chunk boxes (culling never changes the contacts, only their cost).
 */
const CULL_WORTH = 8;
const CULL_PAUSE = 15;

/**
 * Collision constraints between particles and static or kinematic colliders
 * (003 §3.4), rebuilt every substep from the rays x_i → p_i:
 *
 * - continuous: when the ray enters the collider (grown by the margin and the
 *   particle radius) the entry point q_c and the surface normal n_c there give
 *   the inequality C(p) = (p − q_c) · n_c ≥ 0;
 * - static fallback: when x_i already lies inside, the closest surface point
 *   q_s and its normal n_s give C(p) = (p − q_s) · n_s ≥ 0. A particle found
 *   deeper inside than it can leave at `maxDepenetrationSpeed` (beyond the
 *   surface's own motion along n) in one substep — one that starts inside,
 *   or that a teleported collider swallowed — is first moved out to that
 *   depth, x and p together (a correction of position, not of velocity), and
 *   in the velocity pass keeps no outward normal velocity from the push: it
 *   is put on the surface once and rests there, instead of being thrown out
 *   at up to the speed limit;
 * - particles whose prediction ends within reach of the surface get the same
 *   plane constraint from their closest point, so that the solver cannot push
 *   them in during the iterations. The reach is twice what the particle's own
 *   motion and contact distance cover, 2 (r + |p − x|): a particle resting
 *   against a surface under load (pressed by its body's constraints, which
 *   can move it further than its prediction) keeps its contact even when its
 *   prediction moves it away, or the collider away from it by a rounding
 *   error — without it, the constraints push it into the collider in that
 *   substep and the velocity update launches it.
 *
 * Projection (stiffness 1, unilateral) moves only the particle. Friction acts
 * at position level in the same projection (as in Macklin et al. 2014,
 * "Unified particle physics", §6.1), against a material anchor: the point of
 * the collider's surface (kept in the collider's frame, so it moves with a
 * kinematic collider) where the particle was when the contact was made. The
 * anchor is kept while the contact persists from substep to substep (also
 * through substeps in which the particle is unloaded, within reach) and
 * moved only when the contact slides. Static friction pulls the particle
 * back onto it entirely while the tangential correction that sticking has
 * needed since the anchor was set (this one included) stays within μ_s
 * times the normal correction applied over the same substeps — Coulomb's
 * cone on the impulses since the contact was made, not on one substep's:
 * a box put down on a slope rocks while it settles (the solver's
 * compliance), and in the substeps where the rocking unloads a contact a
 * per-substep test lets it slip (0.7–2.9 mm at 1.5° below the friction
 * angle) although over the settling the contact never needs more than μ_s
 * of its load. That bank may absorb only the tangential drift the solver's
 * own corrections bring (its noise at one iteration, what the bank exists
 * for), not the particle's own incoming motion: the tangential motion of its
 * prediction over the substep relative to the surface, |(p − x − h v_c)_t|
 * (`incoming`: a push, or gravity along a slope), must also stay within μ_s
 * times this substep's normal correction, Coulomb's law on the substep's
 * impulses (Müller et al. 2020 §3.5, λ_t ≤ μ_s λ_n). Without it a body that
 * had rested 0.2 s could cancel up to μ_s g · 0.2 s of speed in one substep
 * and did not move under a push below 0.39 m/s (μ_s = 0.2), where Coulomb
 * says it slides v0² / (2 μ g). Otherwise the particle slides: the
 * tangential correction is μ times the normal one (kinetic friction) and
 * the anchor is moved to where the particle ends, with the sums restarted.
 * In the velocity pass
 * (Algorithm 1 line 16) the normal velocity is reflected by the
 * restitution coefficient e.
 *
 * A collider that follows a rigid body (`WorldCollider.rigid`, see
 * rigid/coupling.ts) is not a given boundary: its contacts keep their point
 * and normal in the body's frame and push back on the body with its
 * generalized inverse mass at the contact point (two-way coupling, 003 §4.2;
 * rigid-coupling.ts, whose friction works on the relative displacement over
 * the substep, without an anchor).
 *
 * Generation (the tests above, the contact and its anchor) is one loop
 * written once in scripts/kernels/emit-collider-contacts.ts and printed per
 * collider shape into collider-contact-loops.generated.ts (`npm run
 * kernels`): any collider through its queries, a sphere and a plane (on the
 * worker pool) with their queries written out.
 */
export class ColliderContacts extends ColliderContactArrays implements ConstraintSet {
  readonly kind = 'collider-contact';
  readonly violationUnit = 'm';
  readonly order = 100;
  /** Projected also between the halves of a symmetric sweep (ConstraintSet.midSweep; see the class comment). */
  readonly midSweep = true;
  enabled = true;
  // (the per-contact arrays, count, capacity and grow are ColliderContactArrays's, printed from a table in
  // scripts/kernels/emit-layouts.ts)
  /**
   * The largest speed (m/s), relative to the collider's surface, at which the
   * static fallback pushes a particle out; a deeper penetration is moved out
   * without velocity (see the class comment). Shallow penetrations left by
   * the solver stay below it (the shipped scenes: at most 7.3 m/s). Infinity
   * switches the depenetration off (the plain static fallback). Default 10.
   */
  maxDepenetrationSpeed = 10;
  /** Particles found deep inside (see depenetrateBodies): particle, collider, excess, normal (6 each). */
  private deepList = new Float64Array(0);
  private deepCount = 0;
  /**
   * Per particle of the store: the index of its contact of this substep (its
   * last one, when it touches several colliders), or −1. Sets that project
   * after the contacts read it to keep their corrections out of the colliders.
   */
  contactOf = new Int32Array(0);
  /**
   * Per particle of the store, the friction anchor (see the class comment): the collider it belongs
   * to plus one (0: none), the substep it was last in contact with it, the anchor in the collider's
   * frame, and the normal (m) and tangential (m, world, 3 per particle) corrections of sticking since
   * it was set.
   */
  anchorOf = new Int32Array(0);
  anchorSeen = new Int32Array(0);
  anchorLocal = new Float64Array(0);
  stickN = new Float64Array(0);
  stickT = new Float64Array(0);
  /** Substeps begun (anchors of particles not in contact in the previous one are dropped). */
  substep = 0;
  /**
   * Memory (s) of the sums of sticking: they decay by exp(−h / stickMemory) per substep, so that
   * what a contact held long ago does not keep it stuck when its load changes (a box on a slope
   * that tilts at 2°/s starts to slide at the same angle as with the per-substep test). Default 0.2.
   */
  stickMemory = 0.2;
  stickDecay = 1;
  /** Per collider: its kinetic and static friction, copied at the start of each projection. */
  /** The colliders' friction coefficients and poses (collider-contacts-blocks.ts POSE_STRIDE each). */
  private poses: Float64Array = new Float64Array(0);
  /** The projection on the worker pool (threads > 1). */
  private poolBlocks: ContactBlocks | null = null;
  /** Bumped whenever the list is emptied (each generation): the pool's plan follows it. */
  private generation = 0;
  readonly rot = new Float64Array(3);
  /** Bodies whose particles ignore colliders: disabledBody[body id] = 1 (null: none). */
  disabledBody: Uint8Array | null = null;
  colliders: readonly WorldCollider[] = [];
  /** Normal (0 … 2) and distance or ray fraction (3) of the last collider query. */
  readonly nrm = new Float64Array(4);
  /** The point where a ray entered a collider. */
  readonly hit = new Float64Array(3);
  /** Per chunk of CHUNK consecutive particles: the box of their x and p, and max(radius + |p − x|). */
  chunkBox = new Float64Array(0);
  chunkReach = new Float64Array(0);
  /** Chunk tests made and chunks culled in this substep's generation. */
  cullTested = 0;
  cullCulled = 0;
  /**
   * Substeps left to generate without chunk boxes: building them reads every particle's x and p,
   * which pays only where whole chunks lie far from the colliders (hair on a head: nearly every chunk
   * holds a strand's root, so nearly none is culled, and the boxes were 8 % of hair-10k's step).
   */
  private cullPause = 0;
  /** The plane colliders' contacts on the worker pool (a threaded world), made on first use. */
  planePool: PlaneContactsPool | null = null;

  constructor() {
    super();
    this.grow(256);
  }

  beginStep(ctx: StepContext): void {
    this.startSubstep(ctx);
    this.generate(ctx, true);
    this.finishGeneration(ctx);
  }

  /** The substep's bookkeeping before generating (also the fused strand pass's, src/strands/fused-pass.ts). */
  startSubstep(ctx: StepContext): void {
    this.deepCount = 0;
    this.substep++;
    this.growAnchors(ctx.store.capacity);
    const memory = this.stickMemory;
    this.stickDecay = memory > 0 ? Math.exp(-ctx.h / memory) : 0;
  }

  /** After a recording generation: particles found deep inside move out, and the contacts are made anew. */
  finishGeneration(ctx: StepContext): void {
    if (this.deepCount === 0) return;
    // particles deep inside: their bodies move out rigidly, then the contacts are generated anew (the
    // particles still too deep, of no body or of a pinned one, each move out on their own)
    depenetrateBodies(ctx.store, this.colliders, this.deepList, this.deepCount, ctx.gravity);
    this.generate(ctx, false);
  }

  /** Empties the list (contactOf of its particles back to −1). */
  clear(ctx: StepContext): void {
    this.generation++;
    const of = this.contactOf;
    for (let k = 0; k < this.count; k++) of[this.particle[k]] = -1;
    if (of.length < ctx.store.count) this.contactOf = new Int32Array(ctx.store.capacity).fill(-1);
    this.count = 0;
  }

  /**
   * The contacts of the substep. With `record`, particles deeper inside than
   * they may leave in the substep are recorded in deepList (no contact);
   * without, each is moved out on its own (x and p together) to that depth.
   */
  private generate(ctx: StepContext, record: boolean): void {
    this.clear(ctx);
    const cols = this.colliders;
    const s = ctx.store;
    const np = s.count;
    const chunked = cols.length > 0 && this.cullPause === 0;
    // the first plane of a run (collider-contacts-planes.ts) fills the chunk boxes block by block; else
    // here, before the first collider that needs them
    let boxes = !chunked || !record;
    if (chunked && boxes) buildChunkBoxes(this, s, CHUNK);
    else if (chunked) ensureChunkBoxes(this, np, CHUNK);
    else if (this.cullPause > 0) this.cullPause--;
    this.cullTested = 0;
    this.cullCulled = 0;
    // a run of consecutive pool planes in two jobs (without threads, their blocks here); where it cannot
    // (a particle deep inside), plane by plane
    let single = false;
    for (let c = 0; c < cols.length; c++) {
      const col = cols[c];
      if (!col.enabled) continue;
      if (isPoolPlane(col) && record) {
        const pool = (this.planePool ??= new PlaneContactsPool());
        const n = pool.collectRun(cols, c, single);
        const done = pool.generate(this, ctx, cols, n, chunked, CHUNK, CULL_SLACK, !boxes);
        if (pool.boxesBuilt) boxes = true;
        if (done) {
          c = pool.runEnd(n);
          continue;
        }
        if (n > 1) {
          single = true;
          c--;
          continue;
        }
      }
      if (!boxes) {
        buildChunkBoxes(this, s, CHUNK);
        boxes = true;
      }
      if (col.type === 'sphere' && (col.rigid ?? -1) < 0) {
        // the common case in one flat pass, the same numbers (collider-contacts-sphere.ts)
        generateSphereContacts(this, ctx, col as SphereLike, c, record, chunked, CHUNK, CULL_SLACK);
        continue;
      }
      // any other collider through its queries (one definition of the loop for every shape:
      // scripts/kernels/emit-collider-contacts.ts)
      generateColliderContacts(this, ctx, col, c, record, chunked, CHUNK, CULL_SLACK);
    }
    const tested = this.cullTested,
      culled = this.cullCulled;
    if (chunked && CULL_WORTH * culled < tested) this.cullPause = CULL_PAUSE;
  }

  /** Per-particle anchor arrays for n particles (kept contents). */
  private growAnchors(n: number): void {
    if (this.anchorOf.length >= n) return;
    this.anchorOf = grownArray(this.anchorOf, n);
    this.anchorSeen = grownArray(this.anchorSeen, n);
    this.anchorLocal = grownArray(this.anchorLocal, 3 * n);
    this.stickN = grownArray(this.stickN, n);
    this.stickT = grownArray(this.stickT, 3 * n);
  }

  recordDeep(i: number, c: number, excess: number): void {
    if (6 * this.deepCount + 6 > this.deepList.length) {
      this.deepList = grownArray(this.deepList, Math.max(96, 2 * this.deepList.length));
    }
    const o = 6 * this.deepCount++,
      d = this.deepList,
      nrm = this.nrm;
    d[o] = i;
    d[o + 1] = c;
    d[o + 2] = excess;
    d[o + 3] = nrm[0];
    d[o + 4] = nrm[1];
    d[o + 5] = nrm[2];
  }

  project(ctx: StepContext): void {
    // on the pool in fixed blocks of particles where it can (collider-contacts-blocks.ts): the same bits
    const tasks = ctx.tasks ?? null;
    if (tasks !== null) {
      this.poolBlocks ??= new ContactBlocks();
      const pass = ctx.reverse ? OPENING : PROJECT;
      if (this.poolBlocks.run(tasks, this, this.count, this.generation, ctx.store, this.colliders, pass))
        return;
    }
    this.readFrictions();
    this.projectRange(ctx.store.p, 0, this.count, ctx, ctx.reverse);
  }

  /** The colliders' friction coefficients and poses into `poses`, once per projection. */
  readFrictions(): void {
    this.poses = writePoses(this.colliders, this.poses);
  }

  /**
   * Projects contacts [k0, k1) (after project() or the fused strand pass read the frictions in);
   * `opening`: the projection that opens a symmetric sweep's backward half (projectPlainContacts).
   */
  projectRange(p: Float64Array, k0: number, k1: number, ctx: StepContext, opening = false): void {
    const rigid = this.rigid;
    for (let k = k0; k < k1; ) {
      if (rigid[k] >= 0) {
        // a contact coupled with a rigid body is projected once, after the sweep: in the opening projection
        // its push moves the body, which the backward half cannot answer (its sets hold no rigid body), and
        // the hammock's box rocked and rolled off its strip (docs/collision.md, session 13)
        if (!opening) projectCoupledContact(this, k, ctx);
        k++;
        continue;
      }
      // the run of contacts on colliders that follow no rigid body, in list order
      let e = k + 1;
      while (e < k1 && rigid[e] < 0) e++;
      projectPlainContacts(this, p, this.poses, this.rot, k, e, opening);
      k = e;
    }
  }

  endStep(ctx: StepContext): void {
    // on the pool by the projection's blocks where it can (collider-contacts-blocks.ts): the same bits
    const tasks = ctx.tasks ?? null;
    const s = ctx.store;
    const blocks = tasks !== null ? this.poolBlocks : null;
    const rest = restThresholdOf(ctx);
    if (blocks?.run(tasks, this, this.count, this.generation, s, this.colliders, VELOCITIES, rest)) return;
    this.endStepRange(ctx, 0, this.count);
  }

  /** The velocity pass of contacts [k0, k1) (endStep; the fused strand pass calls it per block). */
  endStepRange(ctx: StepContext, k0: number, k1: number): void {
    const restThreshold = restThresholdOf(ctx);
    const rigid = this.rigid;
    this.poses = writePoses(this.colliders, this.poses);
    for (let k = k0; k < k1; ) {
      if (rigid[k] < 0) {
        // the run of contacts on colliders that follow no rigid body, in list order
        let e = k + 1;
        while (e < k1 && rigid[e] < 0) e++;
        plainVelocities(this, ctx.store.v, this.poses, k, e, restThreshold);
        k = e;
        continue;
      }
      // a contact coupled with a rigid body (rigid-coupling.ts), with the tests of plainVelocities
      const deep = this.deep[k] !== 0;
      const vn0 = this.vn0[k];
      const skip = (this.lambdaN[k] <= 0 && !deep) || (!(vn0 < 0) && !deep);
      if (!skip) {
        const e = -vn0 > restThreshold && !deep ? this.colliders[this.collider[k]].restitution : 0;
        reflectCoupledContact(this, k, ctx, e);
      }
      k++;
    }
  }

  /** The friction anchors (a checkpoint carries them: a resumed run continues exactly). */
  saveState(): ColliderAnchorState {
    const ids: number[] = [];
    for (let i = 0; i < this.anchorOf.length; i++) if (this.anchorOf[i] !== 0) ids.push(i);
    const pick = (a: ArrayLike<number>, k: number) =>
      ids.flatMap((i) => Array.from({ length: k }, (_, j) => a[k * i + j]));
    return {
      substep: this.substep,
      particles: ids,
      collider: pick(this.anchorOf, 1),
      seen: pick(this.anchorSeen, 1),
      local: pick(this.anchorLocal, 3),
      stickN: pick(this.stickN, 1),
      stickT: pick(this.stickT, 3),
    };
  }

  loadState(state: unknown): void {
    const s = state as ColliderAnchorState;
    this.anchorOf.fill(0);
    this.substep = s.substep;
    const ids = s.particles;
    if (ids.length > 0) this.growAnchors(Math.max(...ids) + 1);
    for (let k = 0; k < ids.length; k++) {
      const i = ids[k];
      this.anchorOf[i] = s.collider[k];
      this.anchorSeen[i] = s.seen[k];
      this.stickN[i] = s.stickN[k];
      for (let j = 0; j < 3; j++) {
        this.anchorLocal[3 * i + j] = s.local[3 * k + j];
        this.stickT[3 * i + j] = s.stickT[3 * k + j];
      }
    }
  }

  maxViolation(store: ParticleStore): number {
    const x = store.x;
    let m = 0;
    for (let k = 0; k < this.count; k++) {
      const i3 = 3 * this.particle[k];
      const C =
        (x[i3] - this.q[3 * k]) * this.n[3 * k] +
        (x[i3 + 1] - this.q[3 * k + 1]) * this.n[3 * k + 1] +
        (x[i3 + 2] - this.q[3 * k + 2]) * this.n[3 * k + 2];
      if (C < -m) m = -C;
    }
    return m;
  }
}

/** What a checkpoint holds of the collider contacts: the friction anchors of the particles that have one. */
export interface ColliderAnchorState {
  substep: number;
  particles: number[];
  collider: number[];
  seen: number[];
  local: number[];
  stickN: number[];
  stickT: number[];
}

/**
 * The world's collider contacts: a system of the world, installed when the
 * first collider is added (WorldCollider.addedTo) or a body's collider contacts
 * are switched (CollisionSystem.setColliders). Its set runs first among the
 * contact sets (order 100).
 */
export const colliderContactSystem: SystemKind<ColliderContacts> = {
  name: 'collider contacts',
  install(world) {
    const c = new ColliderContacts();
    c.colliders = world.colliders;
    world.addConstraintSet(c, { system: true });
    return c;
  },
};

/** The collider contacts of a world, installed on first use. */
export function colliderContactsOf(world: World): ColliderContacts {
  return world.system(colliderContactSystem);
}

/** The collider contacts of a world, or null while it has none (no collider was ever added). */
export function findColliderContacts(world: World): ColliderContacts | null {
  return world.findSystem(colliderContactSystem);
}

/** Arrivals slower than this (m/s) rest instead of bouncing: twice what gravity adds in a substep. */
function restThresholdOf(ctx: StepContext): number {
  const g = ctx.gravity;
  return 2 * Math.sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]) * ctx.h;
}
