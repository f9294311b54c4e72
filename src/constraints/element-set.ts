import { colorConstraints, permuteRecords } from '../core/coloring.js';
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { PbdError } from '../core/errors.js';
import { ZeroTask } from '../core/particle-tasks.js';
import type { ParticleStore, PredictedWindow } from '../core/particles.js';
import type { ProjectionRule } from '../core/solver.js';
import type { TaskRunner } from '../core/step-context.js';
import { zeroFill } from '../core/store-memory.js';
import type { ElementGlue, RuleArgs } from '../kernels/glue.js';
import { type ElementKernel, elementKernel } from '../wasm/element-kernels.js';
import { ElementThreads } from '../wasm/element-threads.js';
import { sharedKernel, worthPairing } from '../wasm/kernels.js';
import type { KernelRange } from '../wasm/paired.js';
import { particlePass } from '../wasm/window-moves.js';

/**
 * ElementConstraints.poolMinConstraints: sets of fewer constraints stay off
 * a threaded world's pool, by the precision the set sweeps in. First placed
 * in session 9 (bench/pool-probe.ts, docs/performance.md "Small sets skip the
 * pool": f64 from about 10,000 constraints, f32, whose kernels take less than
 * half as long per constraint, from about 30,000). The f64 line moved in
 * session 22 to where the sessions since (fewer jobs a sweep, sw28's
 * small-window tables) put it: on the quiet 2-core machine
 * (bench/small-sets-probe.ts, a falling cloth, 2 threads) an f64 set on the
 * pool beat the same set off it from 36 × 36 (3,745 constraints: 1.02 against
 * 0.97 of one thread; 56 × 56 1.24 against 0.97) and lost at 31 × 31. The f32
 * line stays: f32 sets of 41 × 41 and 51 × 51 ran slower on the pool (0.70,
 * 0.83 against 0.91, 0.92 off it), 61 × 61 to 81 × 81 faster (0.99–1.14
 * against 0.92–0.98), and 101 × 101 (a window over two copy blocks, the
 * large tables) slower again (0.78 against 0.96). Until session 22 a
 * second line kept sets whose particle window (lowest to highest index) spans
 * fewer than 8,192 particles off the pool unless each thread had 5,000 of
 * their constraints (small25, session 18; sw28 and the lead, session 21):
 * under two copy blocks of the old tables every colour block hung on one copy
 * block. sw28's small-window tables (src/wasm/element-threads-small.ts)
 * removed that cause; on a quiet 16-core machine the 61 × 61 to 81 × 81
 * cloths it kept off the pool on 4 and 8 threads ran 1.9–3.3 × faster than one
 * thread on the pool and 0.9 × off it (docs/solver.md "Session 22 (lead)").
 */
export const POOL_MIN_CONSTRAINTS: Readonly<PoolThresholds> = {
  f64: 3_500,
  f32: 32_768,
};

/** Constraints from which a set's sweeps go to the pool, per precision of the sweep. */
export interface PoolThresholds {
  f64: number;
  f32: number;
}

/**
 * What every set of element constraints projected by a generated kernel
 * (a `*.kernel.ts` definition: distance, tet volume, triangle area, dihedral
 * and isometric bending, FEM triangles and tets, triangle strain limits)
 * shares: `arity` particle indices per constraint sorted into colour batches
 * (greedy first fit, see docs/architecture.md), one multiplier each, the
 * projection rule, and the choice between the JavaScript kernel and its
 * paired WebAssembly twin. A subclass names its definition's generated glue
 * (`static glue`, src/kernels/glue.ts) and which of its fields are the definition's
 * arguments (`kernelArgs`, `A`); the calls of the JavaScript kernel, its f32
 * twin and the paired sweeps, the colour ranges of a parallel scheduler
 * (`projectColorRange`) and the backend choice are written here once.
 */
