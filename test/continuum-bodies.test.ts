import { describe, expect, it } from 'vitest';
import {
  bunnyMesh,
  FemCloth,
  gridMesh,
  PlaneCollider,
  SoftBody,
  type SolverKind,
  type TetMesh,
  tetBox,
  tetEnergy,
  tetrahedralize,
  triangleEnergy,
  World,
} from '../src/index.js';
import { rng } from './helpers.js';

const cube = (): TetMesh =>
  tetBox({ size: [0.3, 0.3, 0.3], resolution: [4, 4, 4], origin: [-0.15, 0, -0.15] });

function perturb(x: Float64Array, amount: number, seed: number): void {
  const r = rng(seed);
  for (let k = 0; k < x.length; k++) x[k] += amount * (r() - 0.5);
}

/** Projects only the k-th tet (colour order) of the set, as if it were the set's one constraint. */
function projectOne(
  fem: NonNullable<SoftBody['fem']>,
  ctx: ReturnType<World['makeContext']>,
  k: number,
): void {
  const saved = { idx: fem.indices, B: fem.restShape, V: fem.volume, n: fem.count };
  Object.assign(fem, {
    indices: saved.idx.slice(4 * k, 4 * k + 4),
    restShape: saved.B.slice(9 * k, 9 * k + 9),
    volume: saved.V.slice(k, k + 1),
    count: 1,
  });
  fem.project(ctx);
  Object.assign(fem, { indices: saved.idx, restShape: saved.B, volume: saved.V, count: saved.n });
}

