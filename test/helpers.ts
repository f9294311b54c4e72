/** Shared helpers for the physics tests. */
import { expect } from 'vitest';
import { PbdError } from '../src/core/errors.js';
import { type Fluid, gridMesh, poly6, type TriangleMesh, type World, type WorldBody } from '../src/index.js';

/** A small deterministic PRNG (mulberry32) so tests never depend on Math.random. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Central finite-difference gradient of f with respect to the coordinates
 * of the given particles, in the order given (3 numbers per particle).
 */
export function finiteDifferenceGradient(
  f: (p: Float64Array) => number,
  p: Float64Array,
  particles: number[],
  eps = 1e-6,
): Float64Array {
  const g = new Float64Array(3 * particles.length);
  particles.forEach((i, k) => {
    for (let d = 0; d < 3; d++) {
      const saved = p[3 * i + d];
      p[3 * i + d] = saved + eps;
      const fp = f(p);
      p[3 * i + d] = saved - eps;
      const fm = f(p);
      p[3 * i + d] = saved;
      g[3 * k + d] = (fp - fm) / (2 * eps);
    }
  });
  return g;
}

/** max |a − b| / max(1, max |b|) */
export function relativeError(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0,
    s = 0;
  for (let i = 0; i < b.length; i++) {
    m = Math.max(m, Math.abs(a[i] - b[i]));
    s = Math.max(s, Math.abs(b[i]));
  }
  return m / Math.max(1e-300, s);
}

/**
 * The water level: the height where a poly6 density field of the particles (normalised to ρ0 on
 * a rest lattice) falls to ρ0/2 (bisection above each sample point). For a rest lattice this is
 * its top layer plus d/2, the edge of the volume the particles fill; it also sees the top layers'
 * lower density. (A measuring tool: the solver's density kernel is spiky, whose ρ0/2 level lies
 * 0.35 d above the top layer.) `points` are (x, z) places to measure at; the result is their mean.
 */
export function waterLevel(fluid: Fluid, points: [number, number][], lo: number, hi: number): number {
  const x = fluid.positions();
  const h = fluid.kernelRadius;
  const d = fluid.spacing;
  let lattice = 0;
  for (let a = -3; a <= 3; a++)
    for (let b = -3; b <= 3; b++) for (let c = -3; c <= 3; c++) lattice += poly6(d * Math.hypot(a, b, c), h);
  const m = fluid.restDensity / lattice;
  const density = (px: number, py: number, pz: number) => {
    let r = 0;
    for (let k = 0; k < fluid.activeCount; k++) {
      const q = Math.hypot(x[3 * k] - px, x[3 * k + 1] - py, x[3 * k + 2] - pz);
      if (q < h) r += m * poly6(q, h);
    }
    return r;
  };
  let sum = 0;
  for (const [px, pz] of points) {
    let a = lo,
      b = hi;
    for (let it = 0; it < 30; it++) {
      const mid = 0.5 * (a + b);
      if (density(px, mid, pz) > 0.5 * fluid.restDensity) a = mid;
      else b = mid;
    }
    sum += a;
  }
  return sum / points.length;
}

/** (x, z) places near the walls of a 0.5 m × 0.5 m tank, away from a body floating in its middle: corners and wall middles. */
export const NEAR_WALLS: [number, number][] = [
  [0.06, 0.06],
  [0.44, 0.06],
  [0.06, 0.44],
  [0.44, 0.44],
  [0.25, 0.04],
  [0.04, 0.25],
  [0.46, 0.25],
  [0.25, 0.46],
];

/** Adds a particle's m d to `linear` and m b × d (b its position, d its velocity or move) to `angular`. */
export function addMomentum(
  linear: number[],
  angular: number[],
  m: number,
  bx: number,
  by: number,
  bz: number,
  dx: number,
  dy: number,
  dz: number,
): void {
  linear[0] += m * dx;
  linear[1] += m * dy;
  linear[2] += m * dz;
  angular[0] += m * (by * dz - bz * dy);
  angular[1] += m * (bz * dx - bx * dz);
  angular[2] += m * (bx * dy - by * dx);
}

/**
 * Σ m Δp and Σ m p × Δp (p the positions before, about the origin) of the change from `before` to
 * `after` over the particles that can move (inverse mass > 0), with the scale Σ m |Δp| (1 + |p|) to
 * measure them against: a projection leaves both sums zero (003 §3.3).
 */
