import { IsometricBending } from '../../src/index.js';
import type { BenchCase, BenchInstance, PeerCase } from '../harness.js';
import { ammoCloth } from '../peers/ammo.js';
import {
  CLOTH_DENSITY,
  CLOTH_SIZE,
  edgeStretch,
  type FallingCloth,
  FRAME_DT,
  fallingCloth,
} from '../peers/cloth-scene.js';
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
/** pbdkit's bending: 'dihedral' (003 §4.1), or 'distance' (ClothOptions.bend.model): ammo.js's and the plain script's model. */
type BendModel = 'dihedral' | 'distance';

/**
 * The compliance (m/N) of pbdkit's distance bending that matches ammo.js's bending links of PBD
 * stiffness k = AMMO_BEND_STIFFNESS on an n × n scene. Bullet projects a link (btSoftBody
 * PSolve_Links, m_c0 = (w_a + w_b)/kLST) by k of its violation per position iteration; an XPBD
 * projection from λ = 0 (one per substep, 001 Eq. 18) by w/(w + α̃), w = w_c + w_d, α̃ = α/h².
 * Equal fractions per projection: α = h² (1/k − 1) w, with w twice an interior vertex's inverse
 * mass 1/(ρ (L/(n − 1))²) (003 §4.1: ρA/3 of each of its six triangles). 50 × 50: α = 0.600;
 * 201 × 201: α = 10.0. Each engine then removes a tenth of a link's violation per projection, with
 * the same 5 projections per frame (ammo: 1 step × 5 iterations; pbdkit and Jolt: 5 substeps × 1).
 */
function matchedBendCompliance(n: number): number {
  const h = FRAME_DT / SUBSTEPS;
  const w = (2 * (n - 1) * (n - 1)) / (CLOTH_DENSITY * CLOTH_SIZE * CLOTH_SIZE);
  return h * h * (1 / AMMO_BEND_STIFFNESS - 1) * w;
}

/** The bending compliance of a scene: the dihedral's, or the distance bending's matched to ammo.js's. */
function bendComplianceOf(n: number, bend: boolean, model: BendModel): number | false {
  if (!bend) return false;
  return model === 'distance' ? matchedBendCompliance(n) : BEND_COMPLIANCE;
}

const scenes = new Map<string, FallingCloth>();
/**
 * One scene per configuration, shared by pbdkit's instance and its peers
 * (built on the first setup call); an f32 scene starts from the same
 * vertices, masses, edges and quads as the f64 one, only pbdkit's world has
 * `precision: 'f32'`.
 */
function scene(
  n: number,
  bend: boolean,
  precision: Precision = 'f64',
  model: BendModel = 'dihedral',
): FallingCloth {
  const key = `${n}/${bend}/${precision}/${model}`;
  let s = scenes.get(key);
  if (!s) {
    s = fallingCloth({
      n,
      substeps: SUBSTEPS,
      bendCompliance: bendComplianceOf(n, bend, model),
      bendModel: model,
      precision,
    });
    scenes.set(key, s);
  }
  return s;
}

