import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadScene } from '../src/index.js';
import { describeError, SimCore } from '../web/src/sim/core.js';
import { renderMeshScene } from './helpers/scenes.js';

const read = (name: string) => readFileSync(new URL(`../scenes/${name}`, import.meta.url), 'utf8');

describe('the gallery simulation core (what runs in the worker)', () => {
  it('steps exactly like World.step: bitwise-identical states', () => {
    const text = read('cloth-drape.json');
    const core = new SimCore();
    core.load(text, 'cloth-drape.json', {}, false);
    const ref = loadScene(text, { file: 'cloth-drape.json' }).world;
    core.step(7);
    core.step(5, 0);
    for (let k = 0; k < 12; k++) ref.step();
    expect(Array.from(core.world.store.x)).toEqual(Array.from(ref.store.x));
    expect(Array.from(core.world.store.v)).toEqual(Array.from(ref.store.v));
  });

  it('is deterministic with mouse input: the same drags give the same states', () => {
    const text = read('cloth-flag.json');
    const run = () => {
      const core = new SimCore();
      core.load(text, 'cloth-flag.json', {}, false);
      core.step(10);
      const i = 400;
      expect(core.grabParticle(i, [1, 1.2, 0.2], 1e-3)).toBe(true);
      core.step(3);
      core.dragTo([1.2, 1.6, 0.5]);
      core.step(6);
      const f = core.step(1);
      expect(f.grabbed).toBe(i);
      core.releaseParticle();
      core.step(4);
      return Array.from(core.world.store.x.subarray(0, 3 * core.world.store.count));
    };
    expect(run()).toEqual(run());
  });

  it('a drag pulls the particle toward the cursor, and a release keeps its velocity (a throw)', () => {
    const core = new SimCore();
    core.load(read('cloth-flag.json'), 'cloth-flag.json', {}, false);
    core.step(30);
    const i = 21 * 36 + 35; // the free bottom corner
    const x = core.world.store.x;
    const target: [number, number, number] = [x[3 * i] + 0.3, x[3 * i + 1] + 0.4, x[3 * i + 2] + 0.2];
    const d0 = Math.hypot(x[3 * i] - target[0], x[3 * i + 1] - target[1], x[3 * i + 2] - target[2]);
    core.grabParticle(i, [x[3 * i], x[3 * i + 1], x[3 * i + 2]], 1e-4);
    core.dragTo(target);
    core.step(30);
    const d1 = Math.hypot(x[3 * i] - target[0], x[3 * i + 1] - target[1], x[3 * i + 2] - target[2]);
    expect(d1).toBeLessThan(0.2 * d0);
    // fling it and let go: it keeps moving
    core.dragTo([target[0] + 1, target[1], target[2]]);
    core.step(1);
    core.releaseParticle();
    expect(core.world.store.v[3 * i]).toBeGreaterThan(1);
    expect(core.step(1).grabbed).toBe(-1);
  });

  it('does not grab pinned particles', () => {
    const core = new SimCore();
    core.load(read('cloth-flag.json'), 'cloth-flag.json', {}, false);
    expect(core.world.store.invMass[0]).toBe(0); // corner [0, 0] is pinned
    expect(core.grabParticle(0, [0, 1.5, 0], 1e-3)).toBe(false);
    expect(core.step(1).grabbed).toBe(-1);
  });

  it('settings survive a reset, which restarts from the scene file', () => {
    const core = new SimCore();
    const info0 = core.load(read('cloth-drape.json'), 'cloth-drape.json', {}, false);
    const x0 = Array.from(core.world.store.x.subarray(0, 3 * info0.store.count));
    core.configureWorld({ gravity: [0, -20, 0], substeps: 4 });
    core.setTunable(0, 'bend.compliance', 0.5);
    core.step(10);
    const info = core.reset();
    expect(info.world.gravity).toEqual([0, -20, 0]);
    expect(info.world.substeps).toBe(4);
    expect(info.bodies[0].tunables.find((t) => t.name === 'bend.compliance')?.value).toBe(0.5);
    expect(info.frame.time).toBe(0);
    expect(Array.from(core.world.store.x.subarray(0, 3 * info.store.count))).toEqual(x0);
    expect(() => core.setTunable(0, 'bend.compliance', -1)).toThrow(/bend\.compliance.*must lie in/);
    expect(() => core.configureWorld({ substeps: 0 })).toThrow(/substeps/);
  });

  it('reports torn topology, new pair constraints and counts in its frames', () => {
    // a curtain held along its top and bottom edges, which a kinematic ball has to rip through
    const scene = {
      title: 'rip',
      family: 'cloth',
      bodies: [
        {
          type: 'cloth',
          mesh: { grid: { width: 1, height: 1, cols: 16, rows: 16, plane: 'xy' } },
          transform: { translate: [0, 1.5, 0] },
          tear: { threshold: 1.3, maxNewVertices: 200 },
          pins: [{ rows: [0, 15] }],
        },
      ],
      colliders: [{ type: 'sphere', radius: 0.15, position: [0, 1, -0.4], motion: { velocity: [0, 0, 2] } }],
    };
    const core = new SimCore();
    const info = core.load(JSON.stringify(scene), 'rip.json', {}, false);
    expect(info.pairSets.map((s) => s.kind)).toContain('stretch');
    expect(info.bodies[0].triangles.length).toBe(2 * 15 * 15 * 3);
    let topology = 0;
    let pairs = 0;
    for (let k = 0; k < 120 && topology === 0; k++) {
      const f = core.step(1);
      expect(f.nonFinite).toBe(0);
      topology += f.topology.length;
      if (f.pairSets) pairs++;
      if (f.topology.length) {
        expect(f.topology[0].triangles).toEqual(core.world.bodies[0].renderTriangles());
        expect(f.activeCounts[0]).toBeGreaterThan(info.bodies[0].activeCount);
        expect(f.colliderPoses[2]).toBeGreaterThan(-0.4); // the ball's pose moves with it
      }
    }
    expect(topology).toBeGreaterThan(0);
    expect(pairs).toBeGreaterThan(0);
  });

  it('shares the particle arrays when asked (SharedArrayBuffer)', () => {
    const core = new SimCore();
    const info = core.load(read('cloth-bag.json'), 'cloth-bag.json', {}, true);
    expect(info.store.x.buffer).toBeInstanceOf(SharedArrayBuffer);
    core.step(2);
    expect(info.store.x).toBe(core.world.store.x); // the page reads the simulated positions in place
  });

  it('render meshes: read in place on shared memory, refreshed after each batch, equal to Body.renderPositions()', () => {
    const scene = renderMeshScene([
      { type: 'cloth', mesh: { grid: { width: 0.5, height: 0.5, cols: 4, rows: 4 } } },
    ]);
    const text = JSON.stringify(scene);
    const core = new SimCore();
    const info = core.load(text, 'render.json', {}, true);
    const ref = loadScene(text, { file: 'render.json' });
    const [soft, duck, cloth] = info.bodies;
    for (const [b, k] of [
      [soft, 0],
      [duck, 1],
    ] as const) {
      expect(b.renderPositions).not.toBeNull();
      expect(b.renderPositions!.buffer).toBeInstanceOf(SharedArrayBuffer);
      // the body's own array: the worker writes it, the page reads it, nothing is copied
      expect(b.renderPositions).toBe(core.world.bodies[k].renderPositions());
      expect(b.renderPositions!.length / 3).toBeGreaterThan(b.count);
      expect(Array.from(b.triangles)).toEqual(Array.from(ref.world.bodies[k].renderTriangles()));
    }
    expect(cloth.renderPositions).toBeNull();
    const y0 = soft.renderPositions![1];
    const f = core.step(12);
    for (let s = 0; s < 12; s++) ref.world.step();
    expect(f.renderPositions).toEqual([]); // same arrays, nothing to resend
    expect(Array.from(soft.renderPositions!)).toEqual(Array.from(ref.world.bodies[0].renderPositions()));
    expect(Array.from(duck.renderPositions!)).toEqual(Array.from(ref.world.bodies[1].renderPositions()));
    expect(soft.renderPositions![1]).toBeLessThan(y0 - 0.01); // it fell, and the page sees it

    // a body whose render array is not on shared memory is mirrored into a shared copy,
    // sent once, and refreshed after every batch
    const body = core.world.bodies[0];
    const own = new Float64Array(body.renderPositions());
    body.renderPositions = () => own;
    own[0] = 42;
    const g = core.step(1);
    expect(g.renderPositions.map((r) => r.body)).toEqual([0]);
    const copy = g.renderPositions[0].positions;
    expect(copy.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(copy[0]).toBe(42);
    own[0] = 43;
    expect(core.step(1).renderPositions).toEqual([]);
    expect(copy[0]).toBe(43);
  });

  it('load errors carry every issue with its JSON path', () => {
    const core = new SimCore();
    const bad = JSON.stringify({
      title: 'bad',
      family: 'cloth',
      bodies: [{ type: 'cloth', mesh: { grid: { width: 1, height: 1, cols: 1.5, rows: 4 } }, density: -1 }],
    });
    let err: unknown;
    try {
      core.load(bad, 'bad.json', {}, false);
    } catch (e) {
      err = e;
    }
    const d = describeError(err, 'bad.json');
    expect(d.code).toBe('scene/invalid');
    expect(d.issues.map((i) => i.path).sort()).toEqual(['bodies[0].density', 'bodies[0].mesh']);
    const missing = JSON.stringify({
      title: 'm',
      family: 'cloth',
      bodies: [{ type: 'cloth', mesh: { file: 'a.obj' } }],
    });
    try {
      core.load(missing, 'm.json', {}, false);
    } catch (e) {
      err = e;
    }
    expect(describeError(err, 'm.json').issues[0].path).toMatch(/bodies\[0\]\.mesh\.file/);
  });
});
