/**
 * The fused strand pass: a substep of a hair-only world in two passes over
 * its strands instead of one pass per stage over all its particles.
 *
 * A world whose particles all belong to Follow-The-Leader strands, touched by
 * nothing but the strands' FTL / DFTL sets (survey 000 §3.5), the roots'
 * attachments (003 §3.6) and one sphere collider's contacts (003 §3.4), runs
 * each of its stages as a stream over every particle: the prediction, the
 * contacts' generation, their projection, the FTL pass, the velocity update,
 * the contacts' velocity pass and DFTL's correction each read and write the
 * 170,000 particles of hair-10k again (about 110 MB a step, docs/strands.md
 * "Speed"). Nothing in such a world couples one strand to another, so the
 * pass takes blocks of BLOCK strands in particle order and runs the stages on
 * one block while its particles are in the cache:
 *
 * 1. per block, the prediction p = x + h v with gravity, damping and the speed
 *    limit (003 Algorithm 1, lines 5–7: ParticlePredictionStage) and the
 *    sphere's contacts of the block's particles (generateSphereContacts, the
 *    continuous test along x → p, the static fallback, the friction anchor);
 *    then the sets' beginStep whole (the roots' attachments put their
 *    predicted positions on the targets; particles found deep inside move out
 *    as ColliderContacts.beginStep does);
 * 2. per iteration, the attachments' projection whole (soft ones: the drag),
 *    then per block the block's contacts (projection with friction, 003
 *    §3.4) and the FTL pass of its strands (000 §3.5: p_i ← p_{i−1} +
 *    l_i (p_i − p_{i−1})/|p_i − p_{i−1}|); in the last iteration the block
 *    goes on to the velocity update v = (p − x)/h, x = p (Algorithm 1, lines
 *    12–15), the contacts' velocity pass (restitution, line 16) and DFTL's
 *    correction v_i −= s_damping d_{i+1}/h (000 §3.5).
 *
 * Every step of a particle is the same kernel as in the stages, with the
 * same operations in the same order for that particle: a contact touches
 * only its own particle, FTL at i reads only i − 1 (already final) and i,
 * and the velocity passes read only the particle's own state. So the numbers
 * are the pipeline's bit for bit (test/strands-fused.test.ts), and the contact
 * list is the same list (particle order). The attachments' beginStep runs
 * after the block passes of step 1 instead of between the prediction and the
 * generation: it writes only the predicted positions of hard-attached
 * particles (inverse mass 0), which the generation skips, and the prediction
 * wrote them before it either way.
 *
 * The one pass runs its blocks' prediction, sphere contacts, FTL, velocity update and DFTL term as
 * WebAssembly kernels (wasm/strands.ts, the same operations in the same order: the same numbers)
 * over the store's and the contact list's arrays moved into kernel memory (strand-kernel.ts),
 * wherever the module is there (docs/strands.md, session 14); in a threaded world that memory is
 * shared and the blocks run on the worker pool (strand-threads.ts, session 15), with the same numbers.
 *
 * The plan is checked each substep (no flag to set): implicit Euler, no orientations, no rigid bodies, the core's stages only, every
 * enabled set the attachments, the collider contacts or an FTL set, the FTL
 * sets covering every particle, and at most one enabled collider, a sphere
 * that follows no rigid body. Otherwise the pipeline runs the substep.
 */
import { type ColliderContacts, findColliderContacts } from '../collision/collider-contacts.js';
import { generateSphereContacts, type SphereLike } from '../collision/collider-contacts-sphere.js';
import type { StepContext } from '../core/constraint-set.js';
import type { Motion } from '../core/motion.js';
import type { ParticleStore } from '../core/particles.js';
import type { Scheduler, Stage, SubstepPass } from '../core/pipeline.js';
import { ParticlePredictionStage, ParticleVelocityStage } from '../core/stages.js';
import { clock } from '../core/timings.js';
import { CORE_STAGES } from '../core/window-passes.js';
import type { SystemKind, World } from '../core/world.js';
import { dftlStrands, FollowTheLeader, ftlStrands } from './follow-the-leader.js';
import { A_COLLIDER, A_SUBSTEP, StrandKernel } from './strand-kernel.js';
import { rootTargets, StrandPool } from './strand-threads.js';

