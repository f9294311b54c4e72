import type { StepContext } from '../core/constraint-set.js';
import type { WorldCollider } from '../core/world-collider.js';
import { quatRotate, quatRotateInverse } from '../math/quat.js';
import { incomingSlip } from './collider-contact-chunks.js';
import type { PlainContacts } from './collider-contacts-blocks.js';

/** A SphereCollider (colliders.ts) as the pass reads it: its type is 'sphere'. */
export interface SphereLike extends WorldCollider {
  readonly radius: number;
}

/**
 * What the pass reads and writes of ColliderContacts (collider-contacts.ts; see there for each field):
 * the projection's contact list (PlainContacts) and what generating contacts adds.
 */
export interface SphereContactsTarget extends PlainContacts {
  count: number;
  capacity: number;
  grow(cap: number): void;
  vn0: Float64Array;
  deep: Uint8Array;
  rigid: Int32Array;
  contactOf: Int32Array;
  anchorOf: Int32Array;
  anchorSeen: Int32Array;
  substep: number;
  stickDecay: number;
  maxDepenetrationSpeed: number;
  disabledBody: Uint8Array | null;
  readonly rot: Float64Array;
  readonly nrm: Float64Array;
  readonly hit: Float64Array;
  chunkBox: Float64Array;
  chunkReach: Float64Array;
  cullTested: number;
  cullCulled: number;
  recordDeep(i: number, c: number, excess: number): void;
}

/**
 * SphereCollider.distanceAt at P[o …] with the centre (cx, cy, cz) read out of the loop: the unit
 * normal into nrm[0..2], the signed distance |P − c| − radius returned; at the centre itself
 * distanceAt's own fallback. Small, so that V8 inlines it into the loop below.
 */
function sphereDistanceAt(
  col: SphereLike,
  P: Float64Array,
  o: number,
  cx: number,
  cy: number,
  cz: number,
  nrm: Float64Array,
): number {
  const bx = P[o] - cx,
    by = P[o + 1] - cy,
    bz = P[o + 2] - cz;
  const len = Math.sqrt(bx * bx + by * by + bz * bz);
  if (len > 1e-12) {
    nrm[0] = bx / len;
    nrm[1] = by / len;
    nrm[2] = bz / len;
    return len - col.radius;
  }
  col.distanceAt(P, o, nrm);
  return nrm[3];
}

/**
 * The collider contacts of one sphere that follows no rigid body, generated
 * and recorded (with each particle's friction anchor) in one flat pass over
 * the particles: the hot loop of hair on a head (hair-10k: 74,000 contacts
 * a step). The same contacts as ColliderContacts.generate's generic loop
 * (003 §3.4: the continuous test along x → p, the static fallback with its
 * depenetration, the closest point within reach), computed with the same
 * operations in the same order, so the numbers are the same bit for bit:
 * SphereCollider's distanceAt and raycastAt (the point relative to the
 * centre, one square root, the ray's quadratic) are written out here as
 * arithmetic instead of called through the collider (calls V8 does not
 * inline, with their results passed through an array), and push()'s
 * recording of the contact and its anchor is inlined. A point at the
 * sphere's centre (no direction) still asks the collider (its turned +y).
 *
 * `c` is the collider's index; particles [from, to) (all by default: the fused strand pass,
 * src/strands/fused-pass.ts, generates block by block in particle order); `chunked` says whether the chunk boxes were
 * built this substep (chunks of `chunkSize` particles); the chunk tests made
 * and the chunks culled are added to cc.cullTested and cc.cullCulled. `uniform` (the fused strand
 * pass, without chunks) says that every particle of [from, to) has particle `from`'s radius, group
 * and mask: none of the three is read per particle (the same numbers, less memory traffic).
 */