describe('energy constraint projections', () => {
  for (const solver of ['pbd', 'xpbd'] as SolverKind[]) {
    it(`conserve linear and angular momentum of a free, deformed body (${solver})`, () => {
      const w = new World({ solver, gravity: [0, 0, 0], substeps: 4 });
      const b = new SoftBody(w, {
        mesh: cube(),
        material: { model: 'neo-hookean', youngsModulus: 1e5, poissonRatio: 0.4 },
      });
      perturb(b.positions(), 0.06, 1);
      const v = b.velocities();
      const r = rng(2);
      for (let k = 0; k < v.length; k++) v[k] = r() - 0.5;
      const P0 = w.linearMomentum();
      const L0 = w.angularMomentum();
      // each projection conserves linear and angular momentum exactly (003 §3.3): project the
      // constraints one at a time and check both about the state each was evaluated at
      const ctx = w.makeContext();
      const store = w.store;
      const fem = b.fem;
      if (!fem) throw new Error('fem');
      store.p.set(store.x);
      fem.beginStep(ctx);
      let moved = 0;
      for (let k = 0; k < fem.count; k++) {
        const before = store.p.slice();
        projectOne(fem, ctx, k);
        const dP = [0, 0, 0],
          dL = [0, 0, 0];
        let scale = 0;
        for (let i = 0; i < store.count; i++) {
          const m = store.mass[i];
          const d = [0, 1, 2].map((j) => store.p[3 * i + j] - before[3 * i + j]);
          const q = [0, 1, 2].map((j) => before[3 * i + j]);
          scale = Math.max(scale, m * Math.hypot(d[0], d[1], d[2]));
          for (let j = 0; j < 3; j++) dP[j] += m * d[j];
          dL[0] += m * (q[1] * d[2] - q[2] * d[1]);
          dL[1] += m * (q[2] * d[0] - q[0] * d[2]);
          dL[2] += m * (q[0] * d[1] - q[1] * d[0]);
        }
        moved = Math.max(moved, scale);
        for (let j = 0; j < 3; j++) {
          expect(Math.abs(dP[j])).toBeLessThan(1e-12 + 1e-9 * scale);
          expect(Math.abs(dL[j])).toBeLessThan(1e-12 + 1e-9 * scale);
        }
      }
      expect(moved).toBeGreaterThan(1e-5);
      // over whole steps linear momentum stays exact
      store.p.set(store.x);
      for (let s = 0; s < 20; s++) w.step();
      const P1 = w.linearMomentum();
      for (let k = 0; k < 3; k++) expect(P1[k]).toBeCloseTo(P0[k], 10);
      expect(Math.hypot(...w.angularMomentum())).toBeGreaterThan(0.1 * Math.hypot(...L0));
    });
  }

  for (const solver of ['pbd', 'xpbd'] as SolverKind[]) {
    it(`an unloaded body at rest stays at rest (${solver}: StVK and Neo-Hookean tets, membranes, bending)`, () => {
      const w = new World({ solver, gravity: [0, 0, 0] });
      new SoftBody(w, { mesh: cube(), material: { youngsModulus: 1e5, poissonRatio: 0.3 } });
      new SoftBody(w, {
        mesh: tetBox({ size: [0.3, 0.3, 0.3], resolution: [3, 3, 3], origin: [1, 0, 0] }),
        material: { model: 'neo-hookean', youngsModulus: 1e5, poissonRatio: 0.45 },
      });
      new FemCloth(w, {
        mesh: gridMesh({ width: 1, height: 1, cols: 8, rows: 8 }),
        orthotropic: {
          weftModulus: 2000,
          warpModulus: 500,
          shearModulus: 300,
          weftPoisson: 0.3,
          warpPoisson: 0.075,
        },
      });
      new FemCloth(w, {
        mesh: gridMesh({ width: 1, height: 1, cols: 6, rows: 6 }),
        material: { model: 'neo-hookean', youngsModulus: 1e3, poissonRatio: 0.3 },
      });
      const x0 = w.store.x.slice(0, 3 * w.store.count);
      for (let s = 0; s < 120; s++) w.step();
      let d = 0;
      for (let k = 0; k < x0.length; k++) d = Math.max(d, Math.abs(w.store.x[k] - x0[k]));
      expect(d).toBeLessThan(1e-9);
      expect(w.kineticEnergy()).toBeLessThan(1e-15);
    });
  }

  it('the hot loops project exactly what the reference kernels prescribe (plain and inverted elements)', () => {
    const w = new World({ solver: 'pbd', gravity: [0, 0, 0] });
    const b = new SoftBody(w, {
      mesh: tetBox({ size: [1, 1, 1], resolution: [2, 2, 2] }),
      material: { youngsModulus: 1e4, poissonRatio: 0.3 },
    });
    const fem = b.fem;
    if (!fem) throw new Error('fem');
    const x = w.store.x;
    perturb(x, 0.3, 5);
    // invert the corner tet at vertex 0 by pushing the vertex through the opposite face
    x[0] = x[1] = x[2] = 0.75;
    w.store.p.set(x);
    const ctx = w.makeContext();
    fem.beginStep(ctx);
    // project a single constraint by restricting the count: compare with eq. 3 on the reference gradient
    for (let k = 0; k < fem.count; k++) {
      const p = w.store.p;
      const before = p.slice();
      const g = new Float64Array(12);
      const E = fem.elementEnergy(before, k, g);
      let wG = 0;
      const idx = [0, 1, 2, 3].map((j) => fem.indices[4 * k + j]);
      for (let j = 0; j < 4; j++) {
        const gi = g.subarray(3 * j, 3 * j + 3);
        wG += w.store.invMass[idx[j]] * (gi[0] * gi[0] + gi[1] * gi[1] + gi[2] * gi[2]);
      }
      const lambda = -E / wG;
      // run the loop on just this constraint
      projectOne(fem, ctx, k);
      for (let j = 0; j < 4; j++) {
        for (let d = 0; d < 3; d++) {
          const expected = before[3 * idx[j] + d] + w.store.invMass[idx[j]] * g[3 * j + d] * lambda;
          expect(p[3 * idx[j] + d]).toBeCloseTo(expected, 12);
        }
      }
      p.set(before);
    }
    expect(b.invertedTets()).toBeGreaterThan(0);
  });
});

