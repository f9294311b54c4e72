/**
 * Render meshes in the exports: a body whose rendered surface is not its
 * particles — a soft body's embedded mesh (002 §5), a lattice body's or a
 * rigid cluster's skinned mesh, oriented particles skinning a mesh (000
 * §4.4) — is written to glb and OBJ as that mesh, frame by frame, and every
 * scene in scenes/ exports what `Body.renderPositions()/renderTriangles()`
 * give.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Document, NodeIO } from '@gltf-transform/core';
import validator from 'gltf-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bake } from '../src/node/index.js';
import { scenes, simulate, tempDir } from './cli-helpers.js';
import { renderMeshScene } from './helpers/scenes.js';

interface ExportedBody {
  name: string;
  type: string;
  vertices: number;
  positions: number[];
  renderPositions?: number[];
  triangles: number[];
}

/**
 * Positions and triangle count of every frame of a body node (base mesh +
 * morph targets of each clip); `occurrence` picks among bodies of the same
 * name.
 */
function glbFrames(
  doc: Document,
  body: string,
  occurrence = 0,
): { positions: Float32Array; triangles: number }[] {
  const parent = doc
    .getRoot()
    .listScenes()[0]
    .listChildren()
    .filter((n) => n.getName() === body)[occurrence];
  if (!parent) throw new Error(`no node ${body}`);
  const out: { positions: Float32Array; triangles: number }[] = [];
  for (const node of parent.listChildren()) {
    const prim = node.getMesh()!.listPrimitives()[0];
    const base = prim.getAttribute('POSITION')!.getArray() as Float32Array;
    const indices = prim.getIndices();
    const triangles = indices ? indices.getCount() / 3 : 0;
    out.push({ positions: base, triangles });
    for (const target of prim.listTargets()) {
      const d = target.getAttribute('POSITION')!.getArray() as Float32Array;
      out.push({ positions: base.map((b, k) => b + d[k]), triangles });
    }
  }
  return out;
}

function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let k = 0; k < a.length; k++) m = Math.max(m, Math.abs(a[k] - b[k]));
  return m;
}

function meanY(p: ArrayLike<number>): number {
  let s = 0;
  for (let k = 1; k < p.length; k += 3) s += p[k];
  return (3 * s) / p.length;
}

const scene = renderMeshScene([
  {
    type: 'rigid-cluster',
    name: 'ball',
    mesh: { icosphere: { radius: 0.1, subdivisions: 2 } },
    spacing: 0.05,
    transform: { translate: [-1, 0.5, 0] },
    angularVelocity: [0, 0, 3],
  },
  {
    type: 'oriented-particles',
    name: 'fish',
    structure: {
      fit: { mesh: { duck: { size: 0.2 } }, transform: { translate: [0, 0.5, 1] }, particles: 8 },
    },
  },
]);
const names = scene.bodies.map((b) => b.name);

