/** For tests: every scenario of the hooks lesson as a request, and their traces as a runner records them. */
import { loadLesson } from '../lessons/load';
import { widgetRequest } from '../lessons/run';
import type { Runner } from './runner';

const lesson = loadLesson('lessons/s04-hooks');
export const hooksRequests = lesson.widgets.flatMap((w) => w.scenarios.map((s) => widgetRequest(lesson.files, w, s.id)));

/** Every scenario's trace without its timings, each run cleaned up after as in the page. */
export const hooksTraces = (runner: Runner) =>
  hooksRequests.map((request) => {
    const { stats: _, ...trace } = runner.run(request);
    runner.clean();
    return JSON.stringify(trace);
  });
