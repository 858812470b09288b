"""Public stand-ins for the outside world, so every lesson run is the same.

A real agent would ask a person, read a disk and start programs. Here each
of those is a small object whose behaviour the scenario chooses.
"""
import json


class ScriptedHost:
    """The person at the keyboard, answering permission questions from a script."""

    def __init__(self, answer):
        self.answer = answer
        self.questions = []

    def ask(self, call):
        self.questions.append(call["name"])
        return self.answer


class MemoryFiles:
    """A read-only disk: a dict from path to text."""

    def __init__(self, contents):
        self.contents = dict(contents)

    def read(self, path):
        if path not in self.contents:
            raise FileNotFoundError(path)
        return self.contents[path]


class AuditFile:
    """An audit log kept as JSON lines in a real file; it can be told to fail on one event."""

    def __init__(self, path, fail_on=None):
        self.path = path
        self.fail_on = fail_on
        with open(path, "w", encoding="utf-8"):
            pass

    def append(self, entry):
        if entry["event"] == self.fail_on:
            raise OSError(f"audit disk is full (writing the {entry['event']} entry)")
        with open(self.path, "a", encoding="utf-8") as log:
            log.write(json.dumps(entry) + "\n")

    def entries(self):
        with open(self.path, encoding="utf-8") as log:
            return [json.loads(line) for line in log]


class FakeProcess:
    """Starts no program: records each run and answers with a chosen exit code. A run that
    succeeds prints 42, as the lesson's main.py does."""

    def __init__(self, exit_code=0):
        self.exit_code = exit_code
        self.runs = []

    def run(self, program):
        self.runs.append(program)
        output = "42" if self.exit_code == 0 else "tests failed"
        return {"exit_code": self.exit_code, "output": output}
