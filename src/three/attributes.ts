import type { BufferAttribute } from 'three';

/**
 * Marks the first `count` values of `a` (and only those) for upload to the
 * GPU at the next render: the adapters' per-frame update of positions,
 * normals, radii, instance matrices and colours, where the body may use less
 * of the attribute than it has room for.
 */
export function uploadFirst(a: BufferAttribute, count: number): void {
  a.clearUpdateRanges();
  a.addUpdateRange(0, count);
  a.needsUpdate = true;
}
