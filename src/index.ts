/**
 * pbdkit — position-based simulation.
 *
 * The engine entry point: no DOM and no Node APIs. See `pbdkit/three` for the
 * three.js adapter and `pbdkit/node` for file I/O helpers.
 */

export { Cloth, type ClothOptions } from './cloth/cloth.js';
export { DihedralBending, dihedralAngleGradients } from './cloth/dihedral-bending.js';
export { PressureConstraint } from './cloth/pressure.js';
export { Bvh } from './collision/bvh.js';
export { ColliderContacts } from './collision/collider-contacts.js';
export {
  BoxCollider,
  CapsuleCollider,
  Collider,
  type ColliderOptions,
  PlaneCollider,
  SphereCollider,
} from './collision/colliders.js';
export {
  type BodyContactOptions,
  type CollisionOptions,
  CollisionSystem,
  collisionSystemOf,
  enableCollisions,
} from './collision/collision-system.js';
export {
  closestPointTriangle,
  closestSegmentSegment,
  edgeEdgeCcd,
  segmentCrossesTriangle,
  vertexTriangleCcd,
} from './collision/geometry.js';
export { Granular, type GranularOptions } from './collision/granular.js';
export { MeshCollider, type MeshColliderOptions } from './collision/mesh-collider.js';
export { MeshDistance } from './collision/mesh-distance.js';
export { type ParticleContactOptions, ParticleContacts } from './collision/particle-contacts.js';
export { SpatialHash } from './collision/spatial-hash.js';
export {
  type Surface,
  type SurfaceContactStats,
  SurfaceContacts,
  type SurfaceOptions,
} from './collision/surface-contacts.js';
export { Untangler } from './collision/untangle.js';
export { DistanceConstraints, type DistanceMode, distanceConstraint } from './constraints/distance.js';
export { Attachments, type AttachOptions } from './core/attachments.js';
export { Body, type Tunable } from './core/body.js';
export {
  type Coloring,
  colorConstraints,
  colorVariableConstraints,
  permuteRecords,
} from './core/coloring.js';
export type { ConstraintSet, StepContext } from './core/constraint-set.js';
export { RigidModeDamping } from './core/damping.js';
export { PbdError } from './core/errors.js';
export { Motion, type MotionSpec, type Vec3Tuple } from './core/motion.js';
export { ParticleStore } from './core/particles.js';
export {
  type ConstraintParams,
  deltaLambda,
  ProjectionRule,
  pbdStiffness,
  type SolverKind,
} from './core/solver.js';
export {
  type StepStats,
  type SweepKind,
  type WindOptions,
  World,
  type WorldOptions,
  type WorldState,
} from './core/world.js';
export { formatObj, parseObj } from './io/obj.js';
export { type BuildContext, SceneError, type SceneIssue } from './io/scene/common.js';
export {
  type BodySpec,
  type BuildOptions,
  bodyBuilders,
  bodySchemas,
  buildScene,
  type ColliderSpec,
  colliderSchemas,
  loadScene,
  parseScene,
  parseSceneText,
  type SceneInstance,
  type SceneSpec,
  sceneFiles,
  sceneJsonSchema,
  sceneSchema,
} from './io/scene/scene.js';
export {
  bunnyMesh,
  type GridOptions,
  gridMesh,
  icosphere,
  type Placement,
  placePositions,
  sackMesh,
} from './mesh/generators.js';
export {
  boundaryVertices,
  buildBendingQuads,
  buildEdgeTopology,
  type EdgeTopology,
  enclosedVolume,
  isClosed,
  orientConsistently,
  type TriangleMesh,
  triangleArea,
  validateTriangleMesh,
} from './mesh/triangle-mesh.js';
