/**
 * The BVH self traversal of the collision broad phase (a simultaneous descent of the tree against
 * itself), written once and emitted twice (issue 14):
 *
 * - TypeScript into src/collision/bvh-self-traversal.generated.ts: pushChildPairs and
 *   selfPairsOfNodes (without budgets, its stack grown as needed), which
 *   src/collision/bvh-self-pairs.ts calls for the parts of the pooled traversal and re-exports;
 * - AssemblyScript into wasm/bvh-self-traversal.generated.ts: pushChildPairs and selfTraversal
 *   (@inline, with `bounded` a constant at each call: the budgets of selfPairsBounded, an item in
 *   at most perItem pairs, no descent into a subtree with no open item, a stop at maxPairs; a stack
 *   too small answers −2), which wasm/surfaces.ts calls from selfPairsOfNodes and selfPairsBounded
 *   over the address table's tree (nBox, nCount, nRight, nStart, nItems).
 *
 * The same comparisons, the same sums of box extents and the same pops and pushes in the same
 * order, hence the same item pairs in the same order (test/surface-broad-wasm). The module compares
 * the x and y of two boxes in one f64x2 test (apartV), the JavaScript all six in boxesOverlap: the
 * same comparisons (a NaN bound compares false in both: not apart). The TypeScript file also gets
 * selfPairsBoundedWalk, the walk of src/collision/bvh.ts Bvh.selfPairsBounded (its budgets, the
 * marks, its growing pair list and stack, the children pushed where it pops them): until session
 * 21 a third copy of the walk, written by hand (docs/architecture.md, "Duplicates: session 19
 * (gen26t)", "session 21 (dupF)").
 */

/** What differs in the traversal: its head and reads, the stack's overflow, the box tests, the budgets. */
interface Walk {
  /** pushChildPairs' head, its first statements (the box array's name), its reads of the right children and the node boxes. */
  kidsHead: string;
  kidsPre: string;
  right: (i: string) => string;
  box: (i: string) => string;
  /** selfPairsOfNodes' or selfTraversal's head. */
  head: string;
  /** Statements first (the arrays into locals). */
  pre: string;
  /** i32 reads of the stack, the node counts, starts and items; the stack's write. */
  st: (i: string) => string;
  count: (i: string) => string;
  start: (i: string) => string;
  item: (i: string) => string;
  push: (v: string) => string;
  eq: string;
  ne: string;
  /** Statement: the stack has fewer than 6 free entries. */
  full: string;
  /** Are the boxes of nodes a and b apart? */
  nodesApart: string;
  /** Statements after item i is read (its box at oi), and: is item j's box apart from it? */
  item0: string;
  itemsApart: string;
  /** The pair (i, j) is written: out[2n], out[2n + 1]. */
  out: (o: string, v: string) => string;
  /** The children pushed at sp >> 1: the call. */
  kids: string;
  /** The node pair the walk starts from. */
  from: [string, string];
  /**
   * The budgets' statements (none without): a popped pair skipped (no open item, no mark), the
   * leaf loop left at item i's budget, item j skipped (its budget, no mark), the counts after a
   * pair (items that reach their budget, the stop at maxPairs).
   */
  budgets?: { skip: string; itemI: string; itemJ: string; counted: string };
  /** Statement: room for one more pair in out (or the answer that there is none). */
  room: string;
  /** The children pushed where the traversal pops them (written out) rather than by a call. */
  kidsInline?: boolean;
}

/** The TypeScript walks' reads of the tree's node arrays into locals (N: the tree). */
const TS_NODES = `  const B = N.box,
    count = N.count,
    items = N.items,
    start = N.start`;

const TS_WALK: Walk = {
  kidsHead: `export function pushChildPairs(
  B: Float64Array,
  count: Int32Array,
  right: Int32Array,
  a: number,
  b: number,
  out: Int32Array,
  o: number,
): number`,
  kidsPre: '',
  right: (i) => `right[${i}]`,
  box: (i) => `B[${i}]`,
  head: `export function selfPairsOfNodes(
  N: BvhNodes,
  boxes: Float64Array,
  a0: number,
  b0: number,
  out: Int32Array,
  n: number,
  cap: number,
): number`,
  pre: `${TS_NODES};
  let st = stack;
`,
  st: (i) => `st[${i}]`,
  count: (i) => `count[${i}]`,
  start: (i) => `start[${i}]`,
  item: (i) => `items[${i}]`,
  push: (v) => `st[sp++] = ${v};`,
  eq: '===',
  ne: '!==',
  full: 'if (sp + 6 > st.length) stack = st = grownArray(st, 2 * st.length);',
  nodesApart: '!boxesOverlap(B, 6 * a, B, 6 * b)',
  item0: '',
  itemsApart: '!boxesOverlap(boxes, oi, boxes, 6 * j)',
  out: (o, v) => `out[${o}] = ${v};`,
  kids: 'pushChildPairs(B, count, N.right, a, b, st, sp >> 1)',
  from: ['a0', 'b0'],
  room: 'if (n === cap) return -1;',
};

