import type { Body } from '../core/body.js';
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import type { ParticleStore } from '../core/particles.js';
import type { World } from '../core/world.js';
import { grownArray } from '../math/arrays.js';
import { quatRotate } from '../math/quat.js';
import { writeBox } from './boxes.js';
import { Bvh } from './bvh.js';
import { findColliderContacts } from './collider-contacts.js';
import { MeshCollider } from './mesh-collider.js';

/** Barycentric tolerance: the vertex's foot may lie this far outside the triangle. */
const FOOTPRINT = 0.05;

const tmp = new Float64Array(3);

/**
 * Contacts of a mesh collider's own vertices with the triangles of bodies
 * (cloth, soft-body surfaces). The particle contacts of ColliderContacts keep
 * every particle outside a mesh collider (003 §3.4), but a feature of the
 * mesh thinner than the body's mesh spacing — an ear tip under a cloth —
 * passes between the particles. Here each collider vertex q is a kinematic
 * point (inverse mass 0) against the triangles near it, with 003 eq. 12:
 *
 *   C(p1, p2, p3) = s (q − p1) · n̂ − h ≥ 0,   ∇pi C = −s bi n̂,
 *
 * bi the barycentric coordinates of q's foot on the triangle's plane and s
 * the side q was on at the start of the substep; only the triangle moves.
 *
 * Detection once per step: triangle boxes swept over the step's predicted
 * motion (x → x + Δt (p − x)/h) and grown by the reach, in a BVH over all
 * registered triangles; each collider vertex, swept from its pose to the
 * pose one step ahead (from the collider's linear and angular velocity),
 * queries it. Every substep the candidates are tested for proximity at the
 * prediction; the near ones become constraints.
 */
export class MeshFeatureContacts implements ConstraintSet {
  readonly kind = 'collider-feature-contact';
  readonly violationUnit = 'm';
  readonly order = 105;
  enabled = true;
  /** Active contacts of the current substep. */
  count = 0;
  private readonly bodies: { body: Body; thickness: number; version: number }[] = [];
  private dirty = true;
  /** Registered triangles (global particle indices), their thickness and body. */
  private tri = new Int32Array(0);
  private triH = new Float64Array(0);
  private triBody = new Int32Array(0);
  private boxes = new Float64Array(0);
  private readonly bvh = new Bvh(4);
  /** Candidates of this step: collider, vertex, triangle, and the side the vertex is on. */
  private cand = new Int32Array(0);
  private candSide = new Float64Array(0);
  private candKey = new Float64Array(0);
  /**
   * The side of each pair that has been in contact (its vertex's foot on the
   * triangle, within reach), kept while the pair stays a candidate, so that a
   * feature pushed through is pulled back rather than held on the wrong side.
   */
  private sides = new Map<number, number>();
  private nextSides = new Map<number, number>();
  private candCount = 0;
  /** Active contacts: triangle (k), side, and the vertex position q at the end of the substep. */
  private active = new Int32Array(0);
  private side = new Float64Array(0);
  private q = new Float64Array(0);
  private meshColliders: MeshCollider[] = [];
  private readonly root = new Float64Array(6);
  private readonly world: World;

  constructor(world: World) {
    this.world = world;
  }

  /** Registers a body's contact triangles, with its thickness h (m). */
  addBody(body: Body, thickness: number): void {
    this.bodies.push({ body, thickness, version: -1 });
    this.dirty = true;
  }

  private refresh(): void {
    let dirty = this.dirty;
    for (const b of this.bodies) if (b.version !== b.body.topologyVersion) dirty = true;
    if (!dirty) return;
    this.dirty = false;
    let n = 0;
    for (const b of this.bodies) n += b.body.contactTriangles().length / 3;
    this.tri = new Int32Array(3 * n);
    this.triH = new Float64Array(n);
    this.triBody = new Int32Array(n);
    this.boxes = new Float64Array(6 * n);
    let k = 0;
    for (const b of this.bodies) {
      b.version = b.body.topologyVersion;
      const t = b.body.contactTriangles();
      for (let j = 0; j < t.length; j += 3, k++) {
        this.tri[3 * k] = t[j] + b.body.offset;
        this.tri[3 * k + 1] = t[j + 1] + b.body.offset;
        this.tri[3 * k + 2] = t[j + 2] + b.body.offset;
        this.triH[k] = b.thickness;
        this.triBody[k] = b.body.id;
      }
    }
    this.bvh.itemCount = -1; // build anew at the next detection
  }

