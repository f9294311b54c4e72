/**
 * Checkpoints and --resume: a bake really interrupted (SIGINT, SIGKILL) and
 * resumed writes byte for byte what an uninterrupted bake writes — with a
 * cloth that tears (its topology changes), a kinematic ball and a pin on a
 * scripted motion (both time-based). Also: the exact state codec, atomic
 * writes, and refusing to resume from a checkpoint of something else.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScene } from '../src/index.js';
import { bake } from '../src/node/bake.js';
import { writeFileAtomic } from '../src/node/files.js';
import {
  decodeExactJson,
  decodeWorldState,
  encodeExactJson,
  encodeWorldState,
} from '../src/node/state-codec.js';
import { cli, fixtures, pbdkit, type Run, startPbdkit, tempDir } from './cli-helpers.js';

const scene = join(fixtures, 'resume.json');
// 60 frames × 3 steps: the sheet tears around frame 3, the ball flies on, the ribbon's pin keeps oscillating
const bakeArgs = ['simulate', scene, '--frames', '60', '--steps-per-frame', '3'];

/** Waits until the bake's checkpoint reaches `frame`, then sends `signal`; returns how the process ended. */
async function interruptAt(args: string[], checkpoint: string, frame: number, signal: NodeJS.Signals) {
  const { child, done } = startPbdkit(args);
  let exited: Run | null = null;
  done.then((r) => (exited = r));
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (exited) throw new Error(`the bake ended before frame ${frame}: ${JSON.stringify(exited)}`);
    if (Date.now() > deadline) throw new Error('the bake did not reach its checkpoint in time');
    try {
      if (JSON.parse(readFileSync(checkpoint, 'utf8')).frame >= frame) break;
    } catch {
      // not written yet (files appear atomically: absent or complete)
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  child.kill(signal);
  return done;
}

/** Every file in a folder, by name, with its bytes. */
function snapshot(dir: string): Map<string, Buffer> {
  return new Map(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f))]));
}

/** CSV without the measured times (step_ms, step_ms_max and the ms_* stage columns: wall-clock, never reproducible). */
function deterministicColumns(csv: string): string {
  const rows = csv.split('\n').map((l) => l.split(','));
  const keep = rows[0].map((h, k) => (/^ms_|^step_ms/.test(h) ? -1 : k)).filter((k) => k >= 0);
  return rows.map((c) => keep.map((k) => c[k]).join(',')).join('\n');
}

