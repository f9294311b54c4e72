/** What the bench needs of an engine it compares pbdkit with. */
export interface PeerInstance {
  /** Advances one frame. */
  step(): void;
  /** Current vertex positions, xyz interleaved, in the scene's vertex order. */
  positions(): ArrayLike<number>;
  /** Edge stretch and finiteness now (see edgeStretch). */
  quality(): { maxStretch: number; meanStretch: number; finite: boolean };
}
