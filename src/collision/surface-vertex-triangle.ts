import type { ParticleStore } from '../core/particles.js';
import { closestPointTriangleAt } from './geometry.js';
import { FLAG_FLIP, TYPE_VT } from './surface-contact-list.js';
import { addVertexTriangleHits } from './surface-frames.generated.js';
import { SurfaceHitContacts } from './surface-hit-contacts.js';
import type { NarrowHits } from './surface-narrow-tasks.js';

const cp = new Float64Array(7);

/**
 * The contact's frame (frameVT: n̂, the gradient weights, the signed distance) and
 * the pushing of the scan's hits (addVertexTriangleHits) are written once for both
 * kinds in scripts/kernels/emit-surface-frames.ts, which prints
 * surface-frames.generated.ts (`npm run kernels`).
 */
export { frameVT } from './surface-frames.generated.js';

/**
 * Vertex–triangle contacts (003 §4.3, eqs. 12–13): C = s (q − p1) · n̂ − h
 * with n̂ the unit normal of (p1, p2, p3) and s = ±1 the side the vertex
 * came from. Its exact gradients are ∇q C = s n̂ and ∇pi C = −s bi n̂ with
 * bi the barycentric coordinates of q's projection on the plane, so the
 * projection moves the four points along n̂ and conserves linear and
 * angular momentum (003 §3.3: Σ ∇C = 0 and Σ p × ∇C = s (q − Σ bi pi) × n̂ = 0).
 *
 * Detection runs over the broad phase's candidates: a candidate whose
 * distance bound (less the motion of its pair) exceeds the reach is
 * skipped; the others are tested for proximity at p (distance < h + margin)
 * and, when they can touch at all, continuously for a crossing during
 * x → p (the cubic coplanarity test, geometry.ts). Pairs across regions of
 * a tangled surface follow the untangling rules (untangle.ts) instead.
 */
export class VertexTriangleContacts extends SurfaceHitContacts {
  /**
   * The contacts of the substep x → p: the hits of the vertex–triangle scan
   * (surface-narrow-scan.ts, run here or on the pool), pushed in candidate
   * order by addVertexTriangleHits.
   */
  addHits(store: ParticleStore, x: Float64Array, found: NarrowHits, crossed: Uint8Array | null = null): void {
    addVertexTriangleHits(this.topo, this.broad.vtCand, this.list, store.v, x, found, crossed);
  }

  /**
   * The untangling pairs of the current analysis (003 §4.3: "methods like
   * [BWK03] have to be applied"): vertex–triangle constraints whose side is
   * the one the vertex must go back to (see Untangler).
   */
  addUntanglingPairs(): void {
    const topo = this.topo,
      un = this.untangler;
    const vert = topo.vertex,
      tri = topo.tri;
    const fp = un.flipPairs;
    this.list.flipStep = un.flipStep;
    for (let k = 0; k < un.flipCount; k++) {
      const q = fp[3 * k],
        t = fp[3 * k + 1];
      const h = topo.pairThickness(topo.vertexSurface[q], topo.triSurface[t]);
      this.list.push(
        TYPE_VT,
        FLAG_FLIP,
        vert[q],
        vert[tri[3 * t]],
        vert[tri[3 * t + 1]],
        vert[tri[3 * t + 2]],
        fp[3 * k + 2],
        h,
        0,
        0,
        0,
        0,
      );
    }
  }
}

/** Distance from vertex q to triangle (a, b, c) at x (global particle indices). */
function _vertexTriangleDistance(x: Float64Array, q: number, a: number, b: number, c: number): number {
  closestPointTriangleAt(x, 3 * q, x, 3 * a, 3 * b, 3 * c, cp);
  return Math.sqrt(cp[6]);
}
