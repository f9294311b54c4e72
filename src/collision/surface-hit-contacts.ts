import type { SurfaceBroadPhase } from './surface-broad-phase.js';
import type { SurfaceContactList } from './surface-contact-list.js';
import type { SurfaceTopology } from './surface-topology.js';
import type { Untangler } from './untangle.js';

/**
 * What the vertex–triangle and the edge–edge contacts share: the topology,
 * the broad phase's candidates, the untangler and the list the narrow
 * scans' hits are pushed into (surface-vertex-triangle.ts,
 * surface-edge-edge.ts; the pushing itself, one template for both kinds, is
 * printed by scripts/kernels/emit-surface-frames.ts).
 */
export abstract class SurfaceHitContacts {
  constructor(
    protected readonly topo: SurfaceTopology,
    protected readonly broad: SurfaceBroadPhase,
    protected readonly untangler: Untangler,
    protected readonly list: SurfaceContactList,
  ) {}
}
