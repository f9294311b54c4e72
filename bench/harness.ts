/**
 * The benchmark harness behind `npm run bench`. A case builds a world and
 * returns a step function; the harness warms it up, times each step, and
 * reports median / min / max milliseconds per step and constraint
 * projections per second. Cases live in bench/cases/*.ts (discovered
 * automatically) and export `cases: BenchCase[]`.
 */
export interface BenchInstance {
  /** Advances one step. */
  step(): void;
  /** Constraint projections one step performs (for the projections/s column), if known. */
  projectionsPerStep?: number;
  /** Free-form facts worth printing (counts, colours); read after the timed steps. */
  info?: string;
  /**
   * Another engine stepping the same scene: its steps are interleaved with
   * this one's, frame by frame (alternating which goes first), and timed the
   * same way, so that the two medians come from the same run.
   */
  reference?: { name: string; step(): void };
}

export interface BenchCase {
  name: string;
  description: string;
  setup(): BenchInstance;
  /** Timed steps (default 200) and warm-up steps (default 50). */
  steps?: number;
  warmup?: number;
  /** The target of the issue that asked for this benchmark, and what it is compared with. */
  target?: { msPerStep: number; reference?: string };
}

export interface BenchResult {
  name: string;
  description: string;
  steps: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
  projectionsPerSecond: number | null;
  targetMs: number | null;
  reference: string | null;
  meetsTarget: boolean | null;
  info: string;
  /** The interleaved reference engine's name and median ms per step, when the case has one. */
  referenceEngine?: string;
  referenceMedianMs?: number;
  /**
   * With a reference: the median process CPU time (user + system) per step
   * of each engine, which a loaded machine inflates less than wall time
   * (a longer step is more often preempted).
   */
  cpuMedianMs?: number;
  referenceCpuMedianMs?: number;
}

/** Process CPU time (ms). */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

const medianOf = (a: Float64Array): number => Array.from(a).sort((x, y) => x - y)[a.length >> 1];

export function runCase(c: BenchCase): BenchResult {
  const inst = c.setup();
  const ref = inst.reference;
  const warm = c.warmup ?? 50;
  for (let k = 0; k < warm; k++) {
    inst.step();
    ref?.step();
  }
  const n = c.steps ?? 200;
  const times = new Float64Array(n);
  const m = ref ? n : 0;
  const refTimes = new Float64Array(m);
  const cpu = new Float64Array(m);
  const refCpu = new Float64Array(m);
  const timeRef = (k: number) => {
    const c0 = cpuMs();
    const t0 = performance.now();
    ref?.step();
    refTimes[k] = performance.now() - t0;
    refCpu[k] = cpuMs() - c0;
  };
  for (let k = 0; k < n; k++) {
    if (ref && k % 2 === 1) timeRef(k);
    const c0 = ref ? cpuMs() : 0;
    const t0 = performance.now();
    inst.step();
    times[k] = performance.now() - t0;
    if (ref) cpu[k] = cpuMs() - c0;
    if (ref && k % 2 === 0) timeRef(k);
  }
  const sorted = Array.from(times).sort((a, b) => a - b);
  const median = sorted[Math.floor(n / 2)];

  const target = c.target?.msPerStep ?? null;
  return {
    name: c.name,
    description: c.description,
    steps: n,
    medianMs: median,
    minMs: sorted[0],
    maxMs: sorted[n - 1],
    projectionsPerSecond: inst.projectionsPerStep ? inst.projectionsPerStep / (median / 1000) : null,
    targetMs: target,
    reference: c.target?.reference ?? null,
    meetsTarget: target === null ? null : median <= target,
    info: inst.info ?? '',
    ...(ref
      ? {
          referenceEngine: ref.name,
          referenceMedianMs: medianOf(refTimes),
          cpuMedianMs: medianOf(cpu),
          referenceCpuMedianMs: medianOf(refCpu),
        }
      : {}),
  };
}
