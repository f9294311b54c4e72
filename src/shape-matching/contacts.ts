/**
 * Contacts between the particles of different shape-matched bodies: every
 * particle is a sphere of its store radius; pairs are found with a spatial
 * hash of the predicted positions in beginStep and projected as
 * non-penetration constraints C = |p_i − p_j| − (r_i + r_j) ≥ 0 with
 * position-based Coulomb friction (the relative tangential motion of the
 * substep is removed entirely while it is below μ_s times the normal
 * correction, and by μ_k times it otherwise).
 *
 * This lives in the shape-matching family because the bodies of its scenes
 * (ducks, tori, balls, rigid clusters) collide with each other; it is
 * deliberately separate from the bodies and needs nothing but the particle
 * store, so the world-wide particle collision machinery (issue 4) can take
 * its place without touching the bodies. Particles of the same body never
 * collide here: a shape-matched body keeps its own shape.
 */
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import type { ParticleStore } from '../core/particles.js';
import type { SystemKind, World } from '../core/world.js';

/** The registry key of a world's shape-matching particle contacts (World.system). */
const particleContactsKind: SystemKind<ParticleContacts> = {
  name: 'shape-matching particle contacts',
  install(world) {
    const c = new ParticleContacts();
    world.addConstraintSet(c);
    return c;
  },
};

export class ParticleContacts implements ConstraintSet {
  readonly kind = 'shape-particle-contact';
  readonly order = 100;
  enabled = true;
  /** Candidate pairs of the current substep. */
  count = 0;
  /** Kinetic and static friction coefficients. */
  friction = 0.3;
  staticFriction = 0.4;
  /** Body ranges [offset, count] whose particles take part. */
  private ranges: number[] = [];
  private pairs = new Int32Array(512);
  private cellOf = new Int32Array(0);
  private sorted = new Int32Array(0);
  private cellStart = new Int32Array(0);
  private members = new Int32Array(0);

  /** The contact set of a world, created and added on first use. */
  static of(world: World): ParticleContacts {
    return world.system(particleContactsKind);
  }

  /** The contact set of a world if one exists. */
  static find(world: World): ParticleContacts | null {
    return world.findSystem(particleContactsKind);
  }

  /** Sets col[i − offset] = 1 for every particle of [offset, offset + n) in a touching pair. */
  markTouching(store: ParticleStore, offset: number, n: number, col: Uint8Array): void {
    const { p, radius } = store;
    for (let k = 0; k < this.count; k++) {
      const i = this.pairs[2 * k],
        j = this.pairs[2 * k + 1];
      const d = Math.hypot(p[3 * i] - p[3 * j], p[3 * i + 1] - p[3 * j + 1], p[3 * i + 2] - p[3 * j + 2]);
      if (d > radius[i] + radius[j] + 1e-9) continue;
      if (i >= offset && i < offset + n) col[i - offset] = 1;
      if (j >= offset && j < offset + n) col[j - offset] = 1;
    }
  }

  /** Lets particles [offset, offset + count) take part (those with radius > 0). */
  addRange(offset: number, count: number): void {
    this.ranges.push(offset, count);
  }

