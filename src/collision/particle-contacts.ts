import type { Body } from '../core/body.js';
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { PbdError } from '../core/errors.js';
import type { ParticleStore } from '../core/particles.js';
import type { SystemKind, World } from '../core/world.js';
import { movePair } from '../math/pair-move.js';
import { incomingSlip } from './collider-contact-chunks.js';
import type { ContactGroup } from './contact-groups.js';
import { allowedPairs, contactFriction } from './contact-groups.js';
import { kineticShare } from './coulomb.js';
import { ParticleContactArrays } from './particle-contact-arrays.generated.js';

/** Contact settings of the particles of one body. */
export interface ParticleContactOptions {
  /** Contacts between particles of this same body (false for a body that keeps its own shape). Default true. */
  self?: boolean;
  /** Kinetic friction coefficient μ. Default 0.3. */
  friction?: number;
  /** Static friction coefficient μs. Default: equal to `friction`. */
  staticFriction?: number;
  /** Coefficient of restitution e ∈ [0, 1]. Default 0. */
  restitution?: number;
}

interface ParticleGroup extends ContactGroup {
  restitution: number;
}

/**
 * Candidates (particles whose boxes meet its own) one particle may test per
 * substep; the broad phase examines at most 8 × as many stored entries for
 * it (SpatialHash.query's limit), so the work and the contacts of a substep
 * are at most linear in the particles whatever the positions. Bodies copied
 * on top of each other (1,000 overlapping copies) put every particle's
 * copies in its box: all pairs. The shipped scenes have at most 269 per
 * query over 120 frames (shape-matching-ducks, whose own particles, which
 * never touch each other, are candidates too; the granular scenes 20). A
 * particle past the cap counts in
 * `ParticleContacts.capped`, with a one-time notice.
 */
export const MAX_CANDIDATES_PER_PARTICLE = 512;
/**
 * Contacts one particle's query may add per substep (its pairs (i, j > i)):
 * without it the contact arrays of coincident copies would hold every
 * candidate (300 coincident piles: 24 M contacts, gigabytes). The shipped
 * scenes add at most 30 (shape-matching-plastic; ducks 29, granular 9–13),
 * over 120 frames. Past it the particle counts in `capped`.
 */
export const MAX_CONTACTS_PER_PARTICLE = 64;
let capNoticed = false;

/** The registry key of a world's particle contacts (World.system). */
const particleContactsKind: SystemKind<ParticleContacts> = {
  name: 'particle contacts',
  install(world) {
    const c = new ParticleContacts();
    world.addConstraintSet(c);
    return c;
  },
};

/**
 * Contact between particles with radii, the one particle–particle contact
 * system of a world: granular bodies and particle scenes (through the
 * collision system), shape-matched bodies that collide with each other
 * (ducks, tori, rigid clusters; they register with `self: false`, a body
 * keeping its own shape), particle-sampled bodies.
 * C = |p_i − p_j| − (r_i + r_j) ≥ 0, a unilateral distance constraint (003
 * §3.3, eqs. 10–11) generated every substep for the pairs the spatial hash
 * finds within reach. Its projection moves both particles along their line
 * of centres in inverse proportion to their masses, so it conserves linear
 * and angular momentum.
 *
 * Friction is applied at position level (as in Macklin et al. 2014, "Unified
 * particle physics", §6.1), against an anchor per contact pair, as the
 * collider contacts do (collider-contacts.ts): the relative position
 * p_i − p_j of the pair when the contact was made. The anchor is kept from
 * substep to substep (and step to step) while the pair stays within reach,
 * also through substeps in which it is unloaded. Static friction removes the
 * tangential part of (p_i − p_j) − anchor entirely while the tangential
 * correction that sticking has needed since the anchor was set (this one
 * included) stays within μs times the normal correction over the same
 * substeps (Coulomb's cone on the impulses since the contact was made; the
 * sums decay with `stickMemory`). Otherwise the pair slides: the tangential
 * correction is μ times the normal one and the anchor moves to where the
 * pair ends, with the sums restarted. As for the collider contacts, that bank
 * may absorb only the solver's own tangential drift, not the pair's incoming
 * relative motion: a pair sticks only while, besides the sums' test, the
 * tangential relative motion its prediction brings over the substep,
 * |((p_i − x_i) − (p_j − x_j))_t| (`incoming`: a push, gravity along a
 * slope), is within μs times this substep's normal correction (Müller et al.
 * 2020 §3.5, λt ≤ μs λn). Both corrections move the particles
 * in inverse proportion to their masses (equal and opposite impulses).
 * Restitution reflects the relative normal velocity in the velocity pass
 * (Algorithm 1, line 16).
 */
