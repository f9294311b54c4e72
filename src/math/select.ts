/**
 * Hoare's quickselect (Hoare 1961, "Algorithm 65: find"): the k-th smallest
 * value of a[lo..hi] in expected linear time, reordering a[lo..hi] in place
 * (every value left of k is ≤ a[k], every value right of it ≥). Used for a
 * spatial hash's cell size (a quantile of the item extents) and the
 * gallery's trimmed boxes (web/src/view/bounds.ts). No allocation.
 */
export function selectKth(a: Float64Array, lo: number, hi: number, k: number): number {
  while (hi > lo) {
    const pivot = a[(lo + hi) >> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        const t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return a[k];
}
