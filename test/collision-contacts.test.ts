import { describe, expect, it } from 'vitest';
import {
  Cloth,
  enableCollisions,
  Granular,
  gridMesh,
  icosphere,
  PlaneCollider,
  type TriangleMesh,
  World,
} from '../src/index.js';
import { countEdgeTriangleIntersections, globalTriangles } from './collision-check.js';
import { grainCube } from './helpers/particles.js';
import { impulseSums, rng, tangledFoldMesh } from './helpers.js';

/** Σ m Δp and Σ m p × Δp of one pass of `project` from the current p (003 §3.3: both vanish). */
function passImpulses(world: World, project: () => void): { linear: number; angular: number; scale: number } {
  const { p, mass, invMass, count } = world.store;
  const before = p.slice(0, 3 * count);
  project();
  return impulseSums(before, p, mass, invMass, count);
}

/** A grid lying in the plane y = height, its positions perturbed (uneven masses). */
function layer(size: number, n: number, height: number, seed: number, turn = 0): TriangleMesh {
  const mesh = gridMesh({ width: size, height: size, cols: n, rows: n });
  const r = rng(seed);
  const c = Math.cos(turn),
    s = Math.sin(turn);
  for (let i = 0; i < mesh.positions.length; i += 3) {
    const x = mesh.positions[i] + (r() - 0.5) * 0.01,
      z = mesh.positions[i + 2] + (r() - 0.5) * 0.01;
    mesh.positions[i] = c * x - s * z;
    mesh.positions[i + 2] = s * x + c * z;
    mesh.positions[i + 1] = height + (r() - 0.5) * 0.004;
  }
  return mesh;
}

/** Two cloths 4 mm apart with thickness 10 mm, velocities random: many violated contacts at once. */
function pressedLayers(friction: number) {
  const world = new World({ gravity: [0, 0, 0], substeps: 4 });
  const a = new Cloth(world, { mesh: layer(0.5, 14, 0, 1), density: 0.2 });
  const b = new Cloth(world, { mesh: layer(0.5, 14, 0.004, 2, 0.3), density: 0.3 });
  const sys = enableCollisions(world, { thickness: 0.01, friction }).add(a).add(b);
  const r = rng(3);
  const { x, p, v } = world.store;
  for (let i = 0; i < v.length; i++) v[i] = (r() - 0.5) * 0.5;
  const ctx = world.makeContext();
  for (let i = 0; i < 3 * world.store.count; i++) p[i] = x[i] + ctx.h * v[i];
  sys.surfaces.beginStep(ctx);
  return { world, sys, ctx };
}

/** The largest relative momentum error of single projections k = 0 … n−1, each from the current p. */
function perProjection(
  world: World,
  n: number,
  project: (k: number) => void,
): { linear: number; angular: number } {
  let linear = 0,
    angular = 0,
    acted = 0;
  for (let k = 0; k < n; k++) {
    const r = passImpulses(world, () => project(k));
    if (r.scale === 0) continue;
    acted++;
    linear = Math.max(linear, r.linear / r.scale);
    angular = Math.max(angular, r.angular / r.scale);
  }
  expect(acted).toBeGreaterThan(50);
  return { linear, angular };
}

