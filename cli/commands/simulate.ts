/**
 * `pbdkit simulate <scene>`: bakes a scene to a glTF animation or OBJ files,
 * a statistics CSV and the final state, with checkpoints to resume from.
 */
import { availableParallelism } from 'node:os';
import { Presets, SingleBar } from 'cli-progress';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { EnergyWatch } from '../../src/core/energy-watch.js';
import { PbdError } from '../../src/core/errors.js';
import type { SceneLimits } from '../../src/io/scene/limits.js';
import {
  type BakeOptions,
  type BakePlan,
  type BakeProgress,
  bake,
  DEFAULT_MAX_GLB_BYTES,
} from '../../src/node/bake.js';
import { resolveScenePath } from '../../src/node/files.js';
import { type CliContext, ExitCode } from '../context.js';
import { RuntimeFailure } from '../errors.js';
import { fileSize, formatBytes, formatSeconds, wholeNumber } from '../format.js';
import { addLimitOptions, limitsFromFlags } from '../limits.js';

interface SimulateFlags extends Partial<SceneLimits> {
  frames?: number;
  out?: string;
  stats?: string;
  exportState?: string;
  stepsPerFrame?: number;
  fps?: number;
  checkpointEvery: number;
  checkpointDir?: string;
  resume?: boolean;
  restart?: boolean;
  normals: boolean;
  compress: boolean;
  framesPerMesh: number;
  strict?: boolean;
  quiet?: boolean;
  maxOutputMb?: number;
  threads?: number;
}

function positiveNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) {
    throw new InvalidArgumentError(`expected a positive number, got "${value}".`);
  }
  return n;
}

const signals = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 } as const;
type StopSignal = keyof typeof signals;

export function registerSimulate(program: Command, ctx: CliContext): void {
  const command = program
    .command('simulate')
    .description('bake a scene to a glTF animation (.glb) or OBJ files, with statistics and checkpoints')
    .argument('<scene>', 'scene file, or the name of a built-in scene (see `pbdkit scenes`)')
    .option(
      '-n, --frames <n>',
      'frames to write, frame 0 being the initial state (default: scene output.frames, else 120)',
      wholeNumber(1),
    )
    .option('-o, --out <path>', 'NAME.glb: a glTF animation; FOLDER/: one OBJ file per body per frame')
    .option('--stats <file.csv>', 'per-frame statistics: step time, energy, constraint violation, counts')
    .option('--export-state <file.json>', "every body's final positions, velocities and triangles")
    .option(
      '--steps-per-frame <n>',
      'world steps per frame (default: scene output.stepsPerFrame, else 1)',
      wholeNumber(1),
    )
    .option(
      '--fps <rate>',
      'frame rate of the glTF animation (default: real time, 1 / (steps per frame · dt))',
      positiveNumber,
    )
    .option(
      '--checkpoint-every <n>',
      'save a checkpoint every n frames; 0: only when stopped',
      wholeNumber(0),
      10,
    )
    .option('--checkpoint-dir <dir>', 'where checkpoints go (default: <first output>.checkpoint)')
    .addOption(
      new Option('--resume', 'continue an interrupted bake from its last checkpoint').conflicts('restart'),
    )
    .option('--restart', 'discard the checkpoint of an interrupted bake and start over')
    .option('--no-normals', 'leave vertex normals out of the glb (viewers then shade flat)')
    .option(
      '--no-compress',
      'write float positions, uncompressed (default: quantised and meshopt-compressed, KHR_mesh_quantization + EXT_meshopt_compression)',
    )
    .option('--frames-per-mesh <n>', 'most frames one glTF mesh holds as morph targets', wholeNumber(1), 100)
    .option(
      '--strict',
      'exit with code 1 if any particle needed the NaN recovery or the speed limit, or a body gained energy from nowhere',
    );
  addLimitOptions(command)
    .option(
      '--max-output-mb <n>',
      `largest glb to write, in MB (default ${Math.round(DEFAULT_MAX_GLB_BYTES / 1e6)})`,
      positiveNumber,
    )
    .option(
      '--threads <n>',
      'threads to compute on; every count gives the same numbers bit for bit (default: the scene\'s world.threads, else, where its estimated step is ≥ 10 ms, one thread per 4e5 units of estimated work (at least 2, at most all cores), else 1; large scenes are faster on more: docs/solver.md, "Threads")',
      wholeNumber(1),
    )
    .option('-q, --quiet', 'print nothing but errors')
    .addHelpText(
      'after',
      `
Examples:
  pbdkit simulate cloth-flag --frames 120 --out flag.glb --stats flag.csv
  pbdkit simulate scenes/cloth-tear.json --out tear/ --steps-per-frame 2
  pbdkit simulate big.json --out big.glb --checkpoint-every 20
    (Ctrl-C, then:)  pbdkit simulate big.json --out big.glb --checkpoint-every 20 --resume`,
    )
    .action(async (scene: string, flags: SimulateFlags) => {
      ctx.exitCode = await simulate(resolveScenePath(scene), flags, ctx);
    });
}

