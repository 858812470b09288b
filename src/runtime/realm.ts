/// <reference lib="webworker" />
/**
 * The worker's JavaScript, made unchangeable before the first lesson runs.
 *
 * Lesson code can reach JavaScript objects: a JsProxy found on Python's heap (gc.get_objects)
 * leads to the worker's global object and to Pyodide's own objects. Pyodide turns every result,
 * every string and every file read into JavaScript with them, at call time (HEAPU8.slice,
 * TextDecoder.decode, Module.js2python_convert, the file system's methods). A run that replaced
 * one of them could garble or forge its own result and every later run's in this worker, and
 * clean() cannot undo it: it restores Python, not JavaScript. So, once Python is started:
 * - every JavaScript intrinsic is frozen (SES lockdown: Object, Array, typed arrays, JSON, ...);
 * - every object the global object holds (the web APIs: TextDecoder, WebAssembly, performance,
 *   ...) is frozen, and so are the global object's bindings (no new ones, none replaced);
 * - the methods on Pyodide's objects (its API, the Emscripten module, the file system and its
 *   operation tables, the classes under them) cannot be replaced, and Module.HEAP* are views this
 *   module makes of the wasm memory, which cannot be swapped or given methods.
 * Pyodide's data (file nodes, open streams, proxy tables) stays writable: it changes with every
 * run, and a lesson written against Pyodide's internals could still reach it (README, design notes).
 */
import type { PyodideAPI } from 'pyodide';

declare const self: DedicatedWorkerGlobalScope;

/** The platform's Error, before lockdown puts its own in its place (it keeps this one, unfrozen, to work with). */
const platformError = Error;

/** Properties of the global object whose values are made at first use: frozen through their getter. */
const MADE_ON_USE = ['performance', 'navigator', 'crypto', 'location', 'console', 'scheduler'];

/**
 * Loads SES (its `lockdown` and `harden`): started with the worker, so that its 250 KB are
 * evaluated while Python's files download, not on the way to them; awaited before sealRealm.
 */
export const loadSes = () => import('ses');

export function sealRealm(py: PyodideAPI) {
  lockdown({
    errorTaming: 'unsafe', // Python's tracebacks keep JavaScript stacks for Pyodide's fatal-error report
    consoleTaming: 'unsafe',
    stackFiltering: 'verbose',
    overrideTaming: 'severe', // Pyodide sets `constructor` on objects made from Object.prototype
    localeTaming: 'unsafe',
    errorTrapping: 'none', // the worker's own error handling stays as it is
    unhandledRejectionTrapping: 'none',
    reporting: 'none', // lockdown removes what Emscripten added to intrinsics (Math.sin.sig, ...)
  });
  // Error subclasses SES does not know (WebAssembly's) inherit from the platform's Error: they are
  // moved under lockdown's, as lockdown does with the standard ones, so hardening them below does
  // not freeze the platform's Error (lockdown's Error.stackTraceLimit writes through to it)
  const sharedError = Object.getPrototypeOf(RangeError) as object;
  for (const value of [...dataValues(WebAssembly), ...dataValues(self)]) {
    if (typeof value === 'function' && Object.getPrototypeOf(value) === platformError) Object.setPrototypeOf(value, sharedError);
  }
  for (const name of MADE_ON_USE) freeze(Reflect.get(self, name));
  for (let holder: object | null = self; holder && holder !== Object.prototype; holder = Object.getPrototypeOf(holder)) {
    for (const value of dataValues(holder)) if (value !== self) freeze(value);
  }
  Object.freeze(self); // its accessors (onmessage, ...) keep their setters; nothing is added or replaced
  sealPyodide(py);
}

/**
 * Pyodide's own objects: their methods pinned, the heap views sealed. Apart from lockdown, so that
 * Node's tests can seal a Pyodide without locking down the test process.
 */
export function sealPyodide(py: PyodideAPI) {
  const api = py as unknown as { _api: object; _module: Record<string, unknown> };
  sealHeapViews(api._module);
  for (const root of [py, api._api, api._module]) pinMethods(root);
}

