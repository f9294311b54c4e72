/**
 * Baking a scene to files — what `pbdkit simulate` does — with checkpoints
 * that let an interrupted bake continue to exactly the output an
 * uninterrupted one writes.
 *
 * Frames: frame 0 is the initial state; frame f is the state after
 * f · stepsPerFrame world steps. A bake of N frames writes frames 0 … N − 1.
 *
 * Checkpoints: a bake works in a sidecar folder next to its first output
 * (`<out>.checkpoint/`). Each frame is appended to `frames.log` there; every
 * `checkpointEvery` frames (and when stopped) `checkpoint.json` records the
 * world state (World.saveState, encoded exactly) and the log's length,
 * written atomically. Resuming loads that state, truncates the log to that
 * length and carries on. The simulation is deterministic and the outputs are
 * assembled from the log at the end, so a resumed bake writes the same bytes
 * as an uninterrupted one (except the measured step times in the statistics).
 * The sidecar folder is removed when the bake completes.
 */
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Logger, NodeIO } from '@gltf-transform/core';
import { EXTMeshoptCompression, KHRMeshQuantization } from '@gltf-transform/extensions';
import { meshopt } from '@gltf-transform/functions';
import { MeshoptEncoder } from 'meshoptimizer';
import type { Cloth } from '../cloth/cloth.js';
import { findColliderContacts } from '../collision/collider-contacts.js';
import { type EnergyAlarm, EnergyWatch } from '../core/energy-watch.js';
import { PbdError } from '../core/errors.js';
import type { World } from '../core/world.js';
import type { WorldBody } from '../core/world-body.js';
import { colliderMesh, shapeMesh } from '../io/collider-meshes.js';
import { type AnimatedBody, type AnimatedObject, buildGltfAnimation } from '../io/gltf-animation.js';
import { formatObj } from '../io/obj.js';
import { bodyColor, colliderColor, groundColor, kinematicColliderColor, linearRgb } from '../io/palette.js';
import { bodyToPly } from '../io/ply.js';
import type { SceneLimits } from '../io/scene/limits.js';
import { quatMultiply } from '../math/quat.js';
import {
  type LoadedScene,
  loadSceneFile,
  readTextFile,
  removeStaleTemporaries,
  writeFileAtomic,
} from './files.js';
import { type BodyRecord, FrameLogWriter, type FrameRecord, readFrameLog } from './frame-log.js';
import { objFile, objNames, poseMesh, rigidObjMeshes } from './obj-frames.js';
import { checkWorldState, decodeExactJson, encodeExactJson } from './state-codec.js';

/** What to bake and where to write it. */
export interface BakeOptions {
  /** Scene file. */
  scene: string;
  /** Frames to write (frame 0 is the initial state). Default: the scene's output.frames, else 120. */
  frames?: number;
  /** World steps per frame. Default: the scene's output.stepsPerFrame, else 1. */
  stepsPerFrame?: number;
  /** Frame rate of the glTF animation. Default: real time, 1 / (stepsPerFrame · dt). */
  fps?: number;
  /** `*.glb`: a glTF animation; a folder (ends with `/`, exists, or is a new name without an extension): one OBJ per body per frame. */
  out?: string;
  /** CSV file of per-frame statistics. */
  stats?: string;
  /** JSON file of every body's final positions and velocities. */
  exportState?: string;
  /** Write a checkpoint every this many frames (0: only when stopped). Default 10. */
  checkpointEvery?: number;
  /** Sidecar folder for checkpoints. Default `<first output>.checkpoint`. */
  checkpointDir?: string;
  /** Continue from the checkpoint in the sidecar folder. */
  resume?: boolean;
  /** Discard an existing checkpoint and start over. */
  restart?: boolean;
  /** Write vertex normals into the glb. Default true. */
  normals?: boolean;
  /** Most frames one glTF mesh holds (morph targets + 1). Default 100. */
  framesPerMesh?: number;
  /** Quantise and meshopt-compress the glb (KHR_mesh_quantization, EXT_meshopt_compression). Default true. */
  compress?: boolean;
  /** What the scene may allocate (see SceneLimits); defaults keep a bake within a few GiB. */
  limits?: Partial<SceneLimits>;
  /** Largest glb to write (bytes): a longer bake is refused before it starts. Default 2 GiB. */
  maxOutputBytes?: number;
  /** Threads of the world (the results are the same for every count). Default: the scene's world.threads, else `defaultThreads`. */
  threads?: number;
  /** Threads where neither `threads` nor the scene's world.threads says, for a scene worth them (BuildOptions.defaultThreads). Default 1; the CLI passes all cores. */
  defaultThreads?: number;
}

