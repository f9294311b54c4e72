import { IsometricBending } from '../../src/index.js';
import type { BenchCase, BenchInstance, PeerCase } from '../harness.js';
import { ammoCloth } from '../peers/ammo.js';
import { edgeStretch, type FallingCloth, fallingCloth } from '../peers/cloth-scene.js';
import { joltCloth } from '../peers/jolt.js';
import { plainCloth } from '../peers/plain.js';

/**
 * Issue 18's honest cloth benchmarks: a cloth lying horizontally, pinned at
 * two corners of one edge, falling, swinging down and folding under gravity
 * (bench/peers/cloth-scene.ts), so that every stretch and bending constraint
 * works from the first frame. The same scene — the same vertices, masses,
 * pins, edge list and bending quads — is built in Jolt, ammo.js and a plain
 * Ten-Minute-Physics-style script, and their frames are timed interleaved
 * with pbdkit's in the same process.
 */

/** XPBD compliance of the dihedral bending in pbdkit and Jolt (rad²/(N·m)). */
const BEND_COMPLIANCE = 0.01;
/** The plain script's and ammo.js's distance bending: XPBD compliance (m/N), and ammo's PBD link stiffness. */
const PLAIN_BEND_COMPLIANCE = 1;
const AMMO_BEND_STIFFNESS = 0.1;
const SUBSTEPS = 5;

/** Issue 18's targets: pbdkit / peer ≤ 0.4 (2.5× faster) against Jolt and ammo.js, < 1 against the plain script. */
const ENGINE_RATIO = 0.4;

type Precision = 'f64' | 'f32';

const scenes = new Map<string, FallingCloth>();
/**
 * One scene per configuration, shared by pbdkit's instance and its peers
 * (built on the first setup call); an f32 scene starts from the same
 * vertices, masses, edges and quads as the f64 one, only pbdkit's world has
 * `precision: 'f32'`.
 */
function scene(n: number, bend: boolean, precision: Precision = 'f64'): FallingCloth {
  const key = `${n}/${bend}/${precision}`;
  let s = scenes.get(key);
  if (!s) {
    s = fallingCloth({ n, substeps: SUBSTEPS, bendCompliance: bend ? BEND_COMPLIANCE : false, precision });
    scenes.set(key, s);
  }
  return s;
}

function pbdkit(n: number, bend: boolean, precision: Precision = 'f64', threads = 1): () => BenchInstance {
  return () => {
    // the threaded instance (BenchCase.setupThreads) gets its own world; the peers use the 1-thread scene
    const s =
      threads > 1
        ? fallingCloth({
            n,
            substeps: SUBSTEPS,
            bendCompliance: bend ? BEND_COMPLIANCE : false,
            precision,
            threads,
          })
        : scene(n, bend, precision);
    const { world, cloth } = s;
    const perSubstep = cloth.stretch.count + (cloth.bend?.count ?? 0);
    const x = world.store.x;
    const off = cloth.offset;
    return {
      step: () => world.step(),
      projectionsPerStep: perSubstep * world.substeps,
      world,
      quality: () => edgeStretch(x.subarray(3 * off, 3 * (off + cloth.count)), s.edges, s.rest),
      info: `${cloth.count} vertices, ${cloth.stretch.count} stretch (${cloth.stretch.colors} colours), ${cloth.bend ? `${cloth.bend.count} dihedral bending (${cloth.bend.colors} colours)` : 'no bending'}; XPBD, ${SUBSTEPS} substeps × 1 iteration, forward sweep, ${precision}${precision === 'f32' ? ' (distance and bending kernels: blocked f32x4)' : ''}`,
    };
  };
}

/** XPBD compliance of the opt-in isometric bending (002 §4.3) of cloth-50-fall-isometric-f32. */
const ISO_COMPLIANCE = 1;

/**
 * pbdkit's cloth with 002's isometric bending (IsometricBending, a constant-Hessian quadratic) on
 * the same quads instead of its dihedral bending: the cheaper model, for its cost and its quality
 * column beside the dihedral cloth's and the peers'.
 */
function pbdkitIsometric(n: number, precision: Precision): () => BenchInstance {
  return () => {
    const s = fallingCloth({ n, substeps: SUBSTEPS, bendCompliance: false, precision });
    const { world, cloth } = s;
    const off = cloth.offset;
    const quads = Int32Array.from(scene(n, true, precision).quads, (v) => v + off);
    const iso = new IsometricBending(world.store, quads, { compliance: ISO_COMPLIANCE });
    world.addConstraintSet(iso);
    const x = world.store.x;
    return {
      step: () => world.step(),
      projectionsPerStep: (cloth.stretch.count + iso.count) * world.substeps,
      world,
      quality: () => edgeStretch(x.subarray(3 * off, 3 * (off + cloth.count)), s.edges, s.rest),
      info: `${cloth.count} vertices, ${cloth.stretch.count} stretch, ${iso.count} isometric bending (002 §4.3, compliance ${ISO_COMPLIANCE}) on the dihedral cloth's quads; XPBD, ${SUBSTEPS} substeps × 1, forward sweep, ${precision}`,
    };
  };
}

