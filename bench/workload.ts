/**
 * The hook workload: an agent session of `calls` tool calls, each through execute_hooked with the
 * course hooks (audit before, maintenance check, audit after), half of them reads and half runs.
 * The traced function is run_hooks (about 31 steps per tool call).
 */
export const harness = (calls: number) => `from core.runtime import build_hooks, execute_hooked
from core.standins import FakeProcess, MemoryFiles
log = []
hooks = build_hooks(log)
env = {"files": MemoryFiles({"notes.txt": "remember the milk"}), "process": FakeProcess(0)}
for i in range(${calls}):
    if i % 2:
        call = {"id": "c%d" % i, "name": "read_file", "params": {"path": "notes.txt"}}
    else:
        call = {"id": "c%d" % i, "name": "run_main", "params": {"program": "tests.py"}}
    outcome = execute_hooked(call, hooks, env, lambda call: True)
`;
export const STEPS_PER_CALL = 31;