export abstract class ElementConstraints<A extends RuleArgs = RuleArgs> implements ConstraintSet {
  abstract readonly kind: string;
  readonly order = 0;
  /** Its sweeps read the store's positions through a paired kernel's window or after store.settle (ConstraintSet.sharesWindow). */
  readonly sharesWindow = true;
  /** Its one hook, beginStep, sets the rule and the multipliers only (ConstraintSet.skipsPredicted). */
  readonly skipsPredicted = true;
  /** That hook touches no particle (ConstraintSet.beginsOnWindow). */
  readonly beginsOnWindow = true;
  enabled = true;
  readonly rule: ProjectionRule;
  /** Particles per constraint (the definition's). */
  get arity(): number {
    return this.glue.arity;
  }

  /** Numbers per constraint of the definition's record (0 without one). */
  protected get recordStride(): number {
    return this.glue.recordStride;
  }

  /** `arity` particle indices per constraint, sorted by colour. */
  indices: Int32Array = new Int32Array(0);
  /**
   * XPBD multiplier per constraint (reset every substep), in constraint
   * order. An f32 sweep keeps them in its kernel copy, in f32 in the groups'
   * lane order (one f32x4 load and store per group: src/wasm/paired.ts); they
   * are copied back here when read (exact: f32 widens to f64).
   */
  get lambda(): Float64Array {
    const k = this.lanesOf;
    if (k !== null) {
      this.lanesOf = null;
      k.scatterLambda(this.lam);
    }
    return this.lam;
  }

  set lambda(v: Float64Array) {
    this.lanesOf = null;
    this.lam = v;
  }

  private lam: Float64Array = new Float64Array(0);
  /** The f32 kernel copy whose lane-ordered multipliers are the current ones (lam is stale), else null. */
  private lanesOf: ElementKernel | null = null;
  /** Colour batch k is constraints colorOffsets[k] … colorOffsets[k + 1] − 1. */
  colorOffsets: Int32Array = new Int32Array(1);
  count = 0;
  colors = 0;
  /**
   * 'auto' projects with the WebAssembly SIMD kernel generated with the
   * JavaScript kernel from the set's definition (two constraints of a colour
   * per f64x2, bit-identical) when the engine has one and the set has no XPBD
   * damping; 'js' always with the JavaScript kernel.
   */
  backend: 'auto' | 'js' = 'auto';
  /** 1 under XPBD, 0 under PBD (energy constraints project C = √(2E) or C = E, 002 §3). */
  protected m = 0;
  private simd: ElementKernel | null = null;
  /** Whether the last projection was in f32 (see usesF32). */
  private f32 = false;

  constructor(rule: ProjectionRule) {
    this.rule = rule;
  }

  /**
   * The glue generated from the set's definition: its class's `static
   * glue` (`…Glue` in the definition's `NAME.generated.ts`). Static, not a
   * field: a worker's copy of the set (src/parallel/mirror.ts) has the
   * class's prototype, so its constructor, but no function fields.
   */
  protected get glue(): ElementGlue<A> {
    return (this.constructor as unknown as { readonly glue: ElementGlue<A> }).glue;
  }

  /**
   * Writes the set's arguments of its definition (all but k′, α̃ and γ,
   * written from the projection rule) into `a`; called before every kernel
   * call and sweep, so hooks may change them between substeps.
   */
  protected abstract kernelArgs(a: A): void;

  /** The definition's arguments, filled now (see ElementGlue.args). */
  private args(): A {
    const a = this.glue.args;
    const r = this.rule;
    a.kp = r.kPrime;
    a.at = r.alphaTilde;
    a.gamma = r.gamma;
    this.kernelArgs(a);
    return a;
  }

  /** Throws a PbdError `code` naming `label` and the constraint when an index is not a particle of the store. */
  protected checkIndices(store: ParticleStore, idx: ArrayLike<number>, code: string, label: string): void {
    const ar = this.arity;
    for (let k = 0; k < idx.length; k++) {
      const i = idx[k];
      if (!(i >= 0 && i < store.count)) {
        throw new PbdError(
          code,
          `${label} ${Math.floor(k / ar)}`,
          `refers to particle ${i}, which does not exist`,
        );
      }
    }
  }

