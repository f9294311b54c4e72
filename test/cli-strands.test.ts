/**
 * Strands in the bakes: a glb holds each strand body as a LINES primitive
 * (its segments, with a morph target per frame) that passes the Khronos
 * validator; OBJ frames hold one `l` polyline per strand; --export-state
 * lists the segments.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NodeIO, Primitive } from '@gltf-transform/core';
import validator from 'gltf-validator';
import { afterAll, describe, expect, it } from 'vitest';
import { bake } from '../src/node/index.js';
import { tempDir } from './cli-helpers.js';

const scene = {
  title: 'a few hairs',
  family: 'strands',
  world: { substeps: 2 },
  bodies: [
    {
      type: 'strands',
      name: 'hair',
      hair: { center: [0, 1, 0], radius: 0.1, count: 12, segments: 6, length: 0.2 },
      radius: 0.003,
      roots: { follow: 'head' },
    },
  ],
  colliders: [
    { type: 'sphere', name: 'head', radius: 0.1, position: [0, 1, 0], motion: { velocity: [0.3, 0, 0] } },
  ],
};

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('strands in the pbdkit outputs', () => {
  const file = join(tmp.dir, 'hair.json');
  writeFileSync(file, JSON.stringify(scene));

  it('a glb holds the strands as a LINES primitive with a morph target per frame, valid glTF', async () => {
    const out = join(tmp.dir, 'hair.glb');
    const stateFile = join(tmp.dir, 'hair.state.json');
    // float positions (compared exactly below); the compressed default is read in test/cli-glb-scene.test.ts
    const r = await bake({
      scene: file,
      frames: 5,
      out,
      exportState: stateFile,
      checkpointEvery: 0,
      compress: false,
    });
    expect(r.status).toBe('complete');
    const bytes = readFileSync(out);
    const doc = await new NodeIO().readBinary(new Uint8Array(bytes));
    const prims = doc
      .getRoot()
      .listMeshes()
      .flatMap((m) => m.listPrimitives());
    // the strands, beside the scene's collider (the head sphere, a triangle mesh)
    const lines = prims.filter((p) => p.getMode() === Primitive.Mode.LINES);
    expect(lines).toHaveLength(1);
    expect(prims.length - lines.length).toBe(1);
    const prim = lines[0];
    expect(prim.getIndices()!.getCount()).toBe(2 * 12 * 6);
    expect(prim.listTargets()).toHaveLength(4);
    // the last frame is the exported state
    const state = JSON.parse(readFileSync(stateFile, 'utf8')) as {
      bodies: { positions: number[]; lines: number[]; triangles: number[] }[];
    };
    const b = state.bodies[0];
    expect(b.triangles).toEqual([]);
    expect(b.lines.length).toBe(2 * 12 * 6);
    expect(Array.from(prim.getIndices()!.getArray()!)).toEqual(b.lines);
    const base = prim.getAttribute('POSITION')!.getArray()!;
    const last = prim.listTargets().at(-1)!.getAttribute('POSITION')!.getArray()!;
    let diff = 0;
    for (let k = 0; k < b.positions.length; k++)
      diff = Math.max(diff, Math.abs(base[k] + last[k] - b.positions[k]));
    expect(diff).toBeLessThan(1e-5);
    // the roots moved with the head: 4 frames at 0.3 m/s
    expect(b.positions[0] - base[0]).toBeCloseTo((0.3 * 4) / 60, 5);
    const report = await validator.validateBytes(new Uint8Array(bytes));
    expect(report.issues.numErrors).toBe(0);
    expect(report.issues.numWarnings).toBe(0);
  });

  it('OBJ frames hold one l polyline per strand over the particles', async () => {
    const dir = join(tmp.dir, 'obj');
    const r = await bake({ scene: file, frames: 3, out: `${dir}/`, checkpointEvery: 0 });
    expect(r.status).toBe('complete');
    const files = readdirSync(dir).sort();
    expect(files).toHaveLength(3);
    const text = readFileSync(join(dir, files[2]), 'utf8').split('\n');
    expect(text.filter((l) => l.startsWith('v ')).length).toBe(12 * 7);
    const polylines = text.filter((l) => l.startsWith('l '));
    expect(polylines).toHaveLength(12);
    expect(polylines[0]).toBe('l 1 2 3 4 5 6 7');
    expect(polylines[11]).toBe(`l ${Array.from({ length: 7 }, (_, j) => 78 + j).join(' ')}`);
    expect(text.some((l) => l.startsWith('f '))).toBe(false);
  });
});
