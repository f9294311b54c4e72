import {
  BackSide,
  BoxGeometry,
  BufferAttribute,
  BufferGeometry,
  CapsuleGeometry,
  type Material,
  Mesh,
  MeshStandardMaterial,
  type Object3D,
  PlaneGeometry,
  SphereGeometry,
} from 'three';
import type { ColliderSource } from './sources.js';

export interface ColliderObjectOptions {
  /** Material of the shape (default a neutral grey). */
  material?: Material;
  /** Side length of the square drawn for an (infinite) plane (m). Default 20. */
  planeSize?: number;
}

/** The collider types this adapter can draw. */
export const drawableColliderTypes: readonly string[] = ['plane', 'sphere', 'box', 'capsule', 'mesh'];

/**
 * A mesh showing a collider's shape at its current pose, or null for a
 * collider type the adapter does not know (so new collider types never
 * break a viewer). Keep it posed with `updateColliderObject` each frame
 * (kinematic colliders move).
 */
export function createColliderObject(c: ColliderSource, options: ColliderObjectOptions = {}): Mesh | null {
  const material = options.material ?? new MeshStandardMaterial({ color: 0x9aa3ad, roughness: 0.7 });
  let mesh: Mesh;
  switch (c.type) {
    case 'plane': {
      const size = options.planeSize ?? 20;
      // the plane's local normal is +y; PlaneGeometry lies in xy facing +z
      const g = new PlaneGeometry(size, size);
      g.rotateX(-Math.PI / 2);
      mesh = new Mesh(g, material);
      break;
    }
    case 'sphere':
      if (!(Number(c.radius) > 0)) return null;
      mesh = new Mesh(new SphereGeometry(c.radius, 48, 32), material);
      break;
    case 'box': {
      const h = c.halfExtents;
      if (!h || !(h[0] > 0 && h[1] > 0 && h[2] > 0)) return null;
      mesh = new Mesh(new BoxGeometry(2 * h[0], 2 * h[1], 2 * h[2]), material);
      break;
    }
    case 'capsule':
      if (!(Number(c.radius) > 0) || !(Number(c.halfHeight) >= 0)) return null;
      mesh = new Mesh(new CapsuleGeometry(c.radius, 2 * (c.halfHeight ?? 0), 12, 32), material);
      break;
    case 'mesh': {
      const m = c.mesh;
      if (!m || m.triangles.length < 3) return null;
      const g = new BufferGeometry();
      g.setAttribute('position', new BufferAttribute(Float32Array.from(m.positions), 3));
      g.setIndex(new BufferAttribute(Uint32Array.from(m.triangles), 1));
      g.computeVertexNormals();
      let mat = material;
      if (c.inside) {
        // a container seen from outside: draw only its far, inner walls so what it holds stays visible
        mat = material.clone();
        mat.side = BackSide;
      }
      mesh = new Mesh(g, mat);
      break;
    }
    default:
      return null;
  }
  mesh.name = `collider:${c.type}`;
  updateColliderObject(mesh, c);
  return mesh;
}

/** Copies a collider's pose (position, quaternion x y z w) to an object. */
export function updateColliderObject(object: Object3D, c: ColliderSource): void {
  const p = c.position;
  const q = c.rotation;
  object.position.set(p[0], p[1], p[2]);
  object.quaternion.set(q[0], q[1], q[2], q[3]);
}
