/**
 * The range a simulation can take of each physical quantity of a scene, in
 * one place: every number of a scene is checked (guard.ts, before the
 * schema) against the range of the quantity its field names — the field's
 * key, or for a number inside an array ([x, y, z], keyframes) the key of
 * the array. Past a range nothing pbdkit simulates stays finite or bounded:
 * a modulus of 1e15 Pa makes 1/(E h²) underflow against unit masses, a scale
 * of 1e200 overflows squared lengths, a body 10⁵ km away has a position
 * resolution coarser than its contacts and grids sized by the scene's extent
 * that cannot be allocated. The limits are generous (a scene of city-block
 * size, metals and rubbers, masses from a milligram to a thousand tonnes);
 * numbers of no listed key keep only the guard's magnitude bounds.
 */

/** A quantity: the magnitudes it may take (0 is always allowed where the schema allows it), and its unit. */
export interface Range {
  quantity: string;
  /** Smallest non-zero magnitude. */
  min: number;
  /** Largest magnitude. */
  max: number;
  unit: string;
}

const position: Range = { quantity: 'a position', min: 0, max: 1e4, unit: 'm' };
const length: Range = { quantity: 'a length', min: 1e-6, max: 1e3, unit: 'm' };
const modulus: Range = { quantity: 'an elastic modulus', min: 1e-3, max: 1e12, unit: 'Pa' };

/** The range of each field key (the keys of schema/scene.schema.json that hold physical quantities). */
export const sceneRanges: Readonly<Record<string, Range>> = Object.freeze({
  // positions and boxes in world space
  translate: position,
  position,
  center: position,
  target: position,
  origin: position,
  translations: position,
  min: position,
  max: position,
  // sizes
  radius: length,
  particleRadius: length,
  thickness: length,
  margin: length,
  spacing: length,
  size: length,
  halfExtents: length,
  halfHeight: length,
  width: length,
  height: length,
  cell: length,
  minCell: length,
  maxCell: length,
  scale: { quantity: 'a scale factor', min: 1e-4, max: 1e4, unit: '' },
  // materials
  youngsModulus: modulus,
  shearModulus: modulus,
  warpModulus: modulus,
  weftModulus: modulus,
  density: { quantity: 'a density', min: 1e-6, max: 1e6, unit: 'kg/m³ (kg/m² for sheets)' },
  linearDensity: { quantity: 'a linear density', min: 1e-9, max: 1e6, unit: 'kg/m' },
  mass: { quantity: 'a mass', min: 1e-6, max: 1e6, unit: 'kg' },
  // motion and time
  velocity: { quantity: 'a velocity', min: 0, max: 1e4, unit: 'm/s' },
  angularVelocity: { quantity: 'an angular velocity', min: 0, max: 1e4, unit: 'rad/s' },
  gravity: { quantity: 'an acceleration', min: 0, max: 1e4, unit: 'm/s²' },
  maxSpeed: { quantity: 'a speed limit', min: 1e-6, max: 1e5, unit: 'm/s' },
  dt: { quantity: 'a time step', min: 1e-6, max: 1, unit: 's' },
});

/** The range of a field key, or undefined when the key holds no checked quantity. */
export function rangeOf(key: string): Range | undefined {
  return Object.hasOwn(sceneRanges, key) ? sceneRanges[key] : undefined;
}

/** Whether v is within r: 0, or a magnitude from r.min to r.max. */
export function inRange(v: number, r: Range): boolean {
  const a = Math.abs(v);
  return a === 0 || (a >= r.min && a <= r.max);
}

/** "1e300 is out of range for an elastic modulus: magnitudes from 0.001 to 1e12 Pa, or 0". */
export function describeOutOfRange(v: number, r: Range): string {
  const from = r.min > 0 ? `magnitudes from ${r.min} to ${r.max}` : `magnitudes up to ${r.max}`;
  return `${v} is out of range for ${r.quantity}: ${from}${r.unit ? ` ${r.unit}` : ''}${r.min > 0 ? ', or 0' : ''}`;
}
