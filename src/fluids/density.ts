import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import type { ParticleStore } from '../core/particles.js';
import type { TaskRunner } from '../core/step-context.js';
import { clock } from '../core/timings.js';
import type { WorldBody } from '../core/world-body.js';
import { wasmKernelsEnabled } from '../wasm/kernels.js';
import { RECORD, samePositions, solidPass } from './density-passes.js';
import type { FluidBody } from './fluid-body.js';
import { boundsOf, GridBlocks } from './grid-blocks.js';
import { poly6Coefficient, spikyCoefficient, spikyGradientCoefficient } from './kernels.js';
import { buildForwardPairs, NeighbourGrid, PairList } from './neighbour-grid.js';
import {
  ADD_VELOCITIES,
  APPLY_DELTAS,
  CORRECTION,
  DENSITY,
  FluidRowBlocks,
  INIT_POST,
  ITERATION_CHAIN,
  ITERATION_CHAIN_INIT,
  LAMBDA,
  PASS,
  POST_CHAIN,
  POST_CHAIN_XSPH,
  type RowArrays,
  records,
  rowBlockSize,
  shared32,
  UNIFORM_ALL,
  VORTICITY_FORCE,
  VORTICITY_GRADIENT,
  VORTICITY_MAGNITUDES,
  XSPH,
} from './row-blocks.js';
import { CoupledSolids } from './solids.js';
import { FluidWalls } from './walls.js';
import { FluidWasm, fluidWasmModule, MAX_ROW_BLOCKS, sharedFluidModule } from './wasm.js';

/**
 * The density constraints of one Fluid and its velocity post-process: PBF
 * Algorithm 1 (Macklin & Müller 2013) inside the world's step loop.
 *
 * - beginStep (after the prediction, Algorithm 1 lines 5–8): neighbour
 *   search on p with a counting sort, then the fluid's range is reordered
 *   by cell (cache locality; see Fluid); then the fluid pairs, the records
 *   of particles near colliders (walls), the fluid–solid pairs with the
 *   particles of coupled bodies and boundary particles, and the boundary
 *   masses Ψ of those solid particles (after Akinci et al. 2012, eq. 5,
 *   scaled for one-layer surfaces; see search()).
 * - project (once per solver iteration, lines 9–19): one Jacobi iteration:
 *   λ_i for every particle from the same positions, then the symmetric
 *   correction Δp_i of every particle, then all Δp applied at once.
 * - endStep (after v = (p − x)/h, lines 20–23): vorticity confinement and
 *   XSPH viscosity, then the emitters.
 *
 * Coupled (solid) particles b enter the density of a fluid particle i with
 * the boundary mass Ψ_b, C_i = (Σ_j m W_ij + Σ_b Ψ_b W_ib)/ρ0 − 1, and are
 * moved by the same constraint with their own inverse mass: the gradient
 * ∇_{p_b} C_i = −(Ψ_b/ρ0) ∇W_ib gives Δp_b = w̃_b λ_i ∇_{p_b} C_i. Inverse
 * masses enter as w̃ = w / w_fluid (1 for fluid particles), which keeps ε in
 * the units of PBF's equal-mass formulas and makes the corrections conserve
 * momentum: Σ m_k Δp_k = (1/w_fluid) Σ_i λ_i Σ_k ∇_{p_k} C_i = 0.
 *
 * A Jacobi iteration does not depend on the order of the particles, so the
 * set projects in the forward half of a symmetric sweep only (the backward
 * half would repeat the same update). Colliders also count in the density
 * (walls, see wallDensityPass in density-passes.ts).
 */
