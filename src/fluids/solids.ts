import type { StepContext } from '../core/constraint-set.js';
import type { WorldBody } from '../core/world-body.js';
import type { FluidBody } from './fluid-body.js';
import { spikyCoefficient } from './kernels.js';
import { buildCrossPairs, buildForwardPairs, NeighbourGrid, PairList } from './neighbour-grid.js';

/**
 * The solid particles a fluid is coupled to in one substep: particles of
 * coupled bodies and the fluid's static boundary particles near it, their
 * fluid partners, and their boundary masses Ψ (after Akinci et al. 2012,
 * eq. 5, scaled for one-layer surfaces; see search()). The density passes
 * read them as the solid part of each particle's density (density-passes.ts
 * solidPass).
 */
export class CoupledSolids {
  /** Store indices of the solid particles near the fluid this substep. */
  solids = new Int32Array(0);
  count = 0;
  /** Boundary mass Ψ_b of each solid particle (kg). */
  psi = new Float64Array(0);
  /** Fluid particles near each solid particle (rows over `solids`). */
  readonly pairs = new PairList();
  /** Bodies coupled to the fluid this substep (those with particles near it). */
  readonly coupled: WorldBody[] = [];
  /** Δp of each solid particle in the current iteration (3 each). */
  dps = new Float64Array(0);
  /** The grid of the solid particles (same cells as the fluid's). */
  private readonly grid = new NeighbourGrid();
  /** Solid particles near each solid particle (for Ψ). */
  private readonly solidSolid = new PairList();
  /** Row of each solid particle in `solids`, by store index (valid for this substep's solids). */
  private slot = new Int32Array(0);
  /** Solid particle b is used this substep (a body range may be listed by two couplings). */
  private seen = new Uint8Array(0);

  /** Forgets the last substep's solids. */
  reset(): void {
    this.count = 0;
    this.pairs.reset(0);
    this.coupled.length = 0;
  }

  /**
   * Collects the solid particles within h of the fluid's bounds (`bounds`:
   * min xyz, max xyz), finds their fluid partners in `fluidGrid` and their
   * boundary masses Ψ.
   */
  search(ctx: StepContext, fluid: FluidBody, fluidGrid: NeighbourGrid, bounds: Float64Array): void {
    this.gather(ctx, fluid, bounds);
    const ns = this.count;
    if (ns === 0) return;
    const p = ctx.store.p;
    const h = fluid.kernelRadius;
    // fluid partners of each solid particle
    buildCrossPairs(fluidGrid, p, this.solids, ns, h, this.pairs);
    // boundary masses from Σ_k W(p_b − p_k) over the solid particles k (including b itself), as in
    // Akinci et al. 2012, eq. 5; each solid–solid pair is found once and adds to both sums
    this.grid.copyGeometry(fluidGrid);
    this.grid.insert(p, this.solids, ns);
    buildForwardPairs(this.grid, p, h, this.solidSolid);
    const h2 = h * h;
    const psi = this.psi;
    const slot = this.slot;
    const sorted = this.grid.sorted;
    // solid row q of the cross pairs is solids[q]; the solid grid's order differs: map store index → q
    for (let q = 0; q < ns; q++) slot[this.solids[q]] = q;
    psi.fill(h * h * h, 0, ns);
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
        const r2 = dx * dx + dy * dy + dz * dz;
        const t = r2 < h2 ? h - Math.sqrt(r2) : 0;
        const w = t * t * t;
        sum += w;
        psi[slot[j]] += w;
      }
      psi[qb] += sum;
    }
    // Ψ_b = 2 ρ0 d A_b: the solid particles sample surfaces, one layer each, and a particle stands
    // for a slab of rest-density matter one spacing d thick over its share A_b of the surface. A
    // planar layer has Σ_k W_bk = (30/h⁶)(h⁵/20) / A_b = 1.5 / (h A_b) (the plane integral of the
    // density kernel at z = 0, see wallLayers), so ρ0 d A_b = 1.5 ρ0 d / (h Σ_k W_bk) — Akinci's
    // boundary mass (2012, eq. 5) scaled for a one-layer surface. It is doubled because only the
    // fluid particle's constraint acts on a fluid–solid pair: a fluid–fluid pair is moved by
    // λ_i + λ_j, a fluid–solid pair by λ_i alone, so a layer of the slab's mass passes on half the
    // pressure of the fluid it stands for (the solid's own multiplier, mirrored, is missing; Band et
    // al. 2018). With ρ0 d A_b a balloon of half the density of water floated 61 % submerged, with
    // twice that 50 % (test/fluids.test.ts); the fluid next to a layer is then about 7 % denser.
    const gamma = (3 * fluid.spacing) / h;
    const scale = (gamma * fluid.restDensity) / spikyCoefficient(h);
    for (let q = 0; q < ns; q++) psi[q] = scale / psi[q];
  }

  /** Collects the particles of coupled bodies (and the boundary particles) near the fluid. */
  private gather(ctx: StepContext, fluid: FluidBody, bounds: Float64Array): void {
    const world = fluid.world;
    const store = ctx.store;
    const p = store.p;
    const h = fluid.kernelRadius;
    const b = bounds;
    const x0 = b[0] - h,
      y0 = b[1] - h,
      z0 = b[2] - h,
      x1 = b[3] + h,
      y1 = b[4] + h,
      z1 = b[5] + h;
    if (this.seen.length < store.count) {
      this.seen = new Uint8Array(store.capacity);
      this.slot = new Int32Array(store.capacity);
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
        if (ns === this.solids.length) this.grow(2 * ns + 256);
        this.seen[i] = 1;
        this.solids[ns++] = i;
      }
    };
    add(fluid.boundaryOffset, fluid.boundaryCount);
    const couple = fluid.couple;
    this.coupled.length = 0;
    if (couple !== 'none') {
      for (const body of world.bodies) {
        // (the fluid itself is one of these)
        if (body.type === 'fluid') continue;
        if (couple !== 'all' && !couple.includes(body.name)) continue;
        const before = ns;
        add(body.offset, body.activeCount);
        if (ns > before) this.coupled.push(body);
      }
    }
    for (let q = 0; q < ns; q++) this.seen[this.solids[q]] = 0;
    this.count = ns;
    if (this.psi.length < ns) this.psi = new Float64Array(this.solids.length);
    if (this.dps.length < 3 * ns) this.dps = new Float64Array(3 * this.solids.length);
  }

  private grow(n: number): void {
    const s = new Int32Array(n);
    s.set(this.solids);
    this.solids = s;
  }
}
