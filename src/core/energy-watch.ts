import type { World } from './world.js';

/** What an `EnergyWatch` found: a body moving faster than anything in its scene could have made it. */
export interface EnergyAlarm {
  /** Simulated time (s) and step of the first excess. */
  time: number;
  step: number;
  /** Index of the body in `world.bodies`, and its name. */
  body: number;
  name: string;
  /** The body's kinetic energy (J) and its kinetic energy per unit mass (J/kg). */
  kineticEnergy: number;
  specificEnergy: number;
  /** The most kinetic energy per unit mass the scene could have given it (J/kg). */
  bound: number;
}

/**
 * A check that a simulation gains no kinetic energy from nowhere, for the
 * command line (`--strict`) and the gallery's readout.
 *
 * Energy enters a scene through gravity, the bodies' initial motion and its
 * drivers: kinematic colliders, moving pins, wind, emitters. Per unit mass a
 * body can then have at most
 *
 *   e_max = e_0 + s (|g| H + 2 v_d²)
 *
 * where e_0 is its own kinetic energy per unit mass at the start (or when it
 * gained particles), H the largest drop in the scene so far (the highest
 * particle at the start above the lowest one ever, along gravity), v_d the
 * fastest driver seen so far — kinematic collider surfaces, the targets of
 * pins and of the mouse drag, the wind, the fastest particle at the start (a thrown body
 * hands its energy on) — ½ (2 v_d)² being what a rigid bounce off a driver
 * moving at v_d gives, and s = 2 a safety factor. Stored elastic energy
 * released slowly is covered, since the driver that stored it also bounds
 * how fast it is given back. A body above e_max is a solver blow-up (a
 * contact lost under load, a constraint that pumps energy), never physics.
 *
 * `observe()` after each step costs one pass over the particles.
 */
export class EnergyWatch {
  /** Safety factor s of the bound. */
  readonly slack: number;
  /** The first excess found, or null. */
  first: EnergyAlarm | null = null;
  /** Steps at which some body was above its bound. */
  alarms = 0;
  private readonly world: World;
  private e0: Float64Array;
  private mass: Float64Array;
  private top = Number.NEGATIVE_INFINITY;
  private bottom = Number.POSITIVE_INFINITY;
  private driver = 0;
  private pinnedAt = new Float64Array(0);
  private pinnedCount = -1;
  private bodyKe = new Float64Array(0);
  private bodyMass = new Float64Array(0);

  constructor(world: World, options: { slack?: number } = {}) {
    this.world = world;
    this.slack = options.slack ?? 2;
    this.e0 = new Float64Array(0);
    this.mass = new Float64Array(0);
    this.rebase();
  }

  /**
   * Takes the present state as the start: each body's kinetic energy per
   * unit mass becomes its e_0 (for a mouse throw, a change of settings …).
   */
  rebase(): void {
    this.measure();
    const nb = this.world.bodies.length;
    this.e0 = new Float64Array(nb);
    this.mass = new Float64Array(nb);
    for (let b = 0; b < nb; b++) {
      this.mass[b] = this.bodyMass[b];
      this.e0[b] = this.bodyMass[b] > 0 ? this.bodyKe[b] / this.bodyMass[b] : 0;
    }
    this.top = Number.NEGATIVE_INFINITY;
    this.bottom = Number.POSITIVE_INFINITY;
    this.heights(true);
    this.driver = Math.max(this.driver, this.fastestParticle());
    this.pinnedCount = -1;
    this.watchDrivers(); // lists the pinned particles, so that the first step measures their speed
  }

  /** Checks the state after a step; returns true when some body is above its bound. */
  observe(): boolean {
    const w = this.world;
    this.measure();
    this.heights(false);
    this.watchDrivers();
    const g = Math.hypot(w.gravity[0], w.gravity[1], w.gravity[2]);
    const drop = this.top > this.bottom ? this.top - this.bottom : 0;
    const reach = this.slack * (g * drop + 2 * this.driver * this.driver);
    let alarm = false;
    for (let b = 0; b < w.bodies.length; b++) {
      if (b >= this.e0.length) this.grow();
      const m = this.bodyMass[b];
      if (!(m > 0)) continue;
      const e = this.bodyKe[b] / m;
      if (m > this.mass[b] * (1 + 1e-12)) {
        // an emitter added particles with their own speed and height: a new start for this body
        this.e0[b] = Math.max(this.e0[b], e);
        this.mass[b] = m;
        this.heights(true);
      }
      const bound = this.e0[b] + reach;
      if (e > bound * (1 + 1e-9) + 1e-9 || !Number.isFinite(e)) {
        alarm = true;
        if (this.first === null) {
          this.first = {
            time: w.time,
            step: w.steps,
            body: b,
            name: w.bodies[b].name,
            kineticEnergy: this.bodyKe[b],
            specificEnergy: e,
            bound,
          };
        }
      }
    }
    if (alarm) this.alarms++;
    return alarm;
  }