/** Strands per block: a block's particles (about 16 × 17 here) stay in the L1/L2 cache between stages. */
const BLOCK = 16;
/**
 * Strands per block of the WebAssembly pass (runKernels): fewer calls across the boundary (six
 * kernels and the roots' targets a block). Measured on hair-10k in one process against 16
 * (session 14, docs/strands.md): 32 0.94, 64 0.91, 128 0.86, 256 0.84, 512 0.83, 2048 0.92 of
 * main's CPU per step, the same bits (the blocks' strands are independent: a particle's numbers
 * do not depend on where a block starts; the list stays in particle order).
 */
const KERNEL_BLOCK = 256;
/** Culling constants of ColliderContacts (unused: the fused pass generates without chunk boxes). */
const CHUNK = 16;
const CULL_SLACK = 1e-7;

export class FusedStrandPass implements SubstepPass {
  /** False runs every substep through the pipeline (A/B comparisons, tests). */
  enabled = true;
  /** Substeps this pass ran (statistics, tests), and of those the ones run as one pass over the blocks. */
  ran = 0;
  ranOnePass = 0;
  /** Blocks whose contacts the WebAssembly kernels made, and particles they handed back to generateSphereContacts. */
  kernelContacts = 0;
  handedBack = 0;
  private readonly world: World;
  private readonly predict = new ParticlePredictionStage();
  private readonly update = new ParticleVelocityStage();
  /** The FTL sets of the plan, by first particle; refilled by plan(). */
  private ftl: FollowTheLeader[] = [];
  private slotOne = -1;
  private slotA = -1;
  private slotB = -1;
  private timingsOf: unknown = null;

  constructor(world: World) {
    this.world = world;
  }

  /** True when the world's substep can run fused (see the file's comment); fills `ftl`. */
  plan(_ctx: StepContext): boolean {
    const w = this.world;
    // a threaded world runs it too: the one-pass form's blocks on the pool (strand-threads.ts), the
    // JavaScript form on the calling thread (one fused pass costs about half the CPU of the stages,
    // less than the stages with FTL on the pool take on two cores; docs/strands.md)
    if (!this.enabled || w.history !== null) return false;
    if (w.store.orientedRanges.length > 0 || w.rigids.count > 0) return false;
    const stages = w.pipeline.stages;
    if (stages.length !== CORE_STAGES.length) return false;
    for (let k = 0; k < stages.length; k++) if (stages[k].name !== CORE_STAGES[k]) return false;
    const cc = findColliderContacts(w);
    const ftl = this.ftl;
    ftl.length = 0;
    const sets = w.sets;
    for (let k = 0; k < sets.length; k++) {
      const s = sets[k];
      if (!s.enabled) continue;
      if (s instanceof FollowTheLeader) ftl.push(s);
      else if (s !== w.attachments && s !== cc) return false;
    }
    if (ftl.length === 0) return false;
    if (w.attachments.orientationCount > 0) return false;
    // the strands cover the particles [0, count) in one run
    if (ftl.length > 1) ftl.sort((a, b) => a.start[0] - b.start[0]);
    let next = 0;
    for (let k = 0; k < ftl.length; k++) {
      const st = ftl[k].start;
      if (st[0] !== next) return false;
      next = st[st.length - 1];
    }
    if (next !== w.store.count) return false;
    let spheres = 0;
    const cols = w.colliders;
    for (let c = 0; c < cols.length; c++) {
      const col = cols[c];
      if (!col.enabled) continue;
      if (col.type !== 'sphere' || (col.rigid ?? -1) >= 0) return false;
      spheres++;
    }
    return spheres <= 1;
  }

