/**
 * Distance between two convex sets given by their vertices (the convex hull
 * of each list: a point, a segment, a triangle, a polyhedron) by GJK
 * (Gilbert, Johnson and Keerthi 1988): the point of the Minkowski difference
 * A − B closest to the origin is approached through simplices of support
 * points; the closest point of a simplex (≤ 4 points) is found by trying the
 * affine hull of every subset of it and keeping the nearest projection whose
 * barycentric coordinates are all positive (Johnson's subalgorithm, by brute
 * force: at most 15 subsets of a tetrahedron). Writes the closest points and
 * returns the distance; 0 when the sets overlap.
 */

/** Up to 4 simplex points: w = a − b (3 each) and the vertex indices in A and B. */
const SW = new Float64Array(12);
const SA = new Int32Array(4);
const SB = new Int32Array(4);
/** Barycentric coordinates of the best subset, and scratch. */
const LAM = new Float64Array(4);
const TRY = new Float64Array(4);
const V = new Float64Array(3);
const IDX = new Int32Array(4);
const E = new Float64Array(9);
const MU = new Float64Array(3);
const KEEP = new Float64Array(4);

/** e_i · e_j of the edge vectors in E. */
function edot(i: number, j: number): number {
  return E[3 * i] * E[3 * j] + E[3 * i + 1] * E[3 * j + 1] + E[3 * i + 2] * E[3 * j + 2];
}

/** The closest points, a on A and b on B (3 each), after gjkDistance. */
export const gjkPoints = new Float64Array(6);

/** Closest point to the origin of the affine hull of the simplex points in `mask`; TRY gets the weights; returns |v|² or −1 when a weight is ≤ 0 or the subset is degenerate. */
function project(mask: number, n: number): number {
  const idx = IDX;
  let m = 0;
  for (let k = 0; k < n; k++) if (mask & (1 << k)) idx[m++] = k;
  const o = 3 * idx[0];
  const px = SW[o],
    py = SW[o + 1],
    pz = SW[o + 2];
  TRY.fill(0);
  if (m === 1) {
    TRY[idx[0]] = 1;
    return px * px + py * py + pz * pz;
  }
  // v = p0 + Σ μ_i e_i, e_i = p_i − p0; G μ = −(e_i · p0)
  const e = E;
  for (let i = 1; i < m; i++) {
    const q = 3 * idx[i];
    e[3 * (i - 1)] = SW[q] - px;
    e[3 * (i - 1) + 1] = SW[q + 1] - py;
    e[3 * (i - 1) + 2] = SW[q + 2] - pz;
  }
  const mu = MU;
  const r0 = -(e[0] * px + e[1] * py + e[2] * pz),
    r1 = -(e[3] * px + e[4] * py + e[5] * pz),
    r2 = -(e[6] * px + e[7] * py + e[8] * pz);
  if (m === 2) {
    const g = edot(0, 0);
    if (!(g > 1e-30)) return -1;
    mu[0] = r0 / g;
  } else if (m === 3) {
    const a = edot(0, 0),
      b = edot(0, 1),
      d = edot(1, 1);
    const det = a * d - b * b;
    if (!(det > 1e-24 * a * d)) return -1;
    mu[0] = (r0 * d - b * r1) / det;
    mu[1] = (a * r1 - b * r0) / det;
  } else {
    const a = edot(0, 0),
      b = edot(0, 1),
      c = edot(0, 2),
      d = edot(1, 1),
      f = edot(1, 2),
      g = edot(2, 2);
    const det = a * (d * g - f * f) - b * (b * g - f * c) + c * (b * f - d * c);
    if (!(Math.abs(det) > 1e-24 * a * d * g)) return -1;
    mu[0] = (r0 * (d * g - f * f) - b * (r1 * g - f * r2) + c * (r1 * f - d * r2)) / det;
    mu[1] = (a * (r1 * g - f * r2) - r0 * (b * g - f * c) + c * (b * r2 - r1 * c)) / det;
    mu[2] = (a * (d * r2 - r1 * f) - b * (b * r2 - r1 * c) + r0 * (b * f - d * c)) / det;
  }
  let l0 = 1;
  for (let i = 0; i < m - 1; i++) {
    if (!(mu[i] > 0)) return -1;
    l0 -= mu[i];
    TRY[idx[i + 1]] = mu[i];
  }
  if (!(l0 > 0)) return -1;
  TRY[idx[0]] = l0;
  let vx = px,
    vy = py,
    vz = pz;
  for (let i = 0; i < m - 1; i++) {
    vx += mu[i] * e[3 * i];
    vy += mu[i] * e[3 * i + 1];
    vz += mu[i] * e[3 * i + 2];
  }
  return vx * vx + vy * vy + vz * vz;
}

