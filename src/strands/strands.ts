/**
 * Strands: a body of many polylines (hair, fur, ropes), each a chain of
 * particles from its root (survey 000 §3.5 and §6).
 *
 * The body is one contiguous particle range; strand s holds the particles
 * [strandStart[s], strandStart[s + 1]) (body-local), root first, and
 * `restLength[j]` is the rest distance from particle j to its predecessor
 * (0 for a root). Method families add their constraint sets on top of this
 * layout:
 *
 * - inextensibility by Follow-The-Leader with DFTL's velocity correction
 *   (`ftl`, the default; src/strands/follow-the-leader.ts) or by distance
 *   constraints on the segments (`stretch`, PBD / XPBD);
 * - bending by distance constraints between particles two apart (`bend`);
 * - hair by region shape matching (`shapeMatching`, 000 §6 after
 *   Rungjiratananon et al.): overlapping chain regions matched to the rest
 *   shape, followed by strain limiting toward the root (FTL with
 *   `maxStretch`);
 * - contacts with colliders through the world's collider contacts (give the
 *   particles a `radius`), with the colliders' friction.
 *
 * Roots are pinned by default, to where they are or to a scripted motion
 * (the head's). The body draws its segments as lines (`renderLines()`).
 */
import { DistanceConstraints } from '../constraints/distance.js';
import { Body, complianceTunable, stiffnessTunable, type Tunable } from '../core/body.js';
import { PbdError, requirePositive } from '../core/errors.js';
import type { Motion } from '../core/motion.js';
import type { ConstraintParams } from '../core/solver.js';
import type { World } from '../core/world.js';
import { PathSummation } from '../shape-matching/mesh-paths.js';
import { RegionShapeMatching } from '../shape-matching/region-shape-matching.js';
import { FollowTheLeader, type FollowTheLeaderOptions } from './follow-the-leader.js';
import { fusedStrandSystem } from './fused-pass.js';
import { buildCosseratRods, type RodOptions, type RodStiffness } from './rod.js';
import type { BendTwistConstraints } from './rod-bend-twist.js';
import type { DirectRodSolver } from './rod-direct.js';
import type { StretchShearConstraints } from './rod-stretch-shear.js';

/** Hair by region shape matching (000 §6): chain regions of 2·regionWidth + 1 particles around each particle. */
export interface StrandShapeMatchingOptions {
  /** Half-width w of the regions (particles on each side). Default 2. */
  regionWidth?: number;
  /** PBD stiffness α ∈ [0, 1] of the pull to the goals. Default 1. */
  stiffness?: number;
  /** XPBD compliance (s²) of the pull to the goals; 0 is rigid. Default 0. */
  compliance?: number;
}

export interface StrandsOptions {
  name?: string;
  /** Positions of every strand's particles, root first, strand after strand (xyz); also the rest shape. */
  positions: ArrayLike<number>;
  /** Index of the first particle of each strand in `positions`, then the particle count (S + 1 increasing entries). */
  strandStart: ArrayLike<number>;
  /** Mass per unit length (kg/m): each particle carries half of each segment it ends. Default 0.01. */
  linearDensity?: number;
  /** Contact radius of every particle (m); > 0 makes strands collide with colliders. Default 0. */
  radius?: number;
  /** Pin the roots (default true): to where they are, or to `rootMotion` (e.g. the head's motion). */
  pinRoots?: boolean;
  rootMotion?: Motion;
  /** Follow-The-Leader inextensibility (default { damping: 0.9 }); false leaves the lengths to `stretch`. */
  ftl?: FollowTheLeaderOptions | false;
  /** Distance constraints on the segments (PBD / XPBD), e.g. instead of FTL. */
  stretch?: ConstraintParams;
  /** Bending: distance constraints between particles two apart. */
  bend?: ConstraintParams;
  /** Hair by region shape matching (000 §6). */
  shapeMatching?: StrandShapeMatchingOptions;
  /**
   * Cosserat rods (Kugelstadt & Schömer 2016): per-segment orientations,
   * stretch–shear and bend–twist from the material. FTL is then off unless
   * asked for.
   */
  rod?: RodOptions;
  /** Initial velocity (m/s). */
  velocity?: [number, number, number];
  group?: number;
  mask?: number;
}

