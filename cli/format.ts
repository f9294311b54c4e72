import { statSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';

/** 1.2 s, 340 ms, 2 min 5 s. */
export function formatSeconds(s: number): string {
  if (s < 1) return `${+(s * 1000).toPrecision(3)} ms`;
  if (s < 120) return `${+s.toPrecision(3)} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

/** 812 B, 3.4 kB, 12.1 MB. */
export function formatBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  if (n < 1e6) return `${(n / 1e3).toFixed(1)} kB`;
  return `${(n / 1e6).toFixed(1)} MB`;
}

/** Size of a file in bytes, or null for a folder or a missing file. */
export function fileSize(path: string): number | null {
  try {
    const st = statSync(path);
    return st.isFile() ? st.size : null;
  } catch {
    return null;
  }
}

/** Left-aligned columns separated by two spaces. */
export function table(rows: (string | number)[][], align: ('l' | 'r')[] = []): string {
  const widths: number[] = [];
  for (const r of rows)
    for (let k = 0; k < r.length; k++) widths[k] = Math.max(widths[k] ?? 0, String(r[k]).length);
  return rows
    .map((r) =>
      r
        .map((c, k) => {
          const s = String(c);
          if (k === r.length - 1 && align[k] !== 'r') return s;
          return align[k] === 'r' ? s.padStart(widths[k]) : s.padEnd(widths[k]);
        })
        .join('  ')
        .trimEnd(),
    )
    .map((l) => `${l}\n`)
    .join('');
}

/** A commander argument parser for a whole number ≥ min. */
export function wholeNumber(min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n < min) {
      throw new InvalidArgumentError(`expected a whole number ≥ ${min}, got "${value}".`);
    }
    return n;
  };
}
