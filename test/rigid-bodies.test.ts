/**
 * Rigid bodies (src/rigid/): mass properties from shapes, free motion
 * (momenta, the tumbling box, the Dzhanibekov flip), the XPBD correction at
 * a point, checkpoints, determinism and bad input.
 */
import { describe, expect, it } from 'vitest';
import { PlaneCollider } from '../src/collision/colliders.js';
import { PbdError } from '../src/core/errors.js';
import { World, type WorldState } from '../src/core/world.js';
import { icosphere } from '../src/mesh/generators.js';
import { decodeWorldState, encodeWorldState } from '../src/node/state-codec.js';
import { NF_CORES } from '../src/rigid/contact-store.js';
import { boxPyramid, ragdoll } from '../src/rigid/examples.js';
import { quickhull } from '../src/rigid/quickhull.js';
import { RigidBodies } from '../src/rigid/rigid-bodies.js';
import { RigidBody } from '../src/rigid/rigid-body.js';
import { grabRigidBody, RigidGrabs } from '../src/rigid/rigid-grab.js';
import { Shape } from '../src/rigid/shapes.js';
import { bodyPointToWorld, positionalInverseMass, rigidPointCorrection } from '../src/rigid/xpbd.js';
import { head, stepTogether } from './helpers/worlds.js';
import { rng } from './helpers.js';

const rel = (a: number, b: number) => Math.abs(a - b) / Math.abs(b);

describe('rigid shapes', () => {
  it('give the analytic mass properties of a box, a sphere and a capsule', () => {
    const box = new Shape({ type: 'box', halfExtents: [0.5, 1, 1.5] });
    expect(box.volume).toBeCloseTo(6, 12);
    // m (b² + c²)/12 with m = V at unit density, full extents 1, 2, 3
    expect(box.unitInertia[0]).toBeCloseTo((6 * (4 + 9)) / 12, 12);
    expect(box.unitInertia[1]).toBeCloseTo((6 * (1 + 9)) / 12, 12);
    const sphere = new Shape({ type: 'sphere', radius: 2 });
    expect(sphere.unitInertia[0]).toBeCloseTo(0.4 * sphere.volume * 4, 10);
    // the capsule formula against the hull of many points of its surface
    const cap = new Shape({ type: 'capsule', radius: 0.3, halfHeight: 0.5 });
    const pts: number[] = [];
    const ico = icosphere(0.3, 4).positions;
    for (let i = 0; i < ico.length; i += 3)
      pts.push(ico[i], ico[i + 1] + (ico[i + 1] >= 0 ? 0.5 : -0.5), ico[i + 2]);
    const hull = new Shape({ type: 'convex', points: pts });
    expect(rel(hull.volume, cap.volume)).toBeLessThan(0.01);
    const sorted = Array.from(hull.unitInertia).sort((a, b) => a - b);
    expect(rel(sorted[0], cap.unitInertia[1])).toBeLessThan(0.02);
    expect(rel(sorted[2], cap.unitInertia[0])).toBeLessThan(0.02);
  });

  it('quickhull: the hull of a turned box and points inside it is the box (six quadrilaterals); its frame is the principal frame', () => {
    const rand = rng(3);
    const pts: number[] = [];
    const c = Math.cos(0.4),
      s = Math.sin(0.4);
    const put = (x: number, y: number, z: number) => pts.push(c * x - s * y + 2, s * x + c * y - 1, z + 0.5);
    for (let i = 0; i < 8; i++) put(i & 1 ? 1 : -1, i & 2 ? 0.5 : -0.5, i & 4 ? 0.25 : -0.25);
    for (let i = 0; i < 200; i++) put(2 * rand() - 1, rand() - 0.5, 0.5 * rand() - 0.25);
    const hull = quickhull(pts);
    expect(hull.vertices.length / 3).toBe(8);
    expect(hull.faceStart.length - 1).toBe(6);
    for (let f = 0; f < 6; f++) expect(hull.faceStart[f + 1] - hull.faceStart[f]).toBe(4);
    const shape = new Shape({ type: 'convex', points: pts });
    expect(shape.volume).toBeCloseTo(1, 10);
    expect(Array.from(shape.offset)).toEqual([
      expect.closeTo(2, 10),
      expect.closeTo(-1, 10),
      expect.closeTo(0.5, 10),
    ]);
    const box = new Shape({ type: 'box', halfExtents: [1, 0.5, 0.25] });
    const a = Array.from(shape.unitInertia).sort((x, y) => x - y);
    const b = Array.from(box.unitInertia).sort((x, y) => x - y);
    for (let k = 0; k < 3; k++) expect(a[k]).toBeCloseTo(b[k], 9);
  });

  it('refuse bad input with a PbdError naming the field', () => {
    const world = new World();
    expect(() => new RigidBody(world, { shape: { type: 'sphere', radius: -1 } })).toThrow(/shape.radius/);
    expect(() => new RigidBody(world, { shape: { type: 'box', halfExtents: [1, 0, 1] } })).toThrow(PbdError);
    expect(() => quickhull([0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0])).toThrow(/in one plane/);
    const mesh = icosphere(1, 1);
    expect(() => new RigidBody(world, { shape: { type: 'mesh', mesh } })).toThrow(/cannot be dynamic/);
    expect(
      () => new RigidBody(world, { shape: { type: 'box', halfExtents: [1, 1, 1] }, restitution: 2 }),
    ).toThrow(/restitution/);
    expect(world.rigids.count).toBe(0);
  });
});