/**
 * The peers of a case. `jolt` false leaves Jolt out: a second 201 × 201 Jolt
 * soft body in the same process aborts with OOM in Jolt's WebAssembly heap
 * (cloth-201-fall-f32 after cloth-201-fall), and Jolt's cloth explodes there
 * anyway; cloth-201-fall has its row.
 */
function peers(
  n: number,
  bend: boolean,
  ammo: boolean,
  precision: Precision = 'f64',
  jolt = true,
): PeerCase[] {
  const scene = (m: number, b: boolean) => sceneOf(m, b, precision);
  const out: PeerCase[] = [];
  if (jolt)
    out.push({
      name: 'jolt',
      what: `Jolt soft body (jolt-physics wasm, f32, 1 thread), ${SUBSTEPS} iterations (XPBD substeps) × 1, same edges${bend ? ` + the same dihedral bends, compliance ${BEND_COMPLIANCE}` : ''}`,
      setup: () => joltCloth(scene(n, bend), SUBSTEPS, bend ? BEND_COMPLIANCE : false),
      targetRatio: ENGINE_RATIO,
    });
  if (ammo)
    out.push({
      name: 'ammo',
      what: `ammo.js btSoftBody (ammojs-typed wasm), 1 step × ${SUBSTEPS} position iterations, same edges${bend ? ` + one distance link per bending quad (stiffness ${AMMO_BEND_STIFFNESS})` : ''}`,
      setup: () => ammoCloth(scene(n, bend), SUBSTEPS, bend ? AMMO_BEND_STIFFNESS : false),
      targetRatio: ENGINE_RATIO,
    });
  out.push({
    name: 'plain',
    what: `plain JS, Ten Minute Physics style (f32 arrays), ${SUBSTEPS} substeps × 1, same edges${bend ? ` + one distance constraint per bending quad (compliance ${PLAIN_BEND_COMPLIANCE})` : ''}`,
    setup: () => plainCloth(scene(n, bend), SUBSTEPS, bend ? PLAIN_BEND_COMPLIANCE : false),
    targetRatio: bend ? 1 : undefined,
  });
  return out;
}

const sceneOf = scene;

const nsTargets = { stretch: 4, 'dihedral-bending': 10 };

export const cases: BenchCase[] = [
  {
    name: 'cloth-50-fall',
    description:
      '50×50 cloth falling from horizontal and folding, stretch + dihedral bending, XPBD, 5 substeps',
    setup: pbdkit(50, true),
    peers: peers(50, true, true),
    steps: 300,
    warmup: 60,
    target: { nsPerProjection: nsTargets, reference: 'same-run peers (issue 18)' },
  },
  {
    name: 'cloth-50-fall-stretch',
    description: 'cloth-50-fall with stretch constraints only',
    setup: pbdkit(50, false),
    peers: peers(50, false, true),
    steps: 300,
    warmup: 60,
    target: { nsPerProjection: nsTargets, reference: 'same-run peers (issue 18)' },
  },
  {
    name: 'cloth-201-fall',
    description:
      '201×201 cloth falling from horizontal, stretch + dihedral bending, XPBD, 5 substeps (frames 5–24: Jolt goes non-finite later)',
    setup: pbdkit(201, true),
    setupThreads: (t) => pbdkit(201, true, 'f64', t)(),
    peers: peers(201, true, true),
    steps: 20,
    warmup: 5,
    target: { nsPerProjection: nsTargets, reference: 'same-run peers (issue 18)' },
  },
  {
    name: 'cloth-50-fall-f32',
    description: "cloth-50-fall with precision: 'f32' (stretch and bending kernels in f32x4, docs/cloth.md)",
    setup: pbdkit(50, true, 'f32'),
    setupThreads: (t) => pbdkit(50, true, 'f32', t)(),
    peers: peers(50, true, true, 'f32'),
    steps: 300,
    warmup: 60,
    target: { nsPerProjection: nsTargets, reference: 'same-run peers (issue 18)' },
  },
  {
    name: 'cloth-50-fall-isometric-f32',
    description:
      "cloth-50-fall-f32 with 002's isometric bending (opt-in, cheaper) instead of the dihedral bending, on the same quads",
    setup: pbdkitIsometric(50, 'f32'),
    peers: peers(50, true, true, 'f32'),
    steps: 300,
    warmup: 60,
    target: {
      nsPerProjection: { stretch: 4, 'isometric-bending': 10 },
      reference: 'same-run peers (issue 18)',
    },
  },
  {
    name: 'cloth-201-fall-f32',
    description: "cloth-201-fall with precision: 'f32' (frames 5–24)",
    setup: pbdkit(201, true, 'f32'),
    setupThreads: (t) => pbdkit(201, true, 'f32', t)(),
    peers: peers(201, true, true, 'f32', false),
    steps: 20,
    warmup: 5,
    target: { nsPerProjection: nsTargets, reference: 'same-run peers (issue 18)' },
  },
];
