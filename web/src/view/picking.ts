/**
 * Finding the particle under the mouse when the ray misses every surface:
 * the nearest movable particle of a body to a point, or the particle drawn
 * nearest to the cursor within a few pixels.
 */
import type { Vector3 } from 'three';
import type { Stage } from './stage.js';

/** The movable particle of [offset, offset + count) nearest to `p`, or −1. */
export function nearestParticle(stage: Stage, offset: number, count: number, p: Vector3): number {
  const { x, invMass } = stage.store!;
  let best = -1;
  let bestD = Infinity;
  for (let i = offset; i < offset + count; i++) {
    if (!(invMass[i] > 0)) continue;
    const d = (x[3 * i] - p.x) ** 2 + (x[3 * i + 1] - p.y) ** 2 + (x[3 * i + 2] - p.z) ** 2;
    if (d < bestD) {
      bestD = d;
      best = i;
    }
  }
  return best;
}

/**
 * The movable particle drawn nearest to the cursor within `radius` pixels
 * (the nearest to the camera among ties), for presses just off a surface's
 * edge or on a thin body.
 */
export function pickNear(stage: Stage, clientX: number, clientY: number, radius: number): number {
  const store = stage.store;
  if (!store) return -1;
  const rect = stage.renderer.domElement.getBoundingClientRect();
  const cam = stage.camera;
  cam.updateMatrixWorld();
  const m = cam.projectionMatrix.clone().multiply(cam.matrixWorldInverse).elements;
  const { x, invMass } = store;
  let best = -1;
  let bestScore = Infinity;
  for (const b of stage.bodies) {
    const { offset, activeCount } = b.mirror;
    for (let i = offset; i < offset + activeCount; i++) {
      if (!(invMass[i] > 0)) continue;
      const px = x[3 * i],
        py = x[3 * i + 1],
        pz = x[3 * i + 2];
      const w = m[3] * px + m[7] * py + m[11] * pz + m[15];
      if (!(w > 0)) continue;
      const sx = rect.left + (((m[0] * px + m[4] * py + m[8] * pz + m[12]) / w + 1) / 2) * rect.width;
      const sy = rect.top + ((1 - (m[1] * px + m[5] * py + m[9] * pz + m[13]) / w) / 2) * rect.height;
      const d = Math.hypot(sx - clientX, sy - clientY);
      if (d > radius) continue;
      const score = d + 1e-3 * w; // nearest on screen, then nearest to the camera
      if (score < bestScore) {
        bestScore = score;
        best = i;
      }
    }
  }
  return best;
}
