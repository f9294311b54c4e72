/**
 * Measurements of the picture, for the browser tests (through the page's
 * test hooks): which pixels the simulated bodies cover, how many colours
 * the picture has, and how smooth it is inside the bodies.
 */
import type { Stage } from './stage.js';

/**
 * Renders the current state twice, with and without the bodies, and counts
 * the pixels the bodies cover (and the distinct colours of the picture):
 * evidence that the simulated bodies are really drawn.
 */
export function measureBodyPixels(stage: Stage): {
  width: number;
  height: number;
  bodyPixels: number;
  colours: number;
} {
  const { shown, hidden, w, h } = renderWithAndWithoutBodies(stage);
  let bodyPixels = 0;
  const colours = new Set<number>();
  for (let k = 0; k < shown.length; k += 4) {
    const d =
      Math.abs(shown[k] - hidden[k]) +
      Math.abs(shown[k + 1] - hidden[k + 1]) +
      Math.abs(shown[k + 2] - hidden[k + 2]);
    if (d > 24) bodyPixels++;
    if (k % 64 === 0) colours.add(((shown[k] >> 3) << 10) | ((shown[k + 1] >> 3) << 5) | (shown[k + 2] >> 3));
  }
  return { width: w, height: h, bodyPixels, colours: colours.size };
}

/**
 * The bodies' pixels (where the picture differs from one without them) and
 * how rough the picture is inside them: the mean absolute Laplacian of the
 * luminance over pixels whose neighbours are body pixels too. Balls shade
 * each particle on its own (a highlight and a dark rim each); a surface is
 * smooth. With `surface`, fluids are drawn as a surface, else as balls.
 */
export function measureSurface(stage: Stage, surface: boolean): { bodyPixels: number; roughness: number } {
  const before = stage.overlays.fluidSurface;
  stage.overlays.fluidSurface = surface;
  const { shown, hidden, w, h } = renderWithAndWithoutBodies(stage);
  stage.overlays.fluidSurface = before;
  stage.render();
  const mask = new Uint8Array(w * h);
  const lum = new Float32Array(w * h);
  for (let i = 0, k = 0; i < w * h; i++, k += 4) {
    const d =
      Math.abs(shown[k] - hidden[k]) +
      Math.abs(shown[k + 1] - hidden[k + 1]) +
      Math.abs(shown[k + 2] - hidden[k + 2]);
    mask[i] = d > 24 ? 1 : 0;
    lum[i] = 0.2126 * shown[k] + 0.7152 * shown[k + 1] + 0.0722 * shown[k + 2];
  }
  let bodyPixels = 0;
  let sum = 0;
  let n = 0;
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      if (!mask[i]) continue;
      bodyPixels++;
      if (!(mask[i - 1] && mask[i + 1] && mask[i - w] && mask[i + w])) continue;
      sum += Math.abs(4 * lum[i] - lum[i - 1] - lum[i + 1] - lum[i - w] - lum[i + w]);
      n++;
    }
  }
  return { bodyPixels, roughness: n ? sum / n : 0 };
}

/** Renders the current state with and without the bodies and reads both pictures back. */
function renderWithAndWithoutBodies(stage: Stage): {
  shown: Uint8Array;
  hidden: Uint8Array;
  w: number;
  h: number;
} {
  const gl = stage.renderer.getContext();
  const w = gl.drawingBufferWidth;
  const h = gl.drawingBufferHeight;
  const read = () => {
    stage.render();
    const px = new Uint8Array(4 * w * h);
    gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
    return px;
  };
  const shown = read();
  const objects = stage.bodyObjects();
  const visible = objects.map((o) => o.visible);
  for (const o of objects) o.visible = false;
  const hidden = read();
  objects.forEach((o, k) => {
    o.visible = visible[k];
  });
  stage.render();
  return { shown, hidden, w, h };
}