export class FluidDensity implements ConstraintSet {
  readonly kind = 'fluid-density';
  readonly violationUnit = 'relative';
  /**
   * −1: after the attachments (−10) and before every other set, so that the
   * reordering in beginStep happens before any set builds index lists for
   * the substep; the Jacobi iteration then runs before the material sets.
   */
  readonly order = -1;
  enabled = true;
  readonly fluid: FluidBody;
  /** The neighbour grid of the fluid particles (on p, rebuilt every substep). */
  readonly grid = new NeighbourGrid();
  /** The solid particles coupled to the fluid this substep (solids.ts). */
  readonly solid = new CoupledSolids();
  /** The wall records of this substep (walls.ts). */
  readonly walls = new FluidWalls();
  /** Fluid–fluid pairs closer than h, each once, in rows over grid.sorted; partners by slot (store index − offset). */
  get pairs(): PairList {
    return this.pairsInWasm ? this.wasmPairs : this.jsPairs;
  }
  /** The pairs built in JavaScript (neighbour-grid.ts). */
  private readonly jsPairs = new PairList();
  /** The pairs built in WebAssembly: views of the instance's start and nbr buffers. */
  private readonly wasmPairs = new PairList();
  private pairsInWasm = false;
  /**
   * The pairs of `pairs` closer than h at the positions of the last density
   * (or XSPH) pass, in the same rows: the correction (vorticity) pass at the
   * same positions walks only these.
   */
  private live = new Int32Array(0);
  private liveStart = new Int32Array(1);
  /**
   * Which implementation runs the fluid pair passes: 'wasm' (the default
   * where WebAssembly is available; see wasm.ts) or 'js' (the JavaScript functions generated from the same
   * definitions, pair-passes.rows.ts, and the other *-passes.ts). Both
   * give the same numbers bit for bit. Takes effect at the next search.
   */
  kernels: 'wasm' | 'js' = 'wasm';
  /** Which implementation runs the pair passes now (for statistics and the gallery's readout). */
  get activeBackend(): 'wasm' | 'js' {
    // a threaded world runs them on the pool, in WebAssembly where its memory can be shared (row-blocks.ts)
    const wasm = this.kernels === 'wasm' && wasmKernelsEnabled();
    if (this.tasks !== null) return wasm && sharedFluidModule() !== null ? 'wasm' : 'js';
    return wasm && fluidWasmModule() !== null ? 'wasm' : 'js';
  }
  /** The WebAssembly instance (made on first use), or null where it is unavailable. */
  private wasm: FluidWasm | null | undefined;
  /** The instance serving this substep (kernels = 'wasm' and its buffers hold this search's pairs), else null. */
  private wasmNow: FluidWasm | null = null;
  /** The last density pass ran in WebAssembly and left each pair's gradient factor in its pair buffer. */
  private gStored = false;
  /** The last density pass walked the rows of the search as they are (see fluidDensityPass). */
  private allInside = false;
  // the JavaScript buffers (the WebAssembly instance has its own)
  private jsAcc: Float64Array = new Float64Array(0);
  private jsPost: Float64Array = new Float64Array(0);
  private jsLive = new Int32Array(0);
  private jsLiveStart = new Int32Array(1);
  /**
   * The fluid's positions at the neighbour search (slot order). A density
   * pass at exactly these positions (the first Jacobi iteration, unless an
   * attachment moved a fluid particle) finds every listed pair inside h.
   */
  private searchP: Float64Array = new Float64Array(0);
  /** The pair passes in fixed row blocks, on the pool in a threaded world (row-blocks.ts). */
  readonly rows = new FluidRowBlocks();
  /** The rows and records the pair passes walk on this thread (JavaScript buffers or the instance's views). */
  private local: RowArrays = this.rows.shared;
  /** The world's data-parallel tasks (threads > 1), else null: the passes then run on this thread. */
  private tasks: TaskRunner | null = null;
  /** Largest |p − x| of a fluid particle this substep (m). */
  maxDisplacement = 0;

  // per fluid slot
  /** Density ρ_i of each slot from the last iteration (kg/m³). */
  rho: Float64Array = new Float64Array(0);
  /** Multiplier λ_i of each slot from the last iteration (m²). */
  lambda: Float64Array = new Float64Array(0);
  /** Neighbours of each slot at the search (equality constraint only; see countNeighbours). */
  private counts: Int32Array = new Int32Array(0);
  /** Per-slot records of RECORD doubles: sums and positions (see density-passes.ts). */
  private acc: Float64Array = new Float64Array(0);
  /** Per-slot records of the velocity post-process (Δv, ω; see velocity-passes.ts). */
  private post: Float64Array = new Float64Array(0);
  // scratch
  private items = new Int32Array(0);
  private scratch = new Float64Array(0);
  private scratchInt = new Int32Array(0);
  /** Bounds of the predicted positions of the fluid (min xyz, max xyz). */
  readonly bounds = new Float64Array(6);

  constructor(fluid: FluidBody) {
    this.fluid = fluid;
    this.rows.walls = this.walls;
    this.rows.shared.walls = this.walls.arrays;
    this.ensureSlots(fluid.capacity);
  }