  /** A sentence for a warning. */
  static describe(a: EnergyAlarm): string {
    const who = a.name ? `body '${a.name}'` : `body ${a.body}`;
    return (
      `${who} gained kinetic energy from nowhere at t = ${a.time.toFixed(3)} s (step ${a.step}): ` +
      `${a.kineticEnergy.toPrecision(3)} J, ${a.specificEnergy.toPrecision(3)} J/kg, more than the ` +
      `${a.bound.toPrecision(3)} J/kg that gravity, its start and the scene's drivers could give it`
    );
  }

  private grow(): void {
    const nb = this.world.bodies.length;
    const e0 = new Float64Array(nb);
    const mass = new Float64Array(nb);
    e0.set(this.e0);
    mass.set(this.mass);
    for (let b = this.e0.length; b < nb; b++) {
      mass[b] = this.bodyMass[b];
      e0[b] = this.bodyMass[b] > 0 ? this.bodyKe[b] / this.bodyMass[b] : 0;
    }
    this.e0 = e0;
    this.mass = mass;
  }

  /** Kinetic energy and mass of each body's movable particles. */
  private measure(): void {
    const w = this.world;
    const nb = w.bodies.length;
    if (this.bodyKe.length < nb) {
      this.bodyKe = new Float64Array(nb);
      this.bodyMass = new Float64Array(nb);
    }
    const { v, mass, invMass } = w.store;
    for (let b = 0; b < nb; b++) {
      const body = w.bodies[b];
      let ke = 0,
        m = 0;
      for (let i = body.offset, end = body.offset + body.count; i < end; i++) {
        if (invMass[i] === 0) continue;
        const i3 = 3 * i;
        ke += mass[i] * (v[i3] * v[i3] + v[i3 + 1] * v[i3 + 1] + v[i3 + 2] * v[i3 + 2]);
        m += mass[i];
      }
      this.bodyKe[b] = 0.5 * ke;
      this.bodyMass[b] = m;
    }
  }

  /** Highest particle at the start (or when particles were added) and lowest ever, as heights against gravity. */
  private heights(start: boolean): void {
    const w = this.world;
    const g = w.gravity;
    const gl = Math.hypot(g[0], g[1], g[2]);
    if (!(gl > 0)) return;
    const ux = -g[0] / gl,
      uy = -g[1] / gl,
      uz = -g[2] / gl;
    const { x, invMass, count } = w.store;
    let lo = this.bottom,
      hi = this.top;
    for (let i = 0; i < count; i++) {
      if (invMass[i] === 0) continue;
      const hgt = ux * x[3 * i] + uy * x[3 * i + 1] + uz * x[3 * i + 2];
      if (hgt < lo) lo = hgt;
      if (start && hgt > hi) hi = hgt;
    }
    this.bottom = lo;
    if (start) this.top = hi;
  }

  private fastestParticle(): number {
    const { v, invMass, count } = this.world.store;
    let m = 0;
    for (let i = 0; i < count; i++) {
      if (invMass[i] === 0) continue;
      const s = v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2];
      if (s > m) m = s;
    }
    return Math.sqrt(m);
  }

  /** The fastest driver so far: kinematic colliders, moving attachment targets, the wind. */
  private watchDrivers(): void {
    const w = this.world;
    let d = this.driver;
    for (const c of w.colliders) {
      if (!c.kinematic || !c.enabled) continue;
      const R = c.boundingRadius();
      const av = c.angularVelocity;
      const spin = Number.isFinite(R) ? Math.hypot(av[0], av[1], av[2]) * R : 0;
      const lv = c.linearVelocity;
      d = Math.max(d, Math.hypot(lv[0], lv[1], lv[2]) + spin);
    }
    if (w.wind) {
      const u = w.wind.velocity;
      d = Math.max(d, Math.hypot(u[0], u[1], u[2]) * (1 + Math.abs(w.wind.gust ?? 0)));
    }
    // attachment targets (pins, scripted pins, the mouse drag) move only as scripted: their speed over the last step
    const att = w.attachments;
    const n = att.count;
    if (n !== this.pinnedCount || this.pinnedAt.length < 3 * n) {
      this.pinnedAt = att.target.slice(0, 3 * n);
      this.pinnedCount = n;
    } else if (w.dt > 0) {
      const t = att.target,
        at = this.pinnedAt,
        inv = 1 / w.dt;
      for (let k3 = 0; k3 < 3 * n; k3 += 3) {
        const sp = Math.hypot(t[k3] - at[k3], t[k3 + 1] - at[k3 + 1], t[k3 + 2] - at[k3 + 2]) * inv;
        if (sp > d) d = sp;
        at[k3] = t[k3];
        at[k3 + 1] = t[k3 + 1];
        at[k3 + 2] = t[k3 + 2];
      }
    }
    this.driver = d;
  }
}
