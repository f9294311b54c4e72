/**
 * The row-kernel language: the types with which a `*.rows.ts` file declares
 * passes over rows of neighbour pairs (the fluids' pair loops,
 * src/fluids/pair-passes.rows.ts). `npm run kernels` generates from one
 * definition the JavaScript functions (`*.generated.ts` beside it) and their
 * AssemblyScript twins (wasm/NAME.generated.ts, compiled into a WebAssembly
 * module), with the same floating-point operations in the same order, so
 * that both give the same numbers bit for bit (scripts/kernels/emit-rows.ts;
 * docs/architecture.md, "WebAssembly kernels").
 *
 * Unlike an element kernel (src/kernels/dsl.ts), which projects one
 * constraint and leaves the loop to the generator, a row kernel is written
 * with its loops: a row walks the partners of one particle, accumulates in
 * locals (the row prologue and epilogue) and writes to many partners' records.
 * What a definition may contain:
 * - exported functions whose parameters are `number` (f64), `I32`,
 *   `boolean`, `Int32Array` or `Float64Array` (byte addresses in the
 *   module's memory in the WebAssembly twin), `JsOnly<T>` (left out of the
 *   twin) or `WasmOnly<T>` (left out of the JavaScript function: a per-pair
 *   store the twin keeps, such as a gradient factor computed once per pair);
 * - `const` / `let` declarations (an unannotated one initialised with a
 *   number literal is f64, except a `for` loop's counter; annotate `I32`
 *   otherwise), assignments, `if` / `else`, `for`, `while`, `continue`,
 *   `return`; arithmetic, comparisons, shifts and ors on integers,
 *   `Math.sqrt`, `Math.min` / `Math.max` (of two integers: i32 in the
 *   twin), `+(comparison)` (0 or 1), calls of the file's functions;
 * - reads and writes of array elements, `a[i]`, `a[o | k]` (record o, field k);
 * - `if (WASM) { … }` and `if (WASM) { … } else { … }`: where the two ports
 *   differ on purpose (the twin stores or reads its per-pair store), the
 *   first block is the twin's, the second the JavaScript function's; each is
 *   spliced into the enclosing block as written;
 * - `export const wasmExports = [ … ]`: the functions the module exports
 *   (the JavaScript module gets their interface, `NAMEExports`, for the callers of the instance);
 *   `export const wasmInline = [ … ]`: helpers the twin declares `@inline`
 *   (a function called in a pair loop, which the module would otherwise call);
 * - macros (functions with a `Vec` parameter or result, see Vec): a piece of
 *   the pair loops written once, pasted by the generator where it is called;
 * - `export const variants = { NAME: { of: 'function', flag: 'FLAG' } }`:
 *   JavaScript functions made from another with `VARIANT.FLAG` true (each
 *   with its doc comment): `if (VARIANT.FLAG)` blocks and
 *   `VARIANT.FLAG ? a : b` values (as a declaration's value or an
 *   assignment's right side) are resolved like `WASM`, and parameters typed
 *   `If<'FLAG', T>` / `Unless<'FLAG', T>` are kept only with / without it;
 *   `declare const NAME: typeof f` declares a variant so that another function
 *   may call it (`k = VARIANT.FLAG ? fSorted(…) : f(…)`: a variant calls
 *   the variant), which neither port keeps.
 */

/**
 * A list of names, `[dx, dy, dz]`: a function of the definition with a Vec
 * parameter or result is a macro, pasted where it is called
 * (scripts/kernels/rows-macros.ts) — `const [px, py, pz] = f(…)` declares
 * the caller's names, a statement macro's assignments to a parameter assign
 * the caller's name — and not emitted itself.
 */
export type Vec = number[];

/** An integer (i32 in the WebAssembly twin). */
export type I32 = number;

/** A parameter of the JavaScript function only. */
export type JsOnly<T> = T;

/** A parameter of the WebAssembly twin only (a per-pair store). */
export type WasmOnly<T> = T;

/** A parameter of the variants with the flag F only. */
export type If<_F extends string, T> = T;

/** A parameter of the functions without the flag F only. */
export type Unless<_F extends string, T> = T;

/** True in the WebAssembly twin: `if (WASM) { twin } else { JavaScript }` (resolved by the generator). */
export const WASM: boolean = false;

/** The variant flags: `VARIANT.FLAG` is true in the variants made with FLAG (resolved by the generator). */
export const VARIANT: Readonly<Record<string, boolean>> = {};
