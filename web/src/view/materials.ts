/**
 * Materials and textures of the gallery's view: surfaces (one per side),
 * colliders, the ground's grid and the sky.
 */
import {
  CanvasTexture,
  Color,
  MeshPhysicalMaterial,
  MeshStandardMaterial,
  RepeatWrapping,
  type Side,
  SRGBColorSpace,
} from 'three';
import { colliderColor, groundColor, kinematicColliderColor } from '../../../src/io/palette.js';

/**
 * One side of a surface body: fabric-like (rough, with sheen) in the body's
 * colour. The back side's material is BackSide, for which three.js flips the
 * normal in the vertex shader (lighting and shadow normal offset alike).
 */
export function surfaceMaterial(color: Color, side: Side): MeshPhysicalMaterial {
  return new MeshPhysicalMaterial({
    color,
    roughness: 0.72,
    sheen: 0.4,
    sheenRoughness: 0.6,
    sheenColor: color.clone().lerp(new Color(0xffffff), 0.5),
    side,
  });
}

/** Largest distance of a mesh's vertices from its local origin. */
export function meshRadius(positions: Float32Array): number {
  let r2 = 0;
  for (let i = 0; i < positions.length; i += 3) {
    r2 = Math.max(r2, positions[i] ** 2 + positions[i + 1] ** 2 + positions[i + 2] ** 2);
  }
  return Math.sqrt(r2);
}

export function colliderMaterial(kinematic: boolean): MeshStandardMaterial {
  return new MeshStandardMaterial({
    color: kinematic ? kinematicColliderColor : colliderColor,
    roughness: 0.55,
    metalness: 0.05,
  });
}

/** A vertical gradient behind the scene: a soft blue-grey sky down to the fog colour at the horizon. */
export function skyTexture(): CanvasTexture {
  const canvas = document.createElement('canvas');
  canvas.width = 2;
  canvas.height = 256;
  const g = canvas.getContext('2d')!;
  const grad = g.createLinearGradient(0, 0, 0, 256);
  grad.addColorStop(0, '#b9c6d6');
  grad.addColorStop(0.6, '#dde3ea');
  grad.addColorStop(1, '#e6eaef');
  g.fillStyle = grad;
  g.fillRect(0, 0, 2, 256);
  const tex = new CanvasTexture(canvas);
  tex.colorSpace = SRGBColorSpace;
  return tex;
}

/** A light floor with a grid (one line a metre, or a tenth of one in small scenes). */
export function groundMaterial(sceneRadius: number): MeshStandardMaterial {
  const size = 128;
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = size;
  const g = canvas.getContext('2d')!;
  g.fillStyle = `#${groundColor.toString(16).padStart(6, '0')}`;
  g.fillRect(0, 0, size, size);
  g.strokeStyle = '#d6d9de';
  g.lineWidth = 2;
  g.strokeRect(0, 0, size, size);
  const tex = new CanvasTexture(canvas);
  tex.colorSpace = SRGBColorSpace;
  tex.wrapS = tex.wrapT = RepeatWrapping;
  // one tile per metre-ish, scaled with the scene so small scenes still show a grid
  const tile = 10 ** Math.round(Math.log10(Math.max(0.05, sceneRadius)) - 0.3);
  tex.repeat.set((60 * sceneRadius) / tile, (60 * sceneRadius) / tile);
  tex.anisotropy = 8;
  return new MeshStandardMaterial({ map: tex, roughness: 0.95 });
}
