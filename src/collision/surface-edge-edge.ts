import type { ParticleStore } from '../core/particles.js';
import { closestSegmentSegmentAt } from './geometry.js';
import { addEdgeEdgeHits } from './surface-frames.generated.js';
import { SurfaceHitContacts } from './surface-hit-contacts.js';
import type { NarrowHits } from './surface-narrow-tasks.js';

const ss = new Float64Array(3);

/**
 * The contact's frame (frameEE: n̂, the gradient weights, the signed distance) and
 * the pushing of the scan's hits (addEdgeEdgeHits) are written once for both
 * kinds in scripts/kernels/emit-surface-frames.ts, which prints
 * surface-frames.generated.ts (`npm run kernels`).
 */
export { frameEE } from './surface-frames.generated.js';

/**
 * Edge–edge contacts: C = s (a − c) · n̂ − h with n̂ ∥ (b − a) × (d − c),
 * gradients s(1 − t) n̂, s t n̂, −s(1 − u) n̂, −s u n̂ at the closest points
 * a + t (b − a), c + u (d − c) of the two lines (the conservation argument
 * of the vertex–triangle contacts holds as well).
 *
 * Proximity constraints are made only between two sharp edges (creased by
 * more than 30° or on a boundary, SurfaceBroadPhase.sharp): across a flat
 * edge another edge cannot come within h unless a vertex comes within h of
 * that edge's triangles first, which the vertex–triangle contacts handle.
 * Crossings during x → p are tested for every candidate pair.
 */
export class EdgeEdgeContacts extends SurfaceHitContacts {
  /**
   * The contacts of the substep x → p: the hits of the edge–edge scan
   * (surface-narrow-scan.ts, run here or on the pool), pushed in candidate
   * order by addEdgeEdgeHits.
   */
  addHits(store: ParticleStore, x: Float64Array, found: NarrowHits, crossed: Uint8Array | null = null): void {
    addEdgeEdgeHits(this.topo, this.broad.eeCand, this.list, store.v, x, found, crossed);
  }
}

/** Distance between edges a–b and c–d at x (global particle indices). */
function _edgeEdgeDistance(x: Float64Array, a: number, b: number, c: number, d: number): number {
  closestSegmentSegmentAt(x, 3 * a, 3 * b, x, 3 * c, 3 * d, ss);
  return Math.sqrt(ss[2]);
}
