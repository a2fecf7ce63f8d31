#!/usr/bin/env python3
"""tools/bench/ab_compare.py on hand-made rounds: the ratios, their geometric mean, the
fractions of copy, the rows it sets apart, and a table for each variant."""
import csv
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "bench", "ab_compare.py")
FIELDS = ["op", "case", "status", "reason", "median_us", "vs_baseline"]


def write(directory, name, rows):
    with open(os.path.join(directory, name), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow(dict(zip(FIELDS, r)))


def run(directory):
    return subprocess.run([sys.executable, SCRIPT, directory], capture_output=True, text=True)


class AbCompare(unittest.TestCase):
    def test_ratios_geomean_and_rows_apart(self):
        with tempfile.TemporaryDirectory() as d:
            # Round 10 sorts after round 2 only when rounds are ordered by number.
            write(d, "candidate-1.csv", [("A", "a", "ok", "", "10", "0.9"), ("B", "b", "ok", "", "20", "0.8"),
                                         ("C", "c", "skipped", "too big", "", "")])
            write(d, "candidate-2.csv", [("A", "a", "ok", "", "11", "0.9"), ("B", "b", "ok", "", "20", "0.8")])
            write(d, "candidate-10.csv", [("A", "a", "ok", "", "12", "0.9"), ("B", "b", "ok", "", "20", "0.8")])
            write(d, "base-1.csv", [("A", "a", "ok", "", "12", "0.75"), ("B", "b", "ok", "", "15", "1.0")])
            out = run(d)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertIn("| A | a | 10.00 11.00 12.00 | 12.00 | 1.091 | 0.900 | 0.750 |", out.stdout)
            self.assertIn("| B | b | 20.00 20.00 20.00 | 15.00 | 0.750 | 0.800 | 1.000 |", out.stdout)
            # sqrt(12 / 11 * 0.75) = 0.9045
            self.assertIn("2 rows: geometric mean base/candidate 0.9045; candidate faster on 1, slower on 1",
                          out.stdout)
            self.assertIn("- C c: skipped: too big", out.stdout)

    def test_variants_each_against_the_base(self):
        with tempfile.TemporaryDirectory() as d:
            write(d, "candidate-1.csv", [("A", "a", "ok", "", "10", "0.9")])
            write(d, "base-1.csv", [("A", "a", "ok", "", "12", "0.75")])
            # "fast" and "fast-2": a variant's rounds are its own files only.
            write(d, "variant-fast-1.csv", [("A", "a", "ok", "", "8", "1.0")])
            write(d, "variant-fast-2.csv", [("A", "a", "ok", "", "8", "1.0")])
            write(d, "variant-fast-2-1.csv", [("A", "a", "ok", "", "24", "0.4")])
            out = run(d)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertIn("| A | a | 10.00 | 12.00 | 1.200 | 0.900 | 0.750 |", out.stdout)
            self.assertIn("# A/B: variant fast against base, 2 and 1 rounds", out.stdout)
            self.assertIn("| A | a | 8.00 8.00 | 12.00 | 1.500 | 1.000 | 0.750 |", out.stdout)
            self.assertIn("1 rows: geometric mean base/fast 1.5000; fast faster on 1, slower on 0", out.stdout)
            self.assertIn("# A/B: variant fast-2 against base, 1 and 1 rounds", out.stdout)
            self.assertIn("| A | a | 24.00 | 12.00 | 0.500 | 0.400 | 0.750 |", out.stdout)
            self.assertLess(out.stdout.index("variant fast against"), out.stdout.index("variant fast-2 against"))

    def test_bench_cuda_rounds(self):
        # bench_cuda's CSV (AB_BENCH=bench_cuda): us and fraction; every row was timed.
        fields = ["op", "case", "inputs", "mb", "us", "tbs", "copy_tbs", "fraction", "target", "first_call_ms"]
        with tempfile.TemporaryDirectory() as d:
            for name, us, fraction in (("candidate-1.csv", "19.6", "0.799"), ("base-1.csv", "20.3", "0.772")):
                with open(os.path.join(d, name), "w", newline="") as f:
                    w = csv.writer(f)
                    w.writerow(fields)
                    w.writerow(["SoftmaxFwdOp", "llama3-8b-sample-b64-bfloat16", "[64, 128256]", "32.8", us, "1.7",
                                "2.1", fraction, "0.9", "310"])
            out = run(d)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertIn("| SoftmaxFwdOp | llama3-8b-sample-b64-bfloat16 | 19.60 | 20.30 | 1.036 | 0.799 | 0.772 |",
                          out.stdout)

    def test_a_row_missing_from_a_round(self):
        with tempfile.TemporaryDirectory() as d:
            write(d, "candidate-1.csv", [("A", "a", "ok", "", "10", "0.9")])
            write(d, "base-1.csv", [])
            out = run(d)
            self.assertIn("- A a: missing from a run", out.stdout)
            self.assertNotIn("geometric mean", out.stdout)

    def test_no_rounds(self):
        with tempfile.TemporaryDirectory() as d:
            out = run(d)
            self.assertNotEqual(out.returncode, 0)
            self.assertIn("no candidate-K.csv or base-K.csv in", out.stderr)


if __name__ == "__main__":
    unittest.main()