export class ParticleContacts extends ParticleContactArrays<ParticleGroup> implements ConstraintSet {
  readonly kind = 'particle-contact';
  readonly violationUnit = 'm';
  readonly order = 105;
  protected readonly what = 'particle';
  // the particles taking part
  private particle = new Int32Array(0);
  private groupOf = new Int32Array(0);
  private activeTotal = 0;
  /** Box of each group's particle boxes (min, max). */
  private groupBox = new Float64Array(0);
  /**
   * The contacts' arrays, with those of the previous substep (prevPi … prevST: their anchors carry
   * over to the same pairs), are ParticleContactArrays', printed from one table by
   * scripts/kernels/emit-layouts.ts. A list per particle i of its previous pairs (i, j): head[i],
   * then next[k].
   */
  private head = new Int32Array(0);
  private next = new Int32Array(0);
  private stickDecay = 1;
  /**
   * Memory (s) of the sums of sticking: they decay by exp(−h / stickMemory) per substep (as in
   * ColliderContacts.stickMemory). Default 0.2.
   */
  stickMemory = 0.2;
  private anyRestitution = false;

  /** The particle contacts of a world, created and added to it on first use (one per world). */
  static of(world: World): ParticleContacts {
    return world.system(particleContactsKind);
  }

  /** The particle contacts of a world, or null when it has none. */
  static find(world: World): ParticleContacts | null {
    return world.findSystem(particleContactsKind);
  }

  /** Registers the particles (radius > 0) of a body, or gives a registered body new settings. */
  addBody(body: Body, o: ParticleContactOptions = {}): void {
    const where = `particle contacts of '${body.name}'`;
    const [mu, mus] = contactFriction(o, where);
    const e = o.restitution ?? 0;
    if (!(e >= 0 && e <= 1))
      throw new PbdError('contact/restitution', `${where}.restitution`, `must lie in [0, 1], got ${e}`);
    // registered already (by its family, then by the collision system): the new settings replace the old
    this.register({ body, self: o.self ?? true, friction: mu, staticFriction: mus, restitution: e });
  }

  private refresh(store: ParticleStore): void {
    const ids: number[] = [],
      gs: number[] = [];
    this.groups.forEach((g, gi) => {
      const b = g.body;
      for (let i = b.offset; i < b.offset + b.activeCount; i++) {
        if (store.radius[i] > 0) {
          ids.push(i);
          gs.push(gi);
        }
      }
    });
    this.particle = Int32Array.from(ids);
    this.groupOf = Int32Array.from(gs);
    this.n = ids.length;
    this.boxes = new Float64Array(6 * this.n);
    this.anyRestitution = this.groups.some((g) => g.restitution > 0);
    this.activeTotal = this.groups.reduce((a, g) => a + g.body.activeCount, 0);
    this.allowedPair = allowedPairs(this.groups, this.pairOff);
    this.groupBox = new Float64Array(6 * this.groups.length);
    this.dirty = false;
  }

  /** Re-reads the particles (after radii were changed by hand). */
  invalidate(): void {
    this.dirty = true;
  }

