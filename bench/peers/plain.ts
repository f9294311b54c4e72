/**
 * A cloth as the Ten Minute Physics tutorial on cloth describes it (Müller,
 * "14 – cloth simulation"), written here from that description as a web
 * developer would write it in plain JavaScript: Float32Array positions,
 * previous positions, velocities and inverse masses; per substep the
 * prediction, one Gauss–Seidel pass over the stretch edges and one over the
 * bending pairs (a distance constraint between the two vertices opposite
 * each interior edge), then v = (x − x_prev)/h. XPBD without kept
 * multipliers (one pass per substep): Δλ = −C / (w1 + w2 + α/h²).
 * Constraints in the order of the scene's lists, no colouring, no guards.
 */
import { edgeStretch, type FallingCloth, FRAME_DT, GRAVITY } from './cloth-scene.js';
import type { PeerInstance } from './peer.js';

export function plainCloth(
  scene: FallingCloth,
  substeps: number,
  bendCompliance: number | false,
): PeerInstance {
  const nv = scene.invMass.length;
  const pos = new Float32Array(scene.positions);
  const prev = new Float32Array(3 * nv);
  const vel = new Float32Array(3 * nv);
  const invMass = new Float32Array(scene.invMass);
  const ne = scene.rest.length;
  const edgeIds = new Int32Array(scene.edges);
  const edgeRest = new Float32Array(scene.rest);
  const nb = bendCompliance === false ? 0 : scene.quads.length / 4;
  const bendIds = new Int32Array(2 * nb);
  const bendRest = new Float32Array(nb);
  for (let k = 0; k < nb; k++) {
    const c = scene.quads[4 * k + 2],
      d = scene.quads[4 * k + 3];
    bendIds[2 * k] = c;
    bendIds[2 * k + 1] = d;
    const dx = pos[3 * c] - pos[3 * d],
      dy = pos[3 * c + 1] - pos[3 * d + 1],
      dz = pos[3 * c + 2] - pos[3 * d + 2];
    bendRest[k] = Math.sqrt(dx * dx + dy * dy + dz * dz);
  }
  const h = FRAME_DT / substeps;
  const stretchAlpha = 0; // edge compliance 0, as in the other engines
  const bendAlpha = (bendCompliance === false ? 0 : bendCompliance) / (h * h);

  function solveDistances(ids: Int32Array, rest: Float32Array, count: number, alpha: number): void {
    for (let k = 0; k < count; k++) {
      const a = ids[2 * k],
        b = ids[2 * k + 1];
      const w = invMass[a] + invMass[b];
      if (w === 0) continue;
      const a3 = 3 * a,
        b3 = 3 * b;
      let dx = pos[a3] - pos[b3],
        dy = pos[a3 + 1] - pos[b3 + 1],
        dz = pos[a3 + 2] - pos[b3 + 2];
      const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
      if (len === 0) continue;
      dx /= len;
      dy /= len;
      dz /= len;
      const s = -(len - rest[k]) / (w + alpha);
      const sa = s * invMass[a],
        sb = -s * invMass[b];
      pos[a3] += dx * sa;
      pos[a3 + 1] += dy * sa;
      pos[a3 + 2] += dz * sa;
      pos[b3] += dx * sb;
      pos[b3 + 1] += dy * sb;
      pos[b3 + 2] += dz * sb;
    }
  }

  function substep(): void {
    for (let i = 0; i < nv; i++) {
      if (invMass[i] === 0) continue;
      const i3 = 3 * i;
      vel[i3 + 1] += GRAVITY * h;
      prev[i3] = pos[i3];
      prev[i3 + 1] = pos[i3 + 1];
      prev[i3 + 2] = pos[i3 + 2];
      pos[i3] += vel[i3] * h;
      pos[i3 + 1] += vel[i3 + 1] * h;
      pos[i3 + 2] += vel[i3 + 2] * h;
    }
    solveDistances(edgeIds, edgeRest, ne, stretchAlpha);
    solveDistances(bendIds, bendRest, nb, bendAlpha);
    for (let i = 0; i < nv; i++) {
      if (invMass[i] === 0) continue;
      const i3 = 3 * i;
      vel[i3] = (pos[i3] - prev[i3]) / h;
      vel[i3 + 1] = (pos[i3 + 1] - prev[i3 + 1]) / h;
      vel[i3 + 2] = (pos[i3 + 2] - prev[i3 + 2]) / h;
    }
  }

  return {
    step() {
      for (let s = 0; s < substeps; s++) substep();
    },
    positions: () => pos,
    quality: () => edgeStretch(pos, scene.edges, scene.rest),
  };
}
