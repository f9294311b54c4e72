import type { Body } from '../core/body.js';
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import type { ParticleStore } from '../core/particles.js';
import { cross3, edgeVector } from '../math/edges.js';
import { movePair } from '../math/pair-move.js';
import { allowedPairs, contactFriction } from './contact-groups.js';
import { coulombShare, tangentialPart } from './coulomb.js';
import { closestSegmentSegmentAt } from './geometry.js';
import { SegmentContactArrays } from './segment-contact-arrays.generated.js';

/** Contact settings of the segments of one body. */
export interface SegmentContactOptions {
  /** Contacts between segments of this same body (a strand with itself, hairs of one head). Default true. */
  self?: boolean;
  /** Kinetic friction coefficient μ. Default 0.3. */
  friction?: number;
  /** Static friction coefficient μs. Default: equal to `friction`. */
  staticFriction?: number;
}

const cs = new Float64Array(3);
/** Scratch: the tangential part of a contact's relative displacement (coulomb.ts). */
const T = new Float64Array(3);
/** Scratch of the touching case: the two segments' directions and their cross product (math/edges.ts). */
const across = new Float64Array(9);

/**
 * Contacts one segment may collect per substep. The shipped scenes collect at
 * most 9 (strands-rod-twist; strands-knot 6, over their whole bakes); bodies
 * copied on top of each other (1,000 overlapping knots: every segment against
 * its 999 copies) would otherwise collect contacts without bound and run out
 * of memory. Past the cap a segment's remaining candidates are skipped
 * (counted in `capped`, with a one-time notice), so the contact memory is at
 * most MAX_CONTACTS_PER_SEGMENT × segments.
 */
export const MAX_CONTACTS_PER_SEGMENT = 64;
/**
 * Candidates (segments whose swept boxes meet its own) one segment may test
 * per substep, and the broad phase examines at most 8 × as many stored
 * entries for it (SpatialHash.query's limit): the work of a substep is then
 * at most linear in the segments whatever the positions. The shipped scenes
 * have at most 14 per query over 120 frames (strands-knot; strands-rod-twist
 * 9); 1,000 overlapping knots had about 1,000 per segment and a first step
 * of more than 5 minutes. A segment past the cap counts in `capped`, with
 * the same one-time notice.
 */
export const MAX_CANDIDATES_PER_SEGMENT = 32;
let capNoticed = false;

/**
 * Contact between line segments with radii — capsules around the segments
 * of strand bodies (ropes, hair, Cosserat rods, surgical thread), within a
 * body and between bodies: the segment–segment contacts of strands.
 *
 * Generated every substep (003 §3.4's scheme: collision constraints from
 * the motion x → p) for the pairs of segments whose swept boxes meet, with
 * the unilateral constraint
 *
 *   C = n · (c_2 − c_1) − (r_1 + r_2) ≥ 0,
 *
 * c_1 = (1 − s) p_a + s p_b and c_2 = (1 − t) p_c + t p_d the closest points
 * of the two segments (recomputed at every projection), r the segments'
 * radii (the mean of their particles'). The normal is the direction between
 * the closest points while the segments stay on the side they were on at
 * the start of the substep, and that side's normal n₀ (from x) once the
 * prediction carries one segment through the other: so a crossing within a
 * substep is undone instead of being pushed further through, and two
 * strands never pass through each other as long as they were apart at the
 * start (the knot of the surgical thread relies on it). Its projection
 * moves the four particles along n in proportion to w_i and their weights
 * (1 − s, s, 1 − t, t): the corrections sum to zero, so it conserves linear
 * momentum. Friction acts at position level as in the particle contacts
 * (Macklin et al. 2014, §6.1): the relative tangential displacement of the
 * closest points over the substep is removed while below μs times the
 * normal correction, and reduced by μ times it otherwise.
 *
 * Segments of one strand closer along it than their radii reach (neighbours
 * that touch at rest) are never paired.
 */
export class SegmentContacts extends SegmentContactArrays implements ConstraintSet {
  readonly kind = 'segment-contact';
  readonly order = 107;
  protected readonly what = 'segment';
  // the segments taking part: end particles, group, chain and position along it, skip distance
  private sa = new Int32Array(0);
  private sb = new Int32Array(0);
  private sGroup = new Int32Array(0);
  private sChain = new Int32Array(0);
  private sPos = new Int32Array(0);
  private sSkip = new Int32Array(0);
  // (the per-contact arrays, capacity, grow and push are SegmentContactArrays's, printed from a table
  // in scripts/kernels/emit-layouts.ts; push's values: a, b, c, d, the normal, R, μs, μk)