export function generateSphereContacts(
  cc: SphereContactsTarget,
  ctx: StepContext,
  col: SphereLike,
  c: number,
  record: boolean,
  chunked: boolean,
  chunkSize: number,
  cullSlack: number,
  from = 0,
  to = ctx.store.count,
  uniform = false,
): void {
  const s = ctx.store;
  const { x, p, v, invMass, radius, group, mask, body } = s;
  const off = cc.disabledBody;
  const nrm = cc.nrm;
  const box = cc.chunkBox,
    chunkReach = cc.chunkReach;
  const rad = col.radius;
  const cp = col.position,
    cr = col.rotation;
  const cpx = cp[0],
    cpy = cp[1],
    cpz = cp[2];
  // an unturned sphere (0, 0, 0, w): turning into and out of its frame gives the vector itself, so the
  // anchor's two quaternion products are left out (the same numbers; at most the sign of a zero differs)
  const unturned = cr[0] === 0 && cr[1] === 0 && cr[2] === 0;
  const lv = col.linearVelocity,
    av = col.angularVelocity;
  const lvx = lv[0],
    lvy = lv[1],
    lvz = lv[2],
    avx = av[0],
    avy = av[1],
    avz = av[2];
  const margin = col.margin,
    cgroup = col.group,
    cmask = col.mask;
  const h = ctx.h;
  const maxDep = cc.maxDepenetrationSpeed;
  const substep = cc.substep;
  const decay = cc.stickDecay;
  const rot = cc.rot;
  const of = cc.contactOf,
    anchorOf = cc.anchorOf,
    anchorSeen = cc.anchorSeen,
    al = cc.anchorLocal,
    stickN = cc.stickN,
    stickT = cc.stickT;
  const r0 = uniform && from < to ? radius[from] : 0;
  if (uniform && from < to && ((mask[from] & cgroup) === 0 || (cmask & group[from]) === 0)) return;
  let tested = 0,
    culled = 0;
  for (let i = from; i < to; i++) {
    if (chunked && (i & (chunkSize - 1)) === 0) {
      // a chunk whose box is out of its particles' reach: the tests below would reject each one
      const b6 = (6 * i) / chunkSize;
      const bound = col.boxDistanceBound(
        box[b6],
        box[b6 + 1],
        box[b6 + 2],
        box[b6 + 3],
        box[b6 + 4],
        box[b6 + 5],
      );
      tested++;
      if (bound - 2 * margin > 2 * chunkReach[i / chunkSize] + cullSlack) {
        culled++;
        i += chunkSize - 1;
        continue;
      }
    }
    if (invMass[i] === 0) continue;
    if (!uniform && ((mask[i] & cgroup) === 0 || (cmask & group[i]) === 0)) continue;
    if (off !== null && body[i] >= 0 && off[body[i]] === 1) continue;
    const i3 = 3 * i;
    const px = p[i3],
      py = p[i3 + 1],
      pz = p[i3 + 2];
    const xx = x[i3],
      xy = x[i3 + 1],
      xz = x[i3 + 2];
    const r = margin + (uniform ? r0 : radius[i]);
    let deep = 0;
    const mx = px - xx,
      my = py - xy,
      mz = pz - xz;
    const seg = Math.sqrt(mx * mx + my * my + mz * mz);
    {
      // bounding-sphere rejection of the whole segment
      const dx = 0.5 * (px + xx) - cpx,
        dy = 0.5 * (py + xy) - cpy,
        dz = 0.5 * (pz + xz) - cpz;
      const reach = rad + 2 * (r + seg) + 0.5 * seg;
      if (dx * dx + dy * dy + dz * dz > reach * reach) continue;
    }
    // distance and normal at x (SphereCollider.distanceAt)
    const ax = xx - cpx,
      ay = xy - cpy,
      az = xz - cpz;
    // (the normal at x is needed only by the static fallback, and divided out only there)
    const lenX = Math.sqrt(ax * ax + ay * ay + az * az);
    let nx: number, ny: number, nz: number, dX: number;
    if (lenX > 1e-12) dX = lenX - rad;
    else {
      col.distanceAt(x, i3, nrm);
      dX = nrm[3];
    }
    let qx: number, qy: number, qz: number;
    if (dX >= r) {
      // x outside: continuous test along x → p, only if the segment can reach the surface
      // (SphereCollider.localRaycast of the segment relative to the centre)
      let t = -1;
      if (seg > dX - r) {
        const bx = px - cpx,
          by = py - cpy,
          bz = pz - cpz;
        const RR = rad + r;
        const ex = bx - ax,
          ey = by - ay,
          ez = bz - az;
        const a = ex * ex + ey * ey + ez * ez;
        if (a !== 0) {
          const b = 2 * (ax * ex + ay * ey + az * ez);
          const cq = ax * ax + ay * ay + az * az - RR * RR;
          if (!(cq < 0)) {
            const disc = b * b - 4 * a * cq;
            if (!(disc < 0)) {
              const tt = (-b - Math.sqrt(disc)) / (2 * a);
              if (tt >= 0 && tt <= 1) t = tt;
            }
          }
        }
      }
      if (t >= 0) {
        qx = xx + t * mx;
        qy = xy + t * my;
        qz = xz + t * mz;
        const hit = cc.hit;
        hit[0] = qx;
        hit[1] = qy;
        hit[2] = qz;
        sphereDistanceAt(col, hit, 0, cpx, cpy, cpz, nrm);
        nx = nrm[0];
        ny = nrm[1];
        nz = nrm[2];
      } else {
        const dP = sphereDistanceAt(col, p, i3, cpx, cpy, cpz, nrm);
        nx = nrm[0];
        ny = nrm[1];
        nz = nrm[2];
        if (dP >= 2 * (r + seg)) continue; // out of reach this substep (see ColliderContacts)
        qx = px - (dP - r) * nx;
        qy = py - (dP - r) * ny;
        qz = pz - (dP - r) * nz;
      }
    } else {
      // static fallback: a penetration deeper than the particle may leave in a substep at the
      // depenetration speed (plus the surface's own motion along n) is first moved out to that depth,
      // x and p together
      if (lenX > 1e-12) {
        nx = ax / lenX;
        ny = ay / lenX;
        nz = az / lenX;
      } else {
        nx = nrm[0];
        ny = nrm[1];
        nz = nrm[2];
      }
      const sn =
        (lvx + avy * az - avz * ay) * nx +
        (lvy + avz * ax - avx * az) * ny +
        (lvz + avx * ay - avy * ax) * nz;
      const excess = r - dX - (Math.max(sn, 0) + maxDep) * h;
      if (excess > 0 && record) {
        nrm[0] = nx;
        nrm[1] = ny;
        nrm[2] = nz;
        cc.recordDeep(i, c, excess);
        continue;
      }
      if (excess > 0) {
        const ex = excess * nx,
          ey = excess * ny,
          ez = excess * nz;
        x[i3] = xx + ex;
        x[i3 + 1] = xy + ey;
        x[i3 + 2] = xz + ez;
        p[i3] = px + ex;
        p[i3 + 1] = py + ey;
        p[i3 + 2] = pz + ez;
        deep = 1;
      }
      // the closest surface point of the prediction
      const qpx = p[i3],
        qpy = p[i3 + 1],
        qpz = p[i3 + 2];
      const dP = sphereDistanceAt(col, p, i3, cpx, cpy, cpz, nrm);
      nx = nrm[0];
      ny = nrm[1];
      nz = nrm[2];
      qx = qpx - (dP - r) * nx;
      qy = qpy - (dP - r) * ny;
      qz = qpz - (dP - r) * nz;
    }
    // velocity of the collider at q
    const rx = qx - cpx,
      ry = qy - cpy,
      rz = qz - cpz;
    const cvx = lvx + avy * rz - avz * ry;
    const cvy = lvy + avz * rx - avx * rz;
    const cvz = lvz + avx * ry - avy * rx;
    const vn0 = (v[i3] - cvx) * nx + (v[i3 + 1] - cvy) * ny + (v[i3 + 2] - cvz) * nz;
    // the contact (ColliderContacts.push, inlined)
    if (cc.count === cc.capacity) cc.grow(cc.capacity * 2);
    const k = cc.count++;
    const k3 = 3 * k;
    cc.particle[k] = i;
    cc.collider[k] = c;
    const q = cc.q,
      n = cc.n;
    q[k3] = qx;
    q[k3 + 1] = qy;
    q[k3 + 2] = qz;
    n[k3] = nx;
    n[k3 + 1] = ny;
    n[k3 + 2] = nz;
    cc.lambdaN[k] = 0;
    cc.lambdaT[k] = 0;
    cc.slid[k] = 0;
    cc.vn0[k] = vn0;
    cc.deep[k] = deep;
    cc.rigid[k] = -1;
    cc.incoming[k] = incomingSlip(x, p, i3, nx, ny, nz, cvx, cvy, cvz, h);
    of[i] = k;
    // the friction anchor: kept while the particle stays in contact with this collider, else set
    // where the particle is, carried by the surface's motion over the substep (x + h v_c)
    if (anchorOf[i] !== c + 1 || anchorSeen[i] < substep - 1) {
      const ex = x[i3] + cvx * h - cpx,
        ey = x[i3 + 1] + cvy * h - cpy,
        ez = x[i3 + 2] + cvz * h - cpz;
      if (unturned) {
        al[i3] = ex;
        al[i3 + 1] = ey;
        al[i3 + 2] = ez;
      } else {
        quatRotateInverse(rot, 0, cr, 0, ex, ey, ez);
        al[i3] = rot[0];
        al[i3 + 1] = rot[1];
        al[i3 + 2] = rot[2];
      }
      anchorOf[i] = c + 1;
      stickN[i] = 0;
      stickT[i3] = stickT[i3 + 1] = stickT[i3 + 2] = 0;
    } else {
      stickN[i] *= decay;
      stickT[i3] *= decay;
      stickT[i3 + 1] *= decay;
      stickT[i3 + 2] *= decay;
    }
    anchorSeen[i] = substep;
    const at = cc.anchorAt;
    if (unturned) {
      at[k3] = al[i3] + cpx;
      at[k3 + 1] = al[i3 + 1] + cpy;
      at[k3 + 2] = al[i3 + 2] + cpz;
    } else {
      quatRotate(rot, 0, cr, 0, al[i3], al[i3 + 1], al[i3 + 2]);
      at[k3] = rot[0] + cpx;
      at[k3 + 1] = rot[1] + cpy;
      at[k3 + 2] = rot[2] + cpz;
    }
  }
  cc.cullTested += tested;
  cc.cullCulled += culled;
}