describe('free rigid bodies', () => {
  it('two boxes colliding without gravity keep the linear momentum to round-off and the angular momentum', () => {
    const world = new World({ dt: 1 / 60, substeps: 20, gravity: [0, 0, 0] });
    const a = new RigidBody(world, {
      shape: { type: 'box', halfExtents: [0.5, 0.3, 0.4] },
      position: [-2, 0, 0],
      velocity: [3, 0.2, 0],
      angularVelocity: [0, 1, 2],
      friction: 0.4,
    });
    const b = new RigidBody(world, {
      shape: { type: 'convex', points: icosphere(0.5, 1).positions },
      position: [1, 0.3, 0.1],
      density: 500,
      velocity: [-1, 0, 0],
    });
    const P0 = Float64Array.from(world.linearMomentum());
    let touched = false;
    for (let k = 0; k < 120; k++) {
      world.step();
      if (RigidBodies.of(world).contacts.count > 0) touched = true;
    }
    expect(touched).toBe(true);
    const P = world.linearMomentum();
    const scale = Math.hypot(...P0);
    for (let d = 0; d < 3; d++) expect(Math.abs(P[d] - P0[d])).toBeLessThan(1e-11 * scale);
    // they hit and parted: b now moves in +x
    expect(b.linearVelocity()[0]).toBeGreaterThan(0);
    expect(a.linearVelocity()[0]).toBeLessThan(3);
  });

  it('a torque-free tumbling box keeps its angular momentum to 1e-6 over 10 s, its energy too', () => {
    const world = new World({ dt: 1 / 60, substeps: 20, gravity: [0, 0, 0] });
    const box = new RigidBody(world, {
      shape: { type: 'box', halfExtents: [0.1, 0.25, 0.5] },
      angularVelocity: [3, 0.5, 1],
    });
    world.step();
    const L0 = Float64Array.from(world.rigids.angularMomentum(box.index));
    const E0 = box.kineticEnergy();
    let worst = 0,
      worstE = 0;
    for (let k = 0; k < 600; k++) {
      world.step();
      const L = world.rigids.angularMomentum(box.index);
      worst = Math.max(worst, Math.hypot(L[0] - L0[0], L[1] - L0[1], L[2] - L0[2]) / Math.hypot(...L0));
      worstE = Math.max(worstE, rel(box.kineticEnergy(), E0));
    }
    expect(worst).toBeLessThan(1e-6);
    expect(worstE).toBeLessThan(1e-3);
  });

  it('the Dzhanibekov flip: a spin about the intermediate axis turns over, about the others it does not', () => {
    const flips = (axis: number): number => {
      const world = new World({ dt: 1 / 60, substeps: 20, gravity: [0, 0, 0] });
      const w: [number, number, number] = [0.01, 0.01, 0.01];
      w[axis] = 4;
      const box = new RigidBody(world, {
        shape: { type: 'box', halfExtents: [0.1, 0.25, 0.5] },
        angularVelocity: w,
      });
      // the body axis `axis` in the world: it flips when it turns against its start
      let lowest = 1;
      const q = new Float64Array(4);
      for (let k = 0; k < 600; k++) {
        world.step();
        box.orientation(q);
        const [x, y, z, s] = q;
        const col = [
          [1 - 2 * (y * y + z * z), 2 * (x * y + z * s), 2 * (x * z - y * s)],
          [2 * (x * y - z * s), 1 - 2 * (x * x + z * z), 2 * (y * z + x * s)],
          [2 * (x * z + y * s), 2 * (y * z - x * s), 1 - 2 * (x * x + y * y)],
        ][axis];
        lowest = Math.min(lowest, col[axis]);
      }
      return lowest;
    };
    expect(flips(1)).toBeLessThan(-0.9);
    expect(flips(0)).toBeGreaterThan(0.9);
    expect(flips(2)).toBeGreaterThan(0.9);
  });
});

