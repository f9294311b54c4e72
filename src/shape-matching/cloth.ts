/**
 * Shape-matching cloth (survey 000 §4.6, seed 001 §4.6): 2D shape matching
 * of triangle regions (Stumpp et al. 2008), fiber clusters, and
 * multi-resolution shape matching in a V-cycle (Bender et al. 2013,
 * Algorithm 2, Figure 21).
 *
 * Regions of one level:
 * - triangle regions, matched in the plane of the triangle (Figure 22): with
 *   a_x = (x2 − x1)/|x2 − x1|, a_y = n × a_x / |n × a_x| and P = [a_xᵀ; a_yᵀ],
 *   r′ = P (x − c) and r̄′ = P̄ (x̄ − c̄) give the 2×2 matrix A′ = Σ m̃ r′ r̄′ᵀ,
 *   whose rotation R′ (2D polar decomposition [SD92]) gives the goals
 *   g′ = R′ r̄′. We place the goals in the triangle's plane, g = c + Pᵀ g′: for
 *   the triangle's own corners this is the survey's Δx = Pᵀ Δx′; for the
 *   'extended' regions of Stumpp et al. (the triangle and the outer corners
 *   of its neighbours) it also pulls the outer corners into the plane,
 *   which is where their bending resistance comes from;
 * - edge regions (Bender et al.: a region per edge and per triangle);
 * - fiber clusters (Stumpp et al.): strips of edges meeting at about 180°,
 *   traversed in both directions; each traversal pulls the next particle
 *   toward the current goal to restore the edge length; the two goal sets
 *   are averaged and the displacements translated to sum to zero (mass
 *   weighted, preserving momentum).
 * All regions use the modified masses m̃ = m/|ℜ| and their goals are blended
 * per vertex (000 §4.2).
 *
 * Multi-resolution (Algorithm 2): levels 0 (coarsest) … L (finest = the
 * particles); each substep the coarse positions are restricted from the
 * finest level; every projection runs the V-cycle
 *   for l = L … 1: x̂ ← x_l; match(l); x_{l−1} += I_l^{l−1} (x_l − x̂)
 *   for l = 0 … L: x̂ ← x_l; match(l); x_{l+1} += I_l^{l+1} (x_l − x̂)  (l ≠ L)
 * with barycentric restriction and prolongation. On the coarse levels the
 * goals resist stretching but allow compression (so that wrinkles of the
 * fine level survive): the principal stretches of the region's linear
 * deformation are clamped to at most 1 instead of being set to 1.
 *
 * The V-cycle yields goal positions for the particles, which are applied
 * with the world's rule like every shape-matching set (PBD stiffness or XPBD
 * compliance, one kernel).
 */
import { DihedralBending } from '../cloth/dihedral-bending.js';
import { Body, type Tunable } from '../core/body.js';
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { PbdError } from '../core/errors.js';
import { type ConstraintParams, ProjectionRule } from '../core/solver.js';
import type { World } from '../core/world.js';
import { polarAngle2 } from '../math/polar.js';
import { gridMesh } from '../mesh/generators.js';
import {
  buildBendingQuads,
  buildEdgeTopology,
  type TriangleMesh,
  triangleArea,
  validateTriangleMesh,
} from '../mesh/triangle-mesh.js';
import { applyGoals } from './region-shape-matching.js';

/** One resolution level: its mesh, regions and the work arrays of a matching pass. */
export class ClothLevel {
  readonly vertices: number;
  readonly rest: Float64Array;
  /** 2D rest coordinates (u, v) in the cloth's plane, for the transfer operators and the fiber directions. */
  readonly uv: Float64Array;
  readonly triangles: Uint32Array;
  readonly mass: Float64Array;
  readonly modifiedMass: Float64Array;
  readonly invCount: Float64Array;
  /** Triangle regions: members (3 or up to 6) in triMembers[triStart[t] …); the first three are the triangle. */
  readonly triStart: Int32Array;
  readonly triMembers: Int32Array;
  /** Per triangle region: its rest 2D coordinates r̄′ (2 per member) and the inverse of Σ m̃ r̄′ r̄′ᵀ (4). */
  private readonly triRest: Float64Array;
  private readonly triQinv: Float64Array;
  /** Edge regions: two vertices and the rest length. */
  readonly edges: Int32Array;
  readonly edgeRest: Float64Array;
  /** Fibers: vertex strips fiberMembers[fiberStart[f] …) with the rest lengths of their edges. */
  readonly fiberStart: Int32Array;
  readonly fiberMembers: Int32Array;
  private readonly fiberRest: Float64Array;
  /** Accumulated displacement of the current pass. */
  readonly acc: Float64Array;

  private readonly fwd: Float64Array;

