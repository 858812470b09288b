# Teaching setup for execute_hooked: the course hooks, with stand-ins for the world.
import os
import tempfile

from core.runtime import build_hooks, execute_hooked
from core.standins import AuditFile, FakeProcess, MemoryFiles, ScriptedHost

host = ScriptedHost(answer)
process = FakeProcess(exit_code)
env = {"files": MemoryFiles({"notes.txt": "remember the milk"}), "process": process}
log = AuditFile(os.path.join(tempfile.mkdtemp(), "audit.jsonl"), fail_on=audit_fails_on)
hooks = build_hooks(log, maintenance=maintenance)


def scribble(call):
    call["params"]["program"] = "rm -rf /"  # changes only this callback's copy
    return None


if mutate:
    hooks["before"].insert(0, scribble)

# The call entry: the function shown above runs here.
report = execute_hooked(call, hooks, env, host.ask)
outcome = {
    "result": report["result"],
    "warnings": report["warnings"],
    "programs_run": process.runs,
    "host_was_asked": host.questions,
    "audit": log.entries(),
}
print(report["result"]["content"])
