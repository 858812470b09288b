"""Lessons that misbehave: each function leaves something behind that must not reach the next run."""
import builtins
import copy
import gc
import json
import os
import random
import sys
import tempfile
import threading
import warnings

# The folders around the lesson, wherever the host keeps it (/steplight/lessons/<id> in the page)
LESSONS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def patch_deepcopy():
    copy.deepcopy = lambda obj, memo=None: obj


def patch_len():
    builtins.len = lambda obj: 42


def patch_json():
    json.dumps = lambda *a, **k: "forged"
    json.JSONEncoder.default = lambda self, o: "forged"


def replace_module():
    sys.modules["copy"] = type(sys)("copy")


def mutate_tables():
    copy._deepcopy_dispatch[list] = lambda x, memo, deepcopy: x
    warnings.simplefilter("error")


def reach_recorder():
    """Through the garbage collector, past the import block."""
    # filter() keeps the scan out of this frame: one step, not one per object on the heap
    found = list(filter(lambda m: type(m) is type(sys) and getattr(m, "__name__", "") == "steplight_tracer", gc.get_objects()))
    for module in found:
        try:
            module.DEFAULT_LIMITS["maxSteps"] = 5
        except TypeError:
            pass
        module.DEFAULT_LIMITS = {"maxSteps": 5}
        module.NONE["t"] = "forged"
        module.Recorder.record = lambda *a: None
    return len(found)


def write_files():
    for folder in (tempfile.gettempdir(), os.path.dirname(LESSONS), LESSONS, "/steplight/runtime", "."):
        try:
            with open(os.path.join(folder, "planted.txt"), "w") as handle:
                handle.write("left behind")
        except OSError:
            pass
    os.makedirs(os.path.join(tempfile.gettempdir(), "nested/dir"), exist_ok=True)


def plant_bytecode():
    """Overwrite the cached bytecode of the ordinary lesson's module, if it is there."""
    for folder, dirs, names in os.walk(LESSONS):
        for name in names:
            if name.startswith("ordinary") and name.endswith(".pyc"):
                with open(os.path.join(folder, name), "r+b") as handle:
                    handle.seek(20)
                    handle.write(b"\0" * 16)
    return True


def change_process():
    sys.setrecursionlimit(60)
    sys.path.append("/nowhere")
    os.environ["STEPLIGHT_LEFT"] = "1"
    os.chdir("/")
    gc.disable()
    random.seed(12345)
    sys.excepthook = lambda *a: None
    sys.setprofile(lambda *a: None)
    threading.setprofile(lambda *a: None)
    if hasattr(sys, "monitoring"):
        sys.monitoring.use_tool_id(2, "lesson")
        sys.monitoring.set_events(2, sys.monitoring.events.PY_START)


def switch_events_off():
    """A sys.monitoring tool of its own whose callback switches each line of the standard library's
    deepcopy off (DISABLE) once heard: Python keeps that in deepcopy's code, which outlives the run.
    Returns how many lines it heard, the same in every run."""
    if not hasattr(sys, "monitoring"):
        return 0
    mon = sys.monitoring
    heard = []

    def line(code, number):
        heard.append(number)
        return mon.DISABLE

    mon.use_tool_id(3, "lesson")
    mon.register_callback(3, mon.events.LINE, line)
    mon.set_events(3, mon.events.LINE)
    copy.deepcopy({"a": [1, {"b": 2}]})
    mon.set_events(3, 0)
    return len(heard)


def plant_folders():
    """Folders in the ordinary lesson's: an empty one and one with a module (its file is swept);
    either would be imported by the next run as a namespace package."""
    here = os.path.join(LESSONS, "ordinary")
    os.makedirs(os.path.join(here, "planted_empty"), exist_ok=True)
    os.makedirs(os.path.join(here, "planted_pkg"), exist_ok=True)
    with open(os.path.join(here, "planted_pkg", "__init__.py"), "w") as handle:
        handle.write("FORGED = True\n")
    return sorted(os.listdir(here))


def tamper_source():
    """The ordinary lesson's own module, changed where a check of size and time would not see it:
    the same length, its old time put back, its bytecode gone (so the next import would compile the
    change) and a FIFO in its place (an import that opened it would wait forever)."""
    import importlib.util

    source = os.path.join(LESSONS, "ordinary", "ordinary.py")
    info = os.stat(source)
    with open(source, "rb") as handle:
        text = handle.read()
    with open(source, "wb") as handle:
        handle.write(text.replace(b"twin is data", b"twin == data"))
    os.utime(source, ns=(info.st_atime_ns, info.st_mtime_ns))
    cached = importlib.util.cache_from_source(source)
    os.remove(cached)
    try:
        os.mkfifo(cached)
    except (AttributeError, OSError):  # no FIFOs here (Pyodide)
        pass
    return os.stat(source).st_size == info.st_size


def link_source():
    """The ordinary lesson's module and a file the baseline knows replaced by links to forged ones."""
    forged = os.path.join(tempfile.gettempdir(), "forged.py")
    with open(forged, "w") as handle:
        handle.write("def ordinary(data):\n    return 'forged'\n\ndef fingerprint():\n    return {}\n")
    source = os.path.join(LESSONS, "ordinary", "ordinary.py")
    os.remove(source)
    os.symlink(forged, source)
    runtime = "/steplight/runtime/reference_recorder.py"
    if os.path.exists(runtime):
        os.remove(runtime)
        os.symlink(forged, runtime)
    return os.path.islink(source)


def rename_attribute():
    """The same number of names and the same values in json's namespace; one name differs."""
    json.forged_dumps = json.__dict__.pop("dumps")


def rename_last_name():
    """json's namespace as long as it was, with the same values in the same order: only the name of
    its last entry differs."""
    names = json.__dict__
    last = next(reversed(names))
    names["renamed_" + last] = names.pop(last)


def watch_the_watcher():
    """A profile function of the lesson's own while a standard module's namespace changes: whatever
    the recorder does to notice the change must not show up as a call (returns the calls seen)."""
    import string

    seen = []
    sys.setprofile(lambda frame, event, arg: event == "call" and seen.append(frame.f_code.co_filename))
    string.planted = 1
    del string.planted
    sys.setprofile(None)
    return seen


def add_audit_hook():
    """Audit hooks cannot be removed: one added by a run would see (and could veto) every later run."""
    sys.addaudithook(lambda event, args: event == "os.listdir" and sys.stdout.write("audited\n"))
    return os.listdir(".") and True


def patch_function():
    """Not a name rebound: the same function objects, with another body and other defaults."""
    copy.deepcopy.__code__ = (lambda x, memo=None, _nil=[]: x).__code__
    json.dumps.__kwdefaults__ = dict(json.dumps.__kwdefaults__, indent=1)


def exit_now():
    os._exit(0)


def import_js():
    import js  # noqa: F401
