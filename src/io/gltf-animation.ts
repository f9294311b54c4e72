/**
 * A baked simulation as a glTF 2.0 animation (built with @gltf-transform/core;
 * no DOM and no Node APIs, so it also runs in browsers).
 *
 * Layout: each body is a node whose children are "clips": meshes holding a
 * run of consecutive frames with one topology. A clip's first frame is its
 * base mesh and every later frame is a morph target (POSITION and NORMAL
 * deltas); a STEP `weights` animation switches exactly one target on per
 * frame. A new clip starts where the body's topology changes (tearing adds
 * vertices and rewires triangles) or where a clip reaches `maxFramesPerClip`
 * (which bounds the number of morph targets a viewer must blend). When a body
 * has several clips, STEP `scale` keys show each clip (scale 1) only during
 * its frames and hide it (scale 0) otherwise. three.js (GLTFLoader) and
 * Blender's importer read all of this natively.
 */
import { Document, type Node as GltfNode, type Material, Primitive } from '@gltf-transform/core';
import { quatFromAxisAngle, quatMultiply } from '../math/quat.js';
import { accumulateFaceNormals } from '../mesh/triangle-mesh.js';

/** One frame of one body. */
export interface MeshFrame {
  /** Vertex positions, xyz interleaved. */
  positions: ArrayLike<number>;
  /** Triangles (vertex indices). Reuse the same array while the topology does not change. */
  triangles: Uint32Array;
  /** Line segments (pairs of vertex indices), for a body without triangles (strands): a LINES primitive. */
  lines?: Uint32Array;
  /** Texture coordinates, two per vertex, if any. */
  uvs?: ArrayLike<number> | null;
}

/** A body's frames, one per entry of `GltfAnimationOptions.times`. */
export interface AnimatedBody {
  name: string;
  frames: MeshFrame[];
  /** Base colour (linear RGB in [0, 1]); default from a palette. */
  color?: [number, number, number];
}

/**
 * A rigid object of the scene: a collider drawn as a mesh, or an empty node
 * that marks a moving attachment target. Static with one pose; animated
 * (translation and rotation channels, linear) with one pose per frame.
 */
export interface AnimatedObject {
  name: string;
  /** Triangles in the object's local frame (none: an empty node). */
  mesh?: { positions: ArrayLike<number>; triangles: Uint32Array };
  /** Base colour (linear RGB). */
  color?: [number, number, number];
  /** xyz: one position (static) or one per frame. */
  translations: ArrayLike<number>;
  /** Quaternions xyzw: one (static) or one per frame. */
  rotations: ArrayLike<number>;
}

export interface GltfAnimationOptions {
  /** Time of each frame (s), increasing. */
  times: number[];
  /** Write vertex normals (and their morph deltas). Default true. */
  normals?: boolean;
  /** Most frames one clip (mesh) holds: a clip has at most this − 1 morph targets. Default 100. */
  maxFramesPerClip?: number;
  /** Animation name. Default 'simulation'. */
  name?: string;
  /** A camera node looking from `position` at `target` (e.g. the scene's camera). */
  camera?: { position: [number, number, number]; target: [number, number, number]; yfov?: number };
  /** Stored as extras of the glTF root (e.g. scene title, dt). */
  extras?: Record<string, unknown>;
  /** Colliders and attachment targets: rigid objects, static or animated. */
  objects?: AnimatedObject[];
}

const palette: [number, number, number][] = [
  [0.8, 0.22, 0.18],
  [0.16, 0.42, 0.8],
  [0.85, 0.62, 0.12],
  [0.2, 0.62, 0.32],
  [0.55, 0.3, 0.75],
  [0.12, 0.6, 0.65],
];

/** Runs of frames [start, end) of one body that become one clip each. */
export function clipRanges(frames: MeshFrame[], maxFramesPerClip = 100): [number, number][] {
  const max = Math.max(1, Math.floor(maxFramesPerClip));
  const out: [number, number][] = [];
  let start = 0;
  for (let f = 1; f <= frames.length; f++) {
    if (f === frames.length || f - start >= max || !sameTopology(frames[f - 1], frames[f])) {
      out.push([start, f]);
      start = f;
    }
  }
  return out;
}

function sameTopology(a: MeshFrame, b: MeshFrame): boolean {
  if (a.positions.length !== b.positions.length) return false;
  if (!sameIndices(a.lines ?? empty, b.lines ?? empty)) return false;
  return sameIndices(a.triangles, b.triangles);
}

const empty = new Uint32Array(0);

function sameIndices(ta: Uint32Array, tb: Uint32Array): boolean {
  if (ta === tb) return true;
  if (ta.length !== tb.length) return false;
  for (let k = 0; k < ta.length; k++) if (ta[k] !== tb[k]) return false;
  return true;
}