export class Strands extends Body {
  readonly type = 'strands';
  /** Body-local index of each strand's root, then the particle count (S + 1 entries). */
  readonly strandStart: Int32Array;
  /** Rest distance of each particle to its predecessor (0 for roots). */
  readonly restLength: Float64Array;
  /** Rest positions (body-local, xyz). */
  readonly restPositions: Float64Array;
  readonly ftl: FollowTheLeader | null;
  readonly stretch: DistanceConstraints | null;
  readonly bend: DistanceConstraints | null;
  readonly shapeMatching: RegionShapeMatching | null;
  /** Cosserat rod constraints (with `rod`). */
  readonly stretchShear: StretchShearConstraints | null;
  readonly bendTwist: BendTwistConstraints | null;
  /** With `rod.solver: 'direct'`: the direct solver that projects the two rod sets. */
  readonly rodDirect: DirectRodSolver | null;
  /** The rods' material stiffnesses and cross-section radius (with `rod`). */
  readonly rod: { stiffness: RodStiffness; radius: number; options: RodOptions } | null;
  private readonly lines: Uint32Array;

  constructor(world: World, o: StrandsOptions) {
    const where = o.name ? `strands '${o.name}'` : 'strands';
    const n = Math.floor(o.positions.length / 3);
    const start = checkStrands(o.positions, o.strandStart, where);
    super(world, o.name ?? '', n);
    this.strandStart = start;
    const ns = start.length - 1;
    const store = world.store;
    const off = this.offset;
    this.restPositions = Float64Array.from(o.positions);
    store.x.set(this.restPositions, 3 * off);
    store.p.set(this.restPositions, 3 * off);
    this.restLength = new Float64Array(n);
    const X = this.restPositions;
    for (let s = 0; s < ns; s++) {
      for (let j = start[s] + 1; j < start[s + 1]; j++) {
        const l = Math.hypot(
          X[3 * j] - X[3 * j - 3],
          X[3 * j + 1] - X[3 * j - 2],
          X[3 * j + 2] - X[3 * j - 1],
        );
        if (!(l > 0)) {
          throw new PbdError(
            'strands/zero-segment',
            `${where}: strand ${s}, particles ${j - 1 - start[s]} and ${j - start[s]}`,
            'lie on top of each other',
            'give every segment a positive length',
          );
        }
        this.restLength[j] = l;
      }
    }
    const radius = o.radius ?? 0;
    if (!(radius >= 0) || !Number.isFinite(radius)) {
      throw new PbdError('strands/radius', `${where}.radius`, `must be ≥ 0 m, got ${o.radius}`);
    }
    const rodRadius = o.rod ? (o.rod.radius ?? radius) : 0;
    if (o.rod?.density !== undefined) {
      if (o.linearDensity !== undefined) {
        throw new PbdError(
          'strands/density',
          `${where}.rod.density`,
          'is given together with linearDensity',
          'give the mass either per volume (rod.density) or per length (linearDensity)',
        );
      }
      requirePositive(o.rod.density, 'kg/m³', 'strands/density', `${where}.rod.density`);
    }
    const rho =
      o.rod?.density !== undefined
        ? o.rod.density * Math.PI * rodRadius * rodRadius
        : (o.linearDensity ?? 0.01);
    if (!(rho > 0) || !Number.isFinite(rho)) {
      throw new PbdError(
        'strands/density',
        `${where}.linearDensity`,
        `must be > 0 kg/m, got ${o.linearDensity}`,
        'a strand needs mass; 0.01 kg/m is a thin rope, hair guides are lighter',
      );
    }
    for (let j = 0; j < n; j++) {
      const next = j + 1 < n && !isRoot(start, j + 1) ? this.restLength[j + 1] : 0;
      store.setMass(off + j, 0.5 * rho * (this.restLength[j] + next));
      store.radius[off + j] = radius;
      if (o.group !== undefined) store.group[off + j] = o.group;
      if (o.mask !== undefined) store.mask[off + j] = o.mask;
      if (o.velocity) store.v.set(o.velocity, 3 * (off + j));
    }
    this.lines = new Uint32Array(2 * (n - ns));
    let k = 0;
    for (let s = 0; s < ns; s++) {
      for (let j = start[s] + 1; j < start[s + 1]; j++) {
        this.lines[k++] = j - 1;
        this.lines[k++] = j;
      }
    }

    // rest shape: shape matching over overlapping chain regions, summed along each strand
    if (o.shapeMatching) {
      const sm = o.shapeMatching;
      const w = sm.regionWidth ?? 2;
      if (!(Number.isInteger(w) && w >= 1)) {
        throw new PbdError(
          'strands/region-width',
          `${where}.shapeMatching.regionWidth`,
          `must be an integer ≥ 1, got ${sm.regionWidth}`,
          'the particles on each side of a region centre; 2 gives regions of 5 particles',
        );
      }
      const masses = new Float64Array(n);
      for (let j = 0; j < n; j++) masses[j] = store.mass[off + j];
      this.shapeMatching = this.addSet(
        new RegionShapeMatching(
          store,
          off,
          this.restPositions,
          chainRegions(start, w),
          { stiffness: sm.stiffness, compliance: sm.compliance },
          masses,
          `${where}.shapeMatching`,
        ),
      );
    } else {
      this.shapeMatching = null;
    }
    const segments: number[] = [];
    const bends: number[] = [];
    for (let s = 0; s < ns; s++) {
      for (let j = start[s] + 1; j < start[s + 1]; j++) {
        segments.push(off + j - 1, off + j);
        if (j + 1 < start[s + 1]) bends.push(off + j - 1, off + j + 1);
      }
    }
    this.stretch = o.stretch
      ? this.addSet(
          new DistanceConstraints(store, segments, undefined, o.stretch, { kind: 'strand-stretch' }),
        )
      : null;
    this.bend =
      o.bend && bends.length > 0
        ? this.addSet(new DistanceConstraints(store, bends, undefined, o.bend, { kind: 'strand-bend' }))
        : null;
    if (o.rod) {
      const rod = buildCosseratRods(
        store,
        off,
        start,
        this.restPositions,
        this.restLength,
        rho,
        o.rod,
        rodRadius,
        `${where}.rod`,
        (o.pinRoots ?? true) && (o.rod.clampRoots ?? true) ? { motion: o.rootMotion ?? null } : null,
      );
      this.stretchShear = this.addSet(rod.stretchShear);
      this.bendTwist = rod.bendTwist ? this.addSet(rod.bendTwist) : null;
      this.rodDirect = rod.direct ? this.addSet(rod.direct) : null;
      this.rod = { stiffness: rod.stiffness, radius: rod.radius, options: o.rod };
    } else {
      this.stretchShear = null;
      this.bendTwist = null;
      this.rodDirect = null;
      this.rod = null;
    }
    if (o.ftl === false || (o.rod && o.ftl === undefined)) this.ftl = null;
    else {
      const globalStart = new Int32Array(ns + 1);
      for (let s = 0; s <= ns; s++) globalStart[s] = start[s] + off;
      this.ftl = this.addSet(new FollowTheLeader(globalStart, this.restLength, o.ftl ?? {}, `${where}.ftl`));
      // a hair-only world runs its substeps fused, strand block by strand block (fused-pass.ts)
      world.system(fusedStrandSystem);
    }
    if (o.pinRoots ?? true) {
      for (let s = 0; s < ns; s++) {
        world.attachments.attach(off + start[s], o.rootMotion ? { motion: o.rootMotion } : {});
      }
    }
  }

