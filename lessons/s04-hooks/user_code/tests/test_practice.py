"""The practice CLI against a real temporary program: a marker file counts its runs."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

PRACTICE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "practice.py")


class PracticeTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.marker = os.path.join(self.dir.name, "ran.txt")
        self.program = os.path.join(self.dir.name, "program.py")
        self.log = os.path.join(self.dir.name, "audit.jsonl")
        with open(self.program, "w", encoding="utf-8") as f:
            f.write(f"with open({self.marker!r}, 'a') as m:\n    m.write('ran\\n')\nprint('program ran')\n")

    def tearDown(self):
        self.dir.cleanup()

    def practice(self, *flags):
        done = subprocess.run(
            [sys.executable, PRACTICE, self.program, "--audit-log", self.log, *flags],
            capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60,
        )
        return done.returncode, json.loads(done.stdout)

    def runs(self):
        if not os.path.exists(self.marker):
            return 0
        with open(self.marker, encoding="utf-8") as m:
            return len(m.readlines())

    def audit(self):
        with open(self.log, encoding="utf-8") as f:
            return [json.loads(line) for line in f]

    def test_allowed_program_runs_once_and_is_audited(self):
        code, report = self.practice("--decision", "allow")
        self.assertEqual(code, 0)
        self.assertEqual(self.runs(), 1)
        self.assertIn("program ran", report["result"]["content"])
        self.assertEqual([e["event"] for e in self.audit()], ["before", "after"])

    def test_audit_failure_warns_and_the_program_still_runs_exactly_once(self):
        code, report = self.practice("--decision", "allow", "--audit-failure")
        self.assertEqual(code, 0)
        self.assertEqual(self.runs(), 1)
        self.assertFalse(report["result"]["is_error"])
        self.assertEqual(len(report["warnings"]), 1)
        self.assertIn("OSError", report["warnings"][0])
        self.assertEqual([e["event"] for e in self.audit()], ["before"])

    def test_block_run_is_the_hosts_policy_and_an_allow_does_not_lift_it(self):
        code, report = self.practice("--decision", "allow", "--block-run")
        self.assertEqual(code, 1)
        self.assertEqual(self.runs(), 0)
        self.assertEqual(report["result"]["id"], "run_1")
        self.assertEqual(report["result"]["content"], "permission denied for run_main")
        self.assertEqual([(e["event"], e["id"], e["tool"]) for e in self.audit()], [("before", "run_1", "run_main"), ("after", "run_1", "run_main")])

    def test_the_article_command_runs_the_lessons_main_and_prints_42(self):
        done = subprocess.run([sys.executable, PRACTICE, "--decision", "allow"], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr)
        report = json.loads(done.stdout)
        self.assertEqual(report["result"], {"type": "tool_result", "id": "run_1", "is_error": False, "content": "exit code 0\n42"})

    def test_verify_practice_checks_the_three_offline_paths(self):
        verify = os.path.join(os.path.dirname(PRACTICE), "verify_practice.py")
        done = subprocess.run([sys.executable, verify], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn("3 of 3 paths as expected", done.stdout)

    def test_maintenance_never_runs_the_program(self):
        code, report = self.practice("--decision", "allow", "--maintenance")
        self.assertEqual(code, 1)
        self.assertEqual(self.runs(), 0)
        self.assertIn("maintenance window", report["result"]["content"])

    def test_deny_never_runs_the_program(self):
        code, report = self.practice("--decision", "deny")
        self.assertEqual(code, 1)
        self.assertEqual(self.runs(), 0)
        self.assertEqual(report["result"]["content"], "permission denied for run_main")

    def test_without_a_terminal_the_default_is_deny(self):
        code, report = self.practice()
        self.assertEqual(code, 1)
        self.assertEqual(self.runs(), 0)
        self.assertEqual(report["result"]["content"], "permission denied for run_main")


if __name__ == "__main__":
    unittest.main()
