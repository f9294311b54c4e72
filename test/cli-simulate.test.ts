/**
 * `pbdkit simulate`: the glb reads back (gltf-transform, the Khronos
 * validator, three.js's GLTFLoader) with the right vertex and frame counts
 * and the simulated positions; OBJ, CSV and state outputs hold the right
 * contents, checked against the analytic free fall.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Accessor, type Document, type Node as GltfNode, NodeIO } from '@gltf-transform/core';
import validator from 'gltf-validator';
import { AnimationMixer, LoopOnce, type Mesh, type Object3D } from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtures, pbdkit, simulate, stackLines, tempDir } from './cli-helpers.js';

const tear = join(fixtures, 'tear.json');
const freefall = join(fixtures, 'freefall.json');

/** Positions and triangle count of each OBJ file of a body, by frame. */
function readObjFrames(dir: string, body: string): { positions: number[]; faces: number }[] {
  const files = readdirSync(dir)
    .filter((f) => f.startsWith(`${body}_`) && f.endsWith('.obj'))
    .sort();
  return files.map((f) => {
    const lines = readFileSync(join(dir, f), 'utf8').split('\n');
    const positions = lines
      .filter((l) => l.startsWith('v '))
      .flatMap((l) => l.split(' ').slice(1).map(Number));
    return { positions, faces: lines.filter((l) => l.startsWith('f ')).length };
  });
}

/** An accessor's values as plain numbers. */
function floats(a: Accessor): number[] {
  return Array.from(a.getArray() as Float32Array);
}

/** The clips (child nodes) of a body node, in frame order, with the frame each starts at. */
function clips(doc: Document, body: string): { node: GltfNode; start: number }[] {
  const parent = doc
    .getRoot()
    .listNodes()
    .find((n) => n.getName() === body);
  if (!parent) throw new Error(`no node ${body}`);
  const kids = parent.listChildren();
  return kids.map((node) => ({
    node,
    start: kids.length === 1 ? 0 : Number(node.getName().slice(body.length + 2)),
  }));
}

/** Positions of every frame of a body, reconstructed from the glb's base meshes and morph targets. */
function glbFrames(doc: Document, body: string): { positions: Float32Array; triangles: number }[] {
  const out: { positions: Float32Array; triangles: number }[] = [];
  for (const { node } of clips(doc, body)) {
    const prim = node.getMesh()!.listPrimitives()[0];
    const base = prim.getAttribute('POSITION')!.getArray() as Float32Array;
    const triangles = prim.getIndices()!.getCount() / 3;
    out.push({ positions: base, triangles });
    for (const target of prim.listTargets()) {
      const d = target.getAttribute('POSITION')!.getArray() as Float32Array;
      out.push({ positions: base.map((b, k) => b + d[k]), triangles });
    }
  }
  return out;
}

