/**
 * Shape-matched bodies: particles with a rest shape and regions, pulled to
 * their goal positions by a RegionShapeMatching set (survey 000 §4).
 *
 * - `ShapeMatchingBody` takes particles and any RegionSummation;
 * - `rigidCluster` is one region over all particles with α = 1: a rigid
 *   body as a shape-matched particle cluster;
 * - `latticeBody` voxelises a closed mesh into a regular lattice with
 *   FastLSM regions (Rivers & James) and carries the mesh along by linear
 *   blend skinning on its nearest particles, turned by their regions'
 *   transforms (its render mesh: `renderPositions()`, `renderTriangles()`);
 * - `adaptiveLatticeBody` samples the mesh with an octree and sums regions
 *   by summation nodes (Steinemann et al.);
 * - `surfaceBody` uses the vertices of a closed mesh only, with ω-ring
 *   regions summed along disjoint paths and optional volume conservation
 *   (Diziol et al.).
 */

import { ParticleContacts } from '../collision/particle-contacts.js';
import { DistanceConstraints } from '../constraints/distance.js';
import { Body, type Tunable } from '../core/body.js';
import { RigidModeDamping } from '../core/damping.js';
import { PbdError, requireParticle } from '../core/errors.js';
import type { World } from '../core/world.js';
import {
  buildEdgeTopology,
  enclosedVolume,
  positionBounds,
  requireEnclosing,
  type TriangleMesh,
  triangleArea,
} from '../mesh/triangle-mesh.js';
import { crossingX, Lattice, LatticeSummation } from './lattice.js';
import { type Adjacency, buildPaths, meshAdjacency, PathSummation, ringRegions } from './mesh-paths.js';
import { AdaptiveLattice, OctreeSummation } from './octree.js';
import { RegionShapeMatching, ruleTunables, type ShapeMatchingParams } from './region-shape-matching.js';
import { Skin } from './skinning.js';
import { NaiveSummation, type RegionSummation } from './summation.js';
import { SurfaceVolumeConservation, type VolumeOptions } from './volume.js';

export interface ShapeMatchingBodyOptions extends ShapeMatchingParams {
  name?: string;
  /** Rest positions, which are also the initial positions (xyz). */
  positions: Float64Array;
  /** Particle masses, or one mass for all. */
  masses: ArrayLike<number> | number;
  /** The regions and how their sums are formed. */
  regions: RegionSummation;
  /**
   * Contact radius of every particle (m), or one per particle; > 0 lets the
   * body collide with colliders and other shape-matched bodies. A particle
   * of radius 0 does not collide at all. Default 0.
   */
  radius?: number | ArrayLike<number>;
  /** Initial velocity (m/s). */
  velocity?: [number, number, number];
  /** Render triangles over the particles (surface bodies). */
  triangles?: Uint32Array;
  /**
   * A render mesh carried along by the particles (lattice bodies, rigid
   * clusters): the body then renders it (`hasRenderMesh`). Allocate its
   * positions with `world.store.float64` so a worker's page can read them.
   */
  skin?: Skin;
  /**
   * Region r belongs to particle r (lattices, octrees, mesh rings): the skin
   * then turns with the regions' transforms T_r as bone rotations. A body
   * matched as one region turns its skin with that region's transform.
   */
  skinWithRegions?: boolean;
  /** Damping of deviations from the rigid motion (003 §3.5), k ∈ [0, 1]. Default 0. */
  globalDamping?: number;
  group?: number;
  mask?: number;
}

export class ShapeMatchingBody extends Body {
  readonly type = 'shape-matching';
  readonly matching: RegionShapeMatching;
  readonly restPositions: Float64Array;
  readonly skin: Skin | null;
  /** How the skin's bones turn: 9 (bone j by region j's T_j), 0 (all by region 0's T_0), or −1 (they only translate). */
  private readonly skinRotationStride: number;
  readonly damping: RigidModeDamping | null;
  volume: SurfaceVolumeConservation | null = null;
  edges: DistanceConstraints | null = null;
  private readonly triangles: Uint32Array;

