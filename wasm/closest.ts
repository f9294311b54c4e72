/**
 * The closest-point formulas that the surfaces module (the broad phase's candidate tests,
 * wasm/surfaces.ts) and the narrow module (the narrow scans and crossing scans, wasm/narrow.ts)
 * both need, written once here; each module compiles its own copy. They are
 * src/collision/geometry.ts's closestPointTriangleAt and closestSegmentSegmentAt with the same
 * operations in the same order (WebAssembly's f64 arithmetic is IEEE and never contracts), so
 * they give the JavaScript's bits: test/surface-broad-wasm and test/surface-narrow-wasm.
 */

/** The last closestSegmentSegment2's parameters s and t along its two segments (out[0], out[1]). */
export let segS: f64 = 0,
  segT: f64 = 0;

/**
 * closestPointTriangleAt's squared distance (out[6]) of point (px, py, pz) from triangle a, b, c;
 * −1 where the JavaScript takes its degenerate path (no region found: a zero-area or NaN triangle).
 */
@inline export function closestPointTriangle2(
  px: f64, py: f64, pz: f64, ax: f64, ay: f64, az: f64,
  bx: f64, by: f64, bz: f64, cx: f64, cy: f64, cz: f64,
): f64 {
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
  let u: f64, v: f64, w: f64;
  if (d1 <= 0 && d2 <= 0) {
    u = 1;
    v = 0;
    w = 0;
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
    } else {
      const vc = d1 * d4 - d3 * d2;
      if (vc <= 0 && d1 >= 0 && d3 <= 0 && d1 - d3 > 0) {
        v = d1 / (d1 - d3);
        u = 1 - v;
        w = 0;
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
        } else {
          const vb = d5 * d2 - d1 * d6;
          if (vb <= 0 && d2 >= 0 && d6 <= 0 && d2 - d6 > 0) {
            w = d2 / (d2 - d6);
            u = 1 - w;
            v = 0;
          } else {
            const va = d3 * d6 - d5 * d4;
            const e43 = d4 - d3,
              e56 = d5 - d6;
            if (va <= 0 && e43 >= 0 && e56 >= 0 && e43 + e56 > 0) {
              w = e43 / (e43 + e56);
              v = 1 - w;
              u = 0;
            } else {
              const sum = va + vb + vc;
              if (sum > 0) {
                const inv = 1 / sum;
                v = vb * inv;
                w = vc * inv;
                u = 1 - v - w;
              } else return -1;
            }
          }
        }
      }
    }
  }
  const qx = u * ax + v * bx + w * cx,
    qy = u * ay + v * by + w * cy,
    qz = u * az + v * bz + w * cz;
  const dx = px - qx,
    dy = py - qy,
    dz = pz - qz;
  return dx * dx + dy * dy + dz * dz;
}

@inline export function clamp01(x: f64): f64 {
  return x < 0 ? 0 : Math.min(x, 1);
}

/** closestSegmentSegmentAt: the squared distance (out[2]); s and t (out[0], out[1]) into segS, segT. */
@inline export function closestSegmentSegment2(
  p1x: f64, p1y: f64, p1z: f64, q1x: f64, q1y: f64, q1z: f64,
  p2x: f64, p2y: f64, p2z: f64, q2x: f64, q2y: f64, q2z: f64,
): f64 {
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
  let s: f64, t: f64;
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
  segS = s;
  segT = t;
  const dx = p1x + d1x * s - (p2x + d2x * t),
    dy = p1y + d1y * s - (p2y + d2y * t),
    dz = p1z + d1z * s - (p2z + d2z * t);
  return dx * dx + dy * dy + dz * dz;
}
