// The broad phase's budgets (surface-broad-phase.ts; moved here in session 24 to keep that file under 800 lines).

/**
 * Budgets of the broad phase, so that degenerate input (copies of a cloth on
 * top of each other, a patch collapsed to a point), where every triangle
 * overlaps every other, costs work proportional to the triangles rather
 * than to their square. A triangle takes part in at most
 * MAX_PAIRS_PER_TRIANGLE overlapping triangle pairs, a free point in at
 * most MAX_TRIANGLES_PER_POINT, and a full rebuild finds at most
 * PAIR_BUDGET pairs per triangle in all; past that budget the rebuild is
 * run again with DEGENERATE_PAIRS_PER_TRIANGLE per triangle. A vertex's
 * candidates come from its owner triangle's pairs and an edge's from its
 * owner's pairs (three edges each), so the vertex–triangle and edge–edge
 * candidates, the contacts and the fail-safe's scans are bounded by the
 * same budgets. What is over budget is skipped for that update (counted in
 * `stats.capped` and `stats.overBudget`, with a one-time notice); the
 * collapse recovery, the continuous tests of the pairs kept and the
 * impact zones keep the cloth in one piece. The shipped scenes stay below
 * every budget (most per triangle: 584, collision-projectile; most per
 * triangle in all: 47; 10 coincident copies of collision-barrel's cloth:
 * 397, up to 2,141 for one triangle).
 */
export const MAX_PAIRS_PER_TRIANGLE = 1024;
export const PAIR_BUDGET = 128;
export const DEGENERATE_PAIRS_PER_TRIANGLE = 32;
export const MAX_TRIANGLES_PER_POINT = 1024;

let budgetNoticed = false;

/** The one-time notice that triangles or points reached their pair budget (SurfaceBroadPhase's overBudget). */
export function budgetNotice(): void {
  if (budgetNoticed || typeof console === 'undefined') return;
  budgetNoticed = true;
  console.warn(
    `pbdkit: surface contacts: triangles met more than ${MAX_PAIRS_PER_TRIANGLE} others (or ${PAIR_BUDGET} each in all) in the broad phase: coincident or collapsed geometry (bodies started on top of each other?); the pairs beyond were skipped (stats.capped)`,
  );
}