  get count(): number {
    return this.fluid.activeCount;
  }

  /** Fluid particles near each solid particle (rows over `solids`). */
  get solidPairs(): PairList {
    return this.solid.pairs;
  }

  /** Bodies coupled to the fluid this substep (those with particles near it). */
  get coupled(): WorldBody[] {
    return this.solid.coupled;
  }

  /** Store indices of the coupled solid particles near the fluid this substep. */
  get solids(): Int32Array {
    return this.solid.solids;
  }

  get solidCount(): number {
    return this.solid.count;
  }

  /** Boundary mass Ψ_b of each solid particle (kg). */
  get psi(): Float64Array {
    return this.solid.psi;
  }

  /** Wall records this substep. */
  get wallCount(): number {
    return this.walls.count;
  }

  private ensureSlots(n: number): void {
    if (this.rho.length >= n) return;
    this.rho = records(n, this.tasks !== null);
    this.lambda = records(n, this.tasks !== null);
    this.counts = shared32(n, this.tasks !== null);
    this.jsAcc = this.acc = records(RECORD * n, this.tasks !== null);
    this.walls.ensureSlots(n);
    this.jsPost = this.post = records(RECORD * n, this.tasks !== null);
    this.items = new Int32Array(n);
    this.scratch = new Float64Array(3 * n);
    this.scratchInt = new Int32Array(n);
  }

  /**
   * Bounds of the active fluid particles of `pos` into this.bounds and their
   * largest displacement from `from` into maxDisplacement; false when there
   * are none.
   */
  private fluidBounds(pos: Float64Array, from: Float64Array): boolean {
    const n = this.fluid.activeCount;
    if (n === 0) return false;
    const off = this.fluid.offset;
    // on the pool in fixed blocks where it can (grid-blocks.ts): the same box
    const b0 = this.bounds;
    let e2 = this.gridBlocks.bounds(this.tasks, pos, from, off, n, b0);
    if (e2 < 0) e2 = boundsOf(pos, from, off, 0, n, b0, 0);
    this.maxDisplacement = Math.sqrt(e2);
    return b0[3] >= b0[0] && b0[4] >= b0[1] && b0[5] >= b0[2];
  }

  /** Puts the active fluid particles into `grid` by their positions `pos`. */
  private fillGrid(pos: Float64Array): void {
    const n = this.fluid.activeCount;
    const items = this.items;
    const off = this.fluid.offset;
    const cells = this.gridBlocks.cells(this.tasks, this.grid, pos, off, n);
    // the counting sort too on the pool where it can (grid-blocks.ts sort): the same order
    if (cells !== null && this.gridBlocks.sort(this.tasks, this.grid, off, n)) return;
    fillRange(items, n, off);
    if (cells !== null) this.grid.insertCells(items, n, cells);
    else this.grid.insert(pos, items, n);
  }

  /** The bounds, cells and counting sort on the worker pool (threads > 1). */
  readonly gridBlocks = new GridBlocks();

  private fluidAttached(): boolean {
    const a = this.fluid.world.attachments;
    const lo = this.fluid.offset,
      hi = lo + this.fluid.activeCount;
    for (let e = 0; e < a.count; e++) {
      const i = a.particle[e];
      if (i >= lo && i < hi) return true;
    }
    return false;
  }

  /** Neighbour search on the predicted positions (Algorithm 1, lines 6–8), then the reordering. */
  beginStep(ctx: StepContext): void {
    this.search(ctx, true);
    if (!this.fluid.unilateral) this.countNeighbours();
  }

  /**
   * Neighbours of each fluid slot at the search (fluid and solid partners
   * inside h), for the free-surface test of the equality constraint (lambdaPass).
   */
  private countNeighbours(): void {
    const fluid = this.fluid;
    const n = fluid.activeCount;
    const off = fluid.offset;
    const c = this.counts;
    c.fill(0, 0, n);
    if (this.grid.count !== n) return;
    const { start, nbr } = this.pairs;
    const sorted = this.grid.sorted;
    for (let a = 0; a < n; a++) {
      const k0 = start[a],
        k1 = start[a + 1];
      c[sorted[a] - off] += k1 - k0;
      for (let k = k0; k < k1; k++) c[nbr[k]]++;
    }
    const sp = this.solidPairs;
    const ns = this.solidCount;
    for (let q = 0; q < ns; q++) for (let k = sp.start[q]; k < sp.start[q + 1]; k++) c[sp.nbr[k] - off]++;
  }

