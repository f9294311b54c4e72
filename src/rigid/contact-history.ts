/**
 * The contacts of the last step, kept so that a new contact between
 * polyhedra takes the material anchors of the old one it continues: static
 * friction then holds two bodies where they stuck across steps, not only
 * within one (RigidContacts). Old contacts are found by a hash of their body
 * pair (a chain per bucket, in the contacts' order) and matched by the
 * distance of their anchors on body 1. With them are kept their normals and
 * the relative pose of the pair when their manifold was built, so that a
 * pair that has hardly moved keeps its whole manifold (ContactStore.keep).
 */

/** A hash of a body pair (b may be negative: a collider). */
function pairHash(a: number, b: number): number {
  return Math.imul(a, 0x9e3779b1) ^ Math.imul(b + 0x10000, 0x85ebca6b);
}

/** The arrays of the contacts a history keeps (ContactStore's), exchanged with the history's at each save. */
export interface HistorySource {
  a: Int32Array<ArrayBuffer>;
  b: Int32Array<ArrayBuffer>;
  rA: Float64Array<ArrayBuffer>;
  rB: Float64Array<ArrayBuffer>;
  nL: Float64Array<ArrayBuffer>;
  nf: Int8Array<ArrayBuffer>;
  first: Int32Array<ArrayBuffer>;
  rel: Float64Array<ArrayBuffer>;
}

export class ContactHistory {
  private a = new Int32Array(0);
  private b = new Int32Array(0);
  private rA = new Float64Array(0);
  private rB = new Float64Array(0);
  /** The normal in its frame and which frame (NF_*), the manifold's first contact, the pair's relative pose at the build. */
  nL = new Float64Array(0);
  nf = new Int8Array(0);
  first = new Int32Array(0);
  rel = new Float64Array(0);
  private next = new Int32Array(0);
  private count = 0;
  private table = new Int32Array(0);
  private mask = 0;

  /**
   * Keeps the n contacts (pairs a, b; body-frame anchors rA, rB; normals nL
   * in the frames nf; first contacts of their manifolds; relative poses rel,
   * 7 each) as the old ones, by exchanging arrays with the store instead of
   * copying them: the store's arrays become the history's, and the
   * history's, as long as the store's, take the store's next contacts
   * (which overwrite them before reading them).
   */
  save(c: HistorySource, n: number): void {
    if (this.a.length !== c.a.length) {
      // the store grew (or this is the first step): arrays of the store's lengths
      this.a = new Int32Array(c.a.length);
      this.b = new Int32Array(c.b.length);
      this.rA = new Float64Array(c.rA.length);
      this.rB = new Float64Array(c.rB.length);
      this.nL = new Float64Array(c.nL.length);
      this.nf = new Int8Array(c.nf.length);
      this.first = new Int32Array(c.first.length);
      this.rel = new Float64Array(c.rel.length);
      this.next = new Int32Array(c.a.length);
    }
    // swap the arrays with the source's: this step's contacts become the history, and the
    // history's arrays are the store's to overwrite next
    [this.a, c.a] = [c.a, this.a];
    [this.b, c.b] = [c.b, this.b];
    [this.rA, c.rA] = [c.rA, this.rA];
    [this.rB, c.rB] = [c.rB, this.rB];
    [this.nL, c.nL] = [c.nL, this.nL];
    [this.nf, c.nf] = [c.nf, this.nf];
    [this.first, c.first] = [c.first, this.first];
    [this.rel, c.rel] = [c.rel, this.rel];
    let size = 16;
    while (size < 2 * n) size *= 2;
    if (this.table.length < size) this.table = new Int32Array(size);
    this.mask = size - 1;
    this.table.fill(-1, 0, size);
    for (let k = n - 1; k >= 0; k--) {
      const h = pairHash(this.a[k], this.b[k]) & this.mask;
      this.next[k] = this.table[h];
      this.table[h] = k;
    }
    this.count = n;
  }

  /**
   * The old contacts of pair (ia, ib) when they are one manifold: its first
   * contact (its others follow it), −1 if there is none; `end` ← one past
   * its last.
   */
  manifold(ia: number, ib: number): number {
    this.end = -1;
    if (this.count === 0) return -1;
    let s = -1;
    for (let o = this.table[pairHash(ia, ib) & this.mask]; o >= 0; o = this.next[o]) {
      if (this.a[o] !== ia || this.b[o] !== ib) continue;
      if (s < 0) s = o;
      else if (o !== this.end || this.first[o] !== s) return -1;
      this.end = o + 1;
    }
    return s < 0 || this.first[s] !== s ? -1 : s;
  }

  /** One past the last contact of the manifold the last `manifold` call found. */
  end = -1;

  /** The old contact o's anchors into rA[k3 …], rB[k3 …]. */
  anchors(o: number, rA: Float64Array, rB: Float64Array, k3: number): void {
    for (let d = 0; d < 3; d++) {
      rA[k3 + d] = this.rA[3 * o + d];
      rB[k3 + d] = this.rB[3 * o + d];
    }
  }

  /**
   * The new contact at rA[k3 …], rB[k3 …] of bodies ia, ib takes the anchors
   * of the old contact of the same pair whose anchor on body 1 lies nearest,
   * within `reach`.
   */
  match(ia: number, ib: number, rA: Float64Array, rB: Float64Array, k3: number, reach: number): void {
    if (this.count === 0) return;
    let best = -1,
      bestD = reach * reach;
    for (let o = this.table[pairHash(ia, ib) & this.mask]; o >= 0; o = this.next[o]) {
      if (this.a[o] !== ia || this.b[o] !== ib) continue;
      const d =
        (this.rA[3 * o] - rA[k3]) ** 2 +
        (this.rA[3 * o + 1] - rA[k3 + 1]) ** 2 +
        (this.rA[3 * o + 2] - rA[k3 + 2]) ** 2;
      if (d < bestD) {
        bestD = d;
        best = o;
      }
    }
    if (best < 0) return;
    for (let d = 0; d < 3; d++) {
      rA[k3 + d] = this.rA[3 * best + d];
      rB[k3 + d] = this.rB[3 * best + d];
    }
  }
}
