/** npm run test:py: run every lesson's stdlib unittest tests (user_code/tests) under CPython. */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { lessonDirs } from '../src/lessons/load';

let failed = 0;
let ran = 0;
for (const dir of lessonDirs(resolve('lessons'))) {
  const tests = join(dir, 'user_code', 'tests');
  if (!existsSync(tests)) continue;
  ran++;
  console.log(`== ${dir}`);
  const result = spawnSync(process.env.PYTHON ?? 'python3', ['-m', 'unittest', 'discover', '-s', tests, '-t', dir, '-v'], { cwd: dir, stdio: 'inherit' });
  if (result.status !== 0) failed++;
}
console.log(`test:py: ${ran - failed} passed, ${failed} failed`);
process.exit(failed || !ran ? 1 : 0);
