/** Shared helpers for the physics tests. */

/** A small deterministic PRNG (mulberry32) so tests never depend on Math.random. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Central finite-difference gradient of f with respect to the coordinates
 * of the given particles, in the order given (3 numbers per particle).
 */
export function finiteDifferenceGradient(
  f: (p: Float64Array) => number,
  p: Float64Array,
  particles: number[],
  eps = 1e-6,
): Float64Array {
  const g = new Float64Array(3 * particles.length);
  particles.forEach((i, k) => {
    for (let d = 0; d < 3; d++) {
      const saved = p[3 * i + d];
      p[3 * i + d] = saved + eps;
      const fp = f(p);
      p[3 * i + d] = saved - eps;
      const fm = f(p);
      p[3 * i + d] = saved;
      g[3 * k + d] = (fp - fm) / (2 * eps);
    }
  });
  return g;
}

/** max |a − b| / max(1, max |b|) */
export function relativeError(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0,
    s = 0;
  for (let i = 0; i < b.length; i++) {
    m = Math.max(m, Math.abs(a[i] - b[i]));
    s = Math.max(s, Math.abs(b[i]));
  }
  return m / Math.max(1e-300, s);
}