  /**
   * The neighbour search on store.p: fluid pairs, wall records, solid
   * particles with their pairs and boundary masses Ψ. With `reorder`, the
   * fluid's range is first sorted by cell (unless a fluid particle is attached).
   */
  search(ctx: StepContext, reorder: boolean): void {
    const fluid = this.fluid;
    const store = ctx.store;
    const p = store.p;
    // a threaded world runs the pair passes on the pool, in JavaScript over shared records
    this.tasks = ctx.tasks ?? null;
    if (this.tasks !== null) this.grid.share();
    if (this.tasks !== null && !(this.jsAcc.buffer instanceof SharedArrayBuffer)) {
      this.jsAcc = records(this.jsAcc.length, true);
      this.jsPost = records(this.jsPost.length, true);
      this.rho = records(this.rho.length, true);
      this.lambda = records(this.lambda.length, true);
      this.counts = shared32(this.counts.length, true);
    }
    this.solid.reset();
    this.wasmNow = null;
    this.chainedWU = Number.NaN;
    this.pairsInWasm = false;
    this.jsPairs.reset(0);
    this.walls.count = 0;
    this.grid.count = 0;
    const timings = ctx.timings;
    const t0 = clock();
    if (!this.fluidBounds(p, store.x)) return;
    const h = fluid.kernelRadius;
    const n = fluid.activeCount;
    // (shared in a threaded world: the pooled reordering writes it, the pooled records compare with it)
    const shareP = this.tasks !== null && typeof SharedArrayBuffer !== 'undefined';
    // (a threaded world too builds the pairs in WebAssembly, then copies them to shared memory)
    const useWasm = this.kernels === 'wasm' && wasmKernelsEnabled();
    // (made on first use; retried while the module is still compiling on a browser main thread)
    // (a threaded world's instance is on a shared memory: the workers run it too, row-blocks.ts)
    if (useWasm && !this.wasm) this.wasm = FluidWasm.create(this.tasks !== null);
    // (there, on a shared instance, the pair search's own positions: the pooled reordering's PUT writes
    // them, session 23; and its cell starts and sorted list: a shared grid sorts into them, which spares
    // the calling thread the copies of up to 8 n + 1 starts in pb.build and of n items in useBuffers,
    // 0.5 MB each at 128k, session 25)
    const wp = useWasm && shareP && this.wasm?.shared ? this.wasm : null;
    if (wp?.reserve(fluid.capacity, wp.pairCapacity)) {
      this.searchP = wp.posView;
      // (the views hold max(4096, 8 · capacity) + 1 starts and capacity items: setGeometry and
      // NeighbourGrid.ensure below never need more)
      if (this.grid.shared) {
        this.grid.cellStart = wp.cellStartView;
        this.grid.sorted = wp.sortedView;
      }
    } else if (this.searchP.length < 3 * n || (shareP && !(this.searchP.buffer instanceof SharedArrayBuffer)))
      this.searchP = records(3 * fluid.capacity, shareP);
    const b = this.bounds;
    this.grid.setGeometry(b[0], b[1], b[2], b[3], b[4], b[5], h, Math.max(4096, 8 * n));
    this.fillGrid(p);
    const t1 = clock();
    // reorder the range by cell (Fluid): the grid's cells stay valid, its order becomes the identity
    let contiguous = false;
    let searchPDone = false;
    if (reorder && n > 1 && !this.fluidAttached()) {
      // on the pool where it can (row-blocks.ts reorder: x, p, v, the id maps, searchP and the
      // identity order, and the uniformity checks), the rest here
      const sorted = this.grid.sorted;
      const u = this.rows.reorder(
        this.tasks,
        sorted,
        n,
        fluid.offset,
        store,
        fluid.ids,
        fluid.slotOf,
        this.searchP,
      );
      fluid.permute(sorted, this.scratch, this.scratchInt, u);
      if (u !== UNIFORM_ALL) fillRange(this.grid.sorted, n, fluid.offset);
      searchPDone = u >= 0;
      contiguous = true;
    }
    const t2 = clock();
    const w = useWasm ? (this.wasm ?? null) : null;
    let k = -1;
    if (w && contiguous) {
      // on the pool in row blocks where it can (pair-blocks.ts), else in one walk: the same lists
      const size = rowBlockSize(n);
      const pb = this.rows.pairBlocks;
      const put = searchPDone ? this.searchP : null;
      if (this.tasks !== null && w.shared)
        k = pb.build(
          this.tasks,
          this.rows.task,
          w,
          this.grid,
          p,
          fluid.offset,
          n,
          h,
          fluid.capacity,
          size,
          put,
        );
      if (k < 0) k = w.buildPairs(this.grid, p, fluid.offset, n, h, fluid.capacity);
      if (k >= 0 && this.tasks !== null) pb.record(w.startView, n, size);
    }
    if (w && k >= 0) {
      const wp = this.wasmPairs;
      wp.start = w.startView;
      wp.nbr = w.nbrView;
      wp.rows = n;
      wp.count = k;
      this.pairsInWasm = true;
    } else {
      buildForwardPairs(this.grid, p, h, this.jsPairs, fluid.offset, contiguous);
    }
    if (!searchPDone) this.searchP.set(p.subarray(3 * fluid.offset, 3 * (fluid.offset + n)));
    this.useBuffers(n, store);
    this.rows.plan(n, this.grid, contiguous, this.pairs.start);
    const t3 = clock();
    // the wall records of each row block together (walls.ts): on the pool where every collider near is a plane
    if (this.tasks !== null && this.walls.share()) this.rows.refresh();
    this.walls.build(ctx, fluid, this.bounds, this.rows, this.tasks);
    const t4 = clock();
    this.solid.search(ctx, fluid, this.grid, this.bounds);
    // the step's timings (docs/solver.md, "Where the time goes"): the neighbour search's parts
    timings.add(timings.slot('fluid.grid'), t1 - t0);
    timings.add(timings.slot('fluid.reorder'), t2 - t1);
    timings.add(timings.slot('fluid.walls'), t4 - t3);
    timings.add(timings.slot('fluid.pairs'), t3 - t2);
    timings.add(timings.slot('fluid.solids'), clock() - t4);
  }

