/**
 * Geometric primitives of the collision code: closest points between a
 * point and a triangle and between two segments, continuous (moving)
 * point–triangle and edge–edge tests, and a static segment–triangle
 * intersection test.
 *
 * Every function reads coordinates as numbers or from flat arrays and writes
 * its results into a caller-provided Float64Array: nothing here allocates.
 * Hot callers use the array forms (closestPointTriangleAt,
 * closestSegmentSegmentAt): V8 boxes every double argument of a call it does
 * not inline, which made the broad and narrow phases of self collision
 * allocate about 20 MB per frame of collision-heap.
 */

/** Region of a triangle holding the closest point: the face, a vertex or an edge. */
export const REGION_FACE = 0;
export const REGION_A = 1;
export const REGION_B = 2;
export const REGION_C = 3;
export const REGION_AB = 4;
export const REGION_BC = 5;
export const REGION_CA = 6;

/**
 * Closest point of triangle (a, b, c) to point p (Ericson, Real-Time
 * Collision Detection §5.1.5). Writes out[0..2] = the closest point,
 * out[3..5] = its barycentric coordinates (on a, b, c), out[6] = the squared
 * distance; returns the region (REGION_*). Degenerate triangles are handled
 * (their closest point lies on an edge).
 */
export function closestPointTriangle(
  px: number,
  py: number,
  pz: number,
  ax: number,
  ay: number,
  az: number,
  bx: number,
  by: number,
  bz: number,
  cx: number,
  cy: number,
  cz: number,
  out: Float64Array,
): number {
  const A = args12;
  A[0] = px;
  A[1] = py;
  A[2] = pz;
  A[3] = ax;
  A[4] = ay;
  A[5] = az;
  A[6] = bx;
  A[7] = by;
  A[8] = bz;
  A[9] = cx;
  A[10] = cy;
  A[11] = cz;
  return closestPointTriangleAt(A, 0, A, 3, 6, 9, out);
}

/**
 * Coordinates passed through this scratch to the array forms: a call of a
 * function that is not inlined boxes each double argument (an allocation in
 * V8), while array offsets are small integers.
 */
const args12 = new Float64Array(12);

/**
 * closestPointTriangle with the point at P[ip … ip + 2] and the corners at
 * T[ia …], T[ib …], T[ic …]: the same operations, without allocating.
 */
