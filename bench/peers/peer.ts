import type { Quality } from '../harness.js';

/** What the bench needs of an engine it compares pbdkit with. */
export interface PeerInstance {
  /** Advances one frame. */
  step(): void;
  /** Current vertex positions, xyz interleaved, in the scene's vertex order. */
  positions(): ArrayLike<number>;
  /** Edge stretch and finiteness now (see edgeStretch); a rigid stack's drift and penetration. */
  quality(): Quality;
  /** Called after each timed frame, outside the timing (BenchInstance.observe). */
  observe?(): void;
  /** Frees what the engine holds (its WebAssembly heap is shared by every case of the process). */
  dispose?(): void;
}
