import RAPIER from '@dimforge/rapier3d-compat';
import { boxPyramid, PlaneCollider, RigidBodies, World } from '../../src/index.js';
import { type BenchCase, type BenchInstance, type Quality, sceneSetup } from '../harness.js';
import type { PeerInstance } from '../peers/peer.js';

await RAPIER.init();

/** How far a body moved (m). */
const moved = (a: ArrayLike<number>, b: ArrayLike<number>) =>
  Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

const LAYERS = 10;
const BOXES = (LAYERS * (LAYERS + 1)) / 2;

/**
 * The quality of a pyramid of unit boxes over the timed frames, measured the
 * same way on both engines' poses (centres xyz, orientations xyzw, box k of
 * row r in the same order): the largest distance any box moved from where it
 * was at the first timed frame (drift), and the largest penetration, into the
 * ground (y = 0) or between a box and the one under it, from the boxes'
 * vertical extents (exact for upright boxes; a tilt only adds to it).
 */
class PyramidWatch {
  /** Poses, filled by the engine before observe. */
  readonly x = new Float64Array(3 * BOXES);
  readonly q = new Float64Array(4 * BOXES);
  drift = 0;
  penetration = 0;
  finite = true;
  /** How far the top box moved since the pyramid was built (m). */
  top = Number.NaN;
  private readonly x0 = new Float64Array(3 * BOXES);
  private readonly built = new Float64Array(3);
  private frames = 0;
  private readonly lo = new Float64Array(BOXES);
  private readonly hi = new Float64Array(BOXES);

  /** The poses as built (x, q filled). */
  start(): void {
    const t = 3 * (BOXES - 1);
    this.built.set(this.x.subarray(t, t + 3));
  }

  /**
   * A benchmark instance over an engine's pyramid: `read` fills x and q from
   * its boxes (now, as built, and before each observation), `step` steps it.
   */
  instance(step: () => void, read: () => void): { step(): void; observe(): void; quality(): Quality } {
    read();
    this.start();
    return {
      step,
      observe: () => {
        read();
        this.observe();
      },
      quality: () => this.quality(),
    };
  }

  observe(): void {
    const { x, q, lo, hi } = this;
    let pen = 0;
    for (let i = 0; i < BOXES; i++) {
      const qx = q[4 * i],
        qy = q[4 * i + 1],
        qz = q[4 * i + 2],
        qw = q[4 * i + 3];
      // the half height of a unit box: ½ Σ_j |R_yj|
      const e =
        0.5 *
        (Math.abs(2 * (qx * qy + qz * qw)) +
          Math.abs(1 - 2 * (qx * qx + qz * qz)) +
          Math.abs(2 * (qy * qz - qx * qw)));
      lo[i] = x[3 * i + 1] - e;
      hi[i] = x[3 * i + 1] + e;
      pen = Math.max(pen, -lo[i]);
      if (!Number.isFinite(e + x[3 * i] + x[3 * i + 1] + x[3 * i + 2])) this.finite = false;
    }
    for (let i = 0; i < BOXES; i++) {
      for (let j = 0; j < BOXES; j++) {
        // j under i: at least half a box lower, overlapping it in x and z
        if (x[3 * i + 1] - x[3 * j + 1] < 0.5) continue;
        if (Math.abs(x[3 * i] - x[3 * j]) >= 0.98 || Math.abs(x[3 * i + 2] - x[3 * j + 2]) >= 0.98) continue;
        pen = Math.max(pen, hi[j] - lo[i]);
      }
    }
    this.penetration = Math.max(this.penetration, pen);
    if (this.frames++ === 0) this.x0.set(x);
    for (let i = 0; i < 3 * BOXES; i += 3) {
      this.drift = Math.max(
        this.drift,
        Math.hypot(x[i] - this.x0[i], x[i + 1] - this.x0[i + 1], x[i + 2] - this.x0[i + 2]),
      );
    }
    this.top = moved(x.subarray(3 * (BOXES - 1)), this.built);
  }

  quality(): Quality {
    return {
      maxStretch: 0,
      meanStretch: 0,
      finite: this.finite,
      drift: this.drift,
      penetration: this.penetration,
    };
  }
}

/** The top box's verdict: a pyramid stands while it moved less than 1 cm. */
const verdict = (d: number) => `${(d * 1000).toFixed(2)} mm (${d < 0.01 ? 'standing' : 'FELL'})`;

/** The Rapier pyramid of the last pyramid case set up (its top box for the pbdkit row's info). */
let rapierWatch: PyramidWatch | null = null;

