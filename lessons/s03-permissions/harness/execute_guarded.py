# Teaching setup for execute_guarded: stand-ins for the person, the disk and the process.
from core.permissions import execute_guarded
from core.standins import FakeProcess, MemoryFiles, ScriptedHost

host = ScriptedHost(answer)
process = FakeProcess(0)
env = {"files": MemoryFiles({"notes.txt": "remember the milk"}), "process": process}

# The call entry: the function shown above runs here.
result = execute_guarded(call, env, host.ask)
outcome = {"result": result, "programs_run": process.runs, "host_was_asked": host.questions}