  beginStep(ctx: StepContext): void {
    this.count = 0;
    if (ctx.substep === 0) this.detect(ctx);
    if (this.candCount === 0) return;
    const { x, p } = ctx.store;
    const tri = this.tri;
    const cand = this.cand;
    if (this.active.length < this.candCount) {
      this.active = new Int32Array(this.cand.length / 3);
      this.side = new Float64Array(this.active.length);
      this.q = new Float64Array(3 * this.active.length);
    }
    for (let k = 0; k < this.candCount; k++) {
      const col = this.meshColliders[cand[3 * k]];
      const v = cand[3 * k + 1],
        t = cand[3 * k + 2];
      const P = col.mesh.positions;
      const a = 3 * tri[3 * t],
        b = 3 * tri[3 * t + 1],
        c = 3 * tri[3 * t + 2];
      let s0 = this.candSide[k];
      if (s0 === 0) {
        // the side at the start of the substep: the vertex at the previous pose against the triangle at x
        quatRotate(tmp, 0, col.prevRotation, 0, P[3 * v], P[3 * v + 1], P[3 * v + 2]);
        const pp = col.prevPosition;
        // which side of the triangle's plane: ±1 (none when the triangle is degenerate or q on the plane)
        if (!foot(x, a, b, c, tmp[0] + pp[0], tmp[1] + pp[1], tmp[2] + pp[2])) continue;
        s0 = F[0] > 0 ? 1 : F[0] < 0 ? -1 : 0;
        if (s0 === 0) continue;
      }
      // the vertex at the end of the substep against the prediction
      quatRotate(tmp, 0, col.rotation, 0, P[3 * v], P[3 * v + 1], P[3 * v + 2]);
      const qx = tmp[0] + col.position[0],
        qy = tmp[1] + col.position[1],
        qz = tmp[2] + col.position[2];
      const h = this.triH[t] + col.margin;
      const reach = 1.5 * h;
      const near = nearTriangle(p, a, b, c, qx, qy, qz, s0, reach);
      if (near === 0) continue;
      if (near === 1 && this.candSide[k] === 0) {
        // in contact, in front of the triangle: remember the side
        this.candSide[k] = s0;
        this.sides.set(this.candKey[k], s0);
      }
      const m = this.count++;
      this.active[m] = t;
      this.side[m] = s0;
      this.q[3 * m] = qx;
      this.q[3 * m + 1] = qy;
      this.q[3 * m + 2] = qz;
    }
  }

  project(ctx: StepContext): void {
    const { p, invMass: w } = ctx.store;
    const tri = this.tri;
    for (let m = 0; m < this.count; m++) {
      const t = this.active[m];
      const ia = tri[3 * t],
        ib = tri[3 * t + 1],
        ic = tri[3 * t + 2];
      const a = 3 * ia,
        b = 3 * ib,
        c = 3 * ic;
      if (!foot(p, a, b, c, this.q[3 * m], this.q[3 * m + 1], this.q[3 * m + 2])) continue;
      const s = this.side[m];
      const h = this.triH[t];
      // 003 eq. 12 with the vertex fixed: C = s (q − p1) · n̂ − h
      const C = s * F[0] - h;
      if (C >= 0) continue;
      const nx = F[1],
        ny = F[2],
        nz = F[3];
      const b0 = F[4],
        b1 = F[5],
        b2 = F[6];
      const wa = w[ia],
        wb = w[ib],
        wc = w[ic];
      // ∇pi C = −s bi n̂, Σ wi |∇pi C|² = Σ wi bi²
      const sw = wa * b0 * b0 + wb * b1 * b1 + wc * b2 * b2;
      if (!(sw > 1e-30)) continue;
      const l = (C * s) / sw; // Δpi = −C wi ∇pi C / Σ = (C s / Σ) wi bi n̂: away from q
      let k = l * wa * b0;
      p[a] += k * nx;
      p[a + 1] += k * ny;
      p[a + 2] += k * nz;
      k = l * wb * b1;
      p[b] += k * nx;
      p[b + 1] += k * ny;
      p[b + 2] += k * nz;
      k = l * wc * b2;
      p[c] += k * nx;
      p[c + 1] += k * ny;
      p[c + 2] += k * nz;
    }
  }

