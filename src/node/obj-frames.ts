/**
 * OBJ bakes (`pbdkit simulate --out FOLDER/`): a file-system-safe name per
 * body and frame, and the rigid bodies as their shape's mesh posed at each
 * frame (x + R(q) v for the body-frame vertices v).
 */
import { join } from 'node:path';
import type { World } from '../core/world.js';
import type { WorldBody } from '../core/world-body.js';
import { shapeMesh } from '../io/collider-meshes.js';
import { rotateByParts } from '../math/quat.js';
import type { LoadedScene } from './files.js';

/** A file-system-safe, unique name per body for OBJ files. */
export function objNames(bodies: readonly WorldBody[]): string[] {
  const names = bodies.map((b) => b.name.replace(/[^A-Za-z0-9._-]+/g, '_') || `body${b.id}`);
  return names.map((n, k) => (names.indexOf(n) !== k || names.lastIndexOf(n) !== k ? `${n}-${k}` : n));
}

/** The scene's rigid bodies for OBJ files: a file name each (unique among `taken` too) and the shape's mesh in the body frame. */
export function rigidObjMeshes(scene: LoadedScene, taken: readonly string[]) {
  const out: {
    name: string;
    body: string;
    index: number;
    positions: Float64Array;
    triangles: Uint32Array;
    posed: Float64Array;
  }[] = [];
  const used = new Set(taken);
  scene.rigidBodies.forEach((b, k) => {
    const mesh = shapeMesh(b.shape);
    if (!mesh) return;
    let name = b.name.replace(/[^A-Za-z0-9._-]+/g, '_') || `rigid${k}`;
    if (used.has(name)) name = `${name}-rigid${k}`;
    used.add(name);
    const positions = Float64Array.from(mesh.positions);
    out.push({
      name,
      body: b.name,
      index: b.index,
      positions,
      triangles: Uint32Array.from(mesh.triangles),
      posed: positions.slice(),
    });
  });
  return out;
}

/** out ← x + R(q) v for each vertex v of a body-frame mesh: the pose (x, q) of rigid body i. */
export function poseMesh(out: Float64Array, v: Float64Array, rg: World['rigids'], i: number): void {
  const qx = rg.q[4 * i],
    qy = rg.q[4 * i + 1],
    qz = rg.q[4 * i + 2],
    qw = rg.q[4 * i + 3];
  const x = rg.x[3 * i],
    y = rg.x[3 * i + 1],
    z = rg.x[3 * i + 2];
  for (let k = 0; k < v.length; k += 3) {
    rotateByParts(out, k, qx, qy, qz, qw, v[k], v[k + 1], v[k + 2]);
    out[k] += x;
    out[k + 1] += y;
    out[k + 2] += z;
  }
}

export function objFile(dir: string, name: string, frame: number, frames: number): string {
  return join(dir, `${name}_${String(frame).padStart(Math.max(4, String(frames - 1).length), '0')}.obj`);
}
