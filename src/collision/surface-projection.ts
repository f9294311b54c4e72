import type { ParticleStore } from '../core/particles.js';
import { type SurfaceContactList, TYPE_VT } from './surface-contact-list.js';
import { projectEdgeEdges } from './surface-edge-edge.js';
import { projectVertexTriangles } from './surface-vertex-triangle.js';

/**
 * One Gauss–Seidel pass over the surface contacts [k0, k1) of the list, in
 * their order: each run of contacts of one type goes to its kernel
 * (vertex–triangle or edge–edge), so that the order, and with it every
 * result, is that of one loop over all of them.
 */
export function projectContacts(
  store: ParticleStore,
  list: SurfaceContactList,
  k0: number,
  k1: number,
): void {
  const type = list.type;
  let k = k0;
  while (k < k1) {
    const t = type[k];
    let e = k + 1;
    while (e < k1 && type[e] === t) e++;
    if (t === TYPE_VT) projectVertexTriangles(store, list, k, e);
    else projectEdgeEdges(store, list, k, e);
    k = e;
  }
}