async function simulate(scene: string, flags: SimulateFlags, ctx: CliContext): Promise<number> {
  const options: BakeOptions = {
    scene,
    frames: flags.frames,
    out: flags.out,
    stats: flags.stats,
    exportState: flags.exportState,
    stepsPerFrame: flags.stepsPerFrame,
    fps: flags.fps,
    checkpointEvery: flags.checkpointEvery,
    checkpointDir: flags.checkpointDir,
    resume: flags.resume,
    restart: flags.restart,
    normals: flags.normals,
    compress: flags.compress,
    framesPerMesh: flags.framesPerMesh,
    limits: limitsFromFlags(flags),
    maxOutputBytes: flags.maxOutputMb === undefined ? undefined : flags.maxOutputMb * 1e6,
    threads: flags.threads,
    defaultThreads: availableParallelism(),
  };
  const progress = flags.quiet ? null : new Progress(ctx);

  // the first signal stops the bake at the end of the frame with a checkpoint; a second one exits at once
  let stopSignal: StopSignal | null = null;
  let checkpoints = false;
  const onSignal = (sig: StopSignal) => {
    if (stopSignal) {
      progress?.stop();
      ctx.err(`pbdkit: ${sig} again: exiting without a new checkpoint\n`);
      process.exit(128 + signals[sig]);
    }
    stopSignal = sig;
    const saving = checkpoints ? ' and saving a checkpoint' : '';
    progress?.note(`${sig}: stopping after this frame${saving} (again to quit at once)`);
  };
  const handlers = (Object.keys(signals) as StopSignal[]).map((sig) => {
    const h = () => onSignal(sig);
    process.on(sig, h);
    return [sig, h] as const;
  });

  let phase: 'load' | 'simulate' = 'load';
  try {
    const result = await bake(options, {
      onStart: (plan) => {
        phase = 'simulate';
        checkpoints = plan.checkpointDir !== null;
        progress?.start(plan);
      },
      onFrame: (p) => progress?.frame(p),
      onWrite: () => progress?.finish(),
      shouldStop: () => stopSignal !== null,
    }).catch((e: unknown) => {
      // input problems found before simulating are the user's to fix (exit 2); later ones are failures (exit 1)
      if (phase === 'load' || (e instanceof PbdError && e.code.startsWith('bake/'))) throw e;
      if (e instanceof PbdError) throw new RuntimeFailure('the simulation failed', e);
      throw e;
    });
    progress?.stop();
    const { plan } = result;
    if (result.status === 'interrupted') {
      const args = ctx.argv.slice(2).filter((a) => a !== '--restart');
      const again = args.includes('--resume') ? args : [...args, '--resume'];
      ctx.err(
        plan.checkpointDir
          ? `pbdkit: stopped at frame ${result.lastFrame} of ${plan.frames - 1}; checkpoint saved in ${plan.checkpointDir}\n` +
              `  continue with: pbdkit ${again.join(' ')}\n`
          : `pbdkit: stopped at frame ${result.lastFrame} of ${plan.frames - 1} (no output was asked for, so no checkpoint)\n`,
      );
      return 128 + signals[stopSignal ?? 'SIGINT'];
    }
    if (!flags.quiet) {
      const resumed = plan.startFrame > 0 ? `, resumed at frame ${plan.startFrame}` : '';
      const steps = (plan.frames - Math.max(1, plan.startFrame)) * plan.stepsPerFrame;
      const pace =
        steps > 0 && result.simulateMs > 0
          ? `: ${(result.simulateMs / steps).toFixed(2)} ms per step, ${((steps * plan.scene.world.dt * 1000) / result.simulateMs).toFixed(2)}× real time`
          : '';
      ctx.out(
        `simulated ${plan.frames} frames of ${plan.scene.file} (${plan.stepsPerFrame} step${plan.stepsPerFrame > 1 ? 's' : ''} per frame${resumed}) in ${formatSeconds(result.simulateMs / 1000)}${pace}\n`,
      );
      for (const f of result.outputs)
        ctx.out(`wrote ${f}${fileSize(f) !== null ? ` (${formatBytes(fileSize(f)!)})` : ''}\n`);
      if (result.outputs.length === 0) {
        ctx.err(
          'pbdkit: nothing was written: no output was asked for\n' +
            '  fix: add --out NAME.glb (a glTF animation), --out FOLDER/ (OBJ files), --stats FILE.csv or --export-state FILE.json\n',
        );
      }
    }
    if (result.recoveries > 0 || result.speedClamps > 0) {
      ctx.err(
        `pbdkit: warning: ${result.recoveries} particle recoveries from non-finite values and ${result.speedClamps} speed clamps\n` +
          '  fix: something moved faster than world.maxSpeed (a scripted pin or collider?) or the scene is too stiff or degenerate for its time step: raise maxSpeed, add substeps or soften the constraints\n',
      );
      if (flags.strict) return ExitCode.runtime;
    }
    if (result.energyAlarm) {
      ctx.err(
        `pbdkit: warning: ${EnergyWatch.describe(result.energyAlarm)}\n` +
          '  fix: the solver blew up (a contact lost under load, or constraints too stiff for the time step): add substeps or iterations, soften the constraints, or check that no body starts inside a collider\n',
      );
      if (flags.strict) return ExitCode.runtime;
    }
    return ExitCode.ok;
  } finally {
    progress?.stop();
    for (const [sig, h] of handlers) process.off(sig, h);
  }
}

