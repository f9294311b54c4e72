/**
 * The strand module's reads and writes of its (imported) memory: f64 and i32 arrays named by byte
 * addresses, shared by the hand-written wasm/strands.ts and the sphere contacts printed into
 * wasm/strand-contacts.generated.ts (scripts/kernels/emit-strand-contacts.ts).
 */

@inline export function f(a: usize, i: i32): f64 {
  return load<f64>(a + (<usize>i << 3));
}

@inline export function put(a: usize, i: i32, v: f64): void {
  store<f64>(a + (<usize>i << 3), v);
}

/** a[i], a[i + 1], a[i + 2] ← x, y, z (the three stores after the three values, as the JavaScript's
 * per-component writes give when a's components are not read by the others' values). */
@inline export function put3(a: usize, i: i32, x: f64, y: f64, z: f64): void {
  put(a, i, x);
  put(a, i + 1, y);
  put(a, i + 2, z);
}

@inline export function zero3(a: usize, i: i32): void {
  put3(a, i, 0, 0, 0);
}

@inline export function int(a: usize, i: i32): i32 {
  return load<i32>(a + (<usize>i << 2));
}
