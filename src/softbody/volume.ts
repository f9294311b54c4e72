import { colorConstraints, permuteRecords } from '../core/coloring.js';
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { PbdError } from '../core/errors.js';
import type { ParticleStore } from '../core/particles.js';
import { type ConstraintParams, ProjectionRule } from '../core/solver.js';

/**
 * Tetrahedron volume constraints (000 §3.4.4):
 *   C(p1, p2, p3, p4) = (1/6) (p2,1 × p3,1) · p4,1 − V0,
 * ∇p2 C = (1/6) p3,1 × p4,1, ∇p3 C = (1/6) p4,1 × p2,1, ∇p4 C = (1/6) p2,1 × p3,1,
 * ∇p1 C = −(∇p2 C + ∇p3 C + ∇p4 C). With distance constraints on the edges
 * this is the geometric soft body of the survey.
 */
export class TetVolumeConstraints implements ConstraintSet {
  readonly kind = 'tet-volume';
  readonly order = 0;
  enabled = true;
  readonly rule: ProjectionRule;
  indices: Int32Array;
  rest: Float64Array;
  lambda: Float64Array;
  colorOffsets: Int32Array;
  readonly count: number;
  readonly colors: number;

  /** @param tets four particle indices per tet; rest volumes from `rest` positions (default store.x) */
  constructor(
    store: ParticleStore,
    tets: ArrayLike<number>,
    params: ConstraintParams = {},
    rest?: ArrayLike<number>,
  ) {
    this.rule = new ProjectionRule(params, 'volume');
    const n = tets.length / 4;
    const idx = Int32Array.from(tets);
    const X = rest ?? store.x;
    const r = new Float64Array(n);
    for (let t = 0; t < n; t++) {
      for (let k = 0; k < 4; k++) {
        const i = idx[4 * t + k];
        if (!(i >= 0 && i < store.count))
          throw new PbdError(
            'volume/bad-index',
            `volume constraint ${t}`,
            `refers to particle ${i}, which does not exist`,
          );
      }
      r[t] = tetVolume(X, idx[4 * t], idx[4 * t + 1], idx[4 * t + 2], idx[4 * t + 3]);
    }
    const col = colorConstraints(idx, 4, n, store.count);
    this.indices = permuteRecords(idx, 4, col.order);
    this.rest = permuteRecords(r, 1, col.order);
    this.lambda = new Float64Array(n);
    this.colorOffsets = col.offsets;
    this.colors = col.colors;
    this.count = n;
  }

  beginStep(ctx: StepContext): void {
    this.rule.update(ctx.solver, ctx.h, ctx.passes);
    this.lambda.fill(0);
  }

  project(ctx: StepContext): void {
    const { p, x, invMass: w } = ctx.store;
    const idx = this.indices,
      rest = this.rest,
      lam = this.lambda;
    const kp = this.rule.kPrime,
      at = this.rule.alphaTilde,
      gamma = this.rule.gamma;
    const n = this.count;
    const step = ctx.reverse ? -1 : 1;
    const end = ctx.reverse ? -1 : n;
    const sixth = 1 / 6;
    for (let c = ctx.reverse ? n - 1 : 0; c !== end; c += step) {
      const i1 = idx[4 * c],
        i2 = idx[4 * c + 1],
        i3 = idx[4 * c + 2],
        i4 = idx[4 * c + 3];
      const w1 = w[i1],
        w2 = w[i2],
        w3 = w[i3],
        w4 = w[i4];
      if (w1 + w2 + w3 + w4 === 0) continue;
      const a = 3 * i1,
        b = 3 * i2,
        cc = 3 * i3,
        d = 3 * i4;
      const ox = p[a],
        oy = p[a + 1],
        oz = p[a + 2];
      const ux = p[b] - ox,
        uy = p[b + 1] - oy,
        uz = p[b + 2] - oz;
      const vx = p[cc] - ox,
        vy = p[cc + 1] - oy,
        vz = p[cc + 2] - oz;
      const tx = p[d] - ox,
        ty = p[d + 1] - oy,
        tz = p[d + 2] - oz;
      // gradients (× 6)
      const g2x = vy * tz - vz * ty,
        g2y = vz * tx - vx * tz,
        g2z = vx * ty - vy * tx;
      const g3x = ty * uz - tz * uy,
        g3y = tz * ux - tx * uz,
        g3z = tx * uy - ty * ux;
      const g4x = uy * vz - uz * vy,
        g4y = uz * vx - ux * vz,
        g4z = ux * vy - uy * vx;
      const g1x = -g2x - g3x - g4x,
        g1y = -g2y - g3y - g4y,
        g1z = -g2z - g3z - g4z;
      const C = sixth * (g4x * tx + g4y * ty + g4z * tz) - rest[c];
      const wG =
        sixth *
        sixth *
        (w1 * (g1x * g1x + g1y * g1y + g1z * g1z) +
          w2 * (g2x * g2x + g2y * g2y + g2z * g2z) +
          w3 * (g3x * g3x + g3y * g3y + g3z * g3z) +
          w4 * (g4x * g4x + g4y * g4y + g4z * g4z));
      let damp = 0;
      if (gamma !== 0) {
        damp =
          gamma *
          sixth *
          (g1x * (ox - x[a]) +
            g1y * (oy - x[a + 1]) +
            g1z * (oz - x[a + 2]) +
            g2x * (p[b] - x[b]) +
            g2y * (p[b + 1] - x[b + 1]) +
            g2z * (p[b + 2] - x[b + 2]) +
            g3x * (p[cc] - x[cc]) +
            g3y * (p[cc + 1] - x[cc + 1]) +
            g3z * (p[cc + 2] - x[cc + 2]) +
            g4x * (p[d] - x[d]) +
            g4y * (p[d + 1] - x[d + 1]) +
            g4z * (p[d + 2] - x[d + 2]));
      }
      const denom = (1 + gamma) * wG + at;
      if (!(denom > 1e-300)) continue;
      const dl = (kp * (-C - at * lam[c] - damp)) / denom;
      lam[c] += dl;
      const s = sixth * dl;
      let k = w1 * s;
      p[a] = ox + g1x * k;
      p[a + 1] = oy + g1y * k;
      p[a + 2] = oz + g1z * k;
      k = w2 * s;
      p[b] += g2x * k;
      p[b + 1] += g2y * k;
      p[b + 2] += g2z * k;
      k = w3 * s;
      p[cc] += g3x * k;
      p[cc + 1] += g3y * k;
      p[cc + 2] += g3z * k;
      k = w4 * s;
      p[d] += g4x * k;
      p[d + 1] += g4y * k;
      p[d + 2] += g4z * k;
    }
  }

