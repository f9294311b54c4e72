/**
 * The hot loops of position based fluids, as free functions over typed
 * arrays (each one small and monomorphic, so V8 optimises each on its own).
 * FluidDensity (density.ts) calls them; the formulas are those of Macklin &
 * Müller 2013 (PBF) and 000 §3.4.6, cited at each function.
 *
 * Conventions: particle i lives at store index i and fluid slot i − off;
 * fluid pairs are compressed rows over `sorted` (row a is particle
 * sorted[a], partners nbr[start[a] … start[a + 1] − 1], each unordered pair
 * once); w̃ = invMass · m_fluid is the inverse mass relative to a fluid
 * particle (1 for fluid particles, 0 for pinned ones).
 *
 * Per-slot accumulators live interleaved in one array `acc` of stride 5, so
 * that the scattered updates of a neighbour touch one cache line instead of
 * five (this made the density pass about twice as fast): during the density
 * passes acc[5s … 5s + 4] = (ρ, ∇C_x, ∇C_y, ∇C_z, Σ_k w̃_k |∇_{p_k} C|²); the
 * λ pass overwrites it with (λ, w̃, 0, 0, 0) and the correction passes
 * accumulate Δp in acc[5s + 2 … 5s + 4]. Nothing is stored per pair.
 */

/**
 * Pairs closer than MIN_DISTANCE · h are treated as that far apart along a
 * fixed axis (+x for fluid pairs, +y for fluid–solid pairs), so coincident
 * particles separate instead of having no gradient.
 */
export const MIN_DISTANCE = 1e-6;

/**
 * Fluid–fluid part of the density and its gradients (000 §3.4.6 eq. 4 and the
 * gradient after it; PBF eqs. 2, 8): for every pair, W_poly6 adds m W to ρ_i
 * and ρ_j; the spiky gradient (m/ρ0) ∇W(p_i − p_j) = g (p_i − p_j) adds to
 * ∇_{p_i} C_i and subtracts from ∇_{p_j} C_j, and |g (p_i − p_j)|² adds to the
 * other particle's Σ_k w̃_k |∇_{p_k} C|². Nothing is stored per pair: the
 * correction pass recomputes g, which measured faster than storing it
 * (the loops are bound by memory traffic, not arithmetic).
 */
export function fluidDensityPass(
  n: number,
  off: number,
  sorted: Int32Array,
  start: Int32Array,
  nbr: Int32Array,
  p: Float64Array,
  invMass: Float64Array,
  mF: number,
  h: number,
  wCoef: number,
  gCoef: number,
  acc: Float64Array,
): void {
  const h2 = h * h;
  const rMin = MIN_DISTANCE * h;
  for (let a = 0; a < n; a++) {
    const i = sorted[a];
    const si = i - off;
    const i3 = 3 * i;
    const px = p[i3],
      py = p[i3 + 1],
      pz = p[i3 + 2];
    const wi = invMass[i] * mF;
    let rhoI = 0,
      gxi = 0,
      gyi = 0,
      gzi = 0,
      ssI = 0;
    const e = start[a + 1];
    for (let k = start[a]; k < e; k++) {
      const j = nbr[k];
      const j3 = 3 * j;
      let dx = px - p[j3],
        dy = py - p[j3 + 1],
        dz = pz - p[j3 + 2];
      let r2 = dx * dx + dy * dy + dz * dz;
      if (r2 >= h2) continue;
      let r = Math.sqrt(r2);
      if (r < rMin) {
        dx = rMin;
        dy = 0;
        dz = 0;
        r = rMin;
        r2 = rMin * rMin;
      }
      const o = 5 * (j - off);
      const q = h2 - r2;
      const w = wCoef * q * q * q;
      const t = h - r;
      const g = (-gCoef * t * t) / r;
      const ax = g * dx,
        ay = g * dy,
        az = g * dz;
      const gg = g * g * r2;
      rhoI += w;
      gxi += ax;
      gyi += ay;
      gzi += az;
      ssI += invMass[j] * mF * gg;
      acc[o] += w;
      acc[o + 1] -= ax;
      acc[o + 2] -= ay;
      acc[o + 3] -= az;
      acc[o + 4] += wi * gg;
    }
    const o = 5 * si;
    acc[o] += rhoI;
    acc[o + 1] += gxi;
    acc[o + 2] += gyi;
    acc[o + 3] += gzi;
    acc[o + 4] += ssI;
  }
}

