/**
 * 002 Figure 6: tet meshes recover their rest shape from degenerate and
 * inverted starts, by the inversion handling of §4.2 (SVD with the
 * reflection on the smallest singular value, stress clamped below σ_c).
 *
 * Eighteen starts — a tetrahedralised torus, a duck and a tet box; StVK and
 * Neo-Hookean; flattened (every y at the lowest y), mirrored (reflected in
 * x, every tet inverted) and scrambled (every vertex at a random point of
 * the rest bounding box) — run for 5 s without gravity under light point
 * damping (1/s), and we plot each one's shape error (the vertices' RMS
 * distance to the rest shape after the best rigid fit, relative to the
 * body's size) over time.
 *
 * Two more measurements explain the default clamp and what no clamp can
 * fix: scrambled starts over ten seeds each, at the former Neo-Hookean
 * clamp σ_c = 0.3 and at today's 1/√3; and a torus started with its tube
 * twisted once or twice around the ring (a Dehn twist), a state no path of
 * uninverted elements leads back from when the twist is odd (docs/continuum.md).
 */
import {
  duckMesh,
  type MaterialModel,
  SoftBody,
  type TetMesh,
  tetBox,
  tetrahedralize,
  torusMesh,
  World,
} from '../src/index.js';
import { type Row, writeCsv, writeLineChart } from './plot.js';

/** The setting of every run: no gravity, light point damping, 10 substeps of a 60 Hz frame. */
export const FIG6 = {
  dt: 1 / 60,
  substeps: 10,
  damping: 1,
  seconds: 5,
  youngsModulus: 1e5,
  poissonRatio: 0.3,
};

export type Fig6Body = 'torus' | 'duck' | 'box';
export type Fig6Start = 'flattened' | 'mirrored' | 'scrambled';
export const FIG6_BODIES: Fig6Body[] = ['torus', 'duck', 'box'];
export const FIG6_MODELS: MaterialModel[] = ['stvk', 'neo-hookean'];
export const FIG6_STARTS: Fig6Start[] = ['flattened', 'mirrored', 'scrambled'];

/** Ring radius of the torus (m); its tube radius is 0.12 m. */
const TORUS_R = 0.3;
const meshes = new Map<Fig6Body, TetMesh>();

/** The tet mesh of a body (built once): 724 tets (torus), 416 (duck), 320 (box). */
export function fig6Mesh(body: Fig6Body): TetMesh {
  let m = meshes.get(body);
  if (!m) {
    m =
      body === 'torus'
        ? tetrahedralize(torusMesh(TORUS_R, 0.12, 24, 12), { resolution: 7 }).mesh
        : body === 'duck'
          ? tetrahedralize(duckMesh(0.2, 3), { resolution: 6 }).mesh
          : tetBox({ size: [0.3, 0.3, 0.3], resolution: [5, 5, 5] });
    meshes.set(body, m);
  }
  return m;
}

export interface RecoveryResult {
  /** Shape error after `seconds` (RMS and largest, relative to the body's size; SoftBody.shapeError). */
  rms: number;
  max: number;
  /** Tets with non-positive volume at the end. */
  inverted: number;
  /** Kinetic energy per mass at the end (J/kg). */
  kineticPerMass: number;
  recoveries: number;
  speedClamps: number;
}

/**
 * Runs one start for `seconds` and calls `sample(time, body)` after every
 * frame. `start` may also be 'twisted-1' / 'twisted-2' (torus only): the
 * tube turned once or twice around the ring.
 */
export function recoveryRun(
  body: Fig6Body,
  model: MaterialModel,
  start: Fig6Start | 'twisted-1' | 'twisted-2',
  o: { seed?: number; clamp?: number; seconds?: number; sample?: (t: number, b: SoftBody) => void } = {},
): RecoveryResult {
  const world = new World({
    dt: FIG6.dt,
    substeps: FIG6.substeps,
    gravity: [0, 0, 0],
    damping: FIG6.damping,
  });
  const b = new SoftBody(world, {
    mesh: fig6Mesh(body),
    material: {
      model,
      youngsModulus: FIG6.youngsModulus,
      poissonRatio: FIG6.poissonRatio,
      clampStretch: o.clamp,
    },
  });
  if (start === 'twisted-1' || start === 'twisted-2') twistTorus(b, start === 'twisted-1' ? 1 : 2);
  else b.deform(start, o.seed ?? 1);
  const frames = Math.round((o.seconds ?? FIG6.seconds) / FIG6.dt);
  o.sample?.(0, b);
  for (let f = 1; f <= frames; f++) {
    world.step();
    o.sample?.(f * FIG6.dt, b);
  }
  const e = b.shapeError();
  return {
    rms: e.rms,
    max: e.max,
    inverted: b.invertedTets(),
    kineticPerMass: world.kineticEnergy() / bodyMass(b),
    recoveries: world.stats.recoveries,
    speedClamps: world.stats.speedClamps,
  };
}