/**
 * Bvh.selfPairsBounded's walk (src/collision/bvh.ts): the budgets always on, the marks (a popped
 * pair of two subtrees without a marked item is skipped, and an item pair without one), the pairs
 * in the tree's growing list, its stack grown, and the children written out (pushChildPairs' call
 * cost this loop 2–4 %).
 */
const TS_BOUNDED: Walk = {
  ...TS_WALK,
  head: `export function selfPairsBoundedWalk(
  N: BoundedTree,
  boxes: Float64Array,
  perItem: number,
  maxPairs: number,
  marked: Uint8Array | null,
  mk: Uint8Array | null,
  ip: Int32Array,
  open: Int32Array,
): number`,
  pre: `${TS_NODES},
    right = N.right;
  let st = N.pairStack,
    out = N.pairs,
    n = 0;
`,
  full: 'if (sp + 6 > st.length) N.pairStack = st = grownArray(st, 2 * st.length);',
  from: ['0', '0'],
  budgets: {
    skip: 'if (open[a] === 0 || open[b] === 0 || (mk !== null && mk[a] === 0 && mk[b] === 0)) continue;',
    itemI: 'if (ip[i] >= perItem) break;',
    itemJ: 'if (ip[j] >= perItem || (marked !== null && marked[i] === 0 && marked[j] === 0)) continue;',
    counted: `if (++ip[i] === perItem) saturate(N, i, open);
          if (++ip[j] === perItem) saturate(N, j, open);
          if (maxPairs > 0 && n >= maxPairs) {
            N.truncated = true;
            return n;
          }`,
  },
  room: 'if (2 * n + 2 > out.length) N.pairs = out = grownArray(out, 2 * out.length);',
  kidsInline: true,
};

const AS_WALK: Walk = {
  kidsHead: '@inline export function pushChildPairs(a: i32, b: i32, out: usize, o: i32): i32',
  kidsPre: '  const B = nBox;\n',
  right: (i) => `I(nRight, ${i})`,
  box: (i) => `F(B, ${i})`,
  head: `@inline export function selfTraversal(
  bounded: bool,
  a0: i32,
  b0: i32,
  out: usize,
  n: i32,
  cap: i32,
  st: usize,
  stCap: i32,
  perItem: i32,
  maxPairs: i32,
  ip: usize,
  open: usize,
): i32`,
  pre: '',
  st: (i) => `I(st, ${i})`,
  count: (i) => `I(nCount, ${i})`,
  start: (i) => `I(nStart, ${i})`,
  item: (i) => `I(nItems, ${i})`,
  push: (v) => `put(st, sp++, ${v});`,
  eq: '==',
  ne: '!=',
  full: 'if (sp + 6 > stCap) return -2;',
  nodesApart:
    'apartV(V(nBox, 6 * a), V(nBox, 6 * a + 3), F(nBox, 6 * a + 2), F(nBox, 6 * a + 5), nBox, 6 * b)',
  item0: `
        const lo = V(tBox, oi),
          hi = V(tBox, oi + 3),
          zl = F(tBox, oi + 2),
          zh = F(tBox, oi + 5);`,
  itemsApart: 'apartV(lo, hi, zl, zh, tBox, 6 * j)',
  out: (o, v) => `put(out, ${o}, ${v});`,
  kids: 'pushChildPairs(a, b, st, sp >> 1)',
  from: ['a0', 'b0'],
  budgets: {
    skip: 'if (bounded && (I(open, a) == 0 || I(open, b) == 0)) continue;',
    itemI: 'if (bounded && I(ip, i) >= perItem) break;',
    itemJ: 'if (bounded && I(ip, j) >= perItem) continue;',
    counted: `if (bounded) {
            const pi = I(ip, i) + 1;
            put(ip, i, pi);
            if (pi == perItem) saturate(i, open);
            const pj = I(ip, j) + 1;
            put(ip, j, pj);
            if (pj == perItem) saturate(j, open);
            if (maxPairs > 0 && n >= maxPairs) {
              truncatedN = 1;
              return n;
            }
          }`,
  },
  room: 'if (n == cap) return -1;',
};

/**
 * The child pairs of node pair (a, b), in the order they are pushed: a node against itself, its two
 * children against themselves and each other (r = its right child); two different nodes, node a
 * split against b, or b split against a.
 */
const SELF_KIDS = ['a + 1', 'a + 1', 'r', 'r', 'a + 1', 'r'];
const splitA = (D: Walk): string[] => ['a + 1', 'b', D.right('a'), 'b'];
const splitB = (D: Walk): string[] => ['a', 'b + 1', 'a', D.right('b')];

