/// <reference lib="webworker" />
/**
 * Where the worker keeps its memory snapshot between visits: the origin private file system (OPFS)
 * where the browser has one, Cache Storage where it does not. A 30 MB snapshot reads in 96-124 ms
 * from OPFS (getFile().arrayBuffer()) beside 183-270 ms from Cache Storage, and writes in about
 * 400 ms beside 900 ms (Chromium, 2-core machine). Every failure here only costs a warm start: the
 * caller starts Python cold. Stored without its long runs of zero pages (sparse.ts): 15.6 MB of
 * a started runner's 30 MB.
 */
import { fromSparse, toSparse } from './sparse';

/** A snapshot in the form it is stored in (sparse.ts), made when it is taken. */
export type Stored = Uint8Array & { readonly stored: unique symbol };
/**
 * Made when the snapshot is taken, before any lesson code runs: by the time it is written a lesson
 * may have patched what a conversion would use (Uint8Array.prototype.set, DataView's methods).
 */
export const toStored = (snapshot: Uint8Array) => toSparse(snapshot) as Stored;
declare const self: DedicatedWorkerGlobalScope;

// Bound when the worker starts, before any lesson code runs: the worker's lockDown blocks the
// storage entry points, and the snapshot is written after runs, so a lesson that patched a
// prototype (through an object it found on Python's heap) cannot change what is written.
const storage: StorageManager | undefined = self.navigator?.storage;
const getDirectory = typeof storage?.getDirectory === 'function' ? storage.getDirectory.bind(storage) : null;
const cacheStorage: CacheStorage | undefined = self.caches;
const apply = Reflect.apply;
type Method = (...args: never[]) => unknown;
const methods = <T extends object>(of: { prototype: T } | undefined, ...names: (keyof T)[]) =>
  Object.fromEntries(names.map((name) => [name, of?.prototype[name]])) as Record<keyof T, Method | undefined>;
/** A global interface, or undefined where this browser has none. */
const global = <T>(get: () => T): T | undefined => {
  try {
    return get();
  } catch {
    return undefined;
  }
};
const Dir = methods(global(() => FileSystemDirectoryHandle), 'getDirectoryHandle', 'getFileHandle', 'removeEntry', 'keys');
const FileH = methods(global(() => FileSystemFileHandle), 'getFile', 'createWritable', 'createSyncAccessHandle');
const Stream = methods(global(() => FileSystemWritableFileStream), 'write', 'close');
const Sync = methods(global(() => FileSystemSyncAccessHandle), 'truncate', 'write', 'flush', 'close');
const Caches = methods(global(() => CacheStorage), 'delete', 'open');
const CacheM = methods(global(() => Cache), 'keys', 'delete', 'put');
const ResponseOf = global(() => Response);
/** Calls a method bound at start-up (a missing one throws, and the caller starts cold or skips the write). */
const call = <R = unknown>(method: Method | undefined, target: unknown, ...args: unknown[]): R => apply(method!, target, args) as R;

const FOLDER = 'steplight-snapshots';
const CACHE = 'steplight-python';

/** A file name for a key: the key's text, then the byte count, so a short (torn) file is never used. */
function fileName(key: string, size: number): string {
  return `${encodeURIComponent(key)}.${size}.bin`;
}
function sizeIn(name: string, key: string): number | null {
  const prefix = `${encodeURIComponent(key)}.`;
  if (!name.startsWith(prefix) || !name.endsWith('.bin')) return null;
  const size = Number(name.slice(prefix.length, -'.bin'.length));
  return Number.isSafeInteger(size) && size > 0 ? size : null;
}

async function folder(): Promise<FileSystemDirectoryHandle | null> {
  if (!getDirectory) return null;
  try {
    return await call<Promise<FileSystemDirectoryHandle>>(Dir.getDirectoryHandle, await getDirectory(), FOLDER, { create: true });
  } catch {
    return null; // no OPFS here (an insecure context, a private window in some browsers)
  }
}

async function names(dir: FileSystemDirectoryHandle): Promise<string[]> {
  const out: string[] = [];
  for await (const name of call<AsyncIterable<string>>(Dir.keys, dir)) out.push(name);
  return out;
}

