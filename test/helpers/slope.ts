/**
 * Boxes on a slope (issue 15, item 6; docs/collision.md, "Friction and
 * restitution"), shared by test/friction-slope.test.ts and
 * scripts/friction-creep.ts / friction-slip.ts: a box 20 cm across put down
 * unstressed on a plane collider tilted by θ, and a probe that tells how its
 * base moves: slipping while pressed on the slope, or carried along while
 * lifted off it.
 */
import {
  type ColliderContacts,
  type ConstraintSet,
  colliderContactsOf,
  PlaneCollider,
  rigidCluster,
  SoftBody,
  type StepContext,
  tetBox,
  World,
  type WorldBody,
} from '../../src/index.js';
import { cubeLattice } from '../helpers.js';

export type SlopeBox = 'rigid' | 'geometric' | 'fem';

/** The FEM box's material and density (E = 1 MPa, ν = 0.3, 500 kg/m³) and size (m). */
export const BOX = { size: 0.2, density: 500, youngsModulus: 1e6, poissonRatio: 0.3 };

/**
 * Puts positions given in the slope's frame (u along the slope, downhill −u; v along its normal,
 * lifted by `lift`) onto the plane tilted by th.
 */
export function toSlope(P: Float64Array, th: number, lift: number): void {
  for (let i = 0; i < P.length; i += 3) {
    const u = P[i],
      v = P[i + 1] + lift;
    P[i] = u * Math.cos(th) - v * Math.sin(th);
    P[i + 1] = u * Math.sin(th) + v * Math.cos(th);
  }
}

export interface BoxOnSlopeOptions {
  iterations?: number;
  substeps?: number;
  /** Kinetic and static friction of the plane. Default 0.5. */
  mu?: number;
  /** Young's modulus of the FEM box (Pa). Default BOX.youngsModulus. */
  youngsModulus?: number;
  /** Compliance of the rigid cluster's shape matching (a shape-matched box that deforms). Default 0. */
  compliance?: number;
}

/**
 * A box resting on the slope tilted by `deg` degrees (its lowest particles at the collider's
 * margin), at rest and unstressed: a rigid cluster (000 §4.1, 4³ particles of radius 2.5 cm), a
 * geometric soft body (hard edges and tet volumes) or a FEM box (tets 4 × 4 × 4). `base`: the
 * particles of its lowest layer; `top`: of its highest.
 */
export function boxOnSlope(
  kind: SlopeBox,
  deg: number,
  o: BoxOnSlopeOptions = {},
): { world: World; body: WorldBody; th: number; base: number[]; top: number[] } {
  const th = (deg * Math.PI) / 180;
  const world = new World({ substeps: o.substeps ?? 10, iterations: o.iterations ?? 1 });
  world.addCollider(new PlaneCollider({ normal: [-Math.sin(th), Math.cos(th), 0], friction: o.mu ?? 0.5 }));
  let body: WorldBody;
  if (kind === 'rigid') {
    const R = 0.025;
    const pos = cubeLattice(4, 0.05);
    toSlope(pos, th, R + 0.005);
    body = rigidCluster(world, { positions: pos, masses: 0.1, radius: R, compliance: o.compliance ?? 0 });
  } else {
    const s = BOX.size;
    const mesh = tetBox({ size: [s, s, s], resolution: [4, 4, 4], origin: [-s / 2, 0, -s / 2] });
    toSlope(mesh.positions, th, 0.005);
    body = new SoftBody(world, {
      mesh,
      density: BOX.density,
      model: kind === 'geometric' ? 'geometric' : 'fem',
      material: { youngsModulus: o.youngsModulus ?? BOX.youngsModulus, poissonRatio: BOX.poissonRatio },
    });
  }
  const x = world.store.x;
  const height = (i: number) => -Math.sin(th) * x[3 * i] + Math.cos(th) * x[3 * i + 1];
  let low = Number.POSITIVE_INFINITY,
    high = Number.NEGATIVE_INFINITY;
  for (let i = body.offset; i < body.offset + body.count; i++) {
    low = Math.min(low, height(i));
    high = Math.max(high, height(i));
  }
  const base: number[] = [];
  const top: number[] = [];
  for (let i = body.offset; i < body.offset + body.count; i++) {
    if (height(i) < low + 1e-6) base.push(i);
    if (height(i) > high - 1e-6) top.push(i);
  }
  return { world, body, th, base, top };
}

