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
  /** Free-form facts worth printing (counts, colours). */
  info?: string;
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
}

export function runCase(c: BenchCase): BenchResult {
  const inst = c.setup();
  const warm = c.warmup ?? 50;
  for (let k = 0; k < warm; k++) inst.step();
  const n = c.steps ?? 200;
  const times = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const t0 = performance.now();
    inst.step();
    times[k] = performance.now() - t0;
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
  };
}
