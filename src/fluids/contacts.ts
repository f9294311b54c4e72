import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { grownArray } from '../math/arrays.js';
import { edgeCross, edgeCrossOut } from '../mesh/triangle-mesh.js';
import type { FluidDensity } from './density.js';
import type { FluidBody } from './fluid-body.js';

const cell0 = new Int32Array(3);
const cell1 = new Int32Array(3);

/** triangleFrame's output: e = p_b − p_a (0–2), f = p_c − p_a (3–5), n = e × f (6–8), e·e, e·f, f·f (9–11). */
const frame = new Float64Array(12);

/**
 * The edges, normal e × f and Gram entries of triangle (a, b, c) (offsets into p) into `frame`, for
 * 003 §3.4's point–triangle contact: the search and the projection share it. Returns |e × f|.
 */
function triangleFrame(p: Float64Array, a3: number, b3: number, c3: number): number {
  const ax = p[a3],
    ay = p[a3 + 1],
    az = p[a3 + 2];
  const ex = p[b3] - ax,
    ey = p[b3 + 1] - ay,
    ez = p[b3 + 2] - az,
    fx = p[c3] - ax,
    fy = p[c3 + 1] - ay,
    fz = p[c3 + 2] - az;
  frame[0] = ex;
  frame[1] = ey;
  frame[2] = ez;
  frame[9] = ex * ex + ey * ey + ez * ez;
  frame[3] = fx;
  frame[4] = fy;
  frame[5] = fz;
  frame[10] = ex * fx + ey * fy + ez * fz;
  frame[11] = fx * fx + fy * fy + fz * fz;
  frame[6] = ey * fz - ez * fy;
  frame[7] = ez * fx - ex * fz;
  frame[8] = ex * fy - ey * fx;
  return Math.sqrt(frame[6] * frame[6] + frame[7] * frame[7] + frame[8] * frame[8]);
}

/**
 * Contacts of the fluid particles with coupled bodies, projected with the
 * collision sets (order 100) after each density iteration:
 *
 * - particle contacts with every coupled particle (and boundary particle):
 *   C = |p_i − p_b| − (r_i + r_b) ≥ 0, projected with the inverse masses of
 *   both (003 §3.3), so a light cloth is pushed more than a heavy one. The
 *   pairs are the fluid–solid pairs of the density set.
 * - point–triangle contacts with the triangles of coupled bodies that have a
 *   surface (cloth, balloons): 003 §3.4 and §4.3, eqs. 12–13: a fluid
 *   particle q near triangle (p1, p2, p3) keeps to the side it was on at the
 *   start of the substep, C = σ (q − p1)·n − (r_q + t) ≥ 0 with n the unit
 *   normal, σ = ±1 that side and t the triangle's thickness (the radius of its
 *   vertices). The triangle's share of the correction goes to its vertices by
 *   the barycentric weights b_k of the contact point (∇_q C = σn,
 *   ∇_{p_k} C = −b_k σn, so Σ ∇C = 0 and momentum is conserved). Without them
 *   fast particles slip between cloth vertices.
 */
export class FluidSolidContacts implements ConstraintSet {
  readonly kind = 'fluid-solid-contact';
  readonly order = 100;
  enabled = true;
  private readonly fluid: FluidBody;
  /** The fluid's density set, whose search finds the coupled bodies and the fluid–solid pairs. */
  private readonly density: FluidDensity;
  /** Point–triangle contacts of this substep: fluid particle, three vertices, side. */
  triCount = 0;
  private triParticle = new Int32Array(0);
  private triVerts = new Int32Array(0);
  private triSide = new Float64Array(0);
  private triThick = new Float64Array(0);

  constructor(fluid: FluidBody, density: FluidDensity) {
    this.fluid = fluid;
    this.density = density;
    this.growTriangles(64);
  }

  get count(): number {
    return this.density.solidPairs.count + this.triCount;
  }

  private growTriangles(cap: number): void {
    // each per-triangle array with room for cap contacts, its first ones kept (math/arrays.ts)
    const g = <T extends Float64Array | Int32Array>(a: T, stride: number): T =>
      grownArray(a, cap * stride, Math.min(a.length, cap * stride));
    this.triParticle = g(this.triParticle, 1);
    this.triVerts = g(this.triVerts, 3);
    this.triSide = g(this.triSide, 1);
    this.triThick = g(this.triThick, 1);
  }