/**
 * Fluid–solid part of the density (Akinci et al. 2012 boundary particles in
 * PBF's constraint): solid b adds Ψ_b W_ib to ρ_i, (Ψ_b/ρ0) ∇W_ib to ∇_{p_i}
 * C_i, and w̃_b |(Ψ_b/ρ0) ∇W_ib|² to the denominator of λ_i. Rows are over
 * the solid particles.
 */
export function solidDensityPass(
  ns: number,
  solids: Int32Array,
  psi: Float64Array,
  start: Int32Array,
  nbr: Int32Array,
  off: number,
  p: Float64Array,
  invMass: Float64Array,
  mF: number,
  h: number,
  poly: number,
  spikyOverRho0: number,
  acc: Float64Array,
): void {
  const h2 = h * h;
  const rMin = MIN_DISTANCE * h;
  for (let q = 0; q < ns; q++) {
    const b = solids[q];
    const b3 = 3 * b;
    const bx = p[b3],
      by = p[b3 + 1],
      bz = p[b3 + 2];
    const psiB = psi[q];
    const e = start[q + 1];
    const wb = invMass[b] * mF;
    for (let k = start[q]; k < e; k++) {
      const i = nbr[k];
      const i3 = 3 * i;
      let dx = p[i3] - bx,
        dy = p[i3 + 1] - by,
        dz = p[i3 + 2] - bz;
      let r2 = dx * dx + dy * dy + dz * dz;
      if (r2 >= h2) continue;
      let r = Math.sqrt(r2);
      if (r < rMin) {
        dx = 0;
        dy = rMin;
        dz = 0;
        r = rMin;
        r2 = rMin * rMin;
      }
      const o = 5 * (i - off);
      const u = h2 - r2;
      acc[o] += psiB * poly * u * u * u;
      const t = h - r;
      const g = (-psiB * spikyOverRho0 * t * t) / r;
      acc[o + 1] += g * dx;
      acc[o + 2] += g * dy;
      acc[o + 3] += g * dz;
      acc[o + 4] += wb * g * g * r2;
    }
  }
}

/**
 * Wall part of the density: each collider seen as planes of rest-lattice
 * particles behind its surface (see wallLayers in kernels.ts), at the
 * tangent plane s(p) = n·p − c recorded for each (particle, collider). A
 * wall alone fills the fraction V_k of the particle's kernel, and its
 * spiky-gradient term has magnitude G_k (pointing into the wall).
 *
 * Where walls meet (a floor and a wall, a corner), the matter behind them
 * overlaps; counting each wall in full counts the overlap twice and
 * overcompresses the fluid in edges and corners. The walls are combined as
 * a union instead, V = 1 − Π_k (1 − V_k) (exact for perpendicular walls
 * and a kernel that factorises along the axes, as a Gaussian does), with
 * gradient Σ_k G_k Π_{l≠k} (1 − V_l); `wallP` (per slot) and `wallV` (per
 * record) are scratch. Stores the effective G per record for the correction.
 */
export function wallDensityPass(
  nw: number,
  slot: Int32Array,
  wn: Float64Array,
  wc: Float64Array,
  wg: Float64Array,
  wallV: Float64Array,
  wallP: Float64Array,
  off: number,
  p: Float64Array,
  d: number,
  h: number,
  wRho: number,
  wGrad: number,
  rho0: number,
  acc: Float64Array,
): void {
  const h2 = h * h;
  const halfD = 0.5 * d;
  const inv0 = 1 / rho0;
  for (let r = 0; r < nw; r++) wallP[slot[r]] = 1;
  for (let r = 0; r < nw; r++) {
    const s = slot[r];
    const i3 = 3 * (off + s);
    const sd = wn[3 * r] * p[i3] + wn[3 * r + 1] * p[i3 + 1] + wn[3 * r + 2] * p[i3 + 2] - wc[r];
    let dens = 0,
      grad = 0;
    for (let z = sd + halfD; z < h; z += d) {
      if (z <= -h) continue;
      const u = h2 - z * z;
      const u2 = u * u;
      dens += u2 * u2;
      const t = h - (z < 0 ? -z : z);
      grad += z * t * t * t;
    }
    let v = wRho * dens * inv0;
    if (v > 0.999999) v = 0.999999;
    wallV[r] = v;
    wg[r] = wGrad * grad;
    wallP[s] *= 1 - v;
  }
  for (let r = 0; r < nw; r++) {
    const s = slot[r];
    const o = 5 * s;
    const mark = wallP[s];
    // P ≥ 0 the first time the slot comes up; then stored as −1 − P to mark its density as added
    const P = mark >= 0 ? mark : -1 - mark;
    const G = (wg[r] * P) / (1 - wallV[r]);
    wg[r] = G;
    acc[o + 1] -= G * wn[3 * r];
    acc[o + 2] -= G * wn[3 * r + 1];
    acc[o + 3] -= G * wn[3 * r + 2];
    if (mark >= 0) {
      acc[o] += rho0 * (1 - P);
      wallP[s] = -1 - P;
    }
  }
}

