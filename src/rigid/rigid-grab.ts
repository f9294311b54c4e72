/**
 * The mouse on a rigid body: a soft zero-length XPBD constraint between a
 * point fixed in the body and a target the user moves (the rigid-body twin
 * of World.grab), projected with the body's generalized inverse mass at the
 * point (Müller et al. 2020, eqs. 2–9; rigidPointCorrection). On release the
 * body keeps its velocity, so it can be thrown.
 */
import type { ConstraintSet, StepContext } from '../core/constraint-set.js';
import { PbdError } from '../core/errors.js';
import type { Vec3Tuple } from '../core/motion.js';
import type { SystemKind, World } from '../core/world.js';
import { RigidBodies } from './rigid-bodies.js';
import { bodyPointToWorld, rigidPointCorrection, worldPointToBody } from './xpbd.js';

const Q = new Float64Array(3);

/** The world's rigid-body grabs (at most a few: one per pointer). */
export class RigidGrabs implements ConstraintSet {
  readonly kind = 'rigid-grab';
  readonly order = -5;
  enabled = true;
  count = 0;
  body: number[] = [];
  local: number[] = [];
  target: number[] = [];
  compliance: number[] = [];
  lambda: number[] = [];
  private readonly world: World;
  /** One token per live grab, in the arrays' order: a handle finds its row by its own token. */
  private readonly tokens: object[] = [];

  static of(world: World): RigidGrabs {
    return world.system(rigidGrabsKind);
  }

  constructor(world: World) {
    this.world = world;
  }

  beginStep(ctx: StepContext): void {
    this.lambda.fill(0);
    if (ctx.substep !== 0) return;
    const sys = RigidBodies.of(this.world);
    for (const b of this.body) {
      sys.still[b] = 0;
      if (sys.sleeping[b]) sys.wake(b);
    }
  }

  project(ctx: StepContext): void {
    const r = ctx.rigids;
    const ih2 = 1 / (ctx.h * ctx.h);
    for (let k = 0; k < this.count; k++) {
      const b = this.body[k];
      bodyPointToWorld(r, b, this.local[3 * k], this.local[3 * k + 1], this.local[3 * k + 2], Q);
      const dx = this.target[3 * k] - Q[0],
        dy = this.target[3 * k + 1] - Q[1],
        dz = this.target[3 * k + 2] - Q[2];
      const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
      if (!(len > 1e-12)) continue;
      // the body point moves toward the target (the other side has inverse mass 0)
      this.lambda[k] += rigidPointCorrection(
        r,
        b,
        Q,
        0,
        dx / len,
        dy / len,
        dz / len,
        len,
        0,
        this.compliance[k] * ih2,
        this.lambda[k],
      );
    }
  }

  /**
   * Grabs the point `point` (world) of body b (a rigid store index); returns a handle. With `local`,
   * the grabbed point is that point of the body's frame instead (see grabRigidBody).
   */
  grab(
    b: number,
    point: Vec3Tuple,
    compliance: number,
    local?: Vec3Tuple,
  ): { move(p: Vec3Tuple): void; release(): void } {
    const r = this.world.rigids;
    if (!(Number.isInteger(b) && b >= 0 && b < r.count) || r.invMass[b] === 0) {
      throw new PbdError(
        'rigid/grab',
        `grab of rigid body ${b}`,
        'is not a dynamic rigid body of this world',
      );
    }
    if (!(compliance >= 0) || !Number.isFinite(compliance)) {
      throw new PbdError(
        'rigid/grab',
        `grab of rigid body ${b}.compliance`,
        `must be ≥ 0 (m/N), got ${compliance}`,
      );
    }
    const l = new Float64Array(3);
    if (local) {
      if (!local.every(Number.isFinite)) {
        throw new PbdError(
          'rigid/grab',
          `grab of rigid body ${b}.local`,
          `must be three finite numbers (m, the body's frame), got [${local.join(', ')}]`,
        );
      }
      l.set(local);
    } else worldPointToBody(r, b, point[0], point[1], point[2], l);
    const token = {};
    this.tokens.push(token);
    this.body.push(b);
    this.local.push(l[0], l[1], l[2]);
    this.target.push(point[0], point[1], point[2]);
    this.compliance.push(compliance);
    this.lambda.push(0);
    this.count++;
    RigidBodies.of(this.world).wake(b);
    const at = () => this.tokens.indexOf(token);
    return {
      move: (p) => {
        const k = at();
        if (k >= 0) for (let d = 0; d < 3; d++) this.target[3 * k + d] = p[d];
      },
      release: () => {
        const k = at();
        if (k < 0) return;
        this.tokens.splice(k, 1);
        this.body.splice(k, 1);
        this.local.splice(3 * k, 3);
        this.target.splice(3 * k, 3);
        this.compliance.splice(k, 1);
        this.lambda.splice(k, 1);
        this.count--;
      },
    };
  }
}

export const rigidGrabsKind: SystemKind<RigidGrabs> = {
  name: 'rigid grabs',
  install(world) {
    const g = new RigidGrabs(world as World);
    (world as World).addConstraintSet(g, { system: true });
    return g;
  },
};

/**
 * Drags the point `point` (world) of rigid body b (a store index) toward a
 * target moved with the handle, through a soft constraint of the given
 * compliance (m/N); release() lets go and the body keeps its velocity.
 * `local`, when given, names the grabbed point in the body's frame, and
 * `point` is then only the first target: a caller that picked the point on
 * a pose drawn earlier than the world's (a page drawing the last frame a
 * worker sent while the worker has stepped on) grabs the point it picked,
 * not the one the body has moved under it since.
 */
export function grabRigidBody(
  world: World,
  b: number,
  point: Vec3Tuple,
  compliance = 1e-4,
  local?: Vec3Tuple,
): { move(p: Vec3Tuple): void; release(): void } {
  return RigidGrabs.of(world).grab(b, point, compliance, local);
}
