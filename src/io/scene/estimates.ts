/**
 * Allocation estimates of every body and collider type of a scene (see
 * limits.ts): each declares on a Budget, from its JSON alone, the particles,
 * mesh elements and grid cells its builder will allocate. Upper bounds, cheap
 * to compute, never allocating; NaN or ∞ (a spacing of 1e-300) is refused
 * by the budget like any amount past its limit. scene.ts holds the registry
 * (`bodyEstimates`), typed so that a new body type must declare one.
 */
import type { z } from 'zod';
import type { ClothBodySpec } from './cloth.js';
import type { GranularBodySpec, MeshColliderSpec } from './collision.js';
import type { meshSource } from './common.js';
import type { FemClothSpec, SoftBodySpec } from './continuum.js';
import type { FluidBodySpec } from './fluids.js';
import type { Budget } from './limits.js';
import type { ShapeMatchingSpec, ShapeMeshSpec } from './shape-matching.js';
import type { StrandsSpec } from './strands.js';

type Estimate<S> = (spec: S, where: string, budget: Budget) => void;

/** Lattice points of spacing d along an extent (the count the lattice builders make, +1 for the far side). */
function along(extent: number, d: number): number {
  return Math.max(1, Math.floor(Math.abs(extent) / d) + 1);
}

function boxPoints(min: readonly number[], max: readonly number[], d: number): number {
  return along(max[0] - min[0], d) * along(max[1] - min[1], d) * along(max[2] - min[2], d);
}

/**
 * A triangle mesh source: `particles` whether its vertices become particles
 * (a render mesh's do not). A mesh file is counted once it is read.
 */
export function estimateMesh(
  src: z.infer<typeof meshSource> | ShapeMeshSpec,
  where: string,
  budget: Budget,
  particles = true,
): void {
  let v = 0;
  let t = 0;
  let field = where;
  let what = '';
  if ('grid' in src) {
    const { cols, rows } = src.grid;
    v = cols * rows;
    t = 2 * (cols - 1) * (rows - 1);
    field = `${where}.grid`;
    what = `a ${cols} × ${rows} grid`;
  } else if ('icosphere' in src) {
    const s = src.icosphere.subdivisions;
    v = 10 * 4 ** s + 2;
    t = 20 * 4 ** s;
    field = `${where}.icosphere.subdivisions`;
    what = `an icosphere of ${s} subdivisions`;
  } else if ('bunny' in src) {
    // the npm "bunny" mesh: 2,503 vertices, 4,968 triangles
    v = 2503;
    t = 4968;
    what = 'the bunny';
  } else if ('sack' in src) {
    const seg = src.sack.segments ?? 24;
    const rings = src.sack.rings ?? 12;
    // rings plus the bottom cap's (about half as many) rings, and a pole
    v = seg * (2 * rings + 3) + 1;
    t = 2 * v;
    field = `${where}.sack`;
    what = `a sack of ${seg} segments and ${rings} rings`;
  } else if ('duck' in src) {
    const s = src.duck.subdivisions ?? 3;
    v = 10 * 4 ** s + 2;
    t = 20 * 4 ** s;
    what = `a duck of ${s} subdivisions`;
  } else if ('torus' in src) {
    const seg = src.torus.segments ?? 32;
    const sides = src.torus.sides ?? 16;
    v = seg * sides;
    t = 2 * v;
    field = `${where}.torus`;
    what = `a torus of ${seg} × ${sides}`;
  } else if ('box' in src) {
    const [a, b, c] = src.box.size;
    const cell = src.box.cell ?? Math.min(a, b, c) / 4;
    const n = (x: number) => Math.ceil(x / cell) + 1;
    v = 2 * (n(a) * n(b) + n(b) * n(c) + n(a) * n(c));
    t = 2 * v;
    field = `${where}.box${src.box.cell === undefined ? '.size' : '.cell'}`;
    what = `a box of cell ${cell} m`;
  } else return; // { file }: counted when read
  if (particles) budget.reserve('particles', v, field, `${what} has ${v} vertices`);
  budget.reserve('elements', t, field, `${what} has ${t} triangles`);
  // a render or input mesh is not projected each iteration: no work per step (work.ts)
  if (!particles) budget.inert += t;
}

/** What a pin group may list (the fields differ between body types). */
interface PinGroup {
  vertices?: readonly number[];
  particles?: readonly number[];
  grid?: readonly unknown[];
  rows?: readonly number[];
  cols?: readonly number[];
}