/** Default largest glb: 2 GiB (a glb is assembled in memory, and its chunks are limited to 4 GiB). */
export const DEFAULT_MAX_GLB_BYTES = 2 * 1024 ** 3;

export interface BakePlan {
  scene: LoadedScene;
  frames: number;
  stepsPerFrame: number;
  fps: number;
  /** First frame this run simulates (> 0 when resuming). */
  startFrame: number;
  checkpointDir: string | null;
  outKind: 'glb' | 'obj' | null;
}

export interface BakeProgress {
  /** Frame just finished. */
  frame: number;
  frames: number;
  startFrame: number;
  /** Mean wall time per step over this frame (ms). */
  stepMs: number;
  /** Wall time since this run started simulating (ms). */
  elapsedMs: number;
}

export interface BakeHooks {
  /** Called once the scene is loaded and the plan is known, before simulating. */
  onStart?(plan: BakePlan): void;
  onFrame?(p: BakeProgress): void;
  onCheckpoint?(frame: number, dir: string): void;
  /** Called before the outputs are assembled. */
  onWrite?(): void;
  /** Polled after every frame; when it returns true the bake stops there with a checkpoint. */
  shouldStop?(): boolean;
}

export interface BakeResult {
  status: 'complete' | 'interrupted';
  plan: BakePlan;
  /** Last frame written to the log (frames − 1 when complete). */
  lastFrame: number;
  /** Files written (complete bakes). */
  outputs: string[];
  /** Particles reset after becoming non-finite, and moves clamped to maxSpeed, in this run. */
  recoveries: number;
  speedClamps: number;
  /** The first body that gained kinetic energy from nowhere in this run (EnergyWatch), or null. */
  energyAlarm: EnergyAlarm | null;
  /** Wall time of the simulation in this run (ms). */
  simulateMs: number;
}

interface Checkpoint {
  format: 'pbdkit-checkpoint';
  version: 1;
  digest: string;
  stepsPerFrame: number;
  outKind: 'glb' | 'obj' | null;
  columns: string[];
  frame: number;
  logBytes: number;
  state: unknown;
}

const CHECKPOINT = 'checkpoint.json';
const LOG = 'frames.log';

/**
 * Kind of output a `--out` value names: `*.glb` a glTF animation; a folder (a path ending with a
 * slash, an existing folder, or a new name without an extension) one OBJ per body per frame.
 */
export function outputKind(out: string): 'glb' | 'obj' {
  if (/[\\/]$/.test(out) || (existsSync(out) && statSync(out).isDirectory())) return 'obj';
  if (/\.glb$/i.test(out)) return 'glb';
  const name = out.split(/[\\/]/).pop() ?? '';
  if (!existsSync(out) && !name.slice(1).includes('.')) return 'obj';
  throw new PbdError(
    'usage/out',
    `--out ${out}`,
    existsSync(out)
      ? 'is a file, and neither a .glb file nor a folder'
      : 'is neither a .glb file nor a folder',
    'write a glTF animation with --out name.glb, or OBJ files with --out folder (a name without an extension, or ending with /)',
  );
}

/** The sidecar checkpoint folder of a bake (null when it writes no file). */
export function checkpointDirFor(o: Pick<BakeOptions, 'out' | 'stats' | 'exportState' | 'checkpointDir'>) {
  if (o.checkpointDir) return o.checkpointDir;
  const first = o.out ?? o.stats ?? o.exportState;
  return first ? `${first.replace(/[\\/]+$/, '')}.checkpoint` : null;
}