  constructor(
    mesh: TriangleMesh,
    density: number,
    o: { regions: 'triangle' | 'extended'; edges: boolean; fibers: boolean },
    where: string,
  ) {
    const topo = validateTriangleMesh(mesh, where);
    const n = mesh.positions.length / 3;
    this.vertices = n;
    this.rest = Float64Array.from(mesh.positions);
    this.triangles = Uint32Array.from(mesh.triangles);
    // the texture coordinates when the mesh has them (grids do: every level then shares one
    // parameter plane); otherwise the rest positions in their principal plane
    this.uv =
      mesh.uvs && mesh.uvs.length === 2 * n ? Float64Array.from(mesh.uvs) : planarCoordinates(this.rest);
    const nt = this.triangles.length / 3;
    this.mass = new Float64Array(n);
    for (let t = 0; t < nt; t++) {
      const a = triangleArea(this.rest, this.triangles, t) * density;
      for (let k = 0; k < 3; k++) this.mass[this.triangles[3 * t + k]] += a / 3;
    }
    // triangle regions, extended by the outer corners of the neighbouring triangles
    const starts = [0],
      members: number[] = [];
    for (let t = 0; t < nt; t++) {
      const a = this.triangles[3 * t],
        b = this.triangles[3 * t + 1],
        c = this.triangles[3 * t + 2];
      members.push(a, b, c);
      if (o.regions === 'extended') {
        for (let k = 0; k < 3; k++) {
          const e = topo.triangleEdges[3 * t + k];
          const t0 = topo.edgeTriangles[2 * e],
            t1 = topo.edgeTriangles[2 * e + 1];
          const other = t0 === t ? t1 : t0;
          if (other < 0) continue;
          for (let m = 0; m < 3; m++) {
            const v = this.triangles[3 * other + m];
            if (v !== a && v !== b && v !== c && !members.slice(starts[t]).includes(v)) members.push(v);
          }
        }
      }
      starts.push(members.length);
    }
    this.triStart = Int32Array.from(starts);
    this.triMembers = Int32Array.from(members);
    const ne = o.edges ? topo.edges.length / 2 : 0;
    this.edges = o.edges ? Int32Array.from(topo.edges) : new Int32Array(0);
    this.edgeRest = new Float64Array(ne);
    for (let e = 0; e < ne; e++) this.edgeRest[e] = dist(this.rest, this.edges[2 * e], this.edges[2 * e + 1]);
    const fib = o.fibers
      ? findFibers(this.rest, this.uv, topo.edges)
      : { start: [0], members: [] as number[] };
    this.fiberStart = Int32Array.from(fib.start);
    this.fiberMembers = Int32Array.from(fib.members);
    this.fiberRest = new Float64Array(this.fiberMembers.length);
    for (let f = 0; f + 1 < this.fiberStart.length; f++)
      for (let m = this.fiberStart[f]; m + 1 < this.fiberStart[f + 1]; m++)
        this.fiberRest[m] = dist(this.rest, this.fiberMembers[m], this.fiberMembers[m + 1]);
    // |ℜ_j| and modified masses
    const count = new Float64Array(n);
    for (const v of this.triMembers) count[v]++;
    for (const v of this.edges) count[v]++;
    for (const v of this.fiberMembers) count[v]++;
    this.modifiedMass = new Float64Array(n);
    this.invCount = new Float64Array(n);
    for (let j = 0; j < n; j++) {
      if (!(this.mass[j] > 0) || !(count[j] > 0)) {
        throw new PbdError(
          'sm-cloth/unused-vertex',
          `${where}: vertex ${j}`,
          'belongs to no triangle',
          'remove unreferenced vertices',
        );
      }
      this.modifiedMass[j] = this.mass[j] / count[j];
      this.invCount[j] = 1 / count[j];
    }
    // rest 2D shapes of the triangle regions in the rest triangle's frame
    this.triRest = new Float64Array(2 * this.triMembers.length);
    this.triQinv = new Float64Array(4 * nt);
    const frame = new Float64Array(9);
    for (let t = 0; t < nt; t++) {
      triangleFrame(this.rest, this.triangles, t, frame);
      let M = 0,
        cx = 0,
        cy = 0,
        cz = 0;
      for (let m = starts[t]; m < starts[t + 1]; m++) {
        const v = members[m];
        const mm = this.modifiedMass[v];
        M += mm;
        cx += mm * this.rest[3 * v];
        cy += mm * this.rest[3 * v + 1];
        cz += mm * this.rest[3 * v + 2];
      }
      cx /= M;
      cy /= M;
      cz /= M;
      let q00 = 0,
        q01 = 0,
        q11 = 0;
      for (let m = starts[t]; m < starts[t + 1]; m++) {
        const v = members[m];
        const rx = this.rest[3 * v] - cx,
          ry = this.rest[3 * v + 1] - cy,
          rz = this.rest[3 * v + 2] - cz;
        const u = frame[0] * rx + frame[1] * ry + frame[2] * rz;
        const w = frame[3] * rx + frame[4] * ry + frame[5] * rz;
        this.triRest[2 * m] = u;
        this.triRest[2 * m + 1] = w;
        const mm = this.modifiedMass[v];
        q00 += mm * u * u;
        q01 += mm * u * w;
        q11 += mm * w * w;
      }
      const det = q00 * q11 - q01 * q01;
      this.triQinv[4 * t] = q11 / det;
      this.triQinv[4 * t + 1] = -q01 / det;
      this.triQinv[4 * t + 2] = -q01 / det;
      this.triQinv[4 * t + 3] = q00 / det;
    }
    this.acc = new Float64Array(3 * n);

    this.fwd = new Float64Array(3 * Math.max(1, this.fiberMembers.length));
  }