  maxViolation(store: ParticleStore): number {
    let m = 0;
    for (let c = 0; c < this.count; c++) {
      const i = this.indices;
      const v = tetVolume(store.x, i[4 * c], i[4 * c + 1], i[4 * c + 2], i[4 * c + 3]);
      m = Math.max(m, Math.abs(v - this.rest[c]));
    }
    return m;
  }
}

/** Signed volume (1/6)(p2 − p1) × (p3 − p1) · (p4 − p1) of a tet. */
export function tetVolume(x: ArrayLike<number>, i1: number, i2: number, i3: number, i4: number): number {
  const a = 3 * i1,
    b = 3 * i2,
    c = 3 * i3,
    d = 3 * i4;
  const ux = x[b] - x[a],
    uy = x[b + 1] - x[a + 1],
    uz = x[b + 2] - x[a + 2];
  const vx = x[c] - x[a],
    vy = x[c + 1] - x[a + 1],
    vz = x[c + 2] - x[a + 2];
  const tx = x[d] - x[a],
    ty = x[d + 1] - x[a + 1],
    tz = x[d + 2] - x[a + 2];
  return ((uy * vz - uz * vy) * tx + (uz * vx - ux * vz) * ty + (ux * vy - uy * vx) * tz) / 6;
}

/**
 * Triangle area constraints (000 §3.4.4): C(p1, p2, p3) = ½ |p2,1 × p3,1| − A0,
 * with ∇p2 C = ½ (p3,1 × n̂), ∇p3 C = ½ (n̂ × p2,1),
 * n̂ the unit normal, and ∇p1 C = −(∇p2 C + ∇p3 C).
 */
export class TriangleAreaConstraints implements ConstraintSet {
  readonly kind = 'triangle-area';
  readonly order = 0;
  enabled = true;
  readonly rule: ProjectionRule;
  indices: Int32Array;
  rest: Float64Array;
  lambda: Float64Array;
  colorOffsets: Int32Array;
  readonly count: number;
  readonly colors: number;

  constructor(
    store: ParticleStore,
    triangles: ArrayLike<number>,
    params: ConstraintParams = {},
    rest?: ArrayLike<number>,
  ) {
    this.rule = new ProjectionRule(params, 'area');
    const n = triangles.length / 3;
    const idx = Int32Array.from(triangles);
    const X = rest ?? store.x;
    const r = new Float64Array(n);
    for (let t = 0; t < n; t++) {
      for (let k = 0; k < 3; k++) {
        const i = idx[3 * t + k];
        if (!(i >= 0 && i < store.count))
          throw new PbdError(
            'area/bad-index',
            `area constraint ${t}`,
            `refers to particle ${i}, which does not exist`,
          );
      }
      r[t] = triangleAreaOf(X, idx[3 * t], idx[3 * t + 1], idx[3 * t + 2]);
    }
    const col = colorConstraints(idx, 3, n, store.count);
    this.indices = permuteRecords(idx, 3, col.order);
    this.rest = permuteRecords(r, 1, col.order);
    this.lambda = new Float64Array(n);
    this.colorOffsets = col.offsets;
    this.colors = col.colors;
    this.count = n;
  }

