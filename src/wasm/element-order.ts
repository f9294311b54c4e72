/**
 * One job for a whole threaded sweep of an element set (src/wasm/element-threads.ts):
 * the blocks of the window's copy in, of every colour in the sweep's order
 * and of the copy out, in that serial order, each waiting only for the
 * earlier blocks that touch its particles, instead of one job per colour
 * with a barrier between colours.
 *
 * Why the bits are those of one thread: a block of the sweep reads and
 * writes only its own particles (a colour's constraints share none, 000
 * §3.8, so a block of groups is the serial loop over them; a copy block
 * moves its particles). For each particle, the blocks that touch it form a
 * chain in serial order, and each block here depends on the last earlier
 * block that touched each of its particles (`lastToucher`), so every
 * particle sees the blocks that touch it in the serial order, whatever
 * thread runs them and whenever the others run: the values each block
 * reads are those of the serial sweep. The blocks are claimed in serial
 * order, so a block's dependencies are all claimed before it and the
 * waiting ends (no cycle).
 *
 * The f32 blocks gather their particles into the colour's scratch at
 * their place in the colour (64 · arity bytes per quad from the block's
 * first quad less the colour's first), so two blocks of different colours
 * at the same place must not run at once either: with `scratch`, each
 * quad's place in its colour is one more thing a block touches, ordered
 * like a particle.
 *
 * The table is an Int32Array: [nb, op × nb, from × nb, to × nb, first × nb,
 * depStart × (nb + 1), deps…]; op LOAD (particles [from, to) of the window
 * in), COLOUR (groups [from, to), in the plan's numbering, of the colour
 * whose first group is `first`), SAVE (the particles out). A function of
 * the set's layout alone, never of the thread count.
 */

/** Ops of a fused block (element-threads.ts uses the same numbers). */
export const FUSED_LOAD = 0;
export const FUSED_COLOUR = 1;
export const FUSED_SAVE = 2;

/** Blocks of one job at most (src/parallel/protocol.ts MAX_BLOCKS). */
const MAX_BLOCKS = 255;

/**
 * The fused sweep's table (see the module's comment), or null when its
 * blocks would not fit in one job. `idx`: the window-relative particle
 * indices of the groups (vertex v of lane l of group j at
 * idx[L·arity·j + L·v + l]; `range` for a padding lane, which touches only
 * the window's spare slot and is not ordered); `colorPairs`: each colour's
 * first group; `range`: the window's particles.
 */
export function fusedSweepTable(
  idx: Int32Array,
  colorPairs: Int32Array | readonly number[],
  lanes: number,
  arity: number,
  range: number,
  reverse: boolean,
  particlesPerBlock: number,
  groupsPerBlock: number,
  scratch = false,
): Int32Array | null {
  const colours = colorPairs.length - 1;
  const copies = Math.ceil(range / particlesPerBlock);
  const groups = colorPairs[colours] - colorPairs[0];
  const room = MAX_BLOCKS - 2 * copies - colours;
  if (room <= 0 || colours <= 0) return null;
  // groups per block: as aimed at, larger where the blocks would not fit in one job
  const per = Math.max(groupsPerBlock, Math.ceil(groups / room));
  const op: number[] = [];
  const from: number[] = [];
  const to: number[] = [];
  const first: number[] = [];
  let largest = 0;
  for (let b = 0; b < copies; b++) {
    op.push(FUSED_LOAD);
    from.push(b * particlesPerBlock);
    to.push(Math.min(range, (b + 1) * particlesPerBlock));
    first.push(0);
  }
  for (let s = 0; s < colours; s++) {
    const c = reverse ? colours - 1 - s : s;
    largest = Math.max(largest, colorPairs[c + 1] - colorPairs[c]);
    for (let j = colorPairs[c]; j < colorPairs[c + 1]; j += per) {
      op.push(FUSED_COLOUR);
      from.push(j);
      to.push(Math.min(colorPairs[c + 1], j + per));
      first.push(colorPairs[c]);
    }
  }
  for (let b = 0; b < copies; b++) {
    op.push(FUSED_SAVE);
    from.push(b * particlesPerBlock);
    to.push(Math.min(range, (b + 1) * particlesPerBlock));
    first.push(0);
  }
  const nb = op.length;
  if (nb > MAX_BLOCKS) return null;
  // per particle the last block that touched it; per block its distinct dependencies
  // particles, then (scratch) the places of the colours' quads
  const things = range + (scratch ? largest : 0);
  const last = new Int32Array(things).fill(-1);
  const seen = new Int32Array(nb).fill(-1);
  const depStart = [0];
  const deps: number[] = [];
  const touch = (i: number, k: number): void => {
    if (i < 0 || i >= things) return;
    const d = last[i];
    if (d >= 0 && d !== k && seen[d] !== k) {
      seen[d] = k;
      deps.push(d);
    }
    last[i] = k;
  };
  const ga = lanes * arity;
  for (let k = 0; k < nb; k++) {
    if (op[k] === FUSED_COLOUR) {
      for (let t = ga * from[k]; t < ga * to[k]; t++) if (idx[t] < range) touch(idx[t], k);
      if (scratch) for (let j = from[k]; j < to[k]; j++) touch(range + j - first[k], k);
    } else {
      for (let i = from[k]; i < to[k]; i++) touch(i, k);
    }
    depStart.push(deps.length);
  }
  const table = new Int32Array(1 + 4 * nb + nb + 1 + deps.length);
  table[0] = nb;
  table.set(op, 1);
  table.set(from, 1 + nb);
  table.set(to, 1 + 2 * nb);
  table.set(first, 1 + 3 * nb);
  table.set(depStart, 1 + 4 * nb);
  table.set(deps, 2 + 5 * nb);
  return table;
}

/** The fused table's fields of block k (for the task kernel and the tests). */
export function fusedBlock(
  t: Int32Array,
  k: number,
): { op: number; from: number; to: number; first: number; deps: Int32Array } {
  const nb = t[0];
  const ds = 1 + 4 * nb;
  return {
    op: t[1 + k],
    from: t[1 + nb + k],
    to: t[1 + 2 * nb + k],
    first: t[1 + 3 * nb + k],
    deps: t.subarray(2 + 5 * nb + t[ds + k], 2 + 5 * nb + t[ds + k + 1]),
  };
}