describe('self collision and body–body contact: momentum (003 §3.3, §4.3)', () => {
  it('every contact projection conserves linear and angular momentum to 1e-9 relative (frictionless)', () => {
    const { world, sys } = pressedLayers(0);
    const sc = sys.surfaces;
    expect(sc.count).toBeGreaterThan(200);
    const r = perProjection(world, sc.count, (k) => sc.projectRange(world.store, k, k + 1));
    expect(r.linear).toBeLessThan(1e-9);
    expect(r.angular).toBeLessThan(1e-9);
  });

  it('with friction every projection still conserves linear momentum to 1e-9 relative', () => {
    const { world, sys } = pressedLayers(0.5);
    const sc = sys.surfaces;
    const r = perProjection(world, sc.count, (k) => sc.projectRange(world.store, k, k + 1));
    expect(r.linear).toBeLessThan(1e-9);
  });

  it('a whole pass conserves linear momentum to 1e-9 relative (with friction)', () => {
    const { world, sys } = pressedLayers(0.5);
    const r = passImpulses(world, () => sys.surfaces.projectRange(world.store, 0, sys.surfaces.count));
    expect(r.linear / r.scale).toBeLessThan(1e-9);
  });

  it('the contacts push the layers apart to the thickness', () => {
    const { world, sys } = pressedLayers(0);
    const sc = sys.surfaces;
    world.store.x.set(world.store.p);
    const before = sc.maxViolation(world.store);
    for (let it = 0; it < 30; it++) sc.projectRange(world.store, 0, sc.count);
    world.store.x.set(world.store.p);
    expect(before).toBeGreaterThan(0.004);
    expect(sc.maxViolation(world.store)).toBeLessThan(1e-4);
  });

  it('particle contacts conserve linear and angular momentum per projection (frictionless), linear with friction', () => {
    for (const friction of [0, 0.6]) {
      const { world, g } = grainCube(0.2, 0.025, 0.014, 0.3);
      const sys = enableCollisions(world, { friction }).add(g);
      const r = rng(5);
      const { x, p, v, mass } = world.store;
      for (let i = 0; i < g.count; i++) world.store.setMass(i, mass[i] * (0.5 + r()));
      for (let i = 0; i < v.length; i++) v[i] = (r() - 0.5) * 2;
      const ctx = world.makeContext();
      for (let i = 0; i < 3 * world.store.count; i++) p[i] = x[i] + ctx.h * v[i];
      sys.particles.beginStep(ctx);
      expect(sys.particles.count).toBeGreaterThan(500);
      const res = perProjection(world, sys.particles.count, (k) =>
        sys.particles.projectRange(ctx.store, k, k + 1),
      );
      expect(res.linear).toBeLessThan(1e-9);
      if (friction === 0) expect(res.angular).toBeLessThan(1e-9);
    }
  });
});

/** A square cloth resting on a plane tilted by `deg`; returns how far it moved in 2 s. */
function slide(deg: number, mu: number): number {
  const th = (deg * Math.PI) / 180;
  const world = new World({ substeps: 10 });
  const n: [number, number, number] = [-Math.sin(th), Math.cos(th), 0];
  world.addCollider(new PlaneCollider({ normal: n, friction: mu, margin: 0.002 }));
  const mesh = gridMesh({ width: 0.3, height: 0.3, cols: 10, rows: 10 });
  for (let i = 0; i < mesh.positions.length; i += 3) {
    const x = mesh.positions[i];
    mesh.positions[i] = x * Math.cos(th) + n[0] * 0.002;
    mesh.positions[i + 1] = x * Math.sin(th) + n[1] * 0.002;
  }
  new Cloth(world, { mesh, density: 0.2, bend: { compliance: 1 } });
  const x0 = world.store.x.slice(0, 3 * world.store.count);
  for (let k = 0; k < 120; k++) world.step();
  let d = 0;
  const x = world.store.x;
  for (let i = 0; i < world.store.count; i++)
    d = Math.max(
      d,
      Math.hypot(x[3 * i] - x0[3 * i], x[3 * i + 1] - x0[3 * i + 1], x[3 * i + 2] - x0[3 * i + 2]),
    );
  return d;
}

