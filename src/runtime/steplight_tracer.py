"""Steplight tracer: run a lesson harness and record one target function.

`run(request_json)` returns the trace (version 1) as JSON text. All state of a
run lives in one Recorder; the module itself keeps none, so runs are fresh.
Runs the same under CPython and Pyodide.
"""
import dis
import importlib
import importlib.util
import json
import marshal
import os
import signal
import stat
import sys
import threading
import time
import traceback
import types
import zlib
from itertools import chain, islice
from operator import attrgetter, is_

# The recorder's own references to the builtins and to json, bound at import: a lesson that patches
# builtins.len or json.dumps changes its own code, never how its run is recorded or reported.
globals().update({name: value for name, value in vars(__import__("builtins")).items() if not name.startswith("__")})
json_loads = json.loads


def make_json_dumps():
    """json.dumps (compact; ASCII unless told) through _json's C encoder, made here at import: a
    run's result is written before the run is cleaned up after, so it must not go through what
    lesson code can change meanwhile (json.dumps's defaults or body, JSONEncoder's methods)."""
    from _json import encode_basestring, encode_basestring_ascii, make_encoder

    def default(value):
        raise TypeError("%s is not JSON" % type(value).__name__)

    encoders = {ascii: make_encoder(None, default, encode_basestring_ascii if ascii else encode_basestring, None, ":", ",", False, False, False) for ascii in (False, True)}

    def dumps(value, ascii=True):
        return "".join(encoders[ascii](value, 0))

    return dumps


json_dumps = make_json_dumps()
zlib_compressobj = zlib.compressobj


def pack(text):
    """JSON text as the page's worker posts it: ASCII (every other character escaped, so a lone
    surrogate in a value arrives as it was), raw deflate, inflated by the page with
    DecompressionStream("deflate-raw"). A trace repeats itself step after step: 160-280 bytes a
    step as JSON, 4-9 packed from 1k steps on. Compressed with the compressor bound at import, at
    level 3: at 100k steps 3x faster than level 6 (40-65 ms instead of 145-160) for 4.7 bytes a step
    instead of 4.0."""
    packer = zlib_compressobj(3, zlib.DEFLATED, -15)
    return packer.compress(text.encode("ascii")) + packer.flush()


VERSION = 1
DEFAULT_LIMITS = types.MappingProxyType({
    "maxSteps": 100_000,
    "timeoutMs": 5_000,
    "maxStdout": 100_000,
    "strLen": 200,
    "items": 50,
    "depth": 4,
})
CONTAINERS = ((dict, "dict"), (list, "list"), (tuple, "tuple"), (set, "set"), (frozenset, "frozenset"))
CALLABLES = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.LambdaType)
NONE, TRUE, FALSE = {"t": "none"}, {"t": "bool", "v": True}, {"t": "bool", "v": False}
SCALARS = types.MappingProxyType({
    type(None): lambda enc, v: NONE,
    bool: lambda enc, v: TRUE if v else FALSE,
    int: lambda enc, v: enc.big_int(v),
    float: lambda enc, v: enc.float_value(v),
})
SHARED = frozenset((str, types.BuiltinFunctionType))  # their encodings never change
SEQUENCE, MAPPING, FUNCTION = "sequence", "mapping", "function"  # witness checks inlined in Encoder.unchanged


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
        self.closed = False

    def close(self):
        """After os._exit nothing more is printed (the process would be gone)."""
        self.closed = True

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError("write() argument must be str, not " + type(text).__name__)
        if self.closed:
            return len(text)
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

    `top(value)` also returns a witness: what the encoding was read from (each container's class,
    length and the identities of the items it showed, each class name...). `unchanged(witness)`
    re-reads exactly that, by identity, without building anything: when it holds, encoding the
    value again would give the same result, so a local that did not change costs a check, not an
    encoding. Scalars and strings are immutable: the same object is the same value.
    """

    def __init__(self, limits):
        self.str_len = limits["strLen"]
        self.items = limits["items"]
        self.depth = limits["depth"]
        self.refs = {}
        self.shared = {}  # id -> (object, its encoding) for values that never change
        self.witness = []

    def ref(self, obj):
        hit = self.refs.get(id(obj))
        if hit is None:
            hit = (len(self.refs) + 1, obj)
            self.refs[id(obj)] = hit
        return hit[0]

    def top(self, value):
        """(value, its encoding, its witness); the witness is None when the value could not be read."""
        self.witness = witness = []
        try:
            return value, self.encode(value), witness
        except Exception as error:
            return value, self.unreadable(value, error), None

    def unchanged(self, witness):
        """Each entry is (check, value, a, b, c); the checks of builtin containers are inlined."""
        try:
            for check, value, a, b, c in witness:
                if check is SEQUENCE:  # a list, tuple, set or frozenset of exactly that class
                    if type(value) is not a or len(value) != b or not all(map(is_, value, c)):
                        return False
                elif check is MAPPING:  # a dict of exactly that class; c = (keys, values) shown
                    if type(value) is not dict or len(value) != b or not all(map(is_, value, c[0])) or not all(map(is_, dict.values(value), c[1])):
                        return False
                elif check is FUNCTION:  # a function can be renamed: a = its __qualname__, b = its __name__
                    if value.__qualname__ is not a or value.__name__ is not b:
                        return False
                elif not check(value, a, b, c):
                    return False
            return True
        except Exception:  # whatever a value's class does, a failed check only means "encode again"
            return False

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
            # strings and builtin functions do not change: encode each object once, share the result
            hit = self.shared.get(id(value))
            if hit is not None and hit[0] is value:
                return hit[1]
            out = self.text(value, "str") if kind is str else self.callable(value)
            self.shared[id(value)] = (value, out)
            return out
        if kind is bytes:  # the literal of the first strLen bytes, and the full length when cut
            out = {"t": "bytes", "v": bytes.__repr__(value[: self.str_len])}
            if len(value) > self.str_len:
                out["len"] = len(value)
            return out
        if kind is bytearray or kind is memoryview:
            out = self.binary(value, kind)
            self.witness.append((self.same_binary, value, kind, out, None))
            return out
        for base, name in CONTAINERS:
            if issubclass(kind, base):
                return self.container(value, base, name, kind, depth, path)
        if issubclass(kind, BaseException):
            name = type_name(kind)
            args = BaseException.__getattribute__(value, "args")[: self.items]
            self.witness.append((self.same_exception, value, kind, name, args))
            return {"t": "exc", "type": name, "id": self.ref(value), "args": [self.encode(a, depth + 1, path) for a in args]}
        if kind is types.FunctionType:
            self.witness.append((FUNCTION, value, value.__qualname__, value.__name__, None))
            return self.callable(value)
        if issubclass(kind, CALLABLES):
            out = self.callable(value)
            self.witness.append((self.same_callable, value, out["name"], None, None))
            return out
        if issubclass(kind, type):
            name = type_name(value)
            self.witness.append((self.same_class, value, name, None, None))
            return {"t": "class", "name": name}
        if kind is types.ModuleType:
            name = module_name_of(value)
            self.witness.append((self.same_module, value, name, None, None))
            return {"t": "module", "name": name}
        return self.instance(value, kind, depth, path)

    def safe(self, value):
        """Encoding is total: whatever a value's class does, the recorder never raises into the
        lesson's frame; what cannot be read becomes a placeholder naming its type."""
        return self.top(value)[1]

    def unreadable(self, value, error):
        return {"t": "obj", "type": type_name(type(value)), "id": self.ref(value), "unreadable": type_name(type(error))}

    def binary(self, value, kind):
        """bytearray and memoryview: mutable, so with an id; the first strLen bytes as a bytes literal."""
        out = {"t": "bytes", "type": kind.__name__, "id": self.ref(value)}
        try:
            if kind is bytearray:
                size, head = len(value), bytes(value[: self.str_len])
            else:
                size = value.nbytes
                try:
                    head = value.cast("B")[: self.str_len].tobytes()
                except TypeError:  # not C-contiguous
                    head = value.tobytes()[: self.str_len]
            out["v"] = bytes.__repr__(head)
            out["len"] = size
        except ValueError:  # a released view
            out["v"] = "<released>"
        return out

    def callable(self, value):
        try:
            name = getattr(value, "__qualname__", None) or getattr(value, "__name__", "?")
        except Exception:
            name = "?"
        return {"t": "func", "name": name if type(name) is str else "?", "id": self.ref(value)}

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

    def shown(self, value, base):
        """The items a container's encoding shows (a dict's as key, value pairs)."""
        if base is dict:
            return tuple(islice(dict.items(value), self.items))
        return tuple(islice(base.__iter__(value), self.items))

    def container(self, value, base, name, kind, depth, path):
        ident = self.ref(value)
        size = base.__len__(value)
        out = {"t": name, "id": ident, "len": size}
        if kind is not base:
            out["type"] = type_name(kind)
        if id(value) in path:
            return {"t": "ref", "id": ident, "of": name}
        if depth >= self.depth:
            self.witness.append(self.container_witness(value, base, kind, out, ((), ()) if base is dict else ()))
            out["more"] = True
            return out
        inner = path + (id(value),)
        shown = self.shown(value, base)
        encode = self.encode
        if base is dict:
            out["entries"] = [[encode(key, depth + 1, inner), encode(item, depth + 1, inner)] for key, item in shown]
            shown = (tuple(key for key, _ in shown), tuple(item for _, item in shown))
        else:
            out["items"] = [encode(item, depth + 1, inner) for item in shown]
        self.witness.append(self.container_witness(value, base, kind, out, shown))
        return out

    def container_witness(self, value, base, kind, out, shown):
        if kind is base:
            return (MAPPING if base is dict else SEQUENCE, value, kind, out["len"], shown)
        return (self.same_container, value, (kind, base), out, shown)

    def instance(self, value, kind, depth, path):
        ident = self.ref(value)
        out = {"t": "obj", "type": type_name(kind), "id": ident}
        attrs, fields = self.fields(value, kind)
        self.witness.append((self.same_instance, value, (kind, out["type"]), attrs, fields))
        if not fields or id(value) in path:
            return out
        if depth >= self.depth:
            out["more"] = True
            return out
        inner = path + (id(value),)
        out["attrs"] = {fields[k] if type(fields[k]) is str else "?": self.encode(fields[k + 1], depth + 1, inner) for k in range(0, len(fields), 2)}
        return out

    def fields(self, value, kind):
        """An instance's __dict__ (or None) and the attributes shown, flat: name, value, name, value..."""
        try:
            attrs = object.__getattribute__(value, "__dict__")
        except Exception:  # no __dict__, or a class whose __dict__ property raises
            attrs = None
        own = list(islice(dict.items(attrs), self.items)) if type(attrs) is dict else []
        pairs = (own + slot_values(value, kind)[: self.items])[: self.items]
        return attrs, tuple(chain.from_iterable(pairs))

    # The checks of a witness: each re-reads what one encoding step read, comparing by identity.
    def same_container(self, value, classes, out, shown):
        """A subclass of a builtin container: read through the builtin's own methods, and its name."""
        kind, base = classes
        if type(value) is not kind or base.__len__(value) != out["len"] or out["type"] != type_name(kind):
            return False
        now = self.shown(value, base)
        if base is dict:
            return all(map(is_, (key for key, _ in now), shown[0])) and all(map(is_, (item for _, item in now), shown[1]))
        return all(map(is_, now, shown))

    def same_instance(self, value, classes, attrs, fields):
        kind, name = classes
        if type(value) is not kind or type_name(kind) != name:
            return False
        now_attrs, now = self.fields(value, kind)
        return now_attrs is attrs and len(now) == len(fields) and all(map(is_, now, fields))

    def same_exception(self, value, kind, name, args):
        if type(value) is not kind or type_name(kind) != name:
            return False
        now = BaseException.__getattribute__(value, "args")[: self.items]
        return len(now) == len(args) and all(map(is_, now, args))

    def same_binary(self, value, kind, out, _):
        return self.binary(value, kind) == out

    def same_callable(self, value, name, *_):
        return self.callable(value)["name"] == name

    def same_class(self, value, name, *_):
        return type_name(value) == name

    def same_module(self, value, name, *_):
        return module_name_of(value) == name


