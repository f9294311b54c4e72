/**
 * pbdkit/node — helpers for Node: scene files with their meshes, atomic
 * writes, exact encoding of world states for checkpoints, and baking a scene
 * to glTF / OBJ / CSV files (what `pbdkit simulate` runs).
 */

export {
  type AnimatedBody,
  buildGltfAnimation,
  clipRanges,
  type GltfAnimationOptions,
  type MeshFrame,
  vertexNormals,
} from '../io/gltf-animation.js';
export {
  type BakeHooks,
  type BakeOptions,
  type BakePlan,
  type BakeProgress,
  type BakeResult,
  bake,
  checkpointDirFor,
  exportStateJson,
  outputKind,
  statsColumns,
  statsCsv,
} from './bake.js';
export {
  type BuiltinScene,
  builtinScenes,
  type LoadedScene,
  loadSceneFile,
  packageRoot,
  readSceneFile,
  readTextFile,
  resolveScenePath,
  writeFileAtomic,
} from './files.js';
export { type BodyRecord, FrameLogWriter, type FrameRecord, readFrameLog } from './frame-log.js';
export {
  checkWorldState,
  decodeExactJson,
  decodeWorldState,
  encodeExactJson,
  encodeWorldState,
} from './state-codec.js';
