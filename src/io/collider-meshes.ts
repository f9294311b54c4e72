/**
 * Triangle meshes of colliders in their local frames, for exporters (the
 * glTF bake draws the scene's colliders with them): a plane as a square of
 * a given size in its local xz plane (normal +y), a sphere and a capsule
 * (along local y) as subdivided icospheres, a box with a flat-shaded quad
 * per face, a mesh collider as its own triangles. Null for a shape this
 * module does not know.
 */
import type { Collider } from '../collision/colliders.js';
import { icosphere } from '../mesh/generators.js';
import { CONVEX, MESH, type Shape } from '../rigid/shapes.js';

export interface ShapeMesh {
  positions: Float64Array;
  triangles: Uint32Array;
}

export function colliderMesh(c: Collider, planeSize: number): ShapeMesh | null {
  const o = c as unknown as {
    radius?: number;
    halfHeight?: number;
    halfExtents?: Float64Array;
    mesh?: { positions: Float64Array; triangles: Uint32Array };
  };
  switch (c.type) {
    case 'plane': {
      const s = planeSize / 2;
      return {
        positions: new Float64Array([-s, 0, -s, s, 0, -s, s, 0, s, -s, 0, s]),
        triangles: new Uint32Array([0, 2, 1, 0, 3, 2]),
      };
    }
    case 'sphere':
      return o.radius ? icosphere(o.radius, 3) : null;
    case 'capsule': {
      if (!o.radius) return null;
      const m = icosphere(o.radius, 3);
      const h = o.halfHeight ?? 0;
      // the upper hemisphere moves up by halfHeight, the lower one down (the seam becomes the cylinder)
      for (let i = 1; i < m.positions.length; i += 3) m.positions[i] += m.positions[i] >= 0 ? h : -h;
      return { positions: m.positions, triangles: m.triangles };
    }
    case 'box': {
      const e = o.halfExtents;
      if (!e) return null;
      const positions: number[] = [];
      const triangles: number[] = [];
      // one quad per face (axis a, sign s), counter-clockwise seen from outside
      for (let a = 0; a < 3; a++) {
        for (const s of [-1, 1]) {
          const u = (a + 1) % 3;
          const v = (a + 2) % 3;
          const base = positions.length / 3;
          for (const [du, dv] of [
            [-1, -1],
            [1, -1],
            [1, 1],
            [-1, 1],
          ]) {
            const p = [0, 0, 0];
            p[a] = s * e[a];
            p[u] = du * e[u];
            p[v] = dv * e[v];
            positions.push(p[0], p[1], p[2]);
          }
          if (s > 0) triangles.push(base, base + 1, base + 2, base, base + 2, base + 3);
          else triangles.push(base, base + 2, base + 1, base, base + 3, base + 2);
        }
      }
      return { positions: Float64Array.from(positions), triangles: Uint32Array.from(triangles) };
    }
    case 'mesh':
      return o.mesh ? { positions: o.mesh.positions, triangles: o.mesh.triangles } : null;
    default:
      return null;
  }
}

/**
 * The mesh of a rigid body's shape in its body (principal) frame, the frame
 * of the rigid store's pose: spheres, capsules and boxes as their colliders
 * are drawn, convex hulls as their faces (fans), triangle meshes as given.
 */
export function shapeMesh(s: Shape): ShapeMesh | null {
  if (s.kind === CONVEX) {
    const poly = s.poly!;
    const tris: number[] = [];
    for (let f = 0; f < poly.faceCount; f++) {
      const a = poly.faceStart[f],
        e = poly.faceStart[f + 1];
      for (let v = a + 1; v + 1 < e; v++)
        tris.push(poly.faceVerts[a], poly.faceVerts[v], poly.faceVerts[v + 1]);
    }
    return { positions: Float64Array.from(poly.vertices), triangles: Uint32Array.from(tris) };
  }
  if (s.kind === MESH) return { positions: s.meshPositions!, triangles: s.meshTriangles! };
  const like = { type: s.type, radius: s.radius, halfHeight: s.halfHeight, halfExtents: s.halfExtents };
  return colliderMesh(like as unknown as Collider, 1);
}