/**
 * λ_i = −C_i / (Σ_k w̃_k |∇_{p_k} C_i|² + ε) (PBF eq. 11), with
 * C_i = ρ_i/ρ0 − 1 (eq. 1), clamped at 0 when unilateral. Copies ρ_i to
 * `rho` and leaves (λ_i, w̃_i, 0, 0, 0) in acc for the correction passes.
 */
export function lambdaPass(
  n: number,
  off: number,
  invMass: Float64Array,
  mF: number,
  invRho0: number,
  unilateral: boolean,
  eps: number,
  acc: Float64Array,
  rho: Float64Array,
): void {
  for (let s = 0; s < n; s++) {
    const o = 5 * s;
    const r = acc[o];
    rho[s] = r;
    let C = r * invRho0 - 1;
    if (unilateral && C < 0) C = 0;
    const wi = invMass[off + s] * mF;
    const gx = acc[o + 1],
      gy = acc[o + 2],
      gz = acc[o + 3];
    const denom = wi * (gx * gx + gy * gy + gz * gz) + acc[o + 4] + eps;
    acc[o] = denom > 0 ? -C / denom : 0;
    acc[o + 1] = wi;
    acc[o + 2] = 0;
    acc[o + 3] = 0;
    acc[o + 4] = 0;
  }
}

/**
 * The symmetric correction of PBF eq. 14 for the fluid pairs:
 * Δp_i += w̃_i (λ_i + λ_j + s_corr) (m/ρ0) ∇W(p_i − p_j), Δp_j −= w̃_j (…) (…),
 * accumulated in acc[5s + 2 … 5s + 4], with the artificial pressure
 * s_corr = corrScale · (W(p_i − p_j)/W(Δq))ⁿ (PBF eq. 13; invQd3 = 1/(h² − |Δq|²)³).
 * Positions are those of the density pass (Jacobi), so the same pairs and
 * gradients result.
 */
export function fluidCorrectionPass(
  n: number,
  off: number,
  sorted: Int32Array,
  start: Int32Array,
  nbr: Int32Array,
  p: Float64Array,
  h: number,
  gCoef: number,
  nCorr: number,
  invQd3: number,
  corrScale: number,
  acc: Float64Array,
): void {
  const h2 = h * h;
  const rMin = MIN_DISTANCE * h;
  const corr = corrScale !== 0;
  for (let a = 0; a < n; a++) {
    const i = sorted[a];
    const oi = 5 * (i - off);
    const i3 = 3 * i;
    const px = p[i3],
      py = p[i3 + 1],
      pz = p[i3 + 2];
    const li = acc[oi];
    let ax = 0,
      ay = 0,
      az = 0;
    const e = start[a + 1];
    for (let k = start[a]; k < e; k++) {
      const j = nbr[k];
      const j3 = 3 * j;
      let dx = px - p[j3],
        dy = py - p[j3 + 1],
        dz = pz - p[j3 + 2];
      let r2 = dx * dx + dy * dy + dz * dz;
      if (r2 >= h2) continue;
      let r = Math.sqrt(r2);
      if (r < rMin) {
        dx = rMin;
        dy = 0;
        dz = 0;
        r = rMin;
        r2 = rMin * rMin;
      }
      const t = h - r;
      const g = (-gCoef * t * t) / r;
      const o = 5 * (j - off);
      let lij = li + acc[o];
      if (corr) {
        const q = h2 - r2;
        const ratio = q * q * q * invQd3;
        let pw: number;
        if (nCorr === 4) {
          const r2c = ratio * ratio;
          pw = r2c * r2c;
        } else {
          pw = ratio ** nCorr;
        }
        lij += corrScale * pw;
      }
      const c = lij * g;
      const cx = c * dx,
        cy = c * dy,
        cz = c * dz;
      ax += cx;
      ay += cy;
      az += cz;
      const wj = acc[o + 1];
      acc[o + 2] -= wj * cx;
      acc[o + 3] -= wj * cy;
      acc[o + 4] -= wj * cz;
    }
    const wi = acc[oi + 1];
    acc[oi + 2] += wi * ax;
    acc[oi + 3] += wi * ay;
    acc[oi + 4] += wi * az;
  }
}

