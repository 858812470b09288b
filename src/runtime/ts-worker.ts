import { Worker, type WorkerOptions } from 'node:worker_threads';

/** A worker thread running a TypeScript module, loaded through tsx as the script that starts it is (Node only). */
export function tsWorker(module: URL, options: WorkerOptions = {}): Worker {
  const source = `import('tsx/esm/api').then(({ tsImport }) => tsImport(${JSON.stringify(module.href)}, ${JSON.stringify(import.meta.url)}))`;
  return new Worker(source, { ...options, eval: true });
}
