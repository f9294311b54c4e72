/**
 * The benchmark harness behind `npm run bench`. A case builds a world and
 * returns a step function; the harness warms it up, times each step, and
 * reports median / min / max milliseconds per step, constraint projections
 * per second, and — from separate profiled steps — the ns per projection of
 * each constraint kind. A case may name peers (other engines building the
 * same scene): their frames are timed interleaved with pbdkit's in the same
 * process, and the harness reports pbdkit / peer and each engine's edge
 * stretch and finiteness at the end of the timed frames. Cases live in
 * bench/cases/*.ts (discovered automatically) and export `cases: BenchCase[]`.
 */
import { readFileSync } from 'node:fs';
import { loadScene, type SceneInstance, type Scheduler } from '../src/index.js';
import type { PeerInstance } from './peers/peer.js';
import { type KindProfile, ProfilingScheduler } from './profile.js';

export interface Quality {
  /** Max and mean relative edge stretch |ℓ/ℓ0 − 1| after the case's frames. */
  maxStretch: number;
  meanStretch: number;
  /** Whether every position stayed finite. */
  finite: boolean;
  /**
   * Rigid stacks (no edges): the largest distance any body moved, and the
   * largest penetration between bodies or into the ground, over the timed
   * frames (m). Set instead of the edge stretch, which is then 0.
   */
  drift?: number;
  penetration?: number;
}

export interface BenchInstance {
  /** Advances one step. */
  step(): void;
  /** Constraint projections one step performs (for the projections/s column), if known. */
  projectionsPerStep?: number;
  /** Free-form facts worth printing (counts, colours). */
  info?: string;
  /** The world, for the ns per projection by constraint kind (and the thread columns). */
  world?: {
    scheduler: Scheduler;
    step(): void;
    store?: { x: Float64Array; count: number };
    threadsReady?(): Promise<void>;
    dispose?(): void;
  };
  /** Edge stretch now (cases with peers). */
  quality?(): Quality;
  /** Called after each timed step, outside the timing: a case that measures its quality over the frames. */
  observe?(): void;
}

/**
 * A shipped scene file as a case's set-up: its world stepped frame by frame,
 * `info` saying what it holds. (Cases run from lib/bench/cases/, built by tsc.)
 */
export function sceneSetup(file: string, info: (inst: SceneInstance) => string): () => BenchInstance {
  return () => {
    const url = new URL(`../../scenes/${file}`, import.meta.url); // lib/bench → scenes
    const inst = loadScene(readFileSync(url, 'utf8'), { file });
    return { step: () => inst.world.step(), info: info(inst) };
  };
}

/** Another engine building the case's scene. */
export interface PeerCase {
  name: string;
  /** What it runs, stated in the row: build, substeps × iterations, constraints. */
  what: string;
  setup(): PeerInstance | Promise<PeerInstance>;
  /** pbdkit / peer must be at most this (issue 18: 0.4 = 2.5× faster). */
  targetRatio?: number;
}

export interface BenchCase {
  name: string;
  description: string;
  /** Set for the C++-demo set-ups kept as anchors: what makes them one. */
  anchor?: string;
  setup(): BenchInstance;
  /** Timed steps (default 200) and warm-up steps (default 50). */
  steps?: number;
  warmup?: number;
  /** The target of the issue that asked for this benchmark, and what it is compared with. */
  target?: {
    msPerStep?: number;
    reference?: string;
    /** Upper bounds of the ns per projection by constraint kind. */
    nsPerProjection?: Record<string, number>;
  };
  peers?: PeerCase[];
  /**
   * The same case on `threads` threads (issue 20: the 1- and 2-thread
   * columns of the large cases). Timed interleaved with the 1-thread
   * instance, frame for frame, and checked bit-identical with it.
   */
  setupThreads?(threads: number): BenchInstance;
  /**
   * Cases with peers and `setupThreads`: frames timed after the peers' with only pbdkit's 1- and
   * 2-thread worlds interleaved (ThreadsResult.pbdkitOnly; default max(100, steps)). 0 leaves the
   * column out.
   */
  pbdkitOnlySteps?: number;
}

export interface PeerResult {
  name: string;
  what: string;
  medianMs: number;
  minMs: number;
  /** The median over frames of pbdkit's time / the peer's for the same frame (frames interleaved). */
  ratio: number;
  targetRatio: number | null;
  meetsTarget: boolean | null;
  quality: Quality;
}

