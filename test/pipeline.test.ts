/**
 * The step as a pipeline of stages (core/pipeline.ts, core/stages.ts): the
 * stages' order, a family's own stage, and the contract a parallel scheduler
 * relies on — data-parallel stages split into ranges, and colour batches
 * split into ranges projected in any order, give the serial results bit for bit.
 */
import { describe, expect, it } from 'vitest';
import { loadShippedScene } from '../scripts/shipped-scenes.js';
import type { ConstraintSet, StepContext } from '../src/core/constraint-set.js';
import { PbdError } from '../src/core/errors.js';
import { PHASES, type Scheduler, SerialScheduler, type Stage } from '../src/core/pipeline.js';
import { World } from '../src/core/world.js';
import { Cloth, gridMesh } from '../src/index.js';
import { rng } from './helpers.js';

/**
 * A stand-in for a parallel scheduler, on one thread: data-parallel stages
 * run as chunks of 7 items, last chunk first; every colour batch of a set
 * that exposes them is cut into chunks of 1–8 constraints, projected in a
 * shuffled order. Results must equal the serial scheduler's.
 */
class ChunkedScheduler implements Scheduler {
  /** Stages run in ranges, and projections done by colour ranges (to check the test exercised them). */
  rangeStages = new Set<string>();
  rangeSets = new Set<string>();
  private readonly random = rng(7);
  private readonly chunks: number[] = [];

  run(stage: Stage, ctx: StepContext): void {
    if (stage.items && stage.runRange) {
      const n = stage.items(ctx);
      for (let hi = n; hi > 0; hi -= 7) stage.runRange(ctx, Math.max(0, hi - 7), hi);
      this.rangeStages.add(stage.name);
    } else {
      stage.run(ctx, this);
    }
  }

  project(set: ConstraintSet, ctx: StepContext): void {
    const off = set.colorOffsets;
    const nc = set.colors ?? 0;
    if (!set.projectColorRange || !off || nc === 0) {
      set.project(ctx);
      return;
    }
    for (let k = 0; k < nc; k++) {
      const c = ctx.reverse ? nc - 1 - k : k;
      const chunks = this.chunks;
      chunks.length = 0;
      for (let a = off[c]; a < off[c + 1]; ) {
        const b = Math.min(off[c + 1], a + 1 + Math.floor(this.random() * 8));
        chunks.push(a, b);
        a = b;
      }
      // a random permutation of the chunks (Fisher–Yates on pairs)
      for (let i = chunks.length / 2 - 1; i > 0; i--) {
        const j = Math.floor(this.random() * (i + 1));
        const a0 = chunks[2 * i],
          a1 = chunks[2 * i + 1];
        chunks[2 * i] = chunks[2 * j];
        chunks[2 * i + 1] = chunks[2 * j + 1];
        chunks[2 * j] = a0;
        chunks[2 * j + 1] = a1;
      }
      for (let i = 0; i < chunks.length; i += 2) set.projectColorRange(ctx, c, chunks[i], chunks[i + 1]);
    }
    this.rangeSets.add(set.kind);
  }
}

const scene = (name: string): World => loadShippedScene(name).world;

function sameBits(a: Float64Array, b: Float64Array): boolean {
  return (
    Buffer.compare(
      Buffer.from(a.buffer, a.byteOffset, a.byteLength),
      Buffer.from(b.buffer, b.byteOffset, b.byteLength),
    ) === 0
  );
}