/** Is a split rather than b: b a leaf, or a inner and the larger by the sum of its box's extents. */
function splitsA(D: Walk, pad: string): string {
  const ext = (n: string) =>
    [0, 1, 2]
      .map((k) => `${D.box(`6 * ${n} + ${k + 3}`)} - ${D.box(k ? `6 * ${n} + ${k}` : `6 * ${n}`)}`)
      .join(' + ');
  return `cb > 0 ||
${pad}  (ca ${D.eq} 0 &&
${pad}    ${ext('a')} >=
${pad}      ${ext('b')})`;
}

/** The children pushed onto the traversal's stack where it pops them (TS_BOUNDED's kidsInline). */
function kidsInline(D: Walk): string {
  const push = (vs: string[]) => vs.map((v) => `      ${D.push(v)}`).join('\n');
  return `    if (a ${D.eq} b) {
      const r = ${D.right('a')};
${push(SELF_KIDS)}
    } else if (
      ${splitsA(D, '      ')}
    ) {
${push(splitA(D))}
    } else {
${push(splitB(D))}
    }
`;
}

/** pushChildPairs: a node against itself gives its two children against themselves and each other (3); two different nodes, the inner one (the larger by the sum of its box's extents when both are inner) split against the other (2). */
function body(D: Walk): string {
  const puts = (pad: string, vs: string[]) =>
    vs.map((v, k) => `${pad}${D.out(k ? `2 * o + ${k}` : '2 * o', v)}`).join('\n');
  return `/**
 * The children of node pair (a, b), as the traversals push them (they pop them in reverse), to
 * out[2o …]; returns how many. A node against itself: its two children against themselves and
 * against each other (3); two different nodes: the inner one split (the larger one, by the sum of
 * its box's extents, when both are inner) against the other (2). (a, b) must not be two leaves.
 */
${D.kidsHead} {
${D.kidsPre}  if (a ${D.eq} b) {
    const r = ${D.right('a')};
${puts('    ', SELF_KIDS)}
    return 3;
  }
  const ca = ${D.count('a')},
    cb = ${D.count('b')};
  if (
    ${splitsA(D, '  ')}
  ) {
${puts('    ', splitA(D))}
  } else {
${puts('    ', splitB(D))}
  }
  return 2;
}
`;
}

/** The traversal from node pair (a0, b0): pop a pair, test the node boxes, test two leaves' items or push the children. */
function walk(W: Walk): string {
  const B = W.budgets;
  return `${W.head} {
${W.pre}  let sp = 0;
  ${W.push(W.from[0])}
  ${W.push(W.from[1])}
  while (sp > 0) {
    const b = ${W.st('--sp')},
      a = ${W.st('--sp')};
    ${W.full}
${B ? `    ${B.skip}\n` : ''}    const ca = ${W.count('a')},
      cb = ${W.count('b')};
    if (a ${W.ne} b && ${W.nodesApart}) continue;
    if (ca > 0 && cb > 0) {
      const sa = ${W.start('a')},
        sb = ${W.start('b')};
      for (let k = sa; k < sa + ca; k++) {
        const i = ${W.item('k')};
        const oi = 6 * i;${W.item0}
        for (let l = a ${W.eq} b ? k + 1 : sb; l < sb + cb; l++) {
${B ? `          ${B.itemI}\n` : ''}          const j = ${W.item('l')};
${B ? `          ${B.itemJ}\n` : ''}          if (${W.itemsApart}) continue;
          ${W.room}
          ${W.out('2 * n', 'i')}
          ${W.out('2 * n + 1', 'j')}
          n++;
${B ? `          ${B.counted}\n` : ''}        }
      }
      continue;
    }
${W.kidsInline ? kidsInline(W) : `    sp += 2 * ${W.kids};\n`}  }
  return n;
}
`;
}