/** The case on 2 threads beside its 1-thread run (BenchCase.setupThreads). */
export interface ThreadsResult {
  threads: number;
  medianMs: number;
  /** The median over frames of the 1-thread time / the n-thread time (the parallel efficiency × n). */
  ratio: number;
  /** The positions of both runs equal bit for bit after the timed steps. */
  bitIdentical: boolean;
  /**
   * Median CPU time per step (ms, all threads of the process: the workers
   * sleep between steps, so a frame's CPU time is its own) on 1 and on n
   * threads: on a shared machine the wall times say little, these say how
   * much work a step costs; null where the process's CPU time is unknown.
   */
  cpuMs: number | null;
  threadsCpuMs: number | null;
  /**
   * Since session 21 (cl28), cases with peers: the same two worlds timed over further frames with
   * only pbdkit's 1- and 2-thread worlds interleaved (runCase: after the peers' frames, the quality
   * figures and the profiled steps), so that between two 2-thread frames the pool idles for one
   * 1-thread frame, not for the peers' too (docs/solver.md, "Session 20 (cl27)"), over enough
   * frames for a stable median. `ratio` above stays the figure interleaved with the peers,
   * comparable with earlier runs. Null for cases without peers (their ratio is already this one).
   */
  pbdkitOnly: PbdkitOnlyResult | null;
}

/** ThreadsResult.pbdkitOnly: the 1- and 2-thread worlds alone, frame for frame. */
export interface PbdkitOnlyResult {
  /** Timed frames (after 5 untimed pairs); the worlds are at frame warmup + steps + profiled steps when they start. */
  steps: number;
  /** Median ms a frame on 1 and on n threads. */
  medianMs: number;
  threadsMedianMs: number;
  /** The median over frames of the 1-thread time / the n-thread time. */
  ratio: number;
  /** The positions of both worlds equal bit for bit after these frames too. */
  bitIdentical: boolean;
}

export interface BenchResult {
  name: string;
  description: string;
  anchor: string | null;
  steps: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
  projectionsPerSecond: number | null;
  targetMs: number | null;
  reference: string | null;
  meetsTarget: boolean | null;
  info: string;
  kinds: (KindProfile & { targetNs: number | null })[];
  stages: { name: string; msPerStep: number }[];
  quality: Quality | null;
  peers: PeerResult[];
  /** The 2-thread column, for cases with `setupThreads`; null otherwise. */
  threads: ThreadsResult | null;
}

function median(a: number[]): number {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)];
}

/** The positions of two instances' worlds equal bit for bit (false where either has no store). */
function sameBits(a: BenchInstance, b: BenchInstance): boolean {
  const xa = a.world?.store;
  const xb = b.world?.store;
  return (
    xa !== undefined &&
    xb !== undefined &&
    xa.count === xb.count &&
    xa.x.subarray(0, 3 * xa.count).every((v, i) => Object.is(v, xb.x[i]))
  );
}

/**
 * ThreadsResult.pbdkitOnly: `m` frames of the 1-thread instance `one` and the threaded `many`,
 * interleaved frame for frame, the order alternating (after 5 untimed pairs); nothing else runs
 * between them, so the pool's workers idle only for the 1-thread frame between two of theirs.
 */
function timeAlone(one: BenchInstance, many: BenchInstance, m: number): PbdkitOnlyResult {
  const a: number[] = [],
    b: number[] = [];
  for (let k = 0; k < 5 + m; k++) {
    const first = k % 2 === 0 ? one : many;
    const second = first === one ? many : one;
    const t0 = performance.now();
    first.step();
    const t1 = performance.now();
    second.step();
    const t2 = performance.now();
    if (k < 5) continue;
    a.push(first === one ? t1 - t0 : t2 - t1);
    b.push(first === one ? t2 - t1 : t1 - t0);
  }
  return {
    steps: m,
    medianMs: median(a),
    threadsMedianMs: median(b),
    ratio: median(a.map((t, k) => t / b[k])),
    bitIdentical: sameBits(one, many),
  };
}