  beginStep(ctx: StepContext): void {
    const store = ctx.store;
    let active = 0;
    for (let k = 0; k < this.groups.length; k++) active += this.groups[k].body.activeCount;
    if (this.dirty || active !== this.activeTotal) this.refresh(store);
    this.carryAnchors(store.capacity);
    const memory = this.stickMemory;
    this.stickDecay = memory > 0 ? Math.exp(-ctx.h / memory) : 0;
    const n = this.n;
    if (n === 0) {
      this.clearHeads();
      return;
    }
    const { p, x, v, radius: r, invMass: w, group, mask } = store;
    const part = this.particle,
      boxes = this.boxes,
      gof = this.groupOf;
    // boxes: the predicted position grown by the radius and the margin (two boxes overlap for every pair in reach)
    const mf = this.marginFactor;
    for (let k = 0; k < n; k++) {
      const i = part[k],
        i3 = 3 * i;
      const g = r[i] * (1 + mf);
      boxes[6 * k] = p[i3] - g;
      boxes[6 * k + 1] = p[i3 + 1] - g;
      boxes[6 * k + 2] = p[i3 + 2] - g;
      boxes[6 * k + 3] = p[i3] + g;
      boxes[6 * k + 4] = p[i3 + 1] + g;
      boxes[6 * k + 5] = p[i3 + 2] + g;
    }
    // the box of each group's boxes: a particle whose box meets no box of a group it may touch has no pair
    // (the others' pairs, and their order, do not change when its query is skipped)
    const G = this.groups.length,
      gBox = this.groupBox,
      allowedPair = this.allowedPair;
    for (let g = 0; g < G; g++) {
      gBox[6 * g] = gBox[6 * g + 1] = gBox[6 * g + 2] = Infinity;
      gBox[6 * g + 3] = gBox[6 * g + 4] = gBox[6 * g + 5] = -Infinity;
    }
    for (let k = 0; k < n; k++) {
      const o = 6 * k,
        q = 6 * gof[k];
      for (let c = 0; c < 3; c++) {
        if (boxes[o + c] < gBox[q + c]) gBox[q + c] = boxes[o + c];
        if (boxes[o + 3 + c] > gBox[q + 3 + c]) gBox[q + 3 + c] = boxes[o + 3 + c];
      }
    }
    const hash = this.hash;
    this.buildHash();
    for (let a = 0; a < n; a++) {
      const o = 6 * a;
      const ga = gof[a];
      let near = false;
      for (let g = 0; g < G && !near; g++) {
        const q = 6 * g;
        near =
          allowedPair[ga * G + g] !== 0 &&
          gBox[q] <= boxes[o + 3] &&
          gBox[q + 3] >= boxes[o] &&
          gBox[q + 1] <= boxes[o + 4] &&
          gBox[q + 4] >= boxes[o + 1] &&
          gBox[q + 2] <= boxes[o + 5] &&
          gBox[q + 5] >= boxes[o + 2];
      }
      if (!near) continue;
      const m = this.queryCandidates(a, MAX_CANDIDATES_PER_PARTICLE);
      if (hash.truncated) this.cap();
      if (m === 0) continue;
      const res = hash.result;
      const i = part[a],
        i3 = 3 * i;
      const first = this.count;
      for (let k = 0; k < m; k++) {
        if (this.count - first === MAX_CONTACTS_PER_PARTICLE) {
          this.cap();
          break;
        }
        const b = res[k];
        const j = part[b];
        if (w[i] === 0 && w[j] === 0) continue;
        const gb = gof[b];
        if (allowedPair[ga * G + gb] === 0) continue;
        if ((mask[i] & group[j]) === 0 || (mask[j] & group[i]) === 0) continue;
        const j3 = 3 * j;
        const dx = p[i3] - p[j3],
          dy = p[i3 + 1] - p[j3 + 1],
          dz = p[i3 + 2] - p[j3 + 2];
        const reach = (r[i] + r[j]) * (1 + mf);
        if (dx * dx + dy * dy + dz * dz > reach * reach) continue;
        const A = this.groups[ga],
          B = this.groups[gb];
        // relative normal velocity at the start (for restitution), along x_i − x_j
        let vn0 = 0;
        if (this.anyRestitution) {
          const ex = x[i3] - x[j3],
            ey = x[i3 + 1] - x[j3 + 1],
            ez = x[i3 + 2] - x[j3 + 2];
          const el = Math.sqrt(ex * ex + ey * ey + ez * ez);
          if (el > 0)
            vn0 = ((v[i3] - v[j3]) * ex + (v[i3 + 1] - v[j3 + 1]) * ey + (v[i3 + 2] - v[j3 + 2]) * ez) / el;
        }
        this.push(
          i,
          j,
          0.5 * (A.staticFriction + B.staticFriction),
          0.5 * (A.friction + B.friction),
          Math.max(A.restitution, B.restitution),
          vn0,
          x,
          p,
        );
      }
    }
    this.clearHeads();
  }