  /**
   * Points acc, post, live and liveStart at the buffers of the implementation
   * that runs this substep's pair passes; for WebAssembly, copies the pair
   * rows of the search into its memory.
   */
  private useBuffers(n: number, store: ParticleStore): void {
    const { invMass, x, v, p } = store;
    const wasm = this.kernels === 'wasm' && wasmKernelsEnabled() ? (this.wasm ?? null) : null;
    // a threaded world runs the instance only on a shared memory (else the JavaScript twins on shared copies)
    const w = this.tasks === null || wasm?.shared ? wasm : null;
    const pairs = this.pairs;
    if (this.tasks !== null && !w?.reserve(this.fluid.capacity, pairs.count)) {
      this.rows.share(
        n,
        this.grid.sorted,
        pairs.start,
        pairs.nbr,
        pairs.count,
        this.jsAcc,
        this.jsPost,
        invMass,
        x,
        v,
        p,
        this.rho,
        this.lambda,
        this.counts,
      );
      this.acc = this.jsAcc;
      this.post = this.jsPost;
      this.local = this.rows.shared;
      return;
    }
    if (w?.reserve(this.fluid.capacity, pairs.count)) {
      // (nothing to copy where the grid sorted into the instance's list: search)
      if (this.grid.sorted !== w.sortedView) w.sortedView.set(this.grid.sorted.subarray(0, n));
      if (!this.pairsInWasm) {
        w.startView.set(pairs.start.subarray(0, n + 1));
        w.nbrView.set(pairs.nbr.subarray(0, pairs.count));
      }
      this.acc = w.accView;
      this.post = w.postView;
      this.live = w.liveView;
      this.liveStart = w.liveStartView;
      this.wasmNow = w;
    } else {
      if (this.jsLive.length < pairs.count) this.jsLive = new Int32Array(pairs.nbr.length);
      if (this.jsLiveStart.length < n + 1 + MAX_ROW_BLOCKS)
        this.jsLiveStart = new Int32Array(pairs.start.length + MAX_ROW_BLOCKS);
      this.acc = this.jsAcc;
      this.post = this.jsPost;
      this.live = this.jsLive;
      this.liveStart = this.jsLiveStart;
    }
    const start = this.pairs.start,
      nbr = this.pairs.nbr,
      sorted = this.grid.sorted,
      acc = this.acc,
      post = this.post;
    this.local = {
      par: this.rows.par,
      sorted,
      start,
      nbr,
      live: this.live,
      liveStart: this.liveStart,
      acc,
      post,
      invMass,
      x,
      v,
      p,
      rho: this.rho,
      lambda: this.lambda,
      counts: this.counts,
      flags: this.rows.shared.flags,
      k0: this.rows.shared.k0,
      pb: this.rows.shared.pb,
      fused: this.rows.shared.fused,
      done: this.rows.shared.done,
    };
    if (this.tasks !== null && w !== null) this.rows.shareLocal(this.local, w);
  }

