/**
 * A particle skin on a rigid body, so that fluids feel it through their
 * density constraints (buoyancy, stirring). Position based fluids couple to
 * solids through the particles of coupled bodies (src/fluids/solids.ts): a
 * solid particle enters each fluid particle's density with its boundary mass
 * Ψ and is moved by the density constraints with its own mass, and the
 * fluid keeps outside the body's triangles. The skin is a cloth over the
 * body's surface (a subdivided box or an icosphere, about `spacing` apart)
 * whose every vertex is attached, hard, to its point of the body
 * (rigid-attachments.ts): what the fluid's pressure does to the skin, the
 * attachments pass on to the body with its generalized inverse mass — the
 * buoyancy of a floating box comes from the density constraints, nothing is
 * scripted. The skin's particles are in SKIN_GROUP, which the colliders of
 * coupled rigid bodies do not meet (they lie on their own body's surface).
 */
import { Cloth } from '../cloth/cloth.js';
import { PbdError } from '../core/errors.js';
import { quatRotate } from '../math/quat.js';
import { boxMesh, icosphere } from '../mesh/generators.js';
import { type TriangleMesh, triangleArea } from '../mesh/triangle-mesh.js';
import { attachToRigidBody } from './rigid-attachments.js';
import type { RigidBody } from './rigid-body.js';
import { BOX, SPHERE } from './shapes.js';

/** The collision group of skin particles (coupled rigid bodies' colliders leave it out of their mask). */
export const SKIN_GROUP = 1 << 30;

/** Options of rigidSkin. */
export interface RigidSkinOptions {
  /** Distance between skin vertices (m): the fluid's particle spacing is a good choice. */
  spacing: number;
  /**
   * The share of a dynamic body's mass that moves into its skin, in (0, 1): the body keeps the rest
   * (its mass and moments of inertia scaled by 1 − share), so the total is unchanged. Default 0.5.
   * Skin particles much lighter than the fluid's let the density constraints push them into the
   * body rather than the water away (a light skin is a soft one): at 1 % a box of half the water's
   * density sank; at a half, its particles weigh about what a balloon's vertices do in
   * fluids-floating. A static or kinematic body's skin weighs as much as water of the body's volume
   * (it moves with the body; a light one would give way to the water within an iteration).
   */
  share?: number;
}

/** Builds a skin on a box or sphere body and attaches it (see the file comment). */
export function rigidSkin(body: RigidBody, o: RigidSkinOptions): Cloth {
  const where = `${body.name}.skin`;
  const d = o.spacing;
  if (!(d > 0) || !Number.isFinite(d))
    throw new PbdError('rigid/invalid', `${where}.spacing`, `must be a finite number > 0 (m), got ${d}`);
  const s = body.shape;
  let mesh: TriangleMesh;
  if (s.kind === BOX) {
    const h = s.halfExtents;
    mesh = boxMesh(h[0], h[1], h[2], Math.max(1, Math.ceil((2 * Math.max(h[0], h[1], h[2])) / d)));
  } else if (s.kind === SPHERE) {
    // an icosphere's edges are about 1.1 r / 2^s long
    const sub = Math.min(5, Math.max(0, Math.ceil(Math.log2((1.1 * s.radius) / d))));
    mesh = icosphere(s.radius, sub);
  } else {
    throw new PbdError(
      'rigid/skin-shape',
      `${where}`,
      `a skin is made for box and sphere bodies, not for a ${s.type}`,
      'use a box or a sphere for a body in a fluid',
    );
  }
  // body frame → world at the body's current pose
  const r = body.world.rigids,
    i = body.index;
  const P = mesh.positions,
    t = new Float64Array(3);
  for (let v = 0; v < P.length; v += 3) {
    quatRotate(t, 0, r.q, 4 * i, P[v], P[v + 1], P[v + 2]);
    for (let k = 0; k < 3; k++) P[v + k] = r.x[3 * i + k] + t[k];
  }
  let area = 0;
  for (let k = 0; k < mesh.triangles.length / 3; k++) area += triangleArea(P, mesh.triangles, k);
  const share = o.share ?? 0.5;
  if (!(share > 0 && share < 1))
    throw new PbdError('rigid/invalid', `${where}.share`, `must lie in (0, 1), got ${share}`);
  let mass = 1000 * s.volume;
  if (Number.isFinite(body.mass)) {
    mass = share * body.mass;
    const keep = 1 - share;
    r.mass[i] *= keep;
    r.invMass[i] = 1 / r.mass[i];
    for (let k = 3 * i; k < 3 * i + 3; k++) {
      r.inertia[k] *= keep;
      r.invInertia[k] = 1 / r.inertia[k];
    }
  }
  const skin = new Cloth(body.world, {
    mesh,
    name: `${body.name} skin`,
    density: mass / area,
    stretch: { compliance: 0 },
    bend: false,
    group: SKIN_GROUP,
  });
  for (let v = 0; v < skin.activeCount; v++) attachToRigidBody(skin.offset + v, body);
  return skin;
}
