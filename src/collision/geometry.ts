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
// closestPointTriangleAt, closestSegmentSegmentAt, and the regions) and the static crossing test
// (orient3d, segmentCrossesTriangle) in scripts/kernels/emit-closest.ts; `npm run kernels` emits
// them as TypeScript (src/collision/ccd.generated.ts, closest.generated.ts) and, all but the
// crossing test, as AssemblyScript (wasm/ccd.generated.ts, closest.generated.ts) with the same
// operations in the same order.
export { cubicRoot, cubicRoots01, edgeEdgeCcd, vertexTriangleCcd } from './ccd.generated.js';
export {
  closestPointTriangle,
  closestPointTriangleAt,
  closestSegmentSegment,
  closestSegmentSegmentAt,
  orient3d,
  REGION_A,
  REGION_AB,
  REGION_B,
  REGION_BC,
  REGION_C,
  REGION_CA,
  REGION_FACE,
  segmentCrossesTriangle,
} from './closest.generated.js';