describe('an interrupted bake, resumed, writes exactly what an uninterrupted one writes', () => {
  const tmp = tempDir();
  const ref = join(tmp.dir, 'ref');
  beforeAll(() => {
    // the reference: no checkpoints at all, so their frequency cannot matter either
    const r = pbdkit([
      ...bakeArgs,
      '--out',
      join(ref, 'bake.glb'),
      '--stats',
      join(ref, 'stats.csv'),
      '--export-state',
      join(ref, 'state.json'),
      '--checkpoint-every',
      '0',
      '-q',
    ]);
    expect(r.code).toBe(0);
    const o = pbdkit([...bakeArgs, '--out', join(ref, 'obj/'), '-q']);
    expect(o.code).toBe(0);
  });
  afterAll(() => tmp.cleanup());

  it('the reference bake tears the sheet, so resuming must restore a changed topology', () => {
    const csv = readFileSync(join(ref, 'stats.csv'), 'utf8').trim().split('\n');
    const particles = csv.slice(1).map((l) => Number(l.split(',')[csv[0].split(',').indexOf('particles')]));
    expect(particles[0]).toBe(33 * 29 + 3 * 13);
    expect(particles.at(-1)!).toBeGreaterThan(particles[0]);
    const firstTear = particles.findIndex((n) => n > particles[0]);
    // the SIGINT below comes early (usually before the tear), the SIGKILL comes after it
    expect(firstTear).toBeGreaterThan(2);
    expect(firstTear).toBeLessThan(12);
  });

  it('Ctrl-C (SIGINT): checkpoint, exit 130, the command to continue; --resume gives identical glb, state and CSV', async () => {
    const dir = join(tmp.dir, 'sigint');
    const args = [
      ...bakeArgs,
      '--out',
      join(dir, 'bake.glb'),
      '--stats',
      join(dir, 'stats.csv'),
      '--export-state',
      join(dir, 'state.json'),
      '--checkpoint-every',
      '1',
    ];
    const stopped = await interruptAt(args, join(dir, 'bake.glb.checkpoint', 'checkpoint.json'), 1, 'SIGINT');
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toMatch(/SIGINT: stopping after this frame and saving a checkpoint/);
    const at = Number(/stopped at frame (\d+) of 59/.exec(stopped.stderr)?.[1]);
    expect(at).toBeGreaterThanOrEqual(1);
    expect(at).toBeLessThan(59);
    expect(stopped.stderr).toMatch(/continue with: pbdkit simulate .* --resume\n/);
    // the checkpoint is at the frame it stopped at, not at the last periodic one; no output yet
    const ck = decodeExactJson(readFileSync(join(dir, 'bake.glb.checkpoint', 'checkpoint.json'), 'utf8')) as {
      frame: number;
    };
    expect(ck.frame).toBe(at);
    expect(existsSync(join(dir, 'bake.glb'))).toBe(false);

    // without --resume the checkpoint is not silently thrown away
    const again = pbdkit(args);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(
      /holds the checkpoint of an interrupted bake\n {2}fix: continue it with --resume/,
    );

    const resumed = pbdkit([...args, '--resume']);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(new RegExp(`resumed at frame ${at + 1}`));
    expect(readFileSync(join(dir, 'bake.glb')).equals(readFileSync(join(ref, 'bake.glb')))).toBe(true);
    expect(readFileSync(join(dir, 'state.json')).equals(readFileSync(join(ref, 'state.json')))).toBe(true);
    expect(deterministicColumns(readFileSync(join(dir, 'stats.csv'), 'utf8'))).toBe(
      deterministicColumns(readFileSync(join(ref, 'stats.csv'), 'utf8')),
    );
    // a completed bake removes its checkpoint folder
    expect(existsSync(join(dir, 'bake.glb.checkpoint'))).toBe(false);
  });

  it('kill -9 (SIGKILL) after the tear: resuming from the last periodic checkpoint gives identical OBJ files', async () => {
    const dir = join(tmp.dir, 'sigkill');
    const args = [...bakeArgs, '--out', join(dir, 'obj/'), '--checkpoint-every', '3'];
    const killed = await interruptAt(args, join(dir, 'obj.checkpoint', 'checkpoint.json'), 12, 'SIGKILL');
    expect(killed.signal).toBe('SIGKILL');
    const ck = JSON.parse(readFileSync(join(dir, 'obj.checkpoint', 'checkpoint.json'), 'utf8'));
    expect(ck.frame).toBeGreaterThanOrEqual(12);
    expect(ck.frame).toBeLessThan(59);
    const resumed = pbdkit([...args, '--resume', '-q']);
    expect(resumed.code).toBe(0);
    const got = snapshot(join(dir, 'obj'));
    const want = snapshot(join(ref, 'obj'));
    expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
    expect(got.size).toBe(2 * 60);
    for (const [name, bytes] of want) expect(got.get(name)!.equals(bytes), name).toBe(true);
    expect(existsSync(join(dir, 'obj.checkpoint'))).toBe(false);
  });
});