describe('soft body physics', () => {
  it('a Neo-Hookean body with ν = 0.49 keeps its volume within 1 % under load', () => {
    const measure = (poissonRatio: number) => {
      const w = new World({ dt: 1 / 60, substeps: 20, damping: 2 });
      const b = new SoftBody(w, {
        mesh: tetBox({ size: [0.2, 1, 0.2], resolution: [3, 9, 3], origin: [-0.1, -1, -0.1] }),
        material: { model: 'neo-hookean', youngsModulus: 1.5e5, poissonRatio },
      });
      for (let i = 0; i < b.count; i++) if (b.restPositions[3 * i + 1] > -1e-9) b.pin(i);
      const V0 = b.currentVolume();
      let y0 = 0;
      for (let i = 0; i < b.count; i++) y0 = Math.min(y0, b.positions()[3 * i + 1]);
      let worst = 0;
      for (let s = 0; s < 240; s++) {
        w.step();
        worst = Math.max(worst, Math.abs(b.currentVolume() / V0 - 1));
      }
      let y1 = 0;
      for (let i = 0; i < b.count; i++) y1 = Math.min(y1, b.positions()[3 * i + 1]);
      return { worst, stretch: (y0 - y1) / 1 };
    };
    const nh49 = measure(0.49);
    const nh20 = measure(0.2);
    // the load is real: the bar stretches several percent under its own weight
    expect(nh49.stretch).toBeGreaterThan(0.02);
    expect(nh49.worst).toBeLessThan(0.01);
    // and the bound is not trivially met: a compressible material changes volume more
    expect(nh20.worst).toBeGreaterThan(2 * nh49.worst);
  });

  for (const init of ['flattened', 'mirrored'] as const) {
    for (const [model, solver] of [
      ['stvk', 'xpbd'],
      ['stvk', 'pbd'],
      ['neo-hookean', 'xpbd'],
      ['neo-hookean', 'pbd'],
    ] as const) {
      it(`002 Figure 6: a ${init} bunny recovers its rest shape (${model}, ${solver})`, () => {
        const mesh = tetrahedralize(bunnyMesh(0.5), { resolution: 6 }).mesh;
        const w = new World({ dt: 1 / 60, substeps: 10, gravity: [0, 0, 0], damping: 1, solver });
        const b = new SoftBody(w, {
          mesh,
          material: { model, youngsModulus: 1e5, poissonRatio: 0.3 },
          initial: init,
        });
        expect(init === 'flattened' ? Math.abs(b.currentVolume()) : b.invertedTets()).toBe(
          init === 'flattened' ? 0 : b.tets.length / 4,
        );
        let rest = 0;
        for (let k = 0; k < b.tets.length / 4; k++) rest += b.fem?.volume[k] ?? 0;
        const e0 = b.fem?.energy(w.store.x) ?? 0;
        for (let s = 0; s < 300; s++) w.step();
        expect(b.invertedTets()).toBe(0);
        expect(Math.abs(b.currentVolume() / rest - 1)).toBeLessThan(0.01);
        // the elastic energy is gone: what remains is a ringing of strain ~1e-5 (E = 1e5 Pa)
        expect(b.fem?.energy(w.store.x)).toBeLessThan(1e-7 * e0);
        expect(w.stats.recoveries).toBe(0);
      });
    }
  }

  it('plasticity (002 §4.2): a sheared cube keeps a permanent set, bounded by γ_max; below the yield nothing flows', () => {
    const run = (plasticity?: { yield: number; creep: number; max: number }) => {
      const w = new World({ dt: 1 / 60, substeps: 10, gravity: [0, 0, 0], damping: 3 });
      const b = new SoftBody(w, {
        mesh: tetBox({ size: [0.3, 0.3, 0.3], resolution: [4, 4, 4] }),
        material: { youngsModulus: 1e5, poissonRatio: 0.3 },
        plasticity,
      });
      const top: number[] = [];
      for (let i = 0; i < b.count; i++) {
        const y = b.restPositions[3 * i + 1];
        if (y < 1e-9) b.pin(i);
        if (y > 0.3 - 1e-9) top.push(i);
      }
      for (const i of top) b.pin(i);
      // shear: move the top layer sideways for 1 s, hold, release it
      const x = w.store.x;
      for (let s = 0; s < 60; s++) {
        for (const i of top)
          w.attachments.setTarget(
            b.offset + i,
            b.restPositions[3 * i] + (0.15 * (s + 1)) / 60,
            b.restPositions[3 * i + 1],
            b.restPositions[3 * i + 2],
          );
        w.step();
      }
      for (let s = 0; s < 60; s++) w.step();
      for (const i of top) w.attachments.detach(b.offset + i);
      for (let s = 0; s < 240; s++) w.step();
      let shift = 0;
      for (const i of top) shift += (x[3 * (b.offset + i)] - b.restPositions[3 * i]) / top.length;
      return { shift, plastic: b.fem?.maxPlasticStrain() ?? 0 };
    };
    const elastic = run();
    const plastic = run({ yield: 0.01, creep: 2, max: 0.3 });
    const capped = run({ yield: 0.01, creep: 2, max: 0.05 });
    const stiff = run({ yield: 10, creep: 2, max: 1 });
    expect(Math.abs(elastic.shift)).toBeLessThan(0.005);
    expect(plastic.shift).toBeGreaterThan(0.05);
    expect(capped.plastic).toBeLessThanOrEqual(0.05 + 1e-12);
    expect(capped.shift).toBeLessThan(plastic.shift);
    expect(stiff.plastic).toBe(0);
    expect(Math.abs(stiff.shift)).toBeLessThan(0.005);
  });

  it('the geometric soft body (edges + tet volumes, 000 §3.4.4) keeps its volume when dropped', () => {
    const w = new World({ dt: 1 / 60, substeps: 10 });
    w.addCollider(new PlaneCollider({}, 'ground'));
    const mesh = cube();
    for (let i = 1; i < mesh.positions.length; i += 3) mesh.positions[i] += 0.5;
    const b = new SoftBody(w, {
      mesh,
      model: 'geometric',
      edges: { compliance: 1e-6 },
      volume: { compliance: 0 },
    });
    const V0 = b.currentVolume();
    for (let s = 0; s < 90; s++) w.step();
    expect(Math.abs(b.currentVolume() / V0 - 1)).toBeLessThan(0.01);
    let ymin = Infinity;
    for (let i = 0; i < b.count; i++) ymin = Math.min(ymin, b.positions()[3 * i + 1]);
    expect(ymin).toBeGreaterThan(-1e-9);
    expect(ymin).toBeLessThan(0.02);
  });
});

