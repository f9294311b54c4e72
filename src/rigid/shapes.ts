/**
 * The shapes of rigid bodies and their mass properties: spheres, boxes,
 * capsules (along the local y axis), convex hulls of point sets (quickhull)
 * and triangle meshes (static or kinematic bodies only). A shape is given in
 * its own frame; the body frame is the shape's principal frame — origin at
 * the centre of mass, axes along the principal axes of inertia — so that the
 * rigid store's inertia is diagonal (Müller et al. 2020 keep I in the body
 * frame too). `Shape.offset`/`rotation` map between the two: a point s of the
 * shape frame is R (s − c) in the body frame.
 */
import { PbdError } from '../core/errors.js';
import type { Vec3Tuple } from '../core/motion.js';
import { mat3FromQuat } from '../math/mat3.js';
import { quatFromMat3 } from '../math/polar.js';
import { symmetricEigen3 } from '../math/svd3.js';
import type { TriangleMesh } from '../mesh/triangle-mesh.js';
import {
  boxPolyhedron,
  type ConvexPolyhedron,
  ConvexPolyhedron as Poly,
  solidProperties,
} from './polyhedron.js';
import { quickhull } from './quickhull.js';

/** A shape descriptor (see RigidBodyOptions.shape). */
export type RigidShape =
  | { type: 'sphere'; radius: number }
  | { type: 'box'; halfExtents: Vec3Tuple }
  /** A segment from (0, −halfHeight, 0) to (0, halfHeight, 0) swept by `radius`. */
  | { type: 'capsule'; radius: number; halfHeight: number }
  /** The convex hull of the points (xyz interleaved), e.g. a mesh's vertices. */
  | { type: 'convex'; points: ArrayLike<number> }
  /** A triangle mesh: for static and kinematic bodies (it has no inside to weigh). */
  | { type: 'mesh'; mesh: TriangleMesh };

/** Shape kinds as small integers, for the narrow phase's dispatch. */
export const SPHERE = 0;
export const CAPSULE = 1;
export const BOX = 2;
export const CONVEX = 3;
export const MESH = 4;
/** The world's colliders also use PLANE (a half-space below y = 0 of its frame). */
export const PLANE = 5;

/** A resolved shape in the body (principal) frame. */
export class Shape {
  readonly kind: number;
  readonly type: RigidShape['type'];
  /** Sphere and capsule radius; 0 otherwise. */
  readonly radius: number;
  /** Capsule half height (along the body's y axis). */
  readonly halfHeight: number;
  /** Box half extents. */
  readonly halfExtents: Float64Array;
  /** Boxes and convex hulls as polyhedra in the body frame. */
  readonly poly: ConvexPolyhedron | null;
  /** Mesh vertices (body frame) and triangles. */
  readonly meshPositions: Float64Array | null;
  readonly meshTriangles: Uint32Array | null;
  /** Volume (m³); 0 for a mesh. */
  readonly volume: number;
  /** Principal moments of inertia at unit density (kg m² per kg/m³). */
  readonly unitInertia: Float64Array;
  /** The centre of mass in the shape frame, and the rotation (x, y, z, w) of the principal frame in the shape frame. */
  readonly offset: Float64Array;
  readonly rotation: Float64Array;
  /** Distance of the farthest point of the shape from the body origin. */
  readonly boundingRadius: number;