  /**
   * One Jacobi shape-matching pass over all regions of the level on
   * positions pos[3 (off + j) …]: every vertex moves to its blended goal
   * (vertices with fixed[fixedOff + j] === 0 stay). With `stretchOnly`, the goals
   * only undo stretching (coarse levels of Algorithm 2).
   */
  match(
    pos: Float64Array,
    off: number,
    fixed: Float64Array | null,
    fixedOff: number,
    stretchOnly: boolean,
  ): void {
    const acc = this.acc;
    acc.fill(0);
    this.matchTriangles(pos, off, stretchOnly);
    this.matchEdges(pos, off, stretchOnly);
    this.matchFibers(pos, off);
    const ic = this.invCount;
    for (let j = 0; j < this.vertices; j++) {
      if (fixed && fixed[fixedOff + j] === 0) continue;
      const i3 = 3 * (off + j);
      pos[i3] += ic[j] * acc[3 * j];
      pos[i3 + 1] += ic[j] * acc[3 * j + 1];
      pos[i3 + 2] += ic[j] * acc[3 * j + 2];
    }
  }

  private matchTriangles(pos: Float64Array, off: number, stretchOnly: boolean): void {
    const tri = this.triangles,
      ts = this.triStart,
      tm = this.triMembers,
      mt = this.modifiedMass,
      tr = this.triRest,
      acc = this.acc;
    const nt = tri.length / 3;
    const o3 = 3 * off;
    for (let t = 0; t < nt; t++) {
      const a = o3 + 3 * tri[3 * t],
        b = o3 + 3 * tri[3 * t + 1],
        c = o3 + 3 * tri[3 * t + 2];
      // the current triangle frame P = [a_x; a_y] (Figure 22)
      let ax = pos[b] - pos[a],
        ay = pos[b + 1] - pos[a + 1],
        az = pos[b + 2] - pos[a + 2];
      const ux = pos[c] - pos[a],
        uy = pos[c + 1] - pos[a + 1],
        uz = pos[c + 2] - pos[a + 2];
      const nx = ay * uz - az * uy,
        ny = az * ux - ax * uz,
        nz = ax * uy - ay * ux;
      const la = Math.sqrt(ax * ax + ay * ay + az * az);
      if (!(la > 1e-15)) continue;
      ax /= la;
      ay /= la;
      az /= la;
      let bx = ny * az - nz * ay,
        by = nz * ax - nx * az,
        bz = nx * ay - ny * ax;
      const lb = Math.sqrt(bx * bx + by * by + bz * bz);
      if (!(lb > 1e-30)) continue; // a collapsed triangle has no plane this step
      bx /= lb;
      by /= lb;
      bz /= lb;
      // centre of the region c = Σ m̃ x / M̃ (eq. 7; r̄′ is relative to the rest centre c̄)
      let M = 0,
        cx = 0,
        cy = 0,
        cz = 0;
      for (let m = ts[t]; m < ts[t + 1]; m++) {
        const v = o3 + 3 * tm[m];
        const mm = mt[tm[m]];
        M += mm;
        cx += mm * pos[v];
        cy += mm * pos[v + 1];
        cz += mm * pos[v + 2];
      }
      cx /= M;
      cy /= M;
      cz /= M;
      // A′ = Σ m̃ r′ r̄′ᵀ
      let a00 = 0,
        a01 = 0,
        a10 = 0,
        a11 = 0;
      for (let m = ts[t]; m < ts[t + 1]; m++) {
        const v = o3 + 3 * tm[m];
        const mm = mt[tm[m]];
        const rx = pos[v] - cx,
          ry = pos[v + 1] - cy,
          rz = pos[v + 2] - cz;
        const u = ax * rx + ay * ry + az * rz,
          w = bx * rx + by * ry + bz * rz;
        const su = mm * tr[2 * m],
          sw = mm * tr[2 * m + 1];
        a00 += u * su;
        a01 += u * sw;
        a10 += w * su;
        a11 += w * sw;
      }
      // goal map G′ (2×2): the rotation R′, or R′ with the stretches clamped to ≤ 1
      let g00: number, g01: number, g10: number, g11: number;
      const th = polarAngle2(a00, a01, a10, a11);
      const cs = Math.cos(th),
        sn = Math.sin(th);
      if (!stretchOnly) {
        g00 = cs;
        g01 = -sn;
        g10 = sn;
        g11 = cs;
      } else {
        // F′ = A′ Q⁻¹, S = R′ᵀ F′ (symmetrised), eigen-decomposed and clamped to ≤ 1
        const q = this.triQinv;
        const f00 = a00 * q[4 * t] + a01 * q[4 * t + 2],
          f01 = a00 * q[4 * t + 1] + a01 * q[4 * t + 3];
        const f10 = a10 * q[4 * t] + a11 * q[4 * t + 2],
          f11 = a10 * q[4 * t + 1] + a11 * q[4 * t + 3];
        const rth = polarAngle2(f00, f01, f10, f11);
        const rc = Math.cos(rth),
          rs = Math.sin(rth);
        const s00 = rc * f00 + rs * f10,
          s11 = -rs * f01 + rc * f11;
        const s01 = 0.5 * (rc * f01 + rs * f11 + (-rs * f00 + rc * f10));
        // eigen-decomposition of [[s00, s01], [s01, s11]]
        const mean = 0.5 * (s00 + s11),
          dif = 0.5 * (s00 - s11);
        const rad = Math.sqrt(dif * dif + s01 * s01);
        const l0 = Math.min(1, mean + rad),
          l1 = Math.min(1, mean - rad);
        const phi = 0.5 * Math.atan2(2 * s01, s00 - s11);
        const ec = Math.cos(phi),
          es = Math.sin(phi);
        // S_c = V diag(l0, l1) Vᵀ, G′ = R S_c
        const c00 = l0 * ec * ec + l1 * es * es,
          c01 = (l0 - l1) * ec * es,
          c11 = l0 * es * es + l1 * ec * ec;
        g00 = rc * c00 - rs * c01;
        g01 = rc * c01 - rs * c11;
        g10 = rs * c00 + rc * c01;
        g11 = rs * c01 + rc * c11;
      }
      for (let m = ts[t]; m < ts[t + 1]; m++) {
        const j = tm[m];
        const v = o3 + 3 * j;
        const su = tr[2 * m],
          sw = tr[2 * m + 1];
        const gu = g00 * su + g01 * sw,
          gw = g10 * su + g11 * sw;
        acc[3 * j] += cx + ax * gu + bx * gw - pos[v];
        acc[3 * j + 1] += cy + ay * gu + by * gw - pos[v + 1];
        acc[3 * j + 2] += cz + az * gu + bz * gw - pos[v + 2];
      }
    }
  }