  /** Registers the segments (`contactLines()`) of a body, or gives a registered body new settings. */
  addBody(body: Body, o: SegmentContactOptions = {}): void {
    const where = `segment contacts of '${body.name}'`;
    const [mu, mus] = contactFriction(o, where);
    this.register({ body, self: o.self ?? true, friction: mu, staticFriction: mus });
  }

  private refresh(store: ParticleStore): void {
    const a: number[] = [],
      b: number[] = [],
      g: number[] = [],
      chain: number[] = [],
      pos: number[] = [],
      skip: number[] = [];
    let chains = 0;
    this.groups.forEach((grp, gi) => {
      const body = grp.body;
      const lines = body.contactLines();
      const off = body.offset;
      // segments closer along their chain than 1 + (r_1 + r_2)/l_min segments touch at rest: never paired
      let lmin = Infinity,
        rmax = 0;
      for (let k = 0; k < lines.length; k += 2) {
        const i = off + lines[k],
          j = off + lines[k + 1];
        const l = Math.hypot(
          store.x[3 * i] - store.x[3 * j],
          store.x[3 * i + 1] - store.x[3 * j + 1],
          store.x[3 * i + 2] - store.x[3 * j + 2],
        );
        if (l > 0) lmin = Math.min(lmin, l);
        rmax = Math.max(rmax, store.radius[i], store.radius[j]);
      }
      const k0 = Number.isFinite(lmin) ? 1 + Math.ceil((2 * rmax) / lmin) : 1;
      let p = 0;
      for (let k = 0; k < lines.length; k += 2) {
        const i = off + lines[k],
          j = off + lines[k + 1];
        if (a.length === 0 || g[g.length - 1] !== gi || b[b.length - 1] !== i) {
          chains++;
          p = 0;
        } else p++;
        a.push(i);
        b.push(j);
        g.push(gi);
        chain.push(chains);
        pos.push(p);
        skip.push(k0);
      }
    });
    this.sa = Int32Array.from(a);
    this.sb = Int32Array.from(b);
    this.sGroup = Int32Array.from(g);
    this.sChain = Int32Array.from(chain);
    this.sPos = Int32Array.from(pos);
    this.sSkip = Int32Array.from(skip);
    this.n = a.length;
    this.boxes = new Float64Array(6 * this.n);
    this.allowedPair = allowedPairs(this.groups, this.pairOff);
    this.dirty = false;
  }