  /**
   * Finds, for every triangle of a coupled body near the fluid, the fluid
   * particles whose predicted position lies over the triangle (barycentric
   * coordinates of its projection ≥ −10 %) and not farther than the contact
   * distance on the side they started from — or past it (003 §4.3: "a vertex
   * moves through a triangle").
   */
  beginStep(ctx: StepContext): void {
    this.triCount = 0;
    const d = this.density;
    const grid = d.grid;
    if (grid.count === 0 || d.coupled.length === 0) return;
    const store = ctx.store;
    const { x, p, radius } = store;
    const sorted = grid.sorted,
      cellStart = grid.cellStart;
    const nx = grid.nx,
      ny = grid.ny;
    const b = d.bounds;
    const rf = this.fluid.particleRadius;
    const slack = d.maxDisplacement;
    let k = 0;
    for (const body of d.coupled) {
      const tris = body.contactTriangles();
      const nt = tris.length / 3;
      const off = body.offset;
      for (let t = 0; t < nt; t++) {
        const ia = off + tris[3 * t],
          ib = off + tris[3 * t + 1],
          ic = off + tris[3 * t + 2];
        const a3 = 3 * ia,
          b3 = 3 * ib,
          c3 = 3 * ic;
        const thick = Math.max(radius[ia], radius[ib], radius[ic]);
        const reach = rf + thick + 0.5 * rf + slack;
        let lo0 = Math.min(x[a3], x[b3], x[c3], p[a3], p[b3], p[c3]) - reach;
        let hi0 = Math.max(x[a3], x[b3], x[c3], p[a3], p[b3], p[c3]) + reach;
        if (hi0 < b[0] || lo0 > b[3]) continue;
        let lo1 = Math.min(x[a3 + 1], x[b3 + 1], x[c3 + 1], p[a3 + 1], p[b3 + 1], p[c3 + 1]) - reach;
        let hi1 = Math.max(x[a3 + 1], x[b3 + 1], x[c3 + 1], p[a3 + 1], p[b3 + 1], p[c3 + 1]) + reach;
        if (hi1 < b[1] || lo1 > b[4]) continue;
        let lo2 = Math.min(x[a3 + 2], x[b3 + 2], x[c3 + 2], p[a3 + 2], p[b3 + 2], p[c3 + 2]) - reach;
        let hi2 = Math.max(x[a3 + 2], x[b3 + 2], x[c3 + 2], p[a3 + 2], p[b3 + 2], p[c3 + 2]) + reach;
        if (hi2 < b[2] || lo2 > b[5]) continue;
        lo0 = Math.max(lo0, b[0]);
        hi0 = Math.min(hi0, b[3]);
        lo1 = Math.max(lo1, b[1]);
        hi1 = Math.min(hi1, b[4]);
        lo2 = Math.max(lo2, b[2]);
        hi2 = Math.min(hi2, b[5]);
        // normals at the start (x) and at the prediction (p)
        edgeCross(x, a3, b3, c3);
        const n0x = edgeCrossOut[0],
          n0y = edgeCrossOut[1],
          n0z = edgeCrossOut[2];
        const nl = triangleFrame(p, a3, b3, c3);
        if (!(nl > 1e-20)) continue;
        const nx1 = frame[6] / nl,
          ny1 = frame[7] / nl,
          nz1 = frame[8] / nl;
        // barycentric set-up on the predicted triangle
        const d00 = frame[9],
          d01 = frame[10],
          d11 = frame[11];
        const den = d00 * d11 - d01 * d01;
        if (!(den > 1e-30)) continue;
        const contact = rf + thick;
        grid.cellCoords(lo0, lo1, lo2, cell0);
        grid.cellCoords(hi0, hi1, hi2, cell1);
        for (let cz = cell0[2]; cz <= cell1[2]; cz++) {
          for (let cy = cell0[1]; cy <= cell1[1]; cy++) {
            const base = nx * (cy + ny * cz);
            const e = cellStart[base + cell1[0] + 1];
            for (let s = cellStart[base + cell0[0]]; s < e; s++) {
              const i = sorted[s];
              const i3 = 3 * i;
              const qx = p[i3] - p[a3],
                qy = p[i3 + 1] - p[a3 + 1],
                qz = p[i3 + 2] - p[a3 + 2];
              const side0 =
                (x[i3] - x[a3]) * n0x + (x[i3 + 1] - x[a3 + 1]) * n0y + (x[i3 + 2] - x[a3 + 2]) * n0z;
              const sigma = side0 >= 0 ? 1 : -1;
              const dist = sigma * (qx * nx1 + qy * ny1 + qz * nz1);
              if (dist >= contact + 0.5 * rf) continue;
              // a particle that ends far beyond the triangle did not come from near it
              if (dist < -contact - slack) continue;
              const q0 = qx * frame[0] + qy * frame[1] + qz * frame[2],
                q1 = qx * frame[3] + qy * frame[4] + qz * frame[5];
              const v = (d11 * q0 - d01 * q1) / den,
                w = (d00 * q1 - d01 * q0) / den;
              if (v < -0.1 || w < -0.1 || v + w > 1.1) continue;
              if (k === this.triParticle.length) this.growTriangles(2 * k);
              this.triParticle[k] = i;
              this.triVerts[3 * k] = ia;
              this.triVerts[3 * k + 1] = ib;
              this.triVerts[3 * k + 2] = ic;
              this.triSide[k] = sigma;
              this.triThick[k] = contact;
              k++;
            }
          }
        }
      }
    }
    this.triCount = k;
  }

