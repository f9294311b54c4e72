/**
 * The hierarchical solver (Müller 2008, HPBD; seed 004 "Hierarchical
 * Solver"): coarse levels of a cloth's vertices whose unilateral distance
 * constraints carry corrections across the sheet, one V-cycle per iteration.
 * It converges to Gauss–Seidel's answer, in far fewer iterations.
 */
import { describe, expect, it } from 'vitest';
import { hangingCloth, iterationsToReach } from '../experiments/hpbd.js';
import { PbdError } from '../src/core/errors.js';
import { Cloth, gridMesh, SoftBody, tetBox, World } from '../src/index.js';

describe('hierarchical solver', () => {
  it('builds coarser levels in which every fine vertex has ≥ k parents and every level has the body mass', () => {
    const c = hangingCloth(21, 'hierarchical');
    const h = c.cloth.hierarchy!;
    expect(h.levels).toBeGreaterThanOrEqual(2);
    const mass = c.cloth.positions().length / 3; // vertices
    let total = 0;
    for (let i = 0; i < mass; i++) total += c.world.store.mass[c.cloth.offset + i];
    for (let l = 1; l <= h.levels; l++) {
      expect(h.levelSizes[l]).toBeLessThan(h.levelSizes[l - 1]);
      expect(h.fewestParents(l)).toBeGreaterThanOrEqual(2);
      expect(h.levelMass(l)).toBeCloseTo(total, 12);
    }
    for (const k of [1, 3]) {
      const world = new World();
      const cloth = new Cloth(world, {
        mesh: gridMesh({ width: 1, height: 1, cols: 15, rows: 15 }),
        hierarchy: { parents: k },
      });
      expect(cloth.hierarchy!.fewestParents(1)).toBeGreaterThanOrEqual(k);
    }
  });

  it("converges to Gauss–Seidel's answer on a static problem (1e-6): the stretched sheet back to its rest shape", () => {
    const gs = hangingCloth(11, 'gauss-seidel');
    const hier = hangingCloth(11, 'hierarchical');
    gs.reset();
    gs.solve(6000);
    hier.reset();
    hier.solve(6000);
    const a = gs.cloth.positions();
    const b = hier.cloth.positions();
    const rest = hier.cloth.restPositions;
    let diff = 0;
    let offRest = 0;
    for (let k = 0; k < a.length; k++) {
      diff = Math.max(diff, Math.abs(a[k] - b[k]));
      offRest = Math.max(offRest, Math.abs(b[k] - rest[k]));
    }
    expect(gs.error()).toBeLessThan(1e-7);
    expect(hier.error()).toBeLessThan(1e-7);
    expect(diff).toBeLessThan(1e-6);
    expect(offRest).toBeLessThan(1e-6); // the sheet pinned along a straight edge has one rest state in its plane
  });

  it('needs far fewer iterations than Gauss–Seidel to reach 1 % mean edge error (21 × 21)', () => {
    const gs = iterationsToReach(hangingCloth(21, 'gauss-seidel'), 0.01, 4096);
    const hier = iterationsToReach(hangingCloth(21, 'hierarchical'), 0.01, 4096);
    expect(gs).not.toBeNull();
    expect(hier).not.toBeNull();
    expect(hier!.n * 3).toBeLessThan(gs!.n);
  });

  it('never moves a pinned vertex, and a falling cloth with it stays finite and unstretched', () => {
    const world = new World({ substeps: 5, iterations: 2 });
    const cloth = new Cloth(world, {
      mesh: gridMesh({ width: 1, height: 1, cols: 21, rows: 21 }),
      density: 0.1,
      stretch: { compliance: 0 },
      hierarchy: true,
    });
    for (let c = 0; c < 21; c++) cloth.pin(c);
    const pinned = cloth.positions().slice(0, 63);
    for (let k = 0; k < 90; k++) world.step();
    expect(Array.from(cloth.positions().slice(0, 63))).toEqual(Array.from(pinned));
    expect(world.stats.recoveries).toBe(0);
    expect(world.stats.speedClamps).toBe(0);
    expect(cloth.positions().every(Number.isFinite)).toBe(true);
    expect(cloth.stretch.maxViolation!(world.store)).toBeLessThan(0.01);
  });

  it('works on a tet mesh: a hanging bar of hard edges started at 110 % length reaches 1 % in far fewer iterations', () => {
    const error = (hierarchy: boolean, iterations: number) => {
      const world = new World({ dt: 1 / 60, substeps: 1, iterations });
      const body = new SoftBody(world, {
        model: 'geometric',
        mesh: tetBox({ size: [0.2, 2, 0.2], resolution: [2, 20, 2] }),
        edges: { compliance: 0 },
        volume: { compliance: 1e-6 },
        hierarchy,
      });
      const r = body.restPositions;
      let top = -Infinity;
      for (let i = 0; i < body.count; i++) top = Math.max(top, r[3 * i + 1]);
      for (let i = 0; i < body.count; i++) if (r[3 * i + 1] > top - 1e-9) body.pin(i);
      const x = world.store.x;
      for (let i = body.offset; i < body.offset + body.count; i++)
        x[3 * i + 1] = top + (x[3 * i + 1] - top) * 1.1;
      world.step();
      const e = body.edges!;
      let sum = 0;
      for (let c = 0; c < e.rest.length; c++) {
        const a = 3 * e.indices[2 * c];
        const b = 3 * e.indices[2 * c + 1];
        sum += Math.abs(Math.hypot(x[a] - x[b], x[a + 1] - x[b + 1], x[a + 2] - x[b + 2]) / e.rest[c] - 1);
      }
      expect(world.stats.recoveries).toBe(0);
      return { mean: sum / e.rest.length, levels: body.hierarchy?.levels ?? 0 };
    };
    const gs = error(false, 32);
    const hier = error(true, 32);
    expect(hier.levels).toBeGreaterThanOrEqual(2);
    expect(hier.mean).toBeLessThan(0.01);
    expect(gs.mean).toBeGreaterThan(0.01);
    expect(hier.mean * 5).toBeLessThan(gs.mean);
  });

  it('rejects tearing and bad options, naming the field', () => {
    const mesh = gridMesh({ width: 1, height: 1, cols: 5, rows: 5 });
    expect(() => new Cloth(new World(), { mesh, hierarchy: true, tear: { threshold: 1.5 } })).toThrow(
      /cloth\.hierarchy/,
    );
    expect(() => new Cloth(new World(), { mesh, hierarchy: { parents: 0 } })).toThrow(PbdError);
    expect(() => new Cloth(new World(), { mesh, hierarchy: { maxLevels: 0 } })).toThrow(/maxLevels/);
  });
});
