/**
 * The SPH smoothing kernels of position based fluids (Macklin & Müller 2013,
 * §3, after Müller, Charypar & Gross 2003). The density constraint uses one
 * kernel for its value and its gradient, as 000 §3.4.6 writes it (ρ_i =
 * Σ_j m_j W(p_i − p_j, h), ∇C from "the gradient of SPH kernels" of that W):
 * the spiky kernel, whose gradient does not vanish as two particles close in.
 *
 *   W_spiky(r, h) = 15 / (π h⁶) · (h − |r|)³                   (|r| < h)
 *   ∇W_spiky(r, h) = −45 / (π h⁶) · (h − |r|)² · r / |r|      (|r| < h)
 *   W_poly6(r, h) = 315 / (64 π h⁹) · (h² − |r|²)³            (|r| < h)
 *
 * PBF pairs the poly6 density with the spiky gradient. Then ∇C is not the
 * gradient of C, and on a rest lattice one mode (wave vector π(1, 1, ½)/d)
 * has Jᵀ·G < 0: each correction along G makes that mode's density error
 * larger. We measured it as a fluid in a closed box that never came to rest
 * (12 J from 1e-4 m of jitter, 512 particles) and a free surface that boiled
 * without the artificial pressure (docs/fluids.md). With one kernel for both,
 * the Jacobi step is a (linearised) projection and the mode is gone. Poly6
 * stays for XSPH and for s_corr's kernel ratio (PBF eqs. 13, 17).
 *
 * The hot loops inline these formulas; the functions here are the readable
 * reference that the tests compare the loops with, plus the lattice sums
 * that turn a particle spacing into a particle mass and a rest gradient norm.
 */

/** 15 / (π h⁶): the spiky normalisation. */
export function spikyCoefficient(h: number): number {
  return 15 / (Math.PI * h ** 6);
}

/** W_spiky at distance r (1/m³): the density kernel. */
export function spiky(r: number, h: number): number {
  if (!(r < h)) return 0;
  const t = h - r;
  return spikyCoefficient(h) * t * t * t;
}

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
  /** Σ_j W_spiky(x_j) including the point itself (1/m³): the density kernel's sum. */
  density: number;
  /** Σ_{j≠i} |∇W_spiky(x_j)|² (1/m⁸). */
  gradientSquared: number;
  /** Number of neighbours strictly inside the kernel radius (excluding the point itself). */
  neighbours: number;
  /**
   * μ̂: the largest eigenvalue of D⁻¹ J Jᵀ for the density constraints of the
   * lattice (D = diag J Jᵀ), over the lattice's Fourier modes — how far one
   * Jacobi step overshoots its most responsive mode (see autoRelaxation).
   */
  jacobiRadius: number;
}

/** The spiky sums (density and gradient) over an infinite cubic lattice of spacing d for kernel radius h. */
export function latticeSums(d: number, h: number): LatticeSums {
  const n = Math.ceil(h / d);
  const g = new Float64Array(3);
  // the neighbours' offsets x_j and spiky gradients ∇W_j, six numbers each, in lattice order
  const nb = new Float64Array(6 * (2 * n + 1) ** 3);
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
        density += spiky(r, h);
        if (r > 0) {
          spikyGradient(x, y, z, h, g);
          gradientSquared += g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
          nb.set([x, y, z, g[0], g[1], g[2]], 6 * neighbours);
          neighbours++;
        }
      }
    }
  }
  // μ(k) = |Σ_j ∇W_j sin(k·x_j)|² / Σ_j |∇W_j|² for a displacement wave of wave vector k (the
  // density change of mode k is (J u)(k), the correction moves along Jᵀ); by the lattice's
  // symmetry 0 ≤ k_z ≤ k_y ≤ k_x ≤ π/d covers every mode
  const N = 24;
  let jacobiRadius = 0;
  for (let i = 0; i <= N; i++) {
    for (let j = 0; j <= i; j++) {
      for (let l = 0; l <= j; l++) {
        const kx = (Math.PI * i) / (N * d),
          ky = (Math.PI * j) / (N * d),
          kz = (Math.PI * l) / (N * d);
        let sx = 0,
          sy = 0,
          sz = 0;
        for (let o = 0; o < 6 * neighbours; o += 6) {
          const sn = Math.sin(kx * nb[o] + ky * nb[o + 1] + kz * nb[o + 2]);
          sx += nb[o + 3] * sn;
          sy += nb[o + 4] * sn;
          sz += nb[o + 5] * sn;
        }
        const mu = (sx * sx + sy * sy + sz * sz) / gradientSquared;
        if (mu > jacobiRadius) jacobiRadius = mu;
      }
    }
  }
  return { density, gradientSquared, neighbours, jacobiRadius };
}