export async function runCase(c: BenchCase): Promise<BenchResult> {
  const inst = c.setup();
  const peers: PeerInstance[] = [];
  for (const p of c.peers ?? []) peers.push(await p.setup());
  const threaded = c.setupThreads ? c.setupThreads(2) : null;
  await threaded?.world?.threadsReady?.();
  const engines: { step(): void; observe?(): void }[] = [inst, ...peers, ...(threaded ? [threaded] : [])];
  const times: number[][] = engines.map(() => []);
  const cpu: number[][] = engines.map(() => []);
  const proc = (globalThis as { process?: { cpuUsage?(): { user: number; system: number } } }).process;
  const cpuMs = () => {
    const u = proc?.cpuUsage?.();
    return u ? (u.user + u.system) / 1000 : Number.NaN;
  };
  const warm = c.warmup ?? 50;
  const n = c.steps ?? 200;
  // frames interleaved, the order rotating so that no engine always follows the same one
  for (let k = 0; k < warm + n; k++) {
    for (let j = 0; j < engines.length; j++) {
      const e = (k + j) % engines.length;
      const c0 = cpuMs();
      const t0 = performance.now();
      engines[e].step();
      const dt = performance.now() - t0;
      if (k >= warm) {
        times[e].push(dt);
        cpu[e].push(cpuMs() - c0);
        engines[e].observe?.();
      }
    }
  }
  const own = times[0];
  const med = median(own);
  let threadsResult: ThreadsResult | null = null;
  if (threaded) {
    const tt = times[engines.length - 1];
    threadsResult = {
      threads: 2,
      medianMs: median(tt),
      ratio: median(own.map((t, k) => t / tt[k])),
      bitIdentical: sameBits(inst, threaded),
      cpuMs: Number.isNaN(cpu[0][0]) ? null : median(cpu[0]),
      threadsCpuMs: Number.isNaN(cpu[0][0]) ? null : median(cpu[engines.length - 1]),
      pbdkitOnly: null,
    };
  }
  const quality = inst.quality ? inst.quality() : null;
  const peerResults: PeerResult[] = (c.peers ?? []).map((p, i) => {
    const m = median(times[i + 1]);
    // the median of the per-frame ratios: both frames of a pair ran within a few ms of each
    // other, so a slow spell of the shared machine slows both (the ratio of medians would not pair them)
    const ratio = median(own.map((t, k) => t / times[i + 1][k]));
    const t = p.targetRatio ?? null;
    return {
      name: p.name,
      what: p.what,
      medianMs: m,
      minMs: Math.min(...times[i + 1]),
      ratio,
      targetRatio: t,
      meetsTarget: t === null ? null : ratio <= t,
      quality: peers[i].quality(),
    };
  });

  for (const p of peers) p.dispose?.();

  // ns per projection by kind: further steps under the profiling scheduler
  let kinds: BenchResult['kinds'] = [];
  let stages: BenchResult['stages'] = [];
  let profiled = 0;
  if (inst.world) {
    const world = inst.world;
    const saved = world.scheduler;
    const prof = new ProfilingScheduler();
    world.scheduler = prof;
    profiled = Math.max(5, Math.min(n, 50));
    for (let k = 0; k < profiled; k++) {
      world.step();
      prof.endStep();
    }
    world.scheduler = saved;
    kinds = prof.kinds().map((k) => ({ ...k, targetNs: c.target?.nsPerProjection?.[k.kind] ?? null }));
    stages = prof.stages();
  }

  if (threaded && threadsResult) {
    const m = c.pbdkitOnlySteps ?? Math.max(100, n);
    if (peers.length > 0 && m > 0) {
      // the threaded world catches up with the profiled steps (untimed), then both alone
      for (let k = 0; k < profiled; k++) threaded.step();
      threadsResult.pbdkitOnly = timeAlone(inst, threaded, m);
    }
    threaded.world?.dispose?.();
  }

  const target = c.target?.msPerStep ?? null;
  const checks: boolean[] = [];
  if (target !== null) checks.push(med <= target);
  for (const k of kinds) if (k.targetNs !== null) checks.push(k.nsPerProjection <= k.targetNs);
  for (const p of peerResults) if (p.meetsTarget !== null) checks.push(p.meetsTarget);
  return {
    name: c.name,
    description: c.description,
    anchor: c.anchor ?? null,
    steps: n,
    medianMs: med,
    minMs: Math.min(...own),
    maxMs: Math.max(...own),
    projectionsPerSecond: inst.projectionsPerStep ? inst.projectionsPerStep / (med / 1000) : null,
    targetMs: target,
    reference: c.target?.reference ?? null,
    meetsTarget: checks.length === 0 ? null : checks.every(Boolean),
    info: inst.info ?? '',
    kinds,
    stages,
    quality,
    peers: peerResults,
    threads: threadsResult,
  };
}
