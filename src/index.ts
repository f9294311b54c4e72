/**
 * pbdkit — position-based simulation.
 *
 * The engine entry point: no DOM and no Node APIs. See `pbdkit/three` for the
 * three.js adapter and `pbdkit/node` for file I/O helpers.
 */

export { Cloth, type ClothBendOptions, type ClothOptions } from './cloth/cloth.js';
export { DihedralBending, dihedralAngleGradients } from './cloth/dihedral-bending.js';
export { PressureConstraint } from './cloth/pressure.js';
export { Bvh } from './collision/bvh.js';
export {
  ColliderContacts,
  colliderContactSystem,
  colliderContactsOf,
  findColliderContacts,
} from './collision/collider-contacts.js';
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
  collisionSystemKind,
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
export { MeshFeatureContacts } from './collision/mesh-feature-contacts.js';
export { addOpenTank, type OpenTankOptions } from './collision/open-tank.js';
export { type ParticleContactOptions, ParticleContacts } from './collision/particle-contacts.js';
export { type SegmentContactOptions, SegmentContacts } from './collision/segment-contacts.js';
export { SpatialHash } from './collision/spatial-hash.js';
export {
  type Surface,
  type SurfaceContactStats,
  SurfaceContacts,
  type SurfaceOptions,
} from './collision/surface-contacts.js';
export { Untangler } from './collision/untangle.js';
export { DistanceConstraints, type DistanceMode, distanceConstraint } from './constraints/distance.js';
export { HierarchicalSolver, type HierarchyOptions } from './constraints/hierarchy.js';
export {
  TetVolumeConstraints,
  TriangleAreaConstraints,
  tetVolume,
  triangleAreaOf,
} from './constraints/volume.js';
export { type EmbeddingMode, RenderEmbedding, tetBarycentric } from './continuum/embedding.js';
export {
  gershgorinLowerBound,
  isometricBendingEnergy,
  isometricBendingStencil,
  isotropicEnergy,
  type MembraneMaterial,
  tetEnergy,
  tetRestShape,
  tetStress,
  triangleEnergy,
  triangleRestShape,
  triangleStress,
} from './continuum/energy.js';
export { FemCloth, type FemClothOptions } from './continuum/fem-cloth.js';
export { IsometricBending } from './continuum/isometric-bending.js';
export {
  defaultClamp,
  isotropicMembraneTensor,
  lameParameters,
  type MaterialModel,
  type MaterialOptions,
  type OrthotropicOptions,
  orthotropicTensor,
  planeStressLame,
  type ResolvedMaterial,
  resolveMaterial,
} from './continuum/material.js';
export { type PlasticityOptions, TetFemConstraints, type TetFemOptions } from './continuum/tet-fem.js';
export {
  membraneMaterial,
  TriangleFemConstraints,
  type TriangleFemOptions,
} from './continuum/triangle-fem.js';
export { Attachments, type AttachOptions, type OrientationClampOptions } from './core/attachments.js';
export { Bdf2History } from './core/bdf2.js';
export { Body, type Tunable } from './core/body.js';
export {
  type Coloring,
  colorConstraints,
  colorVariableConstraints,
  permuteRecords,
} from './core/coloring.js';
export type { ConstraintSet, StepContext } from './core/constraint-set.js';
export { RigidModeDamping } from './core/damping.js';
export { type EnergyAlarm, EnergyWatch } from './core/energy-watch.js';
export { PbdError } from './core/errors.js';
export { Motion, type MotionSpec, type Vec3Tuple } from './core/motion.js';
export {
  gyroscopicStep,
  ORIENTATION_EPSILON,
  OrientationPredictionStage,
  OrientationVelocityStage,
} from './core/orientation-stages.js';
export { ParticleStore } from './core/particles.js';
export {
  Channels,
  PHASES,
  type Phase,
  Pipeline,
  RangeStage,
  type Scheduler,
  SerialScheduler,
  type Stage,
} from './core/pipeline.js';
export { RigidPredictionStage, RigidVelocityStage } from './core/rigid-stages.js';
export {
  RIGID_DISABLED,
  RIGID_NO_GRAVITY,
  type RigidBodyOptions,
  type RigidState,
  RigidStore,
} from './core/rigid-store.js';
export {
  type ConstraintParams,
  deltaLambda,
  ProjectionRule,
  pbdStiffness,
  type SolverKind,
} from './core/solver.js';
export type {
  IntegratorKind,
  PrecisionKind,
  SolveKind,
  StepStats,
  SweepKind,
  WindOptions,
  WorldView,
} from './core/step-context.js';
export {
  type SystemKind,
  World,
  type WorldOptions,
  type WorldState,
} from './core/world.js';
export type { WorldBody } from './core/world-body.js';
export type { WorldCollider } from './core/world-collider.js';
export { type BoxFace, boxSurfaceParticles } from './fluids/boundary.js';
export { FluidSolidContacts } from './fluids/contacts.js';
export { FluidDensity } from './fluids/density.js';
export { type EmitterOptions, FluidEmitter } from './fluids/emitter.js';
export {
  type ArtificialPressure,
  blockPositions,
  Fluid,
  type FluidBlock,
  type FluidCoupling,
  type FluidOptions,
} from './fluids/fluid.js';
export {
  autoRelaxation,
  type LatticeSums,
  latticeSums,
  poly6,
  poly6Coefficient,
  spiky,
  spikyCoefficient,
  spikyGradient,
  spikyGradientCoefficient,
} from './fluids/kernels.js';
export { buildCrossPairs, buildForwardPairs, NeighbourGrid, PairList } from './fluids/neighbour-grid.js';
export { formatGmsh, parseGmsh } from './io/gmsh.js';
export { formatObj, parseObj } from './io/obj.js';
export { bodyToPly, type PlyOptions } from './io/ply.js';
export { type BuildContext, SceneError, type SceneIssue } from './io/scene/common.js';
export { femCloth, resolveTetMesh, softBody } from './io/scene/continuum.js';
export { Budget, defaultSceneLimits, type SceneLimits } from './io/scene/limits.js';
export {
  type BodySpec,
  type BuildOptions,
  bodyBuilders,
  bodyEstimates,
  bodySchemas,
  buildScene,
  type ColliderSpec,
  colliderSchemas,
  estimateScene,
  loadScene,
  parseScene,
  parseSceneText,
  type SceneInstance,
  type SceneSpec,
  sceneFiles,
  sceneJsonSchema,
  sceneSchema,
} from './io/scene/scene.js';
export { formatTetGen, parseTetGen } from './io/tetgen.js';
export {
  extractRotation,
  polarAngle2,
  polarDecomposition,
  quatFromMat3,
  spectralNorm3,
} from './math/polar.js';
export { svd3, svd32, symmetricEigen3 } from './math/svd3.js';
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
export { registerParallelSet, ThreadedScheduler } from './parallel/index.js';
export { collideBoxBox } from './rigid/collide-box.js';
export { collidePolyhedra, WorldPoly } from './rigid/collide-convex.js';
export { type ContactMaterials, NF_A, NF_B, NF_CORES, RigidContacts } from './rigid/contact-set.js';
export {
  coupleRigidBody,
  RigidCoupling,
  type RigidCouplingOptions,
  rigidCouplingKind,
} from './rigid/coupling.js';
export { boxPyramid, boxTower, type Ragdoll, ragdoll } from './rigid/examples.js';
export { gjkDistance, gjkPoints } from './rigid/gjk.js';
export { JOINT_TYPES, type JointType, RigidJoints } from './rigid/joints.js';
export { Pair } from './rigid/manifold.js';
export { NarrowPhase } from './rigid/narrow-phase.js';
export { boxPolyhedron, ConvexPolyhedron, solidProperties } from './rigid/polyhedron.js';
export { type HullData, quickhull } from './rigid/quickhull.js';
export {
  attachToRigidBody,
  RigidAttachments,
  type RigidAttachOptions,
  rigidAttachmentsKind,
} from './rigid/rigid-attachments.js';
export { RigidBodies, type RigidSettings, rigidBodiesKind } from './rigid/rigid-bodies.js';
export {
  createJoint,
  type JointOptions,
  RigidBody,
  type RigidBodyDesc,
  type RigidBodyType,
  RigidJoint,
} from './rigid/rigid-body.js';
export { grabRigidBody, RigidGrabs, rigidGrabsKind } from './rigid/rigid-grab.js';
export { type RigidShape, Shape, shapeBounds } from './rigid/shapes.js';
export {
  angularInverseMass,
  applyAngularImpulse,
  applyPositionalImpulse,
  applyVelocityImpulse,
  bodyPointToWorld,
  positionalInverseMass,
  rigidPointCorrection,
  worldPointToBody,
} from './rigid/xpbd.js';
export {
  type AdaptiveLatticeBodyOptions,
  adaptiveLatticeBody,
  type LatticeBodyOptions,
  latticeBody,
  octreeOfMesh,
  rigidCluster,
  ShapeMatchingBody,
  type ShapeMatchingBodyOptions,
  type SurfaceBodyOptions,
  surfaceBody,
} from './shape-matching/bodies.js';
export { ClothLevel, ShapeMatchingCloth, type ShapeMatchingClothOptions } from './shape-matching/cloth.js';
export { Lattice, LatticeSummation } from './shape-matching/lattice.js';
export {
  type Adjacency,
  buildPaths,
  meshAdjacency,
  PathSummation,
  ringRegions,
} from './shape-matching/mesh-paths.js';
export { AdaptiveLattice, type OctreeOptions, OctreeSummation } from './shape-matching/octree.js';
export {
  EllipsoidContacts,
  OrientedParticles,
  type OrientedParticlesOptions,
  OrientedShapeMatching,
} from './shape-matching/oriented.js';
export {
  optimalRotation,
  type PlasticityOptions as ShapeMatchingPlasticityOptions,
  RegionShapeMatching,
  type ShapeMatchingParams,
} from './shape-matching/region-shape-matching.js';
export {
  boxMesh,
  duckMesh,
  fitParticles,
  plantGraph,
  sheetGraph,
  torusMesh,
} from './shape-matching/shapes.js';
export { Skin } from './shape-matching/skinning.js';
export {
  membershipCounts,
  NaiveSummation,
  type RegionSummation,
  regionSizes,
} from './shape-matching/summation.js';
export { SurfaceVolumeConservation, type VolumeOptions } from './shape-matching/volume.js';
export { type InitialState, SoftBody, type SoftBodyOptions } from './softbody/soft-body.js';
export {
  orientTets,
  type TetBoxOptions,
  type TetMesh,
  type TetQuality,
  tetBox,
  tetDihedrals,
  tetEdges,
  tetQuality,
  tetSurface,
  validateTetMesh,
} from './softbody/tet-mesh.js';
export {
  delaunay,
  type TetrahedralizeOptions,
  type TetrahedralizeResult,
  tetMeshSurface,
  tetrahedralize,
} from './softbody/tetrahedralize.js';
export {
  meshEdges,
  type StrainLimitOptions,
  type StrainLimitSets,
  strainLimitSets,
} from './strain-limiting/cloth-limits.js';
export {
  checkStretchRange,
  EdgeStrainLimits,
  type StrainLimitParams,
  type StretchRange,
} from './strain-limiting/edge-limits.js';
export { GeodesicDistance } from './strain-limiting/geodesic.js';
export {
  LongRangeAttachments,
  type LongRangeOptions,
  type TetheredBody,
} from './strain-limiting/long-range-attachments.js';
export {
  principalStretches,
  principalStretchGradient,
  TriangleStrainLimits,
} from './strain-limiting/triangle-limits.js';
export { FollowTheLeader, type FollowTheLeaderOptions } from './strands/follow-the-leader.js';
export { type HairOptions, type HairStyle, hairOnSphere } from './strands/hair.js';
export {
  type CosseratRodSets,
  type RodOptions,
  type RodStiffness,
  rodFrames,
  rodStiffness,
} from './strands/rod.js';
export {
  BendTwistConstraints,
  bendTwistGradients,
  bendTwistValue,
  projectBendTwistJoint,
} from './strands/rod-bend-twist.js';
export type { AxisStiffness, RodDamping, RodSweep } from './strands/rod-common.js';
export { DirectRodSolver } from './strands/rod-direct.js';
export {
  StretchShearConstraints,
  stretchShearGradients,
  stretchShearValue,
} from './strands/rod-stretch-shear.js';
export {
  chainRegions,
  type StrandShapeMatchingOptions,
  Strands,
  type StrandsOptions,
} from './strands/strands.js';
export { type HelixOptions, helix, type OverhandKnotOptions, overhandKnot } from './strands/thread.js';
export { useWasmKernels, wasmKernelsEnabled, wasmKernelsReady } from './wasm/kernels.js';