  constructor(world: World, o: ShapeMatchingBodyOptions) {
    const where = o.name ? `shape-matching body '${o.name}'` : 'shape-matching body';
    const n = o.positions.length / 3;
    if (!(n >= 1) || !Number.isInteger(n)) {
      throw new PbdError('shape-matching/empty', where, 'has no particles', 'give it at least one position');
    }
    for (let k = 0; k < o.positions.length; k++) {
      if (!Number.isFinite(o.positions[k])) {
        throw new PbdError(
          'shape-matching/position',
          `${where}: particle ${Math.floor(k / 3)}`,
          `has a non-finite coordinate ${o.positions[k]}`,
        );
      }
    }
    super(world, o.name ?? '', n);
    const store = world.store;
    const off = this.offset;
    this.restPositions = Float64Array.from(o.positions);
    this.place(o.positions);
    const masses = new Float64Array(n);
    for (let j = 0; j < n; j++) {
      masses[j] = typeof o.masses === 'number' ? o.masses : o.masses[j];
      store.setMass(off + j, masses[j]);
      const r = o.radius === undefined ? 0 : typeof o.radius === 'number' ? o.radius : o.radius[j];
      store.radius[off + j] = r;
      // a particle given no contact radius stays out of contacts
      if (o.radius !== undefined && !(r > 0)) store.mask[off + j] = 0;
      if (o.group !== undefined) store.group[off + j] = o.group;
      if (o.mask !== undefined) store.mask[off + j] = o.mask;
      if (o.velocity) store.v.set(o.velocity, 3 * (off + j));
    }
    this.matching = this.addSet(
      new RegionShapeMatching(store, off, this.restPositions, o.regions, o, masses, where),
    );
    this.triangles = o.triangles ?? new Uint32Array(0);
    this.skin = o.skin ?? null;
    this.skinRotationStride =
      o.skinWithRegions && o.regions.regions === n ? 9 : o.regions.regions === 1 ? 0 : -1;
    this.damping = o.globalDamping ? this.addSet(new RigidModeDamping(off, n, o.globalDamping)) : null;
    // particles of different bodies collide as spheres; a body keeps its own shape (no self contacts)
    if (o.radius !== undefined)
      ParticleContacts.of(world).addBody(this, { self: false, friction: 0.3, staticFriction: 0.4 });
  }

  override restShape(): Float64Array {
    return this.restPositions;
  }

  /** The skin's triangles when the body carries a render mesh, else the surface triangles over the particles (surface bodies). */
  override renderTriangles(): Uint32Array {
    return this.skin ? this.skin.triangles : this.triangles;
  }

  /** The surface triangles over the particles (surface bodies); none for lattices and clusters. */
  override contactTriangles(): Uint32Array {
    return this.triangles;
  }

  /**
   * The skinned render mesh brought up to date (linear blend skinning with
   * the regions' transforms, 000 §4.4), or the particle positions.
   */
  override renderPositions(): Float64Array {
    const skin = this.skin;
    if (!skin) return this.positions();
    const stride = this.skinRotationStride;
    skin.update(this.world.store.x, this.offset, stride >= 0 ? this.matching.transform : null, stride);
    return skin.positions;
  }

  override get hasRenderMesh(): boolean {
    return this.skin !== null;
  }

  /** Distance constraints on the edges of the body's triangles (body-local indices). */
  addEdgeConstraints(
    triangles: Uint32Array,
    params: { stiffness?: number; compliance?: number },
  ): DistanceConstraints {
    const topo = buildEdgeTopology(triangles);
    const e = new Uint32Array(topo.edges.length);
    for (let k = 0; k < e.length; k++) e[k] = topo.edges[k] + this.offset;
    this.edges = this.addSet(
      new DistanceConstraints(this.world.store, e, undefined, params, { kind: 'edge-distance' }),
    );
    return this.edges;
  }