/** Statistics columns of the CSV (and of the frame log), for a world. */
/**
 * The timing columns of the CSV (ms per step, the mean over the frame's
 * steps) and the labels of World.timings each sums: the phases of the step,
 * the collision system's broad and narrow phase (part of prepare), and each
 * constraint kind's projection (part of solve).
 */
export function timingColumns(world: World): [string, string[]][] {
  const kinds: string[] = [];
  for (const s of world.sets) if (!kinds.includes(s.kind)) kinds.push(s.kind);
  return [
    ['ms_forces', ['colliders.move', 'sets.applyForces', 'sets.dampVelocities']],
    ['ms_predict', ['particles.predict', 'orientations.predict', 'rigids.predict']],
    ['ms_prepare', ['sets.beginStep']],
    ['ms_collision_broad', ['collision.broad']],
    ['ms_collision_narrow', ['collision.narrow']],
    ['ms_solve', ['sets.project']],
    ...kinds.map((k): [string, string[]] => [`ms_project_${k}`, [`project:${k}`]]),
    ['ms_update', ['particles.update', 'orientations.update', 'rigids.update']],
    ['ms_finish', ['sets.endStep']],
  ];
}

export function statsColumns(world: World): string[] {
  const kinds: string[] = [];
  for (const s of world.sets) if (s.maxViolation && !kinds.includes(s.kind)) kinds.push(s.kind);
  return [
    'frame',
    'time',
    'steps',
    'step_ms',
    'step_ms_max',
    'kinetic_energy',
    'max_violation',
    ...kinds.map((k) => `violation_${k}`),
    'particles',
    'constraints',
    'contacts',
    'recoveries',
    'speed_clamps',
    ...timingColumns(world).map(([c]) => c),
  ];
}

function bodyUvs(body: WorldBody): Float64Array | null {
  const uvs = (body as Partial<Cloth>).uvs;
  // texture coordinates belong to the particle vertices; an embedded render mesh has none
  if (body.hasRenderMesh) return null;
  return uvs instanceof Float64Array ? uvs.subarray(0, 2 * body.activeCount) : null;
}

/** Vertices of what a body renders (its particles, or an embedded render mesh). */
/**
 * Refuses a glb bake whose output would pass options.maxOutputBytes, before
 * it starts: every frame stores each render vertex's position (and normal)
 * as 32-bit floats.
 */
function checkGlbSize(world: World, frames: number, options: BakeOptions): void {
  const max = options.maxOutputBytes ?? DEFAULT_MAX_GLB_BYTES;
  let vertices = 0;
  for (const b of world.bodies) vertices += renderVertexCount(b);
  const perVertex = options.normals === false ? 12 : 24;
  const bytes = frames * vertices * perVertex;
  if (bytes > max) {
    const mb = (n: number) => `${(n / 1e6).toFixed(0)} MB`;
    throw new PbdError(
      'bake/too-large',
      options.out ?? 'out',
      `${frames} frames of ${vertices} vertices would make a glb of about ${mb(bytes)}, more than the limit of ${mb(max)}`,
      'bake fewer frames (--frames), write OBJ files to a folder (--out DIR/), or raise --max-output-mb',
    );
  }
}

function renderVertexCount(body: WorldBody): number {
  return body.hasRenderMesh ? body.renderPositions().length / 3 : body.activeCount;
}