/** A progress bar on a terminal, plain progress lines (every 10 %) otherwise. */
class Progress {
  private bar: SingleBar | null = null;
  private plan: BakePlan | null = null;
  private nextLine = 0;
  private readonly ctx: CliContext;

  constructor(ctx: CliContext) {
    this.ctx = ctx;
  }

  start(plan: BakePlan): void {
    this.plan = plan;
    const s = plan.scene;
    const nb = s.world.bodies.length;
    const particles = s.world.bodies.reduce((n, b) => n + b.activeCount, 0);
    const steps = `${plan.stepsPerFrame} step${plan.stepsPerFrame > 1 ? 's' : ''}`;
    const resume = plan.startFrame > 0 ? `, resuming at frame ${plan.startFrame}` : '';
    this.ctx.err(
      `pbdkit: ${s.file}: "${s.spec.title}": ${nb} bod${nb === 1 ? 'y' : 'ies'}, ${particles} particles; ` +
        `${plan.frames} frames × ${steps} of ${formatSeconds(s.world.dt)}${resume}\n`,
    );
    if (this.ctx.isTTY) {
      this.bar = new SingleBar(
        {
          format: '{bar} {percentage}% | frame {value}/{total} | {stepMs} ms/step | ETA {eta_formatted}',
          barsize: 30,
          hideCursor: true,
          clearOnComplete: true,
          stream: process.stderr,
          etaBuffer: 20,
        },
        Presets.shades_classic,
      );
      this.bar.start(plan.frames - 1, plan.startFrame > 0 ? plan.startFrame - 1 : 0, { stepMs: '-' });
    }
    this.nextLine = plan.startFrame;
  }

  frame(p: BakeProgress): void {
    if (this.bar) {
      this.bar.update(p.frame, { stepMs: p.stepMs.toFixed(2) });
      return;
    }
    const last = p.frames - 1;
    if (p.frame === 0 || (p.frame < this.nextLine && p.frame !== last)) return;
    const done = p.frame - p.startFrame + 1;
    const left = last - p.frame;
    const eta = done > 0 && p.frame > 0 ? (p.elapsedMs / done) * left : 0;
    const pct = last > 0 ? Math.floor((100 * p.frame) / last) : 100;
    this.ctx.err(
      `pbdkit: frame ${p.frame}/${last} (${pct}%), ${p.stepMs.toFixed(2)} ms/step, ${formatSeconds(p.elapsedMs / 1000)} elapsed${left > 0 ? `, ${formatSeconds(eta / 1000)} left` : ''}\n`,
    );
    this.nextLine = p.frame + Math.max(1, Math.ceil(last / 10));
  }

  note(text: string): void {
    if (this.bar) this.ctx.err('\n');
    this.ctx.err(`pbdkit: ${text}\n`);
  }

  finish(): void {
    this.stop();
    if (this.plan && !this.ctx.isTTY) this.ctx.err('pbdkit: writing the outputs\n');
  }

  stop(): void {
    this.bar?.stop();
    this.bar = null;
  }
}