  /** Volume conservation of the closed surface `triangles` (body-local indices; 000 §4.5.1), run after shape matching. */
  addVolumeConservation(triangles: Uint32Array, adj: Adjacency, o: VolumeOptions): SurfaceVolumeConservation {
    this.volume = this.addSet(
      new SurfaceVolumeConservation(
        this.world,
        this.offset,
        triangles,
        adj,
        this.matching,
        o,
        `body '${this.name}'`,
      ),
    );
    return this.volume;
  }

  /** Pins a particle (body-local index) where it is. */
  pin(particle: number): void {
    requireParticle(particle, this.count, 'shape-matching/bad-particle', `body '${this.name}'`);
    this.world.attachments.attach(this.offset + particle);
  }

  /** Current volume of a surface body's mesh (m³), or 0 without a closed surface. */
  currentVolume(): number {
    if (this.triangles.length === 0) return 0;
    return enclosedVolume(this.positions(), this.triangles);
  }

  override tunables(): Tunable[] {
    const t = ruleTunables(this.matching.rule, 1);
    const vol = this.volume;
    if (vol)
      t.push({ name: 'volume.alpha', min: 0, max: 1, get: () => vol.alpha, set: (v) => (vol.alpha = v) });
    return t;
  }
}

/** Common options of the mesh-based builders. */
export interface MeshShapeOptions extends ShapeMatchingParams {
  name?: string;
  /** Density ρ (kg/m³) of the solid. Default 1000. */
  density?: number;
  radius?: number;
  velocity?: [number, number, number];
  globalDamping?: number;
  group?: number;
  mask?: number;
}

/** A rigid body as a shape-matched particle cluster: one region over all particles, α = 1 (000 §4.1). */
export function rigidCluster(
  world: World,
  o: { positions: Float64Array; masses: ArrayLike<number> | number } & Omit<
    ShapeMatchingBodyOptions,
    'regions' | 'positions' | 'masses'
  >,
): ShapeMatchingBody {
  const n = o.positions.length / 3;
  const all = Int32Array.from({ length: n }, (_, i) => i);
  return new ShapeMatchingBody(world, {
    stiffness: 1,
    compliance: 0,
    ...o,
    regions: NaiveSummation.fromLists(n, [all]),
  });
}

export interface LatticeBodyOptions extends MeshShapeOptions {
  /** Closed mesh of the solid, placed in world space. */
  mesh: TriangleMesh;
  /** Lattice spacing h (m). */
  spacing: number;
  /** Region half-width w in lattice steps (region = (2w + 1)³ cube). Default 1. */
  regionHalfWidth?: number;
  /** 'fast' (FastLSM, default) or 'naive' region sums. */
  summation?: 'fast' | 'naive';
}

/** Lattice shape matching (Rivers & James 2007; 000 §4.2, §4.3.1) of a closed mesh. */
export function latticeBody(world: World, o: LatticeBodyOptions): ShapeMatchingBody {
  const where = o.name ? `lattice body '${o.name}'` : 'lattice body';
  checkClosed(o.mesh, where);
  const lattice = Lattice.fromMesh(o.mesh, o.spacing, where);
  const rest = lattice.positions();
  const fast = new LatticeSummation(lattice, o.regionHalfWidth ?? 1);
  const regions = o.summation === 'naive' ? NaiveSummation.of(fast) : fast;
  // the render mesh follows its nearest lattice particles, turned by their regions' transforms
  const skin = Skin.nearest(
    o.mesh.positions,
    o.mesh.triangles,
    rest,
    4,
    world.store.float64(o.mesh.positions.length),
  );
  const density = o.density ?? 1000;
  return new ShapeMatchingBody(world, {
    ...o,
    positions: rest,
    masses: density * o.spacing ** 3,
    regions,
    radius: o.radius ?? surfaceRadii(o.mesh, rest, 1.5 * o.spacing),
    skin,
    skinWithRegions: true,
  });
}

