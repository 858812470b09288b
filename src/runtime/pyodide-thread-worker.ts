/** The Pyodide thread of pyodideThread(): one nodeRunner, one request per message, answered in order. */
import { parentPort } from 'node:worker_threads';
import { nodeRunner } from './node';
import type { ThreadAnswer, ThreadRequest } from './pyodide-thread';

const port = parentPort!;
const send = (answer: ThreadAnswer) => port.postMessage(answer);
const pyodide = await nodeRunner();
port.on('message', (job: ThreadRequest) => {
  try {
    const value = job.op === 'run' ? pyodide.run(job.request) : job.op === 'reference' ? pyodide.reference(job.request, job.traced) : pyodide.forget(job.root);
    send({ id: job.id, value: value ?? null });
  } catch (error) {
    send({ id: job.id, error: (error as Error).message });
  }
});
send({ ready: true });
