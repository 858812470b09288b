"""Check the practice CLI's three offline paths against a real program that counts its runs.

    python3 lessons/s04-hooks/user_code/verify_practice.py

allow: the program runs exactly once and the audit has before and after;
maintenance: the program never runs and the after entry records "not executed";
audit failure: the program still runs exactly once, with one warning, and nothing is retried.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PRACTICE = os.path.join(HERE, "practice.py")


def run_path(flags, folder):
    marker = os.path.join(folder, "runs.txt")
    program = os.path.join(folder, "main.py")
    with open(program, "w", encoding="utf-8") as handle:
        handle.write(f"with open({marker!r}, 'a') as m:\n    m.write('x')\nprint(42)\n")
    log = os.path.join(folder, "audit.jsonl")
    done = subprocess.run([sys.executable, PRACTICE, program, "--audit-log", log, *flags], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
    report = json.loads(done.stdout)
    runs = len(open(marker).read()) if os.path.exists(marker) else 0
    with open(log, encoding="utf-8") as handle:
        audit = [json.loads(line) for line in handle]
    return done.returncode, report, runs, audit


CHECKS = [
    ("allow", ["--decision", "allow"], lambda code, report, runs, audit: code == 0 and runs == 1 and report["result"]["content"] == "exit code 0\n42" and [e["event"] for e in audit] == ["before", "after"]),
    ("maintenance", ["--decision", "allow", "--maintenance"], lambda code, report, runs, audit: code == 1 and runs == 0 and audit[-1]["content"].startswith("not executed:")),
    ("audit failure", ["--decision", "allow", "--audit-failure"], lambda code, report, runs, audit: code == 0 and runs == 1 and len(report["warnings"]) == 1 and [e["event"] for e in audit] == ["before"]),
]


def main():
    good = 0
    for name, flags, expected in CHECKS:
        with tempfile.TemporaryDirectory() as folder:
            code, report, runs, audit = run_path(flags, folder)
            ok = expected(code, report, runs, audit)
        good += ok
        print(f"{'ok  ' if ok else 'FAIL'} {name}: exit {code}, program ran {runs} time(s), result {report['result']['content']!r}, warnings {report['warnings']}")
    print(f"{good} of {len(CHECKS)} paths as expected")
    return 0 if good == len(CHECKS) else 1


if __name__ == "__main__":
    sys.exit(main())