export interface AdaptiveLatticeBodyOptions extends MeshShapeOptions {
  mesh: TriangleMesh;
  /** Finest cell size (m); the octree refines down to it near the surface. */
  minCell: number;
  /** Coarsest cell size (m) inside. */
  maxCell: number;
  /**
   * Region width as a multiple of each particle's cell size. Default 1.5. A region is the 3³ block of the
   * largest octree cells not wider than its width (see octree.ts), so the width acts in octaves.
   */
  regionScale?: number;
  summation?: 'fast' | 'naive';
}

/**
 * Adaptive lattice shape matching (Steinemann et al. 2008; 000 §4.3.2): an
 * octree fine near the surface and coarse inside, a particle per inside leaf
 * (mass ρ s³), region width ω_i = regionScale × its cell size.
 */
export function adaptiveLatticeBody(world: World, o: AdaptiveLatticeBodyOptions): ShapeMatchingBody {
  const where = o.name ? `adaptive lattice body '${o.name}'` : 'adaptive lattice body';
  checkClosed(o.mesh, where);
  const tree = octreeOfMesh(o.mesh, o.minCell, o.maxCell, where);
  const rest = tree.positions();
  const sizes = tree.cellSizes();
  const scale = o.regionScale ?? 1.5;
  const widths = sizes.map((s) => scale * s);
  const fast = new OctreeSummation(tree, widths);
  const regions = o.summation === 'naive' ? NaiveSummation.of(fast) : fast;
  const density = o.density ?? 1000;
  const masses = sizes.map((s) => density * s ** 3);
  const skin = Skin.nearest(
    o.mesh.positions,
    o.mesh.triangles,
    rest,
    4,
    world.store.float64(o.mesh.positions.length),
  );
  let rmax = 0;
  for (const s of sizes) rmax = Math.max(rmax, s);
  return new ShapeMatchingBody(world, {
    ...o,
    positions: rest,
    masses,
    regions,
    radius: o.radius ?? surfaceRadii(o.mesh, rest, rmax),
    skin,
    skinWithRegions: true,
  });
}

/**
 * Contact radii that make the particles' spheres approximate the solid: a
 * particle inside the closed mesh gets its distance to the surface (capped
 * at `cap`), so its sphere just touches the surface; a particle outside
 * (the lattice layer that carries the render mesh) gets 0 and stays out of
 * contacts. The render mesh then rests on the ground instead of floating a
 * lattice step above it.
 */
export function surfaceRadii(mesh: TriangleMesh, points: Float64Array, cap: number): Float64Array {
  const n = points.length / 3;
  const out = new Float64Array(n);
  const pos = mesh.positions,
    tri = mesh.triangles;
  const probe = new Float64Array(3);
  for (let j = 0; j < n; j++) {
    probe[0] = points[3 * j];
    probe[1] = points[3 * j + 1];
    probe[2] = points[3 * j + 2];
    if (!insideClosedMesh(mesh, probe)) continue;
    let d2 = Infinity;
    for (let t = 0; t < tri.length; t += 3) {
      const e = pointTriangleDistance2(probe, pos, 3 * tri[t], 3 * tri[t + 1], 3 * tri[t + 2]);
      if (e < d2) d2 = e;
    }
    out[j] = Math.min(cap, Math.sqrt(d2));
  }
  return out;
}

/** Crossing parity of a ray along +x (offset to miss edges) against the closed mesh. */
function insideClosedMesh(mesh: TriangleMesh, p: Float64Array): boolean {
  const pos = mesh.positions,
    tri = mesh.triangles;
  const py = p[1] + 1.37e-9,
    pz = p[2] + 2.71e-9;
  let crossings = 0;
  for (let t = 0; t < tri.length; t += 3) {
    if (crossingX(pos, 3 * tri[t], 3 * tri[t + 1], 3 * tri[t + 2], py, pz) > p[0]) crossings++;
  }
  return (crossings & 1) === 1;
}