  private matchEdges(pos: Float64Array, off: number, stretchOnly: boolean): void {
    const e = this.edges,
      mt = this.modifiedMass,
      acc = this.acc;
    const o3 = 3 * off;
    for (let k = 0; k < this.edgeRest.length; k++) {
      const i = e[2 * k],
        j = e[2 * k + 1];
      const a = o3 + 3 * i,
        b = o3 + 3 * j;
      const dx = pos[b] - pos[a],
        dy = pos[b + 1] - pos[a + 1],
        dz = pos[b + 2] - pos[a + 2];
      const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
      const L = this.edgeRest[k];
      if (!(len > 1e-15) || (stretchOnly && len <= L)) continue;
      // goals about the (m̃-weighted) centre, at the rest length
      const mi = mt[i],
        mj = mt[j];
      const s = (len - L) / len / (mi + mj);
      acc[3 * i] += mj * s * dx;
      acc[3 * i + 1] += mj * s * dy;
      acc[3 * i + 2] += mj * s * dz;
      acc[3 * j] -= mi * s * dx;
      acc[3 * j + 1] -= mi * s * dy;
      acc[3 * j + 2] -= mi * s * dz;
    }
  }

  private matchFibers(pos: Float64Array, off: number): void {
    const fs = this.fiberStart,
      fm = this.fiberMembers,
      fr = this.fiberRest,
      mt = this.modifiedMass,
      acc = this.acc,
      g = this.fwd;
    const o3 = 3 * off;
    for (let f = 0; f + 1 < fs.length; f++) {
      const s = fs[f],
        e = fs[f + 1];
      // forward traversal: g_s = x_s, g_{k+1} = g_k + L_k (x_{k+1} − g_k)/|x_{k+1} − g_k|
      for (let d = 0; d < 3; d++) g[3 * s + d] = pos[o3 + 3 * fm[s] + d];
      for (let m = s + 1; m < e; m++) pull(g, 3 * (m - 1), pos, o3 + 3 * fm[m], fr[m - 1], g, 3 * m);
      // backward traversal, averaged with the forward goals: ĝ = (g_fwd + g_bwd)/2
      let px = pos[o3 + 3 * fm[e - 1]],
        py = pos[o3 + 3 * fm[e - 1] + 1],
        pz = pos[o3 + 3 * fm[e - 1] + 2];
      let mx = 0,
        my = 0,
        mz = 0,
        M = 0;
      for (let m = e - 1; m >= s; m--) {
        if (m < e - 1) {
          const v = o3 + 3 * fm[m];
          const dx = pos[v] - px,
            dy = pos[v + 1] - py,
            dz = pos[v + 2] - pz;
          const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
          if (l > 1e-15) {
            const L = fr[m];
            px += (L * dx) / l;
            py += (L * dy) / l;
            pz += (L * dz) / l;
          } else {
            px = pos[v];
            py = pos[v + 1];
            pz = pos[v + 2];
          }
        }
        const v = o3 + 3 * fm[m];
        const ddx = 0.5 * (g[3 * m] + px) - pos[v],
          ddy = 0.5 * (g[3 * m + 1] + py) - pos[v + 1],
          ddz = 0.5 * (g[3 * m + 2] + pz) - pos[v + 2];
        g[3 * m] = ddx;
        g[3 * m + 1] = ddy;
        g[3 * m + 2] = ddz;
        const mm = mt[fm[m]];
        mx += mm * ddx;
        my += mm * ddy;
        mz += mm * ddz;
        M += mm;
      }
      // translate the displacements so that Σ m̃ d = 0 (momentum)
      mx /= M;
      my /= M;
      mz /= M;
      for (let m = s; m < e; m++) {
        const j = fm[m];
        acc[3 * j] += g[3 * m] - mx;
        acc[3 * j + 1] += g[3 * m + 1] - my;
        acc[3 * j + 2] += g[3 * m + 2] - mz;
      }
    }
  }

  /** Number of fiber clusters. */
  get fibers(): number {
    return this.fiberStart.length - 1;
  }
}

/** out[oo …] = from + L (to − from)/|to − from| (the next goal of a fiber traversal). */
function pull(
  from: Float64Array,
  fo: number,
  to: Float64Array,
  to0: number,
  L: number,
  out: Float64Array,
  oo: number,
): void {
  const dx = to[to0] - from[fo],
    dy = to[to0 + 1] - from[fo + 1],
    dz = to[to0 + 2] - from[fo + 2];
  const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
  if (!(l > 1e-15)) {
    out[oo] = to[to0];
    out[oo + 1] = to[to0 + 1];
    out[oo + 2] = to[to0 + 2];
    return;
  }
  out[oo] = from[fo] + (L * dx) / l;
  out[oo + 1] = from[fo + 1] + (L * dy) / l;
  out[oo + 2] = from[fo + 2] + (L * dz) / l;
}

