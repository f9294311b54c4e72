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

// The continuous tests (003 §3.4, §4.3: the coplanarity cubic, its roots on [0, 1], the
// vertex–triangle and edge–edge tests) are written once in scripts/kernels/emit-ccd.ts, and the
// closest-point formulas (closestPointTriangle, closestSegmentSegment, their array forms
// closestPointTriangleAt, closestSegmentSegmentAt, and the regions) in
// scripts/kernels/emit-closest.ts; `npm run kernels` emits them as TypeScript
// (src/collision/ccd.generated.ts, closest.generated.ts) and as AssemblyScript
// (wasm/ccd.generated.ts, closest.generated.ts) with the same operations in the same order.
export { cubicRoot, cubicRoots01, edgeEdgeCcd, vertexTriangleCcd } from './ccd.generated.js';
export {
  closestPointTriangle,
  closestPointTriangleAt,
  closestSegmentSegment,
  closestSegmentSegmentAt,
  REGION_A,
  REGION_AB,
  REGION_B,
  REGION_BC,
  REGION_C,
  REGION_CA,
  REGION_FACE,
} from './closest.generated.js';

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