export function impulseSums(
  before: ArrayLike<number>,
  after: ArrayLike<number>,
  mass: ArrayLike<number>,
  invMass: ArrayLike<number>,
  count: number,
): { linear: number; angular: number; scale: number } {
  const lin = [0, 0, 0],
    ang = [0, 0, 0];
  let scale = 0;
  // particle i's position before (b) and its move (d)
  const b = [0, 0, 0],
    d = [0, 0, 0];
  for (let i = 0; i < count; i++) {
    if (invMass[i] === 0) continue;
    const m = mass[i];
    for (let k = 0; k < 3; k++) {
      b[k] = before[3 * i + k];
      d[k] = after[3 * i + k] - b[k];
    }
    addMomentum(lin, ang, m, b[0], b[1], b[2], d[0], d[1], d[2]);
    scale += m * Math.hypot(d[0], d[1], d[2]) * (1 + Math.hypot(b[0], b[1], b[2]));
  }
  return { linear: Math.hypot(...lin), angular: Math.hypot(...ang), scale };
}

/**
 * Positions of an n × n × n cubic lattice of spacing s: centred on the y axis in x and z
 * ((i − (n − 1)/2) s), its lowest layer at height y0 (y0 + j s).
 */
export function cubeLattice(n: number, s: number, y0 = 0): Float64Array {
  const pos = new Float64Array(3 * n * n * n);
  const c = (n - 1) / 2;
  let k = 0;
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++)
      for (let l = 0; l < n; l++) {
        pos[k++] = (i - c) * s;
        pos[k++] = y0 + j * s;
        pos[k++] = (l - c) * s;
      }
  return pos;
}

/**
 * The acceleration of a body's centre of mass along the unit direction d (a block sliding on an
 * incline: g (sin θ − μ cos θ) downhill): its velocity along d gained over the second of two
 * seconds of 60 frames (the first lets it settle into sliding).
 */
export function slideAcceleration(
  world: World,
  body: WorldBody,
  d: readonly [number, number, number],
): number {
  const along = () => {
    const { v, mass } = world.store;
    let m = 0,
      s = 0;
    for (let i = body.offset; i < body.offset + body.count; i++) {
      m += mass[i];
      s += mass[i] * (v[3 * i] * d[0] + v[3 * i + 1] * d[1] + v[3 * i + 2] * d[2]);
    }
    return s / m;
  };
  for (let k = 0; k < 60; k++) world.step();
  const v1 = along();
  for (let k = 0; k < 60; k++) world.step();
  return along() - v1;
}

/** Solves A x = b by Gaussian elimination with partial pivoting (dense; a reference for the block solvers). */
export function denseSolve(A: number[][], b: number[]): number[] {
  const n = b.length;
  const M = A.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let piv = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r][c]) > Math.abs(M[piv][c])) piv = r;
    [M[c], M[piv]] = [M[piv], M[c]];
    for (let r = c + 1; r < n; r++) {
      const f = M[r][c] / M[c][c];
      for (let k = c; k <= n; k++) M[r][k] -= f * M[c][k];
    }
  }
  const x = new Array(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let v = M[r][n];
    for (let k = r + 1; k < n; k++) v -= M[r][k] * x[k];
    x[r] = v / M[r][r];
  }
  return x;
}

/**
 * A cols × rows grid (0.5 m × 1 m) folded over itself with a gap of 3 cm,
 * and a patch of the top layer pushed through the bottom layer: a cloth
 * started tangled (the untangling tests).
 */
export function tangledFoldMesh(cols: number, rows: number): TriangleMesh {
  const mesh = gridMesh({ width: 0.5, height: 1, cols, rows });
  const P = mesh.positions;
  const gap = 0.03,
    R = gap / 2;
  for (let i = 0; i < P.length; i += 3) {
    const z = P[i + 2] + 0.5;
    if (z <= 0.5) {
      P[i + 1] = 0;
      P[i + 2] = z - 0.25;
    } else {
      const s = z - 0.5;
      if (s < Math.PI * R) {
        P[i + 1] = R - R * Math.cos(s / R);
        P[i + 2] = 0.25 + R * Math.sin(s / R);
      } else {
        P[i + 1] = gap;
        P[i + 2] = 0.25 - (s - Math.PI * R);
      }
    }
  }
  for (let i = 0; i < P.length; i += 3) {
    const r = Math.hypot(P[i], P[i + 2]);
    if (P[i + 1] >= 0.99 * gap && r < 0.1) P[i + 1] = -0.02 - 0.03 * Math.cos(((r / 0.1) * Math.PI) / 2);
  }
  return mesh;
}

/** The error a call throws (fails the test when it throws nothing or something other than a PbdError). */
export function thrown(f: () => unknown): PbdError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(PbdError);
    return e as PbdError;
  }
  throw new Error('expected a PbdError');
}
