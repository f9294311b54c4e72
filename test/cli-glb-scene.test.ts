/**
 * The default glb of a bake holds the whole scene and is compact: bodies as
 * morph animations in the gallery's colours, static colliders as meshes in
 * their pose (the ground too), a kinematic collider and a scripted pin's
 * target as nodes with translation and rotation channels; positions
 * quantised (KHR_mesh_quantization) and buffers meshopt-compressed
 * (EXT_meshopt_compression), with the Khronos validator still clean, and
 * three.js's GLTFLoader (with meshopt's decoder) showing the same frames as
 * the uncompressed bake to within the quantisation step.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type Document, type Node as GltfNode, NodeIO } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import validator from 'gltf-validator';
import { MeshoptDecoder } from 'meshoptimizer';
import { AnimationMixer, Box3, LoopOnce, type Object3D } from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bodyColor,
  colliderColor,
  groundColor,
  kinematicColliderColor,
  linearRgb,
} from '../src/io/palette.js';
import { fixtures, simulate, tempDir } from './cli-helpers.js';

// a tearing sheet, a ribbon on a pin that oscillates, a ball flying through, the ground
const scene = join(fixtures, 'resume.json');
const frames = 30;

describe('the default glb: the whole scene, compact', () => {
  const tmp = tempDir();
  let compact: Uint8Array;
  let doc: Document;
  beforeAll(async () => {
    for (const [name, extra] of [
      ['compact.glb', []],
      ['raw.glb', ['--no-compress']],
    ] as const) {
      const r = simulate(scene, frames, join(tmp.dir, name), '-q', ...extra);
      expect(r.code).toBe(0);
    }
    compact = new Uint8Array(readFileSync(join(tmp.dir, 'compact.glb')));
    await MeshoptDecoder.ready;
    doc = await new NodeIO()
      .registerExtensions(ALL_EXTENSIONS)
      .registerDependencies({ 'meshopt.decoder': MeshoptDecoder })
      .readBinary(compact);
  });
  afterAll(() => tmp.cleanup());

  it('is quantised and meshopt-compressed, several times smaller, and the validator reports no error or warning', async () => {
    const used = doc
      .getRoot()
      .listExtensionsUsed()
      .map((e) => e.extensionName);
    expect(used).toEqual(expect.arrayContaining(['EXT_meshopt_compression', 'KHR_mesh_quantization']));
    const raw = statSync(join(tmp.dir, 'raw.glb')).size;
    expect(compact.byteLength).toBeLessThan(raw / 2.5);
    const report = await validator.validateBytes(compact);
    expect(report.issues.numErrors).toBe(0);
    expect(report.issues.numWarnings).toBe(0);
  });

  it('holds the colliders and the moving pin target, animated where they move, in the gallery colours', () => {
    const nodes = new Map(
      doc
        .getRoot()
        .listNodes()
        .map((n) => [n.getName(), n]),
    );
    const channels = doc
      .getRoot()
      .listAnimations()
      .flatMap((a) => a.listChannels())
      .map((c) => `${c.getTargetNode()!.getName()}.${c.getTargetPath()}`);
    // the ground: a static mesh, not animated
    // (quantisation may move a mesh to a child node that holds its dequantisation transform)
    const hasMesh = (n: GltfNode) =>
      n.getMesh() !== null || n.listChildren().some((c) => c.getMesh() !== null);
    const ground = nodes.get('ground')!;
    expect(hasMesh(ground)).toBe(true);
    expect(channels.filter((c) => c.startsWith('ground.'))).toEqual([]);
    // the ball: a mesh that flies (velocity 4 m/s along z from 0.05 s)
    const ball = nodes.get('ball')!;
    expect(hasMesh(ball)).toBe(true);
    expect(channels).toEqual(expect.arrayContaining(['ball.translation', 'ball.rotation']));
    const ballChannel = doc
      .getRoot()
      .listAnimations()
      .flatMap((a) => a.listChannels())
      .find((c) => c.getTargetNode() === ball && c.getTargetPath() === 'translation')!;
    const out = ballChannel.getSampler()!.getOutput()!;
    const z0 = out.getElement(0, [])[2];
    const zEnd = out.getElement(out.getCount() - 1, [])[2];
    // frame 29 at t = 29/60 s: 4 m/s × (29/60 − 0.05) s
    expect(zEnd - z0).toBeCloseTo(4 * (29 / 60 - 0.05), 2);
    // the ribbon's pinned row: one animated target node per pinned particle (3 columns)
    const targets = [...nodes.keys()].filter((n) => n.startsWith('attachment target'));
    expect(targets.length).toBe(3);
    for (const t of targets) expect(channels).toContain(`${t}.translation`);
    // materials: what the gallery draws
    const colour = (name: string) =>
      doc
        .getRoot()
        .listMaterials()
        .find((m) => m.getName() === name)!
        .getBaseColorFactor()
        .slice(0, 3);
    const close = (a: number[], b: number[]) => a.every((v, k) => Math.abs(v - b[k]) < 1e-6);
    expect(close(colour('sheet'), linearRgb(bodyColor(0, 'cloth')))).toBe(true);
    expect(close(colour('ribbon'), linearRgb(bodyColor(1, 'cloth')))).toBe(true);
    expect(close(colour('ground'), linearRgb(groundColor))).toBe(true);
    expect(close(colour('ball'), linearRgb(kinematicColliderColor))).toBe(true);
    expect(close(colour('ball'), linearRgb(colliderColor))).toBe(false);
  });

  it('three.js shows the same frames as the uncompressed bake, to within the quantisation step', async () => {
    const load = async (bytes: Uint8Array) => {
      const loader = new GLTFLoader();
      loader.setMeshoptDecoder(MeshoptDecoder);
      return loader.parseAsync(
        bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
        '',
      );
    };
    const raw = new Uint8Array(readFileSync(join(tmp.dir, 'raw.glb')));
    const boxes = async (bytes: Uint8Array, t: number) => {
      const gltf = await load(bytes);
      const mixer = new AnimationMixer(gltf.scene);
      mixer.clipAction(gltf.animations[0]).setLoop(LoopOnce, 1).play().clampWhenFinished = true;
      mixer.setTime(t);
      gltf.scene.updateMatrixWorld(true);
      const out: Record<string, number[]> = {};
      gltf.scene.traverse((o: Object3D) => {
        if (!['ribbon', 'ball'].includes(o.name)) return;
        const b = new Box3().setFromObject(o, true);
        out[o.name] = [...b.min.toArray(), ...b.max.toArray()];
      });
      return out;
    };
    for (const f of [0, frames - 1]) {
      const a = await boxes(compact, f / 60 + 1e-4);
      const b = await boxes(raw, f / 60 + 1e-4);
      expect(Object.keys(a).sort()).toEqual(['ball', 'ribbon']);
      for (const k of Object.keys(b)) {
        for (let d = 0; d < 6; d++) expect(Math.abs(a[k][d] - b[k][d]), `${k} ${d}`).toBeLessThan(2e-3);
      }
    }
  });
});