def module_name_of(module):
    name = types.ModuleType.__getattribute__(module, "__dict__").get("__name__")
    return name if type(name) is str else "?"


def type_name(kind):
    """A class's __qualname__, read past any metaclass property."""
    try:
        name = type.__getattribute__(kind, "__qualname__")
        return name if type(name) is str else "?"
    except Exception:
        return "?"


def slot_values(value, kind):
    """The set __slots__ attributes of an instance, read through their member descriptors (no lesson code runs)."""
    out = []
    try:
        mro = type.__getattribute__(kind, "__mro__")
    except Exception:
        return out
    for cls in mro:
        slots = type.__getattribute__(cls, "__dict__").get("__slots__")
        if slots is None:
            continue
        for name in (slots,) if type(slots) is str else slots:
            if type(name) is not str or name in ("__dict__", "__weakref__"):
                continue
            stored = "_%s%s" % (cls.__name__.lstrip("_"), name) if name.startswith("__") and not name.endswith("__") else name
            descriptor = type.__getattribute__(cls, "__dict__").get(stored)
            if type(descriptor) is not types.MemberDescriptorType:
                continue
            try:
                out.append((name, descriptor.__get__(value, kind)))
            except AttributeError:  # declared but never set
                pass
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


# Instructions a frame leaves through normally (a return, or a yield that suspends it); a `return`
# event at any other instruction is the frame unwinding with an exception.
NORMAL_EXITS = frozenset(dis.opmap[name] for name in ("RETURN_VALUE", "RETURN_CONST", "YIELD_VALUE") if name in dis.opmap)


class Recorder:
    """Records call/line/return/exception events of the target: every code object compiled from
    the target's source lines (its file, qualified name and first line), so decorated functions,
    properties, cached and nested functions are traced as the code on screen."""

    def __init__(self, keys, limits, output):
        # code key -> which traced function: 0 the target, k the request's k-th callee; a key is
        # (co_filename, co_qualname without "<locals>.", co_firstlineno)
        self.keys = keys
        self.known = {}  # id(code) -> (code, its function number or None)
        self.limits = limits
        self.output = output
        self.encoder = Encoder(limits)
        self.steps = []
        self.frames = {}  # id(frame) -> last encoded locals
        self.raised = {}  # id(frame) -> the last exception raised in that frame
        self.truncated = None
        self.deadline = time.perf_counter() + limits["timeoutMs"] / 1000
        self.max_steps = limits["maxSteps"]
        self.trace = self.local_trace  # bound once: the local trace function each event returns
        fast = fast_path(self) if FAST is not None else None  # the same two functions in C for their common events
        self.fast = fast is not None
        self.tracing = "settrace"  # what brought the events (Monitor)
        if self.fast:
            self.global_trace, self.trace = fast

    # The trace functions the interpreter calls: the recorder's work, with RECORDING set meanwhile
    def global_trace(self, frame, event, arg):
        return recording(self.record_call, frame, event, arg)

    def local_trace(self, frame, event, arg):
        """Records one event of a traced frame and returns the frame's local trace function (itself,
        or the C fast path's: `self.trace`)."""
        return recording(self.record, frame, event, arg)

    def record_call(self, frame, event, arg):
        code = frame.f_code
        hit = self.known.get(id(code))
        if hit is None:
            hit = (code, self.keys.get(code_key(code)))
            self.known[id(code)] = hit  # the code object is kept, so its id is never reused
        fn = hit[1]
        if fn is None or (fn and not self.frames):  # a callee is traced only under the target
            return None
        return self.record(frame, "call", arg)

    def record(self, frame, event, arg):
        trace = self.trace  # the local trace function, bound once
        if event == "opcode":  # lesson code may turn on opcode events for its own tracer
            return trace
        steps = self.steps
        if len(steps) >= self.max_steps:
            self.stop("steps")
        if not len(steps) & 255 and time.perf_counter() > self.deadline:
            self.stop("time")
        key = id(frame)
        frames = self.frames
        before = frames.get(key)  # name -> (value, encoding, witness) at this frame's previous step
        depth = len(frames) + (before is None)  # target frames on the stack, this one included
        encoder = self.encoder
        items = list(frame.f_locals.items())
        changes = {}
        if before is None:
            current = {}
            for name, value in items:
                current[name] = entry = encoder.top(value)
                changes[name] = entry[1]
        else:
            # the previous step's entries stand until a local changes; `same`: the same names
            current = None
            same = len(items) == len(before)
            get = before.get
            unchanged = encoder.unchanged
            for name, value in items:
                old = get(name)
                if old is None:
                    same = False
                elif old[0] is value:
                    witness = old[2]
                    if witness is not None and (not witness or unchanged(witness)):
                        continue  # the same object, and what its encoding read is unchanged
                entry = encoder.top(value)
                if current is None:
                    current = dict(before)
                current[name] = entry
                if old is None or old[1] != entry[1]:
                    changes[name] = entry[1]
            if current is None:
                current = before  # nothing changed: shared, never changed in place
        step = {"event": event, "line": frame.f_lineno, "depth": depth, "stdoutLen": self.output.length}
        fn = self.known[id(frame.f_code)][1]
        if fn:
            step["fn"] = fn
        if before is None:
            step["locals"] = changes
        else:
            if changes:
                step["changes"] = changes
            if not same:  # names came or went: the entries in the order of f_locals, and what went
                current = {name: current[name] for name, _ in items}
                removed = [name for name in before if name not in current]
                if removed:
                    step["removed"] = removed
        frames[key] = current
        if event == "exception":
            step["exception"] = self.raised[key] = describe_exception(arg[1])
        elif event == "return":
            if frame.f_code.co_code[frame.f_lasti] in NORMAL_EXITS:
                step["value"] = encoder.safe(arg)
            else:
                step["exception"] = self.raised.get(key) or {"type": "BaseException", "message": "(the exception was not seen)"}
            del frames[key]
            self.raised.pop(key, None)
        steps.append(step)
        return trace

    def stop(self, reason):
        self.truncated = reason
        sys.settrace(None)
        raise StopRun(reason)


# The recorder's C fast path (native/steplight_fast.c: Recorder.global_trace and local_trace for
# call, line and normal return events, the rest handed to these Python methods), once
# load_fast_path() loaded it; and its JSON writer for traces (`dump`: see write_trace).
FAST = None
DUMP = None
MONITOR = None  # the C side's sys.monitoring callbacks (`monitor`), when it can read this Python's frames


def load_fast_path(path):
    """Load the C fast path built for this Python (Pyodide: an Emscripten side module) with ctypes.
    Call it once Python stays where it runs: a memory snapshot cannot hold the loaded code. Returns
    whether the recorder uses it (not when its objects are laid out otherwise than it reads them)."""
    global FAST, DUMP, MONITOR
    import ctypes

    lib = ctypes.PyDLL(path)  # the GIL held during its calls (a CDLL call releases it: no thread state)
    lib.check_layout.restype, lib.check_layout.argtypes = ctypes.c_int, (ctypes.py_object,)
    if not lib.check_layout(Recorder.record):  # a function (its __name__ and __qualname__ differ): how this Python lays out objects
        return False
    lib.make.restype, lib.make.argtypes = ctypes.py_object, (ctypes.py_object,)
    lib.dump.restype, lib.dump.argtypes = ctypes.py_object, (ctypes.py_object,)
    FAST, DUMP = lib.make, lib.dump
    MONITOR = lib.monitor if monitor_layout(lib) else None
    if BASELINE is not None:
        BASELINE.retake(globals())  # FAST and DUMP are part of the state runs return to
    return True