  /**
   * One Jacobi iteration of the density constraints (PBF Algorithm 1, lines
   * 10–19): λ_i (eq. 11) for all particles, then Δp_i (eq. 14) for all, then
   * p ← p + Δp.
   */
  project(ctx: StepContext): void {
    if (ctx.reverse) return;
    const fluid = this.fluid;
    const n = fluid.activeCount;
    if (n === 0 || this.grid.count !== n) return;
    const T = this.clocks;
    T.fill(0);
    this.computeLambda(ctx.store, true, ctx.iteration === ctx.iterations - 1);
    this.applyCorrections(ctx.store);
    // the step's timings: the pair passes, the solid passes, the slot passes (records, walls and λ, walls and Δp)
    const timings = ctx.timings;
    timings.add(timings.slot('fluid.pairPasses'), T[0]);
    timings.add(timings.slot('fluid.solidPasses'), T[1]);
    timings.add(timings.slot('fluid.slotPasses'), T[2]);
  }

  /** ms of the last projection in the pair passes, the solid passes and the slot passes (with the walls'). */
  private readonly clocks = new Float64Array(3);

  /**
   * Densities ρ_i, the constraint values and the multipliers
   * λ_i = −C_i / (Σ_k w̃_k |∇_{p_k} C_i|² + ε)   (PBF eqs. 1, 8, 11)
   * from the current predicted positions, with the fluid, solid and wall
   * parts of each sum (density-passes.ts). Also stores, per pair, the spiky gradient
   * factor and s_corr for the correction pass. With `chain`, where the
   * iteration's passes can run as one job on the pool (no solid pass
   * between them), it sets their parameters and leaves them to
   * applyCorrections (FluidRowBlocks.chain: the same numbers). With `keep`
   * (the substep's last iteration, and every call from outside the step) the
   * λ and Δp passes copy ρ and λ by slot into `rho` and `lambda`.
   */
  computeLambda(store: ParticleStore, chain = false, keep = true): void {
    const fluid = this.fluid;
    const n = fluid.activeCount;
    const off = fluid.offset;
    const p = store.p;
    const invMass = store.invMass;
    const h = fluid.kernelRadius;
    const h2 = h * h;
    const rho0 = fluid.restDensity;
    const m = fluid.particleMass;
    // one kernel for the density and its gradient (kernels.ts): W_spiky and ∇W_spiky
    const wSpiky = spikyCoefficient(h);
    const spiky = spikyGradientCoefficient(h);
    const wCoef = m * wSpiky;
    const acc = this.acc;
    const T = this.clocks;
    let t = clock();
    this.selfW = wCoef * h * h * h;
    // after a first iteration that ran as one chain with one shared w̃, the chain sets the records up
    // itself (its first pass, session 24): w̃ is that iteration's (no inverse mass changes within a
    // substep), and the listed pairs are filtered by h (allInside false; where nothing moved, the
    // filter keeps every listed pair, as the search kept them by the same test on the same positions)
    const fold = chain && !Number.isNaN(this.chainedWU);
    const wU = fold
      ? this.chainedWU
      : this.rows.initRecords(this.tasks, this.local, off, m, this.selfW, this.searchP);
    this.wU = wU;
    // (compared block by block with the records on the pool where it can)
    const allInside =
      !fold &&
      (this.rows.same ?? (this.searchP.length >= 3 * n && samePositions(0, n, off, p, this.searchP)));
    this.allInside = allInside;
    const w = this.wasmNow;
    // the twin has no weighted variant: pinned fluid particles run the JavaScript one
    this.gStored = w !== null && !Number.isNaN(wU);
    this.rows.params(DENSITY, off, allInside, h, wU, m, wCoef, (m / rho0) * spiky);
    // the wall part of the density (wallDensityPass) runs with λ, block by block (walls.ts)
    const d = fluid.spacing;
    this.rows.wallParams(
      this.walls.count > 0,
      d,
      ((m / (d * d)) * 30) / (h2 * h2 * h2),
      ((m / (rho0 * d * d)) * 30) / (h2 * h2 * h2),
      rho0,
    );
    this.rows.lambdaParams(
      m,
      1 / rho0,
      fluid.unilateral,
      fluid.relaxation,
      !fluid.unilateral,
      fluid.restNeighbours,
      keep,
    );
    let t1 = clock();
    T[2] += t1 - t;
    this.chainNow = chain && this.solidCount === 0 && FluidRowBlocks.chained;
    this.chainNow &&= this.rows.canPool(this.tasks, this.gStored ? w : null);
    this.initInChain = fold && this.chainNow;
    if (fold && !this.chainNow) this.initAgain(off, m);
    if (this.chainNow) return;
    this.rows.run(this.tasks, this.gStored ? w : null, this.local);
    t = clock();
    T[0] += t - t1;
    if (this.solidCount > 0) {
      solidPass(this.solid, off, p, invMass, m, h, wSpiky, spiky / rho0, acc, null);
    }
    t1 = clock();
    T[1] += t1 - t;
    this.rows.slotPass(this.tasks, this.local, LAMBDA, off);
    T[2] += clock() - t1;
  }