  constructor(desc: RigidShape, where = 'shape') {
    this.halfExtents = new Float64Array(3);
    this.unitInertia = new Float64Array(3);
    this.offset = new Float64Array(3);
    this.rotation = new Float64Array([0, 0, 0, 1]);
    this.poly = null;
    this.meshPositions = null;
    this.meshTriangles = null;
    this.radius = 0;
    this.halfHeight = 0;
    const positive = (v: number, name: string) => {
      if (!(v > 0) || !Number.isFinite(v)) {
        throw new PbdError(
          'rigid/invalid-shape',
          `${where}.${name}`,
          `must be a finite number > 0, got ${v}`,
        );
      }
    };
    switch (desc?.type) {
      case 'sphere': {
        positive(desc.radius, 'radius');
        const r = desc.radius;
        this.kind = SPHERE;
        this.radius = r;
        this.volume = (4 / 3) * Math.PI * r ** 3;
        this.unitInertia.fill(0.4 * this.volume * r * r);
        this.boundingRadius = r;
        break;
      }
      case 'box': {
        const h = desc.halfExtents;
        if (!Array.isArray(h) || h.length !== 3) {
          throw new PbdError('rigid/invalid-shape', `${where}.halfExtents`, 'must be three half extents (m)');
        }
        for (let k = 0; k < 3; k++) positive(h[k], `halfExtents[${k}]`);
        this.kind = BOX;
        this.halfExtents.set(h);
        this.poly = boxPolyhedron(h[0], h[1], h[2]);
        this.volume = 8 * h[0] * h[1] * h[2];
        const [a, b, c] = [4 * h[0] * h[0], 4 * h[1] * h[1], 4 * h[2] * h[2]];
        this.unitInertia.set([
          (this.volume * (b + c)) / 12,
          (this.volume * (a + c)) / 12,
          (this.volume * (a + b)) / 12,
        ]);
        this.boundingRadius = Math.hypot(h[0], h[1], h[2]);
        break;
      }
      case 'capsule': {
        positive(desc.radius, 'radius');
        if (!(desc.halfHeight >= 0) || !Number.isFinite(desc.halfHeight)) {
          throw new PbdError(
            'rigid/invalid-shape',
            `${where}.halfHeight`,
            `must be a finite number ≥ 0, got ${desc.halfHeight}`,
          );
        }
        const r = desc.radius,
          H = 2 * desc.halfHeight;
        this.kind = CAPSULE;
        this.radius = r;
        this.halfHeight = desc.halfHeight;
        const vc = Math.PI * r * r * H,
          vs = (4 / 3) * Math.PI * r ** 3;
        this.volume = vc + vs;
        // cylinder + two hemispheres, each hemisphere's centre of mass 3r/8 beyond its cap
        const iy = (vc * r * r) / 2 + 0.4 * vs * r * r;
        const ix = vc * ((H * H) / 12 + (r * r) / 4) + vs * (0.4 * r * r + (H * H) / 4 + (3 * H * r) / 8);
        this.unitInertia.set([ix, iy, ix]);
        this.boundingRadius = r + desc.halfHeight;
        break;
      }
      case 'convex': {
        const hull = new Poly(quickhull(desc.points, `${where}`));
        const props = solidProperties(hull);
        // principal axes: I = V diag(λ) Vᵀ; the body frame's axes are V's columns (a proper rotation)
        const lam = new Float64Array(3),
          V = new Float64Array(9);
        symmetricEigen3(props.inertia, lam, V);
        const det =
          V[0] * (V[4] * V[8] - V[5] * V[7]) -
          V[1] * (V[3] * V[8] - V[5] * V[6]) +
          V[2] * (V[3] * V[7] - V[4] * V[6]);
        if (det < 0) for (let k = 0; k < 3; k++) V[3 * k + 2] = -V[3 * k + 2];
        const Rt = new Float64Array(9); // Vᵀ: shape frame → body frame
        for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) Rt[3 * r + c] = V[3 * c + r];
        this.kind = CONVEX;
        this.poly = hull.transformed(Rt, props.centroid);
        this.volume = props.volume;
        this.unitInertia.set(lam);
        this.offset.set(props.centroid);
        quatFromMat3(this.rotation, 0, V, 0);
        this.boundingRadius = this.poly.radius;
        break;
      }
      case 'mesh': {
        const m = desc.mesh;
        if (
          !m ||
          !(m.positions instanceof Float64Array) ||
          !(m.triangles instanceof Uint32Array) ||
          m.triangles.length === 0
        ) {
          throw new PbdError(
            'rigid/invalid-shape',
            `${where}.mesh`,
            'must be a triangle mesh (positions: Float64Array, triangles: Uint32Array) with at least one triangle',
          );
        }
        const nv = m.positions.length / 3;
        for (let k = 0; k < m.triangles.length; k++) {
          if (m.triangles[k] >= nv) {
            throw new PbdError(
              'rigid/invalid-shape',
              `${where}.mesh.triangles[${k}]`,
              `names vertex ${m.triangles[k]} of ${nv}`,
            );
          }
        }
        this.kind = MESH;
        this.meshPositions = Float64Array.from(m.positions);
        this.meshTriangles = Uint32Array.from(m.triangles);
        this.volume = 0;
        let r = 0;
        for (let i = 0; i < m.positions.length; i += 3)
          r = Math.max(r, Math.hypot(m.positions[i], m.positions[i + 1], m.positions[i + 2]));
        this.boundingRadius = r;
        break;
      }
      default:
        throw new PbdError(
          'rigid/invalid-shape',
          `${where}.type`,
          `unknown shape '${(desc as { type?: string })?.type}'`,
          "use 'sphere', 'box', 'capsule', 'convex' or 'mesh'",
        );
    }
    this.type = desc.type;
  }
}