/**
 * The fluid–solid correction: Δp_i += w̃_i λ_i (Ψ_b/ρ0) ∇W_ib on the fluid
 * particle, and Δp_b = −w̃_b Σ_i λ_i (Ψ_b/ρ0) ∇W_ib on the solid one (into dps,
 * by row).
 */
export function solidCorrectionPass(
  ns: number,
  solids: Int32Array,
  psi: Float64Array,
  start: Int32Array,
  nbr: Int32Array,
  off: number,
  p: Float64Array,
  invMass: Float64Array,
  mF: number,
  h: number,
  spikyOverRho0: number,
  acc: Float64Array,
  dps: Float64Array,
): void {
  const h2 = h * h;
  const rMin = MIN_DISTANCE * h;
  for (let q = 0; q < ns; q++) {
    const b = solids[q];
    const b3 = 3 * b;
    const bx = p[b3],
      by = p[b3 + 1],
      bz = p[b3 + 2];
    const psiB = psi[q];
    let sx = 0,
      sy = 0,
      sz = 0;
    const e = start[q + 1];
    for (let k = start[q]; k < e; k++) {
      const i = nbr[k];
      const i3 = 3 * i;
      let dx = p[i3] - bx,
        dy = p[i3 + 1] - by,
        dz = p[i3 + 2] - bz;
      const r2 = dx * dx + dy * dy + dz * dz;
      if (r2 >= h2) continue;
      let r = Math.sqrt(r2);
      if (r < rMin) {
        dx = 0;
        dy = rMin;
        dz = 0;
        r = rMin;
      }
      const t = h - r;
      const g = (-psiB * spikyOverRho0 * t * t) / r;
      const o = 5 * (i - off);
      const c = acc[o] * g;
      const cx = c * dx,
        cy = c * dy,
        cz = c * dz;
      const wi = acc[o + 1];
      acc[o + 2] += wi * cx;
      acc[o + 3] += wi * cy;
      acc[o + 4] += wi * cz;
      sx += cx;
      sy += cy;
      sz += cz;
    }
    const wb = invMass[b] * mF;
    dps[3 * q] = -wb * sx;
    dps[3 * q + 1] = -wb * sy;
    dps[3 * q + 2] = -wb * sz;
  }
}

/** The wall correction: Δp_i += w̃_i λ_i (−G n). */
export function wallCorrectionPass(
  nw: number,
  slot: Int32Array,
  wn: Float64Array,
  wg: Float64Array,
  acc: Float64Array,
): void {
  for (let r = 0; r < nw; r++) {
    const o = 5 * slot[r];
    const c = -acc[o + 1] * acc[o] * wg[r];
    acc[o + 2] += c * wn[3 * r];
    acc[o + 3] += c * wn[3 * r + 1];
    acc[o + 4] += c * wn[3 * r + 2];
  }
}

/**
 * XSPH viscosity (PBF eq. 17) and the vorticity estimate (eq. 15) from the
 * same velocities, for the fluid pairs at positions x:
 *   Δv_i += c Σ_j (m/ρ0) v_ij W_ij (and −… on j), v_ij = v_j − v_i;
 *   ω_i = Σ_j (m/ρ0) v_ij × ∇_{p_j} W_ij, the same term adding to ω_j.
 * `cW` = c (m/ρ0) K_poly6 and `gCoef` = (m/ρ0) · 45/(π h⁶); vorticity is
 * skipped when `vort` is false.
 */