describe('resuming refuses a checkpoint made from something else', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  it('a changed scene, another --steps-per-frame or too few --frames: exit 2 with the fix', async () => {
    const file = join(tmp.dir, 'fall.json');
    writeFileSync(file, readFileSync(join(fixtures, 'freefall.json')));
    const out = join(tmp.dir, 'fall.glb');
    let frames = 0;
    const r = await bake({ scene: file, out, frames: 10 }, { shouldStop: () => ++frames >= 8 });
    expect(r.status).toBe('interrupted');
    expect(r.lastFrame).toBeGreaterThanOrEqual(2);

    const steps = await cli([
      'simulate',
      file,
      '--out',
      out,
      '--frames',
      '10',
      '--steps-per-frame',
      '3',
      '--resume',
    ]);
    expect(steps.code).toBe(2);
    expect(steps.stderr).toMatch(
      /was made with 2 steps per frame, not 3\n {2}fix: resume with --steps-per-frame 2/,
    );

    const few = await cli(['simulate', file, '--out', out, '--frames', '2', '--resume']);
    expect(few.code).toBe(2);
    expect(few.stderr).toMatch(/already holds \d+ frames, more than the 2 asked for/);

    const changed = JSON.parse(readFileSync(file, 'utf8'));
    changed.bodies[0].density = 0.3;
    writeFileSync(file, JSON.stringify(changed));
    const edited = await cli(['simulate', file, '--out', out, '--frames', '10', '--resume']);
    expect(edited.code).toBe(2);
    expect(edited.stderr).toMatch(
      /was made from a different version of .*fall\.json.*\n {2}fix: restore the scene/,
    );

    const restart = await cli(['simulate', file, '--out', out, '--frames', '10', '--restart', '-q']);
    expect(restart.code).toBe(0);
    expect(existsSync(out)).toBe(true);
  });
});

describe('exact state encoding and atomic writes', () => {
  it('typed arrays, -0, NaN and ±Infinity survive the JSON round trip bit for bit', () => {
    const value = {
      x: new Float64Array([0.1, -0, Number.MIN_VALUE, 1e308, Math.PI]),
      i: new Int32Array([-1, 2 ** 31 - 1]),
      plain: [-0, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1 / 3],
      nested: { u: new Uint32Array([4294967295]) },
    };
    const back = decodeExactJson(encodeExactJson(value)) as typeof value;
    expect(back.x).toBeInstanceOf(Float64Array);
    expect(new Uint8Array(back.x.buffer)).toEqual(new Uint8Array(value.x.buffer));
    expect(Object.is(back.x[1], -0)).toBe(true);
    expect(back.i).toEqual(value.i);
    expect(back.nested.u).toEqual(value.nested.u);
    expect(Object.is(back.plain[0], -0)).toBe(true);
    expect(back.plain.slice(1)).toEqual([
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      1 / 3,
    ]);
    expect(() => decodeWorldState('{"format":"nope"}', 'ck.json')).toThrow(
      /ck\.json: is not a pbdkit world state/,
    );
  });

  it('a world saved mid-tear, encoded and loaded into a fresh world, continues bit-identically', () => {
    const text = readFileSync(scene, 'utf8');
    const make = () => loadScene(text, { file: 'resume.json' }).world;
    const a = make();
    const b = make();
    for (let k = 0; k < 9; k++) a.step();
    for (let k = 0; k < 9; k++) b.step();
    const c = make();
    c.loadState(decodeWorldState(encodeWorldState(b.saveState())));
    for (let k = 0; k < 30; k++) {
      a.step();
      c.step();
    }
    expect(c.store.count).toBe(a.store.count);
    const n = 3 * a.store.count;
    expect(new Uint8Array(c.store.x.buffer, 0, 8 * n)).toEqual(new Uint8Array(a.store.x.buffer, 0, 8 * n));
    expect(new Uint8Array(c.store.v.buffer, 0, 8 * n)).toEqual(new Uint8Array(a.store.v.buffer, 0, 8 * n));
    expect(c.bodies.map((x) => x.activeCount)).toEqual(a.bodies.map((x) => x.activeCount));
    expect(a.bodies[0].activeCount).toBeGreaterThan(33 * 29);
  });

  it('writeFileAtomic replaces a file whole, and a failed write leaves the old file and no temporary', () => {
    const tmp = tempDir();
    try {
      const f = join(tmp.dir, 'sub', 'out.txt');
      writeFileAtomic(f, 'first');
      writeFileAtomic(f, new Uint8Array([115, 101, 99, 111, 110, 100]));
      expect(readFileSync(f, 'utf8')).toBe('second');
      expect(() => writeFileAtomic(join(tmp.dir, 'sub'), 'x')).toThrow(
        /cannot write the file: a folder has that name/,
      );
      expect(readdirSync(join(tmp.dir, 'sub'))).toEqual(['out.txt']);
      expect(readdirSync(tmp.dir)).toEqual(['sub']);
    } finally {
      tmp.cleanup();
    }
  });
});