  /**
   * Colours the constraints `idx` (`arity` indices each) and keeps them in
   * colour order; returns each per-constraint array of `records` ([values,
   * numbers per constraint]) permuted the same way.
   */
  protected setElements(
    store: ParticleStore,
    idx: Int32Array,
    records: [Float64Array, number][],
  ): Float64Array[] {
    const ar = this.arity;
    const n = idx.length / ar;
    const col = colorConstraints(idx, ar, n, store.count);
    this.indices = permuteRecords(idx, ar, col.order);
    const out = records.map(([r, stride]) => permuteRecords(r, stride, col.order));
    this.lambda = new Float64Array(n);
    this.colorOffsets = col.offsets;
    this.colors = col.colors;
    this.count = n;
    return out;
  }

  beginStep(ctx: StepContext): void {
    this.rule.update(ctx.solver, ctx.hSolve, ctx.passes);
    this.m = ctx.solver === 'xpbd' ? 1 : 0;
    // λ⁰ = 0 (001 Eq. 17): by the blocks of the substep's first sweep where it runs as one job on the
    // pool (each block zeroes its constraints' multipliers before projecting them: no job of its own),
    // else in fixed blocks on a threaded world's pool
    if (ctx.world.solve !== 'jacobi' && this.threads !== null && this.threads.zeroesInSweep(this.simd)) {
      this.zeroPending = true;
      return;
    }
    this.zeroPending = false;
    if (this.lanesOf !== null) zeroFill(this.lanesOf.lam32!);
    else this.zero.run(ctx, this.lam);
  }

  private readonly zero = new ZeroTask();
  /** λ⁰ = 0 left to the next sweep (beginStep). */
  private zeroPending = false;

  /**
   * Hands a pending λ⁰ = 0 to the threaded sweep that is about to run
   * (ElementThreads.sweep zeroes in its blocks, or whole before a sweep it
   * does not run as one job), or zeroes here when the sweep will not reach it.
   */
  private settleZero(k: ElementKernel | null): void {
    if (!this.zeroPending) return;
    this.zeroPending = false;
    if (k !== null && this.threads !== null && k.threads === this.threads) this.threads.zeroFirst = true;
    else if (this.lanesOf !== null) zeroFill(this.lanesOf.lam32!);
    else zeroFill(this.lam);
  }

  /**
   * One sweep: the paired kernel where it applies, else the JavaScript
   * kernel over all constraints. In a threaded world the paired kernel's
   * copy is on a shared memory and its colours run by blocks on the worker
   * pool (src/wasm/element-threads.ts), with the bits of one thread.
   */
  project(ctx: StepContext): void {
    const store = ctx.store;
    const tasks = ctx.tasks ?? null;
    this.host = store;
    this.f32 = this.usesF32(ctx);
    this.pool = tasks !== null && tasks.threads > 1 && this.onPool(this.f32) ? tasks : null;
    if (this.f32) {
      const k = this.simdKernel(true);
      if (k !== null && this.lanesOf !== k) {
        // the multipliers into the copy's lane order (after a new copy, or where they were read)
        k.gatherLambda(this.lambda);
        this.lanesOf = k;
      }
      this.settleZero(k);
      if (k !== null) this.sweepF32(k, store, ctx.reverse);
      else {
        store.settle();
        this.roundWindow(store.p);
        this.kernelF32(store.p, store.invMass, 0, this.count, ctx.reverse);
      }
      return;
    }
    const simd = this.simdKernel();
    this.settleZero(simd);
    if (simd !== null) this.sweep(simd, store, ctx.reverse);
    else {
      store.settle();
      this.kernel(store.p, store.x, store.invMass, 0, null, 0, this.count, ctx.reverse);
    }
  }