describe('pbdkit simulate exports render meshes (soft body, lattice, rigid cluster, oriented particles)', () => {
  const tmp = tempDir();
  const frames = 8;
  let doc: Document;
  let glb: Uint8Array;
  let state: { bodies: ExportedBody[] };

  beforeAll(async () => {
    const file = join(tmp.dir, 'render.json');
    writeFileSync(file, JSON.stringify(scene));
    const glbRun = simulate(
      file,
      frames,
      join(tmp.dir, 'render.glb'),
      '--no-compress',
      '--export-state',
      join(tmp.dir, 'state.json'),
      '-q',
    );
    expect(glbRun.stderr).toBe('');
    expect(glbRun.code).toBe(0);
    const objRun = simulate(file, frames, join(tmp.dir, 'obj/'), '-q');
    expect(objRun.code).toBe(0);
    glb = new Uint8Array(readFileSync(join(tmp.dir, 'render.glb')));
    doc = await new NodeIO().readBinary(glb);
    state = JSON.parse(readFileSync(join(tmp.dir, 'state.json'), 'utf8'));
  });
  afterAll(() => tmp.cleanup());

  it('every body exports its render mesh, not its particles', () => {
    expect(state.bodies.map((b) => b.name)).toEqual(names);
    for (const b of state.bodies) {
      expect(b.renderPositions, b.name).toBeDefined();
      expect(b.triangles.length, b.name).toBeGreaterThan(0);
      expect(b.renderPositions!.length / 3, b.name).not.toBe(b.vertices);
      expect(Math.max(...b.triangles), b.name).toBe(b.renderPositions!.length / 3 - 1);
    }
  });

  it('the glb holds each render mesh at every frame; the last frame is the exported render state', () => {
    for (const b of state.bodies) {
      const frs = glbFrames(doc, b.name);
      expect(frs.length).toBe(frames);
      for (const f of frs) {
        expect(f.positions.length).toBe(b.renderPositions!.length);
        expect(f.triangles).toBe(b.triangles.length / 3);
      }
      // float32 positions and morph deltas
      expect(maxDiff(frs[frames - 1].positions, b.renderPositions!), b.name).toBeLessThan(1e-6);
      // the meshes fall with their bodies
      expect(meanY(frs[frames - 1].positions), b.name).toBeLessThan(meanY(frs[0].positions) - 0.01);
    }
  });

  it('the rigid cluster’s mesh turns with it and keeps its shape (distances to float precision)', () => {
    const b = state.bodies.find((x) => x.name === 'ball')!;
    const [first] = glbFrames(doc, 'ball');
    const last = b.renderPositions!;
    const d = (p: ArrayLike<number>, i: number, j: number) =>
      Math.hypot(p[3 * i] - p[3 * j], p[3 * i + 1] - p[3 * j + 1], p[3 * i + 2] - p[3 * j + 2]);
    const n = last.length / 3;
    let worst = 0;
    for (let i = 0; i < n; i += 7)
      worst = Math.max(worst, Math.abs(d(last, i, 0) - d(first.positions, i, 0)));
    expect(worst).toBeLessThan(1e-6);
    // it spun about z at 3 rad/s for 7/60 s: vertex 0 turned by about 0.35 rad about the centre
    const c0 = [0, 0, 0],
      c1 = [0, 0, 0];
    for (let i = 0; i < n; i++)
      for (let k = 0; k < 3; k++) {
        c0[k] += first.positions[3 * i + k] / n;
        c1[k] += last[3 * i + k] / n;
      }
    const a0 = Math.atan2(first.positions[1] - c0[1], first.positions[0] - c0[0]);
    const a1 = Math.atan2(last[1] - c1[1], last[0] - c1[0]);
    expect(a1 - a0).toBeCloseTo((3 * (frames - 1)) / 60, 2);
  });

  it('OBJ frames hold the same render meshes', () => {
    for (const b of state.bodies) {
      const files = readdirSync(join(tmp.dir, 'obj'))
        .filter((f) => f.startsWith(`${b.name}_`))
        .sort();
      expect(files.length).toBe(frames);
      const lines = readFileSync(join(tmp.dir, 'obj', files.at(-1)!), 'utf8').split('\n');
      const v = lines.filter((l) => l.startsWith('v ')).flatMap((l) => l.split(' ').slice(1).map(Number));
      expect(lines.filter((l) => l.startsWith('f ')).length).toBe(b.triangles.length / 3);
      expect(maxDiff(v, b.renderPositions!)).toBeLessThan(1e-7);
    }
  });

  it('passes the Khronos glTF validator with no error and no warning', async () => {
    const report = await validator.validateBytes(glb);
    expect(report.issues.numErrors).toBe(0);
    expect(report.issues.numWarnings).toBe(0);
  });
});

/** Bodies with a render mesh of their own in some of the scenes (embedded in tets, or skinned). */
const renderMeshBodies: Record<string, number> = {
  'continuum-bunny-drop.json': 1,
  'continuum-funnel.json': 4,
  'continuum-plastic-sphere.json': 1,
  'continuum-recovery.json': 2,
  'shape-matching-ducks.json': 6,
  'shape-matching-ellipsoids.json': 2,
  'shape-matching-plastic.json': 5,
  'shape-matching-regions.json': 3,
  'cloth-drape.json': 0,
};

describe('every scene exports what its bodies render', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());
  const files = readdirSync(scenes)
    .filter((f) => f.endsWith('.json'))
    .sort();

  for (const f of files) {
    it(`${f}: the glb's last frame is renderPositions() / renderTriangles() of every body`, async () => {
      const out = join(tmp.dir, f.replace(/\.json$/, '.glb'));
      const stateFile = join(tmp.dir, f.replace(/\.json$/, '.state.json'));
      const r = await bake({
        scene: join(scenes, f),
        frames: 2,
        out,
        exportState: stateFile,
        checkpointEvery: 0,
        compress: false, // float positions, compared exactly below
      });
      expect(r.status).toBe('complete');
      const doc = await new NodeIO().read(out);
      const state: { bodies: ExportedBody[] } = JSON.parse(readFileSync(stateFile, 'utf8'));
      if (f in renderMeshBodies)
        expect(state.bodies.filter((b) => b.renderPositions).length).toBe(renderMeshBodies[f]);
      const seen = new Map<string, number>();
      for (const b of state.bodies) {
        const occurrence = seen.get(b.name) ?? 0;
        seen.set(b.name, occurrence + 1);
        if (b.triangles.length === 0) continue; // drawn as particles
        const last = glbFrames(doc, b.name, occurrence).at(-1)!;
        const expected = b.renderPositions ?? b.positions;
        expect(last.triangles, `${f}: ${b.name}`).toBe(b.triangles.length / 3);
        expect(maxDiff(last.positions, expected), `${f}: ${b.name}`).toBeLessThan(1e-5);
      }
    });
  }
});