export function closestPointTriangleAt(
  P: Float64Array,
  ip: number,
  T: Float64Array,
  ia: number,
  ib: number,
  ic: number,
  out: Float64Array,
): number {
  const px = P[ip],
    py = P[ip + 1],
    pz = P[ip + 2];
  const ax = T[ia],
    ay = T[ia + 1],
    az = T[ia + 2],
    bx = T[ib],
    by = T[ib + 1],
    bz = T[ib + 2],
    cx = T[ic],
    cy = T[ic + 1],
    cz = T[ic + 2];
  const abx = bx - ax,
    aby = by - ay,
    abz = bz - az;
  const acx = cx - ax,
    acy = cy - ay,
    acz = cz - az;
  const apx = px - ax,
    apy = py - ay,
    apz = pz - az;
  const d1 = abx * apx + aby * apy + abz * apz;
  const d2 = acx * apx + acy * apy + acz * apz;
  let u: number, v: number, w: number, region: number;
  if (d1 <= 0 && d2 <= 0) {
    u = 1;
    v = 0;
    w = 0;
    region = REGION_A;
  } else {
    const bpx = px - bx,
      bpy = py - by,
      bpz = pz - bz;
    const d3 = abx * bpx + aby * bpy + abz * bpz;
    const d4 = acx * bpx + acy * bpy + acz * bpz;
    if (d3 >= 0 && d4 <= d3) {
      u = 0;
      v = 1;
      w = 0;
      region = REGION_B;
    } else {
      const vc = d1 * d4 - d3 * d2;
      if (vc <= 0 && d1 >= 0 && d3 <= 0 && d1 - d3 > 0) {
        v = d1 / (d1 - d3);
        u = 1 - v;
        w = 0;
        region = REGION_AB;
      } else {
        const cpx = px - cx,
          cpy = py - cy,
          cpz = pz - cz;
        const d5 = abx * cpx + aby * cpy + abz * cpz;
        const d6 = acx * cpx + acy * cpy + acz * cpz;
        if (d6 >= 0 && d5 <= d6) {
          u = 0;
          v = 0;
          w = 1;
          region = REGION_C;
        } else {
          const vb = d5 * d2 - d1 * d6;
          if (vb <= 0 && d2 >= 0 && d6 <= 0 && d2 - d6 > 0) {
            w = d2 / (d2 - d6);
            u = 1 - w;
            v = 0;
            region = REGION_CA;
          } else {
            const va = d3 * d6 - d5 * d4;
            const e43 = d4 - d3,
              e56 = d5 - d6;
            if (va <= 0 && e43 >= 0 && e56 >= 0 && e43 + e56 > 0) {
              w = e43 / (e43 + e56);
              v = 1 - w;
              u = 0;
              region = REGION_BC;
            } else {
              const sum = va + vb + vc;
              if (sum > 0) {
                const inv = 1 / sum;
                v = vb * inv;
                w = vc * inv;
                u = 1 - v - w;
                region = REGION_FACE;
              } else {
                // degenerate (zero-area) triangle: the nearest of its three edges
                return closestOnDegenerate(px, py, pz, ax, ay, az, bx, by, bz, cx, cy, cz, out);
              }
            }
          }
        }
      }
    }
  }
  const qx = u * ax + v * bx + w * cx,
    qy = u * ay + v * by + w * cy,
    qz = u * az + v * bz + w * cz;
  out[0] = qx;
  out[1] = qy;
  out[2] = qz;
  out[3] = u;
  out[4] = v;
  out[5] = w;
  const dx = px - qx,
    dy = py - qy,
    dz = pz - qz;
  out[6] = dx * dx + dy * dy + dz * dz;
  return region;
}

function closestOnDegenerate(
  px: number,
  py: number,
  pz: number,
  ax: number,
  ay: number,
  az: number,
  bx: number,
  by: number,
  bz: number,
  cx: number,
  cy: number,
  cz: number,
  out: Float64Array,
): number {
  let best = Number.POSITIVE_INFINITY,
    region = REGION_A,
    bu = 1,
    bv = 0,
    bw = 0;
  for (let e = 0; e < 3; e++) {
    const sx = e === 0 ? ax : e === 1 ? bx : cx,
      sy = e === 0 ? ay : e === 1 ? by : cy,
      sz = e === 0 ? az : e === 1 ? bz : cz;
    const tx = e === 0 ? bx : e === 1 ? cx : ax,
      ty = e === 0 ? by : e === 1 ? cy : ay,
      tz = e === 0 ? bz : e === 1 ? cz : az;
    const dx = tx - sx,
      dy = ty - sy,
      dz = tz - sz;
    const len2 = dx * dx + dy * dy + dz * dz;
    let s = len2 > 0 ? ((px - sx) * dx + (py - sy) * dy + (pz - sz) * dz) / len2 : 0;
    s = s < 0 ? 0 : Math.min(s, 1);
    const qx = sx + s * dx - px,
      qy = sy + s * dy - py,
      qz = sz + s * dz - pz;
    const d2 = qx * qx + qy * qy + qz * qz;
    if (d2 < best) {
      best = d2;
      region = e === 0 ? REGION_AB : e === 1 ? REGION_BC : REGION_CA;
      if (e === 0) {
        bu = 1 - s;
        bv = s;
        bw = 0;
      } else if (e === 1) {
        bu = 0;
        bv = 1 - s;
        bw = s;
      } else {
        bu = s;
        bv = 0;
        bw = 1 - s;
      }
    }
  }
  out[0] = bu * ax + bv * bx + bw * cx;
  out[1] = bu * ay + bv * by + bw * cy;
  out[2] = bu * az + bv * bz + bw * cz;
  out[3] = bu;
  out[4] = bv;
  out[5] = bw;
  out[6] = best;
  return region;
}

/**
 * Closest points of segments p1–q1 and p2–q2 (Ericson §5.1.9). Writes
 * out[0] = s (on p1–q1), out[1] = t (on p2–q2), out[2] = squared distance.
 */