  maxViolation(store: ParticleStore): number {
    let worst = 0;
    const p = store.p;
    for (let m = 0; m < this.count; m++) {
      const t = this.active[m];
      const a = 3 * this.tri[3 * t],
        b = 3 * this.tri[3 * t + 1],
        c = 3 * this.tri[3 * t + 2];
      if (!foot(p, a, b, c, this.q[3 * m], this.q[3 * m + 1], this.q[3 * m + 2])) continue;
      worst = Math.max(worst, this.triH[t] - this.side[m] * F[0]);
    }
    return worst;
  }

  /** Finds the (collider vertex, triangle) pairs that can meet during this step. */
  private detect(ctx: StepContext): void {
    this.candCount = 0;
    this.refresh();
    const world = this.world;
    this.meshColliders = world.colliders.filter(
      (c): c is MeshCollider => c instanceof MeshCollider && c.enabled,
    );
    const nt = this.triH.length;
    if (this.meshColliders.length === 0 || nt === 0) return;
    const { x, p, group, mask } = ctx.store;
    const disabled = findColliderContacts(world)?.disabledBody ?? null;
    const span = ctx.substeps; // the step is this many substeps of the prediction's motion
    const boxes = this.boxes,
      tri = this.tri;
    // the bounding box of every triangle box
    this.nextSides.clear();
    let nvMax = 0;
    for (const c of this.meshColliders) nvMax = Math.max(nvMax, c.mesh.positions.length / 3);
    const root = this.root;
    root[0] = root[1] = root[2] = Infinity;
    root[3] = root[4] = root[5] = -Infinity;
    for (let t = 0; t < nt; t++) {
      const r = 1.5 * this.triH[t];
      let lo0 = Infinity,
        lo1 = Infinity,
        lo2 = Infinity,
        hi0 = -Infinity,
        hi1 = -Infinity,
        hi2 = -Infinity;
      for (let j = 0; j < 3; j++) {
        const g = 3 * tri[3 * t + j];
        for (let s = 0; s < 2; s++) {
          const f = s === 0 ? 0 : span;
          const px = x[g] + f * (p[g] - x[g]),
            py = x[g + 1] + f * (p[g + 1] - x[g + 1]),
            pz = x[g + 2] + f * (p[g + 2] - x[g + 2]);
          if (px < lo0) lo0 = px;
          if (px > hi0) hi0 = px;
          if (py < lo1) lo1 = py;
          if (py > hi1) hi1 = py;
          if (pz < lo2) lo2 = pz;
          if (pz > hi2) hi2 = pz;
        }
      }
      const o = 6 * t;
      writeBox(boxes, o, lo0 - r, lo1 - r, lo2 - r, hi0 + r, hi1 + r, hi2 + r);
      for (let k = 0; k < 3; k++) {
        if (boxes[o + k] < root[k]) root[k] = boxes[o + k];
        if (boxes[o + 3 + k] > root[3 + k]) root[3 + k] = boxes[o + 3 + k];
      }
    }
    if (this.bvh.itemCount !== nt) this.bvh.build(boxes, nt);
    else this.bvh.refit(boxes);
    const dt = ctx.h * ctx.substeps;
    for (let ci = 0; ci < this.meshColliders.length; ci++) {
      const col = this.meshColliders[ci];
      const P = col.mesh.positions;
      const lv = col.linearVelocity,
        av = col.angularVelocity;
      for (let v = 0; v < P.length / 3; v++) {
        quatRotate(tmp, 0, col.rotation, 0, P[3 * v], P[3 * v + 1], P[3 * v + 2]);
        const rx = tmp[0],
          ry = tmp[1],
          rz = tmp[2];
        const qx = rx + col.position[0],
          qy = ry + col.position[1],
          qz = rz + col.position[2];
        // one step ahead, to first order: q + Δt (v + ω × r), plus the collider's margin
        const ex = qx + dt * (lv[0] + av[1] * rz - av[2] * ry),
          ey = qy + dt * (lv[1] + av[2] * rx - av[0] * rz),
          ez = qz + dt * (lv[2] + av[0] * ry - av[1] * rx);
        const mg = col.margin;
        const lo0 = Math.min(qx, ex) - mg,
          lo1 = Math.min(qy, ey) - mg,
          lo2 = Math.min(qz, ez) - mg,
          hi0 = Math.max(qx, ex) + mg,
          hi1 = Math.max(qy, ey) + mg,
          hi2 = Math.max(qz, ez) + mg;
        if (
          lo0 > root[3] ||
          hi0 < root[0] ||
          lo1 > root[4] ||
          hi1 < root[1] ||
          lo2 > root[5] ||
          hi2 < root[2]
        )
          continue;
        const m = this.bvh.query(boxes, lo0, lo1, lo2, hi0, hi1, hi2);
        const res = this.bvh.result;
        for (let j = 0; j < m; j++) {
          const t = res[j];
          const g = tri[3 * t];
          if (disabled && disabled[this.triBody[t]] === 1) continue;
          if ((mask[g] & col.group) === 0 || (col.mask & group[g]) === 0) continue;
          if (3 * this.candCount + 3 > this.cand.length) {
            const cap = Math.max(32, 2 * this.candSide.length);
            this.cand = grownArray(this.cand, 3 * cap);
            this.candSide = grownArray(this.candSide, cap);
            this.candKey = grownArray(this.candKey, cap);
          }
          // a pair that was in contact keeps its side (0: not yet known, taken each substep)
          const key = (ci * nvMax + v) * nt + t;
          const side = this.sides.get(key) ?? 0;
          if (side !== 0) this.nextSides.set(key, side);
          this.candKey[this.candCount] = key;
          this.cand[3 * this.candCount] = ci;
          this.cand[3 * this.candCount + 1] = v;
          this.cand[3 * this.candCount + 2] = t;
          this.candSide[this.candCount] = side;
          this.candCount++;
        }
      }
    }
    const done = this.sides;
    this.sides = this.nextSides;
    this.nextSides = done;
  }
}

