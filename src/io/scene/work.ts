/**
 * What one step of a scene will cost, estimated from its JSON before
 * anything is built (issue 21: a scene within the memory limits can still
 * take minutes per step — collision-barrel's cloth copied 1,000 times is
 * 1.36 M self-colliding particles). The estimate is in work units: one unit
 * is about one particle's or one constraint's projection in one iteration of
 * one substep. Per body, from the particles P and mesh elements E that its
 * estimator declared on the Budget (estimates.ts):
 *
 *   solver     S · I · (P + ELEMENT_WEIGHT · E)
 *   fluid      S · I · FLUID_WEIGHT · P          (neighbour pairs, PBF)
 *   contacts   S · CONTACT_WEIGHT · (P + E)      (bodies of a scene with a
 *                                                 `collision` section: self
 *                                                 and body–body contacts, CCD)
 *
 * with S substeps and I iterations per substep (world settings). The
 * weights and the time per unit were fitted to the shipped scenes' CPU time
 * per step (scripts/step-work.ts; numbers in the comments below), so the
 * estimate is an order of magnitude, not a timing: the default limit leaves
 * every shipped scene and benchmark case a wide margin and refuses scenes
 * whose steps would take many seconds. A bake that is meant to run
 * overnight raises it (`limits.maxStepWork`, `pbdkit --max-step-work`).
 */
import { PbdError } from '../../core/errors.js';
import { type Budget, limitFlag } from './limits.js';

/**
 * A mesh element (triangle, tet, segment) against a particle: a cloth
 * triangle brings 1.5 edges and 1.5 bending constraints, a tet one FEM
 * element or six edges and a volume. Fitted: see the file comment.
 */
export const ELEMENT_WEIGHT = 4;
/** A fluid particle's density and position passes over its ~30–40 neighbours, per iteration. */
export const FLUID_WEIGHT = 25;
/** Contacts of a surface body per substep per particle or element (broad phase, narrow phase, response). */
export const CONTACT_WEIGHT = 50;
/**
 * Measured CPU nanoseconds per work unit, one thread (scripts/step-work.ts
 * over the shipped scenes: median 9.7 ns, range 2–40 ns, on the project's
 * 2-core Xeon under load); used only to say in the error about how long a
 * step would take.
 */
export const NS_PER_UNIT = 20;

/**
 * The work per step from which the CLI's default (`defaultThreads`: all
 * cores, graded by threadsForWork) applies; a scene estimated below it runs on one thread unless it
 * or the caller says otherwise. About 10 ms per step at NS_PER_UNIT: below
 * that the pool's jobs and the workers' start cost more than they save
 * (bench/scaling.json: a 50 × 50 cloth at 1.7 ms per step is 0.77–0.88× as
 * fast on 2–16 threads; cloth-201 at 28 ms is 1.5× as fast on 2).
 */
export const THREADS_WORTH_WORK = 5e5;

/**
 * The work per step that keeps one more thread busy: above
 * THREADS_WORTH_WORK the default is two threads, and one more per
 * WORK_PER_THREAD, up to `defaultThreads` (the CLI: all cores). Measured on
 * a 16-core Xeon (session 18, the shipped scenes on 1, 2, 4, 8 and 16
 * threads, docs/solver.md "How many threads"): no scene under 2e6 units ran
 * faster on more than 4 threads, and most ran slower on 16 than on 4
 * (fluids-wave-pool, 1.93e6: ×2.68 on 4, ×1.61 on 16; fluids-dam-break,
 * 8.8e5: ×1.68 on 2, ×1.36 on 16; fluids-cloth-pour, 5.3e5: ×0.99 on 2,
 * ×0.78 on 16).
 */
export const WORK_PER_THREAD = 4e5;

/**
 * The thread count a scene of `work` units per step gets where neither the
 * scene nor the caller names one: 1 below THREADS_WORTH_WORK, else
 * max(2, ⌊work / WORK_PER_THREAD⌋), at most `available` (≥ 1).
 */
