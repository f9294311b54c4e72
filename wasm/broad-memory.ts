/**
 * The reads and writes of the surfaces module's memory, by element index: i32, f64, two f64 (v128)
 * and u8 loads, an i32 store. Imported by wasm/surfaces.ts and by the AssemblyScript that
 * scripts/kernels/ prints for it (wasm/broad-candidates.generated.ts,
 * wasm/bvh-self-traversal.generated.ts), so that each is written once.
 */

@inline export function I(p: usize, i: i32): i32 {
  return load<i32>(p + ((<usize>i) << 2));
}
@inline export function F(p: usize, i: i32): f64 {
  return load<f64>(p + ((<usize>i) << 3));
}
@inline export function V(p: usize, i: i32): v128 {
  return v128.load(p + ((<usize>i) << 3));
}
@inline export function B(p: usize, i: i32): i32 {
  return <i32>load<u8>(p + <usize>i);
}
@inline export function put(p: usize, i: i32, v: i32): void {
  store<i32>(p + ((<usize>i) << 2), v);
}
