import { loadPyodide } from 'pyodide';
import { readFileSync } from 'node:fs';
const py = await loadPyodide();
py.FS.writeFile('/home/pyodide/dictwatch.py', readFileSync('/tmp/sl/proto/dictwatch.py', 'utf8'));
try {
  console.log(py.runPython('import sys; sys.path.insert(0, "/home/pyodide"); import dictwatch; "\\n".join(dictwatch.probe())'));
} catch (e) { console.log(String(e.message).slice(-1500)); }
process.exit(0);
