import type { WorldCollider } from '../core/world-collider.js';
import type { PlainContacts } from './collider-contacts-blocks.js';
import type { CoupledContactArrays } from './rigid-coupling.js';

/**
 * What the collider contacts' generation loops read and write: the loops themselves are printed per
 * collider shape from one definition, scripts/kernels/emit-collider-contacts.ts, into
 * collider-contact-loops.generated.ts (`npm run kernels`).
 */

/** A SphereCollider (colliders.ts) as the sphere's loop reads it: its type is 'sphere'. */
export interface SphereLike extends WorldCollider {
  readonly radius: number;
}

/** The per-contact and per-particle arrays every loop writes besides the projection's (PlainContacts). */
export interface GeneratedContacts extends PlainContacts {
  vn0: Float64Array;
  deep: Uint8Array;
  rigid: Int32Array;
  contactOf: Int32Array;
  anchorOf: Int32Array;
  anchorSeen: Int32Array;
  chunkBox: Float64Array;
  chunkReach: Float64Array;
}

/**
 * What the sphere's loop reads and writes of ColliderContacts (collider-contacts.ts; see there for
 * each field): the projection's contact list (PlainContacts) and what generating contacts adds.
 */
export interface SphereContactsTarget extends GeneratedContacts {
  count: number;
  capacity: number;
  grow(cap: number): void;
  substep: number;
  stickDecay: number;
  maxDepenetrationSpeed: number;
  disabledBody: Uint8Array | null;
  readonly rot: Float64Array;
  readonly nrm: Float64Array;
  readonly hit: Float64Array;
  cullTested: number;
  cullCulled: number;
  recordDeep(i: number, c: number, excess: number): void;
}

/** What the loop for any collider reads and writes: the sphere's, and a rigid body's coupling. */
export interface ColliderContactsTarget extends SphereContactsTarget, CoupledContactArrays {
  particle: Int32Array;
  collider: Int32Array;
  q: Float64Array;
  n: Float64Array;
  lambdaN: Float64Array;
  vn0: Float64Array;
  deep: Uint8Array;
  rigid: Int32Array;
}

/** What the workers read and write (the arguments of the 'collider-plane-contacts' task): the contact list's arrays (PlainContacts) and these. */
export interface PlaneArrays extends GeneratedContacts {
  /** The plane and the substep's numbers (the slots PASS … T_SLOTS: emit-collider-contacts.ts PLANE_TABLE), on a SharedArrayBuffer. */
  T: Float64Array;
  /** Per plane and block (B_STRIDE each, plane j's block b at j·MAX_BLOCKS + b): contacts, chunk tests, chunks culled, deep particles, first contact. */
  B: Int32Array;
  x: Float64Array;
  p: Float64Array;
  v: Float64Array;
  invMass: Float64Array;
  radius: Float64Array;
  group: Int32Array;
  mask: Int32Array;
  /** Per plane and particle slot: plane j's block b lists its contact particles from j·T[LSTRIDE] + b·size on, for its FILL pass. */
  list: Int32Array;
}
