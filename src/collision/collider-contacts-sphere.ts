/**
 * The collider contacts of one sphere that follows no rigid body, in one flat pass over the particles
 * (hair on a head; the fused strand pass, src/strands/fused-pass.ts, block by block): the loop is
 * printed per collider shape from one definition, scripts/kernels/emit-collider-contacts.ts, into
 * collider-contact-loops.generated.ts (`npm run kernels`), where SphereCollider's distanceAt and
 * raycastAt are written out as arithmetic. Here its entry and types, for the importers.
 */
export { generateSphereContacts } from './collider-contact-loops.generated.js';
export type { SphereContactsTarget, SphereLike } from './collider-contact-targets.js';
