/**
 * The narrow phase of the rigid bodies: for a pair of bodies (or a body and
 * a collider of the world) that the broad phase found close, the contact
 * manifold at the poses of the step's start, by the shapes' kinds:
 *
 * | pair                         | method                                         |
 * | ---------------------------- | ---------------------------------------------- |
 * | sphere/capsule × sphere/capsule | closest points of the cores (collide-round) |
 * | sphere/capsule × box/hull/triangle | GJK, face of least penetration (collide-round) |
 * | box × box                    | 15-axis SAT + face clipping (collide-box)      |
 * | box/hull × box/hull/triangle | SAT with Gauss-map pruning + clipping (collide-convex) |
 * | anything × plane collider    | core points / vertices below the plane         |
 * | anything × mesh              | a BVH of the mesh's triangles, one-sided triangles |
 *
 * Body 1 of a pair is always a body of the store; body 2 may be a collider.
 */
import { Bvh } from '../collision/bvh.js';
import { BoxCollider, CapsuleCollider, PlaneCollider, SphereCollider } from '../collision/colliders.js';
import { MeshCollider } from '../collision/mesh-collider.js';
import type { RigidStore } from '../core/rigid-store.js';
import type { WorldCollider } from '../core/world-collider.js';
import { collideBoxBox } from './collide-box.js';
import { collidePolyhedra, trianglePolyhedron, WorldPoly } from './collide-convex.js';
import { collideRoundPlane, collideRoundPoly, collideRoundRound } from './collide-round.js';
import type { RigidContacts } from './contact-set.js';
import { Pair } from './manifold.js';
import { boxPolyhedron, type ConvexPolyhedron } from './polyhedron.js';
import { BOX, CAPSULE, CONVEX, MESH, type Shape, SPHERE } from './shapes.js';

/** A triangle mesh with its BVH (local frame). */
interface MeshData {
  positions: Float64Array;
  triangles: Uint32Array;
  bvh: Bvh;
  boxes: Float64Array;
  /** The free side is the inside (a container): triangles face the other way. */
  flip: boolean;
}

