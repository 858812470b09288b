"""An ordinary lesson: its trace and outcome must be the same after any misbehaving one."""
import copy
import gc
import hashlib
import importlib.util
import json
import os
import random
import sys
import tempfile
import warnings


def ordinary(data):
    twin = copy.deepcopy(data)
    twin["items"].append(len(twin["items"]))
    text = json.dumps(twin, sort_keys=True)
    draw = random.random()
    here = sorted(os.listdir("."))
    return text, twin is data, draw, here


def fingerprint():
    return {
        "recursion": sys.getrecursionlimit(),
        "path": len(sys.path),
        "environ": sorted(k for k in os.environ if k.startswith("STEPLIGHT")),
        "cwd_is_lesson": os.path.basename(os.getcwd()),
        "gc": gc.isenabled(),
        "warnings": len(warnings.filters),
        "tmp": sorted(os.listdir(tempfile.gettempdir())),
        "excepthook": sys.excepthook is sys.__excepthook__,
        "profile": sys.getprofile() is None,
        "tracer_hidden": "steplight_tracer" not in sys.modules,
        "json_names": hashlib.sha256(" ".join(json.__dict__).encode()).hexdigest()[:16],
        "planted": [name for name in ("planted_empty", "planted_pkg") if importlib.util.find_spec(name) is not None],
    }