describe('pbdkit simulate → glb (a tearing cloth hit by a kinematic ball)', () => {
  const tmp = tempDir();
  const frames = 14;
  let doc: Document;
  let glb: Uint8Array;
  let obj: { positions: number[]; faces: number }[];
  let run: ReturnType<typeof pbdkit>;

  beforeAll(async () => {
    // uncompressed: the tests read the float positions back exactly (the compact default is tested below)
    run = simulate(tear, frames, join(tmp.dir, 'tear.glb'), '--no-compress');
    const objRun = simulate(tear, frames, join(tmp.dir, 'obj/'), '-q');
    expect(objRun.code).toBe(0);
    glb = new Uint8Array(readFileSync(join(tmp.dir, 'tear.glb')));
    doc = await new NodeIO().readBinary(glb);
    obj = readObjFrames(join(tmp.dir, 'obj'), 'sheet');
  });
  afterAll(() => tmp.cleanup());

  it('exits 0 and says what it wrote', () => {
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/simulated 14 frames/);
    expect(run.stdout).toMatch(/wrote .*tear\.glb \(\d+(\.\d)? (kB|MB)\)/);
    // not a terminal: plain progress lines on stderr
    expect(run.stderr).toMatch(/frame 13\/13 \(100%\)/);
    expect(existsCheckpoint(tmp.dir)).toBe(false);
  });

  it('the cloth really tears during the bake, so the glb holds several topologies', () => {
    const counts = obj.map((f) => f.positions.length / 3);
    expect(counts[0]).toBe(17 * 15);
    expect(counts.at(-1)!).toBeGreaterThan(counts[0]);
    expect(clips(doc, 'sheet').length).toBeGreaterThan(1);
  });

  it('has one frame per baked frame, with the vertex and triangle counts of the OBJ frames', () => {
    const frs = glbFrames(doc, 'sheet');
    expect(frs.length).toBe(frames);
    expect(obj.length).toBe(frames);
    for (let f = 0; f < frames; f++) {
      expect(frs[f].positions.length).toBe(obj[f].positions.length);
      expect(frs[f].triangles).toBe(obj[f].faces);
    }
  });

  it('reconstructs every frame’s positions (base + morph delta) to float precision', () => {
    const frs = glbFrames(doc, 'sheet');
    let worst = 0;
    for (let f = 0; f < frames; f++) {
      const a = frs[f].positions;
      const b = obj[f].positions;
      for (let k = 0; k < a.length; k++) worst = Math.max(worst, Math.abs(a[k] - b[k]));
    }
    // float32 positions and deltas, 9-digit OBJ text: a few 1e-7 m on a metre-sized cloth
    expect(worst).toBeLessThan(1e-6);
  });

  it('animates with STEP weights at the frame times and shows one clip at a time through scale keys', () => {
    const anim = doc.getRoot().listAnimations()[0];
    expect(anim.getName()).toBe('simulation');
    const cs = clips(doc, 'sheet');
    const ends = [...cs.slice(1).map((c) => c.start), frames];
    cs.forEach(({ node, start }, k) => {
      const channels = anim.listChannels().filter((c) => c.getTargetNode() === node);
      const weights = channels.find((c) => c.getTargetPath() === 'weights');
      const scale = channels.find((c) => c.getTargetPath() === 'scale')!;
      const n = ends[k] - start;
      if (n > 1) {
        const s = weights!.getSampler()!;
        expect(s.getInterpolation()).toBe('STEP');
        const times = floats(s.getInput()!);
        expect(times.length).toBe(n);
        expect(times).toEqual(times.map((_, j) => expect.closeTo((start + j) / 60, 6)));
        // frame start + j shows target j − 1 alone
        const w = floats(s.getOutput()!);
        for (let j = 0; j < n; j++) {
          const row = Array.from(w.slice(j * (n - 1), (j + 1) * (n - 1)));
          expect(row.reduce((a, b) => a + b, 0)).toBe(j === 0 ? 0 : 1);
          if (j > 0) expect(row[j - 1]).toBe(1);
        }
      } else {
        expect(weights).toBeUndefined();
      }
      const st = floats(scale.getSampler()!.getInput()!);
      const sv = floats(scale.getSampler()!.getOutput()!);
      expect(scale.getSampler()!.getInterpolation()).toBe('STEP');
      const visibleAt = st.findIndex((t) => Math.abs(t - start / 60) < 1e-6);
      expect(sv[3 * visibleAt]).toBe(1);
      if (ends[k] < frames) expect(sv.at(-1)).toBe(0);
    });
  });

  it('passes the Khronos glTF validator with no error and no warning', async () => {
    const report = await validator.validateBytes(glb);
    expect(report.issues.numErrors).toBe(0);
    expect(report.issues.numWarnings).toBe(0);
    expect(report.info.animationCount).toBe(1);
    expect(report.info.hasMorphTargets).toBe(true);
  });

  it("loads in three.js's GLTFLoader, whose mixer shows the right frame at each time", async () => {
    const gltf = await new GLTFLoader().parseAsync(
      glb.buffer.slice(glb.byteOffset, glb.byteOffset + glb.byteLength) as ArrayBuffer,
      '',
    );
    const meshes: Mesh[] = [];
    // the sheet's clips (the scene's colliders are meshes too)
    gltf.scene.traverse((o: Object3D) => {
      if ((o as Mesh).isMesh && o.parent?.name === 'sheet') meshes.push(o as Mesh);
    });
    expect(meshes.length).toBe(clips(doc, 'sheet').length);
    const mixer = new AnimationMixer(gltf.scene);
    // play once and hold the last frame (a looping clip wraps to frame 0 at its end)
    mixer.clipAction(gltf.animations[0]).setLoop(LoopOnce, 1).play().clampWhenFinished = true;
    const frs = glbFrames(doc, 'sheet');
    for (const f of [0, 3, frames - 1]) {
      mixer.setTime(f / 60 + 1e-4);
      gltf.scene.updateMatrixWorld(true);
      // clips hang under the body node (scale 1): a clip is shown when its own scale is 1
      const shown = meshes.filter((m) => m.scale.x > 0);
      expect(shown.length).toBe(1);
      const m = shown[0];
      const pos = m.geometry.getAttribute('position');
      expect(pos.count).toBe(frs[f].positions.length / 3);
      // the displayed vertex 0 = base + Σ influence × delta
      const infl = m.morphTargetInfluences ?? [];
      const morphs = m.geometry.morphAttributes.position ?? [];
      let x = pos.getX(pos.count - 1);
      infl.forEach((w, j) => {
        x += w * morphs[j].getX(pos.count - 1);
      });
      expect(x).toBeCloseTo(frs[f].positions[3 * (pos.count - 1)], 6);
    }
  });
});