  run(ctx: StepContext, scheduler: Scheduler): boolean {
    if (!this.plan(ctx)) return false;
    const w = this.world;
    const stages = w.pipeline.stages;
    const timings = ctx.timings;
    if (this.timingsOf !== timings) {
      this.timingsOf = timings;
      this.slotOne = timings.slot('strands.fused');
      this.slotA = timings.slot('strands.fused.predict+contacts');
      this.slotB = timings.slot('strands.fused.solve+update');
    }
    // colliders.move, the forces hooks, the orientation and rigid predictions (none here)
    for (let k = 0; k < 6; k++) if (k !== 3) this.stage(stages[k], ctx, scheduler);
    const store = ctx.store;
    const cc = findColliderContacts(w);
    const contacts = cc?.enabled ? cc : null;
    const ftl = this.ftl;
    let col: SphereLike | null = null;
    let c = -1;
    for (let j = 0; j < w.colliders.length; j++)
      if (w.colliders[j].enabled) {
        col = w.colliders[j] as SphereLike;
        c = j;
      }
    if (this.onePass(ctx, contacts, col)) {
      this.runOnePass(ctx, contacts, col, c);
      this.ranOnePass++;
      this.stage(stages[9], ctx, scheduler);
      this.stage(stages[10], ctx, scheduler);
      this.ran++;
      return true;
    }
    // 1. prediction and the sphere's contacts, block by block
    let t0 = clock();
    const uniform = this.uniformParticles(store);
    if (contacts) {
      contacts.startSubstep(ctx);
      contacts.clear(ctx);
      contacts.cullTested = contacts.cullCulled = 0;
    }
    for (let f = 0; f < ftl.length; f++) {
      const start = ftl[f].start;
      const ns = start.length - 1;
      for (let s0 = 0; s0 < ns; s0 += BLOCK) {
        const a = start[s0],
          b = start[Math.min(ns, s0 + BLOCK)];
        this.predict.runRange(ctx, a, b);
        if (contacts && col)
          generateSphereContacts(contacts, ctx, col, c, true, false, CHUNK, CULL_SLACK, a, b, uniform);
      }
    }
    // the sets' beginStep, in their order (the contacts' part that is left: particles deep inside)
    const sets = w.sets;
    for (let k = 0; k < sets.length; k++) {
      const s = sets[k];
      if (!s.enabled) continue;
      if (s === contacts) contacts.finishGeneration(ctx);
      else s.beginStep?.(ctx);
    }
    timings.add(this.slotA, clock() - t0);
    // 2. the iterations, the last one with the velocity passes, block by block
    t0 = clock();
    const att = w.attachments;
    const { p, x, v, invMass } = store;
    const iters = ctx.iterations;
    ctx.reverse = false;
    for (let it = 0; it < iters; it++) {
      ctx.iteration = it;
      const last = it === iters - 1;
      if (att.enabled) scheduler.project(att, ctx);
      contacts?.readFrictions();
      let k0 = 0;
      const part = contacts ? contacts.particle : null;
      const nc = contacts ? contacts.count : 0;
      for (let f = 0; f < ftl.length; f++) {
        const set = ftl[f];
        const { start, rest, correction } = set;
        const ns = start.length - 1;
        const first = set.fresh;
        const damp = set.damping * ctx.invH;
        for (let s0 = 0; s0 < ns; s0 += BLOCK) {
          const s1 = Math.min(ns, s0 + BLOCK);
          const a = start[s0],
            b = start[s1];
          let k1 = k0;
          if (part !== null) while (k1 < nc && part[k1] < b) k1++;
          if (contacts) contacts.projectRange(p, k0, k1, ctx);
          ftlStrands(p, x, invMass, start, rest, correction, set.maxStretch, first, s0, s1);
          if (last) {
            this.update.runRange(ctx, a, b);
            if (contacts) contacts.endStepRange(ctx, k0, k1);
            if (damp !== 0) dftlStrands(v, invMass, start, correction, damp, s0, s1);
          }
          k0 = k1;
        }
        set.fresh = false;
      }
    }
    // the orientation and rigid velocity updates (none here)
    this.stage(stages[9], ctx, scheduler);
    this.stage(stages[10], ctx, scheduler);
    timings.add(this.slotB, clock() - t0);
    this.ran++;
    return true;
  }

