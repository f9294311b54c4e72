import { grownArray } from '../math/arrays.js';

/**
 * Where the time of a step goes (docs/solver.md, "Where the time goes"):
 * wall time per labelled part of the step — each pipeline stage, each
 * constraint family's projection and hooks, and the parts families report
 * themselves (the collision system's broad and narrow phase) — summed over
 * the substeps of the last step. Labels get a slot once (`slot`); adding
 * time to a slot allocates nothing.
 */
export class StepTimings {
  private readonly names: string[] = [];
  private readonly index = new Map<string, number>();
  private current = new Float64Array(32);
  private last = new Float64Array(32);

  /** The slot of a label (registered on first use). */
  slot(label: string): number {
    let k = this.index.get(label);
    if (k === undefined) {
      k = this.names.length;
      this.names.push(label);
      this.index.set(label, k);
      if (k >= this.current.length) {
        this.current = grownArray(this.current, 2 * this.current.length);
        this.last = grownArray(this.last, 2 * this.last.length);
      }
    }
    return k;
  }

  /** Adds ms to a slot of the running step. */
  add(slot: number, ms: number): void {
    this.current[slot] += ms;
  }

  /** Called by World.step: the running step's times become the last step's. */
  finishStep(): void {
    const t = this.last;
    this.last = this.current;
    this.current = t;
    t.fill(0);
  }

  /** Milliseconds of the last step spent in `label` (0 for a label never timed). */
  ms(label: string): number {
    const k = this.index.get(label);
    return k === undefined ? 0 : this.last[k];
  }

  /** Every label with its milliseconds in the last step, in the order labels first appeared. */
  lastStep(): Record<string, number> {
    const out: Record<string, number> = {};
    for (let k = 0; k < this.names.length; k++) out[this.names[k]] = this.last[k];
    return out;
  }

  /** The labels timed so far. */
  labels(): readonly string[] {
    return this.names;
  }
}

/** A monotonic clock in ms. */
export function clock(): number {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}