/** Mean displacement down the slope tilted by th (m) of the given particles from `from` to `x`. */
export function downhill(x: Float64Array, th: number, ids: readonly number[], from: Float64Array): number {
  let d = 0;
  for (const i of ids)
    d -= (x[3 * i] - from[3 * i]) * Math.cos(th) + (x[3 * i + 1] - from[3 * i + 1]) * Math.sin(th);
  return d / ids.length;
}

/**
 * Splits the downhill motion of a box's base, substep by substep (the motion p − x of each base
 * particle over the substep, read after the last projection of the contacts, averaged over the
 * base), by what its contact did in that substep:
 * - `stuck`: pressed on the slope (normal correction > 0) and held by static friction;
 * - `sliding`: pressed and sliding (kinetic friction);
 * - `touching`: within 1 µm of the surface but not pressed (no normal force, so no friction);
 * - `lifted`: more than 1 µm off the surface at the substep's end (the box rocking forward lifts
 *   its uphill rows), carried along by the body.
 * Slip is what the base moved while in contact: stuck + sliding + touching. `lift` is the largest
 * gap (m) a base particle had. The probe is a constraint set that only reads (order 200: after the
 * contacts), so the world's numbers do not change.
 */
export class SlipProbe implements ConstraintSet {
  readonly kind = 'slip-probe';
  readonly order = 200;
  enabled = true;
  /** It holds no constraints. */
  readonly count = 0;
  stuck = 0;
  sliding = 0;
  touching = 0;
  lifted = 0;
  lift = 0;
  private readonly contacts: ColliderContacts;

  constructor(
    world: World,
    private readonly th: number,
    private readonly base: readonly number[],
  ) {
    this.contacts = colliderContactsOf(world);
    world.addConstraintSet(this);
  }

  /** Downhill motion of the base while in contact with the slope (m). */
  get slip(): number {
    return this.stuck + this.sliding + this.touching;
  }

  project(ctx: StepContext): void {
    if (ctx.iteration !== ctx.iterations - 1) return;
    const { p, x } = ctx.store;
    const cc = this.contacts;
    const c = Math.cos(this.th),
      s = Math.sin(this.th);
    const w = 1 / this.base.length;
    for (const i of this.base) {
      const d = -((p[3 * i] - x[3 * i]) * c + (p[3 * i + 1] - x[3 * i + 1]) * s) * w;
      const k = cc.contactOf[i];
      const gap =
        k < 0
          ? Number.POSITIVE_INFINITY
          : (p[3 * i] - cc.q[3 * k]) * cc.n[3 * k] +
            (p[3 * i + 1] - cc.q[3 * k + 1]) * cc.n[3 * k + 1] +
            (p[3 * i + 2] - cc.q[3 * k + 2]) * cc.n[3 * k + 2];
      if (k >= 0 && cc.lambdaN[k] > 0) {
        if (cc.slid[k] !== 0) this.sliding += d;
        else this.stuck += d;
      } else if (gap <= 1e-6) this.touching += d;
      else {
        this.lifted += d;
        if (k >= 0) this.lift = Math.max(this.lift, gap);
      }
    }
  }
}

/**
 * A plane collider with friction μ = μs = `mu`, tilted by th0 degrees about z, that holds still until
 * `start` (s) and then turns about z by `turn` degrees until `end`.
 */
export function tiltingPlane(
  th0: number,
  start: number,
  end: number,
  turn: number,
  mu: number,
): PlaneCollider {
  const t0 = (th0 * Math.PI) / 180;
  return new PlaneCollider({
    normal: [-Math.sin(t0), Math.cos(t0), 0],
    friction: mu,
    motion: {
      keyframes: {
        times: [0, start, end],
        translations: [
          [0, 0, 0],
          [0, 0, 0],
          [0, 0, 0],
        ],
        rotations: [
          [0, 0, 0],
          [0, 0, 0],
          [0, 0, turn],
        ],
      },
    },
  });
}

/** Mean position (m) of the given particles along the tilting plane's present uphill direction. */
export function alongPlane(
  plane: PlaneCollider,
  x: Float64Array,
  ids: readonly number[],
  n: Float64Array,
): number {
  plane.distance(0, 0, 0, n);
  let u = 0;
  for (const i of ids) u += x[3 * i] * n[1] - x[3 * i + 1] * n[0];
  return u / ids.length;
}
