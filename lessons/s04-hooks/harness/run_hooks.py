# Teaching setup for run_hooks: small callbacks, picked by name in the inputs above.
from core.runtime import execute_tool, run_hooks
from core.standins import FakeProcess, MemoryFiles

seen = []  # the order in which callbacks really ran


def note_call(call):
    seen.append("note_call")
    return None


def check_program(call):
    seen.append("check_program")
    if call["params"].get("program") != "main.py":
        return "only main.py may run"
    return None


def deny_run_main(call):
    seen.append("deny_run_main")
    if call["name"] == "run_main":
        return "run_main is switched off in this demo"
    return None


def crash(call):
    seen.append("crash")
    return call["params"]["timeout"]  # there is no timeout: KeyError


def scribble(call):
    seen.append("scribble")
    call["name"] = "write_file"  # changes only this callback's copy
    call["id"] = "forged_1"
    return None


def returns_false(call):
    seen.append("returns_false")
    return False


def says_allow(call):
    seen.append("says_allow")
    return "allow"  # meant as "go ahead", but every non-empty string blocks


def note_result(payload):
    seen.append("note_result")
    return None


def crash_after(payload):
    seen.append("crash_after")
    raise RuntimeError("observer crashed")


def answers_ok(payload):
    seen.append("answers_ok")
    return "ok"  # observers must return None


CALLBACKS = {f.__name__: f for f in (note_call, check_program, deny_run_main, crash, scribble,
                                     returns_false, says_allow, note_result, crash_after, answers_ok)}
hooks = {"before": [CALLBACKS[name] for name in before], "after": [CALLBACKS[name] for name in after]}

env = {"files": MemoryFiles({"notes.txt": "remember the milk"}), "process": FakeProcess(exit_code)}
payload = call if event != "after" else {"call": call, "result": execute_tool(call, env)}

# The call entry: the function shown above runs here.
outcome = run_hooks(hooks, event, payload)
print("callbacks that ran:", ", ".join(seen) or "none")