describe('membranes (002 §4.3)', () => {
  /** Stretches a strip 1 m × 0.25 m by 2 % along x; returns the lateral strain at its middle. */
  function lateralStrain(poissonRatio: number): number {
    // many substeps: with few, XPBD's unconverged steady state overestimates the contraction
    // (the Figure 7 experiment measures this against a converged static solve)
    const w = new World({ dt: 1 / 60, substeps: 150, iterations: 1, gravity: [0, 0, 0], damping: 5 });
    const mesh = gridMesh({ width: 1, height: 0.25, cols: 21, rows: 6, plane: 'xy' });
    const c = new FemCloth(w, {
      mesh,
      material: { youngsModulus: 1000, poissonRatio },
      bend: false,
      density: 0.1,
    });
    const x = w.store.x;
    const ends: number[] = [];
    for (let i = 0; i < c.count; i++) {
      const px = c.restPositions[3 * i];
      if (Math.abs(Math.abs(px) - 0.5) < 1e-9) {
        ends.push(i);
        c.pin(i);
        w.attachments.setTarget(
          c.offset + i,
          px * 1.02,
          c.restPositions[3 * i + 1],
          c.restPositions[3 * i + 2],
        );
      }
    }
    for (let s = 0; s < 80; s++) w.step();
    // middle column: vertices with x ≈ 0
    let lo = Infinity,
      hi = -Infinity;
    for (let i = 0; i < c.count; i++) {
      if (Math.abs(c.restPositions[3 * i]) > 1e-9) continue;
      lo = Math.min(lo, x[3 * (c.offset + i) + 1]);
      hi = Math.max(hi, x[3 * (c.offset + i) + 1]);
    }
    expect(ends.length).toBe(12);
    return (hi - lo) / 0.25 - 1;
  }

  it('lateral contraction grows with ν (Figure 7) and matches plane-stress theory, −ν × the axial strain', () => {
    const e = [0.1, 0.3, 0.499].map(lateralStrain);
    expect(e[0]).toBeLessThan(0);
    expect(e[1]).toBeLessThan(e[0]);
    expect(e[2]).toBeLessThan(e[1]);
    // a 4 : 1 strip's middle is close to uniaxial stress: ε_lat ≈ −ν ε_axial (ε_axial = 2 %)
    [0.1, 0.3, 0.499].forEach((nu, k) => {
      expect(e[k] / (-nu * 0.02)).toBeGreaterThan(0.95);
      expect(e[k] / (-nu * 0.02)).toBeLessThan(1.12);
    });
  });

  it('orthotropic cloth (Figure 10): equal forces stretch the soft warp four times more than the stiff weft', () => {
    const w = new World({ dt: 1 / 60, substeps: 20, iterations: 2, gravity: [0, 0, 0], damping: 5 });
    const c = new FemCloth(w, {
      mesh: gridMesh({ width: 0.5, height: 0.5, cols: 11, rows: 11, plane: 'xy' }),
      orthotropic: {
        weftModulus: 4000,
        warpModulus: 1000,
        shearModulus: 500,
        weftPoisson: 0,
        warpPoisson: 0,
      },
      bend: false,
    });
    // pull the +x edge along x and the +y edge along y with soft attachments of the same compliance and offset
    for (let i = 0; i < c.count; i++) {
      const px = c.restPositions[3 * i],
        py = c.restPositions[3 * i + 1];
      if (px < -0.25 + 1e-9 || py < -0.25 + 1e-9) c.pin(i);
    }
    for (let i = 0; i < c.count; i++) {
      const px = c.restPositions[3 * i],
        py = c.restPositions[3 * i + 1];
      if (px > 0.25 - 1e-9 && py > -0.25 + 1e-9) {
        w.attachments.attach(c.offset + i, { target: [px + 1, py, 0], compliance: 50 });
      } else if (py > 0.25 - 1e-9 && px > -0.25 + 1e-9) {
        w.attachments.attach(c.offset + i, { target: [px, py + 1, 0], compliance: 50 });
      }
    }
    for (let s = 0; s < 400; s++) w.step();
    const x = w.store.x;
    // displacement of the middle of the +x edge along x, and of the +y edge along y
    let ux = 0,
      uy = 0;
    for (let i = 0; i < c.count; i++) {
      const px = c.restPositions[3 * i],
        py = c.restPositions[3 * i + 1];
      if (Math.abs(px - 0.25) < 1e-9 && Math.abs(py) < 1e-9) ux = x[3 * (c.offset + i)] - px;
      if (Math.abs(py - 0.25) < 1e-9 && Math.abs(px) < 1e-9) uy = x[3 * (c.offset + i) + 1] - py;
    }
    expect(ux).toBeGreaterThan(0);
    expect(uy / ux).toBeGreaterThan(2.5);
    expect(uy / ux).toBeLessThan(5);
  });
});

