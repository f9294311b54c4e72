/**
 * `pbdkit simulate` on a particle body (a fluid): OBJ folders get PLY point
 * clouds with velocities and stable ids, and a glb gets a POINTS primitive
 * whose morph targets hold every frame.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NodeIO, Primitive } from '@gltf-transform/core';
import { afterAll, describe, expect, it } from 'vitest';
import { pbdkit, tempDir } from './cli-helpers.js';

const scene = {
  title: 'a small block of water',
  family: 'fluids',
  world: { substeps: 2, iterations: 2 },
  bodies: [
    { type: 'fluid', name: 'water', blocks: [{ min: [0, 0, 0], max: [0.12, 0.12, 0.12] }], spacing: 0.03 },
  ],
  colliders: [{ type: 'plane' }],
};

const after: (() => void)[] = [];
afterAll(() => {
  for (const f of after) f();
});

describe('particle bodies in the pbdkit outputs', () => {
  it('--out dir/ writes one PLY per frame whose points fall under gravity', () => {
    const { dir, cleanup } = tempDir();
    after.push(cleanup);
    const file = join(dir, 'water.json');
    writeFileSync(file, JSON.stringify(scene));
    const r = pbdkit(['simulate', file, '--frames', '6', '--out', `${join(dir, 'frames')}/`, '-q']);
    expect(r.code).toBe(0);
    const plys = readdirSync(join(dir, 'frames'))
      .filter((f) => f.endsWith('.ply'))
      .sort();
    expect(plys).toHaveLength(6);
    const read = (f: string) => {
      const bytes = readFileSync(join(dir, 'frames', f));
      const text = bytes.toString('latin1');
      const end = text.indexOf('end_header\n') + 'end_header\n'.length;
      const n = Number(/element vertex (\d+)/.exec(text)![1]);
      const view = new DataView(bytes.buffer, bytes.byteOffset + end);
      let ySum = 0;
      for (let i = 0; i < n; i++) ySum += view.getFloat32(i * 28 + 4, true); // x y z vx vy vz id
      return { n, meanY: ySum / n, header: text.slice(0, end) };
    };
    const first = read(plys[0]);
    const last = read(plys[5]);
    expect(first.header).toMatch(/property float vy/);
    expect(first.header).toMatch(/property int id/);
    expect(last.n).toBe(first.n);
    expect(first.n).toBeGreaterThan(20);
    expect(last.meanY).toBeLessThan(first.meanY); // it falls
  });

  it('a glb holds the fluid as a POINTS primitive with a morph target per frame', async () => {
    const { dir, cleanup } = tempDir();
    after.push(cleanup);
    const file = join(dir, 'water.json');
    writeFileSync(file, JSON.stringify(scene));
    const out = join(dir, 'water.glb');
    const r = pbdkit(['simulate', file, '--frames', '5', '--out', out, '--no-compress', '-q']);
    expect(r.code).toBe(0);
    const doc = await new NodeIO().read(out);
    // the fluid's meshes (the scene's colliders are meshes of their own)
    const prims = doc
      .getRoot()
      .listMeshes()
      .filter((m) => m.listPrimitives().some((p) => p.listTargets().length > 0))
      .flatMap((m) => m.listPrimitives());
    expect(prims).toHaveLength(1);
    expect(prims[0].getMode()).toBe(Primitive.Mode.POINTS);
    expect(prims[0].getIndices()).toBeNull();
    expect(prims[0].listTargets()).toHaveLength(4);
  });
});