/**
 * The attachments a body's pins ask for: every listed index, and a whole
 * row or column of a grid per listed row or column (`cols` × `rows`, 0 for
 * a mesh without a grid), counted as mesh elements (an attachment is a
 * constraint). 200,000 listed rows of a 60-column cloth are refused here
 * instead of attaching 12 million times.
 */
export function estimatePins(
  pins: readonly PinGroup[] | undefined,
  where: string,
  budget: Budget,
  cols = 0,
  rows = 0,
): void {
  let n = 0;
  for (const p of pins ?? [])
    n +=
      (p.vertices?.length ?? 0) +
      (p.particles?.length ?? 0) +
      (p.grid?.length ?? 0) +
      (p.rows?.length ?? 0) * Math.max(1, cols) +
      (p.cols?.length ?? 0) * Math.max(1, rows);
  if (n > 0)
    budget.reserve('elements', n, `${where}.pins`, `pins that select ${n.toLocaleString('en-US')} vertices`);
}

const gridOf = (mesh: object): [number, number] =>
  'grid' in mesh ? [(mesh.grid as { cols: number }).cols, (mesh.grid as { rows: number }).rows] : [0, 0];

export const estimateCloth: Estimate<ClothBodySpec> = (spec, where, budget) => {
  estimateMesh(spec.mesh, `${where}.mesh`, budget);
  estimatePins(spec.pins, where, budget, ...gridOf(spec.mesh));
  const spare = spec.tear?.maxNewVertices;
  if (spare !== undefined)
    budget.reserve('particles', spare, `${where}.tear.maxNewVertices`, 'tearing reserves');
};

export const estimateFemCloth: Estimate<FemClothSpec> = (spec, where, budget) => {
  estimateMesh(spec.mesh, `${where}.mesh`, budget);
  estimatePins(spec.pins, where, budget);
  if (spec.render) estimateMesh(spec.render.mesh, `${where}.render.mesh`, budget, false);
};

export const estimateSoftBody: Estimate<SoftBodySpec> = (spec, where, budget) => {
  estimatePins(spec.pins, where, budget);
  const src = spec.tetMesh;
  const at = `${where}.tetMesh`;
  if ('box' in src) {
    const [x, y, z] = src.box.resolution;
    const field = `${at}.box.resolution`;
    budget.reserve('particles', x * y * z, field, `a ${x} × ${y} × ${z} tet box`);
    budget.reserve('elements', 6 * (x - 1) * (y - 1) * (z - 1), field, `a ${x} × ${y} × ${z} tet box`);
  } else if ('tetrahedralize' in src) {
    const r = src.tetrahedralize.resolution ?? 8;
    estimateMesh(src.tetrahedralize.mesh, `${at}.tetrahedralize.mesh`, budget, false);
    const field = `${at}.tetrahedralize.resolution`;
    budget.reserve('cells', (r + 1) ** 3, field, `a lattice of ${r} cells a side`);
    budget.reserve('particles', (r + 1) ** 3, field, `a lattice of ${r} cells a side`);
    budget.reserve('elements', 6 * r ** 3, field, `a lattice of ${r} cells a side`);
  }
  const render = spec.render === false ? undefined : spec.render;
  if (render?.mesh) estimateMesh(render.mesh, `${where}.render.mesh`, budget, false);
};

export const estimateFluid: Estimate<FluidBodySpec> = (spec, where, budget) => {
  const d = spec.spacing;
  let initial = 0;
  (spec.blocks ?? []).forEach((b, k) => {
    const n = boxPoints(b.min, b.max, d);
    budget.reserve('particles', n, `${where}.blocks[${k}]`, `a block of spacing ${d} m`);
    initial += n;
  });
  if (spec.capacity !== undefined && spec.capacity > initial)
    budget.reserve('particles', spec.capacity - initial, `${where}.capacity`, 'the reserved capacity');
  else if (spec.capacity === undefined)
    (spec.emitters ?? []).forEach((_, k) => {
      // an emitter reserves at most 16,384 particles (fluid.ts) unless capacity says more
      budget.reserve('particles', 16384, `${where}.emitters[${k}]`, 'an emitter');
    });
  (spec.boundary ?? []).forEach((b, k) => {
    const s = b.spacing ?? d;
    const n = (a: number) => along(b.max[a] - b.min[a], s);
    const faces = 2 * (n(0) * n(1) + n(1) * n(2) + n(0) * n(2));
    budget.reserve('particles', faces, `${where}.boundary[${k}]`, `boundary faces of spacing ${s} m`);
  });
};