  /** Counts a particle that reached its candidate or contact cap, with a one-time notice. */
  private cap(): void {
    this.capped++;
    if (capNoticed || typeof console === 'undefined') return;
    capNoticed = true;
    console.warn(
      `pbdkit: particle contacts: a particle met more than ${MAX_CANDIDATES_PER_PARTICLE} candidates or ${MAX_CONTACTS_PER_PARTICLE} contacts in one substep (bodies started on top of each other?); the ones beyond were skipped`,
    );
  }

  /** Makes the contacts of the last substep the previous ones, with a list per particle of its pairs. */
  private carryAnchors(capacity: number): void {
    // the current arrays and the previous ones change places (once a substep, outside the loops)
    this.swapPrevious();
    if (this.head.length < capacity) {
      this.head = new Int32Array(capacity);
      this.head.fill(-1);
    }
    if (this.next.length < this.prevCount) this.next = new Int32Array(this.prevPi.length);
    const head = this.head,
      next = this.next,
      pi = this.prevPi;
    for (let k = this.prevCount - 1; k >= 0; k--) {
      next[k] = head[pi[k]];
      head[pi[k]] = k;
    }
  }

  private clearHeads(): void {
    for (let k = 0; k < this.prevCount; k++) this.head[this.prevPi[k]] = -1;
  }

  private push(
    i: number,
    j: number,
    muS: number,
    muK: number,
    e: number,
    vn0: number,
    x: Float64Array,
    p: Float64Array,
  ): void {
    if (this.count === this.capacity) this.grow(Math.max(256, 2 * this.capacity));
    const k = this.count++,
      i3 = 3 * i,
      j3 = 3 * j;
    this.pi[k] = i;
    this.pj[k] = j;
    this.muS[k] = muS;
    this.muK[k] = muK;
    this.rest[k] = e;
    this.lambda[k] = 0;
    this.vn0[k] = vn0;
    // the pair's incoming tangential motion: i's prediction relative to j's surface, which moves by p_j − x_j
    // over the substep (incomingSlip's surface motion v_c h, passed with h = 1), about the line of centres
    // at prediction
    const nx = p[i3] - p[j3],
      ny = p[i3 + 1] - p[j3 + 1],
      nz = p[i3 + 2] - p[j3 + 2];
    const nl = Math.sqrt(nx * nx + ny * ny + nz * nz);
    const ni = nl > 1e-12 ? 1 / nl : 0;
    this.inc[k] = incomingSlip(
      x,
      p,
      i3,
      nx * ni,
      ny * ni,
      nz * ni,
      p[j3] - x[j3],
      p[j3 + 1] - x[j3 + 1],
      p[j3 + 2] - x[j3 + 2],
      1,
    );
    // the friction anchor: the pair's, kept from the previous substep (decayed sums) once the pair has been
    // loaded since it was set (a pair within reach that has not touched yet is anchored where it is)
    const k3 = 3 * k,
      anc = this.anc,
      sT = this.sT;
    let o = this.head[i];
    while (o >= 0 && this.prevPj[o] !== j) o = this.next[o];
    let sign = 1;
    if (o < 0) {
      o = this.head[j];
      while (o >= 0 && this.prevPj[o] !== i) o = this.next[o];
      sign = -1;
    }
    if (o >= 0 && this.prevSN[o] > 0) {
      const f = this.stickDecay,
        pa = this.prevAnc,
        pt = this.prevST,
        o3 = 3 * o;
      anc[k3] = sign * pa[o3];
      anc[k3 + 1] = sign * pa[o3 + 1];
      anc[k3 + 2] = sign * pa[o3 + 2];
      this.sN[k] = f * this.prevSN[o];
      sT[k3] = sign * f * pt[o3];
      sT[k3 + 1] = sign * f * pt[o3 + 1];
      sT[k3 + 2] = sign * f * pt[o3 + 2];
    } else anchorAt(anc, this.sN, sT, k, x, i3, j3);
  }

  project(ctx: StepContext): void {
    this.projectRange(ctx.store, 0, this.count);
  }

