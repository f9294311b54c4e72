/**
 * "Did you mean …?" for names a user types (scene names, experiments): the
 * known names within a small edit distance of what was typed.
 */

/** Levenshtein distance between two strings (insertions, deletions, substitutions). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length];
}

/**
 * The known names closest to `input` (case-insensitive), best first: those
 * within a third of the input's length in edit distance (at least 2), or
 * that contain it or are contained in it, and of those only the nearest
 * (ties kept); at most `max`.
 */
export function closestNames(input: string, known: readonly string[], max = 3): string[] {
  const q = input.toLowerCase();
  const scored = known
    .map((name) => {
      const n = name.toLowerCase();
      const d = editDistance(q, n);
      const contained = q.length >= 3 && (n.includes(q) || q.includes(n));
      return { name, d: contained ? Math.min(d, 1.5) : d };
    })
    .filter((s) => s.d <= Math.max(2, Math.floor(q.length / 3)))
    .sort((a, b) => a.d - b.d || a.name.localeCompare(b.name));
  // only the best ones: a near miss should not be buried among distant ones
  const best = scored[0]?.d ?? 0;
  return scored
    .filter((s) => s.d <= best + 0.5)
    .slice(0, max)
    .map((s) => s.name);
}

/** " (did you mean a, b or c?)" text for a hint, or '' when nothing is close. */
export function didYouMean(input: string, known: readonly string[]): string {
  const names = closestNames(input, known);
  if (names.length === 0) return '';
  const list =
    names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
  return `did you mean ${list}?`;
}
