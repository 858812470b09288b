/**
 * The site's memory snapshot (scripts/snapshot.ts) is made in Node by the build and started from
 * in the reader's browser: a Python started from it must record what a Python started cold from the
 * same files records, with the same environment, and it must be refused cleanly when spoiled.
 */
import { expect, test } from 'vitest';
import { hooksRequests, hooksTraces } from '../src/runtime/hooks-traces';
import { createRunner, refreshTimeZone } from '../src/runtime/runner';
import { fromSparse } from '../src/runtime/sparse';
import { tracerSource } from '../src/runtime/node';
import { inServedFolder, makeSnapshot, startPython } from './snapshot';
import { servedPyodide } from './stdlib';

const ENVIRONMENT = 'import os, sys\nrepr((sorted(os.environ.items()), os.getcwd(), sys.path, sorted(sys.modules)))';

test("a Python started from the site's snapshot records the same traces as one started cold, in the same environment", async () => {
  await inServedFolder(servedPyodide(), async (indexURL) => {
    const stored = await makeSnapshot(indexURL);
    const cold = await startPython(indexURL);
    const coldRunner = createRunner(cold, tracerSource());
    const expected = hooksTraces(coldRunner);
    const coldEnvironment = cold.runPython(ENVIRONMENT) as string;

    const warm = await startPython(indexURL, { _loadSnapshot: fromSparse(stored) });
    const warmRunner = createRunner(warm, tracerSource());
    const environment = warm.runPython(ENVIRONMENT) as string;
    expect(hooksTraces(warmRunner)).toEqual(expected);
    expect(JSON.parse(expected[0]!).steps.length).toBeGreaterThan(0);
    // the build machine leaks nothing into the reader's Python (Emscripten's `_` is the script's path in Node)
    expect(environment).not.toContain(process.cwd());
    expect(environment).toContain("('LANG', 'C.UTF-8')");
    // a cold start imports less (the runner's preloads come later, at its first run); what both have must agree
    expect(environment.split('[')[1]).toBe(coldEnvironment.split('[')[1]); // os.environ
    // spoiled: Pyodide refuses it with an error (the worker then starts cold), it does not hang
    const spoiled = fromSparse(stored).fill(0x5a);
    await expect(startPython(indexURL, { _loadSnapshot: spoiled })).rejects.toThrow(/magic/);
  });
}, 240_000);

test("a Python started from a snapshot made in another time zone reports the reader's zone, as a cold start does", async () => {
  const ZONE = 'import time\nrepr((time.timezone, time.altzone, time.daylight, time.tzname, time.strftime("%Z %z", time.localtime(0)), time.localtime(0).tm_hour))';
  const was = process.env.TZ;
  await inServedFolder(servedPyodide(), async (indexURL) => {
    try {
      process.env.TZ = 'UTC'; // the build machine
      const stored = await makeSnapshot(indexURL);
      process.env.TZ = 'America/Santiago'; // the reader: UTC-4, with daylight saving time in the southern summer
      const cold = await startPython(indexURL);
      const expected = cold.runPython(ZONE) as string;
      expect(expected).toContain('-0400');
      const warm = await startPython(indexURL, { _loadSnapshot: fromSparse(stored) });
      expect(warm.runPython(ZONE)).not.toBe(expected); // as the snapshot has it: UTC
      const runner = createRunner(warm, tracerSource());
      refreshTimeZone(warm);
      expect(warm.runPython(ZONE)).toBe(expected);
      // kept by the baseline: a run that changes the zone constants has them put back as refreshed
      runner.run(hooksRequests[0]!);
      warm.runPython('import time\ntime.timezone = 1');
      runner.clean();
      expect(warm.runPython(ZONE)).toBe(expected);
    } finally {
      process.env.TZ = was;
    }
  });
}, 240_000);