/**
 * Distance between conv(A[0 .. 3 na)) and conv(B[0 .. 3 nb)); the closest
 * points go to gjkPoints. Returns 0 when they overlap (then gjkPoints are
 * meaningless).
 */
export function gjkDistance(A: Float64Array, na: number, B: Float64Array, nb: number): number {
  let n = 1;
  SA[0] = 0;
  SB[0] = 0;
  SW[0] = A[0] - B[0];
  SW[1] = A[1] - B[1];
  SW[2] = A[2] - B[2];
  LAM[0] = 1;
  V[0] = SW[0];
  V[1] = SW[1];
  V[2] = SW[2];
  let dist2 = V[0] * V[0] + V[1] * V[1] + V[2] * V[2];
  for (let it = 0; it < 64 && dist2 > 1e-24; it++) {
    // support of A − B in −v
    let ia = 0,
      best = Infinity;
    for (let k = 0; k < na; k++) {
      const d = A[3 * k] * V[0] + A[3 * k + 1] * V[1] + A[3 * k + 2] * V[2];
      if (d < best) {
        best = d;
        ia = k;
      }
    }
    let ib = 0;
    best = -Infinity;
    for (let k = 0; k < nb; k++) {
      const d = B[3 * k] * V[0] + B[3 * k + 1] * V[1] + B[3 * k + 2] * V[2];
      if (d > best) {
        best = d;
        ib = k;
      }
    }
    const wx = A[3 * ia] - B[3 * ib],
      wy = A[3 * ia + 1] - B[3 * ib + 1],
      wz = A[3 * ia + 2] - B[3 * ib + 2];
    // no progress along v: v is the closest point
    if (dist2 - (V[0] * wx + V[1] * wy + V[2] * wz) <= 1e-12 * dist2) break;
    let dup = false;
    for (let k = 0; k < n; k++) if (SA[k] === ia && SB[k] === ib) dup = true;
    if (dup) break;
    SA[n] = ia;
    SB[n] = ib;
    SW[3 * n] = wx;
    SW[3 * n + 1] = wy;
    SW[3 * n + 2] = wz;
    n++;
    // the nearest subset
    let bestD = Infinity,
      bestMask = 0;
    for (let mask = 1; mask < 1 << n; mask++) {
      const d = project(mask, n);
      if (d >= 0 && d < bestD) {
        bestD = d;
        bestMask = mask;
        LAM.set(TRY);
      }
    }
    if (bestMask === 0) break;
    // keep the subset
    let m = 0;
    const lam = KEEP;
    for (let k = 0; k < n; k++) {
      if (!(bestMask & (1 << k))) continue;
      SA[m] = SA[k];
      SB[m] = SB[k];
      SW[3 * m] = SW[3 * k];
      SW[3 * m + 1] = SW[3 * k + 1];
      SW[3 * m + 2] = SW[3 * k + 2];
      lam[m] = LAM[k];
      m++;
    }
    n = m;
    for (let k = 0; k < 4; k++) LAM[k] = k < n ? lam[k] : 0;
    V[0] = V[1] = V[2] = 0;
    for (let k = 0; k < n; k++) {
      V[0] += LAM[k] * SW[3 * k];
      V[1] += LAM[k] * SW[3 * k + 1];
      V[2] += LAM[k] * SW[3 * k + 2];
    }
    const nd = V[0] * V[0] + V[1] * V[1] + V[2] * V[2];
    if (n === 4 || nd >= dist2) {
      dist2 = Math.min(dist2, nd);
      if (n === 4) dist2 = 0;
      break;
    }
    dist2 = nd;
  }
  if (dist2 <= 1e-24) return 0;
  const P = gjkPoints;
  P.fill(0);
  for (let k = 0; k < n; k++) {
    for (let d = 0; d < 3; d++) {
      P[d] += LAM[k] * A[3 * SA[k] + d];
      P[3 + d] += LAM[k] * B[3 * SB[k] + d];
    }
  }
  return Math.sqrt(dist2);
}
