import { Body } from '../core/body.js';
import type { Motion } from '../core/motion.js';
import type { RenderEmbedding } from './embedding.js';

/**
 * A body drawn through an optional embedded render mesh (002 §5): the soft
 * body and the FEM cloth. With an embedding, the render mesh's triangles and
 * its positions, refreshed from the simulation's; without one, the body's
 * own triangles over its particles.
 */
export abstract class EmbeddedBody extends Body {
  abstract readonly embedding: RenderEmbedding | null;

  /** The triangles over the particles, drawn when there is no render mesh. */
  protected abstract ownTriangles(): Uint32Array;

  override renderTriangles(): Uint32Array {
    return this.embedding ? this.embedding.triangles : this.ownTriangles();
  }

  override renderPositions(): Float64Array {
    return this.embedding ? this.embedding.update(this.world.store.x, this.offset) : this.positions();
  }

  override get hasRenderMesh(): boolean {
    return this.embedding !== null;
  }

  /** Pins a vertex (body-local) where it is, to a scripted motion, or softly (compliance > 0). */
  pin(vertex: number, motion?: Motion, compliance?: number): void {
    this.attachVertex(vertex, this.type, { motion, compliance });
  }
}