/** A cloth square resting on a pinned (static) cloth slope tilted by `deg`, friction from the contacts. */
function slideOnCloth(deg: number, mu: number): number {
  const th = (deg * Math.PI) / 180;
  const world = new World({ substeps: 10 });
  const tilt = (mesh: TriangleMesh, lift: number) => {
    for (let i = 0; i < mesh.positions.length; i += 3) {
      const x = mesh.positions[i];
      mesh.positions[i] = x * Math.cos(th) - Math.sin(th) * lift;
      mesh.positions[i + 1] = x * Math.sin(th) + Math.cos(th) * lift;
    }
    return mesh;
  };
  const slope = new Cloth(world, {
    mesh: tilt(gridMesh({ width: 1, height: 0.6, cols: 21, rows: 13 }), 0),
    density: 0.2,
  });
  for (let i = 0; i < slope.activeCount; i++) slope.pin(i);
  const h = 0.006;
  const sq = new Cloth(world, {
    mesh: tilt(gridMesh({ width: 0.25, height: 0.25, cols: 8, rows: 8 }), h),
    density: 0.2,
    bend: { compliance: 1 },
  });
  enableCollisions(world, { thickness: h, friction: mu }).add(slope).add(sq);
  const x0 = sq.positions().slice();
  for (let k = 0; k < 120; k++) world.step();
  const x = sq.positions();
  let d = 0;
  for (let i = 0; i < x.length; i += 3)
    d = Math.max(d, Math.hypot(x[i] - x0[i], x[i + 1] - x0[i + 1], x[i + 2] - x0[i + 2]));
  return d;
}

/** Bisection for the smallest angle at which the cloth slides more than 2 cm in 2 s. */
function frictionAngle(f: (deg: number) => number): number {
  let lo = 5,
    hi = 60;
  while (hi - lo > 0.25) {
    const mid = 0.5 * (lo + hi);
    if (f(mid) > 0.02) hi = mid;
    else lo = mid;
  }
  return 0.5 * (lo + hi);
}

describe('friction at position level (static and kinetic)', () => {
  for (const mu of [0.3, 0.7]) {
    it(`a cloth on a slope stays below the friction angle and slides above it: within 2° of atan(${mu})`, () => {
      const expected = (Math.atan(mu) * 180) / Math.PI;
      const found = frictionAngle((deg) => slide(deg, mu));
      expect(Math.abs(found - expected)).toBeLessThan(2);
      // and well below it, nothing creeps at all
      expect(slide(expected - 3, mu)).toBeLessThan(1e-6);
    });
  }

  it('cloth on cloth: the friction angle of the contact constraints is within 2° of atan(μ)', () => {
    const mu = 0.5;
    const found = frictionAngle((deg) => slideOnCloth(deg, mu));
    expect(Math.abs(found - (Math.atan(mu) * 180) / Math.PI)).toBeLessThan(2);
  });

  it('above the friction angle the cloth accelerates at g (sin θ − μ cos θ) (kinetic friction)', () => {
    const mu = 0.4,
      deg = 35,
      th = (deg * Math.PI) / 180;
    const d = slide(deg, mu);
    const expected = 0.5 * 9.81 * (Math.sin(th) - mu * Math.cos(th)) * 2 * 2;
    expect(Math.abs(d - expected) / expected).toBeLessThan(0.03);
  });
});

describe('restitution of particle contacts', () => {
  for (const e of [0, 0.5, 1]) {
    it(`two grains meeting head-on separate at e = ${e} times their approach speed`, () => {
      const world = new World({ gravity: [0, 0, 0], substeps: 10 });
      const a = new Granular(world, {
        box: { min: [-0.1, 0, 0], max: [-0.1, 0, 0] },
        spacing: 0.02,
        radius: 0.01,
      });
      const b = new Granular(world, {
        box: { min: [0.1, 0, 0], max: [0.1, 0, 0] },
        spacing: 0.02,
        radius: 0.01,
      });
      world.store.v[0] = 2;
      world.store.v[3] = -2;
      enableCollisions(world, { restitution: e, friction: 0 }).add(a).add(b);
      for (let k = 0; k < 12; k++) world.step();
      const vrel = world.store.v[3] - world.store.v[0];
      expect(Math.abs(vrel - 4 * e)).toBeLessThan(0.05 * 4);
      // momentum is kept through the collision
      expect(Math.abs(world.store.v[0] + world.store.v[3])).toBeLessThan(1e-9);
    });
  }
});