/** src/collision/bvh-self-traversal.generated.ts. */
export function emitSelfTraversalTs(banner: string): string {
  return `${banner}
// The self traversal of src/collision/bvh-self-pairs.ts (pushChildPairs, selfPairsOfNodes), written
// once with its AssemblyScript twin (wasm/bvh-self-traversal.generated.ts) in
// scripts/kernels/emit-self-traversal.ts.
import { grownArray } from '../math/arrays.js';
import { boxesOverlap } from './boxes.js';

/** The node arrays of a tree (Bvh's layout: left child n + 1, right child right[n], leaves count[n] > 0). */
export interface BvhNodes {
  box: Float64Array;
  right: Int32Array;
  start: Int32Array;
  count: Int32Array;
  items: Int32Array;
}

/** What Bvh.selfPairsBounded's walk reads and writes of the tree besides its nodes (Bvh's fields). */
export interface BoundedTree extends BvhNodes {
  /** The pairs found (i, j at 2k, 2k + 1), grown as needed, and the walk's stack. */
  pairs: Int32Array;
  pairStack: Int32Array;
  /** Items that reached their budget; did the walk stop at maxPairs? */
  saturated: number;
  truncated: boolean;
  /** The leaf of each item and the parent of each node (−1 at the root). */
  leafOf: Int32Array;
  parent: Int32Array;
}

/** Item i reached its budget: one open item fewer on its path to the root (wasm's saturate). */
function saturate(N: BoundedTree, i: number, open: Int32Array): void {
  N.saturated++;
  for (let node = N.leafOf[i]; node >= 0; node = N.parent[node]) open[node]--;
}

${body(TS_WALK)}
/** The traversal stack of selfPairsOfNodes (one per thread: module state). */
let stack = new Int32Array(512);

/**
 * The overlapping item pairs (i, j) of the traversal from node pair (a, b)
 * (the serial traversal of bvh.ts without budgets), appended to out[2n …]
 * within \`cap\` pairs in all. \`boxes\`: the item boxes. Returns the new pair
 * count, or −1 when \`cap\` was reached (the output is then incomplete).
 */
${walk(TS_WALK)}
/**
 * Bvh.selfPairsBounded's traversal from the root, written once with selfPairsOfNodes and the
 * module's selfTraversal: the overlapping item pairs (each item in at most \`perItem\` pairs, \`ip\`
 * counting them and \`open\` per node its items below the budget; a stop at \`maxPairs\`, 0: no
 * limit) into N.pairs, with \`marked\` only those with a marked item (\`mk\`: per node, whether its
 * subtree holds one). Returns the pair count.
 */
${walk(TS_BOUNDED)}`;
}

/** wasm/bvh-self-traversal.generated.ts. */
export function emitSelfTraversalAs(banner: string): string {
  return `${banner}
// The self traversal of wasm/surfaces.ts (pushChildPairs, selfTraversal), written once with its
// TypeScript twin (src/collision/bvh-self-traversal.generated.ts) in
// scripts/kernels/emit-self-traversal.ts.
import { nBox, nCount, nItems, nLeafOf, nParent, nRight, nStart, tBox } from './broad-table.generated';
import { F, I, put, V } from './broad-memory';

/**
 * What the last selfPairsBounded counted besides its pairs (the items that reached their budget;
 * 1 where it stopped at the total), or the last dirtyPairs (wasm/surfaces.ts: the triangles or
 * queries past their budget; after −3, the result room a query needed).
 */
export let saturatedN: i32 = 0,
  truncatedN: i32 = 0;

@inline export function setCounted(s: i32, t: i32): void {
  saturatedN = s;
  truncatedN = t;
}

/** Bvh.saturate: item i reached its budget, one open item fewer on its path to the root. */
function saturate(i: i32, open: usize): void {
  saturatedN++;
  for (let node = I(nLeafOf, i); node >= 0; node = I(nParent, node)) put(open, node, I(open, node) - 1);
}

/**
 * src/collision/boxes.ts boxesOverlap negated, the same comparisons, for the
 * closed box at A + 8 oa (held in lo: x, y min, hi: x, y max, zl, zh) and the
 * one at Bx + 8 ob: x and y in one f64x2 comparison each way (a NaN bound
 * compares false, as there: not apart), the three answers or-ed without a
 * branch: one branch instead of up to six (the traversals' box tests: two
 * branches took 0.85–0.89 × their CPU, docs/collision.md "Fourteenth round";
 * one, another 0.87–0.89 ×, "Fifteenth round").
 */
@inline function apartV(lo: v128, hi: v128, zl: f64, zh: f64, Bx: usize, ob: i32): bool {
  return (
    (<i32>v128.any_true(v128.or(f64x2.gt(lo, V(Bx, ob + 3)), f64x2.lt(hi, V(Bx, ob)))) |
      <i32>(zl > F(Bx, ob + 5)) |
      <i32>(zh < F(Bx, ob + 2))) !=
    0
  );
}

${body(AS_WALK)}
/**
 * src/collision/bvh-self-pairs.ts selfPairsOfNodes over the tree of the address table and the
 * triangle boxes (tBox), written once with it: from node pair (a0, b0) pop a pair, test the node
 * boxes, test the items of two leaves or push the children (pushChildPairs), appending the
 * overlapping item pairs to out[2n …] within \`cap\`, the stack at \`st\` (stCap entries).
 * \`bounded\` (a constant at each call, so that the inlined copy keeps only its own branches) adds
 * selfPairsBounded's budgets: subtrees with no open item are not descended, an item takes part in
 * at most \`perItem\` pairs (\`ip\` counts them, \`open\` per node), and the walk stops at
 * \`maxPairs\` pairs (0: no limit). Returns the count, −1 (\`cap\`) or −2 (the stack).
 */
${walk(AS_WALK)}`;
}
