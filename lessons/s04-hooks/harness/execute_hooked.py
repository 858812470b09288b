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
    # edits only this callback's copy: the real call is still run_main / run_1
    call["name"] = "write_file"
    call["id"] = "forged_1"
    return None


def scribble_after(payload):
    # the observer's copy of the result, not the result the caller gets
    payload["result"]["content"] = "edited by an observer"
    payload["call"]["id"] = "forged_1"
    return None


if mutate:
    hooks["before"].insert(0, scribble)
    hooks["after"].insert(0, scribble_after)

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