export function closestSegmentSegment(
  p1x: number,
  p1y: number,
  p1z: number,
  q1x: number,
  q1y: number,
  q1z: number,
  p2x: number,
  p2y: number,
  p2z: number,
  q2x: number,
  q2y: number,
  q2z: number,
  out: Float64Array,
): void {
  const A = args12;
  A[0] = p1x;
  A[1] = p1y;
  A[2] = p1z;
  A[3] = q1x;
  A[4] = q1y;
  A[5] = q1z;
  A[6] = p2x;
  A[7] = p2y;
  A[8] = p2z;
  A[9] = q2x;
  A[10] = q2y;
  A[11] = q2z;
  closestSegmentSegmentAt(A, 0, 3, A, 6, 9, out);
}

/**
 * closestSegmentSegment with the first segment at S[i1 …] – S[j1 …] and the
 * second at R[i2 …] – R[j2 …]: the same operations, without allocating.
 */
export function closestSegmentSegmentAt(
  S: Float64Array,
  i1: number,
  j1: number,
  R: Float64Array,
  i2: number,
  j2: number,
  out: Float64Array,
): void {
  const p1x = S[i1],
    p1y = S[i1 + 1],
    p1z = S[i1 + 2],
    q1x = S[j1],
    q1y = S[j1 + 1],
    q1z = S[j1 + 2],
    p2x = R[i2],
    p2y = R[i2 + 1],
    p2z = R[i2 + 2],
    q2x = R[j2],
    q2y = R[j2 + 1],
    q2z = R[j2 + 2];
  const d1x = q1x - p1x,
    d1y = q1y - p1y,
    d1z = q1z - p1z;
  const d2x = q2x - p2x,
    d2y = q2y - p2y,
    d2z = q2z - p2z;
  const rx = p1x - p2x,
    ry = p1y - p2y,
    rz = p1z - p2z;
  const a = d1x * d1x + d1y * d1y + d1z * d1z;
  const e = d2x * d2x + d2y * d2y + d2z * d2z;
  const f = d2x * rx + d2y * ry + d2z * rz;
  let s: number, t: number;
  const tiny = 1e-300;
  if (a <= tiny && e <= tiny) {
    s = 0;
    t = 0;
  } else if (a <= tiny) {
    s = 0;
    t = clamp01(f / e);
  } else {
    const c = d1x * rx + d1y * ry + d1z * rz;
    if (e <= tiny) {
      t = 0;
      s = clamp01(-c / a);
    } else {
      const b = d1x * d2x + d1y * d2y + d1z * d2z;
      const denom = a * e - b * b;
      s = denom > 1e-14 * a * e ? clamp01((b * f - c * e) / denom) : 0;
      t = (b * s + f) / e;
      if (t < 0) {
        t = 0;
        s = clamp01(-c / a);
      } else if (t > 1) {
        t = 1;
        s = clamp01((b - c) / a);
      }
    }
  }
  const dx = p1x + d1x * s - (p2x + d2x * t),
    dy = p1y + d1y * s - (p2y + d2y * t),
    dz = p1z + d1z * s - (p2z + d2z * t);
  out[0] = s;
  out[1] = t;
  out[2] = dx * dx + dy * dy + dz * dz;
}

function clamp01(x: number): number {
  return x < 0 ? 0 : Math.min(x, 1);
}

// ---- the coplanarity cubic -------------------------------------------------

/** Coefficients c0 + c1 t + c2 t² + c3 t³ of the last coplanarity cubic. */
const cubic = new Float64Array(4);
/** Roots in [0, 1] found by cubicRoots01, ascending. */
const roots = new Float64Array(3);
const scratch = new Float64Array(7);

/** The inputs of coplanarityCubic (r0, r1, a0, a1, b0, b1), filled by its callers (no boxed arguments). */
const cop = new Float64Array(18);

/**
 * Coefficients of f(t) = r(t) · (e1(t) × e2(t)) where r, e1, e2 move
 * linearly: r(t) = r0 + t r1 etc. f = 0 when the four points that define r,
 * e1, e2 are coplanar. Writes `cubic`; returns a scale of |f| for tolerances.
 */
