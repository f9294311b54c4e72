/**
 * BDF2 against implicit Euler (seed 004, "Second Order Methods";
 * WorldOptions.integrator): the mechanical energy of a swinging pendulum, a
 * three-link chain and a vibrating StVK bar over time, at the default step
 * (1/60 s in 10 substeps, one iteration).
 *
 * Implicit Euler's numerical damping takes a factor 1/(1 + (ωh)²) of an
 * oscillation's energy every substep, so a pendulum of 1 m (ω² = g/L) loses
 * most of its energy in a hundred periods; BDF2's is of higher order in ωh
 * and keeps it.
 */
import { DistanceConstraints, type IntegratorKind, SoftBody, tetBox, World } from '../src/index.js';
import { type Row, writeCsv, writeLineChart } from './plot.js';

const g = 9.81;

/** A system of the experiment and its mechanical energy (J). */
export interface EnergySystem {
  world: World;
  energy(): number;
  /** The energy a swing exchanges, for relative figures (J). */
  scale: number;
}

/** A chain of `links` inextensible links (1 m in all) of 0.1 kg particles, pinned at one end, released horizontal. */
export function pendulumChain(integrator: IntegratorKind, links: number): EnergySystem {
  const world = new World({ dt: 1 / 60, substeps: 10, integrator, gravity: [0, -g, 0] });
  const n = links + 1;
  const s = world.store.allocate(n, 0);
  for (let i = 0; i < n; i++) {
    world.store.x[3 * (s + i)] = i / links;
    world.store.setMass(s + i, 0.1);
  }
  const pairs: number[] = [];
  for (let i = 0; i < links; i++) pairs.push(s + i, s + i + 1);
  world.addConstraintSet(new DistanceConstraints(world.store, pairs, undefined, { compliance: 0 }));
  world.attachments.attach(s);
  let scale = 0;
  for (let i = 1; i <= links; i++) scale += 0.1 * g * (i / links);
  return {
    world,
    scale,
    energy() {
      let e = world.kineticEnergy();
      for (let i = 1; i < n; i++) e += 0.1 * g * world.store.x[3 * (s + i) + 1];
      return e;
    },
  };
}

/**
 * A 1 m × 0.1 m × 0.1 m StVK bar (10 × 2 × 2 cells, E = 1 MPa, ν = 0.3,
 * 1,000 kg/m³) clamped at one end, released straight under gravity: it
 * swings down and vibrates about its sagged shape (period about 2 s).
 * Energy: kinetic + gravitational + the StVK elastic energy of its tets.
 */
export function vibratingBar(integrator: IntegratorKind): EnergySystem {
  const world = new World({ dt: 1 / 60, substeps: 10, integrator });
  const body = new SoftBody(world, {
    mesh: tetBox({ size: [1, 0.1, 0.1], resolution: [10, 2, 2] }),
    material: { youngsModulus: 1e6, poissonRatio: 0.3 },
  });
  for (let i = 0; i < body.count; i++) if (body.restPositions[3 * i] < 1e-9) body.pin(i);
  const { x, mass, invMass } = world.store;
  const fem = body.fem;
  return {
    world,
    scale: 12, // J: about what the first swing turns from gravitational into kinetic and elastic energy
    energy() {
      let e = world.kineticEnergy() + (fem ? fem.energy(x) : 0);
      for (let i = body.offset; i < body.offset + body.count; i++)
        if (invMass[i] !== 0) e += mass[i] * g * x[3 * i + 1];
      return e;
    },
  };
}

/** Energy minus the starting energy, every `every` steps for `seconds`. */
export function energyTrace(sys: EnergySystem, seconds: number, every = 6): { t: number; dE: number }[] {
  const e0 = sys.energy();
  const out: { t: number; dE: number }[] = [{ t: 0, dE: 0 }];
  const steps = Math.round(seconds * 60);
  for (let k = 1; k <= steps; k++) {
    sys.world.step();
    if (k % every === 0 || k === steps) out.push({ t: sys.world.time, dE: sys.energy() - e0 });
  }
  return out;
}

const SYSTEMS: { name: string; seconds: number; make(i: IntegratorKind): EnergySystem }[] = [
  { name: 'pendulum 1 m (100 periods)', seconds: 237, make: (i) => pendulumChain(i, 1) },
  { name: 'three-link chain', seconds: 60, make: (i) => pendulumChain(i, 3) },
  { name: 'StVK bar', seconds: 20, make: vibratingBar },
];

/** What `pbdkit experiment bdf2` writes: the energy over time of each system with both integrators. */
export async function bdf2Experiment(
  outDir: string,
): Promise<{ rows: Row[]; finals: Row[]; files: string[] }> {
  const rows: Row[] = [];
  const finals: Row[] = [];
  const files: string[] = [];
  for (const sys of SYSTEMS) {
    const part: Row[] = [];
    for (const integrator of ['implicit-euler', 'bdf2'] as IntegratorKind[]) {
      const s = sys.make(integrator);
      const trace = energyTrace(s, sys.seconds, Math.max(1, Math.round((sys.seconds * 60) / 200)));
      for (const p of trace)
        part.push({ system: sys.name, series: integrator, time: p.t, energyPercent: (100 * p.dE) / s.scale });
      const last = trace[trace.length - 1];
      finals.push({
        system: sys.name,
        integrator,
        seconds: sys.seconds,
        energyChangePercent: (100 * last.dE) / s.scale,
      });
      s.world.dispose();
    }
    rows.push(...part);
    files.push(
      await writeLineChart(outDir, `bdf2-${sys.name.split(' ')[0].toLowerCase()}`, part, {
        title: `${sys.name}: energy change, 1/60 s in 10 substeps`,
        x: 'time',
        y: 'energyPercent',
        series: 'series',
        xTitle: 'time (s)',
        yTitle: 'E − E₀ (% of the swing energy)',
        points: false,
      }),
    );
  }
  files.unshift(writeCsv(outDir, 'bdf2-energy', rows), writeCsv(outDir, 'bdf2-final', finals));
  return { rows, finals, files };
}
