/**
 * Bakes of scenes with rigid bodies (pbdkit simulate): in the glb each rigid
 * body is a node animated by translation and rotation channels (node
 * animation, not vertex positions) holding the bodies' recorded poses, and
 * the file is valid for the Khronos validator, compressed or not.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import validator from 'gltf-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScene } from '../src/io/scene/scene.js';
import { scenes, simulate, tempDir } from './cli-helpers.js';

const frames = 20;

describe('a bake with rigid bodies', () => {
  const tmp = tempDir();
  beforeAll(() => {
    for (const [name, extra] of [
      ['compact.glb', []],
      ['raw.glb', ['--no-compress']],
    ] as const) {
      const r = simulate(join(scenes, 'rigid-drum.json'), frames, join(tmp.dir, name), '-q', ...extra);
      expect(r.code, r.stderr).toBe(0);
    }
  });
  afterAll(() => tmp.cleanup());

  it('passes the glTF validator without errors or warnings', async () => {
    for (const name of ['compact.glb', 'raw.glb']) {
      const report = await validator.validateBytes(new Uint8Array(readFileSync(join(tmp.dir, name))));
      expect(report.issues.numErrors).toBe(0);
      expect(report.issues.numWarnings).toBe(0);
    }
  });

  it("animates the ball's node by translation and rotation with the simulated poses", async () => {
    const doc = await new NodeIO().readBinary(new Uint8Array(readFileSync(join(tmp.dir, 'raw.glb'))));
    const channels = doc
      .getRoot()
      .listAnimations()
      .flatMap((a) => a.listChannels())
      .filter((c) => c.getTargetNode()?.getName() === 'ball');
    expect(channels.map((c) => c.getTargetPath()).sort()).toEqual(['rotation', 'translation']);
    // the same scene run here: frame f is the state after f steps
    const inst = loadScene(readFileSync(join(scenes, 'rigid-drum.json'), 'utf8'), {
      file: 'rigid-drum.json',
    });
    const ball = inst.rigidBodies[0];
    const expected: number[][] = [];
    for (let f = 0; f < frames; f++) {
      if (f > 0) inst.world.step();
      expected.push(Array.from(ball.centerOfMass()));
    }
    const out = channels
      .find((c) => c.getTargetPath() === 'translation')!
      .getSampler()!
      .getOutput()!;
    expect(out.getCount()).toBe(frames);
    for (const f of [0, 10, frames - 1]) {
      const t = out.getElement(f, []);
      for (let d = 0; d < 3; d++) expect(t[d]).toBeCloseTo(expected[f][d], 5);
    }
    // it fell and bounced: the poses are not all the same
    expect(expected[frames - 1][1]).not.toBeCloseTo(expected[0][1], 2);
  });
});

describe('an OBJ bake with rigid bodies', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  it("writes each rigid body's mesh at its pose every frame: the hammock box's corners", () => {
    const n = 12;
    const out = join(tmp.dir, 'frames/');
    const r = simulate(join(scenes, 'rigid-hammock.json'), n, out, '-q');
    expect(r.code, r.stderr).toBe(0);
    const inst = loadScene(readFileSync(join(scenes, 'rigid-hammock.json'), 'utf8'), {
      file: 'rigid-hammock.json',
    });
    const box = inst.rigidBodies[0];
    const h = [0.25, 0.12, 0.2];
    const y0 = box.position()[1];
    for (let f = 0; f < n; f++) {
      if (f > 0) inst.world.step();
      if (f !== 0 && f !== n - 1) continue;
      // the box's corners at frame f: its position + R(orientation) (±h)
      const p = box.position(),
        q = box.orientation();
      const corners: number[][] = [];
      for (const sx of [-1, 1])
        for (const sy of [-1, 1])
          for (const sz of [-1, 1]) {
            const v = [sx * h[0], sy * h[1], sz * h[2]];
            const t = [
              2 * (q[1] * v[2] - q[2] * v[1]),
              2 * (q[2] * v[0] - q[0] * v[2]),
              2 * (q[0] * v[1] - q[1] * v[0]),
            ];
            corners.push([
              p[0] + v[0] + q[3] * t[0] + (q[1] * t[2] - q[2] * t[1]),
              p[1] + v[1] + q[3] * t[1] + (q[2] * t[0] - q[0] * t[2]),
              p[2] + v[2] + q[3] * t[2] + (q[0] * t[1] - q[1] * t[0]),
            ]);
          }
      const text = readFileSync(join(out, `box_${String(f).padStart(4, '0')}.obj`), 'utf8');
      const vertices = text
        .split('\n')
        .filter((l) => l.startsWith('v '))
        .map((l) => l.split(' ').slice(1).map(Number));
      expect(vertices.length).toBeGreaterThanOrEqual(8);
      expect(text).toMatch(/^f /m);
      // every vertex is a corner, and every corner is written (9 significant digits)
      for (const v of vertices)
        expect(
          Math.min(...corners.map((c) => Math.hypot(c[0] - v[0], c[1] - v[1], c[2] - v[2]))),
        ).toBeLessThan(1e-6);
      for (const c of corners)
        expect(
          Math.min(...vertices.map((v) => Math.hypot(c[0] - v[0], c[1] - v[1], c[2] - v[2]))),
        ).toBeLessThan(1e-6);
    }
    // the box fell between the first and the last frame (the corners compared are not all the same)
    expect(box.position()[1]).toBeLessThan(y0 - 0.05);
  });
});
