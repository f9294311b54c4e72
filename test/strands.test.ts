/**
 * Strands (000 §3.5, §6): Follow-The-Leader and DFTL hair, hair by region
 * shape matching, contacts with colliders.
 */
import { describe, expect, it } from 'vitest';
import {
  chainRegions,
  hairOnSphere,
  loadScene,
  NaiveSummation,
  PbdError,
  SceneError,
  SphereCollider,
  Strands,
  type StrandsOptions,
  World,
} from '../src/index.js';
import { fusedStrandSystem } from '../src/strands/fused-pass.js';

/** One horizontal strand of `segments` segments over 1 m, its root pinned at the origin. */
/** The head of the hair tests: a 10 cm sphere at the origin (hairOnSphere's center and radius). */
const head10cm = { center: [0, 0, 0] as [number, number, number], radius: 0.1 };

function swingingStrand(world: World, o: Partial<StrandsOptions>, segments = 20): Strands {
  const n = segments + 1;
  const positions = new Float64Array(3 * n);
  for (let j = 0; j < n; j++) positions[3 * j] = j / segments;
  return new Strands(world, { positions, strandStart: [0, n], ...o });
}

/** Kinetic plus gravitational energy of a strand (J), zero at rest where it starts. */
function energy(world: World, s: Strands): number {
  let e = world.kineticEnergy();
  const { x, mass, invMass } = world.store;
  for (let j = 0; j < s.count; j++) {
    const i = s.offset + j;
    if (invMass[i] > 0) e += mass[i] * 9.81 * x[3 * i + 1];
  }
  return e;
}

/** m g L of the strand's moving particles: the energy scale of the swing. */
function energyScale(world: World, s: Strands): number {
  let m = 0;
  for (let j = 1; j < s.count; j++) m += world.store.mass[s.offset + j];
  return m * 9.81;
}

