/**
 * pbdkit/three — the three.js adapter, and the only part of pbdkit that
 * imports three.
 *
 * - `BodyGeometry`: a BufferGeometry over a body's render triangles, updated
 *   each frame (positions and normals of the active particles; the index
 *   only when the body tears).
 * - `BodyParticles` / `BodyPoints`: a body's particles as instanced spheres
 *   or as sphere-shaded point sprites.
 * - `BodyLines`: a body's line segments (the strands of a strand body).
 * - `BodyTubes`: the same segments as instanced tubes of the particles'
 *   radius (rods and threads, whose thickness matters in the picture).
 * - `createColliderObject` / `updateColliderObject`: meshes for plane,
 *   sphere, box and capsule colliders, posed each frame.
 *
 * ```ts
 * const geometry = new BodyGeometry(cloth);
 * scene.add(new Mesh(geometry, new MeshStandardMaterial({ side: DoubleSide })));
 * function frame() { world.step(); geometry.update(); renderer.render(scene, camera); }
 * ```
 */

export { BodyGeometry, type BodyGeometryOptions, computeVertexNormals } from './body-geometry.js';
export { BodyLines, type BodyLinesOptions } from './body-lines.js';
export { BodyParticles, BodyPoints, type ParticleOptions } from './body-particles.js';
export { BodyTubes, type BodyTubesOptions } from './body-tubes.js';
export {
  type ColliderObjectOptions,
  createColliderObject,
  drawableColliderTypes,
  updateColliderObject,
} from './colliders.js';
export { createRigidBodyObject, type RigidBodySource, updateRigidBodyObject } from './rigid-bodies.js';
export type { BodySource, ColliderSource, StoreSource, WorldBodySource } from './sources.js';