/** Area-weighted vertex normals (unit length; [0, 1, 0] where undefined). */
export function vertexNormals(positions: ArrayLike<number>, triangles: Uint32Array): Float64Array {
  const n = new Float64Array(positions.length);
  accumulateFaceNormals(positions, triangles, n);
  for (let i = 0; i < n.length; i += 3) {
    const len = Math.hypot(n[i], n[i + 1], n[i + 2]);
    if (len > 1e-30) {
      n[i] /= len;
      n[i + 1] /= len;
      n[i + 2] /= len;
    } else {
      n[i] = 0;
      n[i + 1] = 1;
      n[i + 2] = 0;
    }
  }
  return n;
}

/** Builds the glTF document of a baked animation. */
export function buildGltfAnimation(bodies: AnimatedBody[], options: GltfAnimationOptions): Document {
  const times = options.times;
  for (let k = 1; k < times.length; k++) {
    if (!(times[k] > times[k - 1])) throw new Error('frame times must increase');
  }
  for (const b of bodies) {
    if (b.frames.length !== times.length) {
      throw new Error(`body '${b.name}' has ${b.frames.length} frames but there are ${times.length} times`);
    }
  }
  const normals = options.normals ?? true;
  const doc = new Document();
  const buffer = doc.createBuffer();
  const scene = doc.createScene('pbdkit');
  doc.getRoot().setDefaultScene(scene);
  if (options.extras) doc.getRoot().setExtras(options.extras);
  const animation = times.length > 1 ? doc.createAnimation(options.name ?? 'simulation') : null;

  const accessor = (
    array: Float32Array | Uint16Array | Uint32Array,
    type: 'SCALAR' | 'VEC2' | 'VEC3' | 'VEC4',
  ) => doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  const timeAccessor = (from: number, to: number) =>
    accessor(Float32Array.from(times.slice(from, to)), 'SCALAR');

  bodies.forEach((body, bi) => {
    const color = body.color ?? palette[bi % palette.length];
    const material = doc
      .createMaterial(body.name)
      .setBaseColorFactor([color[0], color[1], color[2], 1])
      .setRoughnessFactor(0.85)
      .setMetallicFactor(0)
      .setDoubleSided(true);
    const parent = doc.createNode(body.name);
    scene.addChild(parent);
    const clips = clipRanges(body.frames, options.maxFramesPerClip);
    for (const [start, end] of clips) {
      const node = buildClip(
        body,
        start,
        end,
        material,
        clips.length === 1 ? body.name : `${body.name}.f${start}`,
      );
      parent.addChild(node);
      if (!animation) continue;
      if (end - start > 1) {
        // one-hot weights: frame start + j shows target j − 1 (frame start shows the base)
        const nt = end - start - 1;
        const w = new Float32Array((end - start) * nt);
        for (let j = 1; j < end - start; j++) w[j * nt + (j - 1)] = 1;
        const sampler = doc
          .createAnimationSampler()
          .setInput(timeAccessor(start, end))
          .setOutput(accessor(w, 'SCALAR'))
          .setInterpolation('STEP');
        animation.addSampler(sampler);
        animation.addChannel(
          doc.createAnimationChannel().setTargetNode(node).setTargetPath('weights').setSampler(sampler),
        );
      }
      if (clips.length > 1) {
        // visible (scale 1) only during [start, end)
        const keyTimes: number[] = [];
        const keyScales: number[] = [];
        const key = (t: number, s: number) => {
          keyTimes.push(t);
          keyScales.push(s, s, s);
        };
        if (start > 0) key(times[0], 0);
        key(times[start], 1);
        if (end < times.length) key(times[end], 0);
        node.setScale(start === 0 ? [1, 1, 1] : [0, 0, 0]);
        const sampler = doc
          .createAnimationSampler()
          .setInput(accessor(Float32Array.from(keyTimes), 'SCALAR'))
          .setOutput(accessor(Float32Array.from(keyScales), 'VEC3'))
          .setInterpolation('STEP');
        animation.addSampler(sampler);
        animation.addChannel(
          doc.createAnimationChannel().setTargetNode(node).setTargetPath('scale').setSampler(sampler),
        );
      }
    }
  });

  for (const o of options.objects ?? []) scene.addChild(objectNode(o));
  if (options.camera) scene.addChild(cameraNode(doc, options.camera));
  return doc;

  function objectNode(o: AnimatedObject): GltfNode {
    const node = doc.createNode(o.name);
    const T = o.translations;
    const R = o.rotations;
    node.setTranslation([T[0], T[1], T[2]]);
    node.setRotation([R[0], R[1], R[2], R[3]]);
    if (o.mesh && o.mesh.triangles.length > 0) {
      const c = o.color ?? [0.4, 0.43, 0.47];
      const material = doc
        .createMaterial(o.name)
        .setBaseColorFactor([c[0], c[1], c[2], 1])
        .setRoughnessFactor(0.6)
        .setMetallicFactor(0);
      const nv = o.mesh.positions.length / 3;
      const prim = doc
        .createPrimitive()
        .setMaterial(material)
        .setAttribute('POSITION', accessor(Float32Array.from(o.mesh.positions), 'VEC3'))
        .setAttribute(
          'NORMAL',
          accessor(Float32Array.from(vertexNormals(o.mesh.positions, o.mesh.triangles)), 'VEC3'),
        )
        .setIndices(
          accessor(
            nv > 65535 ? Uint32Array.from(o.mesh.triangles) : Uint16Array.from(o.mesh.triangles),
            'SCALAR',
          ),
        );
      node.setMesh(doc.createMesh(o.name).addPrimitive(prim));
    }
    if (animation && (T.length > 3 || R.length > 4)) {
      for (const [path, values, type] of [
        ['translation', T, 'VEC3'],
        ['rotation', R, 'VEC4'],
      ] as const) {
        const n = type === 'VEC3' ? 3 : 4;
        const out = new Float32Array(n * times.length);
        for (let f = 0; f < times.length; f++) {
          for (let k = 0; k < n; k++) out[n * f + k] = values.length > n ? values[n * f + k] : values[k];
        }
        const sampler = doc
          .createAnimationSampler()
          .setInput(timeAccessor(0, times.length))
          .setOutput(accessor(out, type))
          .setInterpolation('LINEAR');
        animation.addSampler(sampler);
        animation.addChannel(
          doc.createAnimationChannel().setTargetNode(node).setTargetPath(path).setSampler(sampler),
        );
      }
    }
    return node;
  }

  function buildClip(
    body: AnimatedBody,
    start: number,
    end: number,
    material: Material,
    name: string,
  ): GltfNode {
    const first = body.frames[start];
    const nv = first.positions.length / 3;
    const base = Float32Array.from(first.positions);
    // a body without triangles is written as line segments (strands) or a point cloud (fluid, granular)
    const lines = first.triangles.length === 0 && first.lines && first.lines.length > 0 ? first.lines : null;
    const points = first.triangles.length === 0 && !lines;
    const baseNormals =
      normals && !points && !lines
        ? Float32Array.from(vertexNormals(first.positions, first.triangles))
        : null;
    const prim = doc.createPrimitive().setMaterial(material).setAttribute('POSITION', accessor(base, 'VEC3'));
    if (points) prim.setMode(Primitive.Mode.POINTS);
    else {
      const indices = lines ?? first.triangles;
      if (lines) prim.setMode(Primitive.Mode.LINES);
      prim.setIndices(accessor(nv > 65535 ? Uint32Array.from(indices) : Uint16Array.from(indices), 'SCALAR'));
    }
    if (baseNormals) prim.setAttribute('NORMAL', accessor(baseNormals, 'VEC3'));
    if (first.uvs) prim.setAttribute('TEXCOORD_0', accessor(Float32Array.from(first.uvs), 'VEC2'));
    for (let f = start + 1; f < end; f++) {
      const pos = body.frames[f].positions;
      const d = new Float32Array(3 * nv);
      for (let k = 0; k < d.length; k++) d[k] = pos[k] - base[k];
      const target = doc
        .createPrimitiveTarget(`frame ${f}`)
        .setAttribute('POSITION', accessor(d, 'VEC3').setName(`frame ${f}`));
      if (baseNormals) {
        const n = vertexNormals(pos, body.frames[f].triangles);
        const dn = new Float32Array(3 * nv);
        for (let k = 0; k < dn.length; k++) dn[k] = n[k] - baseNormals[k];
        target.setAttribute('NORMAL', accessor(dn, 'VEC3'));
      }
      prim.addTarget(target);
    }
    const mesh = doc.createMesh(name).addPrimitive(prim);
    if (end - start > 1) {
      mesh.setWeights(new Array(end - start - 1).fill(0));
      // target names (a glTF convention Blender and three.js read): the frame each one shows
      const names: string[] = [];
      for (let f = start + 1; f < end; f++) names.push(`frame ${f}`);
      mesh.setExtras({ targetNames: names });
    }
    return doc.createNode(name).setMesh(mesh);
  }
}