describe('Follow-The-Leader strands (000 §3.5, Figure 9)', () => {
  it('keeps every segment at its rest length to 1e-9 while the strand swings, FTL and DFTL', () => {
    for (const damping of [0, 0.5, 0.9, 1]) {
      const world = new World({ dt: 1 / 60, substeps: 4 });
      const s = swingingStrand(world, { ftl: { damping } });
      let worst = 0;
      let lowest = 0;
      for (let f = 0; f < 120; f++) {
        world.step();
        worst = Math.max(worst, s.maxStretch());
        lowest = Math.min(lowest, world.store.x[3 * (s.offset + s.count - 1) + 1]);
      }
      expect(worst).toBeLessThan(1e-9);
      expect(s.ftl!.maxViolation(world.store)).toBeLessThan(1e-9);
      // it swung: the tip went well below the root
      expect(lowest).toBeLessThan(-0.5);
    }
  });

  it('one pass satisfies every distance constraint of a chain, from the root down, moving each particle toward its predecessor', () => {
    const world = new World({ gravity: [0, 0, 0], substeps: 1 });
    const s = swingingStrand(world, { ftl: { damping: 0 } }, 5);
    const p = world.store.p;
    const q = Float64Array.from([0, 0, 0, 0.5, 0.3, 0, 0.3, 0.9, -0.2, 0.1, 0.2, 0.4, 1, 1, 1, 2, 0, 0]);
    p.set(q, 3 * s.offset);
    world.store.x.set(q, 3 * s.offset);
    const ctx = world.makeContext();
    s.ftl!.beginStep();
    s.ftl!.project(ctx);
    for (let j = 1; j < 6; j++) {
      const a = 3 * (s.offset + j - 1),
        b = 3 * (s.offset + j);
      const d = [p[b] - p[a], p[b + 1] - p[a + 1], p[b + 2] - p[a + 2]];
      expect(Math.hypot(...d)).toBeCloseTo(0.2, 14);
      // along the old direction from the new predecessor (000 Figure 9)
      const old = [q[3 * j] - p[a], q[3 * j + 1] - p[a + 1], q[3 * j + 2] - p[a + 2]];
      const cross = [
        d[1] * old[2] - d[2] * old[1],
        d[2] * old[0] - d[0] * old[2],
        d[0] * old[1] - d[1] * old[0],
      ];
      expect(Math.hypot(...cross) / Math.hypot(...old)).toBeLessThan(1e-12);
      // d_i is the move of particle i
      for (let c = 0; c < 3; c++)
        expect(s.ftl!.correction[3 * j + c]).toBeCloseTo(p[b + c] - q[3 * j + c], 14);
    }
  });

  it("DFTL's velocity correction: v_i = (p_i − x_i)/Δt − s_damping d_{i+1}/Δt", () => {
    const world = new World({ gravity: [0, -9.81, 0], substeps: 1, dt: 0.01 });
    const a = swingingStrand(world, { ftl: { damping: 0 } }, 4);
    const b = swingingStrand(world, { ftl: { damping: 0.7 } }, 4);
    // the FTL set's own passes, which keep d_i in ftl.correction (the fused strand pass keeps a block's
    // d_i in a scratch array, with the same velocities bit for bit: test/strands-fused.test.ts)
    world.system(fusedStrandSystem).enabled = false;
    world.step();
    const v = world.store.v;
    for (let j = 1; j < 4; j++) {
      for (let c = 0; c < 3; c++) {
        const plain = v[3 * (a.offset + j) + c];
        const corrected = v[3 * (b.offset + j) + c];
        expect(corrected).toBeCloseTo(plain - (0.7 * b.ftl!.correction[3 * (j + 1) + c]) / 0.01, 10);
      }
    }
    // the last particle has no successor: no correction
    expect(v[3 * (b.offset + 4) + 1]).toBeCloseTo(v[3 * (a.offset + 4) + 1], 12);
  });

  /**
   * The energy of a strand released horizontally, relative to m g L, for a
   * rule; the reference is XPBD distance constraints with 400 substeps.
   */
  function swing(o: Partial<StrandsOptions>, substeps: number): { peak: number; end: number } {
    const world = new World({ dt: 1 / 60, substeps });
    const s = swingingStrand(world, o);
    const e0 = energy(world, s);
    const scale = energyScale(world, s);
    let peak = 0;
    for (let f = 0; f < 120; f++) {
      world.step();
      peak = Math.max(peak, (energy(world, s) - e0) / scale);
    }
    return { peak, end: (energy(world, s) - e0) / scale };
  }

  it('measured: FTL gains energy (a whip), DFTL loses it (the damping it introduces), a converged solve keeps it', () => {
    const reference = swing({ ftl: false, stretch: { compliance: 0 } }, 400);
    const ftl = swing({ ftl: { damping: 0 } }, 10);
    const dftl = swing({ ftl: { damping: 0.9 } }, 10);
    // the reference keeps its energy within a few per cent over two seconds
    expect(Math.abs(reference.end)).toBeLessThan(0.05);
    expect(reference.peak).toBeLessThan(0.01);
    // FTL feeds every correction into its particle alone: the tail whips and the strand gains energy
    expect(ftl.peak).toBeGreaterThan(1);
    // DFTL's energy stays within a fraction of the swing's, and it loses a good part of it
    expect(dftl.peak).toBeLessThan(0.5);
    expect(ftl.peak).toBeGreaterThan(5 * dftl.peak);
    expect(dftl.end).toBeLessThan(reference.end - 0.1);
    expect(dftl.end).toBeGreaterThan(-0.8);
  });

  it('distance constraints instead of FTL stretch at one iteration (the length error FTL removes)', () => {
    const world = new World({ dt: 1 / 60, substeps: 10 });
    const s = swingingStrand(world, { ftl: false, stretch: { compliance: 0 } });
    let worst = 0;
    for (let f = 0; f < 120; f++) {
      world.step();
      worst = Math.max(worst, s.maxStretch());
    }
    expect(worst).toBeGreaterThan(1e-2);
  });

  it('strain limiting toward the root: with maxStretch segments may shorten but never exceed the limit', () => {
    const world = new World({ dt: 1 / 60, substeps: 4 });
    const s = swingingStrand(world, { ftl: { damping: 0, maxStretch: 1.05 }, stretch: { compliance: 1e-3 } });
    for (let f = 0; f < 60; f++) {
      world.step();
      const x = world.store.x;
      for (let j = 1; j < s.count; j++) {
        const a = 3 * (s.offset + j - 1),
          b = 3 * (s.offset + j);
        const l = Math.hypot(x[b] - x[a], x[b + 1] - x[a + 1], x[b + 2] - x[a + 2]);
        expect(l / s.restLength[j]).toBeLessThan(1.05 + 1e-9);
      }
    }
  });

  it('masses: each particle carries half of each segment it ends (Σ m = ρ L)', () => {
    const world = new World();
    const h = hairOnSphere({ ...head10cm, count: 7, segments: 6, length: 0.2 });
    const s = new Strands(world, { ...h, linearDensity: 0.02 });
    let total = 0;
    let length = 0;
    for (let j = 0; j < s.count; j++) {
      total += world.store.mass[s.offset + j];
      length += s.restLength[j];
    }
    expect(total).toBeCloseTo(0.02 * length, 12);
    expect(s.strands).toBe(7);
    expect(s.renderLines().length).toBe(2 * 7 * 6);
  });
});

