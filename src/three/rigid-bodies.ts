import type { Material, Mesh, Object3D } from 'three';
import { createColliderObject } from './colliders.js';

/**
 * A rigid body as the adapter draws it; `RigidBody` (src/rigid/rigid-body.ts)
 * satisfies it. The pose is the rigid store's — the centre of mass and the
 * principal axes — and the shape is given in that frame.
 */
export interface RigidBodySource {
  /** Index in the world's rigid store. */
  readonly index: number;
  readonly shape: {
    /** 'sphere', 'box', 'capsule', 'convex' or 'mesh'. */
    readonly type: string;
    readonly radius: number;
    readonly halfHeight: number;
    readonly halfExtents: ArrayLike<number>;
    /** A hull's vertices (xyz) and faces (vertex lists from faceStart). */
    readonly poly: {
      readonly vertices: ArrayLike<number>;
      readonly faceStart: ArrayLike<number>;
      readonly faceVerts: ArrayLike<number>;
      readonly faceCount: number;
    } | null;
    readonly meshPositions: ArrayLike<number> | null;
    readonly meshTriangles: ArrayLike<number> | null;
  };
  readonly world: { readonly rigids: { readonly x: ArrayLike<number>; readonly q: ArrayLike<number> } };
}

/**
 * A mesh of a rigid body's shape at its current pose (null for a shape the
 * adapter cannot draw). Keep it posed with `updateRigidBodyObject` each frame.
 */
export function createRigidBodyObject(
  b: RigidBodySource,
  options: { material?: Material } = {},
): Mesh | null {
  const s = b.shape;
  let mesh: { positions: ArrayLike<number>; triangles: ArrayLike<number> } | undefined;
  if (s.type === 'convex' && s.poly) {
    // the hull's faces as triangle fans
    const p = s.poly;
    const tris: number[] = [];
    for (let f = 0; f < p.faceCount; f++) {
      const a = p.faceStart[f],
        e = p.faceStart[f + 1];
      for (let v = a + 1; v + 1 < e; v++) tris.push(p.faceVerts[a], p.faceVerts[v], p.faceVerts[v + 1]);
    }
    mesh = { positions: p.vertices, triangles: tris };
  } else if (s.type === 'mesh' && s.meshPositions && s.meshTriangles) {
    mesh = { positions: s.meshPositions, triangles: s.meshTriangles };
  }
  const o = createColliderObject(
    {
      type: mesh ? 'mesh' : s.type,
      position: [0, 0, 0],
      rotation: [0, 0, 0, 1],
      radius: s.radius,
      halfHeight: s.halfHeight,
      halfExtents: s.halfExtents,
      mesh,
    },
    options,
  );
  if (!o) return null;
  o.name = `rigid:${s.type}`;
  updateRigidBodyObject(o, b);
  return o;
}

/** Copies a rigid body's pose (the store's centre of mass and orientation) to an object. */
export function updateRigidBodyObject(object: Object3D, b: RigidBodySource): void {
  const r = b.world.rigids,
    i = b.index;
  object.position.set(r.x[3 * i], r.x[3 * i + 1], r.x[3 * i + 2]);
  object.quaternion.set(r.q[4 * i], r.q[4 * i + 1], r.q[4 * i + 2], r.q[4 * i + 3]);
}