function meshData(positions: Float64Array, triangles: Uint32Array, flip: boolean): MeshData {
  const nt = triangles.length / 3;
  const boxes = new Float64Array(6 * nt);
  for (let t = 0; t < nt; t++) {
    for (let k = 0; k < 3; k++) {
      let lo = Infinity,
        hi = -Infinity;
      for (let c = 0; c < 3; c++) {
        const v = positions[3 * triangles[3 * t + c] + k];
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
      boxes[6 * t + k] = lo;
      boxes[6 * t + 3 + k] = hi;
    }
  }
  const bvh = new Bvh(4);
  bvh.build(boxes, nt);
  return { positions, triangles, bvh, boxes, flip };
}

const tri = new Float64Array(9);

export class NarrowPhase {
  readonly pair = new Pair();
  private readonly wa = new WorldPoly(boxPolyhedron(1, 1, 1));
  private readonly wb = new WorldPoly(boxPolyhedron(1, 1, 1));
  private readonly wt = new WorldPoly(trianglePolyhedron());
  private readonly coreA = new Float64Array(6);
  private readonly coreB = new Float64Array(6);
  private readonly meshes = new WeakMap<object, MeshData>();
  private readonly boxes = new WeakMap<object, { h: number[]; poly: ConvexPolyhedron }>();
  private readonly qtmp = new Float64Array(4);

  constructor(contacts: RigidContacts) {
    this.pair.contacts = contacts;
  }

  /** Loads body i's pose into side A (b = false) or B of the pair. */
  private load(r: RigidStore, i: number, b: boolean): void {
    const x = b ? this.pair.xB : this.pair.xA,
      q = b ? this.pair.qB : this.pair.qA;
    for (let k = 0; k < 3; k++) x[k] = r.x[3 * i + k];
    for (let k = 0; k < 4; k++) q[k] = r.q[4 * i + k];
  }

  /** The core of a sphere (1 point) or capsule (2 points) at pose (x, q) into C; returns the count. */
  private core(s: Shape, x: Float64Array, q: Float64Array, C: Float64Array): number {
    if (s.kind === SPHERE) {
      C[0] = x[0];
      C[1] = x[1];
      C[2] = x[2];
      return 1;
    }
    // R (0, h, 0) = h × the second column of R
    const qx = q[0],
      qy = q[1],
      qz = q[2],
      qw = q[3];
    const h = s.halfHeight;
    const ax = h * 2 * (qx * qy - qz * qw),
      ay = h * (1 - 2 * (qx * qx + qz * qz)),
      az = h * 2 * (qy * qz + qx * qw);
    C[0] = x[0] - ax;
    C[1] = x[1] - ay;
    C[2] = x[2] - az;
    C[3] = x[0] + ax;
    C[4] = x[1] + ay;
    C[5] = x[2] + az;
    return 2;
  }

  /** Contacts of store bodies ia and ib (shape kinds sa.kind ≤ sb.kind), margin m. */
  bodies(r: RigidStore, ia: number, sa: Shape, ib: number, sb: Shape, margin: number): void {
    const pair = this.pair;
    pair.ia = ia;
    pair.ib = ib;
    pair.margin = margin;
    pair.reach = 0.05 * Math.min(sa.boundingRadius, sb.boundingRadius);
    this.load(r, ia, false);
    this.load(r, ib, true);
    this.shapes(sa, sb);
  }

  /** Both sides loaded: dispatch on the kinds (sa.kind ≤ sb.kind unless sb is a mesh). */
  private shapes(sa: Shape, sb: Shape): void {
    const pair = this.pair;
    const ka = sa.kind,
      kb = sb.kind;
    if (kb === MESH) {
      this.mesh(sa, this.meshOf(sb, sb.meshPositions!, sb.meshTriangles!, false));
      return;
    }
    if (ka <= CAPSULE) {
      const na = this.core(sa, pair.xA, pair.qA, this.coreA);
      if (kb <= CAPSULE) {
        const nb = this.core(sb, pair.xB, pair.qB, this.coreB);
        collideRoundRound(this.coreA, na, sa.radius, this.coreB, nb, sb.radius, pair);
      } else {
        this.wb.place(sb.poly!, pair.xB, pair.qB);
        collideRoundPoly(this.coreA, na, sa.radius, this.wb, pair, false);
      }
      return;
    }
    if (ka === BOX && kb === BOX) {
      collideBoxBox(sa.halfExtents, sb.halfExtents, pair);
      return;
    }
    if (ka >= BOX && kb >= BOX && ka <= CONVEX && kb <= CONVEX) {
      this.wa.place(sa.poly!, pair.xA, pair.qA);
      this.wb.place(sb.poly!, pair.xB, pair.qB);
      collidePolyhedra(this.wa, this.wb, pair);
      return;
    }
    // a polyhedron (body 1) against a round body 2
    this.wa.place(sa.poly!, pair.xA, pair.qA);
    const nb = this.core(sb, pair.xB, pair.qB, this.coreB);
    collideRoundPoly(this.coreB, nb, sb.radius, this.wa, pair, true);
  }

  private meshOf(key: object, positions: Float64Array, triangles: Uint32Array, flip: boolean): MeshData {
    let m = this.meshes.get(key);
    if (!m) {
      m = meshData(positions, triangles, flip);
      this.meshes.set(key, m);
    }
    return m;
  }

  /** Body 1 (shape s, side A) against the triangles of mesh m at side B's pose, near A's bounding sphere. */
  private mesh(s: Shape, m: MeshData): void {
    const pair = this.pair;
    const xA = pair.xA,
      xB = pair.xB,
      qB = pair.qB;
    // A's bounding sphere in the mesh frame
    const q = this.qtmp;
    q[0] = -qB[0];
    q[1] = -qB[1];
    q[2] = -qB[2];
    q[3] = qB[3];
    rotate(q, xA[0] - xB[0], xA[1] - xB[1], xA[2] - xB[2], tri, 0);
    const rad = s.boundingRadius + pair.margin;
    const hits = m.bvh.query(
      m.boxes,
      tri[0] - rad,
      tri[1] - rad,
      tri[2] - rad,
      tri[0] + rad,
      tri[1] + rad,
      tri[2] + rad,
    );
    if (hits === 0) return;
    const isRound = s.kind <= CAPSULE;
    const nc = isRound ? this.core(s, xA, pair.qA, this.coreA) : 0;
    if (!isRound) this.wa.place(s.poly!, xA, pair.qA);
    const P = m.positions,
      T = m.triangles;
    const result = m.bvh.result;
    for (let h = 0; h < hits; h++) {
      const t = result[h];
      const a = T[3 * t],
        b = T[3 * t + (m.flip ? 2 : 1)],
        c = T[3 * t + (m.flip ? 1 : 2)];
      rotate(qB, P[3 * a], P[3 * a + 1], P[3 * a + 2], tri, 0);
      rotate(qB, P[3 * b], P[3 * b + 1], P[3 * b + 2], tri, 3);
      rotate(qB, P[3 * c], P[3 * c + 1], P[3 * c + 2], tri, 6);
      for (let k = 0; k < 9; k++) tri[k] += xB[k % 3];
      this.wt.triangle(tri, 0, 1, 2);
      // one-sided: skip triangles whose plane A's centre lies behind
      const wt = this.wt;
      if (wt.n[0] * xA[0] + wt.n[1] * xA[1] + wt.n[2] * xA[2] < wt.d[0]) continue;
      if (isRound) collideRoundPoly(this.coreA, nc, s.radius, wt, pair, false);
      else collidePolyhedra(this.wa, wt, pair);
    }
  }

  /** Contacts of store body ia (shape s) with collider k of the world. */
  collider(r: RigidStore, ia: number, s: Shape, k: number, col: WorldCollider, margin: number): void {
    const pair = this.pair;
    pair.ia = ia;
    pair.ib = -1 - k;
    pair.margin = margin;
    pair.reach = 0.05 * s.boundingRadius;
    this.load(r, ia, false);
    for (let d = 0; d < 3; d++) pair.xB[d] = col.position[d];
    for (let d = 0; d < 4; d++) pair.qB[d] = col.rotation[d];
    if (col instanceof PlaneCollider) {
      // the plane y = 0 of the collider's frame, normal +y
      rotate(pair.qB, 0, 1, 0, tri, 0);
      const nx = tri[0],
        ny = tri[1],
        nz = tri[2];
      const d = nx * col.position[0] + ny * col.position[1] + nz * col.position[2];
      if (s.kind <= CAPSULE) {
        const na = this.core(s, pair.xA, pair.qA, this.coreA);
        collideRoundPlane(this.coreA, na, s.radius, nx, ny, nz, d, pair);
      } else if (s.kind !== MESH) {
        // every vertex within the margin: a core of the polyhedron's vertices with radius 0
        this.wa.place(s.poly!, pair.xA, pair.qA);
        collideRoundPlane(this.wa.v, s.poly!.vertexCount, 0, nx, ny, nz, d, pair);
      }
      return;
    }
    if (s.kind === MESH) return; // a static mesh body does not meet static colliders
    if (col instanceof SphereCollider || col instanceof CapsuleCollider) {
      const C = this.coreB;
      let nb = 1;
      C[0] = pair.xB[0];
      C[1] = pair.xB[1];
      C[2] = pair.xB[2];
      if (col instanceof CapsuleCollider) {
        rotate(pair.qB, 0, col.halfHeight, 0, tri, 0);
        for (let d = 0; d < 3; d++) {
          C[d] = pair.xB[d] - tri[d];
          C[3 + d] = pair.xB[d] + tri[d];
        }
        nb = 2;
      }
      if (s.kind <= CAPSULE) {
        const na = this.core(s, pair.xA, pair.qA, this.coreA);
        collideRoundRound(this.coreA, na, s.radius, C, nb, col.radius, pair);
      } else {
        this.wa.place(s.poly!, pair.xA, pair.qA);
        collideRoundPoly(C, nb, col.radius, this.wa, pair, true);
      }
      return;
    }
    if (col instanceof BoxCollider) {
      const h = col.halfExtents;
      let b = this.boxes.get(col);
      if (!b || b.h[0] !== h[0] || b.h[1] !== h[1] || b.h[2] !== h[2]) {
        b = { h: [h[0], h[1], h[2]], poly: boxPolyhedron(h[0], h[1], h[2]) };
        this.boxes.set(col, b);
      }
      if (s.kind === BOX) {
        collideBoxBox(s.halfExtents, h, pair);
        return;
      }
      this.wb.place(b.poly, pair.xB, pair.qB);
      if (s.kind <= CAPSULE) {
        const na = this.core(s, pair.xA, pair.qA, this.coreA);
        collideRoundPoly(this.coreA, na, s.radius, this.wb, pair, false);
      } else {
        this.wa.place(s.poly!, pair.xA, pair.qA);
        collidePolyhedra(this.wa, this.wb, pair);
      }
      return;
    }
    if (col instanceof MeshCollider) {
      this.mesh(s, this.meshOf(col, col.mesh.positions, col.mesh.triangles, col.inside));
    }
  }
}

/** out[o …] ← R(q) v. */
function rotate(q: Float64Array, vx: number, vy: number, vz: number, out: Float64Array, o: number): void {
  const qx = q[0],
    qy = q[1],
    qz = q[2],
    qw = q[3];
  const tx = 2 * (qy * vz - qz * vy),
    ty = 2 * (qz * vx - qx * vz),
    tz = 2 * (qx * vy - qy * vx);
  out[o] = vx + qw * tx + (qy * tz - qz * ty);
  out[o + 1] = vy + qw * ty + (qz * tx - qx * tz);
  out[o + 2] = vz + qw * tz + (qx * ty - qy * tx);
}
