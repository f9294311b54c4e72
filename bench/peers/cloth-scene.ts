/**
 * The honest cloth of issue 18, built once and handed to every engine the
 * bench compares: an n × n grid lying horizontally (xz plane), two corners
 * of one edge pinned, falling under gravity, swinging down and folding, so
 * that every stretch and every bending constraint works from the first
 * frame. pbdkit builds it; its masses, pins, edges and bending quads are
 * what the peers (Jolt, ammo.js, the plain script) are given, so all engines
 * simulate the same particles with the same constraint lists.
 */
import { buildBendingQuads, buildEdgeTopology, Cloth, gridMesh, World } from '../../src/index.js';

export interface FallingClothOptions {
  /** Vertices per side. */
  n: number;
  /** Substeps per frame (Jolt: its soft body's iterations; ammo.js: position iterations). */
  substeps: number;
  /** XPBD compliance of the bending (dihedral: rad²/(N·m); distance: m/N); false: no bending. */
  bendCompliance: number | false;
  /**
   * pbdkit's bending model (ClothOptions.bend.model): 'dihedral' (default) or 'distance', one
   * distance constraint across each bending quad (c–d), the model of ammo.js's bending links and
   * the plain script's bending.
   */
  bendModel?: 'dihedral' | 'distance';
  /** Precision of pbdkit's distance and bending kernels (WorldOptions.precision), default 'f64'. */
  precision?: 'f64' | 'f32';
  /** WorldOptions.storeMemory (false: the store's plain arrays, homed at the first step; the tests). */
  storeMemory?: boolean;
  /** pbdkit's threads (WorldOptions.threads), default 1. */
  threads?: number;
  /** pbdkit's sweep (WorldOptions.sweep), default 'forward'. */
  sweep?: 'forward' | 'symmetric';
}

/** Side of the square cloth (m), its density (kg/m²), the frame (s). */
export const CLOTH_SIZE = 2;
export const CLOTH_DENSITY = 0.2;
export const FRAME_DT = 1 / 60;
export const GRAVITY = -9.81;

export interface FallingCloth {
  world: World;
  cloth: Cloth;
  /** Initial positions, xyz interleaved (cloth-local indices). */
  positions: Float64Array;
  /** Inverse masses after pinning (0 = pinned). */
  invMass: Float64Array;
  triangles: Uint32Array;
  /** Stretch edges, two indices each, and their rest lengths. */
  edges: Uint32Array;
  rest: Float64Array;
  /** Bending quads (a, b, c, d): a–b the shared edge, c and d the opposite vertices (003 §4.1). */
  quads: Uint32Array;
}

/** pbdkit's world for the scene: XPBD, stretch compliance 0, one iteration per substep, forward sweep. */
export function fallingCloth(o: FallingClothOptions): FallingCloth {
  const world = new World({
    dt: FRAME_DT,
    substeps: o.substeps,
    iterations: 1,
    solver: 'xpbd',
    sweep: o.sweep ?? 'forward',
    gravity: [0, GRAVITY, 0],
    precision: o.precision ?? 'f64',
    threads: o.threads ?? 1,
    storeMemory: o.storeMemory,
  });
  const cloth = new Cloth(world, {
    mesh: gridMesh({ width: CLOTH_SIZE, height: CLOTH_SIZE, cols: o.n, rows: o.n, plane: 'xz' }),
    density: CLOTH_DENSITY,
    stretch: { compliance: 0 },
    bend:
      o.bendCompliance === false ? false : { model: o.bendModel ?? 'dihedral', compliance: o.bendCompliance },
  });
  cloth.pin(0);
  cloth.pin(o.n - 1);
  const store = world.store;
  const off = cloth.offset;
  const nv = cloth.count;
  const positions = store.x.slice(3 * off, 3 * (off + nv));
  const invMass = store.invMass.slice(off, off + nv);
  const s = cloth.stretch;
  const edges = new Uint32Array(2 * s.count);
  for (let k = 0; k < edges.length; k++) edges[k] = s.indices[k] - off;
  const rest = s.rest.slice(0, s.count);
  // the quads in the dihedral set's (colour) order, or for the distance model in the mesh's order
  // (the distance set's pairs are c–d of these); none without bending
  const b = cloth.bend;
  let quads: Uint32Array = new Uint32Array(b ? 4 * b.count : 0);
  if (b) for (let k = 0; k < quads.length; k++) quads[k] = b.indices[k] - off;
  else if (cloth.bendLinks) quads = buildBendingQuads(cloth.triangles, buildEdgeTopology(cloth.triangles));
  return { world, cloth, positions, invMass, triangles: cloth.triangles.slice(), edges, rest, quads };
}

/** Max and mean relative edge stretch |ℓ/ℓ0 − 1| of positions (xyz), and whether all are finite. */
export function edgeStretch(
  pos: ArrayLike<number>,
  edges: Uint32Array,
  rest: Float64Array,
): { maxStretch: number; meanStretch: number; finite: boolean } {
  let finite = true;
  for (let i = 0; i < pos.length; i++) if (!Number.isFinite(pos[i])) finite = false;
  let max = 0;
  let sum = 0;
  const m = rest.length;
  for (let e = 0; e < m; e++) {
    const a = 3 * edges[2 * e],
      b = 3 * edges[2 * e + 1];
    const dx = pos[a] - pos[b],
      dy = pos[a + 1] - pos[b + 1],
      dz = pos[a + 2] - pos[b + 2];
    const s = Math.abs(Math.sqrt(dx * dx + dy * dy + dz * dz) / rest[e] - 1);
    if (s > max || Number.isNaN(s)) max = s;
    sum += s;
  }
  return { maxStretch: max, meanStretch: sum / m, finite };
}