  /** One Gauss–Seidel pass over contacts [c0, c1). */
  projectRange(store: ParticleStore, c0: number, c1: number): void {
    const { p, invMass: w, radius: r } = store;
    const { pi, pj, anc, sN, sT, inc, lambda } = this;
    for (let c = c0; c < c1; c++) {
      const i = pi[c],
        j = pj[c];
      const i3 = 3 * i,
        j3 = 3 * j;
      const wi = w[i],
        wj = w[j];
      const W = wi + wj;
      let nx = p[i3] - p[j3],
        ny = p[i3 + 1] - p[j3 + 1],
        nz = p[i3 + 2] - p[j3 + 2];
      const d = Math.sqrt(nx * nx + ny * ny + nz * nz);
      const C = d - (r[i] + r[j]);
      if (C >= 0 || !(d > 1e-12)) continue;
      nx /= d;
      ny /= d;
      nz /= d;
      // 003 eqs. 10–11: Δp_i = −w_i/(w_i + w_j) C n, Δp_j = +w_j/(w_i + w_j) C n
      const s = -C / W;
      lambda[c] += s;
      movePair(p, i3, j3, wi * s, wj * s, nx, ny, nz);
      // position-level Coulomb friction against the pair's anchor (see the class comment)
      const muK = this.muK[c],
        muS = this.muS[c];
      if (muK === 0 && muS === 0) continue;
      const c3 = 3 * c;
      const rx = p[i3] - p[j3] - anc[c3],
        ry = p[i3 + 1] - p[j3 + 1] - anc[c3 + 1],
        rz = p[i3 + 2] - p[j3 + 2] - anc[c3 + 2];
      const rn = rx * nx + ry * ny + rz * nz;
      const tx = rx - rn * nx,
        ty = ry - rn * ny,
        tz = rz - rn * nz;
      const dn = -C;
      // the tangential correction of sticking since the anchor was set, this one included (the earlier
      // ones in the tangent plane of this contact), against μs times the normal correction since then
      const sn = sT[c3] * nx + sT[c3 + 1] * ny + sT[c3 + 2] * nz;
      const sx = sT[c3] - sn * nx + tx,
        sy = sT[c3 + 1] - sn * ny + ty,
        sz = sT[c3 + 2] - sn * nz + tz;
      const budget = muS * (sN[c] + dn);
      let g = 1;
      // static only while the incoming relative motion is within this substep's cone, μs times the pair's
      // normal correction over the substep, W λ (Müller et al. 2020 §3.5), and all of the sticking since
      // the anchor within the banked one (the class comment)
      const stick = inc[c] <= muS * W * lambda[c] && sx * sx + sy * sy + sz * sz <= budget * budget;
      if (stick) {
        sN[c] += dn;
        sT[c3] = sx;
        sT[c3 + 1] = sy;
        sT[c3 + 2] = sz;
      } else {
        const tl = Math.sqrt(tx * tx + ty * ty + tz * tz);
        g = tl > 1e-15 ? kineticShare(tl, dn, muK) : 0;
      }
      // equal and opposite: m_i Δp_i = −m_j Δp_j = −g t / (w_i + w_j)
      const f = g / W;
      movePair(p, i3, j3, -(wi * f), -(wj * f), tx, ty, tz);
      if (stick) continue;
      // kinetic: the anchor moves to where the pair ends, and the sums restart
      anchorAt(anc, sN, sT, c, p, i3, j3);
    }
  }