function bodyMass(b: SoftBody): number {
  let m = 0;
  for (let i = 0; i < b.count; i++) m += b.world.store.mass[b.offset + i];
  return m;
}

/** Turns the torus's tube `turns` times around the ring (a Dehn twist of the solid torus). */
function twistTorus(b: SoftBody, turns: number): void {
  const { x, p } = b.world.store;
  const r = b.restPositions;
  for (let i = 0; i < b.count; i++) {
    const X = r[3 * i],
      Y = r[3 * i + 1],
      Z = r[3 * i + 2];
    const phi = Math.atan2(Z, X);
    const a = Math.hypot(X, Z) - TORUS_R;
    const th = turns * phi;
    const a2 = a * Math.cos(th) - Y * Math.sin(th),
      y2 = a * Math.sin(th) + Y * Math.cos(th);
    const g = 3 * (b.offset + i);
    x[g] = p[g] = (TORUS_R + a2) * Math.cos(phi);
    x[g + 1] = p[g + 1] = y2;
    x[g + 2] = p[g + 2] = (TORUS_R + a2) * Math.sin(phi);
  }
}

/** A start counts as recovered when no tet is inverted and its shape error is below 1 % of its size. */
export function recovered(r: RecoveryResult): boolean {
  return r.inverted === 0 && r.rms < 0.01;
}

const OLD_NEO_HOOKEAN_CLAMP = 0.3;

export async function fig6(
  outDir: string,
  o: { seeds?: number } = {},
): Promise<{ rows: Row[]; finals: Row[]; seeds: Row[]; twists: Row[]; files: string[] }> {
  const rows: Row[] = [];
  const finals: Row[] = [];
  for (const body of FIG6_BODIES) {
    for (const model of FIG6_MODELS) {
      for (const start of FIG6_STARTS) {
        const series = `${model === 'stvk' ? 'StVK' : 'Neo-Hookean'}, ${start}`;
        let frame = 0;
        const r = recoveryRun(body, model, start, {
          sample: (t, b) => {
            if (frame++ % 3 !== 0) return;
            const e = b.shapeError();
            rows.push({
              body,
              model,
              start,
              series,
              time: +t.toFixed(4),
              shapeError: e.rms,
              inverted: b.invertedTets(),
            });
          },
        });
        finals.push({ body, model, start, ...r, recovered: recovered(r) ? 1 : 0 });
      }
    }
  }
  // scrambled starts over several seeds, Neo-Hookean at the former and the current clamp
  const seeds: Row[] = [];
  const nSeeds = o.seeds ?? 10;
  for (const body of FIG6_BODIES) {
    for (const [model, clamp] of [
      ['stvk', undefined],
      ['neo-hookean', OLD_NEO_HOOKEAN_CLAMP],
      ['neo-hookean', undefined],
    ] as const) {
      let ok = 0;
      for (let seed = 1; seed <= nSeeds; seed++)
        if (recovered(recoveryRun(body, model, 'scrambled', { seed, clamp }))) ok++;
      seeds.push({ body, model, clamp: clamp ?? 1 / Math.sqrt(3), seeds: nSeeds, recovered: ok });
    }
  }
  const twists: Row[] = [];
  for (const start of ['twisted-1', 'twisted-2'] as const) {
    for (const [model, clamp] of [
      ['stvk', undefined],
      ['neo-hookean', OLD_NEO_HOOKEAN_CLAMP],
      ['neo-hookean', undefined],
    ] as const) {
      const r = recoveryRun('torus', model, start, { clamp, seconds: 10 });
      twists.push({ start, model, clamp: clamp ?? 1 / Math.sqrt(3), rms: r.rms, inverted: r.inverted });
    }
  }
  const files = [
    writeCsv(outDir, 'fig6-shape-error', rows),
    writeCsv(outDir, 'fig6-final', finals),
    writeCsv(outDir, 'fig6-scrambled-seeds', seeds),
    writeCsv(outDir, 'fig6-twisted-torus', twists),
  ];
  for (const body of FIG6_BODIES) {
    files.push(
      await writeLineChart(
        outDir,
        `fig6-shape-error-${body}`,
        rows
          .filter((r) => r.body === body)
          .map((r) => ({ ...r, shapeError: Math.max(r.shapeError as number, 1e-7) })),
        {
          title: `002 Figure 6: recovery of the ${body} (no gravity, damping 1/s)`,
          x: 'time',
          y: 'shapeError',
          series: 'series',
          xTitle: 'time (s)',
          yTitle: 'shape error (RMS distance / body size)',
          yLog: true,
          points: false,
        },
      ),
    );
  }
  return { rows, finals, seeds, twists, files };
}
