/**
 * Joints of rigid bodies as XPBD constraints (Müller et al. 2020, "Joints":
 * positional and angular corrections with generalized inverse masses, joint
 * limits): a pendulum's period against the analytic one of a physical
 * pendulum, and hinge limits that hold.
 */
import { describe, expect, it } from 'vitest';
import { World } from '../src/core/world.js';
import { RigidBodies } from '../src/rigid/rigid-bodies.js';
import { RigidBody, RigidJoint } from '../src/rigid/rigid-body.js';

const deg = Math.PI / 180;

describe('rigid joints', () => {
  it("a pendulum on a hinge swings with the physical pendulum's period (within 1 % at small angles)", () => {
    const g = 9.81;
    for (const [L, r] of [
      [1, 0.05],
      [0.5, 0.1],
    ]) {
      const world = new World({ dt: 1 / 60, substeps: 20 });
      RigidBodies.of(world).configure({ sleep: false });
      const theta0 = 3 * deg;
      const bob = new RigidBody(world, {
        shape: { type: 'sphere', radius: r },
        position: [L * Math.sin(theta0), -L * Math.cos(theta0), 0],
      });
      new RigidJoint(world, { type: 'hinge', bodyA: bob, anchor: [0, 0, 0], axis: [0, 0, 1] });
      // T = 2π √(I_pivot / (m g L)), I_pivot = 2/5 m r² + m L², with the finite-amplitude factor 1 + θ₀²/16
      const T = 2 * Math.PI * Math.sqrt((0.4 * r * r + L * L) / (g * L)) * (1 + theta0 ** 2 / 16);
      // the period from the times the bob crosses x = 0 going one way (interpolated within a frame)
      const crossings: number[] = [];
      let prev = bob.position()[0];
      for (let k = 1; k <= 60 * 12; k++) {
        world.step();
        const x = bob.position()[0];
        if (prev > 0 && x <= 0) crossings.push((k - 1 + prev / (prev - x)) * world.dt);
        prev = x;
      }
      expect(crossings.length).toBeGreaterThan(4);
      const period = (crossings[crossings.length - 1] - crossings[0]) / (crossings.length - 1);
      expect(Math.abs(period - T) / T, `L = ${L}`).toBeLessThan(0.01);
    }
  });

  it('hinge limits hold within 0.5°: an arm falling onto its lower limit, a motor driving into the upper one', () => {
    const world = new World({ dt: 1 / 60, substeps: 20 });
    RigidBodies.of(world).configure({ sleep: false });
    // a 1 m arm hinged at its end about z, horizontal at angle 0; the hinge angle is body B's (the
    // world's) turn relative to the arm about the axis, so the arm falling makes it grow: limits [−45°, 30°]
    const arm = new RigidBody(world, {
      shape: { type: 'box', halfExtents: [0.5, 0.05, 0.05] },
      position: [0.5, 0, 0],
    });
    const hinge = new RigidJoint(world, {
      type: 'hinge',
      bodyA: arm,
      anchor: [0, 0, 0],
      axis: [0, 0, 1],
      limits: [-45 * deg, 30 * deg],
    });
    let hi = 0;
    for (let k = 0; k < 120; k++) {
      world.step();
      hi = Math.max(hi, hinge.coordinate());
    }
    // it fell onto the limit at 30° and rests there
    expect(Math.abs(hinge.coordinate() - 30 * deg)).toBeLessThan(0.5 * deg);
    expect(hi).toBeLessThan(30.5 * deg);
    // a motor turning it back up at 5 rad/s (unbounded torque) stops at the other limit
    hinge.setMotor({ speed: -5 });
    let lo = Math.PI;
    for (let k = 0; k < 120; k++) {
      world.step();
      lo = Math.min(lo, hinge.coordinate());
    }
    expect(Math.abs(hinge.coordinate() + 45 * deg)).toBeLessThan(0.5 * deg);
    expect(lo).toBeGreaterThan(-45.5 * deg);
  });
});