  beginStep(ctx: StepContext): void {
    const store = ctx.store;
    if (this.dirty) this.refresh(store);
    this.count = 0;
    const n = this.n;
    if (n === 0) return;
    const { p, x, invMass: w, radius: r, group, mask } = store;
    const A = this.sa,
      B = this.sb,
      boxes = this.boxes;
    const mf = this.marginFactor;
    // swept boxes of both ends over x → p, grown by the radius and the margin
    for (let k = 0; k < n; k++) {
      const i3 = 3 * A[k],
        j3 = 3 * B[k];
      const g = Math.max(r[A[k]], r[B[k]]) * (1 + mf);
      for (let c = 0; c < 3; c++) {
        boxes[6 * k + c] = Math.min(x[i3 + c], p[i3 + c], x[j3 + c], p[j3 + c]) - g;
        boxes[6 * k + 3 + c] = Math.max(x[i3 + c], p[i3 + c], x[j3 + c], p[j3 + c]) + g;
      }
    }
    const hash = this.hash;
    this.buildHash();
    const G = this.groups.length;
    for (let u = 0; u < n; u++) {
      const m = this.queryCandidates(u, MAX_CANDIDATES_PER_SEGMENT);
      if (hash.truncated) this.cap(-1);
      if (m === 0) continue;
      const res = hash.result;
      const ia = A[u],
        ib = B[u],
        gu = this.sGroup[u];
      const first = this.count;
      for (let k = 0; k < m; k++) {
        const v = res[k];
        const ic = A[v],
          id = B[v];
        if (ia === ic || ia === id || ib === ic || ib === id) continue;
        if (this.allowedPair[gu * G + this.sGroup[v]] === 0) continue;
        if (this.sChain[u] === this.sChain[v] && Math.abs(this.sPos[u] - this.sPos[v]) <= this.sSkip[u])
          continue;
        if (w[ia] === 0 && w[ib] === 0 && w[ic] === 0 && w[id] === 0) continue;
        if ((mask[ia] & group[ic]) === 0 || (mask[ic] & group[ia]) === 0) continue;
        const R = 0.5 * (r[ia] + r[ib] + r[ic] + r[id]);
        const reach = R * (1 + mf);
        // closest points at the start of the substep: the side the pair is on
        closestSegmentSegmentAt(x, 3 * ia, 3 * ib, x, 3 * ic, 3 * id, cs);
        const s0 = cs[0],
          t0 = cs[1];
        let nx = 0,
          ny = 0,
          nz = 0;
        for (let c = 0; c < 3; c++) {
          const d =
            (1 - t0) * x[3 * ic + c] + t0 * x[3 * id + c] - (1 - s0) * x[3 * ia + c] - s0 * x[3 * ib + c];
          if (c === 0) nx = d;
          else if (c === 1) ny = d;
          else nz = d;
        }
        const d0 = Math.sqrt(nx * nx + ny * ny + nz * nz);
        // and at the prediction: a pair apart at both ends of the substep, beyond reach, cannot touch
        closestSegmentSegmentAt(p, 3 * ia, 3 * ib, p, 3 * ic, 3 * id, cs);
        if (d0 > reach && Math.sqrt(cs[2]) > reach) {
          // still, the segments may cross in between: test the sign of the side along the start normal
          const s1 = cs[0],
            t1 = cs[1];
          let side = 0;
          for (let c = 0; c < 3; c++) {
            const d =
              (1 - t1) * p[3 * ic + c] + t1 * p[3 * id + c] - (1 - s1) * p[3 * ia + c] - s1 * p[3 * ib + c];
            side += d * (c === 0 ? nx : c === 1 ? ny : nz);
          }
          if (side > 0) continue;
        }
        if (d0 > 1e-12) {
          nx /= d0;
          ny /= d0;
          nz /= d0;
        } else {
          // the centrelines touch at the start: across both segments, (b − a) × (d − c), toward where
          // the prediction goes
          const E = across;
          edgeVector(x, 3 * ia, 3 * ib, E, 0);
          edgeVector(x, 3 * ic, 3 * id, E, 3);
          cross3(E, 0, 3, 6);
          nx = E[6];
          ny = E[7];
          nz = E[8];
          let l = Math.sqrt(nx * nx + ny * ny + nz * nz);
          if (!(l > 1e-300)) {
            // parallel: any direction across the first segment
            const ux = E[0],
              uy = E[1],
              uz = E[2];
            nx = Math.abs(ux) < Math.abs(uy) ? 0 : -uy;
            ny = Math.abs(ux) < Math.abs(uy) ? -uz : ux;
            nz = Math.abs(ux) < Math.abs(uy) ? uy : 0;
            l = Math.sqrt(nx * nx + ny * ny + nz * nz);
            if (!(l > 1e-300)) {
              nx = 1;
              l = 1;
            }
          }
          nx /= l;
          ny /= l;
          nz /= l;
        }
        const A1 = this.groups[gu],
          B1 = this.groups[this.sGroup[v]];
        this.push(
          ia,
          ib,
          ic,
          id,
          nx,
          ny,
          nz,
          R,
          0.5 * (A1.staticFriction + B1.staticFriction),
          0.5 * (A1.friction + B1.friction),
        );
        if (this.count - first >= MAX_CONTACTS_PER_SEGMENT) {
          if (k < m - 1) this.cap(m - k - 1);
          break;
        }
      }
    }
  }

  /**
   * Counts a segment that reached its contact cap (`skipped` candidates left) or, with skipped = −1,
   * its candidate cap, with a one-time notice.
   */
  private cap(skipped: number): void {
    this.capped++;
    if (capNoticed || typeof console === 'undefined') return;
    capNoticed = true;
    console.warn(
      skipped >= 0
        ? `pbdkit: segment contacts: a strand segment met more than ${MAX_CONTACTS_PER_SEGMENT} others in one substep (bodies started on top of each other?); its remaining ${skipped} candidates were skipped`
        : `pbdkit: segment contacts: a strand segment's swept box met more than ${MAX_CANDIDATES_PER_SEGMENT} others in one substep (bodies started on top of each other?); the candidates beyond were skipped`,
    );
  }

  /**
   * Passes per contact and projection: a correction turns the segments (a
   * push on one end lets the other end through), so each contact is
   * projected again at its new closest points while it is violated, up to
   * this many times. Default 4.
   */
  localPasses = 4;

  project(ctx: StepContext): void {
    const { p, x, invMass: w } = ctx.store;
    const passes = Math.max(1, this.localPasses | 0);
    for (let k = 0; k < this.count; k++) {
      for (let pass = 0; pass < passes; pass++) if (!this.projectContact(k, p, x, w)) break;
    }
  }