function dist(p: Float64Array, a: number, b: number): number {
  return Math.hypot(p[3 * a] - p[3 * b], p[3 * a + 1] - p[3 * b + 1], p[3 * a + 2] - p[3 * b + 2]);
}

/** Unit a_x (0..2) and a_y (3..5) of triangle t's frame (Figure 22), normal at 6..8. */
function triangleFrame(p: Float64Array, tri: Uint32Array, t: number, out: Float64Array): void {
  const a = 3 * tri[3 * t],
    b = 3 * tri[3 * t + 1],
    c = 3 * tri[3 * t + 2];
  const ax = p[b] - p[a],
    ay = p[b + 1] - p[a + 1],
    az = p[b + 2] - p[a + 2];
  const ux = p[c] - p[a],
    uy = p[c + 1] - p[a + 1],
    uz = p[c + 2] - p[a + 2];
  let nx = ay * uz - az * uy,
    ny = az * ux - ax * uz,
    nz = ax * uy - ay * ux;
  const ln = Math.hypot(nx, ny, nz);
  nx /= ln;
  ny /= ln;
  nz /= ln;
  const la = Math.hypot(ax, ay, az);
  out[0] = ax / la;
  out[1] = ay / la;
  out[2] = az / la;
  out[3] = ny * out[2] - nz * out[1];
  out[4] = nz * out[0] - nx * out[2];
  out[5] = nx * out[1] - ny * out[0];
  out[6] = nx;
  out[7] = ny;
  out[8] = nz;
}

/** 2D coordinates of the rest vertices in their best-fit plane (principal axes of the point cloud). */
function planarCoordinates(p: Float64Array): Float64Array {
  const n = p.length / 3;
  const c = [0, 0, 0];
  for (let j = 0; j < n; j++) for (let k = 0; k < 3; k++) c[k] += p[3 * j + k] / n;
  // covariance, and its two largest axes by power iteration with deflation
  const C = new Float64Array(9);
  for (let j = 0; j < n; j++)
    for (let a = 0; a < 3; a++)
      for (let b = 0; b < 3; b++) C[3 * a + b] += (p[3 * j + a] - c[a]) * (p[3 * j + b] - c[b]);
  const axes: number[][] = [];
  for (let k = 0; k < 2; k++) {
    let v = k === 0 ? [1, 0.7, 0.3] : [0.2, 1, 0.5];
    for (let it = 0; it < 100; it++) {
      const w = [0, 1, 2].map((a) => C[3 * a] * v[0] + C[3 * a + 1] * v[1] + C[3 * a + 2] * v[2]);
      for (const u of axes) {
        const d = w[0] * u[0] + w[1] * u[1] + w[2] * u[2];
        for (let a = 0; a < 3; a++) w[a] -= d * u[a];
      }
      const l = Math.hypot(w[0], w[1], w[2]) || 1;
      v = w.map((x) => x / l);
    }
    axes.push(v);
  }
  const out = new Float64Array(2 * n);
  for (let j = 0; j < n; j++) {
    const d = [p[3 * j] - c[0], p[3 * j + 1] - c[1], p[3 * j + 2] - c[2]];
    out[2 * j] = d[0] * axes[0][0] + d[1] * axes[0][1] + d[2] * axes[0][2];
    out[2 * j + 1] = d[0] * axes[1][0] + d[1] * axes[1][1] + d[2] * axes[1][2];
  }
  return out;
}

/**
 * Fiber clusters: maximal strips of edges whose directions in the rest plane
 * stay within 20° of one of the two principal axes (warp and weft) and turn
 * by less than 20° from edge to edge. Strips with fewer than 3 vertices are
 * dropped.
 */
function findFibers(
  rest: Float64Array,
  uv: Float64Array,
  edges: Uint32Array,
): { start: number[]; members: number[] } {
  const n = rest.length / 3;
  const ne = edges.length / 2;
  const cosTol = Math.cos((20 * Math.PI) / 180);
  const adj: number[][] = Array.from({ length: n }, () => []);
  const dirOf = (e: number, from: number): [number, number] => {
    const a = from,
      b = edges[2 * e] === from ? edges[2 * e + 1] : edges[2 * e];
    const du = uv[2 * b] - uv[2 * a],
      dv = uv[2 * b + 1] - uv[2 * a + 1];
    const l = Math.hypot(du, dv) || 1;
    return [du / l, dv / l];
  };
  const axisOf = (e: number): number => {
    const [du, dv] = dirOf(e, edges[2 * e]);
    if (Math.abs(du) >= cosTol) return 0;
    if (Math.abs(dv) >= cosTol) return 1;
    return -1;
  };
  const axis = new Int8Array(ne);
  for (let e = 0; e < ne; e++) {
    axis[e] = axisOf(e);
    if (axis[e] >= 0) {
      adj[edges[2 * e]].push(e);
      adj[edges[2 * e + 1]].push(e);
    }
  }
  const used = new Uint8Array(ne);
  const start = [0],
    members: number[] = [];
  const other = (e: number, v: number) => (edges[2 * e] === v ? edges[2 * e + 1] : edges[2 * e]);
  const extend = (chain: number[], e0: number, from: number) => {
    let e = e0,
      v = other(e, from);
    for (;;) {
      chain.push(v);
      const [du, dv] = dirOf(e, other(e, v));
      let best = -1,
        bestDot = cosTol;
      for (const f of adj[v]) {
        if (used[f] || axis[f] !== axis[e0]) continue;
        const [fu, fv] = dirOf(f, v);
        const d = fu * du + fv * dv;
        if (d > bestDot) {
          bestDot = d;
          best = f;
        }
      }
      if (best < 0) return;
      used[best] = 1;
      e = best;
      v = other(best, v);
    }
  };
  for (let e = 0; e < ne; e++) {
    if (used[e] || axis[e] < 0) continue;
    used[e] = 1;
    const a = edges[2 * e],
      b = edges[2 * e + 1];
    const fwd: number[] = [];
    extend(fwd, e, a); // a → b → …
    const bwd: number[] = [];
    // continue from a away from b
    let v = a,
      prevDir = dirOf(e, b);
    for (;;) {
      let best = -1,
        bestDot = cosTol;
      for (const f of adj[v]) {
        if (used[f] || axis[f] !== axis[e]) continue;
        const [fu, fv] = dirOf(f, v);
        const d = fu * prevDir[0] + fv * prevDir[1];
        if (d > bestDot) {
          bestDot = d;
          best = f;
        }
      }
      if (best < 0) break;
      used[best] = 1;
      const w = other(best, v);
      prevDir = dirOf(best, v);
      bwd.push(w);
      v = w;
    }
    const strip = [...bwd.reverse(), a, ...fwd];
    if (strip.length >= 3) {
      members.push(...strip);
      start.push(members.length);
    }
  }
  return { start, members };
}

