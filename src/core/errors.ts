/**
 * Every error pbdkit raises for bad input is a PbdError: it names where the
 * problem is (a file, a JSON path, an element index), what is wrong, and how
 * to fix it.
 */
export class PbdError extends Error {
  /** A stable machine-readable code, e.g. `mesh/non-manifold-edge`. */
  readonly code: string;
  /** Where: a file name, a JSON path like `bodies[0].mesh.grid.rows`, or an element like `triangle 17`. */
  readonly where: string;
  /** What is wrong, without the location. */
  readonly detail: string;
  /** What to do about it. */
  readonly hint: string;

  constructor(code: string, where: string, detail: string, hint = '') {
    super(`${where ? `${where}: ` : ''}${detail}${hint ? ` — ${hint}` : ''}`);
    this.name = 'PbdError';
    this.code = code;
    this.where = where;
    this.detail = detail;
    this.hint = hint;
  }

  /** The same error located inside `prefix` (e.g. the file that held the bad mesh). */
  within(prefix: string): PbdError {
    return new PbdError(this.code, this.where ? `${prefix}: ${this.where}` : prefix, this.detail, this.hint);
  }
}

/** Throws a PbdError (`code`, at `where`) unless `value` is an integer in [lo, hi]. */
export function requireIntegerIn(value: number, lo: number, hi: number, code: string, where: string): void {
  if (!(Number.isInteger(value) && value >= lo && value <= hi)) {
    throw new PbdError(code, where, `must be an integer in ${lo}…${hi}, got ${value}`);
  }
}

/** Throws a PbdError when a number is not finite. */
export function requireFinite(value: number, where: string): void {
  if (!Number.isFinite(value)) {
    throw new PbdError(
      'input/not-finite',
      where,
      `expected a finite number, got ${value}`,
      'replace it with a real number',
    );
  }
}

/**
 * Throws PbdError(code, where, "must be a finite number ≥ min, got value",
 * hint) unless `value` is a finite number ≥ min.
 */
export function requireAtLeast(value: number, min: number, code: string, where: string, hint = ''): void {
  if (!(value >= min) || !Number.isFinite(value)) {
    throw new PbdError(code, where, `must be a finite number ≥ ${min}, got ${value}`, hint);
  }
}

/**
 * Throws PbdError(code, where, "must be > 0 unit, got value", hint) unless
 * `value` is a finite number > 0 (a body's density, say).
 */
export function requirePositive(value: number, unit: string, code: string, where: string, hint = ''): void {
  requirePositiveAs(value, `> 0 ${unit}`, code, where, hint);
}

/**
 * A body's density option: `value`, or `fallback` where it is omitted, checked by requirePositive
 * with the code `${family}/density` at `${where}.density` (the cloth, the FEM cloth, the soft body,
 * the shape-matched cloth and the granular body: one default-and-check, one message).
 */
export function bodyDensity(
  value: number | undefined,
  fallback: number,
  unit: string,
  family: string,
  where: string,
  hint = '',
): number {
  const density = value ?? fallback;
  requirePositive(density, unit, `${family}/density`, `${where}.density`, hint);
  return density;
}

/**
 * requirePositive in other words: PbdError(code, where, "must be what, got value", hint) unless
 * `value` is a finite number > 0, `what` naming the quantity ('a positive length (m)').
 */
export function requirePositiveAs(value: number, what: string, code: string, where: string, hint = ''): void {
  if (!(value > 0) || !Number.isFinite(value)) {
    throw new PbdError(code, where, `must be ${what}, got ${value}`, hint);
  }
}

/** Throws PbdError(code, where, "has no particle i (it has count)") unless i is an index in 0 … count − 1. */
export function requireParticle(i: number, count: number, code: string, where: string): void {
  if (!(Number.isInteger(i) && i >= 0 && i < count)) {
    throw new PbdError(code, where, `has no particle ${i} (it has ${count})`);
  }
}