function coplanarityCubic(): number {
  const C = cop;
  const r0x = C[0];
  const r0y = C[1];
  const r0z = C[2];
  const r1x = C[3];
  const r1y = C[4];
  const r1z = C[5];
  const a0x = C[6];
  const a0y = C[7];
  const a0z = C[8];
  const a1x = C[9];
  const a1y = C[10];
  const a1z = C[11];
  const b0x = C[12];
  const b0y = C[13];
  const b0z = C[14];
  const b1x = C[15];
  const b1y = C[16];
  const b1z = C[17];
  // n(t) = a(t) × b(t) = n0 + t n1 + t² n2
  const n0x = a0y * b0z - a0z * b0y,
    n0y = a0z * b0x - a0x * b0z,
    n0z = a0x * b0y - a0y * b0x;
  const n2x = a1y * b1z - a1z * b1y,
    n2y = a1z * b1x - a1x * b1z,
    n2z = a1x * b1y - a1y * b1x;
  const n1x = a0y * b1z - a0z * b1y + (a1y * b0z - a1z * b0y),
    n1y = a0z * b1x - a0x * b1z + (a1z * b0x - a1x * b0z),
    n1z = a0x * b1y - a0y * b1x + (a1x * b0y - a1y * b0x);
  cubic[0] = r0x * n0x + r0y * n0y + r0z * n0z;
  cubic[1] = r1x * n0x + r1y * n0y + r1z * n0z + (r0x * n1x + r0y * n1y + r0z * n1z);
  cubic[2] = r1x * n1x + r1y * n1y + r1z * n1z + (r0x * n2x + r0y * n2y + r0z * n2z);
  cubic[3] = r1x * n2x + r1y * n2y + r1z * n2z;
  // a bound of the rounding error of f: products of three lengths
  const ra = Math.abs(r0x) + Math.abs(r0y) + Math.abs(r0z) + Math.abs(r1x) + Math.abs(r1y) + Math.abs(r1z);
  const aa = Math.abs(a0x) + Math.abs(a0y) + Math.abs(a0z) + Math.abs(a1x) + Math.abs(a1y) + Math.abs(a1z);
  const ba = Math.abs(b0x) + Math.abs(b0y) + Math.abs(b0z) + Math.abs(b1x) + Math.abs(b1y) + Math.abs(b1z);
  return ra * aa * ba;
}

function evalCubic(t: number): number {
  return cubic[0] + t * (cubic[1] + t * (cubic[2] + t * cubic[3]));
}

/**
 * Roots of the cubic in `cubic` on [0, 1] (those where |f| ≤ eps count as
 * roots), ascending, into `roots`; returns their number. Splits [0, 1] at the
 * critical points into monotone pieces and bisects each piece whose ends
 * change sign. A Bernstein-coefficient test rejects most cubics at once.
 */
export function cubicRoots01(c0: number, c1: number, c2: number, c3: number, eps: number): number {
  cubic[0] = c0;
  cubic[1] = c1;
  cubic[2] = c2;
  cubic[3] = c3;
  return solveCubic01(eps);
}

/** The roots found by the last cubicRoots01 / CCD call. */
export function cubicRoot(k: number): number {
  return roots[k];
}