/** A cloth folded over itself, with a patch of the top layer pushed through the bottom layer. */
function tangledFold(): { world: World; cloth: Cloth } {
  const mesh = tangledFoldMesh(21, 41);
  const world = new World({ substeps: 10, gravity: [0, 0, 0], damping: 1 });
  const cloth = new Cloth(world, { mesh, density: 0.2, bend: { compliance: 1 } });
  return { world, cloth };
}

describe('untangling (003 §4.3, after [BWK03])', () => {
  it('a cloth started tangled is untangled within 10 steps and stays so', () => {
    const { world, cloth } = tangledFold();
    enableCollisions(world, { thickness: 0.005 }).add(cloth);
    const tris = globalTriangles([cloth]);
    expect(countEdgeTriangleIntersections(world.store.x, tris)).toBeGreaterThan(50);
    let clean = -1;
    for (let k = 1; k <= 60; k++) {
      world.step();
      const n = countEdgeTriangleIntersections(world.store.x, tris);
      if (n === 0 && clean < 0) clean = k;
      if (clean > 0) expect(n).toBe(0);
    }
    expect(clean).toBeGreaterThan(0);
    expect(clean).toBeLessThanOrEqual(10);
    expect(world.stats.recoveries).toBe(0);
  });

  it('without the untangling analysis the same cloth stays tangled (continuous tests are not enough)', () => {
    const { world, cloth } = tangledFold();
    enableCollisions(world, { thickness: 0.005, untangle: false }).add(cloth);
    for (let k = 0; k < 20; k++) world.step();
    expect(countEdgeTriangleIntersections(world.store.x, globalTriangles([cloth]))).toBeGreaterThan(50);
  });

  it('a corner of one cloth poked through another is pulled back, and ends on top', () => {
    const world = new World({ substeps: 10, damping: 1 });
    world.addCollider(new PlaneCollider({ position: [0, -0.3, 0] }));
    const a = gridMesh({ width: 0.6, height: 0.6, cols: 21, rows: 21 });
    const b = gridMesh({ width: 0.6, height: 0.6, cols: 21, rows: 21 });
    for (let i = 0; i < b.positions.length; i += 3) {
      b.positions[i] += 0.35;
      b.positions[i + 2] += 0.35;
      b.positions[i + 1] = 0.03;
      const r = Math.hypot(b.positions[i] - 0.05, b.positions[i + 2] - 0.05);
      if (r < 0.15) b.positions[i + 1] = 0.03 - 0.08 * (1 - r / 0.15);
    }
    const ca = new Cloth(world, { mesh: a, density: 0.2, bend: { compliance: 1 } });
    const cb = new Cloth(world, { mesh: b, density: 0.2, bend: { compliance: 1 } });
    enableCollisions(world, { thickness: 0.005 }).add(ca).add(cb);
    const tris = globalTriangles([ca, cb]);
    expect(countEdgeTriangleIntersections(world.store.x, tris)).toBeGreaterThan(10);
    for (let k = 0; k < 10; k++) world.step();
    expect(countEdgeTriangleIntersections(world.store.x, tris)).toBe(0);
    for (let k = 0; k < 110; k++) world.step();
    expect(countEdgeTriangleIntersections(world.store.x, tris)).toBe(0);
    // b lies on a where they overlap
    const x = world.store.x;
    let worst = Number.POSITIVE_INFINITY;
    for (let i = 0; i < cb.activeCount; i++) {
      const g = 3 * (cb.offset + i);
      for (let j = 0; j < ca.activeCount; j++) {
        const h = 3 * (ca.offset + j);
        if (Math.hypot(x[g] - x[h], x[g + 2] - x[h + 2]) < 0.01) worst = Math.min(worst, x[g + 1] - x[h + 1]);
      }
    }
    expect(worst).toBeGreaterThan(0.003);
  });
});