const remove = (dir: FileSystemDirectoryHandle, name: string) => call<Promise<void>>(Dir.removeEntry, dir, name).catch(() => {});
const fileHandle = (dir: FileSystemDirectoryHandle, name: string, create = false) => call<Promise<FileSystemFileHandle>>(Dir.getFileHandle, dir, name, { create });

/** Reads a stored snapshot: its bytes, or null when it cannot be read (then it is removed). */
export type SnapshotReader = () => Promise<Uint8Array | null>;

/**
 * Whether a snapshot is stored under this key, found without reading it (the folder's names and the
 * file's size: a few ms beside ~100-300 ms for the read): its reader, or null (none, or one of the
 * wrong size, which is removed).
 */
export async function findSnapshot(key: string): Promise<SnapshotReader | null> {
  const dir = await folder();
  if (!dir) return findCached(key);
  try {
    for (const name of await names(dir)) {
      const size = sizeIn(name, key);
      if (size === null) continue;
      const file = await call<Promise<File>>(FileH.getFile, await fileHandle(dir, name));
      if (file.size === size)
        return async () => {
          try {
            return fromSparse(new Uint8Array(await file.arrayBuffer()));
          } catch {
            await remove(dir, name); // unreadable, or not in this format (an older build's file)
            return null;
          }
        };
      await remove(dir, name);
    }
  } catch {
    /* unreadable: start cold; the next write replaces it */
  }
  return null;
}

/**
 * Stores the snapshot under this key and removes every other one (older Pyodide, tracer or
 * archive). Only methods bound at start-up touch the bytes.
 */
export async function writeSnapshot(key: string, bytes: Stored): Promise<boolean> {
  const dir = await folder();
  if (!dir) return writeCached(key, bytes);
  const name = fileName(key, bytes.byteLength);
  try {
    for (const old of await names(dir)) if (old !== name) await remove(dir, old);
    const handle = await fileHandle(dir, name, true);
    if (FileH.createWritable) {
      // Chromium and Firefox write to a side file and swap it in on close: a reader sees all or nothing
      const out = await call<Promise<FileSystemWritableFileStream>>(FileH.createWritable, handle);
      await call(Stream.write, out, bytes);
      await call(Stream.close, out);
    } else {
      // Safari before 26 has only the worker's synchronous handle; the size in the name catches a torn write
      const out = await call<Promise<FileSystemSyncAccessHandle>>(FileH.createSyncAccessHandle, handle);
      try {
        call(Sync.truncate, out, 0);
        call(Sync.write, out, bytes, { at: 0 });
        call(Sync.flush, out);
      } finally {
        call(Sync.close, out);
      }
    }
    if (cacheStorage) await call<Promise<boolean>>(Caches.delete, cacheStorage, CACHE).catch(() => {}); // where earlier builds kept it
    return true;
  } catch {
    await remove(dir, name);
    return false; // a full disk only costs the next visit its warm start
  }
}

/** Forgets the snapshot under this key (it failed to load). */
export async function dropSnapshot(key: string): Promise<void> {
  const dir = await folder();
  if (dir) for (const name of await names(dir).catch(() => [])) if (sizeIn(name, key) !== null) await remove(dir, name);
  if (cacheStorage) await call<Promise<boolean>>(Caches.delete, cacheStorage, CACHE).catch(() => {});
}

async function findCached(key: string): Promise<SnapshotReader | null> {
  try {
    const hit = await (await cacheStorage!.open(CACHE)).match(key);
    if (!hit) return null;
    return () => hit.arrayBuffer().then((bytes) => fromSparse(new Uint8Array(bytes))).catch(() => null);
  } catch {
    return null; // no Cache Storage either: start cold
  }
}

async function writeCached(key: string, bytes: Stored): Promise<boolean> {
  try {
    const cache = await call<Promise<Cache>>(Caches.open, cacheStorage, CACHE);
    for (const old of await call<Promise<readonly Request[]>>(CacheM.keys, cache)) if (!old.url.endsWith(key)) await call(CacheM.delete, cache, old);
    await call(CacheM.put, cache, key, new ResponseOf!(bytes as BlobPart, { headers: { 'Content-Type': 'application/octet-stream' } }));
    return true;
  } catch {
    return false;
  }
}