/** Rapier's pyramid (the compat build's wasm, default solver settings: one step of 4 solver iterations per frame). */
function rapierPyramid(): PeerInstance {
  const rw = new RAPIER.World({ x: 0, y: -9.81, z: 0 });
  rw.timestep = 1 / 60;
  rw.createCollider(RAPIER.ColliderDesc.cuboid(50, 0.5, 50).setTranslation(0, -0.5, 0).setFriction(0.6));
  const bodies: RAPIER.RigidBody[] = [];
  const gap = 0.02;
  for (let row = 0; row < LAYERS; row++) {
    const n = LAYERS - row;
    for (let k = 0; k < n; k++) {
      const x = (k - (n - 1) / 2) * (1 + gap);
      const body = rw.createRigidBody(
        RAPIER.RigidBodyDesc.dynamic()
          .setTranslation(x, 0.5 + row, 0)
          .setCanSleep(false),
      );
      rw.createCollider(RAPIER.ColliderDesc.cuboid(0.5, 0.5, 0.5).setDensity(1000).setFriction(0.6), body);
      bodies.push(body);
    }
  }
  const watch = new PyramidWatch();
  rapierWatch = watch;
  const read = () => {
    for (let i = 0; i < BOXES; i++) {
      const t = bodies[i].translation(),
        r = bodies[i].rotation();
      watch.x[3 * i] = t.x;
      watch.x[3 * i + 1] = t.y;
      watch.x[3 * i + 2] = t.z;
      watch.q[4 * i] = r.x;
      watch.q[4 * i + 1] = r.y;
      watch.q[4 * i + 2] = r.z;
      watch.q[4 * i + 3] = r.w;
    }
  };
  return { ...watch.instance(() => rw.step(), read), positions: () => watch.x };
}

/** pbdkit's pyramid at `substeps` substeps of one iteration per 1/60 s frame. */
function pyramid(substeps: number): () => BenchInstance {
  return () => {
    const world = new World({ dt: 1 / 60, substeps });
    world.addCollider(new PlaneCollider({ friction: 0.6 }));
    RigidBodies.of(world).configure({ sleep: false });
    const boxes = boxPyramid(world, { layers: LAYERS, size: 1, friction: 0.6 });
    const watch = new PyramidWatch();
    const p = new Float64Array(3),
      o = new Float64Array(4);
    const read = () => {
      for (let i = 0; i < BOXES; i++) {
        watch.x.set(boxes[i].position(p), 3 * i);
        watch.q.set(boxes[i].orientation(o), 4 * i);
      }
    };
    return {
      ...watch.instance(() => world.step(), read),
      get info() {
        return `${BOXES} boxes, ${substeps} substeps × 1 iteration; top box moved: pbdkit ${verdict(watch.top)}, Rapier ${verdict(rapierWatch?.top ?? Number.NaN)}`;
      },
    };
  };
}

/** A scene file as a benchmark: its world stepped frame by frame. */
const scene = (file: string) =>
  sceneSetup(file, (inst) => `${inst.world.store.count} particles, ${inst.world.rigids.count} rigid bodies`);

/**
 * The substeps of the rigid-pyramid-55 row: at 7 the pyramid's drift and
 * penetration over the timed frames (both measured as PyramidWatch does)
 * stay below Rapier's on the same frames with the initial positions as
 * built or moved by 1 µm in three patterns. Over 600 frames after 50
 * (docs/rigid.md, Speed): Rapier 0.33–0.36 mm drift, 1.55–1.59 mm
 * penetration; pbdkit at 7 substeps 0.000–0.003 / 0.69–0.71 mm, at 8
 * 0.00–0.12 / 0.48–0.59, at 6 0.21–0.30 / 1.09–1.13 (under Rapier's, by
 * less).
 */
const PYRAMID_SUBSTEPS = 7;

const rapierPeer = {
  name: 'Rapier',
  what: '@dimforge/rapier3d-compat 0.21 (wasm), default solver settings (1 step × 4 solver iterations), the same 55 boxes, sleeping off',
  setup: rapierPyramid,
};

export const cases: BenchCase[] = [
  {
    name: 'rigid-pyramid-55',
    description: `a pyramid of 55 boxes settling on the ground, ${PYRAMID_SUBSTEPS} substeps per 1/60 s frame (its drift and penetration over these timed frames below Rapier's, with the initial positions as built or moved by 1 µm: docs/rigid.md), single-threaded, sleeping off; Rapier on the same pyramid, interleaved`,
    setup: pyramid(PYRAMID_SUBSTEPS),
    steps: 200,
    warmup: 50,
    peers: [{ ...rapierPeer, targetRatio: 2 }],
  },
  {
    name: 'rigid-pyramid-55-20-substeps',
    description:
      'the same pyramid at the 20 substeps per frame the issue names, single-threaded, sleeping off; Rapier on the same pyramid, interleaved',
    anchor:
      "the issue's set-up (20 substeps, ≤ 2 ms per frame), kept beside the row at the fewest substeps that hold",
    setup: pyramid(20),
    steps: 200,
    warmup: 50,
    target: { msPerStep: 2, reference: 'issue 17: 20 substeps, ≤ 2 ms per frame' },
    peers: [rapierPeer],
  },
  {
    name: 'cloth-rigid-tear',
    description:
      '003 Figure 10 (scenes/rigid-tear.json): a 32 × 32 sheet torn by an attached rigid cube and a thrown rigid ball, coupled two ways, 10 substeps, the first 2 s',
    setup: scene('rigid-tear.json'),
    steps: 120,
    warmup: 0,
    target: { msPerStep: 10, reference: 'issue 17' },
  },
];
