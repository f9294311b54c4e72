/**
 * Coulomb friction's tangential split, written once for the position-level
 * friction of the contact projections (PBD 2007 §3.5; Macklin et al. 2014,
 * "Unified particle physics", §6.1 eqs. 23–24): of a contact's relative
 * displacement d over the substep, the tangential part t = d − (d·n̂) n̂ is
 * removed entirely while |t| < μs d_n (static friction, d_n the normal
 * correction of the projection), and by μk d_n / |t| of it, at most all, otherwise
 * (kinetic friction).
 *
 * Used by rigid-coupling.ts (particle–rigid), surface-response.ts (surface
 * contacts), segment-contacts.ts (strand segments), particle-contacts.ts
 * (the kinetic share) and rigid/contact-set.ts (the tangential part only).
 * Different formulas, not copies: the collider contacts' friction
 * (collider-contacts-blocks.ts: a cone on the impulses banked since an
 * anchor) and the rigid contacts' λ_t < μs λ_n split (rigid/contact-set.ts,
 * scripts/kernels/emit-contact-blocks.ts).
 *
 * Small scalar functions without closures, so that V8 inlines them in the
 * projection loops; the operation order is the one the loops had written
 * out (the same bits).
 */

/**
 * The tangential part t = d − (d·n̂) n̂ of the relative displacement d (n̂ a
 * unit normal), written to T[0..2]; returns |t|.
 */
export function tangentialPart(
  T: Float64Array,
  dx: number,
  dy: number,
  dz: number,
  nx: number,
  ny: number,
  nz: number,
): number {
  const dn = dx * nx + dy * ny + dz * nz;
  const tx = dx - dn * nx,
    ty = dy - dn * ny,
    tz = dz - dn * nz;
  T[0] = tx;
  T[1] = ty;
  T[2] = tz;
  return Math.sqrt(tx * tx + ty * ty + tz * tz);
}

/**
 * The kinetic share μk d_n / |t| of the tangential displacement of length tl
 * that a projection with normal correction dn removes, at most 1 (eq. 24).
 */
export function kineticShare(tl: number, dn: number, muK: number): number {
  return Math.min((muK * dn) / tl, 1);
}

/**
 * Coulomb's split (eqs. 23–24): the share g ∈ [0, 1] of the tangential
 * displacement of length tl > 0 that a projection with normal correction dn
 * removes: 1 while tl < μs dn (static), the kinetic share otherwise.
 */
export function coulombShare(tl: number, dn: number, muS: number, muK: number): number {
  return tl < muS * dn ? 1 : kineticShare(tl, dn, muK);
}