  /** Number of strands. */
  get strands(): number {
    return this.strandStart.length - 1;
  }

  override renderLines(): Uint32Array {
    return this.lines;
  }

  /** Pins a particle (body-local) where it is, or to a scripted motion of it. */
  pin(particle: number, motion?: Motion): void {
    this.check(particle);
    this.world.attachments.attach(this.offset + particle, motion ? { motion } : {});
  }

  unpin(particle: number): void {
    this.check(particle);
    this.world.attachments.detach(this.offset + particle);
  }

  /**
   * Clamps a rod's segment (body-local index of its first particle): both
   * its particles pinned and its orientation held, where they are or
   * carried by a scripted motion (a gripper).
   */
  clamp(particle: number, motion?: Motion): void {
    this.check(particle);
    this.check(particle + 1);
    if (!this.rod || this.isStrandEnd(particle)) {
      throw new PbdError(
        'strands/clamp',
        `strands '${this.name}': clamp(${particle})`,
        this.rod
          ? 'names the last particle of a strand, which starts no segment'
          : 'the strands are not rods',
        this.rod
          ? 'clamp the segment by its first particle'
          : 'give the strands a rod material, or pin particles',
      );
    }
    const a = this.world.attachments;
    const opts = motion ? { motion } : {};
    a.attach(this.offset + particle, opts);
    a.attach(this.offset + particle + 1, opts);
    a.clampOrientation(this.offset + particle, opts);
  }

  /** Releases what `clamp` or `pin` held of a segment's particles and orientation. */
  release(particle: number): void {
    this.check(particle);
    const a = this.world.attachments;
    a.detach(this.offset + particle);
    if (particle + 1 < this.count) a.detach(this.offset + particle + 1);
    a.releaseOrientation(this.offset + particle);
  }

