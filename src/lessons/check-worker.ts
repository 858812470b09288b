/** One worker of checkInParallel: its own Pyodide and CPython, one lesson per message. */
import { parentPort } from 'node:worker_threads';
import { cpythonHost, nodeRunner } from '../runtime/node';
import { checkLessons } from './check';
import type { WorkerMessage } from './parallel';

const port = parentPort!;
const send = (message: WorkerMessage) => port.postMessage(message);
const pyodide = await nodeRunner();
const cpython = cpythonHost();
port.on('message', async (dir: string | null) => {
  if (dir === null) {
    await cpython.close();
    port.close(); // nothing else keeps this thread alive (the watchdog and CPython are unref'd)
    return;
  }
  const lines: string[] = [];
  const result = await checkLessons([dir], pyodide, (line) => lines.push(line), cpython);
  send({ dir, lines, result });
});
send({ ready: true });
