/**
 * Third part of `npm run bench`: a blog of 2 lessons beside the same blog grown to 50 (the 2 real
 * lessons plus copies of s04-hooks under new ids), measured in the same run:
 *  - what a lesson page and the index send (the page, its scripts, its stylesheet; brotli bytes as
 *    the build writes them), and
 *  - `npm run lessons:check` on each (wall time, Python start-up, time per scenario), run
 *    ROUNDS times in turn (2, 50, 2, 50, …) so that both sizes meet the machine in the same moods;
 *    each size's fastest round is the figure, and every round is printed and kept.
 * Writes bench/results/blog.json.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { lessonDirs } from '../src/lessons/load';

const SIZES = [2, 50];
const ROUNDS = Number(process.env.STEPLIGHT_BENCH_ROUNDS) || 2;

/** A lesson root with the real lessons and `n - 2` copies of s04-hooks (x-01, x-02, …). */
function blog(n: number, root: string): string {
  const lessons = join(root, 'lessons');
  for (const id of ['s03-permissions', 's04-hooks']) cpSync(resolve('lessons', id), join(lessons, id), { recursive: true });
  for (let k = 1; k <= n - 2; k++) cpSync(resolve('lessons/s04-hooks'), join(lessons, `x-${String(k).padStart(2, '0')}`), { recursive: true });
  return lessons;
}

/** What a page makes the browser fetch before it can run: the page, its module scripts and preloads, its stylesheets. */
function pageBytes(out: string, page: string): { files: number; brotliKB: number } {
  const html = readFileSync(join(out, page, 'index.html'), 'utf8');
  const refs = [...html.matchAll(/<(?:script[^>]*\bsrc|link[^>]*\brel="(?:modulepreload|stylesheet)"[^>]*\bhref)="\/([^"]+)"/g)].map((m) => m[1]!);
  const files = [join(page, 'index.html'), ...new Set(refs)];
  const bytes = files.reduce((sum, file) => {
    const path = join(out, file);
    return sum + statSync(existsSync(`${path}.br`) ? `${path}.br` : path).size;
  }, 0);
  return { files: files.length, brotliKB: Math.round(bytes / 102.4) / 10 };
}

/** `lessons:check` over a lesson root, as an author runs it; its summary line gives the split. */
function check(lessons: string) {
  const started = performance.now();
  const run = spawnSync('node', ['--import', 'tsx', 'scripts/lessons-check.ts', ...lessonDirs(lessons)], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 1_800_000 });
  const wallS = (performance.now() - started) / 1000;
  const summary = /lessons:check: (\d+) passed, (\d+) failed/.exec(run.stdout);
  const time = /Python start ([\d.]+) s; (\d+) scenarios × 2 runtimes in ([\d.]+) s, ([\d.]+) ms each, of which the traced run ([\d.]+) ms/.exec(run.stdout);
  if (!summary || !time) throw new Error(`lessons:check gave no summary (exit ${run.status}): ${(run.stderr || run.stdout).slice(-800)}`);
  return { passed: Number(summary[1]), failed: Number(summary[2]), wallS: Math.round(wallS * 10) / 10, startS: Number(time[1]), scenarios: Number(time[2]), checkS: Number(time[3]), msPerScenario: Number(time[4]), tracedRunMs: Number(time[5]) };
}

function main() {
  const work = mkdtempSync(join(tmpdir(), 'steplight-blog-'));
  try {
    const built = SIZES.map((n) => {
      const lessons = blog(n, join(work, `blog-${n}`));
      const out = join(work, `dist-${n}`);
      const started = performance.now();
      execFileSync('npm', ['run', '-s', 'build'], { env: { ...process.env, STEPLIGHT_LESSONS: lessons, STEPLIGHT_OUT: out }, stdio: 'ignore' });
      const buildS = Math.round((performance.now() - started) / 100) / 10;
      return { lessons: n, root: lessons, buildS, lessonPage: pageBytes(out, 'lessons/s04-hooks'), index: pageBytes(out, '') };
    });
    const rounds = built.map(() => [] as ReturnType<typeof check>[]);
    for (let round = 0; round < ROUNDS; round++) built.forEach((b, i) => rounds[i]!.push(check(b.root)));
    const rows = built.map(({ root: _root, ...b }, i) => ({ ...b, check: rounds[i]!.reduce((best, r) => (r.wallS < best.wallS ? r : best)), checkRoundsS: rounds[i]!.map((r) => r.wallS) }));
    const [small, large] = rows as [(typeof rows)[0], (typeof rows)[0]];
    const ratio = (a: number, b: number) => Math.round((b / a) * 100) / 100;
    const results = {
      date: new Date().toISOString(),
      rows,
      ratios: {
        lessonPageBytes: ratio(small.lessonPage.brotliKB, large.lessonPage.brotliKB),
        indexBytes: ratio(small.index.brotliKB, large.index.brotliKB),
        checkWall: ratio(small.check.wallS, large.check.wallS),
        scenarios: ratio(small.check.scenarios, large.check.scenarios),
      },
      targets: {
        'lesson page with 50 lessons within 5 % of 2 lessons': large.lessonPage.brotliKB <= small.lessonPage.brotliKB * 1.05,
        'lessons:check with 50 lessons ≤ 4× the 2-lesson time': large.check.wallS <= small.check.wallS * 4,
      },
    };
    console.log('\nA blog of 2 lessons and of 50 (copies of s04-hooks): what a page sends (brotli), and lessons:check');
    console.table(rows.map((r) => ({ lessons: r.lessons, 'lesson page KB': r.lessonPage.brotliKB, 'index KB': r.index.brotliKB, 'check s (fastest)': r.check.wallS, 'every round s': r.checkRoundsS.join(' / '), 'Python start s': r.check.startS, scenarios: r.check.scenarios, 'ms per scenario': r.check.msPerScenario, 'traced run ms': r.check.tracedRunMs, 'build s': r.buildS })));
    console.table(results.ratios);
    console.table(Object.entries(results.targets).map(([target, met]) => ({ target, met })));
    mkdirSync('bench/results', { recursive: true });
    writeFileSync('bench/results/blog.json', `${JSON.stringify(results, null, 2)}\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main();