export function xsphVorticityPass(
  n: number,
  off: number,
  sorted: Int32Array,
  start: Int32Array,
  nbr: Int32Array,
  x: Float64Array,
  v: Float64Array,
  h: number,
  cW: number,
  gCoef: number,
  vort: boolean,
  dv: Float64Array,
  om: Float64Array,
): void {
  const h2 = h * h;
  for (let a = 0; a < n; a++) {
    const i = sorted[a];
    const si = i - off;
    const i3 = 3 * i;
    const px = x[i3],
      py = x[i3 + 1],
      pz = x[i3 + 2];
    const vx = v[i3],
      vy = v[i3 + 1],
      vz = v[i3 + 2];
    let ax = 0,
      ay = 0,
      az = 0,
      ox = 0,
      oy = 0,
      oz = 0;
    const e = start[a + 1];
    for (let k = start[a]; k < e; k++) {
      const j = nbr[k];
      const j3 = 3 * j;
      const dx = px - x[j3],
        dy = py - x[j3 + 1],
        dz = pz - x[j3 + 2];
      const r2 = dx * dx + dy * dy + dz * dz;
      if (r2 >= h2) continue;
      const sj = j - off;
      const ux = v[j3] - vx,
        uy = v[j3 + 1] - vy,
        uz = v[j3 + 2] - vz;
      const q = h2 - r2;
      const wv = cW * q * q * q;
      ax += wv * ux;
      ay += wv * uy;
      az += wv * uz;
      dv[3 * sj] -= wv * ux;
      dv[3 * sj + 1] -= wv * uy;
      dv[3 * sj + 2] -= wv * uz;
      if (vort && r2 > 0) {
        const r = Math.sqrt(r2);
        const t = h - r;
        // ∇_{p_j} W_ij = −∇W(p_i − p_j) = (45/(π h⁶)) (h − r)² (p_i − p_j)/r
        const g = (gCoef * t * t) / r;
        const gx = g * dx,
          gy = g * dy,
          gz = g * dz;
        const cx = uy * gz - uz * gy,
          cy = uz * gx - ux * gz,
          cz = ux * gy - uy * gx;
        ox += cx;
        oy += cy;
        oz += cz;
        om[3 * sj] += cx;
        om[3 * sj + 1] += cy;
        om[3 * sj + 2] += cz;
      }
    }
    dv[3 * si] += ax;
    dv[3 * si + 1] += ay;
    dv[3 * si + 2] += az;
    om[3 * si] += ox;
    om[3 * si + 1] += oy;
    om[3 * si + 2] += oz;
  }
}

/**
 * η_i = ∇|ω|_i (PBF eq. 16) as the SPH gradient of differences,
 * Σ_j (m/ρ0)(|ω_j| − |ω_i|) ∇W(p_i − p_j); the same term adds to η_j.
 */
export function vorticityGradientPass(
  n: number,
  off: number,
  sorted: Int32Array,
  start: Int32Array,
  nbr: Int32Array,
  x: Float64Array,
  h: number,
  gCoef: number,
  mag: Float64Array,
  eta: Float64Array,
): void {
  const h2 = h * h;
  for (let a = 0; a < n; a++) {
    const i = sorted[a];
    const si = i - off;
    const i3 = 3 * i;
    const px = x[i3],
      py = x[i3 + 1],
      pz = x[i3 + 2];
    const mi = mag[si];
    let ex = 0,
      ey = 0,
      ez = 0;
    const e = start[a + 1];
    for (let k = start[a]; k < e; k++) {
      const j = nbr[k];
      const j3 = 3 * j;
      const dx = px - x[j3],
        dy = py - x[j3 + 1],
        dz = pz - x[j3 + 2];
      const r2 = dx * dx + dy * dy + dz * dz;
      if (r2 >= h2 || r2 === 0) continue;
      const r = Math.sqrt(r2);
      const t = h - r;
      const sj = j - off;
      const f = ((mag[sj] - mi) * -gCoef * t * t) / r;
      ex += f * dx;
      ey += f * dy;
      ez += f * dz;
      eta[3 * sj] += f * dx;
      eta[3 * sj + 1] += f * dy;
      eta[3 * sj + 2] += f * dz;
    }
    eta[3 * si] += ex;
    eta[3 * si + 1] += ey;
    eta[3 * si + 2] += ez;
  }
}
