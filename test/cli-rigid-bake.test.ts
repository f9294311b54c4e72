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
import { pbdkit, scenes, tempDir } from './cli-helpers.js';

const frames = 20;

describe('a bake with rigid bodies', () => {
  const tmp = tempDir();
  beforeAll(() => {
    for (const [name, extra] of [
      ['compact.glb', []],
      ['raw.glb', ['--no-compress']],
    ] as const) {
      const r = pbdkit([
        'simulate',
        join(scenes, 'rigid-drum.json'),
        '--frames',
        String(frames),
        '--out',
        join(tmp.dir, name),
        '-q',
        ...extra,
      ]);
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
