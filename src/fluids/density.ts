import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import type { ParticleStore } from '../core/particles.js';
import type { WorldBody } from '../core/world-body.js';
import { quatRotate } from '../math/quat.js';
import { wasmKernelsEnabled } from '../wasm/kernels.js';
import type { Fluid } from './fluid.js';
import { poly6Coefficient, spikyGradientCoefficient } from './kernels.js';
import { buildCrossPairs, buildForwardPairs, NeighbourGrid, PairList } from './neighbour-grid.js';
import {
  addVelocities,
  applyDeltas,
  fluidCorrectionPass,
  fluidDensityPass,
  fluidDensityPassWeighted,
  initPostRecords,
  initRecords,
  lambdaPass,
  RECORD,
  solidCorrectionPass,
  solidDensityPass,
  vorticityForce,
  vorticityGradientPass,
  vorticityMagnitudes,
  wallCorrectionPass,
  wallDensityPass,
  xsphVorticityPass,
} from './passes.js';
import { FluidWasm, fluidWasmModule } from './wasm.js';

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
 * (walls, see wallDensityPass in passes.ts).
 */
export class FluidDensity implements ConstraintSet {
  readonly kind = 'fluid-density';
  /**
   * −1: after the attachments (−10) and before every other set, so that the
   * reordering in beginStep happens before any set builds index lists for
   * the substep; the Jacobi iteration then runs before the material sets.
   */
  readonly order = -1;
  enabled = true;
  readonly fluid: Fluid;
  /** The neighbour grid of the fluid particles (on p, rebuilt every substep). */
  readonly grid = new NeighbourGrid();
  /** The grid of the coupled solid particles (same cells). */
  readonly solidGrid = new NeighbourGrid();
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
   * where WebAssembly is available; see wasm.ts) or 'js' (passes.ts). Both
   * give the same numbers bit for bit. Takes effect at the next search.
   */
  kernels: 'wasm' | 'js' = 'wasm';
  /** Which implementation runs the pair passes now (for statistics and the gallery's readout). */
  get activeBackend(): 'wasm' | 'js' {
    return this.kernels === 'wasm' && wasmKernelsEnabled() && fluidWasmModule() !== null ? 'wasm' : 'js';
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
  private jsAcc = new Float64Array(0);
  private jsPost = new Float64Array(0);
  private jsLive = new Int32Array(0);
  private jsLiveStart = new Int32Array(1);
  /**
   * The fluid's positions at the neighbour search (slot order). A density
   * pass at exactly these positions (the first Jacobi iteration, unless an
   * attachment moved a fluid particle) finds every listed pair inside h.
   */
  private searchP = new Float64Array(0);
  /** The rows the correction pass walks: `live` or, after a density pass at the search's positions, `pairs`. */
  private corrStart = this.liveStart;
  private corrNbr = this.live;
  /** Fluid particles near each solid particle (rows over `solids`). */
  readonly solidPairs = new PairList();
  /** Solid particles near each solid particle (for Ψ). */
  private readonly solidSolid = new PairList();
  /** Bodies coupled to the fluid this substep (those with particles near it). */
  readonly coupled: WorldBody[] = [];
  /** Largest |p − x| of a fluid particle this substep (m). */
  maxDisplacement = 0;
  /** Store indices of the coupled solid particles near the fluid this substep. */
  solids = new Int32Array(0);
  solidCount = 0;
  /** Boundary mass Ψ_b of each solid particle (kg). */
  psi = new Float64Array(0);
  /** Row of each solid particle in `solids`, by store index (valid for this substep's solids). */
  private solidSlot = new Int32Array(0);
  /**
   * Wall records: fluid particles within reach of a collider, with the
   * collider's tangent plane at the particle: s(p) = n·p − c is the distance
   * to the collider surface grown by its margin (see wallLayers in kernels.ts).
   */
  wallCount = 0;
  private wallSlot = new Int32Array(0);
  private wallN = new Float64Array(0);
  private wallC = new Float64Array(0);
  private wallG = new Float64Array(0);
  private wallV = new Float64Array(0);
  /** Per slot: Π (1 − V_k) over the walls near it (scratch of the wall pass). */
  private wallP = new Float64Array(0);
  private readonly nrm = new Float64Array(3);

  // per fluid slot
  /** Density ρ_i of each slot from the last iteration (kg/m³). */
  rho = new Float64Array(0);
  /** Multiplier λ_i of each slot from the last iteration (m²). */
  lambda = new Float64Array(0);
  /** Per-slot records of RECORD doubles: sums and positions (see passes.ts). */
  private acc = new Float64Array(0);
  /** Per-slot records of the velocity post-process (Δv, ω; see passes.ts). */
  private post = new Float64Array(0);
  /** Δp of each solid particle in the current iteration. */
  private dps = new Float64Array(0);
  // scratch
  private items = new Int32Array(0);
  private scratch = new Float64Array(0);
  private scratchInt = new Int32Array(0);
  /** Bounds of the predicted positions of the fluid (min xyz, max xyz). */
  readonly bounds = new Float64Array(6);
  /** Solid particle b is used this substep (a body range may be listed by two couplings). */
  private seen = new Uint8Array(0);

  constructor(fluid: Fluid) {
    this.fluid = fluid;
    this.ensureSlots(fluid.capacity);
  }

  get count(): number {
    return this.fluid.activeCount;
  }

  private ensureSlots(n: number): void {
    if (this.rho.length >= n) return;
    this.rho = new Float64Array(n);
    this.lambda = new Float64Array(n);
    this.jsAcc = this.acc = new Float64Array(RECORD * n);
    this.wallP = new Float64Array(n);
    this.jsPost = this.post = new Float64Array(RECORD * n);
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
    let d2 = 0;
    let x0 = Number.POSITIVE_INFINITY,
      y0 = x0,
      z0 = x0,
      x1 = Number.NEGATIVE_INFINITY,
      y1 = x1,
      z1 = x1;
    for (let s = 0; s < n; s++) {
      const i3 = 3 * (off + s);
      const x = pos[i3],
        y = pos[i3 + 1],
        z = pos[i3 + 2];
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      if (z < z0) z0 = z;
      if (z > z1) z1 = z;
      const ex = x - from[i3],
        ey = y - from[i3 + 1],
        ez = z - from[i3 + 2];
      const e2 = ex * ex + ey * ey + ez * ez;
      if (e2 > d2) d2 = e2;
    }
    this.maxDisplacement = Math.sqrt(d2);
    const b = this.bounds;
    b[0] = x0;
    b[1] = y0;
    b[2] = z0;
    b[3] = x1;
    b[4] = y1;
    b[5] = z1;
    return x1 >= x0 && y1 >= y0 && z1 >= z0;
  }

  /** Puts the active fluid particles into `grid` by their positions `pos`. */
  private fillGrid(pos: Float64Array): void {
    const n = this.fluid.activeCount;
    const items = this.items;
    const off = this.fluid.offset;
    fillRange(items, n, off);
    this.grid.insert(pos, items, n);
  }

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
    this.solidCount = 0;
    this.wasmNow = null;
    this.pairsInWasm = false;
    this.jsPairs.reset(0);
    this.solidPairs.reset(0);
    this.wallCount = 0;
    this.grid.count = 0;
    this.coupled.length = 0;
    if (!this.fluidBounds(p, store.x)) return;
    const h = fluid.kernelRadius;
    const n = fluid.activeCount;
    const b = this.bounds;
    this.grid.setGeometry(b[0], b[1], b[2], b[3], b[4], b[5], h, Math.max(4096, 8 * n));
    this.fillGrid(p);
    // reorder the range by cell (Fluid): the grid's cells stay valid, its order becomes the identity
    let contiguous = false;
    if (reorder && n > 1 && !this.fluidAttached()) {
      fluid.permute(this.grid.sorted, this.scratch, this.scratchInt);
      fillRange(this.grid.sorted, n, fluid.offset);
      contiguous = true;
    }
    this.buildWalls(ctx);
    const useWasm = this.kernels === 'wasm' && wasmKernelsEnabled();
    // (made on first use; retried while the module is still compiling on a browser main thread)
    if (useWasm && !this.wasm) this.wasm = FluidWasm.create();
    const w = useWasm ? (this.wasm ?? null) : null;
    const k = w && contiguous ? w.buildPairs(this.grid, p, fluid.offset, n, h, fluid.capacity) : -1;
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
    if (this.searchP.length < 3 * n) this.searchP = new Float64Array(3 * fluid.capacity);
    this.searchP.set(p.subarray(3 * fluid.offset, 3 * (fluid.offset + n)));
    this.useBuffers(n);
    this.gatherSolids(ctx);
    const ns = this.solidCount;
    if (ns === 0) return;
    // fluid partners of each solid particle
    buildCrossPairs(this.grid, p, this.solids, ns, h, this.solidPairs);
    // boundary masses from Σ_k W(p_b − p_k) over the solid particles k (including b itself), as in
    // Akinci et al. 2012, eq. 5; each solid–solid pair is found once and adds to both sums
    this.solidGrid.copyGeometry(this.grid);
    this.solidGrid.insert(p, this.solids, ns);
    buildForwardPairs(this.solidGrid, p, h, this.solidSolid);
    const h2 = h * h;
    const psi = this.psi;
    const slot = this.solidSlot;
    const sorted = this.solidGrid.sorted;
    // solid row q of the cross pairs is solids[q]; the solid grid's order differs: map store index → q
    for (let q = 0; q < ns; q++) slot[this.solids[q]] = q;
    psi.fill(h2 * h2 * h2, 0, ns);
    const st = this.solidSolid.start,
      nb = this.solidSolid.nbr;
    for (let a = 0; a < ns; a++) {
      const b = sorted[a];
      const b3 = 3 * b;
      const qb = slot[b];
      let sum = 0;
      for (let k = st[a]; k < st[a + 1]; k++) {
        const j = nb[k];
        const j3 = 3 * j;
        const dx = p[b3] - p[j3],
          dy = p[b3 + 1] - p[j3 + 1],
          dz = p[b3 + 2] - p[j3 + 2];
        const u = h2 - (dx * dx + dy * dy + dz * dz);
        const w = u * u * u;
        sum += w;
        psi[slot[j]] += w;
      }
      psi[qb] += sum;
    }
    // Ψ_b = ρ0 d A_b: the solid particles sample surfaces, one layer each, and a particle stands
    // for a slab of rest-density matter one spacing d thick over its share A_b of the surface. A
    // planar layer has Σ_k W_bk = (π K/4) h⁸ / A_b (the plane integral of poly6, see wallLayers),
    // so Ψ_b = γ ρ0 / Σ_k W_bk with γ = d (π K/4) h⁸ = 315 d / (256 h): Akinci's boundary mass
    // (2012, eq. 5) scaled by γ (0.615 for h = 2d). Unscaled, a layer weighs as the whole half
    // space behind it would at h ≥ 4d, and with h = 2d pushes the fluid next to it to 1.12 ρ0.
    const gamma = (315 * fluid.spacing) / (256 * h);
    const scale = (gamma * fluid.restDensity) / poly6Coefficient(h);
    for (let q = 0; q < ns; q++) psi[q] = scale / psi[q];
  }

  /**
   * Points acc, post, live and liveStart at the buffers of the implementation
   * that runs this substep's pair passes; for WebAssembly, copies the pair
   * rows of the search into its memory.
   */
  private useBuffers(n: number): void {
    const w = this.kernels === 'wasm' && wasmKernelsEnabled() ? (this.wasm ?? null) : null;
    const pairs = this.pairs;
    if (w?.reserve(this.fluid.capacity, pairs.count)) {
      w.sortedView.set(this.grid.sorted.subarray(0, n));
      if (!this.pairsInWasm) {
        w.startView.set(pairs.start.subarray(0, n + 1));
        w.nbrView.set(pairs.nbr.subarray(0, pairs.count));
      }
      this.acc = w.accView;
      this.post = w.postView;
      this.live = w.liveView;
      this.liveStart = w.liveStartView;
      this.wasmNow = w;
      return;
    }
    if (this.jsLive.length < pairs.count) this.jsLive = new Int32Array(pairs.nbr.length);
    if (this.jsLiveStart.length < n + 1) this.jsLiveStart = new Int32Array(pairs.start.length);
    this.acc = this.jsAcc;
    this.post = this.jsPost;
    this.live = this.jsLive;
    this.liveStart = this.jsLiveStart;
  }

  /**
   * Finds the fluid particles within 1.5 h of a collider (enabled, and whose
   * group and mask match the fluid's) and records the collider's tangent
   * plane there. Planes take a fast path (one dot product per particle).
   */
  private buildWalls(ctx: StepContext): void {
    const fluid = this.fluid;
    const cols = ctx.world.colliders;
    if (cols.length === 0) return;
    const store = ctx.store;
    const p = store.p;
    const n = fluid.activeCount;
    const off = fluid.offset;
    const reach = 1.5 * fluid.kernelRadius;
    const fg = store.group[off],
      fm = store.mask[off];
    const nrm = this.nrm;
    const b = this.bounds;
    let k = 0;
    for (let c = 0; c < cols.length; c++) {
      const col = cols[c];
      if (!col.enabled || (fm & col.group) === 0 || (col.mask & fg) === 0) continue;
      const margin = col.margin;
      if (col.type === 'plane') {
        quatRotate(nrm, 0, col.rotation, 0, 0, 1, 0);
        const nx = nrm[0],
          ny = nrm[1],
          nz = nrm[2];
        const cc = nx * col.position[0] + ny * col.position[1] + nz * col.position[2] + margin;
        // the whole fluid is out of reach when its bounding box is
        const lo =
          (nx > 0 ? nx * b[0] : nx * b[3]) +
          (ny > 0 ? ny * b[1] : ny * b[4]) +
          (nz > 0 ? nz * b[2] : nz * b[5]);
        if (lo - cc >= reach) continue;
        // geometric growth: the planes' counts change a little every step, so room for exactly k + n
        // was short again at the next plane or step (each growth copies the records)
        if (k + n > this.wallSlot.length) this.growWalls(Math.max(2 * this.wallSlot.length, k + n + 256));
        k = planeWalls(n, off, p, nx, ny, nz, cc, reach, k, this.wallSlot, this.wallN, this.wallC);
      } else {
        const R = col.boundingRadius() + margin + reach;
        const cx = col.position[0],
          cy = col.position[1],
          cz = col.position[2];
        for (let s = 0; s < n; s++) {
          const i3 = 3 * (off + s);
          const px = p[i3],
            py = p[i3 + 1],
            pz = p[i3 + 2];
          const ex = px - cx,
            ey = py - cy,
            ez = pz - cz;
          if (ex * ex + ey * ey + ez * ez > R * R) continue;
          const sd = col.distance(px, py, pz, nrm) - margin;
          if (sd >= reach) continue;
          if (k === this.wallSlot.length) this.growWalls(2 * k + 256);
          this.wallSlot[k] = s;
          this.wallN[3 * k] = nrm[0];
          this.wallN[3 * k + 1] = nrm[1];
          this.wallN[3 * k + 2] = nrm[2];
          this.wallC[k] = nrm[0] * px + nrm[1] * py + nrm[2] * pz - sd;
          k++;
        }
      }
    }
    this.wallCount = k;
  }

  private growWalls(cap: number): void {
    const g = <T extends Float64Array | Int32Array>(a: T, stride: number): T => {
      const out = new (a.constructor as new (n: number) => T)(cap * stride);
      out.set(a);
      return out;
    };
    this.wallSlot = g(this.wallSlot, 1);
    this.wallN = g(this.wallN, 3);
    this.wallC = g(this.wallC, 1);
    this.wallG = g(this.wallG, 1);
    this.wallV = g(this.wallV, 1);
  }

  /** Collects the particles of coupled bodies (and the boundary particles) near the fluid. */
  private gatherSolids(ctx: StepContext): void {
    const fluid = this.fluid;
    const world = fluid.world;
    const store = ctx.store;
    const p = store.p;
    const h = fluid.kernelRadius;
    const b = this.bounds;
    const x0 = b[0] - h,
      y0 = b[1] - h,
      z0 = b[2] - h,
      x1 = b[3] + h,
      y1 = b[4] + h,
      z1 = b[5] + h;
    if (this.seen.length < store.count) {
      this.seen = new Uint8Array(store.capacity);
      this.solidSlot = new Int32Array(store.capacity);
    }
    let ns = 0;
    const fg = store.group[fluid.offset],
      fm = store.mask[fluid.offset];
    const add = (first: number, count: number) => {
      for (let i = first; i < first + count; i++) {
        if (this.seen[i]) continue;
        if ((fm & store.group[i]) === 0 || (store.mask[i] & fg) === 0) continue;
        const i3 = 3 * i;
        const x = p[i3],
          y = p[i3 + 1],
          z = p[i3 + 2];
        if (x < x0 || x > x1 || y < y0 || y > y1 || z < z0 || z > z1) continue;
        if (ns === this.solids.length) this.growSolids(2 * ns + 256);
        this.seen[i] = 1;
        this.solids[ns++] = i;
      }
    };
    add(fluid.boundaryOffset, fluid.boundaryCount);
    const couple = fluid.couple;
    this.coupled.length = 0;
    if (couple !== 'none') {
      for (const body of world.bodies) {
        if (body === fluid || body.type === 'fluid') continue;
        if (couple !== 'all' && !couple.includes(body.name)) continue;
        const before = ns;
        add(body.offset, body.activeCount);
        if (ns > before) this.coupled.push(body);
      }
    }
    for (let q = 0; q < ns; q++) this.seen[this.solids[q]] = 0;
    this.solidCount = ns;
    if (this.psi.length < ns) this.psi = new Float64Array(this.solids.length);
    if (this.dps.length < 3 * ns) this.dps = new Float64Array(3 * this.solids.length);
  }

  private growSolids(n: number): void {
    const s = new Int32Array(n);
    s.set(this.solids);
    this.solids = s;
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
    this.computeLambda(ctx.store);
    this.applyCorrections(ctx.store);
  }

  /**
   * Densities ρ_i, the constraint values and the multipliers
   * λ_i = −C_i / (Σ_k w̃_k |∇_{p_k} C_i|² + ε)   (PBF eqs. 1, 8, 11)
   * from the current predicted positions, with the fluid, solid and wall
   * parts of each sum (passes.ts). Also stores, per pair, the spiky gradient
   * factor and s_corr for the correction pass.
   */
  computeLambda(store: ParticleStore): void {
    const fluid = this.fluid;
    const n = fluid.activeCount;
    const off = fluid.offset;
    const p = store.p;
    const invMass = store.invMass;
    const h = fluid.kernelRadius;
    const h2 = h * h;
    const rho0 = fluid.restDensity;
    const m = fluid.particleMass;
    const poly = poly6Coefficient(h);
    const spiky = spikyGradientCoefficient(h);
    const wCoef = m * poly;
    const acc = this.acc;
    const wU = initRecords(n, off, p, invMass, m, wCoef * h2 * h2 * h2, acc);
    const sorted = this.grid.sorted,
      start = this.pairs.start,
      nbr = this.pairs.nbr;
    const live = this.live,
      liveStart = this.liveStart;
    const allInside = samePositions(n, off, p, this.searchP);
    this.corrStart = allInside ? start : liveStart;
    this.corrNbr = allInside ? nbr : live;
    this.allInside = allInside;
    const w = this.wasmNow;
    this.gStored = w !== null && !Number.isNaN(wU);
    if (w !== null && !Number.isNaN(wU))
      w.x.fluidDensityPass(
        n,
        off,
        w.sorted,
        w.start,
        w.nbr,
        wU,
        h,
        wCoef,
        (m / rho0) * spiky,
        w.acc,
        w.live,
        w.liveStart,
        allInside,
        w.gBuf,
      );
    else if (!Number.isNaN(wU))
      fluidDensityPass(
        n,
        off,
        sorted,
        start,
        nbr,
        wU,
        h,
        wCoef,
        (m / rho0) * spiky,
        acc,
        live,
        liveStart,
        allInside,
      );
    else
      fluidDensityPassWeighted(
        n,
        off,
        sorted,
        start,
        nbr,
        invMass,
        m,
        h,
        wCoef,
        (m / rho0) * spiky,
        acc,
        live,
        liveStart,
        allInside,
      );
    if (this.solidCount > 0) {
      solidDensityPass(
        this.solidCount,
        this.solids,
        this.psi,
        this.solidPairs.start,
        this.solidPairs.nbr,
        off,
        p,
        invMass,
        m,
        h,
        poly,
        spiky / rho0,
        acc,
      );
    }
    if (this.wallCount > 0) {
      const d = fluid.spacing;
      wallDensityPass(
        this.wallCount,
        this.wallSlot,
        this.wallN,
        this.wallC,
        this.wallG,
        this.wallV,
        this.wallP,
        off,
        p,
        d,
        h,
        (m * Math.PI * poly) / (4 * d * d),
        ((m / (rho0 * d * d)) * 30) / (h2 * h2 * h2),
        rho0,
        acc,
      );
    }
    lambdaPass(n, off, invMass, m, 1 / rho0, fluid.unilateral, fluid.relaxation, acc, this.rho);
  }

  /**
   * Δp_i = w̃_i Σ_j (λ_i + λ_j + s_corr) (m/ρ0) ∇W(p_i − p_j) and, for solid
   * neighbours, Δp_i = w̃_i λ_i (Ψ_b/ρ0) ∇W_ib, Δp_b = −w̃_b λ_i (Ψ_b/ρ0) ∇W_ib
   * (PBF eq. 14); all applied after all are computed (Jacobi).
   */
  applyCorrections(store: ParticleStore): void {
    const fluid = this.fluid;
    const n = fluid.activeCount;
    const off = fluid.offset;
    const p = store.p;
    const invMass = store.invMass;
    const mF = fluid.particleMass;
    const h = fluid.kernelRadius;
    const acc = this.acc;
    const spiky = spikyGradientCoefficient(h);
    // s_corr (PBF eq. 13) is added to λ (m²): the paper's dimensionless −k (W/W(Δq))ⁿ is divided
    // by S0, so k reads as the density error whose multiplier the artificial pressure equals
    const dq = fluid.artificialPressureDeltaQ * h;
    const qd = h * h - dq * dq;
    const w = this.wasmNow;
    if (w !== null && this.gStored)
      w.x.fluidCorrectionPass(
        n,
        off,
        w.sorted,
        this.allInside ? w.start : w.liveStart,
        this.allInside ? w.nbr : w.live,
        h,
        fluid.artificialPressureN,
        1 / (qd * qd * qd),
        -fluid.artificialPressureK / fluid.restGradientSquared,
        w.acc,
        w.gBuf,
      );
    else
      fluidCorrectionPass(
        n,
        off,
        this.grid.sorted,
        this.corrStart,
        this.corrNbr,
        h,
        (mF / fluid.restDensity) * spiky,
        fluid.artificialPressureN,
        1 / (qd * qd * qd),
        -fluid.artificialPressureK / fluid.restGradientSquared,
        acc,
      );
    const ns = this.solidCount;
    if (ns > 0) {
      const dps = this.dps;
      solidCorrectionPass(
        ns,
        this.solids,
        this.psi,
        this.solidPairs.start,
        this.solidPairs.nbr,
        off,
        p,
        invMass,
        mF,
        h,
        spiky / fluid.restDensity,
        acc,
        dps,
      );
      const solids = this.solids;
      for (let q = 0; q < ns; q++) {
        const b3 = 3 * solids[q];
        p[b3] += dps[3 * q];
        p[b3 + 1] += dps[3 * q + 1];
        p[b3 + 2] += dps[3 * q + 2];
      }
    }
    if (this.wallCount > 0) {
      wallCorrectionPass(this.wallCount, this.wallSlot, this.wallN, this.wallG, acc);
    }
    applyDeltas(n, off, p, acc, this.lambda);
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
    const store = ctx.store;
    const n = fluid.activeCount;
    const off = fluid.offset;
    const h = fluid.kernelRadius;
    const vol = fluid.particleMass / fluid.restDensity;
    const gCoef = vol * spikyGradientCoefficient(h);
    const vort = fluid.vorticity > 0;
    // the density records are free after the iterations: they hold (v, |ω|, x) now
    const R = this.acc,
      Q = this.post;
    initPostRecords(n, off, store.x, store.v, R, Q);
    const sorted = this.grid.sorted;
    const w = this.wasmNow;
    const cW = fluid.viscosity * vol * poly6Coefficient(h);
    if (w !== null)
      w.x.xsphVorticityPass(
        n,
        off,
        w.sorted,
        w.start,
        w.nbr,
        w.acc,
        h,
        cW,
        gCoef,
        vort,
        w.post,
        w.live,
        w.liveStart,
        w.gBuf,
      );
    else
      xsphVorticityPass(
        n,
        off,
        sorted,
        this.pairs.start,
        this.pairs.nbr,
        R,
        h,
        cW,
        gCoef,
        vort,
        Q,
        this.live,
        this.liveStart,
      );
    if (vort) {
      // PBF eq. 16: N = η/|η| with η = ∇|ω|, acceleration ε (N × ω) over the substep
      vorticityMagnitudes(n, R, Q);
      if (w !== null) w.x.vorticityGradientPass(n, off, w.sorted, w.liveStart, w.live, w.acc, w.gBuf);
      else vorticityGradientPass(n, off, sorted, this.liveStart, this.live, R, h, gCoef);
      vorticityForce(n, fluid.vorticity * ctx.h, R, Q);
    }
    addVelocities(n, off, store.invMass, store.v, Q);
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

/** True when the n active slots of p (from store index off) hold exactly the positions `q` (slot order). */
function samePositions(n: number, off: number, p: Float64Array, q: Float64Array): boolean {
  if (q.length < 3 * n) return false;
  const o3 = 3 * off;
  for (let k = 0; k < 3 * n; k++) if (p[o3 + k] !== q[k]) return false;
  return true;
}

/** a[k] = base + k for k < n. */
function fillRange(a: Int32Array, n: number, base: number): void {
  for (let k = 0; k < n; k++) a[k] = base + k;
}

/**
 * Wall records of one plane n·p = c (buildWalls): every active slot with
 * n·p − c < reach, from record k on (room for n more is there). Returns the new count.
 */
function planeWalls(
  n: number,
  off: number,
  p: Float64Array,
  nx: number,
  ny: number,
  nz: number,
  c: number,
  reach: number,
  k: number,
  slot: Int32Array,
  wn: Float64Array,
  wc: Float64Array,
): number {
  for (let s = 0; s < n; s++) {
    const i3 = 3 * (off + s);
    const sd = nx * p[i3] + ny * p[i3 + 1] + nz * p[i3 + 2] - c;
    if (sd >= reach) continue;
    slot[k] = s;
    wn[3 * k] = nx;
    wn[3 * k + 1] = ny;
    wn[3 * k + 2] = nz;
    wc[k] = c;
    k++;
  }
  return k;
}
