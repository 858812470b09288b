"""A baseline for the benchmark: a bdb tracer that snapshots the whole heap at every step.

This is the classic teaching-tracer design (every frame traced by bdb; at each
line of user code, every frame's locals and the globals are encoded, following
every reachable object). Steplight's tracer is measured against it.
"""
import bdb
import json


class FullHeapTracer(bdb.Bdb):
    def __init__(self, user_root):
        super().__init__()
        self.user_root = user_root
        self.steps = 0
        self.bytes = 0  # snapshots are serialized as they are taken and only their size is kept

    def encode(self, value, heap):
        kind = type(value)
        if value is None or kind in (bool, int, float, str):
            return value
        key = id(value)
        if key not in heap:
            heap[key] = None  # placeholder: cycles end here
            if kind in (list, tuple, set, frozenset):
                heap[key] = [kind.__name__] + [self.encode(v, heap) for v in value]
            elif kind is dict:
                heap[key] = ["dict"] + [[self.encode(k, heap), self.encode(v, heap)] for k, v in value.items()]
            elif hasattr(value, "__dict__") and not callable(value):
                heap[key] = ["instance", kind.__name__] + [[k, self.encode(v, heap)] for k, v in vars(value).items()]
            else:
                heap[key] = ["other", repr(value)]
        return ["ref", key]

    def snapshot(self, frame, event):
        if not frame.f_code.co_filename.startswith(self.user_root):
            return
        heap = {}
        stack = []
        f = frame
        while f is not None:
            if f.f_code.co_filename.startswith(self.user_root):
                stack.append({"func": f.f_code.co_name, "line": f.f_lineno,
                              "locals": {k: self.encode(v, heap) for k, v in f.f_locals.items()}})
            f = f.f_back
        user_globals = {k: self.encode(v, heap) for k, v in frame.f_globals.items()
                        if not k.startswith("__") and not callable(v) and type(v).__name__ != "module"}
        snapshot = {"event": event, "stack": stack, "globals": user_globals, "heap": heap}
        self.bytes += len(json.dumps(snapshot, default=str))
        self.steps += 1

    def user_call(self, frame, argument_list):
        self.snapshot(frame, "call")

    def user_line(self, frame):
        self.snapshot(frame, "line")

    def user_return(self, frame, value):
        self.snapshot(frame, "return")

    def user_exception(self, frame, info):
        self.snapshot(frame, "exception")


def trace_full_heap(code, namespace, user_root):
    tracer = FullHeapTracer(user_root)
    tracer.runctx(code, namespace, namespace)
    return tracer.steps


def trace_bare(code, namespace, root, name):
    """The floor for a settrace recorder: (event, line) of the target's frames, nothing else."""
    import os
    import sys

    steps = []

    def local(frame, event, arg):
        steps.append((event, frame.f_lineno))
        return local

    def glob(frame, event, arg):
        if frame.f_code.co_name == name and frame.f_code.co_filename.startswith(root):
            steps.append((event, frame.f_lineno))
            return local
        return None

    os.chdir(root)
    sys.path.insert(0, root)
    sys.settrace(glob)
    try:
        exec(code, namespace)
    finally:
        sys.settrace(None)
        sys.path.remove(root)
    return len(steps)


def trace_bare_monitoring(code, namespace, root, name):
    """The same floor with sys.monitoring (PEP 669) instead of settrace: (event, line) of the
    target's frames, with LINE and PY_RETURN switched on only for the target's code object, so the
    interpreter reports nothing of the frames that are not traced. The steps it records are
    settrace's for this workload (the bench prints both counts)."""
    import os
    import sys

    monitoring = sys.monitoring
    events = monitoring.events
    tool = next(t for t in range(5, -1, -1) if monitoring.get_tool(t) is None)
    monitoring.use_tool_id(tool, "bench")
    steps = []
    getframe = sys._getframe

    def start(code, offset):
        if code.co_name == name and code.co_filename.startswith(root):
            monitoring.set_local_events(tool, code, events.LINE | events.PY_RETURN)
            steps.append(("call", getframe(1).f_lineno))
            return None
        return monitoring.DISABLE

    def line(code, number):
        steps.append(("line", number))

    def returned(code, offset, value):
        steps.append(("return", getframe(1).f_lineno))

    monitoring.register_callback(tool, events.PY_START, start)
    monitoring.register_callback(tool, events.LINE, line)
    monitoring.register_callback(tool, events.PY_RETURN, returned)
    os.chdir(root)
    sys.path.insert(0, root)
    monitoring.set_events(tool, events.PY_START)
    try:
        exec(code, namespace)
    finally:
        monitoring.set_events(tool, 0)
        monitoring.free_tool_id(tool)
        sys.path.remove(root)
    return len(steps)
