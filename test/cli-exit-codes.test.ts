/**
 * The exit codes `pbdkit --help` promises, one test each, through the
 * installed command (bin/pbdkit.js in a real process), and the messages a
 * new user meets first: a misspelt scene or experiment gets "did you mean",
 * a bake without outputs says that it wrote nothing, and the Figure 4
 * summary keeps its two cases apart.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fig4Summary } from '../experiments/index.js';
import { fixtures, pbdkit, stackLines, startPbdkit, tempDir } from './cli-helpers.js';

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir();
});
afterAll(() => tmp.cleanup());

const freefall = join(fixtures, 'freefall.json');

describe('exit codes, as the help states them', () => {
  it('0: success', () => {
    const r = pbdkit(['simulate', freefall, '--frames', '3', '--stats', join(tmp.dir, 'ok.csv')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^simulated 3 frames of \S*freefall\.json .*ms per step, [\d.]+× real time$/m);
    expect(readFileSync(join(tmp.dir, 'ok.csv'), 'utf8').split('\n')[0]).toMatch(/^frame,time,/);
  });

  it('1: an output that cannot be written', () => {
    mkdirSync(join(tmp.dir, 'taken.csv'), { recursive: true });
    const r = pbdkit(['simulate', freefall, '--frames', '2', '--stats', join(tmp.dir, 'taken.csv'), '-q']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/taken\.csv: cannot write the file: a folder has that name/);
    expect(stackLines(r.stderr)).toEqual([]);
  });

  it('2: invalid input or usage, including an unknown experiment (with "did you mean")', () => {
    const r = pbdkit(['experiment', 'fig55']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^pbdkit: fig55: is not an experiment; known: fig4, fig5, fig6, fig7, [^\n]*all\n {2}fix: did you mean fig5\?/,
    );
    expect(r.stderr).not.toMatch(/unexpected error/);
    expect(stackLines(r.stderr)).toEqual([]);
  });

  it('2: an --out that is neither a .glb nor a folder, with the fix', () => {
    const r = pbdkit([
      'simulate',
      join(fixtures, 'freefall.json'),
      '--frames',
      '2',
      '--out',
      join(tmp.dir, 'anim.gltf'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /anim\.gltf: is neither a \.glb file nor a folder\n {2}fix: write a glTF animation with --out name\.glb, or OBJ files with --out folder/,
    );
    expect(stackLines(r.stderr)).toEqual([]);
  });

  it('2: a misspelt scene name suggests the built-in scenes it is close to', () => {
    for (const cmd of ['simulate', 'info', 'validate']) {
      const r = pbdkit([cmd, 'cloth-flg']);
      expect(r.code, cmd).toBe(2);
      expect(r.stderr + r.stdout, cmd).toMatch(/did you mean cloth-flag\?/);
    }
    const far = pbdkit(['info', 'zzzz']);
    expect(far.code).toBe(2);
    expect(far.stderr).toMatch(/pbdkit scenes` lists them/);
  });

  it('143: stopped by SIGTERM after saving a checkpoint, which --resume continues', async () => {
    const out = join(tmp.dir, 'term.glb');
    const args = ['simulate', join(fixtures, 'resume.json'), '--out', out, '--checkpoint-every', '1'];
    const { child, done } = startPbdkit(args);
    const checkpoint = `${out}.checkpoint/checkpoint.json`;
    const deadline = Date.now() + 60_000;
    for (;;) {
      let frame = -1;
      try {
        frame = JSON.parse(readFileSync(checkpoint, 'utf8')).frame;
      } catch {
        // not written yet
      }
      if (frame >= 1) break;
      if (Date.now() > deadline) throw new Error('no checkpoint in time');
      await new Promise((r) => setTimeout(r, 10));
    }
    child.kill('SIGTERM');
    const r = await done;
    expect(r.code).toBe(143);
    expect(r.stderr).toMatch(/SIGTERM: stopping after this frame and saving a checkpoint/);
    expect(r.stderr).toMatch(/continue with: pbdkit .*--resume/);
    const resumed = pbdkit([...args, '--resume', '-q']);
    expect(resumed.code).toBe(0);
  });
});

describe('messages', () => {
  it('simulate without any output says that it wrote nothing and how to keep the result', () => {
    const r = pbdkit(['simulate', freefall, '--frames', '3']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^simulated 3 frames/m);
    expect(r.stderr).toMatch(
      /pbdkit: nothing was written: no output was asked for\n {2}fix: add --out NAME\.glb/,
    );
  });

  it("Figure 4's summary gives each case its own start and end energies", () => {
    const rows = [
      { case: 'bunny', iteration: 0, solver: 'PBD', energy: 2.5 },
      { case: 'bunny', iteration: 0, solver: 'NR', energy: 2.5 },
      { case: 'bunny', iteration: 1, solver: 'PBD', energy: 1.5 },
      { case: 'bunny', iteration: 1, solver: 'NR', energy: 1.25 },
      { case: 'plate', iteration: 0, solver: 'PBD', energy: 9 },
      { case: 'plate', iteration: 0, solver: 'NR', energy: 9 },
      { case: 'plate', iteration: 1, solver: 'PBD', energy: 4 },
      { case: 'plate', iteration: 1, solver: 'NR', energy: 3 },
    ];
    expect(fig4Summary(rows).split('\n')).toEqual([
      'bunny: elastic energy 2.500e+0 J before the first iteration; after 1: PBD 1.500e+0 J, NR 1.250e+0 J',
      'plate: elastic energy 9.000e+0 J before the first iteration; after 1: PBD 4.000e+0 J, NR 3.000e+0 J',
    ]);
  });
});
