/**
 * The two steps every shape-matching variant shares (survey 000 §4.1):
 * the centre of mass of a region, c = Σ m_i x_i / M with M = Σ m_i, and the
 * pull of a particle towards its goal. Region shape matching (the pull, for
 * its own bodies and the shape-matching cloth), the oriented particles'
 * groups (the rest centres and the pull) and the shape-matching cloth's
 * triangle regions (the centres) call these on their own arrays; both are
 * small enough for V8 to inline into the per-region and per-particle loops.
 * The oriented particles' projection keeps its current centre written out
 * (oriented.ts says why).
 */

/**
 * The centre c = Σ m_j x_j / M of the members members[from … to) of a region
 * (000 §4.1; m_j the fit weights, e.g. the modified masses m̃ of §4.2):
 * x_j at pos[o3 + 3 members[m] …], m_j at mass[members[m]]. Writes c into
 * out[oo …] and returns M = Σ m_j (both summed in member order).
 */
export function regionCentre(
  pos: Float64Array,
  o3: number,
  members: Int32Array,
  from: number,
  to: number,
  mass: Float64Array,
  out: Float64Array,
  oo: number,
): number {
  let M = 0,
    cx = 0,
    cy = 0,
    cz = 0;
  for (let m = from; m < to; m++) {
    const j = members[m];
    const v = o3 + 3 * j;
    const mm = mass[j];
    M += mm;
    cx += mm * pos[v];
    cy += mm * pos[v + 1];
    cz += mm * pos[v + 2];
  }
  out[oo] = cx / M;
  out[oo + 1] = cy / M;
  out[oo + 2] = cz / M;
  return M;
}

/**
 * The pull of the particle at p[i3 …] towards its goal g with the world's
 * rule (one kernel for PBD and XPBD, 000 §4.1 with the XPBD multiplier):
 * Δ = k′ (g − p − α̃ λ̂)/(1 + α̃) with scale = k′/(1 + α̃), then p += Δ and
 * λ̂ += Δ (λ̂ per unit mass at lam[l3 …]). Returns |Δ|².
 */
export function pullToGoal(
  p: Float64Array,
  i3: number,
  lam: Float64Array,
  l3: number,
  gx: number,
  gy: number,
  gz: number,
  scale: number,
  at: number,
): number {
  const dx = scale * (gx - p[i3] - at * lam[l3]);
  const dy = scale * (gy - p[i3 + 1] - at * lam[l3 + 1]);
  const dz = scale * (gz - p[i3 + 2] - at * lam[l3 + 2]);
  p[i3] += dx;
  p[i3 + 1] += dy;
  p[i3 + 2] += dz;
  lam[l3] += dx;
  lam[l3 + 1] += dy;
  lam[l3 + 2] += dz;
  return dx * dx + dy * dy + dz * dz;
}