describe('hair on a moving head', () => {
  it('roots follow the head; strands keep their lengths and stay outside it', () => {
    const world = new World({ dt: 1 / 60, substeps: 2 });
    const spec = { oscillate: { amplitude: [0.2, 0, 0] as [number, number, number], frequency: 0.7 } };
    const head = world.addCollider(
      new SphereCollider({ radius: 0.1, position: [0, 1, 0], friction: 0.5, motion: spec }),
    );
    const h = hairOnSphere({ center: [0, 1, 0], radius: 0.1, count: 200, segments: 10, length: 0.25 });
    const hair = new Strands(world, { ...h, radius: 0.003, linearDensity: 0.001, rootMotion: head.motion! });
    const roots0 = Array.from(hair.strandStart.subarray(0, 200), (j) => world.store.x[3 * (hair.offset + j)]);
    let deepest = 0;
    for (let f = 0; f < 90; f++) {
      world.step();
      const x = world.store.x;
      const c = head.position;
      for (let j = 0; j < hair.count; j++) {
        const i = 3 * (hair.offset + j);
        const d = Math.hypot(x[i] - c[0], x[i + 1] - c[1], x[i + 2] - c[2]);
        deepest = Math.max(deepest, 0.1 + 0.003 - d);
      }
    }
    expect(hair.maxStretch()).toBeLessThan(1e-9);
    // the roots moved with the head
    const shift = head.position[0];
    expect(Math.abs(shift)).toBeGreaterThan(0.05);
    for (let s = 0; s < 200; s += 37) {
      expect(world.store.x[3 * (hair.offset + hair.strandStart[s])]).toBeCloseTo(roots0[s] + shift, 9);
    }
    // nothing sinks into the head by more than a fraction of a segment
    expect(deepest).toBeLessThan(0.01);
    expect(world.stats.recoveries).toBe(0);
    expect(world.stats.speedClamps).toBe(0);
  });
});

