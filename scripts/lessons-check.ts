/** npm run lessons:check [lessonDir...]: validate every lesson and run every scenario under CPython and Pyodide. */
import { resolve } from 'node:path';
import { checkLessons } from '../src/lessons/check';
import { lessonDirs } from '../src/lessons/load';
import { nodeRunner } from '../src/runtime/node';

async function main() {
  process.exitCode = 2; // unless the check gets to its summary
  const dirs = process.argv.length > 2 ? process.argv.slice(2).map((d) => resolve(d)) : lessonDirs(resolve('lessons'));
  const result = await checkLessons(dirs, await nodeRunner());
  console.log(`lessons:check: ${result.passed} passed, ${result.failed} failed${result.warnings ? `, ${result.warnings} warnings` : ''}`);
  process.exitCode = result.failed ? 1 : 0;
}

main().catch((error: Error) => {
  console.error(error.stack ?? error.message);
  process.exit(2);
});