/**
 * The relaxation ε (in units of S0) that keeps the Jacobi solve of the
 * density constraints from feeding energy into the fluid, for `iterations`
 * Jacobi steps per substep and a lattice whose most responsive mode has
 * D⁻¹ J Jᵀ eigenvalue μ̂ (`jacobiRadius`). With ε the mode's eigenvalue is
 * μ = μ̂ / (1 + ε/S0) and a substep multiplies the mode by p = (1 − μ)ⁿ; the
 * position update x' = P (2x − x_prev) lets it decay when 0 ≤ p < 1, but a
 * negative p (an overshooting step, μ > 1, repeated an odd number of times)
 * sets it ringing or growing: a column at rest at three substeps of one
 * iteration exploded, at three of three it kept 0.05 J of motion. So: for an
 * even n, μ ≤ 1.9 (every mode decays, the highest by 0.9ⁿ per substep); for
 * an odd n, μ ≤ 1 (no step overshoots). With h = 2d (μ̂ = 2.82): 0.48 S0 at
 * two or four iterations, 1.82 S0 at an odd count. Never below 0.1 S0, which
 * also keeps λ finite for a particle without neighbours.
 */
export function autoRelaxation(jacobiRadius: number, iterations: number): number {
  const n = Math.max(1, Math.round(iterations));
  const muMax = n % 2 === 0 ? 1.9 : 1;
  return Math.max(0.1, jacobiRadius / muMax - 1);
}

/**
 * The density a wall adds to a particle at signed distance s from its
 * surface. The wall is modelled as the continuation of the fluid's rest lattice into the solid —
 * planes of particles (mass m, d² of area each) at depths d/2, 3d/2, … below
 * the surface, smeared out within each plane. A plane at normal distance z
 * adds (m/d²) ∫_plane W_spiky dA = (m/d²) · (30/h⁶) (h t⁴/4 − t⁵/5) with
 * t = h − |z| (integrate 2π ∫_|z|^h W_spiky(r) r dr), and its derivative
 * along the normal is the constraint gradient,
 * ∫_plane ∇W_spiky dA = −2π z W_spiky(z) = −(30/h⁶) z t³ (the density and
 * its gradient come from one kernel, as for particles). This is the planar,
 * closed form of the boundary particles of Akinci et al. (2012) sampled at
 * the fluid's spacing.
 *
 * Writes the density term (without the factor m/d²) to out[0] and the gradient
 * magnitude (without m/(ρ0 d²); the gradient points into the wall) to out[1].
 */
export function wallLayers(s: number, d: number, h: number, out: Float64Array): void {
  const G = 30 / h ** 6;
  let rho = 0,
    grad = 0;
  for (let z = s + 0.5 * d; z < h; z += d) {
    if (z <= -h) continue;
    const t = h - (z < 0 ? -z : z);
    const t3 = t * t * t;
    rho += t3 * t * (0.25 * h - 0.2 * t);
    grad += z * t3;
  }
  out[0] = G * rho;
  out[1] = G * grad;
}