describe('the positional correction at a point (two-way coupling)', () => {
  it('moves a body and a particle with momentum conserved: m Δx + m_p Δx_p = 0 and the angular momentum about the point', () => {
    const world = new World();
    const body = new RigidBody(world, {
      shape: { type: 'box', halfExtents: [0.5, 0.2, 0.3] },
      orientation: [0.1, 0.2, 0.3, 0.9],
    });
    const r = world.rigids;
    const i = body.index;
    const x0 = Float64Array.from(r.x.subarray(0, 3));
    const point = Float64Array.from([0.4, 0.1, -0.2]);
    const n = [0, 0.6, 0.8];
    const mp = 0.5;
    const dl = rigidPointCorrection(r, i, point, 0, n[0], n[1], n[2], 0.01, 1 / mp, 0, 0);
    // Δλ = c / (w_body + w_p), w_body from eq. 2
    const w = positionalInverseMass(
      r,
      i,
      point[0] - x0[0],
      point[1] - x0[1],
      point[2] - x0[2],
      n[0],
      n[1],
      n[2],
    );
    expect(dl).toBeCloseTo(0.01 / (w + 1 / mp), 12);
    // the particle would move by −Δλ n / m_p: total linear impulse 0
    for (let d = 0; d < 3; d++) expect(body.mass * (r.x[d] - x0[d]) - dl * n[d]).toBeCloseTo(0, 12);
  });
});