  /**
   * The targets of the hard-attached particles from held[h] on that lie before particle b onto p (a
   * block's, after its prediction); returns the first of `held` not put.
   */
  private putTargets(p: Float64Array, target: Float64Array, h: number, b: number): number {
    const held = this.held,
      entry = this.heldEntry,
      nh = this.heldCount;
    for (; h < nh && held[h] < b; h++) {
      const i3 = 3 * held[h],
        e3 = 3 * entry[h];
      p[i3] = target[e3];
      p[i3 + 1] = target[e3 + 1];
      p[i3 + 2] = target[e3 + 2];
    }
    return h;
  }

  /** Hard-attached particles in increasing order and their entries (one pass: their targets after the prediction). */
  private held = new Int32Array(64);
  private heldEntry = new Int32Array(64);
  private heldCount = 0;
  /**
   * The attachments' version (−1: off) `held` was built for, whether they allowed the one pass,
   * and a count of the builds (the pool's copy follows it: strand-threads.ts StrandPool.run).
   */
  private heldOf = -2;
  private heldOk = false;
  private heldVersion = 0;

  /**
   * Whether the substep can run as one pass over the blocks (everything of a block before the next):
   * one iteration, no soft attachment (its projection would come between the prediction and the
   * contacts of every block), and no particle that can lie deep inside the sphere. The deep case
   * (ColliderContacts.finishGeneration) moves bodies and regenerates every contact after all of them
   * were generated; it cannot happen when the depth allowed in a substep, maxDepenetrationSpeed · h,
   * is at least the sphere's radius plus the contact distance (margin + the largest particle radius):
   * no point lies deeper inside than the radius. Fills `held`.
   */
  private onePass(ctx: StepContext, contacts: ColliderContacts | null, col: SphereLike | null): boolean {
    if (ctx.iterations !== 1) return false;
    if (contacts && col) {
      const rmax = this.largestRadius(ctx.store);
      if (!(contacts.maxDepenetrationSpeed * ctx.h >= col.radius + col.margin + rmax)) return false;
    }
    const att = this.world.attachments;
    // built again only when the attachments changed (0.03 ms a step for hair-10k's 10,000 roots)
    const of = att.enabled ? att.version : -1;
    if (of === this.heldOf) return this.heldOk;
    this.heldOf = of;
    this.heldVersion++;
    this.heldOk = this.buildHeld();
    return this.heldOk;
  }

  /** onePass' list of the hard-attached particles: false where one is soft (compliance > 0). */
  private buildHeld(): boolean {
    const att = this.world.attachments;
    if (!att.enabled) {
      this.heldCount = 0;
      return true;
    }
    if (this.held.length < att.count) {
      this.held = new Int32Array(2 * att.count);
      this.heldEntry = new Int32Array(2 * att.count);
    }
    const held = this.held,
      entry = this.heldEntry;
    let n = 0,
      sorted = true;
    for (let e = 0; e < att.count; e++) {
      if (att.compliance[e] !== 0) return false;
      held[n] = att.particle[e];
      entry[n] = e;
      if (n > 0 && held[n] < held[n - 1]) sorted = false;
      n++;
    }
    if (!sorted) {
      // insertion sort by particle (the roots are attached in order: rarely needed)
      for (let j = 1; j < n; j++) {
        const pi = held[j],
          pe = entry[j];
        let k = j - 1;
        for (; k >= 0 && held[k] > pi; k--) {
          held[k + 1] = held[k];
          entry[k + 1] = entry[k];
        }
        held[k + 1] = pi;
        entry[k + 1] = pe;
      }
    }
    this.heldCount = n;
    return true;
  }

  /**
   * The store's largest particle radius, whether every particle has particle 0's radius, group and
   * mask (`uniform`), and what they were taken of (the radius array, count, version).
   */
  private rmax = 0;
  private uniform = false;
  private rmaxOf: Float64Array | null = null;
  private rmaxCount = -1;
  private rmaxVersion = -1;

