/**
 * Time per constraint kind: a Scheduler (src/core/pipeline.ts) that runs
 * everything as the serial one does, timing each set's projection under its
 * kind and each other stage under its name. ns per projection = the time
 * spent in a kind's sweeps / (its constraints × sweeps): what one projection
 * costs including the set's own overhead (window copies of the WebAssembly
 * kernels, colour loops). Used on separate steps after the timed ones, so it
 * never touches the timed figures. Each step's time per kind and stage is
 * kept, and the figures are medians over steps: a step that the operating
 * system preempted (the machine is shared) moves a median little, a sum much.
 */
import type { ConstraintSet, Scheduler, Stage, StepContext } from '../src/index.js';

export interface KindProfile {
  kind: string;
  /** Constraints of this kind (all sets), projections per step. */
  count: number;
  projectionsPerStep: number;
  nsPerProjection: number;
  msPerStep: number;
}

export class ProfilingScheduler implements Scheduler {
  private readonly kindTime = new Map<string, number>();
  private readonly kindProjections = new Map<string, number>();
  private readonly kindCount = new Map<string, Map<ConstraintSet, number>>();
  private readonly stageTime = new Map<string, number>();
  /** Per kind / stage: ms and projections of each finished step. */
  private readonly kindSteps = new Map<string, { ms: number[]; projections: number[] }>();
  private readonly stageSteps = new Map<string, number[]>();
  steps = 0;

  /** Closes a step: its times join the per-step lists. Call after each world.step(). */
  endStep(): void {
    for (const [k, ms] of this.kindTime) {
      let e = this.kindSteps.get(k);
      if (!e) this.kindSteps.set(k, (e = { ms: [], projections: [] }));
      e.ms.push(ms);
      e.projections.push(this.kindProjections.get(k) ?? 0);
    }
    for (const [name, ms] of this.stageTime) {
      let e = this.stageSteps.get(name);
      if (!e) this.stageSteps.set(name, (e = []));
      e.push(ms);
    }
    this.kindTime.clear();
    this.kindProjections.clear();
    this.stageTime.clear();
    this.steps++;
  }

  run(stage: Stage, ctx: StepContext): void {
    const t0 = performance.now();
    stage.run(ctx, this);
    const dt = performance.now() - t0;
    this.stageTime.set(stage.name, (this.stageTime.get(stage.name) ?? 0) + dt);
  }

  project(set: ConstraintSet, ctx: StepContext): void {
    const t0 = performance.now();
    set.project(ctx);
    const dt = performance.now() - t0;
    const k = set.kind;
    this.kindTime.set(k, (this.kindTime.get(k) ?? 0) + dt);
    this.kindProjections.set(k, (this.kindProjections.get(k) ?? 0) + set.count);
    let sets = this.kindCount.get(k);
    if (!sets) this.kindCount.set(k, (sets = new Map()));
    sets.set(set, set.count);
  }

  /** Per kind, slowest first: the median step's ms and its ns per projection. */
  kinds(): KindProfile[] {
    const out: KindProfile[] = [];
    for (const [kind, e] of this.kindSteps) {
      const ms = median(e.ms);
      const projections = median(e.projections);
      let count = 0;
      for (const c of this.kindCount.get(kind)?.values() ?? []) count += c;
      out.push({
        kind,
        count,
        projectionsPerStep: projections,
        nsPerProjection: projections > 0 ? (ms * 1e6) / projections : 0,
        msPerStep: ms,
      });
    }
    return out.sort((a, b) => b.msPerStep - a.msPerStep);
  }

  /** Median ms per step of each stage; 'sets.project' includes the kinds' sweeps. */
  stages(): { name: string; msPerStep: number }[] {
    return [...this.stageSteps]
      .map(([name, ms]) => ({ name, msPerStep: median(ms) }))
      .sort((a, b) => b.msPerStep - a.msPerStep);
  }
}

function median(a: number[]): number {
  const s = [...a].sort((x, y) => x - y);
  return s.length === 0 ? 0 : s[Math.floor(s.length / 2)];
}
