/**
 * Strain limits on a triangle-mesh body (Cloth, FemCloth): what the
 * `strainLimit` option of both builds.
 */
import type { ConstraintSet } from '../core/constraint-set.js';
import type { ParticleStore } from '../core/particles.js';
import type { World } from '../core/world.js';
import { buildEdgeTopology } from '../mesh/triangle-mesh.js';
import { EdgeStrainLimits, type StrainLimitParams } from './edge-limits.js';
import { LongRangeAttachments, type LongRangeOptions, type TetheredBody } from './long-range-attachments.js';
import { TriangleStrainLimits } from './triangle-limits.js';

export interface StrainLimitOptions {
  /** Every edge keeps its length within [min·L, max·L] (a unilateral pair of distance constraints). */
  edges?: StrainLimitParams;
  /** Every triangle keeps its principal stretches within [min, max] (Wang et al. 2010). */
  triangles?: StrainLimitParams;
}

export interface StrainLimitSets {
  edges: EdgeStrainLimits | null;
  triangles: TriangleStrainLimits | null;
}

/** Edges (global pairs) and their rest lengths of body-local triangles over rest positions. */
export function meshEdges(
  triangles: Uint32Array,
  rest: ArrayLike<number>,
  offset: number,
): { edges: Uint32Array; rest: Float64Array } {
  const topo = buildEdgeTopology(triangles);
  const edges = new Uint32Array(topo.edges.length);
  const len = new Float64Array(topo.edges.length / 2);
  for (let e = 0; e < len.length; e++) {
    const a = topo.edges[2 * e],
      b = topo.edges[2 * e + 1];
    edges[2 * e] = a + offset;
    edges[2 * e + 1] = b + offset;
    len[e] = Math.hypot(
      rest[3 * a] - rest[3 * b],
      rest[3 * a + 1] - rest[3 * b + 1],
      rest[3 * a + 2] - rest[3 * b + 2],
    );
  }
  return { edges, rest: len };
}

/** Builds the strain limit sets of a body (not yet added to a world). */
export function strainLimitSets(
  store: ParticleStore,
  offset: number,
  triangles: Uint32Array,
  rest: Float64Array,
  o: StrainLimitOptions,
  where: string,
): StrainLimitSets {
  let edges: EdgeStrainLimits | null = null;
  if (o.edges) {
    const e = meshEdges(triangles, rest, offset);
    edges = new EdgeStrainLimits(store, e.edges, e.rest, o.edges, `${where}.edges`);
  }
  let tris: TriangleStrainLimits | null = null;
  if (o.triangles) {
    tris = new TriangleStrainLimits(
      store,
      globalTriangles(triangles, offset),
      o.triangles,
      { positions: rest, offset },
      `${where}.triangles`,
    );
  }
  return { edges, triangles: tris };
}

/**
 * What the `strainLimit` and `longRangeAttachments` options of a
 * triangle-mesh body build: its strain limit sets, its LRA (or null), and
 * all of them in the order the body adds them to the world.
 */
export function strainLimiting(
  world: World,
  body: TetheredBody,
  o: { strainLimit?: StrainLimitOptions; longRangeAttachments?: LongRangeOptions },
  where: string,
): { limits: StrainLimitSets; longRange: LongRangeAttachments | null; sets: ConstraintSet[] } {
  const limits = strainLimitSets(
    world.store,
    body.offset,
    body.triangles,
    body.restPositions,
    o.strainLimit ?? {},
    `${where}.strainLimit`,
  );
  const longRange = o.longRangeAttachments
    ? new LongRangeAttachments(world, body, o.longRangeAttachments, `${where}.longRangeAttachments`)
    : null;
  const sets: ConstraintSet[] = [];
  if (limits.edges) sets.push(limits.edges);
  if (limits.triangles) sets.push(limits.triangles);
  if (longRange) sets.push(longRange);
  return { limits, longRange, sets };
}

/** Brings the limits up to date with a changed topology (tearing). */
export function updateStrainLimitSets(
  sets: StrainLimitSets,
  store: ParticleStore,
  offset: number,
  triangles: Uint32Array,
  rest: Float64Array,
): void {
  if (sets.edges) {
    const e = meshEdges(triangles, rest, offset);
    sets.edges.setEdges(store, e.edges, e.rest);
  }
  sets.triangles?.setTriangles(store, globalTriangles(triangles, offset), { positions: rest, offset });
}

function globalTriangles(triangles: Uint32Array, offset: number): Uint32Array {
  const out = new Uint32Array(triangles.length);
  for (let k = 0; k < out.length; k++) out[k] = triangles[k] + offset;
  return out;
}