  /**
   * The largest particle radius of the store, read again only when the store changed (its radius
   * array, count or version): a pass over every particle each substep was 2–6 % of hair-10k's step.
   * Bodies write their radii, groups and masks when they are made, which changes the count
   * (docs/strands.md "Speed"). The same pass finds whether all particles share one radius, group and
   * mask (`uniform`: a head of hair), so that the sphere's contacts need not read them per particle.
   */
  private largestRadius(store: ParticleStore): number {
    const { radius, group, mask } = store;
    if (radius !== this.rmaxOf || store.count !== this.rmaxCount || store.version !== this.rmaxVersion) {
      const n = store.count;
      let rmax = 0;
      for (let i = 0; i < n; i++) if (radius[i] > rmax) rmax = radius[i];
      let uniform = n > 0;
      const r0 = radius[0],
        g0 = group[0],
        m0 = mask[0];
      for (let i = 1; uniform && i < n; i++) uniform = radius[i] === r0 && group[i] === g0 && mask[i] === m0;
      this.rmax = rmax;
      this.uniform = uniform;
      this.rmaxOf = radius;
      this.rmaxCount = store.count;
      this.rmaxVersion = store.version;
    }
    return this.rmax;
  }

  /** Whether every particle has particle 0's radius, group and mask (see largestRadius). */
  private uniformParticles(store: ParticleStore): boolean {
    this.largestRadius(store);
    return this.uniform;
  }

  /**
   * One block's FTL corrections d_i (xyz from its first particle on): FTL writes them and DFTL's term
   * reads them in the same block, so the one pass keeps them here, in the cache, rather than in the
   * FTL set's array of 3 numbers per particle (a write of 24 bytes per particle a step).
   */
  private corr = new Float64Array(3 * 17 * BLOCK);

