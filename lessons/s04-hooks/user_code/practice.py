"""Practice: the lesson's hooked tool call against the real world, offline.

    python3 lessons/s04-hooks/user_code/practice.py [PROGRAM] [--decision allow|deny]
        [--maintenance] [--audit-failure] [--block-run] [--audit-log PATH]

It asks to run PROGRAM (a Python file; by default the lesson's main.py, which
prints 42) through execute_hooked, as the tool call run_main with id run_1:
the course hooks audit the call to a real JSON-lines file, the permission
layer asks you, and the program really runs in a subprocess. Without
--decision it asks on the terminal; when nobody can answer (no terminal), the
answer is no. --block-run is the host's own policy, a list of blocked tools
that the permission layer consults first: no hook and no answer can lift it.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from core.runtime import build_hooks, execute_hooked  # noqa: E402
from core.standins import AuditFile, MemoryFiles  # noqa: E402


class RealProcess:
    """Runs a Python program for real, once per call."""

    def __init__(self, timeout=60):
        self.timeout = timeout

    def run(self, program):
        done = subprocess.run([sys.executable, program], capture_output=True, text=True, timeout=self.timeout)
        return {"exit_code": done.returncode, "output": (done.stdout + done.stderr).strip()}


MAIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "main.py")


def make_ask(decision, stdin=None, blocked=()):
    """The host's answer to a permission question: its blocked list first, then the decision."""
    stdin = stdin or sys.stdin

    def ask(call):
        if call["name"] in blocked:
            return False
        if decision is not None:
            return decision == "allow"
        if not stdin.isatty():
            return False
        answer = input(f"Allow {call['name']} {call['params']}? [y/N] ")
        return answer.strip().lower() in ("y", "yes")

    return ask


def main(argv=None):
    parser = argparse.ArgumentParser(description="Run a program through the lesson's hooked tool call.")
    parser.add_argument("program", nargs="?", default=MAIN, help="the Python program to run (default: the lesson's main.py)")
    parser.add_argument("--decision", choices=("allow", "deny"), help="answer the permission question without asking")
    parser.add_argument("--maintenance", action="store_true", help="turn on the maintenance window (blocks run_main)")
    parser.add_argument("--audit-failure", action="store_true", help="make the audit log fail on the after entry")
    parser.add_argument("--block-run", action="store_true", help="the host blocks run_main by its own policy (no hook or answer lifts it)")
    parser.add_argument("--audit-log", help="where the audit log goes (default: a temporary file)")
    args = parser.parse_args(argv)

    log_path = args.audit_log or os.path.join(tempfile.mkdtemp(prefix="steplight-"), "audit.jsonl")
    log = AuditFile(log_path, fail_on="after" if args.audit_failure else None)
    hooks = build_hooks(log, maintenance=args.maintenance)
    env = {"files": MemoryFiles({}), "process": RealProcess()}
    call = {"id": "run_1", "name": "run_main", "params": {"program": args.program}}
    report = execute_hooked(call, hooks, env, make_ask(args.decision, blocked=("run_main",) if args.block_run else ()))
    print(json.dumps({"result": report["result"], "warnings": report["warnings"], "audit_log": log_path}, indent=2))
    return 1 if report["result"]["is_error"] else 0


if __name__ == "__main__":
    sys.exit(main())
