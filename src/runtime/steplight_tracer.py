"""Steplight tracer: run a lesson harness and record one target function.

`run(request_json)` returns the trace (version 1) as JSON text. All state of a
run lives in one Recorder; the module itself keeps none, so runs are fresh.
Runs the same under CPython and Pyodide.
"""
import importlib
import importlib.util
import json
import os
import sys
import time
import traceback
import types

VERSION = 1
DEFAULT_LIMITS = {
    "maxSteps": 100_000,
    "timeoutMs": 5_000,
    "maxStdout": 100_000,
    "strLen": 200,
    "items": 50,
    "depth": 4,
}
CONTAINERS = ((dict, "dict"), (list, "list"), (tuple, "tuple"), (set, "set"), (frozenset, "frozenset"))
CALLABLES = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.LambdaType)
NONE, TRUE, FALSE = {"t": "none"}, {"t": "bool", "v": True}, {"t": "bool", "v": False}
SCALARS = {
    type(None): lambda enc, v: NONE,
    bool: lambda enc, v: TRUE if v else FALSE,
    int: lambda enc, v: enc.big_int(v),
    float: lambda enc, v: enc.float_value(v),
}
SHARED = {str, types.FunctionType, types.BuiltinFunctionType}


class StopRun(BaseException):
    """Raised from the trace function to end a run early (step cap or time limit)."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


class Output:
    """A capped stdout: keeps the first `cap` characters, counts the rest."""

    def __init__(self, cap):
        self.cap = cap
        self.parts = []
        self.length = 0
        self.dropped = 0

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError("write() argument must be str, not " + type(text).__name__)
        room = self.cap - self.length
        if room >= len(text):
            self.parts.append(text)
            self.length += len(text)
        else:
            if room > 0:
                self.parts.append(text[:room])
                self.length = self.cap
            self.dropped += len(text) - max(room, 0)
        return len(text)

    def flush(self):
        pass

    def text(self):
        return "".join(self.parts)


class Encoder:
    """Turns Python values into typed JSON values without running their code.

    Objects get small stable ids (#1, #2, ...) in order of first sight; the
    objects are kept alive for the run so an id is never reused.
    """

    def __init__(self, limits):
        self.str_len = limits["strLen"]
        self.items = limits["items"]
        self.depth = limits["depth"]
        self.refs = {}
        self.shared = {}  # id -> (object, its encoding) for values that never change

    def ref(self, obj):
        hit = self.refs.get(id(obj))
        if hit is None:
            hit = (len(self.refs) + 1, obj)
            self.refs[id(obj)] = hit
        return hit[0]

    def text(self, value, kind):
        out = {"t": kind, "v": value[: self.str_len]}
        if len(value) > self.str_len:
            out["len"] = len(value)
        return out

    def encode(self, value, depth=0, path=()):
        kind = type(value)
        fast = SCALARS.get(kind)
        if fast is not None:
            return fast(self, value)
        if kind in SHARED:
            # strings and functions do not change: encode each object once, share the result
            hit = self.shared.get(id(value))
            if hit is not None and hit[0] is value:
                return hit[1]
            out = self.text(value, "str") if kind is str else self.callable(value)
            self.shared[id(value)] = (value, out)
            return out
        if kind is bytes:
            return self.text(bytes.__repr__(value[: self.str_len]), "bytes")
        for base, name in CONTAINERS:
            if issubclass(kind, base):
                return self.container(value, base, name, kind, depth, path)
        if issubclass(kind, BaseException):
            return {
                "t": "exc",
                "type": kind.__name__,
                "id": self.ref(value),
                "args": [self.encode(a, depth + 1, path) for a in BaseException.__getattribute__(value, "args")[: self.items]],
            }
        if issubclass(kind, CALLABLES):
            return self.callable(value)
        if issubclass(kind, type):
            return {"t": "class", "name": type.__getattribute__(value, "__qualname__")}
        if kind is types.ModuleType:
            return {"t": "module", "name": value.__name__}
        return self.instance(value, kind, depth, path)

    def callable(self, value):
        name = getattr(value, "__qualname__", None) or getattr(value, "__name__", "?")
        return {"t": "func", "name": str(name), "id": self.ref(value)}

    def big_int(self, value):
        if -(2**53) < value < 2**53:
            return {"t": "int", "v": value}
        try:
            digits = int.__repr__(value)
        except ValueError:
            digits = "<int of %d bits>" % value.bit_length()
        return self.text(digits, "bigint")

    def float_value(self, value):
        return {"t": "float", "v": value if value == value and abs(value) != float("inf") else repr(value)}

    def container(self, value, base, name, kind, depth, path):
        ident = self.ref(value)
        out = {"t": name, "id": ident, "len": base.__len__(value)}
        if kind is not base:
            out["type"] = kind.__qualname__
        if id(value) in path:
            return {"t": "ref", "id": ident, "of": name}
        if depth >= self.depth:
            out["more"] = True
            return out
        inner = path + (id(value),)
        count = 0
        if base is dict:
            entries = []
            for key, item in dict.items(value):
                if count == self.items:
                    break
                entries.append([self.encode(key, depth + 1, inner), self.encode(item, depth + 1, inner)])
                count += 1
            out["entries"] = entries
        else:
            items = []
            for item in base.__iter__(value):
                if count == self.items:
                    break
                items.append(self.encode(item, depth + 1, inner))
                count += 1
            out["items"] = items
        return out

    def instance(self, value, kind, depth, path):
        ident = self.ref(value)
        out = {"t": "obj", "type": kind.__qualname__, "id": ident}
        try:
            attrs = object.__getattribute__(value, "__dict__")
        except (AttributeError, TypeError):
            return out
        if type(attrs) is not dict or id(value) in path:
            return out
        if depth >= self.depth:
            out["more"] = True
            return out
        inner = path + (id(value),)
        out["attrs"] = {
            str(k): self.encode(v, depth + 1, inner) for k, v in list(dict.items(attrs))[: self.items]
        }
        return out


def exception_text(error):
    """str(error) through the nearest builtin __str__, which runs no lesson code of the class; its
    argument's own __str__ may still raise, and then the text says so instead."""
    for base in type(error).__mro__:
        if base.__module__ == "builtins" and "__str__" in base.__dict__:
            try:
                text = base.__str__(error)
                return text if type(text) is str else "<unprintable %s>" % type(error).__name__
            except Exception:
                return "<unprintable %s>" % type(error).__name__
    return ""


def describe_exception(error, root=None):
    if isinstance(error, SyntaxError) and root is not None:
        filename = error.filename or ""
        where = filename[len(root):] if filename.startswith(root) else os.path.basename(filename)
        return {"type": type(error).__name__, "message": "%s (%s, line %s)" % (error.msg, where, error.lineno)}
    return {"type": type(error).__name__, "message": exception_text(error)}


class Recorder:
    """Records call/line/return/exception events of one code object."""

    def __init__(self, target_code, limits, output):
        self.code = target_code
        self.limits = limits
        self.output = output
        self.encoder = Encoder(limits)
        self.steps = []
        self.frames = {}  # id(frame) -> last encoded locals
        self.unwinding = set()  # frames whose last event was an exception
        self.truncated = None
        self.deadline = time.perf_counter() + limits["timeoutMs"] / 1000

    def global_trace(self, frame, event, arg):
        if frame.f_code is self.code:
            self.record(frame, "call", arg)
            return self.local_trace
        return None

    def local_trace(self, frame, event, arg):
        self.record(frame, event, arg)
        return self.local_trace

    def record(self, frame, event, arg):
        steps = self.steps
        if len(steps) >= self.limits["maxSteps"]:
            self.stop("steps")
        if not len(steps) & 255 and time.perf_counter() > self.deadline:
            self.stop("time")
        key = id(frame)
        before = self.frames.get(key)
        depth = len(self.frames) + (before is None)  # target frames on the stack, this one included
        current = {name: self.encoder.encode(value) for name, value in list(frame.f_locals.items())}
        step = {"event": event, "line": frame.f_lineno, "depth": depth, "stdoutLen": self.output.length}
        if before is None:
            step["locals"] = current
        else:
            changes = {name: value for name, value in current.items() if before.get(name) != value}
            if changes:
                step["changes"] = changes
            removed = [name for name in before if name not in current]
            if removed:
                step["removed"] = removed
        self.frames[key] = current
        if event == "exception":
            step["exception"] = describe_exception(arg[1])
            self.unwinding.add(key)
        elif event == "return":
            if key in self.unwinding:
                step["exception"] = steps[-1].get("exception") if steps else None
            else:
                step["value"] = self.encoder.encode(arg)
            del self.frames[key]
            self.unwinding.discard(key)
        else:
            self.unwinding.discard(key)
        steps.append(step)

    def stop(self, reason):
        self.truncated = reason
        sys.settrace(None)
        raise StopRun(reason)


def purge_modules(root):
    for name, module in list(sys.modules.items()):
        location = getattr(module, "__file__", None) or ""
        if location.startswith(root):
            del sys.modules[name]


def resolve(module_name, symbol):
    target = importlib.import_module(module_name)
    for part in symbol.split("."):
        target = getattr(target, part)
    target = getattr(target, "__func__", target)
    code = getattr(target, "__code__", None)
    if code is None:
        raise TypeError("%s.%s is not a Python function" % (module_name, symbol))
    return code


def module_name(path):
    stem = path[:-3] if path.endswith(".py") else path
    return stem.replace("/", ".")


def lesson_frames(tb, root):
    """The traceback frames that belong to the lesson (its files and its harness)."""
    return [
        {"file": frame.filename[len(root):], "line": frame.lineno, "name": frame.name}
        for frame in traceback.extract_tb(tb)
        if frame.filename.startswith(root)
    ]


def write_files(root, files):
    """Write the lesson's files; an unchanged file is left alone, so its cached bytecode stays valid."""
    for rel, text in files.items():
        path = os.path.join(root, rel)
        try:
            with open(path, encoding="utf-8") as handle:
                if handle.read() == text:
                    continue
        except OSError:
            os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        if path.endswith(".py"):
            try:  # same size, same second: the old bytecode would still look valid
                os.remove(importlib.util.cache_from_source(path))
            except OSError:
                pass


def prepare(request_json):
    """Write a lesson's files and compile its modules to bytecode ahead of its first run."""
    import py_compile

    request = json.loads(request_json)
    root = request["root"].rstrip("/") + "/"
    write_files(root, request["files"])
    for rel in request["files"]:
        if rel.endswith(".py"):
            try:
                py_compile.compile(os.path.join(root, rel), doraise=True)
            except py_compile.PyCompileError:
                pass  # the run will report it


def uninterrupted(action, *args):
    """Run the tracer's own bookkeeping to the end even if a host interrupt meant for the lesson
    lands in it (the host repeats an ignored interrupt, so each retry may see another)."""
    while True:
        try:
            return action(*args)
        except KeyboardInterrupt:
            continue


def run(request_json):
    """Run one request: {root, files, target:{file,symbol}, harness:{file,code}, limits}.

    harness.code is the full harness text, scenario inputs already prepended."""
    request, limits, root, target, started, trace, output, saved = uninterrupted(begin, request_json)
    recorder = None
    try:
        try:
            write_files(root, request["files"])
            purge_modules(root)
            importlib.invalidate_caches()
            sys.path.insert(0, root)
            sys.dont_write_bytecode = False  # cached bytecode makes the re-import of each run cheap
            os.chdir(root)
            code = resolve(module_name(target["file"]), target["symbol"])
            trace["target"]["firstLine"] = code.co_firstlineno
            trace["target"]["lastLine"] = max(line for _, _, line in code.co_lines() if line is not None)
            harness = request["harness"]
            compiled = compile(harness["code"], os.path.join(root, harness["file"]), "exec")
            namespace = {"__name__": "__steplight_harness__", "__file__": os.path.join(root, harness["file"])}
            recorder = Recorder(code, limits, output)
            sys.stdout = sys.stderr = output
            sys.settrace(recorder.global_trace)
            try:
                exec(compiled, namespace)
            finally:
                sys.settrace(None)
                sys.stdout, sys.stderr = saved[0], saved[1]
            if "outcome" in namespace:
                trace["outcome"] = recorder.encoder.encode(namespace["outcome"])
        except StopRun as stop:
            trace["error"] = stop_error(stop.reason, limits)
        except KeyboardInterrupt:
            trace["error"] = stop_error("time", limits)
            if recorder is not None:
                recorder.truncated = "time"
        except BaseException as error:  # the lesson's own failure is data, not a crash
            sys.stdout, sys.stderr = saved[0], saved[1]
            trace["error"] = uninterrupted(lambda: dict(describe_exception(error, root), frames=lesson_frames(error.__traceback__, root)))
    except KeyboardInterrupt:  # an interrupt that landed in one of the handlers above
        trace.setdefault("error", stop_error("time", limits))
    finally:
        uninterrupted(restore, saved, root)
    return uninterrupted(finish, trace, recorder, output, limits, started)


def begin(request_json):
    request = json.loads(request_json)
    limits = dict(DEFAULT_LIMITS, **request.get("limits", {}))
    root = request["root"].rstrip("/") + "/"
    target = request["target"]
    trace = {"version": VERSION, "target": dict(target), "steps": [], "stdout": ""}
    saved = sys.stdout, sys.stderr, os.getcwd(), sys.getrecursionlimit(), sys.dont_write_bytecode, list(sys.path)
    return request, limits, root, target, time.perf_counter(), trace, Output(limits["maxStdout"]), saved


def restore(saved, root):
    """Undo what a run changed in the interpreter; a run leaves nothing behind (lessons with
    same-named packages must not see each other)."""
    sys.settrace(None)
    sys.stdout, sys.stderr = saved[0], saved[1]
    os.chdir(saved[2])
    sys.setrecursionlimit(saved[3])
    sys.dont_write_bytecode = saved[4]
    sys.path[:] = saved[5]
    purge_modules(root)


def finish(trace, recorder, output, limits, started):
    if recorder is not None:
        trace["steps"] = recorder.steps
        if recorder.truncated:
            trace["truncated"] = recorder.truncated
            trace.setdefault("error", stop_error(recorder.truncated, limits))
    trace["stdout"] = output.text()
    if output.dropped:
        trace["stdoutDropped"] = output.dropped
    trace["stats"] = {"events": len(trace["steps"]), "durationMs": round((time.perf_counter() - started) * 1000, 3)}
    return json.dumps(trace, ensure_ascii=False, allow_nan=False)


def stop_error(reason, limits):
    if reason == "steps":
        return {"type": "StepLimit", "message": "stopped after %d steps (the step cap)" % limits["maxSteps"]}
    return {"type": "Timeout", "message": "stopped after %d ms (the time limit)" % limits["timeoutMs"]}


def watchdog(seconds):
    """CPython host: interrupt the main thread when the run outlives its limit, and again every
    200 ms while lesson code swallows KeyboardInterrupt (as the Node and browser hosts do)."""
    import _thread
    import threading

    def guard():
        time.sleep(seconds)
        while True:
            _thread.interrupt_main()
            time.sleep(0.2)

    threading.Thread(target=guard, daemon=True).start()


def main():
    request_json = sys.stdin.read()
    limits = dict(DEFAULT_LIMITS, **json.loads(request_json).get("limits", {}))
    watchdog(limits["timeoutMs"] / 1000 + 0.5)
    out = run(request_json)
    import signal

    uninterrupted(signal.signal, signal.SIGINT, signal.SIG_IGN)  # the run is over: a late interrupt must not cut the output
    sys.stdout.write(out)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