describe('pbdkit simulate → OBJ, CSV and state (a cloth in free fall)', () => {
  const tmp = tempDir();
  // freefall.json: 5 × 3 grid, 1 m × 0.5 m, ρ = 0.2 kg/m² ⇒ M = 0.1 kg; 10 frames × 2 steps × 4 substeps
  const g = 9.81;
  const h = 1 / 60 / 4;
  const M = 0.1;
  let csv: string[][];
  let state: {
    format: string;
    frame: number;
    time: number;
    bodies: {
      name: string;
      vertices: number;
      positions: number[];
      velocities: number[];
      triangles: number[];
    }[];
  };
  let run: ReturnType<typeof pbdkit>;

  beforeAll(() => {
    run = pbdkit([
      'simulate',
      freefall,
      '--out',
      join(tmp.dir, 'frames'), // a new name without an extension is a folder, as 'frames/' would be
      '--stats',
      join(tmp.dir, 'stats.csv'),
      '--export-state',
      join(tmp.dir, 'state.json'),
    ]);
    csv = readFileSync(join(tmp.dir, 'stats.csv'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(','));
    state = JSON.parse(readFileSync(join(tmp.dir, 'state.json'), 'utf8'));
  });
  afterAll(() => tmp.cleanup());

  it('writes one OBJ per body per frame, frame 0 being the initial grid', () => {
    expect(run.code).toBe(0);
    const files = readdirSync(join(tmp.dir, 'frames')).sort();
    expect(files).toEqual(Array.from({ length: 10 }, (_, f) => `square_${String(f).padStart(4, '0')}.obj`));
    const f0 = readObjFrames(join(tmp.dir, 'frames'), 'square')[0];
    expect(f0.positions.length).toBe(15 * 3);
    expect(f0.faces).toBe(16);
    expect(f0.positions.slice(0, 3)).toEqual([-0.5, 2, -0.25]);
    expect(Math.max(...f0.positions.filter((_, k) => k % 3 === 1))).toBe(2);
  });

  it('the last OBJ frame is the exported final state', () => {
    const last = readObjFrames(join(tmp.dir, 'frames'), 'square')[9];
    const p = state.bodies[0].positions;
    expect(last.positions).toEqual(p.map((v) => expect.closeTo(v, 7)));
  });

  it('the CSV has a header and a row per frame with the documented columns', () => {
    expect(csv[0]).toEqual([
      'frame',
      'time',
      'steps',
      'step_ms',
      'step_ms_max',
      'kinetic_energy',
      'max_violation',
      'violation_stretch',
      'violation_dihedral-bending',
      'particles',
      'constraints',
      'contacts',
      'recoveries',
      'speed_clamps',
      'ms_forces',
      'ms_predict',
      'ms_prepare',
      'ms_collision_broad',
      'ms_collision_narrow',
      'ms_solve',
      'ms_project_attachment',
      'ms_project_stretch',
      'ms_project_dihedral-bending',
      'ms_project_cloth-forces',
      'ms_update',
      'ms_finish',
    ]);
    expect(csv.length).toBe(11);
    expect(csv.every((r) => r.length === csv[0].length)).toBe(true);
    const col = (name: string) => csv.slice(1).map((r) => Number(r[csv[0].indexOf(name)]));
    expect(col('frame')).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(col('steps')).toEqual([0, 2, 2, 2, 2, 2, 2, 2, 2, 2]);
    expect(
      col('step_ms')
        .slice(1)
        .every((ms) => ms > 0),
    ).toBe(true);
    expect(col('particles').every((n) => n === 15)).toBe(true);
    expect(col('constraints').every((n) => n === 30 + 18)).toBe(true);
    expect(col('contacts').every((n) => n === 0)).toBe(true);
    expect(col('recoveries').every((n) => n === 0)).toBe(true);
    // where the time goes: the solve is part of the step, each kind's projection part of the solve
    for (let f = 1; f < 10; f++) {
      const at = (name: string) => col(name)[f];
      expect(at('ms_solve')).toBeGreaterThan(0);
      expect(at('ms_solve')).toBeLessThanOrEqual(at('step_ms'));
      expect(at('ms_project_stretch') + at('ms_project_dihedral-bending')).toBeLessThanOrEqual(
        at('ms_solve'),
      );
      expect(at('ms_predict') + at('ms_solve') + at('ms_update')).toBeLessThanOrEqual(at('step_ms'));
    }
  });

  it('kinetic energy is ½ M (g t)² and no constraint is violated: internal constraints leave a free fall alone', () => {
    const t = csv.slice(1).map((r) => Number(r[1]));
    const ke = csv.slice(1).map((r) => Number(r[5]));
    t.forEach((ti, f) => {
      expect(ti).toBeCloseTo((2 * f) / 60, 12);
      const exact = 0.5 * M * (g * ti) ** 2;
      expect(Math.abs(ke[f] - exact)).toBeLessThanOrEqual(1e-9 * Math.max(exact, 1e-12));
    });
    for (const r of csv.slice(1)) for (const c of [6, 7, 8]) expect(Number(r[c])).toBeLessThan(1e-12);
  });

  it('the exported state holds symplectic Euler’s exact free fall: v = −g n h, y = y0 − g h² n(n+1)/2', () => {
    expect(state.format).toBe('pbdkit-export');
    expect(state.frame).toBe(9);
    const b = state.bodies[0];
    expect(b.name).toBe('square');
    expect(b.vertices).toBe(15);
    expect(b.triangles.length).toBe(16 * 3);
    const n = 9 * 2 * 4;
    for (let i = 0; i < 15; i++) {
      expect(b.velocities[3 * i]).toBeCloseTo(0, 12);
      expect(b.velocities[3 * i + 1]).toBeCloseTo(-g * n * h, 10);
      expect(b.positions[3 * i + 1]).toBeCloseTo(2 - (g * h * h * n * (n + 1)) / 2, 10);
    }
  });

  it('--fps sets the animation times; --frames-per-mesh splits long runs into clips shown one at a time', async () => {
    const out = join(tmp.dir, 'ff.glb');
    const r = pbdkit([
      'simulate',
      freefall,
      '--out',
      out,
      '--fps',
      '24',
      '--frames-per-mesh',
      '4',
      '--no-normals',
      '--no-compress',
      '-q',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).toBe('');
    const doc = await new NodeIO().read(out);
    const cs = clips(doc, 'square');
    expect(cs.map((c) => c.start)).toEqual([0, 4, 8]);
    expect(cs.map((c) => c.node.getMesh()!.listPrimitives()[0].listTargets().length)).toEqual([3, 3, 1]);
    expect(cs[0].node.getMesh()!.listPrimitives()[0].getAttribute('NORMAL')).toBeNull();
    const anim = doc.getRoot().listAnimations()[0];
    const weights = anim
      .listChannels()
      .find((c) => c.getTargetNode() === cs[1].node && c.getTargetPath() === 'weights')!;
    expect(floats(weights.getSampler()!.getInput()!).map((t) => t * 24)).toEqual(
      [4, 5, 6, 7].map((k) => expect.closeTo(k, 5)),
    );
    const frs = glbFrames(doc, 'square');
    expect(frs.length).toBe(10);
    expect(frs[9].positions[1]).toBeCloseTo(state.bodies[0].positions[1], 5);
  });

  it('--strict fails (exit 1) when the speed guard had to act', () => {
    const scene = JSON.parse(readFileSync(freefall, 'utf8'));
    // pins dragged at 20 m/s in a world whose speed limit is 5 m/s
    scene.world.maxSpeed = 5;
    scene.bodies[0].pins = [{ rows: [0], motion: { velocity: [20, 0, 0] } }];
    const file = join(tmp.dir, 'slow.json');
    writeFileSync(file, JSON.stringify(scene));
    const lax = pbdkit(['simulate', file, '--frames', '4', '-q']);
    expect(lax.code).toBe(0);
    expect(lax.stderr).toMatch(/warning: 0 particle recoveries .* and \d+ speed clamps/);
    const strict = pbdkit(['simulate', file, '--frames', '4', '-q', '--strict']);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(/speed clamps\n {2}fix: /);
    expect(stackLines(strict.stderr)).toEqual([]);
  });
});

describe('--strict and energy from nowhere (issue 15, item 8)', () => {
  it('a body that gains kinetic energy no driver could give is a warning, and with --strict exit 1', () => {
    // no NaN recovery and no speed clamp here: only the energy watch sees the blow-up
    const pump = join(fixtures, 'energy-pump.json');
    const lax = pbdkit(['simulate', pump, '-q']);
    expect(lax.code).toBe(0);
    expect(lax.stderr).not.toMatch(/speed clamps/);
    expect(lax.stderr).toMatch(/warning: body 'pumped' gained kinetic energy from nowhere at t = [\d.]+ s/);
    expect(lax.stderr).toMatch(
      /J\/kg that gravity, its start and the scene's drivers could give it\n {2}fix: /,
    );
    const strict = pbdkit(['simulate', pump, '-q', '--strict']);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(/gained kinetic energy from nowhere/);
    expect(stackLines(strict.stderr)).toEqual([]);
  });
});

function existsCheckpoint(dir: string): boolean {
  return readdirSync(dir).some((f) => f.endsWith('.checkpoint'));
}
