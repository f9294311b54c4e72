/**
 * The SPH smoothing kernels of position based fluids (Macklin & Müller 2013,
 * §3, after Müller, Charypar & Gross 2003): poly6 for the density estimate
 * and the gradient of the spiky kernel for the constraint gradients
 * (000 §3.4.6, eq. 4 and the gradient after it).
 *
 *   W_poly6(r, h) = 315 / (64 π h⁹) · (h² − |r|²)³            (|r| < h)
 *   ∇W_spiky(r, h) = −45 / (π h⁶) · (h − |r|)² · r / |r|      (|r| < h)
 *
 * The hot loops inline these formulas; the functions here are the readable
 * reference that the tests compare the loops with, plus the lattice sums
 * that turn a particle spacing into a particle mass and a rest gradient norm.
 */

/** 315 / (64 π h⁹): the poly6 normalisation. */
export function poly6Coefficient(h: number): number {
  return 315 / (64 * Math.PI * h ** 9);
}

/** 45 / (π h⁶): the magnitude factor of the spiky gradient. */
export function spikyGradientCoefficient(h: number): number {
  return 45 / (Math.PI * h ** 6);
}

/** W_poly6 at distance r (1/m³). */
export function poly6(r: number, h: number): number {
  if (!(r < h)) return 0;
  const q = h * h - r * r;
  return poly6Coefficient(h) * q * q * q;
}

/**
 * ∇W_spiky(r) for r = (rx, ry, rz) into out[0..2] (1/m⁴). At r = 0 the
 * direction is undefined and the gradient is 0.
 */
export function spikyGradient(rx: number, ry: number, rz: number, h: number, out: Float64Array): void {
  const r = Math.sqrt(rx * rx + ry * ry + rz * rz);
  if (!(r < h) || r === 0) {
    out[0] = out[1] = out[2] = 0;
    return;
  }
  const t = h - r;
  const g = (-spikyGradientCoefficient(h) * t * t) / r;
  out[0] = g * rx;
  out[1] = g * ry;
  out[2] = g * rz;
}

/** Sums over the points of a cubic lattice of spacing d around one of its points. */
export interface LatticeSums {
  /** Σ_j W_poly6(x_j) including the point itself (1/m³). */
  density: number;
  /** Σ_{j≠i} |∇W_spiky(x_j)|² (1/m⁸). */
  gradientSquared: number;
  /** Number of neighbours strictly inside the kernel radius (excluding the point itself). */
  neighbours: number;
}

/** The poly6 and spiky sums over an infinite cubic lattice of spacing d for kernel radius h. */
export function latticeSums(d: number, h: number): LatticeSums {
  const n = Math.ceil(h / d);
  const g = new Float64Array(3);
  let density = 0,
    gradientSquared = 0,
    neighbours = 0;
  for (let a = -n; a <= n; a++) {
    for (let b = -n; b <= n; b++) {
      for (let c = -n; c <= n; c++) {
        const x = a * d,
          y = b * d,
          z = c * d;
        const r = Math.sqrt(x * x + y * y + z * z);
        if (!(r < h)) continue;
        density += poly6(r, h);
        if (r > 0) {
          neighbours++;
          spikyGradient(x, y, z, h, g);
          gradientSquared += g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
        }
      }
    }
  }
  return { density, gradientSquared, neighbours };
}

/**
 * The density a wall adds to a particle at signed distance s from its
 * surface. The wall is modelled as the continuation of the fluid's rest lattice into the solid —
 * planes of particles (mass m, d² of area each) at depths d/2, 3d/2, … below
 * the surface, smeared out within each plane. A plane at normal distance z
 * adds (m/d²) ∫_plane W_poly6 dA = (m/d²) · (π K / 4) (h² − z²)⁴ with
 * K = 315/(64 π h⁹) (integrate 2π ∫_z^h K (h² − r²)³ r dr). The same planes
 * give the constraint gradient through the spiky kernel:
 * ∫_plane ∇W_spiky dA = −2π z W_spiky(z) along the normal, with
 * W_spiky = 15/(π h⁶)(h − r)³. This is the planar, closed form of the
 * boundary particles of Akinci et al. (2012) sampled at the fluid's spacing;
 * for a particle of the first layer (s = d/2) it completes the missing half of
 * the lattice sum to within 0.2 % (h = 2d).
 *
 * Writes the density term (without the factor m/d²) to out[0] and the gradient
 * magnitude (without m/(ρ0 d²); the gradient points into the wall) to out[1].
 */
export function wallLayers(s: number, d: number, h: number, out: Float64Array): void {
  const K = (Math.PI * poly6Coefficient(h)) / 4;
  const G = 30 / h ** 6;
  const h2 = h * h;
  let rho = 0,
    grad = 0;
  for (let z = s + 0.5 * d; z < h; z += d) {
    if (z <= -h) continue;
    const u = h2 - z * z;
    const u2 = u * u;
    rho += u2 * u2;
    const t = h - (z < 0 ? -z : z);
    grad += z * t * t * t;
  }
  out[0] = K * rho;
  out[1] = G * grad;
}