  /** The substep as one pass over the blocks (see onePass; the same per-particle order as the stages). */
  private runOnePass(
    ctx: StepContext,
    contacts: ColliderContacts | null,
    col: SphereLike | null,
    c: number,
  ): void {
    const t0 = clock();
    const w = this.world;
    const att = w.attachments;
    const ftl = this.ftl;
    const tasks = ctx.tasks;
    const pooled = ctx.store.shared && tasks !== undefined && tasks !== null && tasks.threads >= 2;
    // the sets' beginStep whole first: the targets of this substep (put on p, which the prediction
    // overwrites; each block puts its own back after predicting), the contacts' bookkeeping, FTL's.
    // Roots that all follow one motion get their targets from strand-threads.ts' rootTargets' operations
    // instead (beginStep's p writes are overwritten by the blocks anyway): on the pool each block
    // computes its own roots' in the kernel memory (session 18), on one thread here, before the blocks
    const rootMotion = att.enabled ? this.sharedRootMotion(ctx) : null;
    if (att.enabled && rootMotion === null) att.beginStep(ctx);
    else if (rootMotion !== null && !pooled) this.rootTargets(rootMotion);
    // the old list's contactOf back to −1: on the pool each block does it for its own particles
    // (strand-threads.ts; the strands cover [0, count), and the list holds none past it), so the
    // calling thread skips clear's loop (its count set to 0 first) and runs it below only if the pass
    // does not go to the pool
    let stale = 0;
    if (contacts) {
      contacts.startSubstep(ctx);
      const n = contacts.count;
      if (pooled && n > 0 && contacts.particle[n - 1] < ctx.store.count) {
        stale = n;
        contacts.count = 0;
      }
      contacts.clear(ctx);
      contacts.cullTested = contacts.cullCulled = 0;
      contacts.readFrictions();
    }
    for (let f = 0; f < ftl.length; f++) ftl[f].beginStep();
    ctx.iteration = 0;
    ctx.reverse = false;
    // the kernels over the store's and the list's arrays in kernel memory (strand-kernel.ts), before the
    // arrays are read; the list holds a contact per particle at most (one sphere), so it never grows in the pass
    if (contacts && contacts.capacity < ctx.store.count) contacts.grow(ctx.store.capacity);
    // a threaded world's shared store: the same kernels, the blocks on the pool (strand-threads.ts)
    const K = (
      pooled
        ? this.kernel.ready(ctx.store, ftl, contacts, this.blockScratch(), tasks.threads)
        : ctx.store.shared
          ? false
          : this.kernel.ready(ctx.store, ftl, contacts, this.blockScratch())
    )
      ? this.kernel
      : null;
    if (K !== null && this.runKernels(ctx, K, contacts, col, c, stale > 0, pooled ? rootMotion : null)) {
      if (rootMotion !== null) {
        if (pooled) this.rootsPooled++;
        else this.rootsAlone++;
      }
      ctx.timings.add(this.slotOne, clock() - t0);
      return;
    }
    // not on the pool after all: the targets skipped above (putTargets below puts them on p)
    if (rootMotion !== null && pooled) this.rootTargets(rootMotion);
    if (contacts && stale > 0) {
      // clear's loop, skipped above for the pool (the list's particle array still holds the old list)
      const of = contacts.contactOf,
        part = contacts.particle;
      for (let k = 0; k < stale; k++) of[part[k]] = -1;
    }
    const { p, x, v, invMass } = ctx.store;
    const uniform = this.uniformParticles(ctx.store);
    const target = att.target;
    let h = 0,
      k0 = contacts ? contacts.count : 0;
    let corr = this.corr;
    for (let f = 0; f < ftl.length; f++) {
      const set = ftl[f];
      const { start, rest } = set;
      const ns = start.length - 1;
      const damp = set.damping * ctx.invH;
      for (let s0 = 0; s0 < ns; s0 += BLOCK) {
        const s1 = Math.min(ns, s0 + BLOCK);
        const a = start[s0],
          b = start[s1];
        this.predict.runRange(ctx, a, b);
        h = this.putTargets(p, target, h, b);
        let k1 = k0;
        if (contacts && col) {
          generateSphereContacts(contacts, ctx, col, c, true, false, CHUNK, CULL_SLACK, a, b, uniform);
          k1 = contacts.count;
          contacts.projectRange(p, k0, k1, ctx);
        }
        // the block's corrections d_i in a scratch array (from particle a on): DFTL reads them below
        if (corr.length < 3 * (b - a)) corr = this.corr = new Float64Array(6 * (b - a));
        ftlStrands(p, x, invMass, start, rest, corr, set.maxStretch, true, s0, s1, a);
        this.update.runRange(ctx, a, b);
        if (contacts) contacts.endStepRange(ctx, k0, k1);
        if (damp !== 0) dftlStrands(v, invMass, start, corr, damp, s0, s1, a);
        k0 = k1;
      }
      set.fresh = false;
    }
    ctx.timings.add(this.slotOne, clock() - t0);
  }

  /**
   * The motion every attachment follows (all of them: the one pass holds them all, stiff), evaluated
   * at the substep's time, with the attachments' λ put to 0 (Attachments.beginStep's other part), or
   * null (none, or not one for all, or a window holding p: then beginStep runs).
   */
  private sharedRootMotion(ctx: StepContext): Motion | null {
    const att = this.world.attachments;
    const n = att.count;
    if (n === 0 || att.orientationCount > 0 || ctx.store.held !== null) return null;
    // whether one motion moves them all: looked at again only when the attachments changed
    if (att.version !== this.motionOf) {
      const motions = att.motions;
      let m = motions[0];
      for (let e = 1; m !== null && e < n; e++) if (motions[e] !== m) m = null;
      this.motion = m;
      this.motionOf = att.version;
    }
    const m = this.motion;
    if (m === null) return null;
    m.evaluate(ctx.time);
    att.lambda.fill(0, 0, n);
    return m;
  }

  /** sharedRootMotion's motion of every attachment (or null) and the attachments' version it is of. */
  private motion: Motion | null = null;
  private motionOf = -1;