function solveCubic01(eps: number): number {
  const c0 = cubic[0],
    c1 = cubic[1],
    c2 = cubic[2],
    c3 = cubic[3];
  // Bernstein coefficients: f lies in their convex hull on [0, 1]
  const b0 = c0,
    b1 = c0 + c1 / 3,
    b2 = c0 + (2 * c1 + c2) / 3,
    b3 = c0 + c1 + c2 + c3;
  if ((b0 > eps && b1 > eps && b2 > eps && b3 > eps) || (b0 < -eps && b1 < -eps && b2 < -eps && b3 < -eps))
    return 0;
  // critical points: 3 c3 t² + 2 c2 t + c1 = 0
  let t1 = 2,
    t2 = 2;
  const A = 3 * c3,
    B = 2 * c2,
    C = c1;
  if (Math.abs(A) > 1e-300) {
    const disc = B * B - 4 * A * C;
    if (disc >= 0) {
      const sq = Math.sqrt(disc);
      const q = -0.5 * (B + (B >= 0 ? sq : -sq));
      let r1 = q / A,
        r2 = q !== 0 ? C / q : r1;
      if (r1 > r2) {
        const s = r1;
        r1 = r2;
        r2 = s;
      }
      t1 = r1;
      t2 = r2;
    }
  } else if (Math.abs(B) > 1e-300) {
    t1 = -C / B;
  }
  let n = 0;
  let lo = 0;
  let flo = c0;
  for (let piece = 0; piece < 3; piece++) {
    let hi = piece === 0 ? t1 : piece === 1 ? t2 : 1;
    if (piece < 2 && !(hi > lo && hi < 1)) continue;
    if (hi > 1) hi = 1;
    const fhi = evalCubic(hi);
    if (Math.abs(flo) <= eps) {
      if (n === 0 || roots[n - 1] !== lo) roots[n++] = lo;
    } else if (Math.abs(fhi) > eps && flo > 0 !== fhi > 0) {
      // bisection on a monotone piece with a sign change
      let a = lo,
        b = hi,
        fa = flo;
      for (let it = 0; it < 52 && b - a > 1e-15; it++) {
        const m = 0.5 * (a + b);
        const fm = evalCubic(m);
        if (fm > 0 === fa > 0) {
          a = m;
          fa = fm;
        } else b = m;
      }
      roots[n++] = 0.5 * (a + b);
    }
    lo = hi;
    flo = fhi;
  }
  if (Math.abs(flo) <= eps && (n === 0 || roots[n - 1] !== lo)) roots[n++] = lo;
  return n;
}

/**
 * Continuous test of a moving point against a moving triangle (003 §3.4,
 * §4.3): the point q and the corners a, b, c move linearly from `x` to `p`
 * (flat xyz arrays, offsets q3 = 3q etc.). Returns the first time t ∈ [0, 1]
 * at which q lies in the triangle (within `tol`, a distance), or −1.
 */
export function vertexTriangleCcd(
  x: Float64Array,
  p: Float64Array,
  q3: number,
  a3: number,
  b3: number,
  c3: number,
  tol: number,
): number {
  // r = q − a, e1 = b − a, e2 = c − a
  relativeTo(x, p, a3, q3, 0);
  relativeTo(x, p, a3, b3, 6);
  relativeTo(x, p, a3, c3, 12);
  const n = solveCubic01(1e-12 * coplanarityCubic());
  const tol2 = tol * tol;
  for (let k = 0; k < n; k++) {
    pointsAt(x, p, k, q3, a3, b3, c3);
    closestPointTriangleAt(at, 0, at, 3, 6, 9, scratch);
    if (scratch[6] <= tol2) return roots[k];
  }
  return -1;
}

/**
 * Continuous test of two moving edges a–b and c–d (linear motion from `x`
 * to `p`). Returns the first time t ∈ [0, 1] at which they touch (within
 * `tol`), or −1.
 */
export function edgeEdgeCcd(
  x: Float64Array,
  p: Float64Array,
  a3: number,
  b3: number,
  c3: number,
  d3: number,
  tol: number,
): number {
  // r = c − a, e1 = b − a, e2 = d − c
  relativeTo(x, p, a3, c3, 0);
  relativeTo(x, p, a3, b3, 6);
  relativeTo(x, p, c3, d3, 12);
  const n = solveCubic01(1e-12 * coplanarityCubic());
  const tol2 = tol * tol;
  for (let k = 0; k < n; k++) {
    pointsAt(x, p, k, a3, b3, c3, d3);
    closestSegmentSegmentAt(at, 0, 3, at, 6, 9, scratch);
    if (scratch[2] <= tol2) return roots[k];
  }
  return -1;
}

/**
 * cop[k … k + 2] = v − o at x and cop[k + 3 … k + 5] = the motion of v
 * relative to o's, (p_v − x_v) − (p_o − x_o): one linearly moving vector of
 * the coplanarity cubic.
 */
