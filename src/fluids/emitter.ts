import { PbdError } from '../core/errors.js';
import type { Vec3Tuple } from '../core/motion.js';
import { cross3 } from '../math/edges.js';

/** A nozzle that adds fluid particles: a round stream with a speed and a flow rate. */
export interface EmitterOptions {
  /** Centre of the nozzle (m). */
  position: Vec3Tuple;
  /** Direction of the stream (normalised here). Default [0, −1, 0] (straight down). */
  direction?: Vec3Tuple;
  /** Speed of the emitted particles (m/s), > 0. */
  speed: number;
  /** Radius of the nozzle (m). Give this or `rate`. */
  radius?: number;
  /** Volume flow rate (m³/s); sets the nozzle radius to √(rate / (π·speed)). Give this or `radius`. */
  rate?: number;
  /** Time the stream starts (s). Default 0. */
  start?: number;
  /** Time the stream stops (s). Default never. */
  end?: number;
}

/**
 * A stream emitter: every time the stream has advanced one particle spacing
 * d, a layer of particles — the points of a square lattice of spacing d
 * inside the nozzle disc — appears at the nozzle with the stream velocity,
 * shifted along the stream by the distance it travelled since, so that
 * layers stay d apart. The volume flow is (points per layer)·d²·speed.
 */
export class FluidEmitter {
  readonly position: Float64Array;
  /** Unit direction. */
  readonly direction: Float64Array;
  readonly speed: number;
  /** Nozzle radius (m). */
  readonly radius: number;
  readonly start: number;
  readonly end: number;
  /** Offsets of one layer's particles from the nozzle centre, xyz interleaved. */
  readonly layer: Float64Array;
  /** Particles emitted so far. */
  emitted = 0;
  /** Layers emitted so far. */
  layers = 0;
  /** True once the fluid ran out of spare particles for a whole layer. */
  exhausted = false;

  constructor(o: EmitterOptions, spacing: number, where: string) {
    const bad = (field: string, what: string, hint = '') =>
      new PbdError('fluid/emitter', `${where}.${field}`, what, hint);
    for (let k = 0; k < 3; k++) {
      if (!Number.isFinite(o.position[k]))
        throw bad(`position[${k}]`, `must be finite, got ${o.position[k]}`);
    }
    if (!(o.speed > 0) || !Number.isFinite(o.speed))
      throw bad('speed', `must be a positive speed (m/s), got ${o.speed}`);
    const dir = o.direction ?? [0, -1, 0];
    const len = Math.hypot(dir[0], dir[1], dir[2]);
    if (!(len > 0) || !Number.isFinite(len)) throw bad('direction', 'must be a non-zero finite vector');
    let radius: number;
    if (o.radius !== undefined && o.rate !== undefined) {
      throw bad(
        'rate',
        'give either radius or rate, not both',
        'the rate sets the radius for the given speed',
      );
    }
    if (o.rate !== undefined) {
      if (!(o.rate > 0) || !Number.isFinite(o.rate)) throw bad('rate', `must be > 0 (m³/s), got ${o.rate}`);
      radius = Math.sqrt(o.rate / (Math.PI * o.speed));
    } else if (o.radius !== undefined) {
      if (!(o.radius > 0) || !Number.isFinite(o.radius))
        throw bad('radius', `must be > 0 (m), got ${o.radius}`);
      radius = o.radius;
    } else {
      throw bad('radius', 'an emitter needs a nozzle radius or a flow rate', 'e.g. "radius": 0.03');
    }
    this.start = o.start ?? 0;
    this.end = o.end ?? Number.POSITIVE_INFINITY;
    if (!(this.start >= 0) || !(this.end >= this.start)) {
      throw bad(
        'end',
        `the stream must start at a time ≥ 0 and end after it starts (${this.start}…${this.end})`,
      );
    }
    this.position = new Float64Array(o.position);
    this.direction = new Float64Array([dir[0] / len, dir[1] / len, dir[2] / len]);
    this.speed = o.speed;
    this.radius = radius;
    // an orthonormal frame (u, w) of the nozzle plane: u = n × a for an axis a not near n, normalised,
    // then w = n × u (math/edges.ts cross3, the set-up cross product; E: n, a, u, w)
    const n = this.direction;
    const E = new Float64Array(12);
    E.set(n);
    E[Math.abs(n[0]) < 0.9 ? 3 : 4] = 1;
    cross3(E, 0, 3, 6);
    const ul = Math.hypot(E[6], E[7], E[8]);
    for (let k = 6; k < 9; k++) E[k] /= ul;
    cross3(E, 0, 6, 9);
    const pts: number[] = [];
    const m = Math.ceil(radius / spacing) + 1;
    for (let a = -m; a <= m; a++) {
      for (let b = -m; b <= m; b++) {
        // lattice centred so that a nozzle smaller than d still emits one particle
        const s = a * spacing,
          t = b * spacing;
        if (s * s + t * t <= radius * radius + 1e-12) {
          pts.push(s * E[6] + t * E[9], s * E[7] + t * E[10], s * E[8] + t * E[11]);
        }
      }
    }
    this.layer = new Float64Array(pts);
  }

  /** Particles per layer. */
  get perLayer(): number {
    return this.layer.length / 3;
  }

  /** The volume flow rate actually emitted (m³/s), for a fluid of spacing d. */
  volumeRate(spacing: number): number {
    return this.perLayer * spacing * spacing * this.speed;
  }

  /**
   * Layers due by time t: layer k leaves the nozzle when the stream has
   * advanced (k + 1)·d since the start, i.e. ⌊(min(t, end) − start)·speed/d⌋
   * of them (computed from the time, so no rounding accumulates).
   */
  layersDue(t: number, spacing: number): number {
    const tc = Math.min(t, this.end) - this.start;
    if (!(tc > 0)) return 0;
    return Math.floor((tc * this.speed) / spacing + 1e-9);
  }

  /** How far layer k has travelled past the nozzle at time t (m). */
  layerShift(k: number, t: number, spacing: number): number {
    const tc = Math.min(t, this.end) - this.start;
    return Math.max(0, tc * this.speed - (k + 1) * spacing);
  }

  /** Particles the emitter adds over its whole life, or Infinity when it never stops. */
  totalParticles(spacing: number): number {
    if (!Number.isFinite(this.end)) return Number.POSITIVE_INFINITY;
    return this.layersDue(this.end, spacing) * this.perLayer;
  }
}
