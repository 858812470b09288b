"""An independent, minimal recorder: the yardstick for steplight_tracer in differential tests and in
lessons:check. It is not the product and shares no code with it.

Plain `sys.settrace` over the target's frames (matched by file, function name and first line);
every step carries the frame's full locals, encoded in the trace's value format (ids may be
numbered differently: comparisons map them one to one). Whether a frame returned or raised is told
by `sys.monitoring`'s PY_UNWIND event where it exists (3.12+), else by the instruction the frame
left from. Runs under CPython (`python3 reference_recorder.py < request.json`) and Pyodide (`record`).
"""
import dis
import importlib.util
import json
import os
import sys
import types

TOOL = 4  # a sys.monitoring tool id the product never uses
# bound at import: a lesson that patches json.dumps changes its own code, not this report of its run
loads = json.loads


def _encoder():
    """Compact ASCII JSON through _json's C encoder, made at import (not json.dumps, whose defaults
    and encoder class lesson code can change before the run is reported)."""
    from _json import encode_basestring_ascii, make_encoder

    def default(value):
        raise TypeError(type(value).__name__)

    encode = make_encoder(None, default, encode_basestring_ascii, None, ":", ",", False, False, False)
    return lambda value: "".join(encode(value, 0))


dumps = _encoder()


class Values:
    def __init__(self, limits):
        self.limits = limits
        self.cap = limits["strLen"]
        self.ids = {}
        self.keep = []

    def ident(self, obj):
        number = self.ids.get(id(obj))
        if number is None:
            number = self.ids[id(obj)] = len(self.ids) + 1
            self.keep.append(obj)
        return number

    def clip(self, kind, text):
        if len(text) <= self.cap:
            return {"t": kind, "v": text}
        return {"t": kind, "v": text[: self.cap], "len": len(text)}

    def __call__(self, v, depth=0, seen=()):
        t = type(v)
        # the commonest first (the same answers as the chain below gives them)
        if t is str:
            return {"t": "str", "v": v} if len(v) <= self.cap else self.clip("str", v)
        if t is dict or t is list:
            return self.container(v, t, depth, seen)
        if t is types.FunctionType:
            return {"t": "func", "name": v.__qualname__ or v.__name__, "id": self.ident(v)}
        lim = self.limits
        if v is None:
            return {"t": "none"}
        if t is bool:
            return {"t": "bool", "v": v}
        if t is int:
            return {"t": "int", "v": v} if abs(v) < 2**53 else self.clip("bigint", int.__repr__(v))
        if t is float:
            return {"t": "float", "v": v if v == v and v not in (float("inf"), float("-inf")) else repr(v)}
        if t is bytes:
            out = {"t": "bytes", "v": repr(v[: lim["strLen"]])}
            return dict(out, len=len(v)) if len(v) > lim["strLen"] else out
        if t in (bytearray, memoryview):
            try:
                raw = bytes(v) if t is bytearray else v.tobytes()
            except ValueError:  # a released memoryview (the format says "<released>", and no length)
                return {"t": "bytes", "type": t.__name__, "id": self.ident(v), "v": "<released>"}
            return {"t": "bytes", "type": t.__name__, "id": self.ident(v), "v": repr(raw[: lim["strLen"]]), "len": len(raw)}
        for base in (dict, list, tuple, set, frozenset):
            if isinstance(v, base):
                return self.container(v, base, depth, seen)
        if isinstance(v, BaseException):
            return {"t": "exc", "type": t.__qualname__, "id": self.ident(v), "args": [self(a, depth + 1, seen) for a in v.args[: lim["items"]]]}
        if isinstance(v, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
            return {"t": "func", "name": getattr(v, "__qualname__", None) or v.__name__, "id": self.ident(v)}
        if isinstance(v, type):
            return {"t": "class", "name": v.__qualname__}
        if t is types.ModuleType:
            return {"t": "module", "name": v.__dict__.get("__name__", "?")}
        return self.instance(v, t, depth, seen)

    def container(self, v, base, depth, seen):
        lim = self.limits
        name = base.__name__
        out = {"t": name, "id": self.ident(v), "len": len(v)}
        if type(v) is not base:
            out["type"] = type(v).__qualname__
        if id(v) in seen:
            return {"t": "ref", "id": out["id"], "of": name}
        if depth >= lim["depth"]:
            return dict(out, more=True)
        seen = seen + (id(v),)
        if base is dict:
            out["entries"] = [[self(k, depth + 1, seen), self(x, depth + 1, seen)] for k, x in list(dict.items(v))[: lim["items"]]]
        else:
            out["items"] = [self(x, depth + 1, seen) for x in list(base.__iter__(v))[: lim["items"]]]
        return out

    def instance(self, v, t, depth, seen):
        lim = self.limits
        out = {"t": "obj", "type": t.__qualname__, "id": self.ident(v)}
        try:
            fields = list(vars(v).items())
        except Exception:  # no __dict__, or one that cannot be read
            fields = []
        for cls in t.__mro__:
            slots = cls.__dict__.get("__slots__", ())
            for slot in [slots] if isinstance(slots, str) else slots:
                if slot in ("__dict__", "__weakref__"):
                    continue
                stored = "_" + cls.__name__.lstrip("_") + slot if slot.startswith("__") and not slot.endswith("__") else slot
                try:
                    fields.append((slot, cls.__dict__[stored].__get__(v, t)))
                except (AttributeError, KeyError):
                    pass
        if not fields or id(v) in seen:
            return out
        if depth >= lim["depth"]:
            return dict(out, more=True)
        out["attrs"] = {k: self(x, depth + 1, seen + (id(v),)) for k, x in fields[: lim["items"]]}
        return out


def left_normally(frame, known):
    """Python 3.11: did the frame leave through a return or a yield (not an exception)? `known`:
    the answers so far in this run, by code object and instruction."""
    key = (frame.f_code, frame.f_lasti)
    if key not in known:
        known[key] = next((ins.opname in ("RETURN_VALUE", "RETURN_CONST", "YIELD_VALUE") for ins in dis.get_instructions(frame.f_code) if ins.offset == frame.f_lasti), True)
    return known[key]


def write(path, text):
    """Write a lesson file unless it already holds `text` (a host may have written it, and compiled
    it, ahead of the run); a rewritten module's cached bytecode is removed, as it could look valid."""
    try:
        with open(path, encoding="utf-8") as handle:
            if handle.read() == text:
                return
    except OSError:
        os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    try:
        os.remove(importlib.util.cache_from_source(path))
    except (OSError, ValueError):
        pass


def record(request_json, traced=True, written=False):
    """Run the request's harness; return {steps, outcome, stdout, error} as JSON (for Pyodide, or
    main()). With traced=False nothing is recorded: what the code does with no tracer at all.
    `written`: the host wrote the lesson's files as given just before (else they are written here)."""
    request = loads(request_json)
    limits = {"strLen": 200, "items": 50, "depth": 4}
    limits.update({k: v for k, v in request.get("limits", {}).items() if k in limits})
    root = request["root"].rstrip("/") + "/"
    if not written:
        for rel, text in request["files"].items():
            write(root + rel, text)
    # the target (0) and the callees (1, 2, ...): a callee's frames are recorded under the target's
    wanted = [(root + t["file"], t["symbol"].split(".")[-1], t.get("firstLine", 0), t.get("lastLine", 10**9)) for t in [request["target"]] + request.get("callees", [])]
    values = Values(limits)
    steps, live, returned, last_raised, exits = [], [], {}, {}, {}
    out_of_steps = request.get("limits", {}).get("maxSteps", 100_000)

    def safe(x):
        try:
            return values(x)
        except Exception as e:
            return {"t": "obj", "type": type(x).__qualname__, "id": values.ident(x), "unreadable": type(e).__name__}

    def traced_as(code):
        for number, (path, name, first, last) in enumerate(wanted):
            if code.co_filename == path and code.co_name == name and first <= code.co_firstlineno <= last:
                return number
        return None

    def local(frame, event, arg):
        if event not in ("call", "line", "return", "exception") or len(steps) >= out_of_steps:
            return local
        if event == "call":
            live.append(frame)
        step = {"event": event, "line": frame.f_lineno, "depth": len(live), "fn": traced_as(frame.f_code), "locals": {k: safe(x) for k, x in frame.f_locals.items()}}
        if event == "exception":
            step["raised"] = last_raised[id(frame)] = type(arg[1]).__name__
        if event == "return":
            live.remove(frame)
            if hasattr(sys, "monitoring") or left_normally(frame, exits):
                step["value"] = safe(arg)
                returned[id(frame)] = step
            else:  # Python 3.11: the exception in flight is the last one raised in the frame
                step["raised"] = last_raised.get(id(frame), "?")
        steps.append(step)
        return local

    def unwind(code, offset, exc):
        if traced_as(code) is not None:
            step = returned.pop(id(sys._getframe(1)), None)
            if step is not None:
                del step["value"]
                step["raised"] = type(exc).__name__

    def call(frame, event, arg):
        number = traced_as(frame.f_code)
        return local(frame, event, arg) if number == 0 or (number and live) else None

    monitoring = getattr(sys, "monitoring", None)
    if monitoring:
        monitoring.use_tool_id(TOOL, "steplight-reference")
        monitoring.register_callback(TOOL, monitoring.events.PY_UNWIND, unwind)
        monitoring.set_events(TOOL, monitoring.events.PY_UNWIND)
    saved = sys.path[:], os.getcwd(), sys.stdout, sys.stderr, sys.stdin
    sys.path.insert(0, root)
    os.chdir(root)
    for mod in [m for m, module in sys.modules.items() if (getattr(module, "__file__", "") or "").startswith(root)]:
        del sys.modules[mod]

    printed = []

    class Sink:
        def write(self, text):
            printed.append(text)
            return len(text)

        def flush(self):
            pass

        def readline(self, *args):
            raise EOFError("no input")

    sys.stdout = sys.stderr = sys.stdin = Sink()
    namespace = {"__name__": "__steplight_reference__"}
    error = None
    if traced:
        sys.settrace(call)
    try:
        exec(compile(request["harness"]["code"], root + request["harness"]["file"], "exec"), namespace)
    except BaseException as e:
        error = type(e).__name__
    finally:
        sys.settrace(None)
        if monitoring:
            monitoring.set_events(TOOL, 0)
            monitoring.register_callback(TOOL, monitoring.events.PY_UNWIND, None)
            monitoring.free_tool_id(TOOL)
        sys.path[:], cwd, sys.stdout, sys.stderr, sys.stdin = saved
        os.chdir(cwd)
        for mod in [m for m, module in sys.modules.items() if (getattr(module, "__file__", "") or "").startswith(root)]:
            del sys.modules[mod]
    outcome = safe(namespace["outcome"]) if "outcome" in namespace else None
    return dumps({"steps": steps, "outcome": outcome, "stdout": "".join(printed), "error": error})


if __name__ == "__main__":
    sys.stdout.write(record(sys.stdin.read(), traced="--untraced" not in sys.argv))
