import type { Body } from '../core/body.js';
import { PbdError } from '../core/errors.js';

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