  private isStrandEnd(particle: number): boolean {
    return isRoot(this.strandStart, particle + 1) || particle + 1 >= this.count;
  }

  private check(particle: number): void {
    if (!(Number.isInteger(particle) && particle >= 0 && particle < this.count)) {
      throw new PbdError(
        'strands/bad-particle',
        `strands '${this.name}'`,
        `has no particle ${particle} (it has ${this.count})`,
      );
    }
  }

  /** Largest relative deviation of a segment's length from its rest length, at x. */
  maxStretch(): number {
    const x = this.world.store.x,
      off = this.offset,
      start = this.strandStart;
    let m = 0;
    for (let s = 0; s + 1 < start.length; s++) {
      for (let j = start[s] + 1; j < start[s + 1]; j++) {
        const a = 3 * (off + j - 1),
          b = 3 * (off + j);
        const l = Math.hypot(x[a] - x[b], x[a + 1] - x[b + 1], x[a + 2] - x[b + 2]);
        m = Math.max(m, Math.abs(l / this.restLength[j] - 1));
      }
    }
    return m;
  }

  override tunables(): Tunable[] {
    const t: Tunable[] = [];
    const ftl = this.ftl;
    if (ftl) {
      t.push({
        name: 'ftl.damping',
        min: 0,
        max: 1,
        get: () => ftl.damping,
        set: (v) => (ftl.damping = Math.min(1, Math.max(0, v))),
      });
    }
    if (this.bend) t.push(complianceTunable('bend.compliance', this.bend.rule, 0, 1));
    if (this.shapeMatching) t.push(stiffnessTunable('shapeMatching.stiffness', this.shapeMatching.rule));
    return t;
  }
}

function isRoot(start: Int32Array, j: number): boolean {
  // start is increasing: binary search
  let lo = 0,
    hi = start.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (start[mid] < j) lo = mid + 1;
    else hi = mid;
  }
  return start[lo] === j;
}

/** Validates strand starts against the positions; returns them as an Int32Array. */
function checkStrands(
  positions: ArrayLike<number>,
  strandStart: ArrayLike<number>,
  where: string,
): Int32Array {
  const n = Math.floor(positions.length / 3);
  if (positions.length !== 3 * n || n < 2) {
    throw new PbdError(
      'strands/positions',
      `${where}.positions`,
      `holds ${positions.length} numbers`,
      'give three coordinates per particle and at least one strand of two particles',
    );
  }
  for (let k = 0; k < positions.length; k++) {
    if (!Number.isFinite(positions[k])) {
      throw new PbdError(
        'strands/positions',
        `${where}.positions: particle ${Math.floor(k / 3)}`,
        `has a non-finite coordinate ${positions[k]}`,
      );
    }
  }
  const start = Int32Array.from(strandStart);
  if (start.length < 2 || start[0] !== 0 || start[start.length - 1] !== n) {
    throw new PbdError(
      'strands/starts',
      `${where}.strandStart`,
      `must run from 0 to the particle count ${n}, got [${Array.from(start.subarray(0, 4)).join(', ')}${start.length > 4 ? ', …' : ''}]`,
      'one entry per strand (its first particle) and a last entry equal to the number of particles',
    );
  }
  for (let s = 0; s + 1 < start.length; s++) {
    if (!(start[s + 1] - start[s] >= 2)) {
      throw new PbdError(
        'strands/short-strand',
        `${where}.strandStart[${s}]`,
        `strand ${s} has ${start[s + 1] - start[s]} particles`,
        'every strand needs a root and at least one more particle',
      );
    }
  }
  return start;
}

/**
 * Overlapping chain regions (000 §6): region j holds the particles within
 * `w` of particle j along its strand, summed by prefix sums along each strand
 * (the strands are the paths of PathSummation).
 */
export function chainRegions(start: Int32Array, w: number): PathSummation {
  const n = start[start.length - 1];
  const regions: Int32Array[] = [];
  for (let s = 0; s + 1 < start.length; s++) {
    const a = start[s],
      b = start[s + 1];
    for (let j = a; j < b; j++) {
      const lo = Math.max(a, j - w),
        hi = Math.min(b - 1, j + w);
      const r = new Int32Array(hi - lo + 1);
      for (let k = 0; k < r.length; k++) r[k] = lo + k;
      regions.push(r);
    }
  }
  const order = new Int32Array(n);
  for (let j = 0; j < n; j++) order[j] = j;
  return new PathSummation(n, regions, order, start);
}
