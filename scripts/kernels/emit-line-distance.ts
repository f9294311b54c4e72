/**
 * The narrow scans' side of an edge–edge pair (003 §4.3): the signed distance between the lines
 * a–b and c–d along n = (b − a) × (d − c), written once and emitted twice (issue 14):
 *
 * - TypeScript into src/collision/line-distance.generated.ts (p: a Float64Array), re-exported by
 *   src/collision/surface-narrow-scan.ts, which the scans of surface-narrow-scans.generated.ts
 *   import it from;
 * - AssemblyScript into wasm/line-distance.generated.ts (Q: a byte address in the narrow module's
 *   memory), re-exported by wasm/narrow.ts, which the scans of wasm/narrow-scans.generated.ts
 *   import it from.
 *
 * One template, a `Read` for how each language reads a coordinate: the same floating-point
 * operations in the same order in both (WebAssembly's f64 arithmetic is IEEE and never contracts),
 * hence the same bits (test/surface-narrow-wasm). The printed functions are, token for token, the
 * two hand-written twins they replaced (docs/architecture.md, "Duplicates: session 20 (dupE2)").
 */
import { crossAt } from './emit-ccd.js';
import { AS, dot, type Lang, TS } from './emit-closest.js';

/** How a function reads coordinate j (0, 1, 2) of the point at offset o. */
type Read = (o: string, j: number) => string;

/** `x[o + j]`: a Float64Array of the TypeScript side. */
const arrayRead =
  (x: string): Read =>
  (o, j) =>
    `${x}[${o}${j ? ` + ${j}` : ''}]`;

/** `F(Q, o + j)`: the module's memory on the AssemblyScript side. */
const memoryRead =
  (Q: string): Read =>
  (o, j) =>
    `F(${Q}, ${o}${j ? ` + ${j}` : ''})`;

const XYZ = ['x', 'y', 'z'];

/** `const ux = x[b] - x[a], uy = …, uz = …;`: the vector u from the point at offset a to the point at offset b. */
function edge(u: string, read: Read, a: string, b: string): string {
  return `  const ${XYZ.map((c, j) => `${u}${c} = ${read(b, j)} - ${read(a, j)}`).join(',\n    ')};`;
}

/** `const nx = uy * vz - uz * vy, …;`: n = u × v of two vectors named in scope. */
function cross(n: string, u: string, v: string): string {
  return `  const ${XYZ.map((c) => `${n}${c} = ${crossAt(c, u, v)}`).join(',\n    ')};`;
}

/** lineDistance in language L, its points read from the parameter `param: type` with `read`. */
function lineDistance(L: Lang, param: string, read: Read): string {
  const diff = XYZ.map((c, j) => `(${read('a3', j)} - ${read('c3', j)}) * n${c}`).join(' + ');
  const int = L === TS ? 'number' : 'i32';
  return `/** Signed distance between the lines a–b and c–d along (b − a) × (d − c) (0 when parallel). */
export function lineDistance(${param}, a3: ${int}, b3: ${int}, c3: ${int}, d3: ${int}): ${L.f64} {
${edge('u', read, 'a3', 'b3')}
${edge('v', read, 'c3', 'd3')}
${cross('n', 'u', 'v')}
  const n = Math.sqrt(${dot('n', 'n')});
  if (!(n > 1e-300)) return 0;
  return (${diff}) / n;
}
`;
}

/** src/collision/line-distance.generated.ts. */
export function emitLineDistanceTs(banner: string): string {
  return `${banner}
// The narrow scans' lineDistance, written once with its AssemblyScript twin
// (wasm/line-distance.generated.ts) in scripts/kernels/emit-line-distance.ts.

${lineDistance(TS, 'p: Float64Array', arrayRead('p'))}`;
}

/** wasm/line-distance.generated.ts. */
export function emitLineDistanceAs(banner: string): string {
  return `${banner}
// The narrow module's lineDistance, written once with its TypeScript twin
// (src/collision/line-distance.generated.ts) in scripts/kernels/emit-line-distance.ts.

@inline function F(p: usize, i: i32): f64 {
  return load<f64>(p + ((<usize>i) << 3));
}

${lineDistance(AS, 'Q: usize', memoryRead('Q'))}`;
}
