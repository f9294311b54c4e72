import type { SurfaceBroadPhase } from './surface-broad-phase.js';
import type { SurfaceContactList } from './surface-contact-list.js';
import { SIDE_NEG } from './surface-narrow-scan.js';
import type { SurfaceTopology } from './surface-topology.js';
import type { Untangler } from './untangle.js';

/**
 * What the vertex–triangle and the edge–edge contacts share: the topology,
 * the broad phase's candidates, the untangler and the list the narrow
 * scans' hits are pushed into (surface-vertex-triangle.ts,
 * surface-edge-edge.ts).
 */
export abstract class SurfaceHitContacts {
  constructor(
    protected readonly topo: SurfaceTopology,
    protected readonly broad: SurfaceBroadPhase,
    protected readonly untangler: Untangler,
    protected readonly list: SurfaceContactList,
  ) {}

  /**
   * Pushes a hit of the narrow scan (flags `fl`, SIDE_NEG for side −1) of
   * type `type` between global particles g0…g3, of surfaces sA and sB, with
   * their pair's thickness; returns its side s = ±1.
   */
  protected pushHit(
    type: number,
    fl: number,
    g0: number,
    g1: number,
    g2: number,
    g3: number,
    sA: number,
    sB: number,
  ): number {
    const s = (fl & SIDE_NEG) !== 0 ? -1 : 1;
    this.list.pushBetween(
      type,
      fl & ~SIDE_NEG,
      g0,
      g1,
      g2,
      g3,
      s,
      this.topo.pairThickness(sA, sB),
      sA,
      sB,
      0,
    );
    return s;
  }
}
