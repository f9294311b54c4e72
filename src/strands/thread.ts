/**
 * Centrelines of single strands and rods: a helix, a curly strand and a
 * loosely tied overhand knot (the surgical thread of 000 §6, after Kubiak
 * et al.), as polylines of nearly equal segments.
 */
import { PbdError, requirePositiveAs } from '../core/errors.js';

/** An overhand knot with straight tails along x, loosely tied. */
export interface OverhandKnotOptions {
  /** Scale a of the knot (m): the loop spans about 6 a. */
  size: number;
  /** Length of each straight tail (m). */
  tail: number;
  /** Segment length (m); the polyline's segments are this long to within a few per cent. */
  segment: number;
  /** Height (m) by which the two ends of the loop pass above and below each other where the tails leave. Default 1.5 × size. */
  clearance?: number;
  /** Centre of the knot. Default the origin. */
  center?: [number, number, number];
}

/** A helix about the y axis, hanging down from its top end. */
export interface HelixOptions {
  /** Radius of the coils (m). */
  radius: number;
  /** Rise per turn (m). */
  pitch: number;
  /** Turns. */
  turns: number;
  /** Segment length (m). */
  segment: number;
  /** Top end (m). Default the origin. */
  top?: [number, number, number];
  /** A straight lead (m) from the top down into the first coil. Default 0. */
  lead?: number;
}

function positive(v: number, field: string, where: string): void {
  requirePositiveAs(v, 'a finite number > 0', 'strands/shape', `${where}.${field}`);
}

/** Resamples a dense curve (flat xyz) into segments of about length h, keeping both ends. */
function resample(dense: number[], h: number): number[] {
  const n = dense.length / 3;
  const arc = new Float64Array(n);
  for (let i = 1; i < n; i++) {
    arc[i] =
      arc[i - 1] +
      Math.hypot(
        dense[3 * i] - dense[3 * i - 3],
        dense[3 * i + 1] - dense[3 * i - 2],
        dense[3 * i + 2] - dense[3 * i - 1],
      );
  }
  const total = arc[n - 1];
  const m = Math.max(1, Math.round(total / h));
  const out: number[] = [];
  let k = 0;
  for (let j = 0; j <= m; j++) {
    const s = (total * j) / m;
    while (k < n - 2 && arc[k + 1] < s) k++;
    const span = arc[k + 1] - arc[k];
    const f = span > 0 ? Math.min(1, Math.max(0, (s - arc[k]) / span)) : 0;
    for (let c = 0; c < 3; c++) out.push(dense[3 * k + c] + f * (dense[3 * k + 3 + c] - dense[3 * k + c]));
  }
  return out;
}

/**
 * An overhand knot: the trefoil (sin t + 2 sin 2t, cos t − 2 cos 2t,
 * −sin 3t) · a, cut open at the tip of its lowest lobe (t = π, where it
 * runs along +x) with the two ends lifted apart by ± clearance/2 near the
 * cut, and a straight tail from each end: the first along −x, the second
 * along +x, both outside the knot. Pulling the tails apart tightens it.
 * Returns the polyline (flat xyz), first tail first.
 */
export function overhandKnot(o: OverhandKnotOptions, where = 'overhandKnot'): number[] {
  positive(o.size, 'size', where);
  positive(o.tail, 'tail', where);
  positive(o.segment, 'segment', where);
  const a = o.size;
  const hz = 0.5 * (o.clearance ?? 1.5 * a);
  if (!(hz >= 0) || !Number.isFinite(hz))
    throw new PbdError('strands/shape', `${where}.clearance`, `must be finite and ≥ 0, got ${o.clearance}`);
  const [cx, cy, cz] = o.center ?? [0, 0, 0];
  const dense: number[] = [];
  const fine = a / 50;
  // first tail: from −tail along −x to the start of the loop
  const nt = Math.max(2, Math.ceil(o.tail / fine));
  for (let j = 0; j < nt; j++) dense.push(-o.tail + (o.tail * j) / nt, -3 * a, hz);
  // the loop: t from π to 3π; the lift falls from +hz to −hz over the first and last sixth, 0 in between
  const nl = 4000;
  for (let j = 0; j <= nl; j++) {
    const u = j / nl;
    const t = Math.PI + 2 * Math.PI * u;
    const ramp = (v: number) => {
      const s = Math.min(1, Math.max(0, v));
      return s * s * (3 - 2 * s);
    };
    const lift = hz * (1 - ramp(u * 6)) - hz * ramp((u - 5 / 6) * 6);
    dense.push(
      a * (Math.sin(t) + 2 * Math.sin(2 * t)),
      a * (Math.cos(t) - 2 * Math.cos(2 * t)),
      -a * Math.sin(3 * t) + lift,
    );
  }
  for (let j = 1; j <= nt; j++) dense.push((o.tail * j) / nt, -3 * a, -hz);
  const pts = resample(dense, o.segment);
  for (let i = 0; i < pts.length; i += 3) {
    pts[i] += cx;
    pts[i + 1] += cy;
    pts[i + 2] += cz;
  }
  return pts;
}

/** A helix about the vertical axis, going down from its top end (after an optional straight lead). */
export function helix(o: HelixOptions, where = 'helix'): number[] {
  positive(o.radius, 'radius', where);
  positive(o.pitch, 'pitch', where);
  positive(o.turns, 'turns', where);
  positive(o.segment, 'segment', where);
  const [tx, ty, tz] = o.top ?? [0, 0, 0];
  const lead = o.lead ?? 0;
  const dense: number[] = [];
  const fine = Math.min(o.radius, o.pitch) / 50;
  if (lead > 0) {
    const n = Math.ceil(lead / fine);
    for (let j = 0; j < n; j++) dense.push(tx + o.radius, ty - (lead * j) / n, tz);
  }
  const n = Math.ceil((o.turns * 2 * Math.PI * o.radius) / fine);
  for (let j = 0; j <= n; j++) {
    const phi = (2 * Math.PI * o.turns * j) / n;
    dense.push(
      tx + o.radius * Math.cos(phi),
      ty - lead - (o.pitch * phi) / (2 * Math.PI),
      tz + o.radius * Math.sin(phi),
    );
  }
  return resample(dense, o.segment);
}
