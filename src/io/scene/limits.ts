/**
 * What a scene may allocate. Before a body or a collider is built, its
 * estimator (one per type, `bodyEstimates` / `colliderEstimates` in
 * scene.ts) declares the particles, mesh elements and grid cells it will
 * allocate on a `Budget`; the budget refuses, naming the JSON field, the
 * amount and the limit, as soon as one declaration or the running total
 * passes a limit. Estimates come from the JSON alone (counts, extents and
 * spacings), so an absurd scene is refused before anything is allocated;
 * what only a mesh file tells (its vertex count) is checked after the file is
 * read, by the particle store's count after each body.
 *
 * The defaults keep a scene within a few GiB: a particle costs about 200
 * bytes with its constraints, an element (triangle, tet, segment) about 150
 * bytes with the constraints built on it, a grid cell 8–16 bytes.
 */
import { PbdError } from '../../core/errors.js';
import { positionBounds } from '../../mesh/triangle-mesh.js';

export interface SceneLimits {
  /** Particles of all bodies together, reserves included (fluid capacity, tearing). Default 2,000,000. */
  maxParticles: number;
  /** Mesh elements of all bodies and colliders together: triangles, tets, strand segments. Default 8,000,000. */
  maxElements: number;
  /** Grid cells of all bodies and colliders together: distance fields, lattices. Default 2^25 (256³ × 2). */
  maxCells: number;
  /** Bodies in a scene; rigid bodies (`rigidBodies`) are counted against it on their own. Default 1,000. */
  maxBodies: number;
  /** Colliders in a scene. Default 1,000. */
  maxColliders: number;
  /**
   * Estimated work of one step (work.ts: about one particle's or
   * constraint's projection per unit, ~20 ns each on one core). Default
   * 100,000,000: about 2 s of CPU per step.
   */
  maxStepWork: number;
  /**
   * Cells of the mesh colliders' signed distance fields, all together: each
   * is computed at load time from the mesh's BVH (about 3.5 µs of CPU per
   * cell measured under load: 1,000 resolution-16 fields, 6.9 M cells, took
   * 24 s to load). Default 1,500,000 (about 5 s; a resolution-64 field is
   * 300,763 cells).
   */
  maxFieldCells: number;
}

export const defaultSceneLimits: Readonly<SceneLimits> = Object.freeze({
  maxParticles: 2_000_000,
  maxElements: 8_000_000,
  maxCells: 2 ** 25,
  maxBodies: 1000,
  maxColliders: 1000,
  maxStepWork: 100_000_000,
  maxFieldCells: 1_500_000,
});

export type Resource = 'particles' | 'elements' | 'cells';

const limitOf: Record<Resource, keyof SceneLimits> = {
  particles: 'maxParticles',
  elements: 'maxElements',
  cells: 'maxCells',
};

/** The command-line flag that raises a limit (cli/ maps each flag to its field). */
export function limitFlag(key: keyof SceneLimits): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/** Checks a partial `limits` option and fills in the defaults. */
export function resolveLimits(limits: Partial<SceneLimits> | undefined, where = 'limits'): SceneLimits {
  const out = { ...defaultSceneLimits };
  for (const [key, value] of Object.entries(limits ?? {})) {
    if (!(key in defaultSceneLimits)) {
      throw new PbdError(
        'scene/limits',
        `${where}.${key}`,
        'is not a limit',
        `use ${Object.keys(defaultSceneLimits).join(', ')}`,
      );
    }
    if (value === undefined) continue;
    if (!(typeof value === 'number' && Number.isInteger(value) && value >= 1)) {
      throw new PbdError(
        'scene/limits',
        `${where}.${key}`,
        `must be a positive integer, got ${String(value)}`,
        `the default is ${defaultSceneLimits[key as keyof SceneLimits]}`,
      );
    }
    out[key as keyof SceneLimits] = value;
  }
  return out;
}

const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : String(n));

/** The running account of what a scene will allocate. */
export class Budget {
  readonly limits: SceneLimits;
  readonly used: Record<Resource, number> = { particles: 0, elements: 0, cells: 0 };
  /** The scene's estimated work per step (work.ts), once checked. */
  work = 0;
  /** Elements declared so far that are not simulated (render and input meshes): no work per step. */
  inert = 0;
  /** The field of the largest particle or element declaration since `mark()` (what drives a body's work). */
  largest = { field: '', amount: -1 };

  /** Starts a body's account: `largest` forgets what came before. */
  mark(field: string): void {
    this.largest = { field, amount: -1 };
  }