  /** Projects contact k once at the current closest points; false when it was not violated. */
  private projectContact(k: number, p: Float64Array, x: Float64Array, w: Float64Array): boolean {
    const N = this.nrm;
    const a = this.ca[k],
      b = this.cb[k],
      c = this.cc[k],
      d = this.cd[k];
    const a3 = 3 * a,
      b3 = 3 * b,
      c3 = 3 * c,
      d3 = 3 * d;
    closestSegmentSegmentAt(p, a3, b3, p, c3, d3, cs);
    const s = cs[0],
      t = cs[1];
    const s1 = 1 - s,
      t1 = 1 - t;
    const dx = t1 * p[c3] + t * p[d3] - s1 * p[a3] - s * p[b3],
      dy = t1 * p[c3 + 1] + t * p[d3 + 1] - s1 * p[a3 + 1] - s * p[b3 + 1],
      dz = t1 * p[c3 + 2] + t * p[d3 + 2] - s1 * p[a3 + 2] - s * p[b3 + 2];
    const n0x = N[3 * k],
      n0y = N[3 * k + 1],
      n0z = N[3 * k + 2];
    const side = dx * n0x + dy * n0y + dz * n0z;
    const dist = Math.sqrt(dx * dx + dy * dy + dz * dz);
    let nx: number, ny: number, nz: number, C: number;
    if (side > 0 && dist > 1e-12) {
      // on the side it started: the direction between the closest points
      nx = dx / dist;
      ny = dy / dist;
      nz = dz / dist;
      C = dist - this.radiusSum[k];
    } else {
      // carried through: back along the side's normal
      nx = n0x;
      ny = n0y;
      nz = n0z;
      C = side - this.radiusSum[k];
    }
    if (C >= 0) return false;
    const wa = w[a] * s1,
      wb = w[b] * s,
      wc = w[c] * t1,
      wd = w[d] * t;
    const W = wa * s1 + wb * s + wc * t1 + wd * t;
    if (!(W > 0)) return false;
    const dl = -C / W;
    this.lambda[k] += dl;
    // Δp_a = −w_a (1 − s) n Δλ … Δp_d = w_d t n Δλ (C grows with c_2 − c_1): two equal-and-opposite
    // moves, (c, a) and (d, b) (four distinct particles: the order of their writes changes no bit)
    movePair(p, c3, a3, wc * dl, wa * dl, nx, ny, nz);
    movePair(p, d3, b3, wd * dl, wb * dl, nx, ny, nz);
    // position-level friction on the relative tangential displacement of the closest points over the substep
    const muK = this.muK[k],
      muS = this.muS[k];
    if (muK === 0 && muS === 0) return true;
    let rx = 0,
      ry = 0,
      rz = 0;
    for (let q = 0; q < 3; q++) {
      const r =
        t1 * (p[c3 + q] - x[c3 + q]) +
        t * (p[d3 + q] - x[d3 + q]) -
        s1 * (p[a3 + q] - x[a3 + q]) -
        s * (p[b3 + q] - x[b3 + q]);
      if (q === 0) rx = r;
      else if (q === 1) ry = r;
      else rz = r;
    }
    // Coulomb's split (coulomb.ts): t the tangential part, g the share of it removed
    const tl = tangentialPart(T, rx, ry, rz, nx, ny, nz);
    if (!(tl > 1e-15)) return true;
    const g = coulombShare(tl, -C, muS, muK);
    const f = g / W;
    const tx = T[0],
      ty = T[1],
      tz = T[2];
    movePair(p, a3, c3, wa * f, wc * f, tx, ty, tz);
    movePair(p, b3, d3, wb * f, wd * f, tx, ty, tz);
    return true;
  }

  readonly violationUnit = 'm';

  /** Largest overlap r_1 + r_2 − |c_2 − c_1| (m) over the contacts, at x. */
  maxViolation(store: ParticleStore): number {
    const x = store.x;
    let m = 0;
    for (let k = 0; k < this.count; k++) {
      closestSegmentSegmentAt(x, 3 * this.ca[k], 3 * this.cb[k], x, 3 * this.cc[k], 3 * this.cd[k], cs);
      m = Math.max(m, this.radiusSum[k] - Math.sqrt(cs[2]));
    }
    return m;
  }

  /** Segment pairs in contact this substep (first particles of each), for tests. */
  pairs(): [number, number][] {
    return this.contactPairs(this.ca, this.cc);
  }
}