  /** The targets of the roots (all following `motion`, evaluated) by strand-threads.ts' rootTargets. */
  private rootTargets(motion: Motion): void {
    const att = this.world.attachments;
    rootTargets(motion, att.anchor, att.target, this.heldEntry, this.heldCount);
  }

  /** Numbers of runKernels' largest block's corrections (3 per particle of its strands). */
  private blockScratch(): number {
    let most = 0;
    const ftl = this.ftl;
    for (let f = 0; f < ftl.length; f++) {
      const start = ftl[f].start;
      const ns = start.length - 1;
      for (let s0 = 0; s0 < ns; s0 += KERNEL_BLOCK)
        most = Math.max(most, start[Math.min(ns, s0 + KERNEL_BLOCK)] - start[s0]);
    }
    return 3 * most;
  }

  /** The WebAssembly kernels of the one pass and the store's arrays in their memory (strand-kernel.ts). */
  private readonly kernel = new StrandKernel();

  /**
   * runOnePass's blocks with the prediction, FTL, the velocity update and DFTL's term in WebAssembly
   * (wasm/strands.ts: the same operations in the same order as predictRange, ftlStrands, updateRange
   * and dftlStrands, so the same numbers), the roots' targets and the contacts in JavaScript as there.
   * In the threaded layout (K.threads > 0) the blocks run on the pool (strand-threads.ts), where the
   * contacts must be the kernels' (false, nothing done, where they are not: the caller runs the
   * JavaScript).
   */
  private runKernels(
    ctx: StepContext,
    K: StrandKernel,
    contacts: ColliderContacts | null,
    col: SphereLike | null,
    c: number,
    clearOf: boolean,
    rootMotion: Motion | null,
  ): boolean {
    const w = this.world;
    const k = K.k!;
    const ftl = this.ftl;
    const target = w.attachments.target;
    const { p } = ctx.store;
    const uniform = this.uniformParticles(ctx.store);
    // ParticlePredictionStage's and ParticleVelocityStage's numbers (src/core/stages.ts)
    const h = ctx.h,
      g = w.gravity,
      fd = w.damping > 0 ? Math.exp(-w.damping * h) : 1,
      vmax = w.maxSpeed,
      gx = g[0] * h,
      gy = g[1] * h,
      gz = g[2] * h,
      invH = ctx.invH,
      reach = vmax * h;
    const stats = w.stats,
      count = K.count;
    // the contact kernels: the sphere unturned, the particles alike, no body's contacts off (else the JavaScript)
    let gen = contacts !== null && col !== null && K.contacts && uniform && contacts.disabledBody === null;
    let none = false;
    if (gen && contacts && col) {
      const cr = col.rotation;
      gen = cr[0] === 0 && cr[1] === 0 && cr[2] === 0;
      const { group, mask, radius } = ctx.store;
      none = ctx.store.count > 0 && ((mask[0] & col.group) === 0 || (col.mask & group[0]) === 0);
      const F = K.numbers;
      F[0] = col.radius;
      for (let j = 0; j < 3; j++) {
        F[1 + j] = col.position[j];
        F[4 + j] = col.linearVelocity[j];
        F[7 + j] = col.angularVelocity[j];
      }
      F[10] = col.margin;
      F[11] = radius[0];
      F[12] = h;
      F[13] = contacts.maxDepenetrationSpeed;
      F[14] = contacts.stickDecay;
      F[15] = col.friction;
      F[16] = col.staticFriction;
      const cg = ctx.gravity;
      F[17] = 2 * Math.sqrt(cg[0] * cg[0] + cg[1] * cg[1] + cg[2] * cg[2]) * h;
      F[18] = col.restitution;
      K.table[A_COLLIDER] = c;
      K.table[A_SUBSTEP] = contacts.substep;
    }
    if (K.threads > 0) {
      if (contacts && col && !gen) return false;
      const att = w.attachments;
      this.pool.substep(h, gx, gy, gz, fd, vmax, invH, reach);
      const k0 = contacts ? contacts.count : 0;
      const n = this.pool.run(
        ctx.tasks!,
        K,
        ftl,
        KERNEL_BLOCK,
        gen && !none,
        clearOf,
        k0,
        this.held,
        this.heldEntry,
        att.enabled ? this.heldCount : 0,
        this.heldVersion,
        att,
        rootMotion,
        stats,
      );
      if (contacts) {
        contacts.count = n;
        if (gen && !none) this.kernelContacts += this.pool.blockCount;
      }
      for (let f = 0; f < ftl.length; f++) ftl[f].fresh = false;
      return true;
    }
    const TA = K.A,
      TF = K.F,
      listCount = K.listCount;
    let hi = 0,
      k0 = contacts ? contacts.count : 0;
    for (let f = 0; f < ftl.length; f++) {
      const set = ftl[f];
      const start = set.start;
      const S = K.start[f],
        R = K.rest[f];
      const ns = start.length - 1;
      const damp = set.damping * invH;
      for (let s0 = 0; s0 < ns; s0 += KERNEL_BLOCK) {
        const s1 = Math.min(ns, s0 + KERNEL_BLOCK);
        const a = start[s0],
          b = start[s1];
        k.predict(K.x, K.p, K.v, K.w, h, gx, gy, gz, fd, vmax, a, b);
        hi = this.putTargets(p, target, hi, b);
        let k1 = k0;
        if (gen && contacts && col) {
          if (!none) {
            // the kernel stops at a particle it leaves to the JavaScript (at the centre, deep inside)
            listCount[0] = k0;
            for (let i = a; ; ) {
              const stop = k.sphereContacts(TA, TF, i, b);
              if (stop < 0) break;
              this.handedBack++;
              contacts.count = listCount[0];
              generateSphereContacts(
                contacts,
                ctx,
                col,
                c,
                true,
                false,
                CHUNK,
                CULL_SLACK,
                stop,
                stop + 1,
                uniform,
              );
              listCount[0] = contacts.count;
              i = stop + 1;
            }
            contacts.count = k1 = listCount[0];
            this.kernelContacts++;
          }
          k.projectSphereContacts(TA, TF, k0, k1);
        } else if (contacts && col) {
          generateSphereContacts(contacts, ctx, col, c, true, false, CHUNK, CULL_SLACK, a, b, uniform);
          k1 = contacts.count;
          contacts.projectRange(p, k0, k1, ctx);
        }
        k.ftl(K.p, K.x, K.w, S, R, K.corr, set.maxStretch, 1, s0, s1, a);
        k.update(K.x, K.p, K.v, invH, reach, a, b, K.counts);
        stats.recoveries += count[0];
        stats.speedClamps += count[1];
        if (gen && contacts) k.endSphereContacts(TA, TF, k0, k1);
        else if (contacts) contacts.endStepRange(ctx, k0, k1);
        if (damp !== 0) k.dftl(K.v, K.w, S, K.corr, damp, s0, s1, a);
        k0 = k1;
      }
      set.fresh = false;
    }
    return true;
  }

  /**
   * Substeps whose roots' targets rootTargets computed (sharedRootMotion; tests): on the pool
   * (StrandPool.run), and on one thread's kernels (runOnePass).
   */
  rootsPooled = 0;
  rootsAlone = 0;

  /** The blocks on the worker pool (the threaded layout; its `stageAll` for tests). */
  readonly pool = new StrandPool();

  /** Substeps of the threaded layout whose blocks ran on the pool, and those the calling thread ran alone. */
  get pooled(): number {
    return this.pool.pooled;
  }
  get alone(): number {
    return this.pool.alone;
  }

  private stage(stage: Stage, ctx: StepContext, scheduler: Scheduler): void {
    scheduler.run(stage, ctx);
  }
}

/** The world's fused strand pass: installed by the first Strands body with FTL (src/strands/strands.ts). */
export const fusedStrandSystem: SystemKind<FusedStrandPass> = {
  name: 'fused strand pass',
  install(world) {
    const f = new FusedStrandPass(world);
    world.substepPasses.push(f);
    return f;
  },
};
