import { quatFromAxisAngle, quatMultiply, quatNormalize, quatRotate } from '../math/quat.js';
import { PbdError } from './errors.js';

export type Vec3Tuple = [number, number, number];

/**
 * A scripted rigid motion, used by kinematic colliders and kinematic
 * attachments (003 §3.6). All parts are optional and compose in this order:
 * keyframes, then spin about a centre, then oscillation, then a constant
 * velocity drift. Time is clamped to [start, end].
 */
export interface MotionSpec {
  /** Constant linear velocity (m/s). */
  velocity?: Vec3Tuple;
  /** Rotation about `axis` through `center` at `speed` rad/s. */
  spin?: { axis: Vec3Tuple; speed: number; center?: Vec3Tuple };
  /** Sinusoidal offset amplitude · sin(2π frequency t + phase). */
  oscillate?: { amplitude: Vec3Tuple; frequency: number; phase?: number };
  /** Piecewise-linear translations (and optional Euler-degree rotations about `center`) at increasing times. */
  keyframes?: { times: number[]; translations: Vec3Tuple[]; rotations?: Vec3Tuple[]; center?: Vec3Tuple };
  /** Motion starts at this time (s); before it, the pose is the initial one. */
  start?: number;
  /** Motion stops at this time (s); after it, the pose stays where it was. */
  end?: number;
}

/**
 * Evaluates a MotionSpec as a rigid transform T(t): x ↦ R(t)(x − c) + c + d(t)
 * relative to the initial pose. No allocation per evaluation.
 */
export class Motion {
  readonly spec: MotionSpec;
  private readonly q = new Float64Array(4);
  private readonly tmpQ = new Float64Array(4);
  private readonly tmpV = new Float64Array(3);
  /** Current rotation (quaternion x,y,z,w), rotation centre and translation after `evaluate`. */
  readonly rotation = new Float64Array([0, 0, 0, 1]);
  readonly center = new Float64Array(3);
  readonly translation = new Float64Array(3);

  constructor(spec: MotionSpec, where = 'motion') {
    validateMotion(spec, where);
    this.spec = spec;
    const c = spec.spin?.center ?? spec.keyframes?.center;
    if (c) this.center.set(c);
  }

  private lastTime = Number.NaN;

  /** Sets rotation/center/translation for time t (cached: repeated calls with the same t are free). */
  evaluate(t: number): void {
    if (t === this.lastTime) return;
    this.lastTime = t;
    const s = this.spec;
    const t0 = s.start ?? 0;
    const tc = Math.min(Math.max(t, t0), s.end ?? Number.POSITIVE_INFINITY) - t0;
    const rot = this.rotation;
    const tr = this.translation;
    rot[0] = rot[1] = rot[2] = 0;
    rot[3] = 1;
    tr[0] = tr[1] = tr[2] = 0;
    if (s.keyframes) this.evalKeyframes(tc);
    if (s.spin) {
      const a = s.spin.axis;
      quatFromAxisAngle(this.q, 0, a[0], a[1], a[2], s.spin.speed * tc);
      quatMultiply(rot, 0, this.q, 0, rot, 0);
    }
    if (s.oscillate) {
      const o = s.oscillate;
      const k = Math.sin(2 * Math.PI * o.frequency * tc + (o.phase ?? 0));
      tr[0] += o.amplitude[0] * k;
      tr[1] += o.amplitude[1] * k;
      tr[2] += o.amplitude[2] * k;
    }
    if (s.velocity) {
      tr[0] += s.velocity[0] * tc;
      tr[1] += s.velocity[1] * tc;
      tr[2] += s.velocity[2] * tc;
    }
  }

  private evalKeyframes(t: number): void {
    const k = this.spec.keyframes!;
    const n = k.times.length;
    let a = 0;
    while (a < n - 1 && k.times[a + 1] <= t) a++;
    const b = Math.min(a + 1, n - 1);
    const span = k.times[b] - k.times[a];
    const f = span > 0 ? Math.min(Math.max((t - k.times[a]) / span, 0), 1) : 0;
    const ta = k.translations[a],
      tb = k.translations[b];
    this.translation[0] = ta[0] + (tb[0] - ta[0]) * f;
    this.translation[1] = ta[1] + (tb[1] - ta[1]) * f;
    this.translation[2] = ta[2] + (tb[2] - ta[2]) * f;
    if (k.rotations) {
      // interpolate Euler angles linearly (keyframes are meant to be dense enough for this)
      const ra = k.rotations[a],
        rb = k.rotations[b];
      const d = Math.PI / 180;
      const rx = (ra[0] + (rb[0] - ra[0]) * f) * d;
      const ry = (ra[1] + (rb[1] - ra[1]) * f) * d;
      const rz = (ra[2] + (rb[2] - ra[2]) * f) * d;
      quatFromAxisAngle(this.rotation, 0, 1, 0, 0, rx);
      quatFromAxisAngle(this.tmpQ, 0, 0, 1, 0, ry);
      quatMultiply(this.rotation, 0, this.tmpQ, 0, this.rotation, 0);
      quatFromAxisAngle(this.tmpQ, 0, 0, 0, 1, rz);
      quatMultiply(this.rotation, 0, this.tmpQ, 0, this.rotation, 0);
      quatNormalize(this.rotation, 0);
    }
  }

  /** out[o..o+2] = T(t)(x) for the time last passed to `evaluate`. */
  apply(out: Float64Array, o: number, x: number, y: number, z: number): void {
    const c = this.center;
    quatRotate(this.tmpV, 0, this.rotation, 0, x - c[0], y - c[1], z - c[2]);
    out[o] = this.tmpV[0] + c[0] + this.translation[0];
    out[o + 1] = this.tmpV[1] + c[1] + this.translation[1];
    out[o + 2] = this.tmpV[2] + c[2] + this.translation[2];
  }
}

function validateMotion(s: MotionSpec, where: string): void {
  const bad = (field: string, what: string) => new PbdError('motion/invalid', `${where}.${field}`, what);
  if (s.spin && !(Math.hypot(...s.spin.axis) > 0)) throw bad('spin.axis', 'the spin axis must not be zero');
  if (s.keyframes) {
    const k = s.keyframes;
    if (k.times.length === 0) throw bad('keyframes.times', 'needs at least one keyframe');
    if (k.translations.length !== k.times.length) {
      throw bad('keyframes.translations', `has ${k.translations.length} entries for ${k.times.length} times`);
    }
    if (k.rotations && k.rotations.length !== k.times.length) {
      throw bad('keyframes.rotations', `has ${k.rotations.length} entries for ${k.times.length} times`);
    }
    for (let i = 1; i < k.times.length; i++) {
      if (!(k.times[i] > k.times[i - 1])) throw bad(`keyframes.times[${i}]`, 'keyframe times must increase');
    }
  }
}
