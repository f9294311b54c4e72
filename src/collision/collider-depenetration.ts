import type { ParticleStore } from '../core/particles.js';
import type { WorldCollider } from '../core/world-collider.js';

const probe = new Float64Array(3);
/** The direction of the current body's move (unit). */
const dir = new Float64Array(3);
const nrm = new Float64Array(4);

/**
 * Moves bodies found deep inside a collider out of it rigidly (003 §3.4's
 * static fallback, for a whole body at once): the collider contacts record
 * every particle that lies deeper inside a collider than it may leave in one
 * substep (ColliderContacts.maxDepenetrationSpeed) — a body placed inside a
 * solid, or swallowed by a teleported collider — as (particle, collider,
 * excess depth, outward normal at x). Each body with such particles is
 * translated, x and p together (a change of position, not of velocity, so
 * nothing is thrown), along one direction d until its recorded particles
 * are out of that depth: d is the depth-weighted mean of their normals, or
 * "up" (against gravity) where those cancel (a body centred in a sphere).
 * Pushing each particle to its own nearest surface point instead tears a
 * body across the collider (a soft cube inside a sphere ends stretched over
 * all of it, fighting the push forever). A body holding a pinned particle,
 * and particles of no body, are left to the per-particle fallback.
 *
 * `deep` holds n records of 6 numbers: particle, collider, excess depth (m:
 * how much deeper than allowed it lies), normal at x (3). Returns the number
 * of bodies moved.
 */
export function depenetrateBodies(
  store: ParticleStore,
  colliders: readonly WorldCollider[],
  deep: Float64Array,
  n: number,
  gravity: Float64Array,
): number {
  const { x, p, invMass, body } = store;
  let moved = 0;
  for (let k = 0; k < n; k++) {
    const b = body[deep[6 * k]];
    if (b < 0 || deep[6 * k + 2] < 0) continue;
    // the body's records (marked done by a negative depth) and its direction
    let dx = 0,
      dy = 0,
      dz = 0,
      total = 0;
    for (let j = k; j < n; j++) {
      if (body[deep[6 * j]] !== b || deep[6 * j + 2] < 0) continue;
      const e = deep[6 * j + 2];
      dx += e * deep[6 * j + 3];
      dy += e * deep[6 * j + 4];
      dz += e * deep[6 * j + 5];
      total += e;
    }
    let l = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if (!(l > 1e-6 * total)) {
      // the normals cancel: up, against gravity (or +y without gravity)
      dx = -gravity[0];
      dy = -gravity[1];
      dz = -gravity[2];
      l = Math.sqrt(dx * dx + dy * dy + dz * dz);
      if (!(l > 0)) {
        dx = 0;
        dy = 1;
        dz = 0;
        l = 1;
      }
    }
    dx /= l;
    dy /= l;
    dz /= l;
    // the body's range (contiguous in the store) and whether it can move
    const i0 = deep[6 * k];
    let lo = i0,
      hi = i0;
    while (lo > 0 && body[lo - 1] === b) lo--;
    while (hi + 1 < store.count && body[hi + 1] === b) hi++;
    let pinned = false;
    for (let i = lo; i <= hi && !pinned; i++) if (invMass[i] === 0 && store.mass[i] > 0) pinned = true;
    // the translation that brings every recorded particle out to its depth along d
    let t = 0;
    dir[0] = dx;
    dir[1] = dy;
    dir[2] = dz;
    for (let j = k; j < n; j++) {
      if (body[deep[6 * j]] !== b || deep[6 * j + 2] < 0) continue;
      if (!pinned)
        t = Math.max(t, exitAlong(colliders[deep[6 * j + 1]], x, 3 * deep[6 * j], deep[6 * j + 2]));
      deep[6 * j + 2] = -1;
    }
    if (pinned || !(t > 0) || !Number.isFinite(t)) continue;
    for (let i = lo; i <= hi; i++) {
      const i3 = 3 * i;
      x[i3] += t * dx;
      x[i3 + 1] += t * dy;
      x[i3 + 2] += t * dz;
      p[i3] += t * dx;
      p[i3 + 1] += t * dy;
      p[i3 + 2] += t * dz;
    }
    moved++;
  }
  return moved;
}

/**
 * The distance along `dir` that moves the point x[i3 …], now `excess` too
 * deep inside the collider, out of that excess: the smallest t found by
 * doubling (or, where doubling steps over the free space, by marching) and
 * bisection with distance(x + t dir) ≥ distance(x) + excess.
 */
function exitAlong(col: WorldCollider, x: Float64Array, i3: number, excess: number): number {
  col.distanceAt(x, i3, nrm);
  const target = nrm[3] + excess;
  let lo = 0,
    hi = excess;
  for (let it = 0; it < 60 && distanceAlong(col, x, i3, hi) < target; it++) {
    lo = hi;
    hi *= 2;
  }
  if (distanceAlong(col, x, i3, hi) < target) {
    // doubling stepped over the free space (a hollow collider's small inside, far from a start in its
    // solid): march instead by the distance still missing, which a 1-Lipschitz distance field cannot
    // overshoot (sphere tracing), in steps of at least excess / 1024
    const minStep = excess / 1024;
    lo = 0;
    hi = -1;
    for (let it = 0, t = 0; it < 4096; it++) {
      const d = distanceAlong(col, x, i3, t);
      if (d >= target) {
        hi = t;
        break;
      }
      lo = t;
      t += Math.max(target - d, minStep);
    }
    if (hi < 0) return Number.POSITIVE_INFINITY;
  }
  for (let it = 0; it < 50 && hi - lo > 1e-9 * hi; it++) {
    const m = 0.5 * (lo + hi);
    if (distanceAlong(col, x, i3, m) < target) lo = m;
    else hi = m;
  }
  return hi;
}

/** Signed distance of x[i3 …] + t dir from the collider. */
function distanceAlong(col: WorldCollider, x: Float64Array, i3: number, t: number): number {
  probe[0] = x[i3] + t * dir[0];
  probe[1] = x[i3 + 1] + t * dir[1];
  probe[2] = x[i3 + 2] + t * dir[2];
  col.distanceAt(probe, 0, nrm);
  return nrm[3];
}