  beginStep(ctx: StepContext): void {
    this.rule.update(ctx.solver, ctx.h, ctx.passes);
    this.lambda.fill(0);
  }

  project(ctx: StepContext): void {
    const { p, x, invMass: w } = ctx.store;
    const idx = this.indices,
      rest = this.rest,
      lam = this.lambda;
    const kp = this.rule.kPrime,
      at = this.rule.alphaTilde,
      gamma = this.rule.gamma;
    const n = this.count;
    const step = ctx.reverse ? -1 : 1;
    const end = ctx.reverse ? -1 : n;
    for (let c = ctx.reverse ? n - 1 : 0; c !== end; c += step) {
      const i1 = idx[3 * c],
        i2 = idx[3 * c + 1],
        i3 = idx[3 * c + 2];
      const w1 = w[i1],
        w2 = w[i2],
        w3 = w[i3];
      if (w1 + w2 + w3 === 0) continue;
      const a = 3 * i1,
        b = 3 * i2,
        cc = 3 * i3;
      const ux = p[b] - p[a],
        uy = p[b + 1] - p[a + 1],
        uz = p[b + 2] - p[a + 2];
      const vx = p[cc] - p[a],
        vy = p[cc + 1] - p[a + 1],
        vz = p[cc + 2] - p[a + 2];
      let nx = uy * vz - uz * vy,
        ny = uz * vx - ux * vz,
        nz = ux * vy - uy * vx;
      const len = Math.sqrt(nx * nx + ny * ny + nz * nz);
      if (!(len > 1e-300)) continue;
      nx /= len;
      ny /= len;
      nz /= len;
      const C = 0.5 * len - rest[c];
      const g2x = 0.5 * (vy * nz - vz * ny),
        g2y = 0.5 * (vz * nx - vx * nz),
        g2z = 0.5 * (vx * ny - vy * nx);
      const g3x = 0.5 * (ny * uz - nz * uy),
        g3y = 0.5 * (nz * ux - nx * uz),
        g3z = 0.5 * (nx * uy - ny * ux);
      const g1x = -g2x - g3x,
        g1y = -g2y - g3y,
        g1z = -g2z - g3z;
      const wG =
        w1 * (g1x * g1x + g1y * g1y + g1z * g1z) +
        w2 * (g2x * g2x + g2y * g2y + g2z * g2z) +
        w3 * (g3x * g3x + g3y * g3y + g3z * g3z);
      let damp = 0;
      if (gamma !== 0) {
        damp =
          gamma *
          (g1x * (p[a] - x[a]) +
            g1y * (p[a + 1] - x[a + 1]) +
            g1z * (p[a + 2] - x[a + 2]) +
            g2x * (p[b] - x[b]) +
            g2y * (p[b + 1] - x[b + 1]) +
            g2z * (p[b + 2] - x[b + 2]) +
            g3x * (p[cc] - x[cc]) +
            g3y * (p[cc + 1] - x[cc + 1]) +
            g3z * (p[cc + 2] - x[cc + 2]));
      }
      const denom = (1 + gamma) * wG + at;
      if (!(denom > 1e-300)) continue;
      const dl = (kp * (-C - at * lam[c] - damp)) / denom;
      lam[c] += dl;
      let k = w1 * dl;
      p[a] += g1x * k;
      p[a + 1] += g1y * k;
      p[a + 2] += g1z * k;
      k = w2 * dl;
      p[b] += g2x * k;
      p[b + 1] += g2y * k;
      p[b + 2] += g2z * k;
      k = w3 * dl;
      p[cc] += g3x * k;
      p[cc + 1] += g3y * k;
      p[cc + 2] += g3z * k;
    }
  }

  maxViolation(store: ParticleStore): number {
    let m = 0;
    const i = this.indices;
    for (let c = 0; c < this.count; c++) {
      m = Math.max(m, Math.abs(triangleAreaOf(store.x, i[3 * c], i[3 * c + 1], i[3 * c + 2]) - this.rest[c]));
    }
    return m;
  }
}

/** Area ½ |(p2 − p1) × (p3 − p1)| of a triangle. */
export function triangleAreaOf(x: ArrayLike<number>, i1: number, i2: number, i3: number): number {
  const a = 3 * i1,
    b = 3 * i2,
    c = 3 * i3;
  const ux = x[b] - x[a],
    uy = x[b + 1] - x[a + 1],
    uz = x[b + 2] - x[a + 2];
  const vx = x[c] - x[a],
    vy = x[c + 1] - x[a + 1],
    vz = x[c + 2] - x[a + 2];
  return 0.5 * Math.hypot(uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx);
}