  /** Whether computeLambda left its passes to applyCorrections' chain, with the records' set-up (initInChain). */
  private chainNow = false;
  private initInChain = false;
  /** Iterations whose chain set the records up itself (statistics, tests). */
  chainedRecords = 0;
  /** The shared w̃ of the substep's iterations that ran as one chain so far (NaN: none, or not shared). */
  private chainedWU = Number.NaN;
  /** The records' own density m W(0) (initRecords' `self`), and the w̃ all slots share this iteration (NaN: not shared). */
  private selfW = 0;
  private wU = Number.NaN;

  /** initRecords for a pass that left it to a chain that could not run: the density pass's parameters kept. */
  private initAgain(off: number, m: number): void {
    const P = this.rows.par;
    const pass = P[PASS];
    this.rows.initRecords(this.tasks, this.local, off, m, this.selfW, this.searchP);
    P[PASS] = pass;
  }

  /**
   * Δp_i = w̃_i Σ_j (λ_i + λ_j + s_corr) (m/ρ0) ∇W(p_i − p_j) and, for solid
   * neighbours, Δp_i = w̃_i λ_i (Ψ_b/ρ0) ∇W_ib, Δp_b = −w̃_b λ_i (Ψ_b/ρ0) ∇W_ib
   * (PBF eq. 14); all applied after all are computed (Jacobi).
   */
  applyCorrections(store: ParticleStore): void {
    const fluid = this.fluid;
    const off = fluid.offset;
    const p = store.p;
    const invMass = store.invMass;
    const mF = fluid.particleMass;
    const h = fluid.kernelRadius;
    const acc = this.acc;
    const spiky = spikyGradientCoefficient(h);
    // s_corr (PBF eq. 13) is added to λ (m²): the paper's dimensionless −k (W/W(Δq))ⁿ is divided
    // by S0, so k reads as the density error whose multiplier the artificial pressure equals;
    // W is measured from its value at the rest spacing d (correction-passes.ts)
    const dq = fluid.artificialPressureDeltaQ * h;
    const qd = h * h - dq * dq;
    const qr = h * h - fluid.spacing * fluid.spacing;
    const qRest3 = qr > 0 ? qr * qr * qr : 0;
    const rows = this.rows;
    const T = this.clocks;
    const t0 = clock();
    // the correction pass's numbers (their slots are its alone: the chain's density and λ passes leave them)
    rows.correction(
      fluid.artificialPressureN,
      qRest3,
      1 / (qd * qd * qd - qRest3),
      -fluid.artificialPressureK / fluid.restGradientSquared,
    );
    if (this.chainNow) {
      // one job: density, λ (with the walls' density), correction, Δp (with the walls'); `par` serves all four
      this.chainNow = false;
      const w = this.gStored ? this.wasmNow : null;
      const init = this.initInChain;
      this.initInChain = false;
      if (rows.chain(this.tasks, w, init ? ITERATION_CHAIN_INIT : ITERATION_CHAIN)) {
        this.chainedWU = this.wU;
        if (init) this.chainedRecords++;
        T[0] += clock() - t0;
        return;
      }
      this.chainedWU = Number.NaN;
      if (init) this.initAgain(off, mF);
      rows.run(this.tasks, w, this.local);
      rows.slotPass(this.tasks, this.local, LAMBDA, off);
    }
    rows.params(CORRECTION, off, this.allInside, h, Number.NaN, mF, 0, (mF / fluid.restDensity) * spiky);
    rows.run(this.tasks, this.gStored ? this.wasmNow : null, this.local);
    const t1 = clock();
    T[0] += t1 - t0;
    const ns = this.solidCount;
    if (ns > 0) {
      const dps = this.solid.dps;
      solidPass(this.solid, off, p, invMass, mF, h, 0, spiky / fluid.restDensity, acc, dps);
      const solids = this.solids;
      for (let q = 0; q < ns; q++) {
        const b3 = 3 * solids[q];
        p[b3] += dps[3 * q];
        p[b3 + 1] += dps[3 * q + 1];
        p[b3 + 2] += dps[3 * q + 2];
      }
    }
    // (the wall correction, wallCorrectionPass, runs with applyDeltas, block by block)
    const t2 = clock();
    T[1] += t2 - t1;
    this.rows.slotPass(this.tasks, this.local, APPLY_DELTAS, off);
    T[2] += clock() - t2;
  }

