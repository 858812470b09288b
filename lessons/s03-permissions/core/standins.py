"""Public stand-ins for the outside world in lesson 3."""


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


class FakeProcess:
    """Starts no program: records each run and answers with a chosen exit code."""

    def __init__(self, exit_code=0):
        self.exit_code = exit_code
        self.runs = []

    def run(self, program):
        self.runs.append(program)
        return {"exit_code": self.exit_code, "output": "all good" if self.exit_code == 0 else "tests failed"}
