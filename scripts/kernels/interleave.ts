/**
 * Two (or more) groups of four constraints per iteration of a fused f32x4
 * kernel's loop, their statements interleaved (a definition's `export const
 * interleave = 2`; docs/performance.md, "Two groups per iteration (session
 * 13)").
 *
 * Why: one group's projection is a long chain of dependent operations (the
 * particles in, the edges, normals, lengths, the divisions, the angle, the
 * denominator, μ, the moves, the stores), so a loop that projects one group
 * after the other waits on that chain; with two groups' statements
 * interleaved the core has two independent chains in flight.
 *
 * The same bits: the groups of one call are of one colour, whose constraints
 * share no particle, so reading the second group's particles before the
 * first group's are written changes no value; each group's statements are
 * its own, in their own order. The definition's early exits (`if
 * (!v128.any_true(act)) continue;`, taken when no lane of the group is
 * active) are dropped but for the last one: the lane mask `act` only
 * narrows, and the stores write old ± the increment masked by it (λ by a
 * bitselect), so a lane a dropped exit would have skipped keeps its values.
 * At the last exit (after the denominator) the groups whose four lanes are
 * all inactive skip the rest: both active, the rest of both interleaved;
 * one active, its rest alone (a flat cloth's groups, whose denominator is
 * 0, skip the moves and stores as they did one at a time). Where every
 * lane of both groups is active (i32x4.all_true), the rest runs without
 * its masks: the stores' `and` with the mask and λ's bitselect are the
 * identity then (session 16: 0.93 of the masked kernel at 50 × 50, the
 * same bits). A trailing odd group runs the one-group loop.
 */

const EXIT = /^if \(!v128\.any_true\((\w+)\)\) continue;$/;

/** A statement of the kernel's rest with the lane mask `act` taken as all ones (see interleaveGroups). */
function unmask(line: string, act: string): string {
  return line
    .replace(new RegExp(`v128\\.and\\((\\w+), ${act}\\)`, 'g'), '$1')
    .replace(new RegExp(`v128\\.bitselect\\((\\w+), (\\w+), ${act}\\)`, 'g'), '$1');
}

/** The loop over groups pairFrom … pairTo − 1 of a fused kernel whose one-group loop body is `body`. */
export function interleaveGroups(body: string[], ways: number): string[] {
  if (body.some((l) => /\bnslow\b/.test(l)))
    throw new Error('interleave: a deferring kernel (nslow) is not supported');
  const names = new Set(['j']);
  for (const l of body) {
    const m = /^(?:const|let) (\w+)/.exec(l);
    if (m) names.add(m[1]);
  }
  // a local's name, not a member (f32x4.add) or part of a longer name
  const re = new RegExp(`(?<![.\\w])(${[...names].join('|')})(?!\\w)`, 'g');
  const groups = [...Array(ways).keys()];
  const ren = (l: string, g: number) => l.replace(re, (m) => `${m}_G${g}`);
  // the last exit, at the top level of the body
  let depth = 0,
    last = -1;
  body.forEach((l, i) => {
    if (depth === 0 && EXIT.test(l)) last = i;
    else if (/\bcontinue\b/.test(l) && !EXIT.test(l)) throw new Error(`interleave: unsupported exit ${l}`);
    depth += (l.match(/\{/g) ?? []).length - (l.match(/\}/g) ?? []).length;
  });
  const all = (from: number, to: number, pad: string): string[] => {
    const out: string[] = [];
    for (let i = from; i < to; i++) {
      if (EXIT.test(body[i])) continue;
      const gs = groups.map((g) => ren(body[i], g));
      // a line of no group (a brace, an else) once
      if (gs.every((x) => x === gs[0])) out.push(pad + gs[0]);
      else out.push(...gs.map((x) => pad + x));
    }
    return out;
  };
  const out = ['let j = pairFrom;', `for (; j + ${ways - 1} < pairTo; j += ${ways}) {`];
  for (const g of groups) out.push(`const j_G${g} = j + ${g};`);
  if (last < 0) out.push(...all(0, body.length, ''));
  else {
    const act = EXIT.exec(body[last])![1];
    out.push(...all(0, last, ''));
    // every lane of every group active (a folding cloth's common case): the rest without its masks
    // (old − (d and act) is old − d, bitselect(new, old, act) is new where act is all ones), the
    // same bits with an and per written coordinate and a bitselect fewer (session 16)
    if (body.some((l, i) => i > last && new RegExp(`^${act} =`).test(l)))
      throw new Error('interleave: the lane mask narrows after the last exit');
    const unmasked = body.map((l, i) => (i <= last ? l : unmask(l, act)));
    const masked = body;
    body = unmasked;
    out.push(`if (${groups.map((g) => `i32x4.all_true(${act}_G${g})`).join(' && ')}) {`);
    out.push(...all(last + 1, body.length, ''));
    out.push('} else');
    body = masked;
    out.push(`if (${groups.map((g) => `v128.any_true(${act}_G${g})`).join(' && ')}) {`);
    out.push(...all(last + 1, body.length, ''));
    out.push('} else {');
    for (const g of groups) {
      out.push(`if (v128.any_true(${act}_G${g})) {`);
      for (let i = last + 1; i < body.length; i++) if (!EXIT.test(body[i])) out.push(ren(body[i], g));
      out.push('}');
    }
    out.push('}');
  }
  out.push('}', 'for (; j < pairTo; j++) {', ...body, '}');
  return out;
}