describe('hair by region shape matching (000 §6)', () => {
  it('chain regions: region j holds the particles within w of j along its strand, summed along the strands', () => {
    const start = Int32Array.from([0, 5, 12, 14]);
    const sum = chainRegions(start, 2);
    expect(Array.from(sum.members(0))).toEqual([0, 1, 2]);
    expect(Array.from(sum.members(7))).toEqual([5, 6, 7, 8, 9]);
    expect(Array.from(sum.members(13))).toEqual([12, 13]);
    // the prefix sums give what adding up the members gives
    const naive = NaiveSummation.of(sum);
    const values = Float64Array.from({ length: 14 * 2 }, (_, k) => Math.sin(k));
    const a = new Float64Array(14 * 2),
      b = new Float64Array(14 * 2);
    sum.gather(values, a, 2);
    naive.gather(values, b, 2);
    for (let k = 0; k < a.length; k++) expect(a[k]).toBeCloseTo(b[k], 12);
    sum.scatter(values, a, 2);
    naive.scatter(values, b, 2);
    for (let k = 0; k < a.length; k++) expect(a[k]).toBeCloseTo(b[k], 12);
  });

  it('a curly strand keeps its curls under gravity with shape matching and loses them without', () => {
    const curly = (sm: boolean) => {
      const world = new World({ dt: 1 / 60, substeps: 4, iterations: 2, damping: 1 });
      const h = hairOnSphere({
        ...head10cm,
        count: 1,
        segments: 40,
        length: 0.4,
        coverage: 1,
        style: { type: 'curly', amplitude: 0.02, period: 0.06 },
      });
      const s = new Strands(world, {
        ...h,
        shapeMatching: sm ? { regionWidth: 3 } : undefined,
        ftl: { damping: 0, maxStretch: 1.02 },
        stretch: sm ? undefined : { compliance: 0 },
      });
      let arc = 0;
      for (let j = 0; j < s.count; j++) arc += s.restLength[j];
      for (let f = 0; f < 240; f++) world.step();
      // how far apart the strand's ends are, over its length: 1 pulled straight
      const x = s.positions();
      const n = x.length;
      return { span: Math.hypot(x[n - 3] - x[0], x[n - 2] - x[1], x[n - 1] - x[2]) / arc, world };
    };
    const withSm = curly(true);
    const without = curly(false);
    expect(withSm.span).toBeLessThan(0.45);
    expect(without.span).toBeGreaterThan(0.7);
    expect(withSm.world.stats.recoveries).toBe(0);
  });

  it('shape matching of free strands conserves linear momentum', () => {
    const world = new World({ dt: 1 / 60, substeps: 2, gravity: [0, 0, 0] });
    const h = hairOnSphere({
      ...head10cm,
      count: 3,
      segments: 12,
      length: 0.3,
      style: { type: 'wavy' },
    });
    const s = new Strands(world, {
      ...h,
      pinRoots: false,
      ftl: false,
      shapeMatching: { regionWidth: 2 },
      velocity: [0.3, -0.2, 0.1],
    });
    // a kick to a few particles, so the regions deform
    for (let j = 0; j < s.count; j += 5) world.store.v[3 * (s.offset + j)] += 1;
    const m0 = world.linearMomentum();
    for (let f = 0; f < 30; f++) world.step();
    const m1 = world.linearMomentum();
    const scale = Math.hypot(m0[0], m0[1], m0[2]);
    expect(Math.hypot(m1[0] - m0[0], m1[1] - m0[1], m1[2] - m0[2]) / scale).toBeLessThan(1e-9);
  });
});

describe('strand input', () => {
  it('bad strands are PbdErrors that name the field', () => {
    const world = new World();
    const positions = new Float64Array([0, 0, 0, 1, 0, 0, 2, 0, 0]);
    expect(() => new Strands(world, { positions, strandStart: [0, 2] })).toThrow(
      /strandStart: must run from 0/,
    );
    expect(() => new Strands(world, { positions, strandStart: [0, 1, 3] })).toThrow(
      /strand 0 has 1 particles/,
    );
    expect(
      () => new Strands(world, { positions: new Float64Array([0, 0, 0, 0, 0, 0]), strandStart: [0, 2] }),
    ).toThrow(/lie on top of each other/);
    expect(() => new Strands(world, { positions, strandStart: [0, 3], linearDensity: 0 })).toThrow(PbdError);
    expect(() => new Strands(world, { positions, strandStart: [0, 3], ftl: { damping: 2 } })).toThrow(
      /ftl\.damping: must lie in \[0, 1\]/,
    );
    expect(
      () => new Strands(world, { positions, strandStart: [0, 3], shapeMatching: { regionWidth: 0 } }),
    ).toThrow(/regionWidth/);
    expect(() => hairOnSphere({ center: [0, 0, 0], radius: 0, count: 1, segments: 1, length: 1 })).toThrow(
      /hair\.radius/,
    );
  });

  it('a strand folded onto itself stays finite', () => {
    const world = new World({ substeps: 2 });
    const s = swingingStrand(world, {}, 6);
    // every particle on the root
    const x = world.store.x;
    for (let j = 1; j < s.count; j++)
      for (let c = 0; c < 3; c++) x[3 * (s.offset + j) + c] = x[3 * s.offset + c];
    world.store.v.fill(0);
    for (let f = 0; f < 10; f++) world.step();
    expect(world.store.x.subarray(3 * s.offset, 3 * (s.offset + s.count)).every(Number.isFinite)).toBe(true);
    expect(world.stats.recoveries).toBe(0);
  });
});