/** Two cloths dropped on each other and on the ground; returns the intersections at the end. */
function dropPair(
  configure: (sys: ReturnType<typeof enableCollisions>, a: Cloth, b: Cloth) => void,
  steps = 90,
): number {
  const world = new World({ substeps: 10, damping: 0.5 });
  world.addCollider(new PlaneCollider({ friction: 0.5 }));
  const lower = layer(0.6, 16, 0.1, 7);
  const upper = layer(0.6, 16, 0.25, 8, 0.7);
  const a = new Cloth(world, { mesh: lower, density: 0.2, bend: { compliance: 1 } });
  const b = new Cloth(world, { mesh: upper, density: 0.2, bend: { compliance: 1 } });
  const sys = enableCollisions(world, { thickness: 0.006 });
  configure(sys, a, b);
  for (let k = 0; k < steps; k++) world.step();
  return countEdgeTriangleIntersections(world.store.x, globalTriangles([a, b]));
}

describe('per-body and per-pair switches, groups and masks', () => {
  it('contact between two bodies keeps them apart; switched off for the pair, they pass through', () => {
    expect(dropPair((s, a, b) => s.add(a).add(b))).toBe(0);
    expect(dropPair((s, a, b) => s.add(a).add(b).setPair(a, b, false))).toBeGreaterThan(0);
  });

  it('collision groups and masks filter body–body contact', () => {
    expect(
      dropPair((s, a, b) => {
        for (let i = b.offset; i < b.offset + b.count; i++) b.world.store.group[i] = 2;
        for (let i = a.offset; i < a.offset + a.count; i++) a.world.store.mask[i] = 1; // a ignores group 2
        s.add(a).add(b);
      }),
    ).toBeGreaterThan(0);
  });

  it('collider contact can be switched off per body', () => {
    const world = new World({ substeps: 5 });
    world.addCollider(new PlaneCollider());
    const cloth = new Cloth(world, { mesh: layer(0.3, 6, 0.05, 1), density: 0.2 });
    const other = new Cloth(world, { mesh: layer(0.3, 6, 0.05, 2), density: 0.2 });
    enableCollisions(world).add(cloth, { colliders: false, between: false }).add(other, { between: false });
    for (let k = 0; k < 30; k++) world.step();
    const y = (c: Cloth) => Math.max(...Array.from(c.positions().filter((_, i) => i % 3 === 1)));
    expect(y(cloth)).toBeLessThan(-0.5);
    expect(y(other)).toBeGreaterThan(0);
  });
});

describe('a fast projectile', () => {
  it('a cloth ball thrown at 25 m/s into a hanging cloth creates no intersection at any step', () => {
    const world = new World({ substeps: 10, damping: 0.2 });
    const curtain = new Cloth(world, {
      mesh: gridMesh({ width: 0.8, height: 0.8, cols: 25, rows: 25, plane: 'xy' }),
      density: 0.2,
      bend: { compliance: 0.5 },
    });
    for (let c = 0; c < 25; c++) curtain.pin(c);
    const ballMesh = icosphere(0.05, 2);
    for (let i = 0; i < ballMesh.positions.length; i += 3) ballMesh.positions[i + 2] += 0.3;
    const ball = new Cloth(world, {
      mesh: ballMesh,
      density: 2,
      pressure: { pressure: 1, compliance: 0 },
      bend: { compliance: 0.01 },
    });
    for (let i = ball.offset; i < ball.offset + ball.activeCount; i++) world.store.v[3 * i + 2] = -25;
    const sys = enableCollisions(world, { thickness: 0.005 }).add(curtain).add(ball);
    const tris = globalTriangles([curtain, ball]);
    let maxX = 0,
      deepest = 0;
    for (let k = 0; k < 40; k++) {
      world.step();
      maxX = Math.max(maxX, countEdgeTriangleIntersections(world.store.x, tris));
      for (let i = 2; i < 3 * ball.activeCount; i += 3) deepest = Math.min(deepest, ball.positions()[i]);
    }
    expect(maxX).toBe(0);
    // it did hit and carried the cloth well behind where it hung (the curtain keeps its momentum)
    expect(deepest).toBeLessThan(-0.3);
    expect(sys.surfaces.stats.failsafeCrossings).toBeGreaterThan(0); // the impact needed the fail-safe
    expect(world.stats.recoveries).toBe(0);
  });
});
