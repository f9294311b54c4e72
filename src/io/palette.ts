/**
 * The colours pbdkit draws with, shared by the gallery and the glTF bakes so
 * that a bake opened in a viewer looks like the scene in the gallery: bodies
 * take the palette in scene order (neighbouring hues far apart), fluids are
 * water blue, strands hair colours, colliders grey (moving ones darker), the ground off-white.
 */
export const bodyPalette = [0xd9774b, 0x4f8fcb, 0x6cae75, 0xc9a23f, 0x9b72c9, 0xd25f8c, 0x4fb3b0, 0x8c8c4f];
/** Hair, by body: dark brown, auburn, blond, black, mid brown. */
export const strandPalette = [0x4a2f1d, 0x8a3b1f, 0xb8913f, 0x1e1a18, 0x6b4a2e];
export const waterColor = 0x1f64b4;
export const colliderColor = 0xa9b1ba;
export const kinematicColliderColor = 0x7b8794;
export const groundColor = 0xf5f4f1;

/** The colour of body k (fluids: water; strands: hair). */
export function bodyColor(k: number, type: string): number {
  if (type === 'fluid') return waterColor;
  if (type === 'strands') return strandPalette[k % strandPalette.length];
  return bodyPalette[k % bodyPalette.length];
}

/** An sRGB hex colour as linear RGB in [0, 1] (what glTF's baseColorFactor holds). */
export function linearRgb(hex: number): [number, number, number] {
  const c = (v: number) => {
    const s = v / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return [c((hex >> 16) & 255), c((hex >> 8) & 255), c(hex & 255)];
}