  /**
   * The window (f64, or f32 `aos4`) of the paired kernel its last sweep ran on, where the next one
   * loads it (ConstraintSet.predictionWindow; src/core/window-passes.ts), else null: on this thread,
   * or an f32 `aos4` or f64 window swept on the pool (sessions 17, 19: the sweep's last blocks update and predict).
   */
  predictionWindow(ctx: StepContext): PredictedWindow | null {
    const k = this.simd;
    if (k === null || k.retired) return null;
    const pooled = k.threads !== null || this.pool !== null || k.win.pool !== null;
    if (
      pooled &&
      !(
        (k.win.aos4 || (!k.win.f32 && particlePass.pooled64)) &&
        this.pool !== null &&
        k.threads !== null &&
        (k.win.pool as object | null) === k.threads
      )
    )
      return null;
    // an f64 window, or an f32 one in x y z w; the next sweep in the precision of this copy
    if (k.win.f32 !== k.win.aos4 || this.usesF32(ctx) !== this.f32) return null;
    return k.win;
  }

  /** The store of the last projection: the copies of its sets on one particle window share a kernel memory (elementKernel). */
  private host: ParticleStore | null = null;

  /**
   * How a threaded scheduler (src/parallel/) runs this set: 'wasm' when
   * its paired kernel can run on the pool (project, on a shared memory:
   * src/wasm/element-threads.ts), 'ranges' when its colour batches go to
   * the workers with the JavaScript kernel (projectColorRange: where shared
   * WebAssembly memory is missing, with the same bits), 'serial' for a set
   * below poolMinConstraints (project runs it on the calling thread), and for
   * an f32 set without the shared kernel (its JavaScript twin rounds the
   * whole window first) — all on the bits of one thread.
   */
  threadMode(precision: 'f64' | 'f32' | undefined): 'wasm' | 'ranges' | 'serial' {
    const f32 = precision === 'f32' && this.hasF32 && this.rule.gamma === 0;
    if (!this.onPool(f32)) return 'serial';
    const wasm =
      this.backend === 'auto' &&
      this.rule.gamma === 0 &&
      this.count > 0 &&
      this.pairable() &&
      sharedKernel('elements') !== null &&
      worthPairing(this, this.arity);
    return wasm ? 'wasm' : f32 ? 'serial' : 'ranges';
  }

  /**
   * Sets of fewer constraints project on the calling thread in a threaded
   * world too: their kernel copy on ordinary memory, no job on the pool.
   * Below this size a sweep's pool jobs (the window copied in and out, the
   * blocks' claims and done flags, and the colour's particles moving between
   * the cores' caches) cost more than the second core saves: measured on the
   * falling cloth (bench/small-sets-probe.ts; session 22: on 2 threads a
   * 31 × 31 f64 cloth ran slower on the pool than off it, a 36 × 36 one
   * faster; in f32 a 51 × 51 one slower, a 61 × 61 one about even). A function of the set's size alone, never
   * of the thread count, so which sets use the pool does not depend on it;
   * and a block on the pool runs the one-thread sweep's code, so the bits are
   * the same either way. The line depends on the precision the set sweeps in
   * (f32 kernels cost less than half as much per constraint, so the pool's
   * fixed costs weigh more): `f64` and `f32`. Tests lower it ({ f64: 0,
   * f32: 0 }) to run small cloths on the pool.
   */
  static poolMinConstraints: PoolThresholds = { ...POOL_MIN_CONSTRAINTS };

  /** Whether this set's sweeps go to a threaded world's pool: its size by the sweep's precision (poolMinConstraints). */
  private onPool(f32: boolean): boolean {
    const min = ElementConstraints.poolMinConstraints;
    return this.count >= (f32 ? min.f32 : min.f64);
  }

  /** The worker pool's tasks in a threaded world (set by project), else null. */
  private pool: TaskRunner | null = null;
  /** What runs the paired kernel's sweeps on the pool (threaded worlds). */
  private threads: ElementThreads | null = null;

  /**
   * Constraints [from, to) of one colour batch, with the JavaScript kernel
   * (for parallel schedulers: an f64 set that threadMode sends by ranges).
   */
  projectColorRange(ctx: StepContext, _color: number, from: number, to: number): void {
    // (threaded worlds only, often on a worker's mirror of the store: no window is held there)
    const store = ctx.store;
    this.kernel(store.p, store.x, store.invMass, 0, null, from, to, false);
  }