export const estimateGranular: Estimate<GranularBodySpec> = (spec, where, budget) => {
  const n = boxPoints(spec.box.min, spec.box.max, spec.spacing);
  budget.reserve('particles', n, `${where}.spacing`, `a box of spacing ${spec.spacing} m`);
};

export const estimateStrands: Estimate<StrandsSpec> = (spec, where, budget) => {
  if (spec.hair) {
    const { count, segments } = spec.hair;
    const field = `${where}.hair`;
    budget.reserve('particles', count * (segments + 1), field, `${count} strands of ${segments} segments`);
    budget.reserve('elements', count * segments, field, `${count} strands of ${segments} segments`);
  }
  // explicit strands are already in memory: their count is their length
  let n = 0;
  for (const s of spec.strands ?? []) n += s.length;
  if (n > 0) budget.reserve('particles', n, `${where}.strands`, 'the listed strands');
  const sh = spec.shape;
  if (!sh) return;
  const field = `${where}.shape`;
  let points = sh.type === 'line' ? sh.segments + 1 : 0;
  if (sh.type === 'helix') {
    // strands/thread.ts: a fine polyline (steps of min(radius, pitch) / 50) resampled at the segment length
    const fine = Math.min(sh.radius, sh.pitch) / 50;
    const lead = sh.lead ?? 0;
    const coil = sh.turns * Math.hypot(2 * Math.PI * sh.radius, sh.pitch);
    const dense = Math.ceil(lead / fine) + Math.ceil((sh.turns * 2 * Math.PI * sh.radius) / fine) + 1;
    budget.reserve('cells', dense, field, `a helix sampled at ${fine} m`);
    points = Math.floor((lead + coil) / sh.segment) + 2;
  } else if (sh.type === 'overhand-knot') {
    // two tails in steps of size / 50 and a loop of 4,001 points, no longer than 60 × size with its lift
    const tail = 2 * Math.max(2, Math.ceil(sh.tail / (sh.size / 50)));
    budget.reserve('cells', tail + 4001, field, `a knot's tails sampled at ${sh.size / 50} m`);
    const length = 2 * sh.tail + 60 * sh.size + 4 * (sh.clearance ?? 1.5 * sh.size);
    points = Math.floor(length / sh.segment) + 2;
  }
  budget.reserve('particles', points, field, `a ${sh.type} of ${points} points`);
  budget.reserve('elements', points - 1, field, `a ${sh.type} of ${points - 1} segments`);
};

/** Shape matching: a mesh, a lattice (counted by the builder from the mesh's size), a sheet or a plant. */
export const estimateShapeMatching: Estimate<ShapeMatchingSpec> = (spec, where, budget) => {
  if ('pins' in spec)
    estimatePins(spec.pins, where, budget, ...(spec.type === 'shape-matching-cloth' ? gridOf(spec) : [0, 0]));
  if (spec.type === 'shape-matching-cloth') {
    const { cols, rows } = spec.grid;
    budget.reserve('particles', cols * rows, `${where}.grid`, `a ${cols} × ${rows} grid`);
    budget.reserve('elements', 2 * (cols - 1) * (rows - 1), `${where}.grid`, `a ${cols} × ${rows} grid`);
  } else if (spec.type === 'oriented-particles') {
    const s = spec.structure;
    if ('fit' in s) {
      estimateMesh(s.fit.mesh, `${where}.structure.fit.mesh`, budget, false);
      budget.reserve('particles', s.fit.particles, `${where}.structure.fit.particles`, 'fitted particles');
    } else if ('sheet' in s) {
      const { cols, rows } = s.sheet;
      budget.reserve('particles', cols * rows, `${where}.structure.sheet`, `a ${cols} × ${rows} sheet`);
    } else {
      const { segments, branchEvery = 3, branchLength = 3 } = s.plant;
      const n = segments + 1 + Math.ceil(segments / branchEvery) * branchLength;
      budget.reserve(
        'particles',
        n,
        `${where}.structure.plant`,
        `a plant of ${segments} segments and branches of ${branchLength}`,
      );
    }
  } else {
    // lattice-shape and rigid-cluster place their lattice in the mesh: the builder counts it
    estimateMesh(spec.mesh, `${where}.mesh`, budget, spec.type === 'surface-shape');
  }
};

export const estimateMeshCollider: Estimate<MeshColliderSpec> = (spec, where, budget) => {
  estimateMesh(spec.mesh, `${where}.mesh`, budget, false);
  const r = spec.resolution ?? 64;
  // cells along the longest side; the other sides have at most as many, plus a border
  budget.reserveField((r + 3) ** 3, `${where}.resolution`, `a distance field of ${r} cells a side`);
};