/**
 * The body-frame axis-aligned bounding box of a shape (min xyz, max xyz into
 * out[o …]) turned by the unit quaternion q and moved to x: the box of the
 * shape at that pose, grown by `margin`.
 */
export function shapeBounds(
  s: Shape,
  x: Float64Array,
  xo: number,
  q: Float64Array,
  qo: number,
  margin: number,
  out: Float64Array,
  o: number,
): void {
  const R = boundsRotation,
    C = boundsCentre,
    E = boundsExtent;
  mat3FromQuat(R, 0, q, qo);
  // per world axis k (row k of R): the centre's offset C[k] and the half-extent E[k]
  C.fill(0);
  switch (s.kind) {
    case SPHERE:
      E.fill(s.radius);
      break;
    case CAPSULE: {
      const h = s.halfHeight,
        r = s.radius;
      for (let k = 0; k < 3; k++) E[k] = Math.abs(R[3 * k + 1]) * h + r;
      break;
    }
    case BOX: {
      const h = s.halfExtents;
      for (let k = 0; k < 3; k++)
        E[k] = Math.abs(R[3 * k]) * h[0] + Math.abs(R[3 * k + 1]) * h[1] + Math.abs(R[3 * k + 2]) * h[2];
      break;
    }
    default: {
      // polyhedron or mesh: the box of the turned vertices
      const P = s.kind === MESH ? s.meshPositions! : s.poly!.vertices;
      const lo = boundsLow,
        hi = boundsHigh;
      lo.fill(Infinity);
      hi.fill(-Infinity);
      for (let i = 0; i < P.length; i += 3) {
        for (let k = 0; k < 3; k++) {
          const w = R[3 * k] * P[i] + R[3 * k + 1] * P[i + 1] + R[3 * k + 2] * P[i + 2];
          if (w < lo[k]) lo[k] = w;
          if (w > hi[k]) hi[k] = w;
        }
      }
      for (let k = 0; k < 3; k++) {
        C[k] = 0.5 * (lo[k] + hi[k]);
        E[k] = 0.5 * (hi[k] - lo[k]);
      }
    }
  }
  for (let k = 0; k < 3; k++) {
    out[o + k] = x[xo + k] + C[k] - E[k] - margin;
    out[o + 3 + k] = x[xo + k] + C[k] + E[k] + margin;
  }
}

const boundsRotation = new Float64Array(9);
const boundsCentre = new Float64Array(3);
const boundsExtent = new Float64Array(3);
const boundsLow = new Float64Array(3);
const boundsHigh = new Float64Array(3);