describe('rigid worlds', () => {
  const build = (): World => {
    const world = new World({ dt: 1 / 60, substeps: 10 });
    world.addCollider(new PlaneCollider({ friction: 0.6 }));
    boxPyramid(world, { layers: 4, origin: [0, 0, 0] });
    ragdoll(world, { origin: [3, 1, 0] });
    new RigidBody(world, {
      shape: { type: 'capsule', radius: 0.2, halfHeight: 0.4 },
      position: [-3, 2, 0],
      rotation: [30, 0, 60],
      angularVelocity: [1, 2, 0],
    });
    return world;
  };
  /** The scene after 40 steps: the world the checkpoint tests save. */
  const stepped = (): World => {
    const world = build();
    for (let k = 0; k < 40; k++) world.step();
    return world;
  };

  it('are deterministic: two runs agree bit for bit', () => {
    const a = build(),
      b = build();
    stepTogether([a, b], 90);
    expect(head(a.rigids.x, 3 * a.rigids.count)).toEqual(head(b.rigids.x, 3 * b.rigids.count));
    expect(head(a.rigids.q, 4 * a.rigids.count)).toEqual(head(b.rigids.q, 4 * b.rigids.count));
  });

  it('resume from a checkpoint (saveState → encode → decode → loadState into a fresh world) bit for bit', () => {
    const a = stepped();
    const state = decodeWorldState(encodeWorldState(a.saveState())) as WorldState;
    const b = build();
    b.loadState(state);
    stepTogether([a, b], 40);
    expect(head(b.rigids.x, 3 * b.rigids.count)).toEqual(head(a.rigids.x, 3 * a.rigids.count));
    expect(head(b.rigids.omega, 3 * b.rigids.count)).toEqual(head(a.rigids.omega, 3 * a.rigids.count));
  });

  it("the contacts of a checkpoint from before manifolds were kept (no nL, nf, first, rel) load: their pairs and anchors kept, each pair's manifold built anew", () => {
    const a = stepped();
    const full = RigidBodies.of(a).contacts.saveState();
    const n = full.a.length;
    const list = (x: ArrayLike<number>, m: number): number[] => Array.from(x).slice(0, m);
    expect(n).toBeGreaterThan(10);
    expect(list(full.rel ?? [], 7 * n).some((r) => Number.isFinite(r))).toBe(true);
    const old = RigidBodies.of(build()).contacts;
    old.loadState({ a: full.a, b: full.b, rA: full.rA, rB: full.rB });
    expect(old.count).toBe(n);
    expect(list(old.a, n)).toEqual(list(full.a, n));
    expect(list(old.rB, 3 * n)).toEqual(list(full.rB, 3 * n));
    // a new narrow phase for every pair: normals between the cores, no manifold, no pose to keep it by
    expect(list(old.nf, n).every((f) => f === NF_CORES)).toBe(true);
    expect(list(old.first, n).every((f) => f === 0)).toBe(true);
    expect(list(old.rel, 7 * n).every((r) => Number.isNaN(r))).toBe(true);
    // with the four fields, the same store takes them
    old.loadState(full);
    expect(list(old.rel, 7 * n)).toEqual(list(full.rel ?? [], 7 * n));
    expect(list(old.nf, n)).toEqual(list(full.nf ?? [], n));
  });

  it('a ragdoll falls, keeps its joints together, stays finite and comes to rest', () => {
    const world = new World({ dt: 1 / 60, substeps: 20 });
    world.addCollider(new PlaneCollider({ friction: 0.6 }));
    const doll = ragdoll(world, { origin: [0, 0.5, 0] });
    doll.bodies.torso.setAngularVelocity([2, 0, 1]);
    const sys = RigidBodies.of(world);
    let worst = 0;
    for (let k = 0; k < 240; k++) {
      world.step();
      worst = Math.max(worst, sys.joints.maxViolation());
    }
    // the impact on the ground opens a joint by about a centimetre for a moment; at rest they are closed
    expect(worst).toBeLessThan(0.02);
    expect(sys.joints.maxViolation()).toBeLessThan(1e-3);
    for (const b of Object.values(doll.bodies)) {
      const p = b.position();
      expect(p.every(Number.isFinite)).toBe(true);
      expect(p[1]).toBeGreaterThan(0);
      expect(p[1]).toBeLessThan(0.6);
    }
    expect(world.stats.recoveries).toBe(0);
  });
});

describe('rigid grabs', () => {
  it('two grabs of one body are two constraints: releasing one leaves the other holding its own point', () => {
    const world = new World({ dt: 1 / 60, substeps: 20, gravity: [0, 0, 0] });
    const box = new RigidBody(world, { shape: { type: 'box', halfExtents: [0.5, 0.3, 0.4] } });
    const first = grabRigidBody(world, box.index, [0.5, 0.3, 0.4], 0);
    const second = grabRigidBody(world, box.index, [-0.5, -0.3, -0.4], 0);
    second.release();
    first.move([1.0, 0.3, 0.4]);
    for (let k = 0; k < 120; k++) world.step();
    // the first grab's corner, fixed in the body, is where its handle put it
    const r = world.rigids;
    const corner = new Float64Array(3);
    bodyPointToWorld(r, box.index, 0.5, 0.3, 0.4, corner);
    expect(Math.hypot(corner[0] - 1.0, corner[1] - 0.3, corner[2] - 0.4)).toBeLessThan(1e-3);
    expect(RigidGrabs.of(world).count).toBe(1);
  });
});
