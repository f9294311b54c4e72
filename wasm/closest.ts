/**
 * The closest-point formulas that the surfaces module (the broad phase's candidate tests,
 * wasm/surfaces.ts) and the narrow module (the narrow scans and crossing scans, wasm/narrow.ts)
 * both need; each module compiles its own copy. They are written once, with their TypeScript
 * (src/collision/geometry.ts's closestPointTriangleAt and closestSegmentSegmentAt), in
 * scripts/kernels/emit-closest.ts, which emits this AssemblyScript into wasm/closest.generated.ts
 * (`npm run kernels`): the same operations in the same order (WebAssembly's f64 arithmetic is
 * IEEE and never contracts), so they give the JavaScript's bits: test/surface-broad-wasm and
 * test/surface-narrow-wasm.
 */
export * from './closest.generated';