/** Squared distance from p to the triangle (a, b, c) (offsets into pos), Ericson's closest-point method. */
function pointTriangleDistance2(p: Float64Array, pos: Float64Array, a: number, b: number, c: number): number {
  const abx = pos[b] - pos[a],
    aby = pos[b + 1] - pos[a + 1],
    abz = pos[b + 2] - pos[a + 2];
  const acx = pos[c] - pos[a],
    acy = pos[c + 1] - pos[a + 1],
    acz = pos[c + 2] - pos[a + 2];
  const apx = p[0] - pos[a],
    apy = p[1] - pos[a + 1],
    apz = p[2] - pos[a + 2];
  const d1 = abx * apx + aby * apy + abz * apz,
    d2 = acx * apx + acy * apy + acz * apz;
  let qx: number, qy: number, qz: number;
  if (d1 <= 0 && d2 <= 0) {
    qx = pos[a];
    qy = pos[a + 1];
    qz = pos[a + 2];
  } else {
    const bpx = p[0] - pos[b],
      bpy = p[1] - pos[b + 1],
      bpz = p[2] - pos[b + 2];
    const d3 = abx * bpx + aby * bpy + abz * bpz,
      d4 = acx * bpx + acy * bpy + acz * bpz;
    const cpx = p[0] - pos[c],
      cpy = p[1] - pos[c + 1],
      cpz = p[2] - pos[c + 2];
    const d5 = abx * cpx + aby * cpy + abz * cpz,
      d6 = acx * cpx + acy * cpy + acz * cpz;
    const vc = d1 * d4 - d3 * d2,
      vb = d5 * d2 - d1 * d6,
      va = d3 * d6 - d5 * d4;
    if (d3 >= 0 && d4 <= d3) {
      qx = pos[b];
      qy = pos[b + 1];
      qz = pos[b + 2];
    } else if (d6 >= 0 && d5 <= d6) {
      qx = pos[c];
      qy = pos[c + 1];
      qz = pos[c + 2];
    } else if (vc <= 0 && d1 >= 0 && d3 <= 0) {
      const v = d1 / (d1 - d3);
      qx = pos[a] + v * abx;
      qy = pos[a + 1] + v * aby;
      qz = pos[a + 2] + v * abz;
    } else if (vb <= 0 && d2 >= 0 && d6 <= 0) {
      const w = d2 / (d2 - d6);
      qx = pos[a] + w * acx;
      qy = pos[a + 1] + w * acy;
      qz = pos[a + 2] + w * acz;
    } else if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
      const w = (d4 - d3) / (d4 - d3 + (d5 - d6));
      qx = pos[b] + w * (pos[c] - pos[b]);
      qy = pos[b + 1] + w * (pos[c + 1] - pos[b + 1]);
      qz = pos[b + 2] + w * (pos[c + 2] - pos[b + 2]);
    } else {
      const den = 1 / (va + vb + vc);
      const v = vb * den,
        w = vc * den;
      qx = pos[a] + abx * v + acx * w;
      qy = pos[a + 1] + aby * v + acy * w;
      qz = pos[a + 2] + abz * v + acz * w;
    }
  }
  return (p[0] - qx) ** 2 + (p[1] - qy) ** 2 + (p[2] - qz) ** 2;
}