function relativeTo(x: Float64Array, p: Float64Array, o3: number, v3: number, k: number): void {
  const C = cop;
  for (let j = 0; j < 3; j++) {
    const xo = x[o3 + j];
    C[k + j] = x[v3 + j] - xo;
    C[k + 3 + j] = p[v3 + j] - x[v3 + j] - (p[o3 + j] - xo);
  }
}

/** The four moving points at the time of root k, (1 − t) x + t p, into `at` (12 numbers). */
function pointsAt(
  x: Float64Array,
  p: Float64Array,
  k: number,
  i0: number,
  i1: number,
  i2: number,
  i3: number,
): void {
  const t = roots[k];
  const s = 1 - t;
  for (let j = 0; j < 3; j++) {
    at[j] = s * x[i0 + j] + t * p[i0 + j];
    at[3 + j] = s * x[i1 + j] + t * p[i1 + j];
    at[6 + j] = s * x[i2 + j] + t * p[i2 + j];
    at[9 + j] = s * x[i3 + j] + t * p[i3 + j];
  }
}

/** The points of a continuous test at a root of its cubic. */
const at = new Float64Array(12);

/** Six times the signed volume of tetrahedron (a, b, c, d): (b − a) · ((c − a) × (d − a)). */
export function orient3d(
  ax: number,
  ay: number,
  az: number,
  bx: number,
  by: number,
  bz: number,
  cx: number,
  cy: number,
  cz: number,
  dx: number,
  dy: number,
  dz: number,
): number {
  const ux = bx - ax,
    uy = by - ay,
    uz = bz - az;
  const vx = cx - ax,
    vy = cy - ay,
    vz = cz - az;
  const wx = dx - ax,
    wy = dy - ay,
    wz = dz - az;
  return ux * (vy * wz - vz * wy) + uy * (vz * wx - vx * wz) + uz * (vx * wy - vy * wx);
}

/**
 * Does segment e0–e1 cross triangle (a, b, c)? Read from a flat xyz array
 * with offsets (3 × index). Uses signed volumes: the end points must lie on
 * opposite sides of the plane by more than rounding (touching and coplanar
 * configurations are not crossings), and the segment's line must pass inside
 * the three edges (a zero volume counts as inside, so a segment through an
 * edge of two triangles is counted for both).
 */
export function segmentCrossesTriangle(
  x: Float64Array,
  e0: number,
  e1: number,
  a: number,
  b: number,
  c: number,
): boolean {
  const ax = x[a],
    ay = x[a + 1],
    az = x[a + 2];
  const bx = x[b],
    by = x[b + 1],
    bz = x[b + 2];
  const cx = x[c],
    cy = x[c + 1],
    cz = x[c + 2];
  const px = x[e0],
    py = x[e0 + 1],
    pz = x[e0 + 2];
  const qx = x[e1],
    qy = x[e1 + 1],
    qz = x[e1 + 2];
  const sp = orient3d(ax, ay, az, bx, by, bz, cx, cy, cz, px, py, pz);
  const sq = orient3d(ax, ay, az, bx, by, bz, cx, cy, cz, qx, qy, qz);
  // the end points must lie on opposite sides by more than rounding: touching and coplanar
  // configurations (whose volumes are noise) do not count as crossings
  const ux = bx - ax,
    uy = by - ay,
    uz = bz - az,
    vx = cx - ax,
    vy = cy - ay,
    vz = cz - az;
  const nx = uy * vz - uz * vy,
    ny = uz * vx - ux * vz,
    nz = ux * vy - uy * vx;
  const eps =
    1e-10 * Math.sqrt((nx * nx + ny * ny + nz * nz) * ((qx - px) ** 2 + (qy - py) ** 2 + (qz - pz) ** 2));
  if (!((sp > eps && sq < -eps) || (sp < -eps && sq > eps))) return false;
  const s1 = orient3d(px, py, pz, qx, qy, qz, ax, ay, az, bx, by, bz);
  const s2 = orient3d(px, py, pz, qx, qy, qz, bx, by, bz, cx, cy, cz);
  const s3 = orient3d(px, py, pz, qx, qy, qz, cx, cy, cz, ax, ay, az);
  return (s1 >= 0 && s2 >= 0 && s3 >= 0) || (s1 <= 0 && s2 <= 0 && s3 <= 0);
}