def monitor_layout(lib):
    """Whether the C side reads this Python's frames and its thread's trace function where they
    are (what its sys.monitoring callbacks need to stand for sys.settrace): found and checked here,
    with the real sys.settrace, before any run."""
    import ctypes

    if getattr(sys, "monitoring", None) is None or sys.gettrace() is not None:
        return False
    lib.monitor.restype, lib.monitor.argtypes = ctypes.py_object, (ctypes.py_object,)
    lib.find_trace_slot.restype, lib.find_trace_slot.argtypes = ctypes.c_int, (ctypes.py_object,)
    lib.traced.restype, lib.traced.argtypes = ctypes.py_object, ()
    lib.check_frame.restype, lib.check_frame.argtypes = ctypes.c_int, (ctypes.py_object, ctypes.py_object, ctypes.c_int)

    def probe(frame, event, arg):
        return None

    def other(frame, event, arg):
        return None

    try:
        sys.settrace(probe)
        found = lib.find_trace_slot(probe)
        sys.settrace(other)
        found = found and lib.traced() is other
    finally:
        sys.settrace(None)
    if not found or lib.traced() is not None:
        return False
    frame = sys._getframe()
    try:
        frame.f_trace, frame.f_trace_lines = probe, False
        fits = lib.check_frame(frame, probe, 0)
    finally:
        frame.f_trace, frame.f_trace_lines = None, True
    return bool(fits and lib.check_frame(frame, None, 1))


class Monitor:
    """The C fast path's events from a sys.monitoring tool instead of sys.settrace, which makes the
    interpreter report every line of every frame (the C file's "sys.settrace on sys.monitoring":
    the callbacks do what settrace's do, for the same trace functions). Used from a run's start
    until something needs sys.settrace itself; then `hand_over` gives it the recorder's functions
    and the run goes on under sys.settrace, every frame keeping the trace function it has."""

    TOOL = 5  # sys.monitoring.OPTIMIZER_ID: a lesson asking for it during such a run finds it taken

    def __init__(self, shim, state, callbacks):
        self.shim = shim
        events = sys.monitoring.events
        start, throw, returned, unwind, raised, stopped, line, jump = callbacks
        self.callbacks = ((events.PY_START, start), (events.PY_RESUME, start), (events.PY_THROW, throw), (events.PY_RETURN, returned),
                          (events.PY_YIELD, returned), (events.PY_UNWIND, unwind), (events.RAISE, raised), (events.STOP_ITERATION, stopped),
                          (events.LINE, line), (events.JUMP, jump))
        self.on = state[FAST_MONITORING]

    @classmethod
    def start(cls, shim, recorder):
        """A Monitor delivering the recorder's events, or None (sys.settrace then)."""
        if MONITOR is None or not recorder.fast or sys.monitoring.get_tool(cls.TOOL) is not None:
            return None
        monitor = cls(shim, recorder.fast_state, MONITOR(recorder.fast_state))
        recorder.fast_state[FAST_HAND_OVER] = monitor.hand_over
        recording(monitor.switch, True)
        recorder.tracing = "monitoring"
        return monitor

    def switch(self, on):
        mon = sys.monitoring
        if on:
            # (what an earlier run's callbacks switched off with DISABLE stays off: code that lives
            # on between runs is the runner's and the standard library's, never a lesson's, which
            # each run imports afresh, so never traced)
            mon.use_tool_id(self.TOOL, "steplight")
            events = 0
            for event, callback in self.callbacks:
                mon.register_callback(self.TOOL, event, callback)
                events |= event
            mon.set_events(self.TOOL, events)
        else:
            mon.set_events(self.TOOL, 0)
            for event, _ in self.callbacks:
                mon.register_callback(self.TOOL, event, None)
            mon.free_tool_id(self.TOOL)
        self.on[0] = on

    def hand_over(self, how):
        """sys.settrace takes the events from here on. how: "settrace", the lesson set a tracer of its
        own (the runner's sys.settrace, which installs both); "quiet", lesson code needs settrace
        itself (opcode events); "legacy", lesson code reached the interpreter's sys.settrace, which
        keeps the lesson's tracer; "error", a trace function raised: settrace turns itself off;
        "off", the run's end (TraceShim.uninstall)."""
        if not self.on[0]:
            return
        recording(self.switch, False)
        shim = self.shim
        shim.monitor = None
        if how != "off":
            shim.recorder.tracing = "monitoring, then settrace (%s)" % how
        if how == "settrace":
            shim.real_settrace(shim.current())  # (heard by the lesson's audit hooks, as it was)
        elif how == "quiet":
            recording(shim.real_settrace, shim.current())
        elif how == "error":
            shim.real_settrace(None)


FAST_MONITORING, FAST_HAND_OVER = 24, 25  # their places in the C file's enum (fast_path)


class FastState(list):
    """The C fast path's state, in the order of the C file's enum. Its class is named as the
    recorder's, so its functions are called Recorder.global_trace and Recorder.local_trace as the
    methods they stand for are (a lesson that shows its frame's f_trace sees the same name)."""

    __slots__ = ()


FastState.__name__ = FastState.__qualname__ = "Recorder"


def fast_path(recorder):
    """(global trace function, local trace function) in C over this recorder's state, or None when
    its limits are not what the C side reads (ints below 2**31). The order is the C file's enum."""
    encoder = recorder.encoder
    if not all(type(n) is int and 0 <= n < 2**31 for n in (recorder.max_steps, encoder.str_len, encoder.items, encoder.depth)):
        return None
    state = FastState((recorder.steps, recorder.frames, recorder.raised, recorder.known, recorder.local_trace, recorder.global_trace, recorder.output, recorder.max_steps, NORMAL_EXITS))
    state += [encoder, encoder.encode, encoder.unreadable, encoder.refs, encoder.shared, encoder.str_len, encoder.items, encoder.depth, NONE, TRUE, FALSE, SEQUENCE, MAPPING, FUNCTION, RECORDING]
    state += [[False], None, getattr(getattr(sys, "monitoring", None), "DISABLE", None)]  # FAST_MONITORING, FAST_HAND_OVER, DISABLE
    global_trace = FAST(state)
    recorder.fast_state = state
    return global_trace, state[-2]


def code_key(code):
    return (code.co_filename, code.co_qualname.replace("<locals>.", ""), code.co_firstlineno)


def find_target(path, symbol, first=None, last=None):
    """The key of the target's code: compiled from its file, the code object whose qualified name
    is `symbol` (nested functions without "<locals>"), the first within the widget's lines."""
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    key = (path, symbol, first, last, source)
    found = STATE.targets
    if key not in found:
        if len(found) > 64:
            found.clear()
        found[key] = search_target(path, source, symbol, first, last)
    return found[key]


def search_target(path, source, symbol, first, last):
    import warnings

    module = compiled_code(path)
    if module is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the import in the run shows them, as Python would
            module = compile(source, path, "exec")
    found = []
    pending = [module]
    while pending:
        code = pending.pop()
        pending.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
        key = code_key(code)
        if key[1] == symbol and (first is None or first <= code.co_firstlineno <= (last or first)):
            found.append(code)
    if not found:
        raise LookupError("no function %s in %s%s" % (symbol, os.path.basename(path), "" if first is None else " at lines %s-%s" % (first, last)))
    code = min(found, key=lambda c: c.co_firstlineno)
    lines = sorted({line for _, _, line in code.co_lines() if line is not None})
    # the lines that can have a `line` event: not the def line (its instructions run at the call)
    runnable = [line for line in lines if line != code.co_firstlineno] or lines
    return code_key(code), code.co_firstlineno, lines[-1], runnable