/** Barycentric transfer from one level to another: each target vertex interpolates a source triangle. */
export class Transfer {
  /** Per target vertex: three source vertices and their weights. */
  readonly index: Int32Array;
  readonly weight: Float64Array;

  constructor(from: ClothLevel, to: ClothLevel) {
    const n = to.vertices;
    this.index = new Int32Array(3 * n);
    this.weight = new Float64Array(3 * n);
    const tri = from.triangles,
      uv = from.uv;
    const nt = tri.length / 3;
    for (let v = 0; v < n; v++) {
      const px = to.uv[2 * v],
        py = to.uv[2 * v + 1];
      // the source triangle containing the point, or the one whose barycentric coordinates are least negative
      let best = -1,
        bestMin = -Infinity,
        bw = [0, 0, 0];
      for (let t = 0; t < nt; t++) {
        const a = tri[3 * t],
          b = tri[3 * t + 1],
          c = tri[3 * t + 2];
        const x0 = uv[2 * a],
          y0 = uv[2 * a + 1];
        const x1 = uv[2 * b] - x0,
          y1 = uv[2 * b + 1] - y0;
        const x2 = uv[2 * c] - x0,
          y2 = uv[2 * c + 1] - y0;
        const d = x1 * y2 - x2 * y1;
        const qx = px - x0,
          qy = py - y0;
        const l1 = (qx * y2 - x2 * qy) / d,
          l2 = (x1 * qy - qx * y1) / d;
        const l0 = 1 - l1 - l2;
        const mn = Math.min(l0, l1, l2);
        if (mn > bestMin) {
          bestMin = mn;
          best = t;
          bw = [l0, l1, l2];
          if (mn >= 0) break;
        }
      }
      // clamp to the triangle (points just outside the source mesh)
      const cl = bw.map((x) => Math.max(0, x));
      const s = cl[0] + cl[1] + cl[2];
      for (let k = 0; k < 3; k++) {
        this.index[3 * v + k] = tri[3 * best + k];
        this.weight[3 * v + k] = cl[k] / s;
      }
    }
  }

  /** out[v] = flags[off + i] of the source vertex i with the largest weight for target vertex v. */
  dominant(flags: Float64Array, off: number, out: Float64Array): void {
    const idx = this.index,
      w = this.weight;
    for (let v = 0; v < out.length; v++) {
      let k = 0;
      if (w[3 * v + 1] > w[3 * v + k]) k = 1;
      if (w[3 * v + 2] > w[3 * v + k]) k = 2;
      out[v] = flags[off + idx[3 * v + k]] === 0 ? 0 : 1;
    }
  }

  /** dst[3 (doff + v) …] (+)= Σ_k w_k src[3 (soff + i_k) …] for every target vertex v. */
  apply(
    src: Float64Array,
    soff: number,
    dst: Float64Array,
    doff: number,
    add: boolean,
    fixed: Float64Array | null,
    fixedOff = 0,
  ): void {
    const idx = this.index,
      w = this.weight;
    const n = idx.length / 3;
    for (let v = 0; v < n; v++) {
      if (fixed && fixed[fixedOff + v] === 0) continue;
      let x = 0,
        y = 0,
        z = 0;
      for (let k = 0; k < 3; k++) {
        const s = 3 * (soff + idx[3 * v + k]);
        const wk = w[3 * v + k];
        x += wk * src[s];
        y += wk * src[s + 1];
        z += wk * src[s + 2];
      }
      const d = 3 * (doff + v);
      if (add) {
        dst[d] += x;
        dst[d + 1] += y;
        dst[d + 2] += z;
      } else {
        dst[d] = x;
        dst[d + 1] = y;
        dst[d + 2] = z;
      }
    }
  }
}

