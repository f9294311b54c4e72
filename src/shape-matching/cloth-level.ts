/**
 * One resolution level of shape-matching cloth (survey 000 §4.6, seed 001
 * §4.6): its mesh, its regions, and one Jacobi matching pass over them.
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
 * - fiber clusters (Stumpp et al., cloth-fibers.ts): strips of edges meeting
 *   at about 180°, traversed in both directions; each traversal pulls the
 *   next particle toward the current goal to restore the edge length; the
 *   two goal sets are averaged and the displacements translated to sum to
 *   zero (mass weighted, preserving momentum).
 * All regions use the modified masses m̃ = m/|ℜ| and their goals are blended
 * per vertex (000 §4.2). On the coarse levels of the V-cycle (cloth.ts) the
 * goals resist stretching but allow compression: the principal stretches of
 * the region's linear deformation are clamped to at most 1.
 */
import { PbdError } from '../core/errors.js';
import { polarAngle2 } from '../math/polar.js';
import { lumpedTriangleMasses } from '../mesh/lumped-mass.js';
import { type TriangleMesh, validateTriangleMesh } from '../mesh/triangle-mesh.js';
import { findFibers, planarCoordinates } from './cloth-fibers.js';
import { regionCentre } from './goals.js';

/** Scratch of the regions' centres: read at once after each regionCentre call. */
const centre = new Float64Array(3);

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
    this.mass = lumpedTriangleMasses(this.rest, this.triangles, density, n, 'sm-cloth/unused-vertex', where);
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
      regionCentre(this.rest, 0, this.triMembers, starts[t], starts[t + 1], this.modifiedMass, centre, 0);
      const cx = centre[0],
        cy = centre[1],
        cz = centre[2];
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
      regionCentre(pos, o3, tm, ts[t], ts[t + 1], mt, centre, 0);
      const cx = centre[0],
        cy = centre[1],
        cz = centre[2];
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

export function dist(p: Float64Array, a: number, b: number): number {
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
