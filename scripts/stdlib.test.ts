/** The standard library archive the site serves: the same files, stored, and Python imports from it. */
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { loadPyodide } from 'pyodide';
import { describe, expect, it } from 'vitest';
import { storedStdlib } from './stdlib';

const PYODIDE = dirname(createRequire(import.meta.url).resolve('pyodide'));
const ORIGINAL = join(PYODIDE, 'python_stdlib.zip');

/** name, compression method and CRC of every entry, in archive order (Python's zipfile reads them). */
function entries(zip: string): [string, number, number][] {
  const read = spawnSync(process.env.PYTHON ?? 'python3', ['-c', 'import sys, json, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nz.testzip()\nprint(json.dumps([[i.filename, i.compress_type, i.CRC] for i in z.infolist()]))', zip], { encoding: 'utf8' });
  expect(read.status, read.stderr).toBe(0);
  return JSON.parse(read.stdout) as [string, number, number][];
}

describe('the stored standard library', () => {
  it('holds every file of Pyodide\'s archive, byte for byte and in the same order, none of them deflated', () => {
    const before = entries(ORIGINAL);
    const after = entries(storedStdlib(ORIGINAL));
    expect(before.filter(([, method]) => method === 8).length).toBeGreaterThan(500); // deflated as shipped
    expect(after.map(([name, , crc]) => [name, crc])).toEqual(before.map(([name, , crc]) => [name, crc]));
    expect(after.every(([, method]) => method === 0)).toBe(true);
  });

  it('is the archive Python starts from and imports from', async () => {
    const stored = storedStdlib(ORIGINAL);
    const py = await loadPyodide({ indexURL: `${PYODIDE}/`, stdLibURL: stored });
    expect((py.FS.stat('/lib/python314.zip') as { size: number }).size).toBe(statSync(stored).size); // this archive, not the shipped one
    const out = py.runPython('import json, asyncio, email.message, zipimport, sys\nm = email.message.EmailMessage()\nm["Subject"] = "hi"\njson.dumps({"s": m["Subject"], "zip": sys.modules["json"].__file__})');
    expect(JSON.parse(out as string)).toEqual({ s: 'hi', zip: expect.stringMatching(/python314\.zip\/json\/__init__\.py$/) });
  });
});