export function threadsForWork(work: number, available: number): number {
  const most = Math.max(1, Math.floor(available));
  if (!(work >= THREADS_WORTH_WORK)) return 1;
  return Math.min(most, Math.max(2, Math.floor(work / WORK_PER_THREAD)));
}

/** What a body does per step besides its particles' and elements' projections. */
export interface BodyWork {
  /** A fluid: its particles have neighbours. */
  fluid: boolean;
  /** Its particles and elements are in the collision system. */
  contacts: boolean;
}

/** The work of one body in units per step. */
export function bodyWork(
  particles: number,
  elements: number,
  substeps: number,
  iterations: number,
  kind: BodyWork,
): number {
  let w = substeps * iterations * (particles + ELEMENT_WEIGHT * elements);
  if (kind.fluid) w += substeps * iterations * FLUID_WEIGHT * particles;
  if (kind.contacts) w += substeps * CONTACT_WEIGHT * (particles + elements);
  return w;
}

const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : String(n));

/** Milliseconds, seconds, minutes or hours, rounded to 2 digits. */
function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return 'forever';
  if (seconds < 1) return `${(seconds * 1000).toPrecision(2)} ms`;
  if (seconds < 120) return `${seconds.toPrecision(2)} s`;
  if (seconds < 7200) return `${(seconds / 60).toPrecision(2)} min`;
  return `${(seconds / 3600).toPrecision(2)} h`;
}

/** One body's share of the estimate: where it is and what drives it. */
export interface WorkShare {
  /** The body's JSON path (`bodies[3]`). */
  body: string;
  /** The field of the body that asked for the most (`bodies[3].mesh.grid`). */
  field: string;
  work: number;
  particles: number;
  elements: number;
  kind: BodyWork;
}

/**
 * Checks a scene's estimated work per step against `limits.maxStepWork`.
 * Throws a PbdError at the field that drives it: the world's substeps or
 * iterations when they are what is unusual (more than 100 projections per
 * step), one body's largest field when that body is most of the work,
 * otherwise `bodies` (many bodies together).
 */
export function checkStepWork(
  shares: readonly WorkShare[],
  substeps: number,
  iterations: number,
  budget: Budget,
): void {
  const limit = budget.limits.maxStepWork;
  let total = 0;
  let top: WorkShare | undefined;
  for (const s of shares) {
    total += s.work;
    if (!top || !(s.work <= top.work)) top = s;
  }
  budget.work = total;
  if (total <= limit) return;
  let field: string;
  let what: string;
  const passes = substeps * iterations;
  if (passes > 100 && total * (10 / passes) <= limit) {
    field = iterations > substeps ? 'world.iterations' : 'world.substeps';
    what = `${substeps} substeps × ${iterations} iteration${iterations === 1 ? '' : 's'} per step`;
  } else if (top && top.work >= total / 2) {
    field = top.field;
    what = `${fmt(top.particles)} particles and ${fmt(top.elements)} elements at ${substeps} substeps × ${iterations} iteration${iterations === 1 ? '' : 's'}`;
  } else {
    field = 'bodies';
    let p = 0;
    let e = 0;
    for (const s of shares) {
      p += s.particles;
      e += s.elements;
    }
    what = `${fmt(shares.length)} bodies, ${fmt(p)} particles and ${fmt(e)} elements at ${substeps} substeps × ${iterations} iteration${iterations === 1 ? '' : 's'}`;
  }
  const key = 'maxStepWork';
  throw new PbdError(
    'scene/too-slow',
    field,
    `${what}: an estimated ${fmt(total)} work units per step (about ${duration((total * NS_PER_UNIT) / 1e9)} of CPU per step), more than the limit of ${fmt(limit)} (about ${duration((limit * NS_PER_UNIT) / 1e9)})`,
    `make it smaller or coarser, use fewer bodies or substeps, or raise limits.${key} (pbdkit ${limitFlag(key)} ${fmt(Math.ceil((total * 11) / 10)).replace(/,/g, '')}) for a bake that may take that long`,
  );
}
