/**
 * pushChildPairs, the step of the BVH self traversal that splits a node pair into the pairs of its
 * children (in the order the traversals push them), written once and emitted twice (issue 14):
 *
 * - TypeScript into src/collision/bvh-child-pairs.generated.ts, which src/collision/bvh-self-pairs.ts
 *   calls from selfPairsOfNodes and from the frontier of the pooled traversal (and re-exports);
 * - AssemblyScript into wasm/bvh-child-pairs.generated.ts (@inline), which wasm/surfaces.ts calls
 *   from its selfTraversal over the address table's tree (nBox, nCount, nRight).
 *
 * The same comparisons and the same sums of box extents in the same order, hence the same child
 * pairs in the same order, so the module's pairs are the JavaScript's (test/surface-broad-wasm).
 */

/** How a language reads the tree and writes an entry of `out`. */
interface Dialect {
  head: string;
  right: (i: string) => string;
  count: (i: string) => string;
  box: (i: string) => string;
  put: (o: string, v: string) => string;
  eq: string;
  /** Statements before the body (the box array's name). */
  pre: string;
}

const TS: Dialect = {
  head: `export function pushChildPairs(
  B: Float64Array,
  count: Int32Array,
  right: Int32Array,
  a: number,
  b: number,
  out: Int32Array,
  o: number,
): number`,
  right: (i) => `right[${i}]`,
  count: (i) => `count[${i}]`,
  box: (i) => `B[${i}]`,
  put: (o, v) => `out[${o}] = ${v};`,
  eq: '===',
  pre: '',
};

const AS: Dialect = {
  head: '@inline export function pushChildPairs(a: i32, b: i32, out: usize, o: i32): i32',
  right: (i) => `I(nRight, ${i})`,
  count: (i) => `I(nCount, ${i})`,
  box: (i) => `F(B, ${i})`,
  put: (o, v) => `put(out, ${o}, ${v});`,
  eq: '==',
  pre: '  const B = nBox;\n',
};

/** The function: a node against itself gives its two children against themselves and each other (3); two different nodes, the inner one (the larger by the sum of its box's extents when both are inner) split against the other (2). */
function body(D: Dialect): string {
  const ext = (n: string) =>
    [0, 1, 2]
      .map((k) => `${D.box(`6 * ${n} + ${k + 3}`)} - ${D.box(k ? `6 * ${n} + ${k}` : `6 * ${n}`)}`)
      .join(' + ');
  const puts = (pad: string, vs: string[]) =>
    vs.map((v, k) => `${pad}${D.put(k ? `2 * o + ${k}` : '2 * o', v)}`).join('\n');
  return `/**
 * The children of node pair (a, b), as the traversals push them (they pop them in reverse), to
 * out[2o …]; returns how many. A node against itself: its two children against themselves and
 * against each other (3); two different nodes: the inner one split (the larger one, by the sum of
 * its box's extents, when both are inner) against the other (2). (a, b) must not be two leaves.
 */
${D.head} {
${D.pre}  if (a ${D.eq} b) {
    const r = ${D.right('a')};
${puts('    ', ['a + 1', 'a + 1', 'r', 'r', 'a + 1', 'r'])}
    return 3;
  }
  const ca = ${D.count('a')},
    cb = ${D.count('b')};
  if (
    cb > 0 ||
    (ca ${D.eq} 0 &&
      ${ext('a')} >=
        ${ext('b')})
  ) {
${puts('    ', ['a + 1', 'b', D.right('a'), 'b'])}
  } else {
${puts('    ', ['a', 'b + 1', 'a', D.right('b')])}
  }
  return 2;
}
`;
}

/** src/collision/bvh-child-pairs.generated.ts. */
export function emitChildPairsTs(banner: string): string {
  return `${banner}
// pushChildPairs of src/collision/bvh-self-pairs.ts, written once with its AssemblyScript twin
// (wasm/bvh-child-pairs.generated.ts) in scripts/kernels/emit-child-pairs.ts.

${body(TS)}`;
}

/** wasm/bvh-child-pairs.generated.ts. */
export function emitChildPairsAs(banner: string): string {
  return `${banner}
// pushChildPairs of wasm/surfaces.ts's selfTraversal, written once with its TypeScript twin
// (src/collision/bvh-child-pairs.generated.ts) in scripts/kernels/emit-child-pairs.ts.
import { nBox, nCount, nRight } from './broad-table.generated';

@inline function I(p: usize, i: i32): i32 {
  return load<i32>(p + ((<usize>i) << 2));
}
@inline function F(p: usize, i: i32): f64 {
  return load<f64>(p + ((<usize>i) << 3));
}
@inline function put(p: usize, i: i32, v: i32): void {
  store<i32>(p + ((<usize>i) << 2), v);
}

${body(AS)}`;
}