/** foot(): signed distance of q along the unit normal, the normal, and the barycentric coordinates of its foot. */
const F = new Float64Array(7);

/**
 * The foot of q on the plane of triangle (a, b, c) of x: F[0] the signed
 * distance along the unit normal n̂ ∥ (b − a) × (c − a), F[1..3] n̂, F[4..6]
 * the barycentric coordinates of the foot. False for a degenerate triangle.
 */
function foot(x: Float64Array, a: number, b: number, c: number, qx: number, qy: number, qz: number): boolean {
  const ex = x[b] - x[a],
    ey = x[b + 1] - x[a + 1],
    ez = x[b + 2] - x[a + 2];
  const fx = x[c] - x[a],
    fy = x[c + 1] - x[a + 1],
    fz = x[c + 2] - x[a + 2];
  const nx = ey * fz - ez * fy,
    ny = ez * fx - ex * fz,
    nz = ex * fy - ey * fx;
  const len = Math.sqrt(nx * nx + ny * ny + nz * nz);
  const d00 = ex * ex + ey * ey + ez * ez,
    d01 = ex * fx + ey * fy + ez * fz,
    d11 = fx * fx + fy * fy + fz * fz;
  const den = d00 * d11 - d01 * d01;
  if (!(len > 1e-30) || !(den > 1e-30)) return false;
  const ux = qx - x[a],
    uy = qy - x[a + 1],
    uz = qz - x[a + 2];
  F[0] = (ux * nx + uy * ny + uz * nz) / len;
  F[1] = nx / len;
  F[2] = ny / len;
  F[3] = nz / len;
  const d20 = ux * ex + uy * ey + uz * ez,
    d21 = ux * fx + uy * fy + uz * fz;
  const b1 = (d11 * d20 - d01 * d21) / den,
    b2 = (d00 * d21 - d01 * d20) / den;
  F[4] = 1 - b1 - b2;
  F[5] = b1;
  F[6] = b2;
  return true;
}

/**
 * Whether q, seen from side s, is closer than `reach` to the plane of
 * triangle (a, b, c) of p (or behind it) with its foot on the triangle
 * (within FOOTPRINT in barycentric terms): 0 no, 1 in front of the plane,
 * 2 behind it. A vertex farther behind than `reach` plus the edge (a, b) did
 * not come from this triangle's side.
 */
function nearTriangle(
  p: Float64Array,
  a: number,
  b: number,
  c: number,
  qx: number,
  qy: number,
  qz: number,
  s: number,
  reach: number,
): number {
  if (!foot(p, a, b, c, qx, qy, qz)) return 0;
  const d = s * F[0];
  if (d > reach) return 0;
  if (d < -reach - Math.hypot(p[b] - p[a], p[b + 1] - p[a + 1], p[b + 2] - p[a + 2])) return 0;
  if (!(F[4] >= -FOOTPRINT && F[5] >= -FOOTPRINT && F[6] >= -FOOTPRINT)) return 0;
  return d >= 0 ? 1 : 2;
}