/** Bakes a scene (see the module comment). Errors in the input are PbdErrors. */
export async function bake(options: BakeOptions, hooks: BakeHooks = {}): Promise<BakeResult> {
  checkOptions(options);
  const outKind = options.out ? outputKind(options.out) : null;
  const checkpointDir = checkpointDirFor(options);
  if (options.resume && options.restart) {
    throw new PbdError('usage/resume', '--resume --restart', 'contradict each other', 'give one of them');
  }
  if (options.resume && !checkpointDir) {
    throw new PbdError(
      'usage/resume',
      '--resume',
      'needs an output (--out, --stats or --export-state) whose checkpoint to continue',
      'repeat the options of the interrupted bake',
    );
  }
  const scene = loadSceneFile(options.scene, {
    limits: options.limits,
    ...(options.threads !== undefined ? { threads: options.threads } : {}),
    ...(options.defaultThreads !== undefined ? { defaultThreads: options.defaultThreads } : {}),
  });
  const world = scene.world;
  await world.threadsReady();
  const frames = options.frames ?? scene.frames;
  const stepsPerFrame = options.stepsPerFrame ?? scene.stepsPerFrame;
  if (outKind === 'glb') checkGlbSize(world, frames, options);
  const fps = options.fps ?? 1 / (stepsPerFrame * world.dt);
  const every = options.checkpointEvery ?? 10;
  const columns = statsColumns(world);
  const timing = timingColumns(world);
  const timingSums = new Float64Array(timing.length);
  const checkpointPath = checkpointDir ? join(checkpointDir, CHECKPOINT) : null;
  const logPath = checkpointDir ? join(checkpointDir, LOG) : null;

  // ---- start fresh or resume ----
  let startFrame = 0;
  let log: FrameLogWriter | null = null;
  if (checkpointDir && checkpointPath && logPath) {
    const exists = existsSync(checkpointPath);
    if (options.resume) {
      if (!exists) {
        throw new PbdError(
          'bake/no-checkpoint',
          checkpointDir,
          'holds no checkpoint to resume from',
          'run without --resume to start the bake (or give the same outputs as the interrupted bake)',
        );
      }
      const ck = decodeExactJson(readTextFile(checkpointPath, 'checkpoint'), checkpointPath) as Checkpoint;
      const mismatch = (what: string, hint: string) =>
        new PbdError('bake/checkpoint-mismatch', checkpointPath, what, hint);
      if (ck?.format !== 'pbdkit-checkpoint' || ck.version !== 1) {
        throw mismatch('is not a pbdkit checkpoint', 'start over with --restart');
      }
      if (ck.digest !== scene.digest) {
        throw mismatch(
          `was made from a different version of ${scene.file} (or of a mesh it reads)`,
          'restore the scene the bake started with, or start over with --restart',
        );
      }
      if (ck.stepsPerFrame !== stepsPerFrame) {
        throw mismatch(
          `was made with ${ck.stepsPerFrame} steps per frame, not ${stepsPerFrame}`,
          `resume with --steps-per-frame ${ck.stepsPerFrame}, or start over with --restart`,
        );
      }
      if (ck.outKind !== outKind) {
        throw mismatch(
          `was made for ${ck.outKind ?? 'no'} output, not ${outKind ?? 'none'}`,
          'resume with the --out of the interrupted bake, or start over with --restart',
        );
      }
      if (ck.frame + 1 > frames) {
        throw mismatch(
          `already holds ${ck.frame + 1} frames, more than the ${frames} asked for`,
          `resume with --frames ${ck.frame + 1} or more, or start over with --restart`,
        );
      }
      world.loadState(checkWorldState(ck.state, checkpointPath));
      // a bake killed mid-write leaves its temporary files behind: clear them
      if (options.out) removeStaleTemporaries(outKind === 'obj' ? options.out : dirname(options.out));
      for (const extra of [options.stats, options.exportState])
        if (extra) removeStaleTemporaries(dirname(extra));
      log = new FrameLogWriter(logPath, ck.logBytes);
      startFrame = ck.frame + 1;
    } else {
      if (exists && !options.restart) {
        throw new PbdError(
          'bake/checkpoint-exists',
          checkpointDir,
          'holds the checkpoint of an interrupted bake',
          'continue it with --resume, or discard it and start over with --restart',
        );
      }
      rmSync(checkpointDir, { recursive: true, force: true });
      mkdirSync(checkpointDir, { recursive: true });
      log = new FrameLogWriter(logPath);
    }
  }
  if (outKind === 'obj' && options.out) mkdirSync(options.out, { recursive: true });

  const plan: BakePlan = { scene, frames, stepsPerFrame, fps, startFrame, checkpointDir, outKind };
  hooks.onStart?.(plan);

  const bodies = world.bodies;
  const names = objNames(bodies);
  const rigidObjs = outKind === 'obj' ? rigidObjMeshes(scene, names) : [];
  const topology = bodies.map((b) => b.topologyVersion);
  const vertexCounts = bodies.map((b) => renderVertexCount(b));
  let lastCheckpoint = startFrame - 1;
  const stats = new Float64Array(columns.length);
  const rigidPoses = new Float64Array(7 * world.rigids.count);
  const col = (name: string) => columns.indexOf(name);
  const violationColumns = columns.flatMap((c, k) =>
    c.startsWith('violation_') ? [[k, c.slice('violation_'.length)] as const] : [],
  );

  const record = (
    frame: number,
    steps: number,
    stepMsSum: number,
    stepMsMax: number,
    rec: number,
    clamp: number,
  ) => {
    stats.fill(0);
    stats[col('frame')] = frame;
    stats[col('time')] = world.time;
    stats[col('steps')] = steps;
    stats[col('step_ms')] = steps > 0 ? stepMsSum / steps : 0;
    stats[col('step_ms_max')] = stepMsMax;
    stats[col('kinetic_energy')] = world.kineticEnergy();
    stats[col('max_violation')] = world.maxViolation();
    for (const [c, kind] of violationColumns) {
      let m = 0;
      for (const s of world.sets)
        if (s.kind === kind && s.enabled && s.maxViolation) m = Math.max(m, s.maxViolation(world.store));
      stats[c] = m;
    }
    let particles = 0;
    for (const b of bodies) particles += b.activeCount;
    stats[col('particles')] = particles;
    stats[col('constraints')] = world.constraintCount();
    stats[col('contacts')] = findColliderContacts(world)?.count ?? 0;
    stats[col('recoveries')] = rec;
    stats[col('speed_clamps')] = clamp;
    for (let t = 0; t < timing.length; t++) stats[col(timing[t][0])] = steps > 0 ? timingSums[t] / steps : 0;
    const recs: BodyRecord[] = bodies.map((b, k) => {
      const vertices = renderVertexCount(b);
      const changed = frame === 0 || b.topologyVersion !== topology[k] || vertices !== vertexCounts[k];
      topology[k] = b.topologyVersion;
      vertexCounts[k] = vertices;
      return {
        vertices,
        triangles: changed ? b.renderTriangles() : null,
        lines: changed ? b.renderLines() : null,
        uvs: changed ? bodyUvs(b) : null,
        positions: outKind === 'glb' ? b.renderPositions() : null,
      };
    });
    const rg = world.rigids;
    for (let i = 0; i < rg.count; i++) {
      for (let d = 0; d < 3; d++) rigidPoses[7 * i + d] = rg.x[3 * i + d];
      for (let d = 0; d < 4; d++) rigidPoses[7 * i + 3 + d] = rg.q[4 * i + d];
    }
    log?.append(frame, stats, recs, rigidPoses);
    if (outKind === 'obj' && options.out) {
      bodies.forEach((b, k) => {
        const comment = `pbdkit: ${scene.file}, body '${b.name}', frame ${frame}, t = ${world.time} s`;
        const file = objFile(options.out!, names[k], frame, frames);
        const lines = b.renderLines();
        if (b.renderTriangles().length === 0 && lines.length > 0) {
          // strands: OBJ polylines (`l`)
          writeFileAtomic(file, formatObj(b.renderPositions(), [], { lines, comment }));
        } else if (b.renderTriangles().length === 0) {
          // a particle body (fluid, granular): a PLY point cloud with velocities and stable ids
          writeFileAtomic(file.replace(/\.obj$/, '.ply'), bodyToPly(b, { comment }));
        } else {
          writeFileAtomic(
            file,
            formatObj(b.renderPositions(), b.renderTriangles(), { uvs: bodyUvs(b), comment }),
          );
        }
      });
      // rigid bodies: their shape's mesh at the frame's pose
      for (const o of rigidObjs) {
        poseMesh(o.posed, o.positions, rg, o.index);
        const comment = `pbdkit: ${scene.file}, rigid body '${o.body}', frame ${frame}, t = ${world.time} s`;
        writeFileAtomic(
          objFile(options.out!, o.name, frame, frames),
          formatObj(o.posed, o.triangles, { comment }),
        );
      }
    }
  };

  const checkpoint = (frame: number) => {
    if (!checkpointPath || !log || frame === lastCheckpoint) return;
    const ck: Checkpoint = {
      format: 'pbdkit-checkpoint',
      version: 1,
      digest: scene.digest,
      stepsPerFrame,
      outKind,
      columns,
      frame,
      logBytes: log.bytes,
      state: world.saveState(),
    };
    writeFileAtomic(checkpointPath, encodeExactJson(ck));
    lastCheckpoint = frame;
    hooks.onCheckpoint?.(frame, checkpointDir!);
  };

  // ---- simulate ----
  const t0 = performance.now();
  let recoveries = 0;
  let speedClamps = 0;
  const watch = new EnergyWatch(world);
  let frame = startFrame;
  let stopped = false;
  try {
    if (frame === 0) {
      record(0, 0, 0, 0, 0, 0);
      checkpoint(0);
      hooks.onFrame?.({ frame: 0, frames, startFrame, stepMs: 0, elapsedMs: performance.now() - t0 });
      frame = 1;
    }
    for (; frame < frames; frame++) {
      let sum = 0;
      let max = 0;
      const r0 = world.stats.recoveries;
      const c0 = world.stats.speedClamps;
      timingSums.fill(0);
      for (let s = 0; s < stepsPerFrame; s++) {
        world.step();
        for (let t = 0; t < timing.length; t++)
          for (const label of timing[t][1]) timingSums[t] += world.timings.ms(label);
        watch.observe();
        sum += world.stats.stepMs;
        max = Math.max(max, world.stats.stepMs);
        // let signal handlers run (Ctrl-C, kill) so the bake can stop with a checkpoint
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      const rec = world.stats.recoveries - r0;
      const clamp = world.stats.speedClamps - c0;
      recoveries += rec;
      speedClamps += clamp;
      record(frame, stepsPerFrame, sum, max, rec, clamp);
      hooks.onFrame?.({
        frame,
        frames,
        startFrame,
        stepMs: sum / stepsPerFrame,
        elapsedMs: performance.now() - t0,
      });
      if (frame === frames - 1 || (every > 0 && frame % every === 0)) checkpoint(frame);
      if (hooks.shouldStop?.() && frame < frames - 1) {
        checkpoint(frame);
        stopped = true;
        break;
      }
    }
  } finally {
    log?.close();
    world.dispose();
  }
  const simulateMs = performance.now() - t0;
  const result: BakeResult = {
    status: stopped ? 'interrupted' : 'complete',
    plan,
    lastFrame: stopped ? frame : frames - 1,
    outputs: [],
    recoveries,
    speedClamps,
    energyAlarm: watch.first,
    simulateMs,
  };
  if (stopped) return result;

  // ---- assemble the outputs from the log ----
  hooks.onWrite?.();
  const records =
    logPath && (outKind === 'glb' || options.stats)
      ? readFrameLog(logPath, columns.length, bodies.length, undefined, world.rigids.count)
      : [];
  if (records.length > 0 && records.length !== frames) {
    throw new PbdError(
      'bake/log-corrupt',
      logPath!,
      `holds ${records.length} frames, expected ${frames}`,
      'start over with --restart',
    );
  }
  if (outKind === 'glb' && options.out) {
    const glb = await glbFromRecords(records, scene, fps, options);
    writeFileAtomic(options.out, glb);
    result.outputs.push(options.out);
  } else if (outKind === 'obj' && options.out) {
    result.outputs.push(options.out);
  }
  if (options.stats) {
    writeFileAtomic(options.stats, statsCsv(columns, records));
    result.outputs.push(options.stats);
  }
  if (options.exportState) {
    writeFileAtomic(options.exportState, exportStateJson(scene, frames - 1));
    result.outputs.push(options.exportState);
  }
  if (checkpointDir) rmSync(checkpointDir, { recursive: true, force: true });
  return result;
}

function checkOptions(o: BakeOptions): void {
  const check = (value: number | undefined, option: string, ok: boolean, what: string) => {
    if (value !== undefined && !ok) {
      throw new PbdError('usage/option', option, `must be ${what}, got ${value}`, `e.g. ${option} 10`);
    }
  };
  const whole = (v: number | undefined, min: number) => v === undefined || (Number.isInteger(v) && v >= min);
  check(o.frames, '--frames', whole(o.frames, 1), 'a whole number ≥ 1');
  check(o.stepsPerFrame, '--steps-per-frame', whole(o.stepsPerFrame, 1), 'a whole number ≥ 1');
  check(o.framesPerMesh, '--frames-per-mesh', whole(o.framesPerMesh, 1), 'a whole number ≥ 1');
  check(o.checkpointEvery, '--checkpoint-every', whole(o.checkpointEvery, 0), 'a whole number ≥ 0');
  check(o.fps, '--fps', o.fps === undefined || (o.fps > 0 && Number.isFinite(o.fps)), 'a positive number');
}

/** The glb of a bake from its frame records. */
async function glbFromRecords(
  records: FrameRecord[],
  scene: LoadedScene,
  fps: number,
  options: BakeOptions,
): Promise<Uint8Array> {
  const world = scene.world;
  const bodies: AnimatedBody[] = world.bodies.map((b, k) => ({
    name: b.name,
    color: linearRgb(bodyColor(k, b.type)),
    frames: records.map((r) => {
      const rb = r.bodies[k];
      return { positions: rb.positions!, triangles: rb.triangles, lines: rb.lines, uvs: rb.uvs };
    }),
  }));
  // the time of each frame: the poses of colliders and attachment targets are functions of it
  const frameTimes = records.map((r) => r.frame * scene.stepsPerFrame * world.dt);
  const spec = scene.spec;
  const doc = buildGltfAnimation(bodies, {
    times: records.map((r) => r.frame / fps),
    normals: options.normals ?? true,
    maxFramesPerClip: options.framesPerMesh ?? 100,
    objects: [
      ...colliderObjects(scene, frameTimes, records),
      ...rigidObjects(scene, records),
      ...attachmentTargets(world, frameTimes),
    ],
    camera: spec.camera
      ? {
          position: spec.camera.position as [number, number, number],
          target: spec.camera.target as [number, number, number],
        }
      : undefined,
    extras: {
      generator: 'pbdkit',
      scene: basename(scene.file),
      title: spec.title,
      frames: records.length,
      fps,
      dt: world.dt,
    },
  });
  if (options.compress === false) return new NodeIO().writeBinary(doc);
  // compact: positions, normals and morph deltas quantised to integers (KHR_mesh_quantization),
  // then meshopt's codec on every buffer (EXT_meshopt_compression); three.js, Blender and the
  // Khronos validator read both
  await MeshoptEncoder.ready;
  doc.setLogger(new Logger(Logger.Verbosity.WARN));
  await doc.transform(meshopt({ encoder: MeshoptEncoder, level: 'high' }));
  return new NodeIO()
    .registerExtensions([EXTMeshoptCompression, KHRMeshQuantization])
    .registerDependencies({ 'meshopt.encoder': MeshoptEncoder })
    .writeBinary(doc);
}

/**
 * The scene's colliders as meshes: static ones in their pose, kinematic ones
 * animated (their motion at each frame's time). A plane is a square about
 * four times the size of what the bodies span.
 */
function colliderObjects(scene: LoadedScene, frameTimes: number[], records: FrameRecord[]): AnimatedObject[] {
  const world = scene.world;
  let span = 1;
  const last = records[records.length - 1];
  world.bodies.forEach((_, k) => {
    const p = last.bodies[k].positions;
    if (!p) return;
    for (let d = 0; d < 3; d++) {
      let lo = Infinity;
      let hi = -Infinity;
      for (let i = d; i < p.length; i += 3) {
        if (p[i] < lo) lo = p[i];
        if (p[i] > hi) hi = p[i];
      }
      if (hi > lo) span = Math.max(span, hi - lo);
    }
  });
  const out: AnimatedObject[] = [];
  scene.colliders.forEach((c, k) => {
    const mesh = colliderMesh(c, 4 * span);
    if (!mesh) return;
    const name = c.name || `${c.type} ${k}`;
    const color = linearRgb(
      c.type === 'plane' ? groundColor : c.kinematic ? kinematicColliderColor : colliderColor,
    );
    if (!c.motion) {
      out.push({ name, mesh, color, translations: c.initialPosition, rotations: c.initialRotation });
      return;
    }
    const T = new Float64Array(3 * frameTimes.length);
    const R = new Float64Array(4 * frameTimes.length);
    const q = new Float64Array(4);
    frameTimes.forEach((t, f) => {
      c.motion!.evaluate(t);
      c.motion!.apply(T, 3 * f, c.initialPosition[0], c.initialPosition[1], c.initialPosition[2]);
      quatMultiply(q, 0, c.motion!.rotation, 0, c.initialRotation, 0);
      R.set(q, 4 * f);
    });
    out.push({ name, mesh, color, translations: T, rotations: R });
  });
  return out;
}

/**
 * The scene's rigid bodies as meshes in their body (principal) frames,
 * animated by translation and rotation channels from the recorded poses
 * (node animation, not vertex positions); bodies that never moved are static.
 */
function rigidObjects(scene: LoadedScene, records: FrameRecord[]): AnimatedObject[] {
  const rg = scene.world.rigids;
  const out: AnimatedObject[] = [];
  scene.rigidBodies.forEach((b) => {
    const mesh = shapeMesh(b.shape);
    if (!mesh) return;
    const i = b.index;
    const T = new Float64Array(3 * records.length);
    const R = new Float64Array(4 * records.length);
    let moved = false;
    records.forEach((r, f) => {
      for (let d = 0; d < 3; d++) T[3 * f + d] = r.rigid[7 * i + d];
      for (let d = 0; d < 4; d++) R[4 * f + d] = r.rigid[7 * i + 3 + d];
      for (let d = 0; d < 7; d++) if (r.rigid[7 * i + d] !== records[0].rigid[7 * i + d]) moved = true;
    });
    const color = linearRgb(b.type === 'dynamic' ? colliderColor : kinematicColliderColor);
    if (!moved || rg.count === 0) {
      out.push({ name: b.name, mesh, color, translations: T.subarray(0, 3), rotations: R.subarray(0, 4) });
    } else out.push({ name: b.name, mesh, color, translations: T, rotations: R });
  });
  return out;
}

/** Attachments whose targets move (scripted pins): an animated empty node per target. */
function attachmentTargets(world: World, frameTimes: number[]): AnimatedObject[] {
  const a = world.attachments;
  const out: AnimatedObject[] = [];
  for (let e = 0; e < a.count; e++) {
    const m = a.motions[e];
    if (!m) continue;
    const T = new Float64Array(3 * frameTimes.length);
    frameTimes.forEach((t, f) => {
      m.evaluate(t);
      m.apply(T, 3 * f, a.anchor[3 * e], a.anchor[3 * e + 1], a.anchor[3 * e + 2]);
    });
    out.push({ name: `attachment target ${a.particle[e]}`, translations: T, rotations: [0, 0, 0, 1] });
  }
  return out;
}

/** The statistics CSV: a header and one row per frame (numbers in shortest round-trip form). */
export function statsCsv(columns: string[], records: FrameRecord[]): string {
  const lines = [columns.join(',')];
  for (const r of records) lines.push(Array.from(r.stats, (v) => String(v)).join(','));
  return `${lines.join('\n')}\n`;
}

/** Every body's positions, velocities and triangles, as written by `--export-state`. */
export function exportStateJson(scene: LoadedScene, frame: number): string {
  const w = scene.world;
  return `${JSON.stringify({
    format: 'pbdkit-export',
    version: 1,
    scene: basename(scene.file),
    frame,
    time: w.time,
    bodies: w.bodies.map((b) => ({
      name: b.name,
      type: b.type,
      vertices: b.activeCount,
      positions: Array.from(b.positions()),
      velocities: Array.from(b.velocities()),
      renderPositions: b.hasRenderMesh ? Array.from(b.renderPositions()) : undefined,
      triangles: Array.from(b.renderTriangles()),
      lines: b.renderLines().length > 0 ? Array.from(b.renderLines()) : undefined,
    })),
  })}\n`;
}