export interface ShapeMatchingClothOptions {
  name?: string;
  /** The finest mesh (placed in world space). For multi-resolution, use `grid` instead. */
  mesh?: TriangleMesh;
  /** A grid cloth (the coarser levels are coarser grids of the same size). */
  grid?: { width: number; height: number; cols: number; rows: number; plane?: 'xy' | 'xz' };
  /** Translation of a grid cloth. */
  translate?: [number, number, number];
  /** Area density (kg/m²). Default 0.1. */
  density?: number;
  /** Triangle regions: the triangle alone, or extended by its neighbours' outer corners (bending). Default 'extended'. */
  regions?: 'triangle' | 'extended';
  /** Edge regions (Bender et al. 2013). Default true. */
  edges?: boolean;
  /** Fiber clusters (Stumpp et al. 2008). Default false. */
  fibers?: boolean;
  /** Resolution levels of multi-resolution shape matching (1 = single level). Grids only. Default 1. */
  levels?: number;
  /** PBD stiffness / XPBD compliance (s²) of the pull to the V-cycle goals. */
  stiffness?: number;
  compliance?: number;
  /** Dihedral bending on the finest level (003 §4.1), or false. Default false. */
  bend?: ConstraintParams | false;
  radius?: number;
  group?: number;
  mask?: number;
}

/** A cloth simulated by shape matching (see the file comment). */
export class ShapeMatchingCloth extends Body {
  readonly type = 'shape-matching-cloth';
  /** Levels from the coarsest (0) to the finest (the particles). */
  readonly levels: ClothLevel[];
  readonly matching: ClothShapeMatching;
  readonly bend: DihedralBending | null;
  readonly restPositions: Float64Array;

  constructor(world: World, o: ShapeMatchingClothOptions) {
    const where = o.name ? `shape-matching cloth '${o.name}'` : 'shape-matching cloth';
    const density = o.density ?? 0.1;
    if (!(density > 0))
      throw new PbdError('sm-cloth/density', `${where}.density`, `must be > 0, got ${density}`);
    const nLevels = o.levels ?? 1;
    if (!(Number.isInteger(nLevels) && nLevels >= 1 && nLevels <= 8)) {
      throw new PbdError('sm-cloth/levels', `${where}.levels`, `must be an integer in 1…8, got ${nLevels}`);
    }
    const meshes: TriangleMesh[] = [];
    if (o.grid) {
      const t = o.translate ?? [0, 0, 0];
      let cols = o.grid.cols,
        rows = o.grid.rows;
      for (let l = 0; l < nLevels; l++) {
        const m = gridMesh({ ...o.grid, cols, rows, diagonals: 'alternate' }, `${where}.grid`);
        for (let k = 0; k < m.positions.length; k += 3)
          for (let d = 0; d < 3; d++) m.positions[k + d] += t[d];
        meshes.unshift(m);
        if (l + 1 < nLevels && (cols < 5 || rows < 5)) {
          throw new PbdError(
            'sm-cloth/levels',
            `${where}.levels`,
            `${nLevels} levels coarsen the grid below 3 × 3 vertices`,
            'use fewer levels or a finer grid',
          );
        }
        cols = Math.ceil((cols - 1) / 2) + 1;
        rows = Math.ceil((rows - 1) / 2) + 1;
      }
    } else if (o.mesh) {
      if (nLevels > 1) {
        throw new PbdError(
          'sm-cloth/levels',
          `${where}.levels`,
          'multi-resolution needs a { grid } cloth',
          'describe the cloth as a grid',
        );
      }
      meshes.push(o.mesh);
    } else {
      throw new PbdError('sm-cloth/mesh', where, 'needs a mesh or a grid');
    }
    const finest = meshes[meshes.length - 1];
    const n = finest.positions.length / 3;
    super(world, o.name ?? '', n);
    const regions = o.regions ?? 'extended';
    this.levels = meshes.map(
      (m, l) =>
        new ClothLevel(
          m,
          density,
          {
            regions: l === meshes.length - 1 ? regions : 'triangle',
            edges: o.edges ?? true,
            fibers: l === meshes.length - 1 && (o.fibers ?? false),
          },
          `${where}.levels[${l}]`,
        ),
    );
    const store = world.store;
    const off = this.offset;
    this.restPositions = Float64Array.from(finest.positions);
    store.x.set(finest.positions, 3 * off);
    store.p.set(finest.positions, 3 * off);
    const fine = this.levels[this.levels.length - 1];
    for (let j = 0; j < n; j++) {
      store.setMass(off + j, fine.mass[j]);
      store.radius[off + j] = o.radius ?? 0;
      if (o.group !== undefined) store.group[off + j] = o.group;
      if (o.mask !== undefined) store.mask[off + j] = o.mask;
    }
    this.matching = this.addSet(new ClothShapeMatching(this, o, where));
    if (o.bend) {
      const topo = buildEdgeTopology(fine.triangles);
      const quads = buildBendingQuads(fine.triangles, topo);
      for (let k = 0; k < quads.length; k++) quads[k] += off;
      this.bend = this.addSet(new DihedralBending(store, quads, undefined, o.bend));
    } else {
      this.bend = null;
    }
  }

  override renderTriangles(): Uint32Array {
    return this.levels[this.levels.length - 1].triangles;
  }

  /** Pins a vertex of the finest level where it is. */
  pin(vertex: number): void {
    if (!(Number.isInteger(vertex) && vertex >= 0 && vertex < this.count)) {
      throw new PbdError('sm-cloth/bad-vertex', `cloth '${this.name}'`, `has no vertex ${vertex}`);
    }
    this.world.attachments.attach(this.offset + vertex);
  }