/** A perspective camera at `position` looking at `target` (glTF cameras look down −Z, +Y up). */
function cameraNode(
  doc: Document,
  cam: { position: [number, number, number]; target: [number, number, number]; yfov?: number },
): GltfNode {
  const [px, py, pz] = cam.position;
  const dx = cam.target[0] - px,
    dy = cam.target[1] - py,
    dz = cam.target[2] - pz;
  // yaw about +Y turns −Z toward the target's heading, then pitch about the camera's x axis
  const yaw = Math.atan2(-dx, -dz);
  const pitch = Math.atan2(dy, Math.hypot(dx, dz));
  const qYaw = [0, 0, 0, 1];
  const qPitch = [0, 0, 0, 1];
  const q = [0, 0, 0, 1];
  quatFromAxisAngle(qYaw, 0, 0, 1, 0, yaw);
  quatFromAxisAngle(qPitch, 0, 1, 0, 0, pitch);
  quatMultiply(q, 0, qYaw, 0, qPitch, 0);
  const camera = doc
    .createCamera('camera')
    .setType('perspective')
    .setYFov(cam.yfov ?? (45 * Math.PI) / 180)
    .setZNear(0.01)
    .setZFar(1000)
    .setAspectRatio(16 / 9);
  return doc
    .createNode('camera')
    .setCamera(camera)
    .setTranslation([px, py, pz])
    .setRotation([q[0], q[1], q[2], q[3]]);
}
