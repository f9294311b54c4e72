/** `pbdkit info <scene>`: what a scene holds — particles, constraints by kind and colour, colliders, bodies. */
import type { Command } from 'commander';
import type { SceneLimits } from '../../src/io/scene/limits.js';
import { type LoadedScene, loadSceneFile, resolveScenePath } from '../../src/node/files.js';
import { rigidAttachmentsKind } from '../../src/rigid/rigid-attachments.js';
import type { CliContext } from '../context.js';
import { formatSeconds, table } from '../format.js';
import { addLimitOptions, limitsFromFlags } from '../limits.js';

/** The facts `pbdkit info` prints (also its --json output). */
export interface SceneInfo {
  file: string;
  title: string;
  family: string;
  figure?: string;
  world: {
    dt: number;
    substeps: number;
    iterations: number;
    solver: string;
    sweep: string;
    gravity: number[];
    damping: number;
    wind: number[] | null;
  };
  particles: number;
  bodies: {
    name: string;
    type: string;
    vertices: number;
    spare: number;
    triangles: number;
    mass: number;
    pinned: number;
  }[];
  constraints: { kind: string; count: number; colors: number }[];
  colliders: { name: string; type: string; kinematic: boolean; position: number[]; rigid: number }[];
  /** Rigid bodies: shape, motion type, mass, pose, coupled with the particles, particles attached to it. */
  rigidBodies: {
    name: string;
    shape: string;
    type: string;
    mass: number;
    position: number[];
    coupled: boolean;
    attached: number;
  }[];
  bake: { frames: number; stepsPerFrame: number; seconds: number };
}

export function sceneInfo(s: LoadedScene): SceneInfo {
  const w = s.world;
  const store = w.store;
  return {
    file: s.file,
    title: s.spec.title,
    family: s.spec.family,
    figure: s.spec.figure,
    world: {
      dt: w.dt,
      substeps: w.substeps,
      iterations: w.iterations,
      solver: w.solver,
      sweep: w.sweep,
      gravity: Array.from(w.gravity),
      damping: w.damping,
      wind: w.wind ? [...w.wind.velocity] : null,
    },
    particles: w.bodies.reduce((n, b) => n + b.activeCount, 0),
    bodies: w.bodies.map((b) => {
      let mass = 0;
      let pinned = 0;
      for (let i = b.offset; i < b.offset + b.activeCount; i++) {
        mass += store.mass[i];
        if (w.attachments.isAttached(i)) pinned++;
      }
      return {
        name: b.name,
        type: b.type,
        vertices: b.activeCount,
        spare: b.count - b.activeCount,
        triangles: b.renderTriangles().length / 3,
        mass,
        pinned,
      };
    }),
    constraints: w.constraintSummary().filter((c) => c.count > 0),
    colliders: w.colliders.map((c, k) => ({
      name: c.name || `collider${k}`,
      type: c.type,
      kinematic: c.kinematic,
      position: Array.from(c.position),
      rigid: c.rigid ?? -1,
    })),
    rigidBodies: s.rigidBodies.map((b) => {
      const att = w.findSystem(rigidAttachmentsKind);
      let attached = 0;
      for (let k = 0; att && k < att.count; k++) if (att.body[k] === b.index) attached++;
      return {
        name: b.name,
        shape: b.shape.type,
        type: b.type,
        mass: b.mass,
        position: Array.from(b.position()),
        coupled: w.colliders.some((c) => c.rigid === b.index && c.mask !== 0),
        attached,
      };
    }),
    bake: {
      frames: s.frames,
      stepsPerFrame: s.stepsPerFrame,
      seconds: (s.frames - 1) * s.stepsPerFrame * w.dt,
    },
  };
}

const num = (v: number) => String(+v.toPrecision(4));
const vec = (v: number[]) => `[${v.map(num).join(', ')}]`;

/** A table whose rows are numbered from 0 in a first column `  #` (the bodies, colliders and rigid bodies of a scene). */
function numberedTable(header: string[], rows: (string | number)[][], align: ('l' | 'r')[] = []): string {
  return table([['  #', ...header], ...rows.map((r, k) => [`  ${k}`, ...r])], ['l', ...align]);
}

export function formatInfo(i: SceneInfo): string {
  const w = i.world;
  let out = `${i.file}: "${i.title}" (${i.family}${i.figure ? `; ${i.figure}` : ''})\n`;
  out += `world: dt ${formatSeconds(w.dt)}, ${w.substeps} substeps × ${w.iterations} iteration${w.iterations > 1 ? 's' : ''}, ${w.solver.toUpperCase()}, ${w.sweep} sweep, gravity ${vec(w.gravity)} m/s²`;
  out += `${w.damping ? `, damping ${num(w.damping)}/s` : ''}${w.wind ? `, wind ${vec(w.wind)} m/s` : ''}\n`;
  out += `particles: ${i.particles}\n\nbodies\n`;
  out += numberedTable(
    ['name', 'type', 'vertices', 'spare', 'triangles', 'mass (kg)', 'pinned'],
    i.bodies.map((b) => [b.name, b.type, b.vertices, b.spare, b.triangles, num(b.mass), b.pinned]),
    ['l', 'l', 'r', 'r', 'r', 'r', 'r'],
  );
  out += '\nconstraints\n';
  out += table(
    [['  kind', 'count', 'colours'], ...i.constraints.map((c) => [`  ${c.kind}`, c.count, c.colors])],
    ['l', 'r', 'r'],
  );
  out += '\ncolliders\n';
  out +=
    i.colliders.length === 0
      ? '  none\n'
      : numberedTable(
          ['name', 'type', 'motion', 'position'],
          i.colliders.map((c) => [
            c.name,
            c.type,
            c.rigid >= 0 ? 'rigid body' : c.kinematic ? 'kinematic' : 'static',
            vec(c.position),
          ]),
        );
  if (i.rigidBodies.length > 0) {
    out += '\nrigid bodies\n';
    out += numberedTable(
      ['name', 'shape', 'type', 'mass (kg)', 'position', 'coupled', 'attached'],
      i.rigidBodies.map((r) => [
        r.name,
        r.shape,
        r.type,
        Number.isFinite(r.mass) ? num(r.mass) : '∞',
        vec(r.position),
        r.coupled ? 'yes' : 'no',
        r.attached,
      ]),
      ['l', 'l', 'l', 'r', 'l', 'l', 'r'],
    );
  }
  const b = i.bake;
  out += `\nbake: ${b.frames} frames × ${b.stepsPerFrame} step${b.stepsPerFrame > 1 ? 's' : ''} = ${num(b.seconds)} s simulated\n`;
  return out;
}

export function registerInfo(program: Command, ctx: CliContext): void {
  const command = program
    .command('info')
    .description(
      'show what a scene holds: particles, constraints by kind with colour counts, colliders, bodies',
    )
    .argument('<scene>', 'scene file, or the name of a built-in scene')
    .option('--json', 'print the facts as JSON');
  addLimitOptions(command)
    .addHelpText('after', '\nExamples:\n  pbdkit info scenes/cloth-bag.json\n  pbdkit info cloth-flag --json')
    .action((scene: string, flags: { json?: boolean } & Partial<SceneLimits>) => {
      const info = sceneInfo(loadSceneFile(resolveScenePath(scene), { limits: limitsFromFlags(flags) }));
      ctx.out(flags.json ? `${JSON.stringify(info, null, 2)}\n` : formatInfo(info));
    });
}