  project(ctx: StepContext): void {
    this.projectParticles(ctx);
    if (this.triCount > 0) this.projectTriangles(ctx);
  }

  private projectParticles(ctx: StepContext): void {
    const d = this.density;
    const ns = d.solidCount;
    if (ns === 0) return;
    const { p, invMass, radius } = ctx.store;
    const st = d.solidPairs.start,
      sn = d.solidPairs.nbr,
      solids = d.solids;
    for (let q = 0; q < ns; q++) {
      const b = solids[q];
      const b3 = 3 * b;
      const wb = invMass[b];
      const rb = radius[b];
      const e = st[q + 1];
      for (let k = st[q]; k < e; k++) {
        const i = sn[k];
        const i3 = 3 * i;
        const wi = invMass[i];
        const w = wi + wb;
        if (w === 0) continue;
        const dmin = radius[i] + rb;
        let dx = p[i3] - p[b3],
          dy = p[i3 + 1] - p[b3 + 1],
          dz = p[i3 + 2] - p[b3 + 2];
        const r2 = dx * dx + dy * dy + dz * dz;
        if (r2 >= dmin * dmin) continue;
        let r = Math.sqrt(r2);
        if (r < 1e-12) {
          dx = 0;
          dy = 1e-12;
          dz = 0;
          r = 1e-12;
        }
        const s = (dmin - r) / (w * r);
        p[i3] += wi * s * dx;
        p[i3 + 1] += wi * s * dy;
        p[i3 + 2] += wi * s * dz;
        p[b3] -= wb * s * dx;
        p[b3 + 1] -= wb * s * dy;
        p[b3 + 2] -= wb * s * dz;
      }
    }
  }

  /** 003 eqs. 12–13 with barycentric weights (see the class comment). */
  private projectTriangles(ctx: StepContext): void {
    const { p, invMass } = ctx.store;
    const tp = this.triParticle,
      tv = this.triVerts,
      ts = this.triSide,
      tt = this.triThick;
    for (let k = 0; k < this.triCount; k++) {
      const i = tp[k];
      const ia = tv[3 * k],
        ib = tv[3 * k + 1],
        ic = tv[3 * k + 2];
      const i3 = 3 * i,
        a3 = 3 * ia,
        b3 = 3 * ib,
        c3 = 3 * ic;
      const nl = triangleFrame(p, a3, b3, c3);
      if (!(nl > 1e-20)) continue;
      const sg = ts[k] / nl;
      const nx = frame[6] * sg,
        ny = frame[7] * sg,
        nz = frame[8] * sg;
      const qx = p[i3] - p[a3],
        qy = p[i3 + 1] - p[a3 + 1],
        qz = p[i3 + 2] - p[a3 + 2];
      const C = qx * nx + qy * ny + qz * nz - tt[k];
      if (C >= 0) continue;
      // barycentric weights of the projection, clamped into the triangle
      const d00 = frame[9],
        d01 = frame[10],
        d11 = frame[11];
      const den = d00 * d11 - d01 * d01;
      if (!(den > 1e-30)) continue;
      const q0 = qx * frame[0] + qy * frame[1] + qz * frame[2],
        q1 = qx * frame[3] + qy * frame[4] + qz * frame[5];
      let bv = (d11 * q0 - d01 * q1) / den,
        bw = (d00 * q1 - d01 * q0) / den;
      if (bv < 0) bv = 0;
      if (bw < 0) bw = 0;
      let bu = 1 - bv - bw;
      if (bu < 0) {
        const sum = bv + bw;
        bv /= sum;
        bw /= sum;
        bu = 0;
      }
      const wi = invMass[i],
        wa = invMass[ia],
        wb = invMass[ib],
        wc = invMass[ic];
      const denom = wi + wa * bu * bu + wb * bv * bv + wc * bw * bw;
      if (!(denom > 0)) continue;
      const s = -C / denom;
      p[i3] += wi * s * nx;
      p[i3 + 1] += wi * s * ny;
      p[i3 + 2] += wi * s * nz;
      let f = -wa * bu * s;
      p[a3] += f * nx;
      p[a3 + 1] += f * ny;
      p[a3 + 2] += f * nz;
      f = -wb * bv * s;
      p[b3] += f * nx;
      p[b3 + 1] += f * ny;
      p[b3 + 2] += f * nz;
      f = -wc * bw * s;
      p[c3] += f * nx;
      p[c3 + 1] += f * ny;
      p[c3 + 2] += f * nz;
    }
  }
}