  /**
   * An f32 sweep rounds the positions of the set's particle window — from
   * its lowest to its highest particle index, the f32x4 kernel's window
   * (src/wasm/paired.ts), copied in as f32 and out widened — to f32; the
   * JavaScript twin does the same before its loop, so that both paths give
   * the same bits for every particle of the window, moved or not.
   */
  private roundWindow(p: Float64Array): void {
    this.findWindow();
    for (let i = 3 * this.winLo; i < 3 * this.winHi + 3; i++) p[i] = Math.fround(p[i]);
  }

  /** The set's particle window, its lowest and highest index (winLo, winHi), found once per index array. */
  private findWindow(): void {
    if (this.winOf !== this.indices) {
      let lo = Number.POSITIVE_INFINITY,
        hi = -1;
      const idx = this.indices;
      const n = this.arity * this.count;
      for (let k = 0; k < n; k++) {
        if (idx[k] < lo) lo = idx[k];
        if (idx[k] > hi) hi = idx[k];
      }
      this.winLo = lo;
      this.winHi = hi;
      this.winOf = idx;
    }
  }

  private winOf: Int32Array | null = null;
  private winLo = 0;
  private winHi = -1;

  /**
   * Whether this set projects in f32 now: the world asks for it
   * (`precision: 'f32'`), the set's definition has an f32 mode
   * (`hasF32`), and the set has no XPBD damping (the f32 kernels, like
   * the SIMD ones, have none; a damped set stays f64).
   */
  protected usesF32(ctx: StepContext): boolean {
    return ctx.world.precision === 'f32' && this.hasF32 && this.rule.gamma === 0;
  }

  /** Whether the set's definition has an f32 mode (kernelF32 and sweepF32). */
  protected get hasF32(): boolean {
    return this.glue.f32;
  }

  /**
   * The f32 JavaScript twin (generated from the definition with its f32x4
   * kernel, the same bits) over constraints from … to − 1, backward when
   * `reverse`; reads the f64 arrays rounded to f32 and writes f32 values.
   */
  protected kernelF32(p: Float64Array, w: Float64Array, from: number, to: number, reverse: boolean): void {
    this.glue.kernelF32(this, this.args(), p, w, from, to, reverse);
  }

  /** One f32 sweep of the set's blocked f32x4 WebAssembly kernel (its generated `sweepNAMEF32`). */
  protected sweepF32(k: ElementKernel, store: ParticleStore, reverse: boolean): void {
    this.glue.sweepF32(k, this.args(), store, reverse);
  }