def compiled_code(path):
    """The module's code from the bytecode the runner compiled, as an import would take it (same
    magic number, and the source's size and time in its header); None if there is none."""
    try:
        data = read_bytes(importlib.util.cache_from_source(path))
        info = os.stat(path)
    except OSError:
        return None
    header = importlib.util.MAGIC_NUMBER + (0).to_bytes(4, "little") + (int(info.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little") + (info.st_size & 0xFFFFFFFF).to_bytes(4, "little")
    if data[:16] != header:
        return None
    try:
        code = marshal.loads(data[16:])
    except (ValueError, EOFError, TypeError):
        return None
    return code if type(code) is types.CodeType else None


class TraceShim:
    """What lesson code sees as sys.settrace/sys.gettrace during a run: its own tracer is kept and
    chained after the recorder's, so code that traces (or stops tracing) cannot end the recording."""

    def __init__(self, recorder, real_settrace, real_gettrace):
        self.recorder = recorder
        self.real_settrace, self.real_gettrace = real_settrace, real_gettrace
        self.user = None
        self.monitor = None  # a Monitor while sys.monitoring brings the recorder's events instead

    def current(self):
        """The trace function to install: the recorder's alone (the fast path) until the lesson
        sets a tracer of its own, then this shim, which calls both."""
        return self.recorder.global_trace if self.user is None else self.global_trace

    def install(self):
        """Where the interpreter calls current(): sys.settrace, or the monitor while it stands for it."""
        self.monitor = Monitor.start(self, self.recorder)
        if self.monitor is None:
            self.real_settrace(self.current())

    def installed(self):
        """What sys.settrace has (the monitor's: current()), as the real sys.gettrace says it."""
        return self.current() if self.monitor is not None else self.real_gettrace()

    def uninstall(self):
        if self.monitor is not None:
            self.monitor.hand_over("off")
        self.real_settrace(None)

    def settrace(self, function):
        if function == self.recorder.global_trace or function == self.global_trace:
            self.put(function)  # threading, starting a thread with the run's hook
        else:
            self.user = function
            self.put(self.current())

    def put(self, function):
        if self.monitor is None:
            self.real_settrace(function)
        elif function is self.recorder.global_trace:
            sys.audit("sys.settrace")  # what the real one raises first; the monitor has the events already
        else:
            self.monitor.hand_over("settrace")

    def gettrace(self):
        return self.user

    def global_trace(self, frame, event, arg):
        mine = self.recorder.global_trace(frame, event, arg)
        if self.user is None or frame.f_code.co_filename == __file__:
            return mine  # the recorder's own functions (this shim) are not the lesson's to see
        theirs = self.call_user(self.user, frame, event, arg)
        return mine if theirs is None else Chained(self, mine, theirs)

    def call_user(self, function, frame, event, arg):
        try:
            return function(frame, event, arg)
        except BaseException:
            self.user = None  # as CPython does when a trace function raises
            raise


class Chained:
    """One frame's local tracers: the recorder's, then the lesson's own (while it is still set)."""

    __slots__ = ("shim", "mine", "theirs")

    def __init__(self, shim, mine, theirs):
        self.shim, self.mine, self.theirs = shim, mine, theirs

    def __call__(self, frame, event, arg):
        if self.mine is not None:
            self.mine = self.mine(frame, event, arg)
        if self.theirs is not None and self.shim.user is not None:
            self.theirs = self.shim.call_user(self.theirs, frame, event, arg)
        return self if self.mine is not None or self.theirs is not None else None


class NoInput:
    """stdin during a run: the reader cannot type, so input() fails at once instead of waiting."""

    def readline(self, *args):
        raise EOFError("a Steplight run has no keyboard: input() gets no text (give the value to the harness instead)")

    read = readline

    def isatty(self):
        return False


class LessonExit(BaseException):
    """os._exit() in lesson code: the process would end here, so the run ends here."""


def sliced_sleep(sleep):
    """time.sleep in short slices, so the host's interrupt is seen during a long sleep (Pyodide's
    sleep does not look at the interrupt buffer). It sleeps exactly as long."""
    import functools

    @functools.wraps(sleep)
    def sleep_in_slices(seconds):
        end = time.monotonic() + seconds
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return None
            sleep(min(left, 0.05))

    return sleep_in_slices


class Baseline:
    """The interpreter as it is between runs, and how to bring it back after one (every run starts
    from the same state, whatever the lesson patched). Taken once, after start-up (`settle()`).

    Kept and restored: sys.modules (modules a run imported are dropped, so the next run imports
    them fresh); every module's namespace, the plain dicts, lists and sets a module holds at its
    top level (registries, dispatch tables, caches), and the namespaces of the classes a module
    defines — compared by identity, at C speed, and put back where they differ; the random
    module's state; os.environ, the working directory, umask; recursion limit, switch interval,
    int digits limit; trace, profile and monitoring hooks; the gc switch; files outside the
    lessons (new ones are removed, changed ones rewritten)."""

    WATCHED = ("/tmp", "/home", "/steplight/runtime")

    def __init__(self):
        from gc import get_referents
        from operator import is_

        self.is_ = is_
        self.modules = dict(sys.modules)
        self.dicts, self.lists, self.sets, self.classes, functions = [], [], [], [], {}  # functions by id
        seen = set()
        for name, module in list(self.modules.items()):
            if type(module) is not types.ModuleType or id(module) in seen:
                continue
            seen.add(id(module))
            self.keep_dict(module.__dict__, seen)
            for value in list(module.__dict__.values()):
                if type(value) is types.FunctionType:
                    functions.setdefault(id(value), value)
                elif type(value) in CONTAINERS_KEPT:
                    self.keep(value, seen)
                elif isinstance(value, type) and not value.__flags__ & (1 << 8) and id(value) not in seen:  # a mutable class
                    seen.add(id(value))
                    # checked through the class's own dict (behind its read-only __dict__ proxy): a
                    # proxy made for every check costs more than the check itself
                    namespace = get_referents(value.__dict__)[0]
                    self.classes.append((value, namespace, tuple(namespace), tuple(namespace.values())))
                    for member in list(namespace.values()):
                        if type(member) is staticmethod or type(member) is classmethod:
                            member = member.__func__
                        if type(member) is types.FunctionType:
                            functions.setdefault(id(member), member)
                        elif type(member) in CONTAINERS_KEPT:
                            self.keep(member, seen)
        # the functions modules and classes hold: a run can give one another body (__code__) or other
        # defaults without rebinding any name; their default values are kept like a module's
        self.functions = tuple(functions.values())
        self.function_parts = tuple(tuple(map(attrgetter(name), self.functions)) for name in FUNCTION_PARTS)
        for value in chain.from_iterable(defaults for defaults in self.function_parts[1] if defaults):
            if type(value) in CONTAINERS_KEPT:
                self.keep(value, seen)
        for kwdefaults in self.function_parts[2]:
            if kwdefaults is not None:
                self.keep(kwdefaults, seen)
                for value in list(kwdefaults.values()):
                    if type(value) in CONTAINERS_KEPT:
                        self.keep(value, seen)
        random = sys.modules.get("random")
        self.random = (random._inst, random._inst.getstate()) if random is not None else None
        self.environ = dict(os.environ)
        self.cwd = os.getcwd()
        self.umask = os.umask(0o22)
        os.umask(self.umask)
        self.numbers = sys.getrecursionlimit(), sys.getswitchinterval(), getattr(sys, "get_int_max_str_digits", lambda: 0)()
        self.gc = __import__("gc").isenabled()
        monitoring = getattr(sys, "monitoring", None)
        self.tools = [monitoring.get_tool(t) for t in range(6)] if monitoring else []
        self.files = snapshot_files(self.WATCHED)
        # the quick checks are set up by the first clean, once everything is put back (not here:
        # this is on the way to a page's first run)
        self.read = None
        self.watcher = None  # dict_watcher(), once the first clean asks for it; False where there is none
        self.steady = self.function_referents = None
        self.changing = set()  # ids of the entries a run has changed: checked one by one from then on
        self.loose = self.every()

    def every(self):
        """Every kept dict, list and class namespace, as (kind, entry)."""
        return [("dict", e) for e in self.dicts] + [("list", e) for e in self.lists] + [("class", e) for e in self.classes]

    def group(self):
        """Every dict, list and class namespace that no run has changed goes in one group checked at
        once (`Steady`); the rest stay loose, checked one by one (what runs usually change:
        sys.modules, the import caches)."""
        self.read = self.read or address_reader()
        if self.read is None:  # then every one is checked one by one
            return
        if self.watcher is None:
            self.watcher = dict_watcher() or False
        every = self.every()
        steady = [(k, e) for k, e in every if id(e) not in self.changing and Steady.fits(k, e)]
        grouped = set(id(e) for _, e in steady)
        was = self.steady.watched if self.steady is not None else ()
        self.steady = Steady(steady, self.read, self.watcher or None)
        self.loose = [(k, e) for k, e in every if id(e) not in grouped]
        if self.watcher:  # watched: the group's dicts, and no others
            now, before = set(map(id, self.steady.watched)), set(map(id, was))
            for d in was:
                if id(d) not in now:
                    self.watcher.unwatch(d)
            for d in self.steady.watched:
                if id(d) not in before:
                    self.watcher.watch(d)
            self.watcher.reset()  # from here on (putting things back just now may have been heard)

    def shrink(self):
        """When only watched dicts failed the group's check: they leave the group, which stays as it
        is otherwise (everything was just put back as it was when the group was made), instead of
        being made anew (10-30 ms of a clean in Node, 40-90 in a page's first runs). False when it
        cannot: no watcher, or something else in the group changed (its lists)."""
        steady = self.steady
        if steady is None or steady.watcher is None:
            return False
        leaving = [(kind, entry) for kind, entry in steady.entries if id(entry) in self.changing]
        if not leaving or not all(steady.watches(kind, entry) for kind, entry in leaving):
            return False
        if not steady.reads_as_saved():
            return False
        for d in steady.without(leaving):
            self.watcher.unwatch(d)
        self.loose.extend(leaving)
        self.watcher.reset()  # putting things back just now was heard
        return True

    def forget_watcher(self):
        """Before a memory snapshot: the watcher's callback is a function made at run time, which a
        Python restored from the snapshot would not have. Every entry is loose again (checked one by
        one by the next clean, which groups them again with a watcher of its own)."""
        if self.watcher:
            for d in self.steady.watched if self.steady is not None else ():
                self.watcher.unwatch(d)
            self.watcher.close()
        if self.steady is not None:
            self.loose = self.steady.entries + self.loose
            self.steady = None
        self.watcher = None

    def retake(self, d):
        """A kept dict's present contents become its baseline (after_restore)."""
        if self.steady is not None:
            self.forget_watcher()  # every entry loose again, grouped anew by the next clean
        fresh = (d, tuple(d), tuple(d.values()))
        for entry in self.dicts:
            if entry[0] is d and id(entry) in self.changing:  # learnt before: still checked one by one
                self.changing.discard(id(entry))
                self.changing.add(id(fresh))
        self.dicts = [fresh if entry[0] is d else entry for entry in self.dicts]
        self.loose = [(kind, fresh if kind == "dict" and entry[0] is d else entry) for kind, entry in self.loose]

    def keep_dict(self, d, seen):
        seen.add(id(d))
        self.dicts.append((d, tuple(d), tuple(d.values())))

    def keep(self, value, seen):
        """A plain dict, list or set a module, a class or a function's defaults hold."""
        if id(value) in seen:
            return
        if type(value) is dict:
            return self.keep_dict(value, seen)
        seen.add(id(value))
        if type(value) is list:
            self.lists.append((value, tuple(value)))
        else:
            self.sets.append((value, frozenset(value)))

    def referents_of_functions(self):
        """What every kept function holds (its code, defaults, name, dict...: all it refers to, in
        one C call), as addresses read in one go, or the objects themselves where they cannot be."""
        from gc import get_referents

        now = tuple(get_referents(*self.functions))
        return self.read(now) if self.read else now

    def restore_functions(self):
        """Each function's parts (FUNCTION_PARTS) put back where any differ; one check for all first."""
        now = self.referents_of_functions()
        saved = self.function_referents
        if saved is not None and len(now) == len(saved) and (now == saved if self.read else all(map(is_, now, saved))):
            return 0
        changed = 0
        for name, saved in zip(FUNCTION_PARTS, self.function_parts):
            for function, was in zip(self.functions, saved):
                if getattr(function, name) is not was:
                    setattr(function, name, was)
                    changed += 1
        # what else a function holds is not put back (its own attributes, its annotations): taken as
        # it is now
        self.function_referents = self.referents_of_functions()
        return changed

    def restore(self):
        """Put everything back; returns how many things had changed (for tests and the bench)."""
        changed = 0
        steady = self.steady is not None and self.steady.unchanged()
        for kind, entry in self.loose if steady or self.steady is None else self.steady.entries + self.loose:
            if RESTORE[kind](self.is_, *entry):
                changed += 1
                self.changing.add(id(entry))
        if not steady:
            # the dicts heard changing join the loose ones too, even if they were put back as they
            # were (the runner's own patches of sys, os, time...): else they would fail every check
            for entry in self.steady.heard() if self.steady is not None else ():
                self.changing.add(id(entry))
            if not self.shrink():
                self.group()
        changed += self.restore_functions()
        for items, saved in self.sets:
            if len(items) != len(saved) or not items.issuperset(saved):
                items.clear()
                items.update(saved)
                changed += 1
        if self.random is not None:
            instance, state = self.random
            if instance.getstate() != state:
                instance.setstate(state)
                changed += 1
        if os.environ != self.environ:
            os.environ.clear()
            os.environ.update(self.environ)
            changed += 1
        if os.getcwd() != self.cwd:
            os.chdir(self.cwd)
        os.umask(self.umask)
        limit, interval, digits = self.numbers
        sys.setrecursionlimit(limit)
        sys.setswitchinterval(interval)
        if digits:
            sys.set_int_max_str_digits(digits)
        gc = __import__("gc")
        (gc.enable if self.gc else gc.disable)()
        sys.setprofile(None)
        threading.setprofile(None)
        monitoring = getattr(sys, "monitoring", None)
        taken = 0
        for tool, owner in enumerate(self.tools):
            if monitoring.get_tool(tool) != owner:
                monitoring.set_events(tool, 0)
                monitoring.free_tool_id(tool)
                taken += 1
        if taken:  # what its callbacks switched off (DISABLE) in code that outlives the run is on again
            monitoring.restart_events()
        changed += taken
        changed += restore_files(self.WATCHED, self.files)
        return changed


def restore_dict(is_, d, keys, values):
    if len(d) == len(keys) and all(map(is_, d, keys)) and all(map(is_, d.values(), values)):
        return False
    pairs = dict(zip(keys, values))  # built first: d may be builtins' own namespace
    d.clear()
    d.update(pairs)
    return True


def restore_list(is_, items, saved):
    if len(items) == len(saved) and all(map(is_, items, saved)):
        return False
    items[:] = saved
    return True


def restore_class(is_, cls, now, keys, values):
    if len(now) == len(keys) and all(map(is_, now, keys)) and all(map(is_, now.values(), values)):
        return False
    saved = dict(zip(keys, values))
    for name in [n for n in now if n not in saved]:
        type.__delattr__(cls, name)  # through the class, so that its caches are dropped too
    for name, value in saved.items():
        if now.get(name, now) is not value and name not in ("__dict__", "__weakref__"):
            type.__setattr__(cls, name, value)
    return True


RESTORE = {"dict": restore_dict, "list": restore_list, "class": restore_class}
CONTAINERS_KEPT = frozenset((dict, list, set))  # what Baseline.keep keeps
# what a run could change in a function without rebinding it, and that a trace or a later run shows
FUNCTION_PARTS = ("__code__", "__defaults__", "__kwdefaults__", "__name__", "__qualname__", "__module__")


class Steady:
    """Many dicts and lists (module and class namespaces, the registries modules hold) checked at
    once, by identity: their lengths, then the addresses of all their keys, then of everything they
    refer to (gc.get_referents: a list's items, a dict's values, and its keys too unless all are
    str), each read in one go (`address_reader`) and compared as bytes with what was read when the
    group was made, at the baseline or right after a clean put everything back. The saved objects
    are kept alive by the baseline, so an address equal to a saved one is that object. Unchanged
    tells only whether all are as they were; the per-object checks say which changed."""

    def __init__(self, entries, read, watcher=None):
        """`watcher` (a DictWatcher, where Python has dict watchers): the group's dicts are not read
        at all but watched, and any change to any of them since the group was made fails the check;
        only its lists are compared."""
        from gc import get_referents

        self.entries = entries
        self.read = read
        self.referents = get_referents
        objects = tuple(Steady.held(kind, entry) for kind, entry in entries)
        self.watcher = watcher
        self.watched = ()  # the dicts Baseline.group has the watcher watch
        if watcher is not None:
            self.watched = tuple(o for o in objects if type(o) is dict)
            self.by_dict = {id(o): entry for o, (_, entry) in zip(objects, entries) if type(o) is dict}
            objects = tuple(o for o in objects if type(o) is not dict)
        self.objects = objects
        self.dicts = tuple(o for o in self.objects if type(o) is dict)
        self.lengths, self.keys, self.items = self.lengths_now(), self.keys_now(), self.items_now()

    @staticmethod
    def held(kind, entry):
        """What an entry's check reads: a class's namespace, else the dict or list itself."""
        return entry[1] if kind == "class" else entry[0]

    def watches(self, kind, entry):
        """Whether the watcher, not a read, checks this entry (a dict, or a class's namespace)."""
        return self.watcher is not None and id(self.held(kind, entry)) in self.by_dict

    def without(self, leaving):
        """The group less these watched entries; returns their dicts (to be unwatched)."""
        ids = set(map(id, (entry for _, entry in leaving)))
        self.entries = [(kind, entry) for kind, entry in self.entries if id(entry) not in ids]
        gone = [d for d in self.watched if id(self.by_dict[id(d)]) in ids]
        self.watched = tuple(d for d in self.watched if id(self.by_dict[id(d)]) not in ids)
        for d in gone:
            del self.by_dict[id(d)]
        return gone

    def heard(self):
        """The entries of the dicts whose changes the watcher heard."""
        if self.watcher is None:
            return []
        return [self.by_dict[a] for a in self.watcher.addresses() if a in self.by_dict]

    @staticmethod
    def fits(kind, entry):
        """Only what the garbage collector lists at least all the values of (not a dict whose
        values are stored inside an object, which it does not list); the rest is checked one by one."""
        from gc import get_referents

        held = Steady.held(kind, entry)
        return type(held) is not dict or len(get_referents(held)) >= len(held)

    def lengths_now(self):
        return tuple(map(len, self.objects))

    def keys_now(self):
        return self.read(tuple(chain.from_iterable(self.dicts)))

    def items_now(self):
        return self.read(tuple(self.referents(*self.objects)))

    def unchanged(self):
        """Nothing heard by the watcher, and what is read reads as saved."""
        if self.watcher is not None and self.watcher.touched():
            return False
        return self.reads_as_saved()

    def reads_as_saved(self):
        """What is read (not watched) as when the group was made: each comparison only if the cheaper
        one before it held."""
        return self.lengths_now() == self.lengths and self.keys_now() == self.keys and self.items_now() == self.items


def address_reader():
    """A function giving the addresses of a tuple's items as bytes, read from the tuple's own memory
    in one go (through _ctypes, without importing ctypes itself: 0.6 ms instead of 34 in Pyodide).
    Checked here on a tuple whose addresses are known; None where it cannot be read or the check
    fails (another Python), and then everything is compared item by item."""
    import struct

    try:
        from _ctypes import Array, _SimpleCData
    except ImportError:
        return None

    class Byte(_SimpleCData):
        _type_ = "c"

    kinds = {}
    pointer = struct.calcsize("P")
    start = tuple.__basicsize__

    def read(items):
        size = len(items) * pointer
        kind = kinds.get(size)
        if kind is None:
            if len(kinds) > 16:  # a size per group and per change of it: few
                kinds.clear()
            kind = kinds[size] = type("Bytes", (Array,), {"_type_": Byte, "_length_": size})
        return kind.from_address(id(items) + start).raw

    probe = tuple(object() for _ in range(5))
    try:
        works = read(probe) == struct.pack("%dP" % len(probe), *map(id, probe)) and read(()) == b""
    except Exception:
        works = False
    return read if works else None


class DictWatcher:
    """A dict watcher (Python 3.12+: PyDict_AddWatcher), reached through _ctypes alone (ctypes' own
    import costs more than the checks it saves): after `watch(d)`, any change to d (a key added,
    replaced or removed, d cleared) is noted, `touched()` says whether any was since `reset()` and
    `addresses()` which dicts changed: all of them, so that one clean learns every dict a run
    changes (the first runs of a page each found one more when only the last was kept, each
    costing a clean that checks everything one by one: 20-30 ms in Node, up to 90 in a page).
    The callback runs no Python code, so no trace or profile function ever sees it: C calls only
    (functools.partial of max, whose key is a defaultdict's lookup: a miss adds the dict's address
    as a key). The event, key and value are read as booleans, so what is kept stays as small as
    the set of dicts watched, however many changes a run makes. Changes made by writing memory
    directly (ctypes) are not heard, as no other check sees them either."""

    def __init__(self):
        from collections import defaultdict
        from functools import partial
        from _ctypes import FUNCFLAG_CDECL, FUNCFLAG_PYTHONAPI, RTLD_GLOBAL, CFuncPtr, _SimpleCData, dlopen

        class Int(_SimpleCData):
            _type_ = "i"

        class Long(_SimpleCData):  # pointer-sized: a pointer as a number (0 for NULL)
            _type_ = "l"

        class Flag(_SimpleCData):  # what is not kept, read as a boolean
            _type_ = "?"

        class Pointer(_SimpleCData):
            _type_ = "P"

        class Object(_SimpleCData):
            _type_ = "O"

        class Callback(CFuncPtr):
            _flags_ = FUNCFLAG_CDECL
            _restype_ = Pointer  # what max returns (the event read as False or True: 0 or 1), never negative: "no error"
            _argtypes_ = (Flag, Long, Flag, Flag)  # event, dict, key, value

        class Api(CFuncPtr):
            _flags_ = FUNCFLAG_CDECL | FUNCFLAG_PYTHONAPI
            _restype_ = Int

        class Library:
            _handle = dlopen(None, RTLD_GLOBAL)

        def api(name, *argtypes):
            function = Api((name, Library))
            function.argtypes = argtypes
            return function

        self.heard = defaultdict(int)  # the addresses of the dicts heard changing (and False, True)
        self.callback = Callback(partial(max, key=self.heard.__getitem__))  # kept: Python holds only its address
        self.ident = api("PyDict_AddWatcher", Callback)(self.callback)
        self.clear = partial(api("PyDict_ClearWatcher", Int), self.ident)
        self.watch = partial(api("PyDict_Watch", Int, Object), self.ident)
        self.unwatch = partial(api("PyDict_Unwatch", Int, Object), self.ident)
        probe = {}
        self.watch(probe)
        self.reset()
        probe["heard"] = True
        heard = self.touched()
        self.unwatch(probe)
        if not heard:
            self.close()
            raise RuntimeError("the dict watcher heard nothing")

    def touched(self):
        return len(self.heard) > 0

    def addresses(self):
        """The addresses of the dicts changes were made to since `reset()`."""
        return [a for a in self.heard if type(a) is int]

    def reset(self):
        self.heard.clear()

    def close(self):
        self.clear()


def dict_watcher():
    """A DictWatcher, or None where Python has no dict watchers (3.11) or they cannot be reached
    (then the dicts are read as the lists are)."""
    if sys.version_info < (3, 12):
        return None
    try:
        return DictWatcher()
    except Exception:
        return None


def before_snapshot():
    """Call before taking a memory snapshot of this Python (see Baseline.forget_watcher)."""
    if FAST is not None or DUMP is not None:
        raise RuntimeError("the recorder's C fast path is loaded, and a memory snapshot cannot hold it: make the snapshot from a runner started without it")
    if BASELINE is not None:
        BASELINE.forget_watcher()


def after_restore():
    """Call once Python is restored from a memory snapshot, which may have been made elsewhere (the
    site's, by the build in Node, in UTC) or before the reader's clock moved to another zone. The
    host has refreshed the C library's zone (Emscripten's tzset runs only once per process); the
    time module's zone constants are computed again here as its start-up computes them (from the
    local time of this year's first and middle day), and the baseline keeps them."""
    year = (365 * 24 + 6) * 3600
    start = (int(time.time()) // year) * year
    jan, jul = time.localtime(start), time.localtime(start + year // 2)
    janzone, julzone = -jan.tm_gmtoff, -jul.tm_gmtoff
    janname, julname = (jan.tm_zone or "")[:9], (jul.tm_zone or "")[:9]
    if janzone < julzone:  # daylight saving time in the southern hemisphere
        janzone, julzone, janname, julname = julzone, janzone, julname, janname
    time.timezone, time.altzone, time.daylight, time.tzname = janzone, julzone, int(janzone != julzone), (janname, julname)
    if BASELINE is not None:
        BASELINE.retake(time.__dict__)


def snapshot_files(tops):
    """Every file under `tops` with its bytes (these folders hold little between runs)."""
    files = {}
    for top in tops:
        for folder, dirs, names in os.walk(top):
            for name in names:
                path = os.path.join(folder, name)
                try:
                    files[path] = read_bytes(path)
                except OSError:
                    pass
    return files


def restore_files(tops, files):
    """Remove what a run created under `tops`, rewrite what it changed or deleted."""
    import shutil

    changed = 0
    for top in tops:
        for folder, dirs, names in os.walk(top, topdown=False):
            for name in names:
                path = os.path.join(folder, name)
                if path not in files:
                    os.remove(path)
                    changed += 1
            for name in dirs:
                path = os.path.join(folder, name)
                if os.path.islink(path):
                    os.remove(path)
                elif not any(p.startswith(path + "/") for p in files) and path not in tops:
                    shutil.rmtree(path, ignore_errors=True)
                    changed += 1
    for path, data in files.items():
        try:
            if read_bytes(path) == data:
                continue
        except OSError:
            remove_any(path)  # a link, a FIFO or a folder where the file was
        write_bytes(path, data)
        changed += 1
    return changed


BASELINE = None
# What a page's runs use often: imported once at start-up (and kept in the memory snapshot), so a
# run does not pay for importing them after the previous run's imports were dropped. ctypes: what
# load_fast_path loads the C fast path with (65 ms to import, kept out of the way to ready).
PRELOAD = ("copy", "json", "tempfile", "dataclasses", "functools", "itertools", "collections", "typing", "re", "math", "random", "string", "enum", "abc", "contextlib", "io", "datetime", "textwrap", "operator", "traceback", "shutil", "py_compile", "ctypes")


def settle(preload=True):
    """Take the baseline every run is brought back to (call once, after start-up)."""
    global BASELINE
    if preload:
        for name in PRELOAD:
            importlib.import_module(name)
    importlib.invalidate_caches()  # imports what it needs (importlib.metadata) now, not in a run
    importlib.import_module("tempfile").gettempdir()
    BASELINE = Baseline.__new__(Baseline)  # bound before the snapshot, so the snapshot keeps it
    BASELINE.__init__()


def start():
    """A host's runner starts: the baseline is taken (settle), or, in a Python restored from a
    memory snapshot that was taken after it, the lessons' files are forgotten: the snapshot holds
    the interpreter, not the file system, which starts empty again (the files the baseline keeps
    outside the lessons are written back by the first clean)."""
    if BASELINE is None:
        settle()
    else:
        LESSONS.known.clear()


# Modules that reach the page, the network or the recorder itself: hidden from lesson code.
HIDDEN = ("js", "pyodide_js", "pyodide", "_pyodide", "_pyodide_core", "micropip", "pyodide_http", "steplight_tracer", "reference_recorder")


class Hidden:
    """A meta-path entry, first during a run: importing what lesson code may not use fails clearly."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.partition(".")[0] in HIDDEN:
            raise ImportError("%s is not available to lesson code: a Steplight run is offline and cannot reach the page, the network or the recorder" % name, name=name)
        return None


def hide():
    """Before a run: the recorder and the JavaScript bridge out of reach of lesson imports."""
    for name in [n for n in sys.modules if n.partition(".")[0] in HIDDEN]:
        del sys.modules[name]
    sys.path[:] = [p for p in sys.path if p != os.path.dirname(os.path.abspath(__file__))]
    sys.meta_path.insert(0, Hidden)


class LessonFolders:
    """The lessons' folders: their files as the runner wrote them and the bytecode it compiled, each
    known by its size, time, mode and bytes. Runs do not write bytecode; after a run any other file
    in any lesson folder is removed, and any known one that is not as it was, so one lesson cannot
    plant files or bytecode for another (or for its own next run). Every module is compiled when it
    is written, so every run of a lesson, its first included, finds the same folder."""

    def __init__(self):
        self.known = {}  # path -> state(path) as the runner left it
        self.tops = set()  # the top folders lessons live under (e.g. /steplight)
        self.top = None  # set by a host that keeps every lesson under one folder of its own (serve)

    @staticmethod
    def state(path, was=None):
        """(size, mtime, mode, bytes) of a regular file, not followed through a link; None if there
        is none. Given what it `was`, None as soon as its size, time or kind differ (nothing read)."""
        try:
            fd = os.open(path, os.O_RDONLY | OPEN_PLAIN)  # a FIFO would block the open, a link lead elsewhere
        except OSError:
            return None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or (was is not None and (info.st_size, info.st_mtime_ns, info.st_mode) != was[:3]):
                return None
            return info.st_size, info.st_mtime_ns, info.st_mode, read_fd(fd)
        finally:
            os.close(fd)

    def prepare(self, root, files):
        """Write the lesson's files that are not there as given, and compile its modules (outside
        any run: every sweep since the last run checked the known ones)."""
        if self.top is not None and not root.startswith(self.top + "/"):
            raise ValueError("lesson root %s is outside %s, the folder this host keeps lessons in" % (root, self.top))
        if self.top is None and sys.platform != "emscripten":
            # a CPython with no folder of its own for lessons: the sweep stays inside the lesson's
            top = root.rstrip("/")
        else:  # the host's folder, or (Pyodide's file system is the page's own) the top folder
            top = self.top or "/" + root.strip("/").split("/")[0]
        self.tops.add(top)
        for rel, text in files.items():
            path = os.path.join(root, rel)
            data = text.encode("utf-8")
            known = self.known.get(path)
            if known is None or known[3] != data:
                self.write(path, data)
            if rel.endswith(".py"):
                self.compile(path)

    def write(self, path, data):
        write_bytes(path, data)
        self.known[path] = self.state(path)
        if path.endswith(".py"):  # same size, same second: its old bytecode would still look valid
            cached = importlib.util.cache_from_source(path)
            self.known.pop(cached, None)
            try:
                os.remove(cached)
            except OSError:
                pass

    def compile(self, path):
        """The module's bytecode, from its file as the runner wrote it (once: kept while it is)."""
        import py_compile
        import warnings

        cached = importlib.util.cache_from_source(path)
        if cached in self.known or path not in self.known or self.state(path) != self.known[path]:
            return
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a run's import shows them, as Python would
                py_compile.compile(path, cfile=cached, doraise=True)
            self.known[cached] = self.state(cached)
        except py_compile.PyCompileError:
            pass  # the run reports it

    def sweep(self):
        """Remove every file and folder under the lessons' top folders that the runner did not write,
        and every file that changed since (the recorder's own folder is the baseline's to restore).
        A folder a run made could otherwise be imported by the next run as a namespace package."""
        import shutil

        removed = 0
        for path, was in list(self.known.items()):
            if self.state(path, was) != was:
                del self.known[path]
                removed += 1
                try:
                    os.remove(path)
                except OSError:
                    pass  # gone, or a folder now: the walk below removes it
        own = os.path.dirname(os.path.abspath(__file__))
        folders = set()  # the folders the runner's files are in, and theirs
        for path in self.known:
            folder = os.path.dirname(path)
            while folder not in folders and len(folder) > 1:
                folders.add(folder)
                folder = os.path.dirname(folder)
        pending = list(self.tops)
        while pending:
            try:
                entries = list(os.scandir(pending.pop()))
            except OSError:
                continue
            for entry in entries:
                path = entry.path
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if path in folders:
                            pending.append(path)
                        elif path != own:
                            shutil.rmtree(path)
                            removed += 1
                    elif path not in self.known:
                        os.remove(path)
                        removed += 1
                except OSError:
                    pass
        return removed

    def forget(self, root):
        """Remove a lesson's folder and what is known of it (lessons:check, once done with a lesson:
        every sweep walks all lesson folders, so a check of many lessons would slow down with each)."""
        import shutil

        root = root.rstrip("/")
        shutil.rmtree(root, ignore_errors=True)
        for path in [p for p in self.known if p.startswith(root + "/")]:
            del self.known[path]


LESSONS = LessonFolders()


def read_bytes(path):
    """A regular file's bytes, through the operating system's calls alone (a third of the cost of
    open()); OSError for anything else (a link, a FIFO, a folder)."""
    fd = os.open(path, os.O_RDONLY | OPEN_PLAIN)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError("not a regular file: %s" % path)
        return read_fd(fd)
    finally:
        os.close(fd)


def write_bytes(path, data):
    """Write a regular file (its folders made), never through a link or into a FIFO."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | OPEN_PLAIN, 0o644)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError("not a regular file: %s" % path)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def remove_any(path):
    """Remove what is at `path`, whatever it is (a file, a link, a FIFO, a folder); nothing if none."""
    import shutil

    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            os.remove(path)
        except OSError:
            pass


def read_fd(fd):
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


# opening a lesson's file: never through a link, and never waiting (on a FIFO a run left there)
OPEN_PLAIN = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)


def hosted(root):
    """Where a request's lesson root lives on this host: as it is in the page, under the host's own
    folder in serve()."""
    return (LESSONS.top or "") + "/" + root.strip("/")


def forget(root):
    """The host is done with the lesson at `root` (and its reference recorder's copy)."""
    uninterrupted(LESSONS.forget, hosted(root))


def purge_modules(root):
    """Drop the lesson's modules (those whose file is under `root`)."""
    for name, module in list(sys.modules.items()):
        location = getattr(module, "__file__", None)
        if type(location) is str and location.startswith(root):  # a str: no lesson code runs here
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


def prepare(request_json):
    """Write a lesson's files and compile its modules, ahead of its first run."""
    if STATE.dirty:
        clean()  # the folders are checked first: what is known of them holds only after a sweep
    request = json_loads(request_json)
    uninterrupted(LESSONS.prepare, request["root"].rstrip("/") + "/", request["files"])


def uninterrupted(action, *args):
    """Run the tracer's own bookkeeping to the end even if a host interrupt meant for the lesson
    arrives meanwhile: the interrupt is noted, not raised. (Restarting the action on each
    KeyboardInterrupt could never finish one that takes longer than the 200 ms between the host's
    repeated interrupts.) Outside bookkeeping, SIGINT raises KeyboardInterrupt, as Python's default."""
    if STATE.quiet == 0:
        while True:
            try:
                signal.signal(signal.SIGINT, note_interrupt)
                break
            except KeyboardInterrupt:  # one that landed before the handler was in place
                continue
    STATE.quiet += 1
    try:
        return action(*args)
    finally:
        STATE.quiet -= 1
        if STATE.quiet == 0:
            signal.signal(signal.SIGINT, signal.default_int_handler)


def note_interrupt(signum, frame):
    STATE.interrupts += 1


def run_packed(request_json):
    """run(), its JSON packed for the page (see pack)."""
    return pack(run(request_json))


def pack_json(text):
    """Any JSON text (the host's own, e.g. a run it stopped) packed for the page."""
    return pack(json_dumps(json_loads(text), True))


def run(request_json):
    """Run one request: {root, files, target:{file,symbol}, harness:{file,code}, limits}.

    harness.code is the full harness text, scenario inputs already prepended. The trace comes back
    as ASCII JSON (write_trace)."""
    if STATE.dirty:
        clean()
    request, limits, root, target, started, trace, output, saved = uninterrupted(begin, request_json)
    recorder = None
    try:
        try:
            LESSONS.prepare(root, request["files"])
            purge_modules(root)
            importlib.invalidate_caches()
            hide()
            sys.path.insert(0, root)
            sys.dont_write_bytecode = True  # the bytecode the runner compiled is used; a run writes none
            os.chdir(root)
            key, first, last, runnable = find_target(os.path.join(root, target["file"]), target["symbol"], target.get("firstLine"), target.get("lastLine"))
            trace["target"]["firstLine"], trace["target"]["lastLine"] = first, last
            keys = {key: 0}
            trace["lines"] = [runnable]
            for number, callee in enumerate(request.get("callees", ()), 1):
                found = find_target(os.path.join(root, callee["file"]), callee["symbol"], callee.get("firstLine"), callee.get("lastLine"))
                keys.setdefault(found[0], number)
                trace["lines"].append(found[3])
            harness = request["harness"]
            compiled = compile_harness(harness["code"], os.path.join(root, harness["file"]))
            namespace = {"__name__": "__steplight_harness__", "__file__": os.path.join(root, harness["file"])}
            recorder = Recorder(keys, limits, output)
            RECORDING[0] = False  # (the clean puts it back too: one run's flag never reaches the next)
            shim = TraceShim(recorder, saved.set_trace, saved.get_trace)
            exits = []

            def lesson_exit(status):
                exits.append(status)
                output.close()
                recording(sys.settrace, None)  # the process would end here: nothing after this is recorded
                raise LessonExit(status)

            # what lesson code sees during the run; restore() puts the originals back
            sys.stdout = sys.stderr = output
            sys.stdin = NoInput()
            sys.settrace, sys.gettrace, os._exit = shim.settrace, shim.gettrace, lesson_exit
            sys.addaudithook = add_audit_hook
            if sys.platform == "emscripten":
                time.sleep = sliced_sleep(saved.sleep)
            threading.settrace(shim.current())  # threads the lesson starts are recorded too
            shim.install()
            try:
                exec(compiled, namespace)
            finally:
                RECORDING[0] = True  # the recorder's teardown (sys.settrace raises an audit event)
                try:
                    if shim.installed() != shim.current() and not exits and recorder.truncated is None:
                        recorder.truncated = "tracer"  # lesson code reached the real sys.settrace
                    shim.uninstall()
                    threading.settrace(None)
                    sys.stdout, sys.stderr = saved.stdout, saved.stderr
                finally:
                    RECORDING[0] = False
            if exits:
                raise LessonExit(exits[0])
            if "outcome" in namespace:
                trace["outcome"] = recording(recorder.encoder.safe, namespace["outcome"])
        except StopRun as stop:
            trace["error"] = stop_error(stop.reason, limits)
        except LessonExit as stop:
            trace["error"] = {"type": "SystemExit", "message": "os._exit(%r) was called: the process would end there, so the run ends there" % (stop.args[0] if stop.args else None,)}
        except KeyboardInterrupt as error:
            if time.perf_counter() - started >= limits["timeoutMs"] / 1000:
                trace["error"] = stop_error("time", limits)  # the host's interrupt: the time limit
                if recorder is not None:
                    recorder.truncated = "time"
            else:  # the lesson raised it itself
                trace["error"] = uninterrupted(lambda: dict(describe_exception(error, root), frames=lesson_frames(error.__traceback__, root)))
        except BaseException as error:  # the lesson's own failure is data, not a crash
            sys.stdout, sys.stderr = saved.stdout, saved.stderr
            trace["error"] = uninterrupted(lambda: dict(describe_exception(error, root), frames=lesson_frames(error.__traceback__, root)))
    except KeyboardInterrupt:  # an interrupt that landed in one of the handlers above
        trace.setdefault("error", stop_error("time", limits))
    finally:
        uninterrupted(restore, saved, root)
    return uninterrupted(finish, trace, recorder, output, limits, started)


def compile_harness(text, path):
    """The harness's code: compiled on its first run, a fresh copy loaded from that bytecode on the
    next ones (0.05 ms instead of 0.5 for the bench's harness). No code object is shared between two
    runs, so none carries what another run did to it (its specialised instructions, co_extra)."""
    key = (path, text)
    data = STATE.harnesses.get(key)
    if data is not None:
        return marshal.loads(data)
    code = compile(text, path, "exec")
    if len(STATE.harnesses) > 64:
        STATE.harnesses.clear()
    STATE.harnesses[key] = marshal.dumps(code)
    return code


def begin(request_json):
    request = json_loads(request_json) if type(request_json) is str else request_json
    limits = dict(DEFAULT_LIMITS, **request.get("limits", {}))
    root = request["root"].rstrip("/") + "/"
    target = request["target"]
    trace = {"version": VERSION, "target": dict(target), "steps": [], "stdout": ""}
    return request, limits, root, target, time.perf_counter(), trace, Output(limits["maxStdout"]), Saved()


class Saved:
    """What a run changes in the interpreter, as it was before the run."""

    def __init__(self):
        self.stdout, self.stderr, self.stdin = sys.stdout, sys.stderr, sys.stdin
        self.cwd, self.recursion, self.bytecode, self.path = os.getcwd(), sys.getrecursionlimit(), sys.dont_write_bytecode, list(sys.path)
        self.set_trace, self.get_trace = sys.settrace, sys.gettrace
        self.exit, self.sleep = os._exit, time.sleep
        self.add_audit_hook = sys.addaudithook


def restore(saved, root):
    """Undo what a run changed in the interpreter; a run leaves nothing behind (lessons with
    same-named packages must not see each other)."""
    saved.set_trace(None)
    STATE.audit_hooks = []  # first: the lesson's hooks hear nothing of the bookkeeping after its run
    sys.addaudithook = saved.add_audit_hook
    sys.settrace, sys.gettrace, os._exit, time.sleep = saved.set_trace, saved.get_trace, saved.exit, saved.sleep
    sys.stdout, sys.stderr, sys.stdin = saved.stdout, saved.stderr, saved.stdin
    os.chdir(saved.cwd)
    sys.setrecursionlimit(saved.recursion)
    sys.dont_write_bytecode = saved.bytecode
    sys.path[:] = saved.path
    if Hidden in sys.meta_path:
        sys.meta_path.remove(Hidden)
    threading.settrace(None)
    purge_modules(root)
    STATE.dirty = BASELINE is not None  # clean() brings the rest back, after the result is sent


PYTHON_ADD_AUDIT_HOOK = sys.addaudithook
# What the runner keeps between runs (not module-level names, which the baseline restores).
STATE = types.SimpleNamespace(dirty=False, targets={}, harnesses={}, quiet=0, interrupts=0, audit_hooks=[], audit_relay=False)


def add_audit_hook(hook):
    """sys.addaudithook for lesson code: the hook hears every audit event until the run ends, then
    goes. (Python never removes an audit hook, so one added for real would hear, and could veto,
    everything every later run does.) The first time a lesson adds one, one real hook is added
    that relays events to the hooks of the run in progress, if any. As Python's own, it raises the
    sys.addaudithook event first, and a hook that answers it with a RuntimeError keeps the new one out."""
    try:
        sys.audit("sys.addaudithook")
    except RuntimeError:
        return None
    if not STATE.audit_relay:
        STATE.audit_relay = True
        PYTHON_ADD_AUDIT_HOOK(relay_audit)
    STATE.audit_hooks.append(hook)
    return None


# Set while the recorder works (its trace functions, and Python called from its C fast path): the
# audit events its own work raises (builtins.id, object.__getattr__ for frame.f_code...) are not the
# lesson's, and a lesson's audit hook must not hear them (a run without the recorder raises none).
RECORDING = [False]


def recording(action, *args):
    was, RECORDING[0] = RECORDING[0], True
    try:
        return action(*args)
    finally:
        RECORDING[0] = was


def relay_audit(event, args):
    if RECORDING[0]:
        return
    for hook in STATE.audit_hooks:
        hook(event, args)


def contained(action, *args):
    """Run other code that runs lesson code (the reference recorder, in lessons:check) with the same
    audit hooks as a run: gone when it ends."""
    saved = sys.addaudithook
    sys.addaudithook = add_audit_hook
    try:
        return action(*args)
    finally:
        STATE.audit_hooks = []
        sys.addaudithook = saved


def clean(after_other=False):
    """Bring the long-lived Python (the page's, the checks') back to its baseline: the host calls
    this after sending a run's result, off the reader's path; a run cleans first if it was not.
    `after_other`: code other than a run (the reference recorder's) ran since. Returns the
    milliseconds it took."""
    started = time.perf_counter()
    if after_other:
        STATE.dirty = BASELINE is not None
    if STATE.dirty and BASELINE is not None:
        uninterrupted(lambda: (BASELINE.restore(), LESSONS.sweep()))
    STATE.dirty = False
    return round((time.perf_counter() - started) * 1000, 3)


def write_trace(trace):
    """The trace as ASCII JSON, as json_dumps writes it: by the C fast path's writer when it is
    loaded (the same bytes in a fifth of the time), else, or for what only json_dumps writes, by
    json_dumps. ASCII: every other character escaped, so a lone surrogate arrives as it was."""
    text = DUMP(trace) if DUMP is not None else None
    return text if text is not None else json_dumps(trace, True)


def finish(trace, recorder, output, limits, started):
    if recorder is not None:
        trace["steps"] = recorder.steps
        if recorder.truncated:
            trace["truncated"] = recorder.truncated
            trace.setdefault("error", stop_error(recorder.truncated, limits))
    trace["stdout"] = output.text()
    if output.dropped:
        trace["stdoutDropped"] = output.dropped
    trace["stats"] = {"events": len(trace["steps"]), "durationMs": round((time.perf_counter() - started) * 1000, 3), "recorder": "c" if recorder is not None and recorder.fast else "python"}
    if recorder is not None:
        trace["stats"]["tracing"] = recorder.tracing
    return write_trace(trace)


def stop_error(reason, limits):
    if reason == "tracer":
        return {"type": "TracingStopped", "message": "lesson code replaced the recorder's trace function; the steps after that are missing"}
    if reason == "steps":
        return {"type": "StepLimit", "message": "stopped after %d steps (the step cap)" % limits["maxSteps"]}
    return {"type": "Timeout", "message": "stopped after %d ms (the time limit)" % limits["timeoutMs"]}


def watchdog(seconds):
    """CPython host: interrupt the main thread when the run outlives its limit, and again every
    200 ms while lesson code swallows KeyboardInterrupt (as the Node and browser hosts do)."""
    main_thread = threading.main_thread().ident

    def guard():
        time.sleep(seconds)
        while True:
            # a real SIGINT at the main thread: it also wakes a time.sleep or a blocking read
            signal.pthread_kill(main_thread, signal.SIGINT)
            time.sleep(0.2)

    threading.Thread(target=guard, daemon=True).start()


def main():
    request_json = sys.stdin.read()
    limits = dict(DEFAULT_LIMITS, **json_loads(request_json).get("limits", {}))
    watchdog(limits["timeoutMs"] / 1000 + 0.5)
    out = run(request_json)
    uninterrupted(write_out, out)  # the run is over: a late interrupt must not cut the output


class Watchdog:
    """The CPython host of many runs (serve): one thread that interrupts the main thread when the run
    in progress outlives its limit, and again every 200 ms while lesson code swallows
    KeyboardInterrupt. Disarmed under the lock, so an interrupt meant for one run never lands in the
    next."""

    def __init__(self):
        self.lock = threading.Condition()
        self.deadline = None
        self.main = threading.main_thread().ident
        threading.Thread(target=self.guard, daemon=True).start()

    def arm(self, seconds):
        with self.lock:
            self.deadline = time.monotonic() + seconds
            self.lock.notify()

    def disarm(self):
        with self.lock:
            self.deadline = None

    def guard(self):
        with self.lock:
            while True:
                left = None if self.deadline is None else self.deadline - time.monotonic()
                if left is None or left > 0:
                    self.lock.wait(left)
                    continue
                signal.pthread_kill(self.main, signal.SIGINT)
                self.deadline = time.monotonic() + 0.2


def serve(folder):
    """CPython host for many runs (lessons:check; `import steplight_tracer; steplight_tracer.serve(folder)`,
    imported under its own name so hide() keeps it from lesson code): one process, one request per line on stdin, one
    result per line on stdout. Every run is brought back to the baseline afterwards, as in the page,
    and lessons, TMPDIR and HOME live in `folder` (lessons/, tmp/, home/), the only place a run's files
    are swept from. A request is a list of jobs, answered by the list of their results: {"op": "run",
    "request": …} gives a trace; {"op": "reference", "request": …, "traced": bool} the independent
    reference recorder's run (a job with no request takes the one of the job before it); {"op": "forget", "root": …} removes a lesson's folder; {"op": "symbols",
    "blocks": …} gives symbol_ranges(blocks). Lesson code cannot reach the protocol: file descriptors 0 and 1 point to
    /dev/null."""
    requests = os.fdopen(os.dup(0), "r", encoding="utf-8")
    results = os.fdopen(os.dup(1), "w", encoding="ascii")
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    sys.stdin = open(os.devnull, encoding="utf-8")
    sys.stdout = open(os.devnull, "w", encoding="utf-8")
    folder = os.path.realpath(folder)
    sys.path[:] = [p for p in sys.path if p]  # python -c put the working folder first; a script run has no such entry
    Baseline.WATCHED = (os.path.join(folder, "tmp"), os.path.join(folder, "home"))
    LESSONS.top = os.path.join(folder, "lessons")
    import reference_recorder  # before the baseline, which would drop it after every run

    settle()
    dog = Watchdog()
    for line in requests:
        outs = []
        request = None
        for job in json_loads(line):
            request = job.get("request", request)  # a job without one: the request of the job before
            outs.append(job_result(dog, job, request, reference_recorder))
        uninterrupted(lambda: (results.write("[%s]\n" % ",".join(outs)), results.flush()))


def job_result(dog, job, request, reference_recorder):
    if job["op"] == "forget":
        return forget(job["root"]) or "null"
    if job["op"] == "symbols":
        return json_dumps(symbol_ranges(job["blocks"]))
    return answer(dog, job["op"], request, job.get("traced", True), reference_recorder)


def symbol_ranges(blocks):
    """lessons:check: where Python's own ast says each symbol ({file, symbol: "a.b", text}) starts
    (its first decorator) and ends: [first, last], null when there is no such symbol, or
    "file line n: message" for a syntax error. Parses only; nothing runs."""
    import ast

    out = []
    for block in blocks:
        try:
            node = ast.parse(block["text"])
        except SyntaxError as error:
            out.append("%s line %s: %s" % (block["file"], error.lineno, error.msg))
            continue
        for part in block["symbol"].split("."):
            node = next((n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == part), None)
            if node is None:
                break
        out.append(None if node is None else [min([node.lineno] + [d.lineno for d in node.decorator_list]), node.end_lineno])
    return out


def answer(dog, op, request, traced, reference_recorder):
    """One job of serve(): a run ("run") or the reference recorder's run ("reference") of a request,
    under the watchdog, and Python brought back to the baseline afterwards."""
    request = dict(request, root=hosted(request["root"]))
    limits = dict(DEFAULT_LIMITS, **request.get("limits", {}))
    if op == "reference":  # its files written as for a run (the same folder: kept between runs)
        uninterrupted(LESSONS.prepare, request["root"].rstrip("/") + "/", request["files"])
    dog.arm(limits["timeoutMs"] / 1000 + 0.5)
    try:
        out = contained(reference_recorder.record, json_dumps(request), traced, True) if op == "reference" else run(request)
    except KeyboardInterrupt:  # the host's interrupt after the run had ended, before the disarm
        out = json_dumps({"error": stop_error("time", limits), "lost": True})
    finally:
        uninterrupted(dog.disarm)
    clean(after_other=True)  # the reference recorder's runs are cleaned too
    return out


def write_out(text):
    sys.stdout.write(text)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