describe('strands in scene files', () => {
  const scene = (body: object, colliders: object[] = []) =>
    JSON.stringify({ title: 't', family: 'strands', bodies: [{ type: 'strands', ...body }], colliders });

  it('explicit polylines build a body with one strand each, roots pinned', () => {
    const inst = loadScene(
      scene({
        strands: [
          [
            [0, 1, 0],
            [0.1, 1, 0],
            [0.2, 1, 0],
          ],
          [
            [0, 1, 0.1],
            [0, 0.9, 0.1],
          ],
        ],
      }),
    );
    const s = inst.bodies[0] as Strands;
    expect(s.strands).toBe(2);
    expect(Array.from(s.strandStart)).toEqual([0, 3, 5]);
    expect(inst.world.store.invMass[s.offset]).toBe(0);
    expect(inst.world.store.invMass[s.offset + 3]).toBe(0);
    expect(inst.world.store.invMass[s.offset + 1]).toBeGreaterThan(0);
  });

  it('roots follow a collider by name; a missing or motionless one is an error at its JSON path', () => {
    const hair = { center: [0, 1, 0], radius: 0.1, count: 10, segments: 4, length: 0.1 };
    const head = { type: 'sphere', name: 'head', radius: 0.1, position: [0, 1, 0] };
    expect(() => loadScene(scene({ hair, roots: { follow: 'hat' } }, [head]), { file: 'h.json' })).toThrow(
      /h\.json: bodies\[0\]\.roots\.follow: names no collider 'hat' — the colliders are 'head'/,
    );
    expect(() => loadScene(scene({ hair, roots: { follow: 'head' } }, [head]))).toThrow(
      /has no scripted motion/,
    );
    const moving = { ...head, motion: { velocity: [1, 0, 0] } };
    const inst = loadScene(scene({ hair, roots: { follow: 'head' } }, [moving]));
    for (let k = 0; k < 30; k++) inst.world.step();
    const s = inst.bodies[0] as Strands;
    const root = inst.world.store.x[3 * s.offset];
    expect(root - s.restPositions[0]).toBeCloseTo(inst.world.colliders[0].position[0], 9);
    expect(() => loadScene(scene({}))).toThrow(/has neither hair, strands nor shape/);
    expect(() => loadScene(scene({ hair: { ...hair, segments: 0 } }))).toThrow(SceneError);
  });

  it('a generated centreline, a rod material and grippers: the last segment clamped and carried by its motion', () => {
    const inst = loadScene(
      scene({
        shape: { type: 'line', from: [0, 1, 0], to: [0.5, 1, 0], segments: 10 },
        roots: { pinned: false },
        rod: { youngsModulus: 1e7, density: 1000, radius: 0.005, restShape: 'straight' },
        grippers: [{ segment: 0 }, { segment: -2, motion: { velocity: [0, 0.1, 0] } }],
      }),
    );
    const s = inst.bodies[0] as Strands;
    const { x, invMass } = inst.world.store;
    expect(s.count).toBe(11);
    expect(s.stretchShear?.count).toBe(10);
    for (const j of [0, 1, 9, 10]) expect(invMass[s.offset + j]).toBe(0);
    expect(invMass[s.offset + 5]).toBeGreaterThan(0);
    for (let k = 0; k < 30; k++) inst.world.step();
    // the last gripper rose at 0.1 m/s for 0.5 s; the first stayed
    expect(x[3 * (s.offset + 10) + 1]).toBeCloseTo(1.05, 9);
    expect(x[3 * s.offset + 1]).toBe(1);
    const bad = () =>
      loadScene(
        scene({
          shape: { type: 'line', from: [0, 0, 0], to: [1, 0, 0], segments: 4 },
          rod: { youngsModulus: 1e7, radius: 0.01 },
          grippers: [{ segment: 4 }],
        }),
      );
    expect(bad).toThrow(/bodies\[0\]\.grippers\[0\]\.segment: names no segment \(4\)/);
    const knot = loadScene(
      scene({ shape: { type: 'overhand-knot', size: 0.004, tail: 0.05, segment: 0.002 } }),
    );
    expect(knot.bodies[0].count).toBe(109);
  });
});