  /**
   * The velocity post-process (PBF Algorithm 1, line 22) and the emitters:
   * vorticity confinement (eqs. 15–16) and XSPH viscosity (eq. 17), both
   * computed from the same velocities and then added.
   */
  endStep(ctx: StepContext): void {
    const fluid = this.fluid;
    const n = fluid.activeCount;
    if (n > 0 && this.grid.count === n && (fluid.viscosity > 0 || fluid.vorticity > 0)) {
      this.postProcess(ctx);
    }
    if (fluid.emitters.length > 0) {
      const added = fluid.emit(ctx.time);
      if (added > 0) this.ensureSlots(fluid.capacity);
    }
  }

  private postProcess(ctx: StepContext): void {
    const fluid = this.fluid;
    const off = fluid.offset;
    const h = fluid.kernelRadius;
    const vol = fluid.particleMass / fluid.restDensity;
    const gCoef = vol * spikyGradientCoefficient(h);
    const vort = fluid.vorticity > 0;
    // the density records are free after the iterations: they hold (v, |ω|, x) now
    const rows = this.rows;
    const w = this.wasmNow;
    rows.params(XSPH, off, false, h, Number.NaN, 0, 0, gCoef);
    rows.xsph(fluid.viscosity * vol * poly6Coefficient(h), vort, fluid.vorticity * ctx.h);
    // one job where it can (`par` serves every pass of it), else pass by pass
    if (rows.chain(this.tasks, w, vort ? POST_CHAIN : POST_CHAIN_XSPH)) return;
    rows.slotPass(this.tasks, this.local, INIT_POST, off);
    rows.par[PASS] = XSPH;
    rows.run(this.tasks, w, this.local);
    if (vort) {
      // PBF eq. 16: N = η/|η| with η = ∇|ω|, acceleration ε (N × ω) over the substep
      rows.slotPass(this.tasks, this.local, VORTICITY_MAGNITUDES, off);
      rows.params(VORTICITY_GRADIENT, off, false, h, Number.NaN, 0, 0, gCoef);
      rows.run(this.tasks, w, this.local);
      rows.slotPass(this.tasks, this.local, VORTICITY_FORCE, off);
    }
    rows.slotPass(this.tasks, this.local, ADD_VELOCITIES, off);
  }

  /** Largest density constraint value C_i⁺ of the last iteration. */
  maxViolation(store: ParticleStore): number {
    void store;
    const n = this.fluid.activeCount;
    const inv = 1 / this.fluid.restDensity;
    let m = 0;
    for (let s = 0; s < n; s++) {
      const C = this.rho[s] * inv - 1;
      if (C > m) m = C;
    }
    return m;
  }
}

/** a[k] = base + k for k < n. */
function fillRange(a: Int32Array, n: number, base: number): void {
  for (let k = 0; k < n; k++) a[k] = base + k;
}