describe('the step pipeline', () => {
  it('runs the stages of Algorithm 1 in phase order, each declaring what it reads and writes', () => {
    const world = new World();
    expect(world.pipeline.stages.map((s) => `${s.phase}:${s.name}`)).toEqual([
      'begin:colliders.move',
      'forces:sets.applyForces',
      'forces:sets.dampVelocities',
      'predict:particles.predict',
      'predict:orientations.predict',
      'predict:rigids.predict',
      'prepare:sets.beginStep',
      'solve:sets.project',
      'update:particles.update',
      'update:orientations.update',
      'update:rigids.update',
      'finish:sets.endStep',
    ]);
    for (const s of world.pipeline.stages) {
      expect(PHASES).toContain(s.phase);
      expect(s.writes.length).toBeGreaterThan(0);
      for (const w of s.writes) expect(w).toMatch(/^[a-z]+(\.[a-zA-Z]+)?$/);
    }
  });

  it("runs a family's stage at its place: a predict-phase stage sees p = x + h v, an update-phase one v = (p − x)/h", () => {
    const world = new World({ dt: 1 / 60, substeps: 4 });
    const cloth = new Cloth(world, {
      mesh: gridMesh({ width: 1, height: 1, cols: 4, rows: 4 }),
      density: 0.1,
      stretch: { compliance: 0 },
    });
    cloth.pin(0);
    const seen = { predicted: 0, updated: 0, worst: 0 };
    // before the prediction this stage would see p from the last substep; after the update, x = p
    world.addStage({
      name: 'test.after-predict',
      phase: 'predict',
      order: 10,
      reads: ['particles.x', 'particles.p', 'particles.v'],
      writes: ['test.log'],
      run(ctx) {
        const { x, p, v, count } = ctx.store;
        for (let i = 0; i < 3 * count; i++)
          seen.worst = Math.max(seen.worst, Math.abs(p[i] - (x[i] + ctx.h * v[i])));
        seen.predicted++;
      },
    });
    world.addStage({
      name: 'test.after-update',
      phase: 'update',
      order: 10,
      reads: ['particles.x', 'particles.p', 'particles.v'],
      writes: ['test.log'],
      run(ctx) {
        const { x, p, count } = ctx.store;
        for (let i = 0; i < 3 * count; i++) seen.worst = Math.max(seen.worst, Math.abs(p[i] - x[i]));
        seen.updated++;
      },
    });
    for (let k = 0; k < 3; k++) world.step();
    expect(seen.predicted).toBe(12);
    expect(seen.updated).toBe(12);
    expect(seen.worst).toBe(0);
    expect(() => world.addStage({ ...world.pipeline.stages[0] })).toThrow(PbdError);
  });

  it("world.timings: every stage and every set's projection and hooks of the last step, the sets' shares inside their stage", () => {
    const w = scene('cloth-drape');
    for (let k = 0; k < 3; k++) w.step();
    const t = w.timings.lastStep();
    for (const label of [
      'particles.predict',
      'sets.project',
      'particles.update',
      'project:stretch',
      'project:dihedral-bending',
    ])
      expect(t[label], label).toBeGreaterThan(0);
    let projections = 0;
    for (const [label, ms] of Object.entries(t)) {
      expect(ms, label).toBeGreaterThanOrEqual(0);
      if (label.startsWith('project:')) projections += ms;
    }
    // the projections are timed inside the projection stage (chained clock readings, no gap counted twice)
    expect(projections).toBeLessThanOrEqual(t['sets.project'] + 1e-9);
    expect(projections).toBeGreaterThan(0.5 * t['sets.project']);
  });

  it('a parallel-style scheduler (ranges of particles, shuffled ranges of each colour) gives the serial results bit for bit', () => {
    const scenes: [string, string[]][] = [
      ['cloth-drape', ['stretch', 'dihedral-bending']],
      ['continuum-cloth-drape', ['fem-triangle', 'isometric-bending']],
      ['continuum-jelly', ['fem-tet', 'tet-volume', 'softbody-edge']],
      ['shape-matching-ellipsoids', ['oriented-shape-matching']],
    ];
    for (const [name, kinds] of scenes) {
      const a = scene(name);
      const b = scene(name);
      const chunked = new ChunkedScheduler();
      b.scheduler = chunked;
      expect(a.scheduler).toBeInstanceOf(SerialScheduler);
      for (let k = 0; k < 12; k++) {
        a.step();
        b.step();
      }
      const n = a.store.count;
      expect(sameBits(a.store.x.subarray(0, 3 * n), b.store.x.subarray(0, 3 * n)), name).toBe(true);
      expect(sameBits(a.store.v.subarray(0, 3 * n), b.store.v.subarray(0, 3 * n)), name).toBe(true);
      expect(chunked.rangeStages).toContain('particles.predict');
      expect(chunked.rangeStages).toContain('particles.update');
      expect(chunked.rangeStages).toContain('rigids.predict');
      for (const kind of kinds) expect(chunked.rangeSets, `${name}: ${kind}`).toContain(kind);
      // and the scene moved: the comparison is not of two resting states
      expect(a.kineticEnergy(), name).toBeGreaterThan(0);
    }
  });

  it('the rigid stages split into ranges give the serial poses bit for bit', () => {
    const build = (): World => {
      const w = new World({ dt: 1 / 60, substeps: 5, damping: 0.3 });
      const r = rng(3);
      for (let k = 0; k < 30; k++) {
        w.rigids.add({
          mass: 0.5 + r(),
          inertia: [0.1 + r(), 0.1 + r(), 0.1 + r()],
          position: [r(), r(), r()],
          velocity: [r() - 0.5, 3 * r(), r() - 0.5],
          angularVelocity: [5 * r(), 5 * r() - 2, r()],
        });
      }
      return w;
    };
    const a = build(),
      b = build();
    b.scheduler = new ChunkedScheduler();
    for (let k = 0; k < 20; k++) {
      a.step();
      b.step();
    }
    const sa = a.rigids.saveState(),
      sb = b.rigids.saveState();
    for (const key of ['x', 'q', 'v', 'omega'] as const) expect(sameBits(sa[key], sb[key]), key).toBe(true);
  });
});