function pbdkit(
  n: number,
  bend: boolean,
  precision: Precision = 'f64',
  threads = 1,
  model: BendModel = 'dihedral',
): () => BenchInstance {
  return () => {
    // the threaded instance (BenchCase.setupThreads) gets its own world; the peers use the 1-thread scene
    const s =
      threads > 1
        ? fallingCloth({
            n,
            substeps: SUBSTEPS,
            bendCompliance: bendComplianceOf(n, bend, model),
            bendModel: model,
            precision,
            threads,
          })
        : scene(n, bend, precision, model);
    const { world, cloth } = s;
    const links = cloth.bendLinks;
    const perSubstep = cloth.stretch.count + (cloth.bend?.count ?? 0) + (links?.count ?? 0);
    const x = world.store.x;
    const off = cloth.offset;
    const bending = cloth.bend
      ? `${cloth.bend.count} dihedral bending (${cloth.bend.colors} colours)`
      : links
        ? `${links.count} distance bending (${links.colors} colours; compliance ${links.rule.compliance.toPrecision(3)} m/N, matched to ammo.js's link stiffness ${AMMO_BEND_STIFFNESS})`
        : 'no bending';
    return {
      step: () => world.step(),
      projectionsPerStep: perSubstep * world.substeps,
      world,
      quality: () => edgeStretch(x.subarray(3 * off, 3 * (off + cloth.count)), s.edges, s.rest),
      info: `${cloth.count} vertices, ${cloth.stretch.count} stretch (${cloth.stretch.colors} colours), ${bending}; XPBD, ${SUBSTEPS} substeps × 1 iteration, forward sweep, ${precision}${precision === 'f32' ? ' (distance and bending kernels: blocked f32x4)' : ''}`,
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
 * The peers of a case. `jolt` false leaves Jolt out. Every peer is disposed
 * after its case (PeerInstance.dispose): Jolt's WebAssembly heap is one per
 * process, and before session 15 a third 201 × 201 Jolt soft body aborted
 * with OOM, so the f32 201 × 201 rows had no Jolt column.
 */
function peers(
  n: number,
  bend: boolean,
  ammo: boolean,
  precision: Precision = 'f64',
  jolt = true,
  model: BendModel = 'dihedral',
): PeerCase[] {
  const scene = (m: number, b: boolean) => sceneOf(m, b, precision, model);
  const matched = bend && model === 'distance';
  const alpha = matched ? matchedBendCompliance(n) : 0;
  const out: PeerCase[] = [];
  if (jolt)
    out.push({
      name: 'jolt',
      what: matched
        ? `Jolt soft body (jolt-physics wasm, f32, 1 thread), ${SUBSTEPS} iterations (XPBD substeps) × 1, same edges + one edge constraint per bending quad (Jolt's distance bending, compliance ${alpha.toPrecision(3)}): matched constraints`
        : `Jolt soft body (jolt-physics wasm, f32, 1 thread), ${SUBSTEPS} iterations (XPBD substeps) × 1, same edges${bend ? ` + the same dihedral bends, compliance ${BEND_COMPLIANCE}` : ''}`,
      setup: () =>
        joltCloth(scene(n, bend), SUBSTEPS, matched ? alpha : bend ? BEND_COMPLIANCE : false, model),
      targetRatio: ENGINE_RATIO,
    });
  if (ammo)
    out.push({
      name: 'ammo',
      what: `ammo.js btSoftBody (ammojs-typed wasm), 1 step × ${SUBSTEPS} position iterations, same edges${bend ? ` + one distance link per bending quad (stiffness ${AMMO_BEND_STIFFNESS})` : ''}${matched ? ': matched constraints (issue 18: ≤ 0.4)' : bend ? ' — not matched: pbdkit runs the dihedral bending on this row (the matched rows are the -distbend ones)' : ''}`,
      setup: () => ammoCloth(scene(n, bend), SUBSTEPS, bend ? AMMO_BEND_STIFFNESS : false),
      targetRatio: ENGINE_RATIO,
    });
  const plainAlpha = matched ? alpha : PLAIN_BEND_COMPLIANCE;
  out.push({
    name: 'plain',
    what: `plain JS, Ten Minute Physics style (f32 arrays), ${SUBSTEPS} substeps × 1, same edges${bend ? ` + one distance constraint per bending quad (compliance ${plainAlpha.toPrecision(3)})` : ''}`,
    setup: () => plainCloth(scene(n, bend), SUBSTEPS, bend ? plainAlpha : false),
    targetRatio: bend ? 1 : undefined,
  });
  return out;
}

const sceneOf = scene;

const nsTargets = { stretch: 4, 'dihedral-bending': 10 };
/** The distance bending is a distance projection: issue 18's 4 ns. */
const nsTargetsDist = { stretch: 4, 'distance-bending': 4 };

/** A row of the table below: what differs from cloth-50-fall. */
interface FallVariant {
  n: 50 | 201;
  /** Stretch constraints only (no bending; ammo.js but not the matched model). */
  stretchOnly?: boolean;
  precision?: Precision;
  model?: BendModel;
  /** 002's isometric bending on the dihedral cloth's quads instead of the dihedral bending. */
  isometric?: boolean;
  /** A threaded instance too (BenchCase.setupThreads, bench/scaling.ts). */
  threads?: boolean;
  description: string;
}

/**
 * The case of a variant: its name from what differs (cloth-N-fall[-stretch][-distbend][-isometric][-f32]),
 * 300 frames after 60 at 50 × 50 and 20 after 5 at 201 × 201 (Jolt goes non-finite later), its peers
 * built on the same scene, and issue 18's ns targets of its bending.
 */
function fallCase(v: FallVariant): BenchCase {
  const { n, precision = 'f64', model = 'dihedral' } = v;
  const bend = !v.stretchOnly;
  const tags = [v.stretchOnly && 'stretch', model === 'distance' && 'distbend', v.isometric && 'isometric'];
  if (precision === 'f32') tags.push('f32');
  const nsPerProjection = v.isometric
    ? { stretch: 4, 'isometric-bending': 10 }
    : model === 'distance'
      ? nsTargetsDist
      : nsTargets;
  const matched = model === 'distance' ? ', matched constraints' : '';
  return {
    name: [`cloth-${n}-fall`, ...tags.filter((t) => t)].join('-'),
    description: v.description,
    setup: v.isometric ? pbdkitIsometric(n, precision) : pbdkit(n, bend, precision, 1, model),
    ...(v.threads ? { setupThreads: (t: number) => pbdkit(n, bend, precision, t, model)() } : {}),
    peers: peers(n, bend, true, precision, true, model),
    steps: n === 50 ? 300 : 20,
    warmup: n === 50 ? 60 : 5,
    target: { nsPerProjection, reference: `same-run peers${matched} (issue 18)` },
  };
}

export const cases: BenchCase[] = [
  fallCase({
    n: 50,
    description:
      '50×50 cloth falling from horizontal and folding, stretch + dihedral bending, XPBD, 5 substeps',
  }),
  fallCase({ n: 50, stretchOnly: true, description: 'cloth-50-fall with stretch constraints only' }),
  fallCase({
    n: 201,
    threads: true,
    description:
      '201×201 cloth falling from horizontal, stretch + dihedral bending, XPBD, 5 substeps (frames 5–24: Jolt goes non-finite later)',
  }),
  fallCase({
    n: 50,
    precision: 'f32',
    threads: true,
    description: "cloth-50-fall with precision: 'f32' (stretch and bending kernels in f32x4, docs/cloth.md)",
  }),
  fallCase({
    n: 50,
    model: 'distance',
    description:
      "cloth-50-fall with ammo.js's constraint model: stretch + one distance constraint across each bending quad (ClothOptions.bend.model 'distance'), compliance matched to ammo's link stiffness 0.1; f64",
  }),
  fallCase({
    n: 50,
    model: 'distance',
    precision: 'f32',
    description:
      "cloth-50-fall-distbend with precision: 'f32': the matched comparison with ammo.js (issue 18: ≤ 0.4)",
  }),
  fallCase({
    n: 50,
    isometric: true,
    precision: 'f32',
    description:
      "cloth-50-fall-f32 with 002's isometric bending (opt-in, cheaper) instead of the dihedral bending, on the same quads",
  }),
  fallCase({
    n: 201,
    precision: 'f32',
    threads: true,
    description: "cloth-201-fall with precision: 'f32' (frames 5–24)",
  }),
  fallCase({
    n: 201,
    model: 'distance',
    precision: 'f32',
    threads: true,
    description:
      "cloth-201-fall-f32 with ammo.js's constraint model (distance bending matched to ammo's link stiffness; frames 5–24)",
  }),
];
