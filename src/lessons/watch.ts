/**
 * lessons:check --watch: after the first check, the same Pyodide and CPython stay up and a lesson is
 * checked again each time one of its files is saved (about a second for s04-hooks, instead of
 * Python's 3–4 s start-up and every other lesson). Node only.
 */
import { watch, type FSWatcher } from 'node:fs';
import { basename } from 'node:path';
import type { CpythonHost } from '../runtime/node';
import type { CheckPyodide } from '../runtime/pyodide-thread';
import { checkLessons } from './check';

/** Files whose saving means nothing for the lesson: bytecode, editors' swap and backup files. */
const IGNORED = /(^|[/\\])(__pycache__|\.git)([/\\]|$)|\.(pyc|swp|swx|tmp)$|~$|^\.#|[/\\]\.#/;

export interface Watching {
  close(): void;
  /** Resolves when the checks asked for so far are done (tests). */
  idle(): Promise<void>;
}

/** Watch the lessons at `dirs`; a save re-checks its lesson after `quietMs` without another save. */
export function watchLessons(dirs: string[], pyodide: CheckPyodide, cpython: CpythonHost, log: (line: string) => void = console.log, quietMs = 200): Watching {
  const due = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let queue = Promise.resolve();
  const recheck = () => {
    timer = undefined;
    const lessons = [...due];
    due.clear();
    queue = queue.then(async () => {
      const started = performance.now();
      const r = await checkLessons(lessons, pyodide, log, cpython);
      log(`lessons:check ${lessons.map((d) => basename(d)).join(', ')}: ${r.passed} passed, ${r.failed} failed${r.warnings ? `, ${r.warnings} warnings` : ''} in ${((performance.now() - started) / 1000).toFixed(1)} s; watching for changes`);
    });
  };
  const watchers: FSWatcher[] = dirs.map((dir) =>
    watch(dir, { recursive: true }, (_event, name) => {
      if (name && IGNORED.test(name)) return;
      due.add(dir);
      clearTimeout(timer);
      timer = setTimeout(recheck, quietMs);
    }).on('error', (error) => log(`FAIL ${basename(dir)}: cannot watch it any more (${error.message}); start the check again`)),
  );
  log(`watching ${dirs.length} lesson${dirs.length === 1 ? '' : 's'}: a saved file checks its lesson again (Ctrl-C to stop)`);
  return {
    close() {
      clearTimeout(timer);
      watchers.forEach((w) => w.close());
    },
    idle: async () => {
      while (timer) await new Promise((resolve) => setTimeout(resolve, quietMs));
      await queue;
    },
  };
}