/** An octree over the mesh's bounding cube: cells crossing the surface refine to minCell, inside cells to maxCell. */
export function octreeOfMesh(
  mesh: TriangleMesh,
  minCell: number,
  maxCell: number,
  where = 'octree',
): AdaptiveLattice {
  if (!(minCell > 0 && maxCell >= minCell)) {
    throw new PbdError(
      'octree/cells',
      `${where}.minCell`,
      `needs 0 < minCell ≤ maxCell, got ${minCell}, ${maxCell}`,
    );
  }
  const pos = mesh.positions;
  const { lo, hi } = positionBounds(pos);
  const extent = Math.max(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
  const depth = Math.max(0, Math.ceil(Math.log2(extent / minCell)));
  const size = minCell * 2 ** depth;
  const min = [0, 1, 2].map((k) => 0.5 * (lo[k] + hi[k]) - size / 2);
  // inside test by a fine lattice of the mesh (cell centres sampled at minCell / 2 resolution)
  const probe = Lattice.fromMesh(mesh, minCell / 2, where);
  const insideAt = (x: number, y: number, z: number): boolean => {
    const i = Math.round((x - probe.origin[0]) / probe.spacing),
      j = Math.round((y - probe.origin[1]) / probe.spacing),
      k = Math.round((z - probe.origin[2]) / probe.spacing);
    if (i < 0 || j < 0 || k < 0 || i >= probe.nx || j >= probe.ny || k >= probe.nz) return false;
    return probe.nodeParticle[i + probe.nx * (j + probe.ny * k)] >= 0;
  };
  // a cell crosses the surface when its corners and centre disagree
  const crossesSurface = (x: number, y: number, z: number, s: number): boolean => {
    const c = insideAt(x, y, z);
    for (let q = 0; q < 8; q++) {
      const cx = x + ((q & 1) - 0.5) * s,
        cy = y + (((q >> 1) & 1) - 0.5) * s,
        cz = z + ((q >> 2) - 0.5) * s;
      if (insideAt(cx, cy, cz) !== c) return true;
    }
    return false;
  };
  return new AdaptiveLattice({
    min,
    size,
    maxDepth: depth,
    refine: (x, y, z, s) => s > maxCell * 1.0000001 || crossesSurface(x, y, z, s),
    inside: insideAt,
  });
}

export interface SurfaceBodyOptions extends MeshShapeOptions {
  /** Closed, outward-facing surface mesh, placed in world space; its vertices are the particles. */
  mesh: TriangleMesh;
  /** Region of a vertex = its ω-ring. Default 2. */
  rings?: number;
  /** 'fast' (disjoint paths with prefix sums, default) or 'naive' region sums. */
  summation?: 'fast' | 'naive';
  /** Mass of the whole body (kg), spread by vertex area. Default: density × enclosed volume. */
  mass?: number;
  /** Volume conservation (000 §4.5.1). */
  volume?: VolumeOptions;
  /** Distance constraints on the mesh edges (Figure 20's second sphere), stiffness/compliance. */
  edges?: { stiffness?: number; compliance?: number };
}

/** Surface-only region shape matching (Diziol et al. 2011; 000 §4.2, §4.3.3, §4.5.1). */
export function surfaceBody(world: World, o: SurfaceBodyOptions): ShapeMatchingBody {
  const where = o.name ? `surface body '${o.name}'` : 'surface body';
  checkClosed(o.mesh, where);
  const pos = o.mesh.positions;
  const tri = o.mesh.triangles;
  const n = pos.length / 3;
  const adj = meshAdjacency(n, tri);
  const lists = ringRegions(adj, o.rings ?? 2, where);
  let regions: RegionSummation;
  if (o.summation === 'naive') regions = NaiveSummation.fromLists(n, lists, where);
  else {
    const { order, pathStart } = buildPaths(pos, adj);
    regions = new PathSummation(n, lists, order, pathStart);
  }
  // vertex masses ∝ one third of the adjacent triangle areas
  const area = new Float64Array(n);
  let total = 0;
  for (let t = 0; t < tri.length / 3; t++) {
    const A = triangleArea(pos, tri, t);
    for (let k = 0; k < 3; k++) area[tri[3 * t + k]] += A / 3;
    total += A;
  }
  const mass = o.mass ?? (o.density ?? 1000) * enclosedVolume(pos, tri);
  const masses = area.map((a) => (mass * a) / total);
  const body = new ShapeMatchingBody(world, {
    ...o,
    positions: pos,
    masses,
    regions,
    triangles: tri,
  });
  if (o.edges) body.addEdgeConstraints(tri, o.edges);
  if (o.volume) body.addVolumeConservation(tri, adj, o.volume);
  return body;
}

function checkClosed(mesh: TriangleMesh, where: string): void {
  const topo = buildEdgeTopology(mesh.triangles, `${where}.mesh`);
  requireEnclosing(topo, mesh, 'shape-matching', `${where}.mesh`, 'a shape-matched body');
}
