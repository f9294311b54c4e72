import type { Body } from '../core/body.js';
import { PbdError } from '../core/errors.js';
import { SpatialHash } from './spatial-hash.js';

/**
 * The registry of bodies shared by the two contact systems between bodies'
 * own primitives, ParticleContacts (particles with radii) and SegmentContacts
 * (segments of strands): each registered body is a group, with its own
 * friction and whether it touches itself; contact between two groups can be
 * switched off (pairOff). Used when bodies register and when the systems
 * rebuild their lists, never in a substep's loops.
 */
export interface ContactGroup {
  body: Body;
  /** Contacts within this body. */
  self: boolean;
  friction: number;
  staticFriction: number;
}

/**
 * The kinetic and static friction coefficients (μ, μs) of a body's contact
 * options, μ 0.3 and μs = μ by default; negative or non-finite ones are
 * refused (contact/friction at `where`).
 */
export function contactFriction(
  o: { friction?: number; staticFriction?: number },
  where: string,
): [number, number] {
  const mu = o.friction ?? 0.3,
    mus = o.staticFriction ?? mu;
  if (!(mu >= 0) || !(mus >= 0) || !Number.isFinite(mu) || !Number.isFinite(mus))
    throw new PbdError(
      'contact/friction',
      where,
      `friction coefficients must be finite and ≥ 0, got ${mu}, ${mus}`,
    );
  return [mu, mus];
}

/** Adds a body's group, or replaces the group of a body registered already (the new settings replace the old). */
export function registerGroup<G extends ContactGroup>(groups: G[], group: G): void {
  const k = groups.findIndex((g) => g.body === group.body);
  if (k >= 0) groups[k] = group;
  else groups.push(group);
}

/** The key of the pair of groups ga, gb (either order) in pairOff. */
function pairKey(ga: number, gb: number): number {
  return Math.min(ga, gb) * 65536 + Math.max(ga, gb);
}

/**
 * Switches contact between two registered bodies (a === b: within one
 * body); `what` names the system in the error for an unregistered body
 * ('particle', 'segment').
 */
export function switchPair(
  groups: ContactGroup[],
  pairOff: Map<number, boolean>,
  a: Body,
  b: Body,
  enabled: boolean,
  what: string,
): void {
  const ia = groups.findIndex((g) => g.body === a),
    ib = groups.findIndex((g) => g.body === b);
  if (ia < 0 || ib < 0)
    throw new PbdError(
      'contact/unknown-body',
      `${what} contact pair ('${a.name}', '${b.name}')`,
      `both bodies must be registered for ${what} contacts first`,
    );
  if (ia === ib) groups[ia].self = enabled;
  else pairOff.set(pairKey(ia, ib), !enabled);
}

/** allowed[a · G + b] = 1 where groups a and b (of G) may be in contact, else 0. */
export function allowedPairs(groups: ContactGroup[], pairOff: Map<number, boolean>): Uint8Array<ArrayBuffer> {
  const G = groups.length;
  const allowed = new Uint8Array(G * G);
  for (let a = 0; a < G; a++)
    for (let b = 0; b < G; b++)
      allowed[a * G + b] = (a === b ? groups[a].self : !pairOff.get(pairKey(a, b))) ? 1 : 0;
  return allowed;
}

/**
 * What the two contact systems between bodies (ParticleContacts,
 * SegmentContacts) hold alike: the ConstraintSet switches and counters, the
 * registry of bodies (groups, pairOff) with its switch and query, and the
 * broad phase's hash of their primitives' boxes.
 */
export abstract class BodyPairContacts<G extends ContactGroup> {
  enabled = true;
  /** Contacts of the current substep. */
  count = 0;
  /** Extra reach (fraction of the two radii's sum) within which pairs are collected. Default 0.5. */
  marginFactor = 0.5;
  /** Primitives whose candidates or contacts reached the system's per-primitive limit, in a substep, since the start. */
  capped = 0;
  /** Candidate pairs tested since the start (the broad phase's answers: the work of the narrow phase). */
  candidates = 0;
  protected readonly groups: G[] = [];
  protected readonly hash = new SpatialHash(1);
  protected readonly pairOff = new Map<number, boolean>();
  /** The registry changed: the primitives are read anew at the next step. */
  protected dirty = true;
  /** The primitives taking part (particles, segments), their boxes (min xyz, max xyz) for the hash. */
  protected n = 0;
  protected boxes = new Float64Array(0);
  /** allowedPair[a · G + b]: may groups a and b be in contact? */
  protected allowedPair = new Uint8Array(0);

  /** The system's name in errors ('particle', 'segment'). */
  protected abstract readonly what: string;

  /** The broad phase over the primitives' boxes: the hash fitted to them and filled. */
  protected buildHash(): void {
    this.hash.fitCellSize(this.boxes, this.n);
    this.hash.build(this.boxes, this.n);
  }

  /**
   * The candidates of primitive a: the primitives whose boxes meet its box (a
   * left out), at most `limit`, into hash.result (hash.truncated: the limit
   * was reached); counted in `candidates`. Returns how many.
   */
  protected queryCandidates(a: number, limit: number): number {
    const boxes = this.boxes,
      o = 6 * a;
    const m = this.hash.query(
      boxes[o],
      boxes[o + 1],
      boxes[o + 2],
      boxes[o + 3],
      boxes[o + 4],
      boxes[o + 5],
      a,
      limit,
    );
    this.candidates += m;
    return m;
  }

  /** Is the body registered? */
  has(body: Body): boolean {
    return this.groups.some((g) => g.body === body);
  }

  /** Switches contact between two registered bodies (a === b: within one body). */
  setPair(a: Body, b: Body, enabled: boolean): void {
    switchPair(this.groups, this.pairOff, a, b, enabled, this.what);
    this.dirty = true;
  }

  /** Adds a body's group, or gives a registered body its new settings. */
  protected register(group: G): void {
    registerGroup(this.groups, group);
    this.dirty = true;
  }

  /** The pairs (first[k], second[k]) of the current contacts, for tests. */
  protected contactPairs(first: Int32Array, second: Int32Array): [number, number][] {
    const out: [number, number][] = [];
    for (let k = 0; k < this.count; k++) out.push([first[k], second[k]]);
    return out;
  }
}
