#!/usr/bin/env python3
"""tools/bench/targets.py on a hand-made report: which rows count, which miss, the
PyTorch column and the rows where PyTorch eager is faster."""
import csv
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "bench", "targets.py")
BENCH = ["op", "case", "family", "status", "bytes", "median_us", "vs_baseline"]
TORCH = ["op", "case", "status", "torch_us", "torch_over_tileops"]


def write(path, fields, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for r in rows:
            w.writerow(dict(zip(fields, r)))


class Targets(unittest.TestCase):
    def run_on(self, bench_rows, torch_rows=None):
        with tempfile.TemporaryDirectory() as d:
            bench = os.path.join(d, "bench.csv")
            write(bench, BENCH, bench_rows)
            cmd = [sys.executable, SCRIPT, bench]
            if torch_rows is not None:
                write(os.path.join(d, "torch.csv"), TORCH, torch_rows)
                cmd += ["--torch", os.path.join(d, "torch.csv")]
            return subprocess.run(cmd, capture_output=True, text=True)

    def test_rows_counted_and_listed(self):
        out = self.run_on(
            [("Norm", "meets", "norm", "ok", "100e6", "25", "0.91"),
             ("Norm", "misses", "norm", "ok", "100e6", "30", "0.85"),
             ("Relu", "under-0.92", "elementwise", "ok", "70e6", "18", "0.91"),
             ("Rope", "small-but-listed", "rope", "ok", "40e6", "20", "0.5"),
             ("Sum", "too-small", "reduction", "ok", "10e6", "9", "0.1"),
             ("Gemm", "other-family", "gemm", "ok", "100e6", "90", "0.1"),
             ("Norm", "failed", "norm", "failed", "100e6", "", "")],
            [("Norm", "misses", "ok", "45", "1.5"), ("Relu", "under-0.92", "ok", "17", "0.944")])
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("1 of 3 rows moving at least 64 MB meet their target.", out.stdout)
        self.assertIn("Rows of at least 30 MB below target (3 of 4):", out.stdout)
        self.assertIn("| Norm | misses | 100.0 | 30.0 | 0.850 | 0.90 | 45.0 |", out.stdout)
        self.assertIn("| Relu | under-0.92 | 70.0 | 18.0 | 0.910 | 0.92 | 17.0 |", out.stdout)
        self.assertIn("| Rope | small-but-listed | 40.0 | 20.0 | 0.500 | 0.92 | — |", out.stdout)
        self.assertNotIn("too-small", out.stdout)
        self.assertNotIn("other-family", out.stdout)
        self.assertNotIn("| Norm | meets", out.stdout)
        self.assertIn("PyTorch eager faster on 1 of 2 rows:\n- Relu under-0.92: torch/tileops 0.944", out.stdout)

    def test_without_torch_no_column(self):
        out = self.run_on([("Norm", "misses", "norm", "ok", "100e6", "30", "0.85")])
        self.assertIn("| op | case | MB | µs | fraction of copy | target |\n", out.stdout)
        self.assertNotIn("PyTorch", out.stdout)

    def test_no_covered_family(self):
        out = self.run_on([("Gemm", "g", "gemm", "ok", "100e6", "90", "0.1")])
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("no ok rows of the norm, reduction, elementwise, rope families", out.stderr)


if __name__ == "__main__":
    unittest.main()