describe('isometric bending in a simulation', () => {
  it('a clamped strip droops less as its bending stiffness (1 / compliance) grows', () => {
    const droop = (compliance: number | null) => {
      const w = new World({ dt: 1 / 60, substeps: 20, damping: 3 });
      const c = new FemCloth(w, {
        mesh: gridMesh({ width: 0.4, height: 0.1, cols: 17, rows: 5 }),
        material: { youngsModulus: 2000, poissonRatio: 0.3 },
        bend: compliance === null ? false : { compliance },
        density: 0.2,
      });
      for (let i = 0; i < c.count; i++) if (c.restPositions[3 * i] < -0.2 + 0.03) c.pin(i);
      for (let s = 0; s < 180; s++) w.step();
      let tip = 0;
      for (let i = 0; i < c.count; i++)
        if (c.restPositions[3 * i] > 0.2 - 1e-9) tip = Math.min(tip, w.store.x[3 * (c.offset + i) + 1]);
      return -tip;
    };
    // (two clamped columns: one would be a hinge, across which no stencil acts)
    const none = droop(null);
    const soft = droop(1000);
    const stiff = droop(10);
    expect(none).toBeGreaterThan(0.3);
    expect(soft).toBeLessThan(none - 0.01);
    expect(stiff).toBeLessThan(0.8 * soft);
    expect(stiff).toBeGreaterThan(0.05);
  });
});

describe('reference kernels agree with the triangle hot loop', () => {
  it('one membrane projection equals eq. 3 on triangleEnergy', () => {
    const w = new World({ solver: 'pbd', gravity: [0, 0, 0] });
    const c = new FemCloth(w, {
      mesh: gridMesh({ width: 1, height: 1, cols: 2, rows: 2 }),
      material: { youngsModulus: 1000, poissonRatio: 0.3 },
      bend: false,
    });
    perturb(w.store.x, 0.3, 9);
    w.store.p.set(w.store.x);
    const m = c.membrane;
    const ctx = w.makeContext();
    m.beginStep(ctx);
    const before = w.store.p.slice();
    const g = new Float64Array(9);
    const E = triangleEnergy(
      m.material,
      before,
      m.indices[0],
      m.indices[1],
      m.indices[2],
      m.restShape,
      0,
      m.area[0],
      g,
    );
    let wG = 0;
    for (let j = 0; j < 3; j++)
      wG += w.store.invMass[m.indices[j]] * (g[3 * j] ** 2 + g[3 * j + 1] ** 2 + g[3 * j + 2] ** 2);
    Object.assign(m, { count: 1 });
    m.project(ctx);
    for (let j = 0; j < 3; j++)
      for (let d = 0; d < 3; d++) {
        const i = m.indices[j];
        expect(w.store.p[3 * i + d]).toBeCloseTo(
          before[3 * i + d] - (w.store.invMass[i] * g[3 * j + d] * E) / wG,
          12,
        );
      }
    expect(typeof tetEnergy).toBe('function');
  });
});
