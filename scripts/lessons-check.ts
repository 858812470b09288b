/** npm run lessons:check [lessonDir...]: validate every lesson and run every scenario under CPython and Pyodide. */
import { resolve } from 'node:path';
import { checkLessons } from '../src/lessons/check';
import { lessonDirs } from '../src/lessons/load';
import { nodeRunner } from '../src/runtime/node';

async function main() {
  process.exitCode = 2; // unless the check gets to its summary
  const dirs = process.argv.length > 2 ? process.argv.slice(2).map((d) => resolve(d)) : lessonDirs(resolve('lessons'));
  const started = performance.now();
  const pyodide = await nodeRunner();
  const startMs = performance.now() - started;
  const r = await checkLessons(dirs, pyodide);
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  console.log(`lessons:check: ${r.passed} passed, ${r.failed} failed${r.warnings ? `, ${r.warnings} warnings` : ''}`);
  // the bench reads this line
  console.log(`time: ${s(startMs + r.checkMs)} (Python start ${s(startMs)}; ${r.scenarios} scenarios × 2 runtimes in ${s(r.checkMs)}, ${(r.checkMs / Math.max(1, r.scenarios)).toFixed(1)} ms each, of which the traced run ${(r.runMs / Math.max(1, r.scenarios)).toFixed(1)} ms)`);
  process.exitCode = r.failed ? 1 : 0;
}

main().catch((error: Error) => {
  console.error(error.stack ?? error.message);
  process.exit(2);
});