  constructor(limits: Partial<SceneLimits> = {}) {
    this.limits = resolveLimits(limits);
  }

  /**
   * Declares that `field` (a JSON path) will allocate `amount` of a resource
   * (`what` says how it was counted, e.g. "4096 × 4096 grid vertices").
   * Throws a PbdError at `field` when the amount (NaN and ∞ included) or the
   * scene's running total passes the limit.
   */
  reserve(resource: Resource, amount: number, field: string, what: string): void {
    const key = limitOf[resource];
    const limit = this.limits[key];
    const hint = `make it smaller or coarser, or raise limits.${key} (pbdkit ${limitFlag(key)}) if the machine has the memory`;
    if (!(amount <= limit)) {
      throw new PbdError(
        'scene/too-large',
        field,
        `${what}: ${fmt(amount)} ${resource}, more than the limit of ${fmt(limit)}`,
        hint,
      );
    }
    const total = this.used[resource] + amount;
    if (total > limit) {
      throw new PbdError(
        'scene/too-large',
        field,
        `${what} (${fmt(amount)} ${resource}) brings the scene to ${fmt(total)} ${resource}, more than the limit of ${fmt(limit)}`,
        hint,
      );
    }
    this.used[resource] = total;
    if (resource !== 'cells' && amount > this.largest.amount) this.largest = { field, amount };
  }

  /** Distance-field cells declared so far (`maxFieldCells`). */
  fieldCells = 0;

  /**
   * Declares the cells of a distance field that `field` will compute at load
   * time: refused (scene/too-slow) when the scene's fields together pass
   * `maxFieldCells`. Their memory counts against `maxCells` too.
   */
  reserveField(amount: number, field: string, what: string): void {
    this.reserve('cells', amount, field, what);
    const total = this.fieldCells + amount;
    const limit = this.limits.maxFieldCells;
    if (!(total <= limit)) {
      const seconds = (total * 3.5e-6).toPrecision(2);
      // many fields together: the colliders' count drives it, not this one's resolution
      throw new PbdError(
        'scene/too-slow',
        2 * amount < total ? 'colliders' : field,
        `${what}: ${fmt(amount)} cells to compute at load time${total > amount ? `, ${fmt(total)} with the scene's other distance fields` : ''} (about ${seconds} s of CPU), more than the limit of ${fmt(limit)}`,
        `use a lower resolution or fewer mesh colliders, or raise limits.maxFieldCells (pbdkit ${limitFlag('maxFieldCells')} ${Math.ceil((total * 11) / 10)}) if loading may take that long`,
      );
    }
    this.fieldCells = total;
  }

  /** Checks a count (bodies, colliders) against its limit. */
  count(key: 'maxBodies' | 'maxColliders', n: number, field: string): void {
    if (n > this.limits[key]) {
      throw new PbdError(
        'scene/too-large',
        field,
        `${fmt(n)} ${key === 'maxBodies' ? 'bodies' : 'colliders'}, more than the limit of ${fmt(this.limits[key])}`,
        `split the scene, or raise limits.${key} (pbdkit ${limitFlag(key)}) if it really needs them`,
      );
    }
  }

  /**
   * After a body is built: the particles it really allocated (a mesh file's
   * vertices are known only once it is read) keep the store within the limit.
   */
  settleParticles(storeCount: number, field: string): void {
    this.used.particles = Math.max(this.used.particles, storeCount);
    const limit = this.limits.maxParticles;
    if (storeCount > limit) {
      throw new PbdError(
        'scene/too-large',
        field,
        `brings the scene to ${fmt(storeCount)} particles, more than the limit of ${fmt(limit)}`,
        `use a coarser mesh, or raise limits.maxParticles (pbdkit ${limitFlag('maxParticles')}) if the machine has the memory`,
      );
    }
  }

  /** Lattice points of spacing d in a mesh's bounding box (what a lattice shape or a rigid cluster allocates). */
  reserveLattice(positions: ArrayLike<number>, d: number, field: string): void {
    const { lo, hi } = positionBounds(positions);
    if (!(hi[0] >= lo[0])) return;
    let n = 1;
    for (let k = 0; k < 3; k++) n *= Math.max(1, Math.floor((hi[k] - lo[k]) / d) + 1);
    const what = `a lattice of spacing ${d} m over the mesh's bounding box`;
    this.reserve('cells', n, field, what);
    this.reserve('particles', n, field, what);
  }
}