  /**
   * One Jacobi pass with averaging (000 §3.8 names Jacobi as the order-free
   * alternative to colouring; the averaging by constraint count is that of
   * position based fluids and of Macklin et al.'s unified solver): every
   * constraint is projected from the same positions p, with the set's own
   * kernel (a colour at a time on a copy q of p, since a colour's
   * constraints share no particle), and its correction is scaled by
   * s_c = ω / max_{i ∈ c} n_i, where n_i counts the set's constraints on
   * particle i and ω is the world's `relaxation`; particles move by the sum
   * of their scaled corrections. Scaling per constraint rather than dividing
   * each particle's sum by n_i keeps XPBD's multipliers consistent with the
   * positions (λ_c grows by s_c Δλ_c, exactly the impulse applied): averaging
   * per particle left a hanging XPBD chain 78 % off its analytic stretch
   * after 1,500 steps of 20 iterations, this lands within 2 % like
   * Gauss–Seidel (test/jacobi.test.ts).
   */
  projectJacobi(ctx: StepContext): void {
    const store = ctx.store;
    store.settle();
    const p = store.p;
    const n3 = 3 * store.count;
    const idx = this.indices,
      ar = this.arity,
      off = this.colorOffsets,
      lam = this.lambda;
    if (this.jq.length < n3 || this.jIndices !== idx) {
      this.jq = new Float64Array(n3);
      this.jsum = new Float64Array(n3);
      this.jlam = new Float64Array(this.count);
      // n_i: the set's constraints on particle i
      const cnt = new Int32Array(store.count);
      for (let k = 0; k < ar * this.count; k++) cnt[idx[k]]++;
      this.jcount = cnt;
      this.jIndices = idx;
    }
    const q = this.jq,
      sum = this.jsum,
      cnt = this.jcount,
      old = this.jlam;
    const omega = ctx.world.relaxation;
    q.set(p.subarray(0, n3));
    old.set(lam.subarray(0, this.count));
    for (let c = 0; c < this.colors; c++) {
      const a = off[c],
        b = off[c + 1];
      this.kernel(q, store.x, store.invMass, 0, null, a, b, false);
      for (let t = a; t < b; t++) {
        let most = 1;
        for (let v = 0; v < ar; v++) most = Math.max(most, cnt[idx[ar * t + v]]);
        const sc = omega / most;
        lam[t] = old[t] + sc * (lam[t] - old[t]);
        for (let v = 0; v < ar; v++) {
          const i3 = 3 * idx[ar * t + v];
          for (let d = 0; d < 3; d++) {
            sum[i3 + d] += sc * (q[i3 + d] - p[i3 + d]);
            q[i3 + d] = p[i3 + d];
          }
        }
      }
    }
    for (let k = 0; k < ar * this.count; k++) {
      const i3 = 3 * idx[k];
      for (let d = 0; d < 3; d++) {
        p[i3 + d] += sum[i3 + d];
        sum[i3 + d] = 0;
      }
    }
  }

  private jq = new Float64Array(0);
  private jsum = new Float64Array(0);
  private jlam = new Float64Array(0);
  private jcount = new Int32Array(0);
  private jIndices: Int32Array | null = null;

  /**
   * The set's JavaScript kernel (generated from its definition) over
   * constraints from … to − 1 — or, for a deferring kernel, those listed in
   * list[from … to − 1] — backward when `reverse`, with particle i at
   * p[3 (i − base)] and w[i − base] (base 0 and list null but for the
   * constraints a paired kernel defers).
   */
  kernel(...r: KernelRange): void {
    this.glue.kernel(this, this.args(), ...r);
  }

  /** One sweep of the set's paired WebAssembly kernel (its generated `sweepNAME`). */
  protected sweep(k: ElementKernel, store: ParticleStore, reverse: boolean): void {
    this.glue.sweep(k, this, this.args(), store, reverse);
  }

  /** Whether the paired kernel can project this set now (beyond backend and damping). */
  protected pairable(): boolean {
    return true;
  }

  /** The SIMD kernel when it applies (see `backend`), built on first use and after the arrays change or the precision. */
  protected simdKernel(f32 = this.f32): ElementKernel | null {
    if (!this.pairable()) return (this.simd = null);
    // the definition's Rec and PerConstraint arrays
    const a = this.args();
    const rec = this.glue.record(a);
    const pool = this.pool;
    const shared = pool !== null && sharedKernel('elements') !== null;
    const k = elementKernel(
      this,
      this.arity,
      rec,
      this.recordStride,
      this.glue.scalar(a),
      this.simd,
      f32,
      shared,
      this.host,
    );
    if (k !== null && shared) {
      // one task per set, its arguments replaced when the copy is (tearing, precision)
      this.threads ??= new ElementThreads(pool!, this);
      this.threads.runner = pool!;
      if (k.threads !== this.threads) this.threads.bind(k);
    } else if (k !== null) k.threads = null;
    this.simd = k;
    return k;
  }

  /** Which kernel projects this set now: 'wasm' (SIMD) or 'js'. */
  get activeBackend(): 'wasm' | 'js' {
    return this.simdKernel() === null ? 'js' : 'wasm';
  }

  /** Constraints the SIMD kernel has left to the JavaScript kernel so far (off its closed-form path). */
  get wasmDeferred(): number {
    return this.simd?.deferred ?? 0;
  }
}
