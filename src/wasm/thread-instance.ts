/**
 * Each thread's instance of a WebAssembly module on a memory, by the record
 * that carries the two (a pool task's arguments): the first call on a
 * thread instantiates the module on the memory, the later ones find it.
 */

/** What a thread instantiates: a compiled module and the memory it runs on. */
export interface ModuleOnMemory {
  module: WebAssembly.Module;
  memory: WebAssembly.Memory;
}

/** The exports of `W.module` instantiated on `W.memory`, once per record and thread (kept in `cache`). */
export function threadInstance<W extends ModuleOnMemory, E>(cache: WeakMap<W, E>, W: W): E {
  let ex = cache.get(W);
  if (ex === undefined) {
    ex = new WebAssembly.Instance(W.module, { env: { memory: W.memory } }).exports as unknown as E;
    cache.set(W, ex);
  }
  return ex;
}
