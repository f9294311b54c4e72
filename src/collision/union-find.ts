/**
 * Union–find over small integer ids in an Int32Array (parent[v] = v at a
 * root), deterministic: the smaller root always becomes the root of a union.
 * Used by the fail-safe's impact zones and the untangling regions.
 */

/** Root of v, with path compression. */
export function findRoot(parent: Int32Array, v: number): number {
  let r = v;
  while (parent[r] !== r) r = parent[r];
  while (parent[v] !== r) {
    const next = parent[v];
    parent[v] = r;
    v = next;
  }
  return r;
}

/** Joins the sets of a and b (the smaller root becomes the root). */
export function unionRoots(parent: Int32Array, a: number, b: number): void {
  const ra = findRoot(parent, a),
    rb = findRoot(parent, b);
  if (ra === rb) return;
  if (ra < rb) parent[rb] = ra;
  else parent[ra] = rb;
}