  endStep(ctx: StepContext): void {
    if (!this.anyRestitution) return;
    const { x, v, invMass: w } = ctx.store;
    const g = ctx.gravity;
    const threshold = 2 * Math.sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]) * ctx.h;
    for (let c = 0; c < this.count; c++) {
      const e = this.rest[c];
      if (e === 0 || this.lambda[c] <= 0 || -this.vn0[c] <= threshold) continue;
      const i = this.pi[c],
        j = this.pj[c];
      const i3 = 3 * i,
        j3 = 3 * j;
      let nx = x[i3] - x[j3],
        ny = x[i3 + 1] - x[j3 + 1],
        nz = x[i3 + 2] - x[j3 + 2];
      const d = Math.sqrt(nx * nx + ny * ny + nz * nz);
      if (!(d > 0)) continue;
      nx /= d;
      ny /= d;
      nz /= d;
      const vn = (v[i3] - v[j3]) * nx + (v[i3 + 1] - v[j3 + 1]) * ny + (v[i3 + 2] - v[j3 + 2]) * nz;
      const dv = -e * this.vn0[c] - vn;
      if (dv <= 0) continue;
      const W = w[i] + w[j];
      if (!(W > 0)) continue;
      const f = dv / W;
      // equal and opposite, as the projection's corrections (the bits of v_i += w_i f n, v_j −= w_j f n)
      movePair(v, i3, j3, w[i] * f, w[j] * f, nx, ny, nz);
    }
  }

  /** The friction anchors of the last substep's pairs (a checkpoint carries them: a resumed run continues exactly). */
  saveState(): ParticleAnchorState {
    const n = this.count;
    return {
      pi: Array.from(this.pi.subarray(0, n)),
      pj: Array.from(this.pj.subarray(0, n)),
      anchor: Array.from(this.anc.subarray(0, 3 * n)),
      stickN: Array.from(this.sN.subarray(0, n)),
      stickT: Array.from(this.sT.subarray(0, 3 * n)),
    };
  }

  loadState(state: unknown): void {
    const s = state as ParticleAnchorState;
    const n = s.pi.length;
    this.count = 0;
    if (this.capacity < n) this.grow(Math.max(256, n));
    this.count = n;
    this.pi.set(s.pi);
    this.pj.set(s.pj);
    this.anc.set(s.anchor);
    this.sN.set(s.stickN);
    this.sT.set(s.stickT);
    // the other per-contact values are generated anew in the next substep; none is read before it
    this.lambda.fill(0, 0, n);
  }

  /** Largest overlap r_i + r_j − |x_i − x_j| (m) over the contacts. */
  maxViolation(store: ParticleStore): number {
    const { x, radius: r } = store;
    let m = 0;
    for (let c = 0; c < this.count; c++) {
      const i3 = 3 * this.pi[c],
        j3 = 3 * this.pj[c];
      const d = Math.hypot(x[i3] - x[j3], x[i3 + 1] - x[j3 + 1], x[i3 + 2] - x[j3 + 2]);
      const o = r[this.pi[c]] + r[this.pj[c]] - d;
      if (o > m) m = o;
    }
    return m;
  }

  /**
   * Sets col[i − offset] = 1 for every particle of [offset, offset + n) in a
   * contact whose spheres touch at p (within 1e-9 m).
   */
  markTouching(store: ParticleStore, offset: number, n: number, col: Uint8Array): void {
    const { p, radius } = store;
    for (let k = 0; k < this.count; k++) {
      const i = this.pi[k],
        j = this.pj[k];
      const d = Math.hypot(p[3 * i] - p[3 * j], p[3 * i + 1] - p[3 * j + 1], p[3 * i + 2] - p[3 * j + 2]);
      if (d > radius[i] + radius[j] + 1e-9) continue;
      if (i >= offset && i < offset + n) col[i - offset] = 1;
      if (j >= offset && j < offset + n) col[j - offset] = 1;
    }
  }

  /** Pairs (i, j) of the current contacts, for tests. */
  pairs(): [number, number][] {
    return this.contactPairs(this.pi, this.pj);
  }
}

/** What a checkpoint holds of the particle contacts: the pairs of the last substep and their friction anchors. */
export interface ParticleAnchorState {
  pi: number[];
  pj: number[];
  anchor: number[];
  stickN: number[];
  stickT: number[];
}

/**
 * Anchors contact k where the pair stands in P (its relative position P_i − P_j, i and j at offsets i3
 * and j3) and restarts its sums of sticking: a pair's first anchor (at x), and a sliding pair's new one
 * (at p; Macklin et al. 2014 §6.1, see ParticleContacts). Small and monomorphic: V8 inlines it.
 */
function anchorAt(
  anc: Float64Array,
  sN: Float64Array,
  sT: Float64Array,
  k: number,
  P: Float64Array,
  i3: number,
  j3: number,
): void {
  const k3 = 3 * k;
  anc[k3] = P[i3] - P[j3];
  anc[k3 + 1] = P[i3 + 1] - P[j3 + 1];
  anc[k3 + 2] = P[i3 + 2] - P[j3 + 2];
  sN[k] = 0;
  sT[k3] = sT[k3 + 1] = sT[k3 + 2] = 0;
}