  beginStep(ctx: StepContext): void {
    const s = ctx.store;
    const { p, radius, invMass, body, group, mask } = s;
    // gather the participating particles
    let m = 0;
    let rmax = 0;
    for (let k = 0; k < this.ranges.length; k += 2) m += this.ranges[k + 1];
    if (this.members.length < m) this.members = new Int32Array(m);
    m = 0;
    for (let k = 0; k < this.ranges.length; k += 2) {
      for (let i = this.ranges[k]; i < this.ranges[k] + this.ranges[k + 1]; i++) {
        if (radius[i] > 0) {
          this.members[m++] = i;
          if (radius[i] > rmax) rmax = radius[i];
        }
      }
    }
    this.count = 0;
    if (m < 2) return;
    const cell = 2 * rmax;
    const inv = 1 / cell;
    let T = 16;
    while (T < 2 * m) T *= 2;
    if (this.cellStart.length < T + 1) this.cellStart = new Int32Array(T + 1);
    if (this.cellOf.length < m) {
      this.cellOf = new Int32Array(2 * m);
      this.sorted = new Int32Array(2 * m);
    }
    const start = this.cellStart,
      cellOf = this.cellOf,
      sorted = this.sorted,
      mem = this.members;
    start.fill(0, 0, T + 1);
    for (let a = 0; a < m; a++) {
      const i3 = 3 * mem[a];
      const h = hash(Math.floor(p[i3] * inv), Math.floor(p[i3 + 1] * inv), Math.floor(p[i3 + 2] * inv), T);
      cellOf[a] = h;
      start[h + 1]++;
    }
    for (let c = 0; c < T; c++) start[c + 1] += start[c];
    // counting sort (cellStart doubles as the cursor, then is restored)
    for (let a = 0; a < m; a++) sorted[start[cellOf[a]]++] = a;
    for (let c = T; c > 0; c--) start[c] = start[c - 1];
    start[0] = 0;
    let np = 0;
    for (let a = 0; a < m; a++) {
      const i = mem[a];
      const i3 = 3 * i;
      const cx = Math.floor(p[i3] * inv),
        cy = Math.floor(p[i3 + 1] * inv),
        cz = Math.floor(p[i3 + 2] * inv);
      for (let dz = -1; dz <= 1; dz++)
        for (let dy = -1; dy <= 1; dy++)
          for (let dx = -1; dx <= 1; dx++) {
            const h = hash(cx + dx, cy + dy, cz + dz, T);
            for (let e = start[h]; e < start[h + 1]; e++) {
              const b = sorted[e];
              const j = mem[b];
              if (j <= i || body[j] === body[i]) continue;
              if (invMass[i] === 0 && invMass[j] === 0) continue;
              if ((mask[i] & group[j]) === 0 || (mask[j] & group[i]) === 0) continue;
              const j3 = 3 * j;
              const reach = radius[i] + radius[j] + 0.5 * rmax;
              const ddx = p[i3] - p[j3],
                ddy = p[i3 + 1] - p[j3 + 1],
                ddz = p[i3 + 2] - p[j3 + 2];
              if (ddx * ddx + ddy * ddy + ddz * ddz > reach * reach) continue;
              // a hash collision can list a pair twice: keep the first
              let dup = false;
              for (let q = 2 * np - 2; q >= 0 && this.pairs[q] === i; q -= 2) {
                if (this.pairs[q + 1] === j) {
                  dup = true;
                  break;
                }
              }
              if (dup) continue;
              if (2 * np + 2 > this.pairs.length) {
                const g = new Int32Array(this.pairs.length * 2);
                g.set(this.pairs);
                this.pairs = g;
              }
              this.pairs[2 * np] = i;
              this.pairs[2 * np + 1] = j;
              np++;
            }
          }
    }
    this.count = np;
  }

  project(ctx: StepContext): void {
    const { p, x, invMass, radius } = ctx.store;
    const pr = this.pairs;
    const mu = this.friction,
      mus = this.staticFriction;
    for (let k = 0; k < this.count; k++) {
      const i = pr[2 * k],
        j = pr[2 * k + 1];
      const wi = invMass[i],
        wj = invMass[j];
      const ws = wi + wj;
      const i3 = 3 * i,
        j3 = 3 * j;
      let nx = p[i3] - p[j3],
        ny = p[i3 + 1] - p[j3 + 1],
        nz = p[i3 + 2] - p[j3 + 2];
      const d = Math.sqrt(nx * nx + ny * ny + nz * nz);
      const C = d - radius[i] - radius[j];
      if (C >= 0 || d < 1e-12) continue;
      nx /= d;
      ny /= d;
      nz /= d;
      const s = -C / ws;
      p[i3] += wi * s * nx;
      p[i3 + 1] += wi * s * ny;
      p[i3 + 2] += wi * s * nz;
      p[j3] -= wj * s * nx;
      p[j3 + 1] -= wj * s * ny;
      p[j3 + 2] -= wj * s * nz;
      // friction on the relative tangential displacement of the substep
      let tx = p[i3] - x[i3] - (p[j3] - x[j3]),
        ty = p[i3 + 1] - x[i3 + 1] - (p[j3 + 1] - x[j3 + 1]),
        tz = p[i3 + 2] - x[i3 + 2] - (p[j3 + 2] - x[j3 + 2]);
      const tn = tx * nx + ty * ny + tz * nz;
      tx -= tn * nx;
      ty -= tn * ny;
      tz -= tn * nz;
      const tl = Math.sqrt(tx * tx + ty * ty + tz * tz);
      if (tl < 1e-15) continue;
      const depth = -C;
      const f = tl < mus * depth ? 1 : Math.min(1, (mu * depth) / tl);
      const fi = (wi / ws) * f,
        fj = (wj / ws) * f;
      p[i3] -= tx * fi;
      p[i3 + 1] -= ty * fi;
      p[i3 + 2] -= tz * fi;
      p[j3] += tx * fj;
      p[j3 + 1] += ty * fj;
      p[j3 + 2] += tz * fj;
    }
  }

  maxViolation(store: ParticleStore): number {
    const { x, radius } = store;
    let m = 0;
    for (let k = 0; k < this.count; k++) {
      const i = this.pairs[2 * k],
        j = this.pairs[2 * k + 1];
      const d = Math.hypot(x[3 * i] - x[3 * j], x[3 * i + 1] - x[3 * j + 1], x[3 * i + 2] - x[3 * j + 2]);
      const C = d - radius[i] - radius[j];
      if (-C > m) m = -C;
    }
    return m;
  }
}

function hash(x: number, y: number, z: number, T: number): number {
  return (Math.imul(x, 73856093) ^ Math.imul(y, 19349663) ^ Math.imul(z, 83492791)) & (T - 1);
}