/** The values of an object's own data properties, enumerable or not. */
const dataValues = (of: object): unknown[] =>
  Reflect.ownKeys(of).flatMap((key) => {
    const own = Object.getOwnPropertyDescriptor(of, key)!;
    return 'value' in own ? [own.value] : [];
  });

function freeze(value: unknown) {
  try {
    if ((typeof value === 'object' && value !== null) || typeof value === 'function') harden(value);
  } catch {
    /* a value harden cannot walk (a typed array with elements): nothing to call on it */
  }
}

/**
 * Every method and accessor of `root`, of the plain objects under it (Module.FS, its file systems
 * and their operation tables) and of the classes' prototypes (FS.FSNode, PyProxy, ...) made
 * read-only and permanent. Data (heap views, file nodes, maps of proxies) is left as it is.
 */
function pinMethods(root: object, seen = new Set<object>()) {
  if (seen.has(root) || Object.isFrozen(root)) return;
  seen.add(root);
  for (const key of Reflect.ownKeys(root)) {
    if (key === 'constructor') continue; // a class's prototype: its instances may set their own
    const own = Object.getOwnPropertyDescriptor(root, key)!;
    if (!('value' in own)) {
      if (own.configurable) Object.defineProperty(root, key, { get: own.get, set: own.set, enumerable: own.enumerable, configurable: false });
      continue;
    }
    const value: unknown = own.value;
    if (typeof value === 'function') {
      if (own.configurable || own.writable) Object.defineProperty(root, key, { value, writable: false, configurable: false, enumerable: own.enumerable });
      const prototype: unknown = (value as { prototype?: unknown }).prototype;
      if (typeof prototype === 'object' && prototype !== null && (prototype as { constructor?: unknown }).constructor === value) pinMethods(prototype, seen);
    } else if (typeof value === 'object' && value !== null && plain(value)) pinMethods(value, seen);
  }
}

/** A plain object: not a class instance, nor a proxy of a Python object (PyProxy), whose traps may throw. */
function plain(value: object): boolean {
  try {
    const proto = Object.getPrototypeOf(value);
    return proto === Object.prototype || proto === null;
  } catch {
    return false;
  }
}

const VIEWS = {
  HEAP8: Int8Array,
  HEAP16: Int16Array,
  HEAPU8: Uint8Array,
  HEAPU16: Uint16Array,
  HEAP32: Int32Array,
  HEAPU32: Uint32Array,
  HEAPF32: Float32Array,
  HEAPF64: Float64Array,
  HEAP64: BigInt64Array,
  HEAPU64: BigUint64Array,
};

/**
 * Module.HEAP8 ... HEAPU64, which Pyodide reads Python's memory through: views that cannot be
 * given methods of their own, made by this module from the wasm memory (anew when it grows).
 * Emscripten assigns its own views when the memory grows: ignored; a view of other bytes: refused.
 */
function sealHeapViews(module: Record<string, unknown>) {
  const memory = module.memory as WebAssembly.Memory;
  Object.defineProperty(module, 'memory', { value: memory, writable: false, configurable: false });
  const bufferOf = Object.getOwnPropertyDescriptor(WebAssembly.Memory.prototype, 'buffer')!.get!;
  const viewBuffer = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Int8Array.prototype), 'buffer')!.get!;
  for (const [name, View] of Object.entries(VIEWS)) {
    let view: ArrayBufferView | null = null;
    let of: ArrayBuffer | null = null;
    Object.defineProperty(module, name, {
      get() {
        const buffer = Reflect.apply(bufferOf, memory, []) as ArrayBuffer;
        if (buffer !== of) view = Object.preventExtensions(new View((of = buffer)));
        return view;
      },
      set(given: unknown) {
        if (Reflect.apply(viewBuffer, given, []) !== Reflect.apply(bufferOf, memory, [])) throw new TypeError(`Module.${name} is sealed: it is a view of Python's memory`);
      },
      enumerable: true,
      configurable: false,
    });
  }
}