  /** Largest edge length / rest length − 1 over the finest level (stretch, for plots and tests). */
  maxStretch(): number {
    const fine = this.levels[this.levels.length - 1];
    const topo = buildEdgeTopology(fine.triangles);
    const x = this.positions();
    let m = 0;
    for (let e = 0; e < topo.edges.length; e += 2) {
      const a = topo.edges[e],
        b = topo.edges[e + 1];
      m = Math.max(m, dist(x, a, b) / dist(fine.rest, a, b) - 1);
    }
    return m;
  }

  override tunables(): Tunable[] {
    const r = this.matching.rule;
    return [
      { name: 'stiffness', min: 0, max: 1, get: () => r.stiffness, set: (v) => r.set({ stiffness: v }) },
      {
        name: 'compliance',
        min: 0,
        max: 1e-2,
        log: true,
        get: () => r.compliance,
        set: (v) => r.set({ compliance: v }),
      },
    ];
  }
}

/** The V-cycle of Algorithm 2 as a constraint set. */
export class ClothShapeMatching implements ConstraintSet {
  readonly kind = 'cloth-shape-matching';
  readonly order = 0;
  enabled = true;
  readonly colors = 1;
  readonly rule: ProjectionRule;
  private readonly cloth: ShapeMatchingCloth;
  /** Coarse level positions (levels 0 … L − 1). */
  readonly positions: Float64Array[];
  /** restrict[l]: level l + 1 → l; prolong[l]: level l → l + 1. */
  private readonly restrict: Transfer[];
  private readonly prolong: Transfer[];
  private readonly goals: Float64Array;
  private readonly lambda: Float64Array;
  private readonly diff: Float64Array[];
  /**
   * Coarse levels: 0 for a vertex that stands on a pinned particle (its
   * restriction is dominated by a pinned vertex of the finer level), else 1.
   * Pinned vertices neither move in a level's matching nor take corrections,
   * so coarse levels hold at the pins as the finest level does.
   */
  private readonly free: Float64Array[];

  constructor(cloth: ShapeMatchingCloth, o: ShapeMatchingClothOptions, where: string) {
    this.cloth = cloth;
    this.rule = new ProjectionRule({ stiffness: o.stiffness ?? 1, compliance: o.compliance ?? 0 }, where);
    const L = cloth.levels;
    this.positions = L.slice(0, -1).map((lv) => Float64Array.from(lv.rest));
    this.restrict = [];
    this.prolong = [];
    for (let l = 0; l + 1 < L.length; l++) {
      this.restrict.push(new Transfer(L[l + 1], L[l]));
      this.prolong.push(new Transfer(L[l], L[l + 1]));
    }
    this.diff = L.map((lv) => new Float64Array(3 * lv.vertices));
    this.free = L.slice(0, -1).map((lv) => new Float64Array(lv.vertices).fill(1));
    this.goals = new Float64Array(3 * cloth.count);
    this.lambda = new Float64Array(3 * cloth.count);
  }

  get count(): number {
    let c = 0;
    for (const lv of this.cloth.levels) c += lv.triangles.length / 3 + lv.edgeRest.length + lv.fibers;
    return c;
  }

  beginStep(ctx: StepContext): void {
    this.rule.update(ctx.solver, ctx.h, ctx.passes);
    this.lambda.fill(0);
    // coarse positions from the finest by restriction, and the pins of every level
    const L = this.cloth.levels.length;
    for (let l = L - 2; l >= 0; l--) {
      const src = l === L - 2 ? ctx.store.p : this.positions[l + 1];
      const soff = l === L - 2 ? this.cloth.offset : 0;
      this.restrict[l].apply(src, soff, this.positions[l], 0, false, null);
      const flags = l === L - 2 ? ctx.store.invMass : this.free[l + 1];
      this.restrict[l].dominant(flags, soff, this.free[l]);
    }
  }

  project(ctx: StepContext): void {
    const levels = this.cloth.levels;
    const L = levels.length - 1;
    const store = ctx.store;
    const off = this.cloth.offset;
    const n = this.cloth.count;
    const p = store.p;
    // the V-cycle runs on a copy of the particle positions, which becomes the goal
    const goal = this.goals;
    for (let k = 0; k < 3 * n; k++) goal[k] = p[3 * off + k];
    const inv = store.invMass;
    // pinned particles (w = 0) stay where they are on the finest level
    const free = this.free;
    for (let l = L; l >= 1; l--) {
      const x = l === L ? goal : this.positions[l];
      const d = this.diff[l];
      d.set(x);
      levels[l].match(x, 0, l === L ? inv : free[l], l === L ? off : 0, l !== L);
      for (let k = 0; k < d.length; k++) d[k] = x[k] - d[k];
      this.restrict[l - 1].apply(d, 0, this.positions[l - 1], 0, true, free[l - 1]);
    }
    for (let l = 0; l <= L; l++) {
      const x = l === L ? goal : this.positions[l];
      const d = this.diff[l];
      d.set(x);
      levels[l].match(x, 0, l === L ? inv : free[l], l === L ? off : 0, l !== L);
      if (l !== L) {
        for (let k = 0; k < d.length; k++) d[k] = x[k] - d[k];
        const next = l + 1 === L ? goal : this.positions[l + 1];
        this.prolong[l].apply(d, 0, next, 0, true, l + 1 === L ? inv : free[l + 1], l + 1 === L ? off : 0);
      }
    }
    // apply the goals with the world's rule
    applyGoals(p, inv, off, n, goal, this.lambda, this.rule, null);
  }
}
