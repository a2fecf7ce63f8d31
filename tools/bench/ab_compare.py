#!/usr/bin/env python3
"""The table of an A/B run (ab_on_gpu.sh): per row, each round's median of the candidate
and of the base, base/candidate of their means (above 1: the candidate is faster), and
the fraction of a same-bytes copy each reached; then the geometric mean over rows.

    ab_compare.py DIR     # reads DIR/candidate-K.csv and DIR/base-K.csv

Standard library only. A row missing from a run, or not ok in one, is listed apart with
the first reason found.
"""
import csv
import glob
import math
import os
import sys


def rounds(directory, name):
    """Each round's rows of one build, keyed by (op, case), in round order."""
    paths = sorted(glob.glob(os.path.join(directory, f"{name}-*.csv")),
                   key=lambda p: int(p.rsplit("-", 1)[1].split(".")[0]))
    out = []
    for path in paths:
        with open(path, newline="") as f:
            out.append({(r["op"], r["case"]): r for r in csv.DictReader(f)})
    return out


def mean(values):
    return sum(values) / len(values)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    directory = sys.argv[1]
    candidate, base = rounds(directory, "candidate"), rounds(directory, "base")
    if not candidate or not base:
        sys.exit(f"ab_compare.py: no candidate-K.csv or base-K.csv in {directory}")
    print(f"# A/B: candidate against base, {len(candidate)} and {len(base)} rounds\n")
    print("| op | case | candidate µs | base µs | base/candidate | fraction of copy, candidate | base |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: |")
    ratios, apart = [], []
    for key in candidate[0]:
        rows = [r.get(key) for r in candidate + base]
        if any(r is None or r["status"] != "ok" for r in rows):
            bad = next(r for r in rows if r is None or r["status"] != "ok")
            apart.append((key, "missing from a run" if bad is None else f"{bad['status']}: {bad['reason']}"))
            continue
        c = [float(r[key]["median_us"]) for r in candidate]
        b = [float(r[key]["median_us"]) for r in base]
        ratio = mean(b) / mean(c)
        ratios.append(ratio)
        frac = [mean([float(r[key]["vs_baseline"]) for r in build]) for build in (candidate, base)]
        print(f"| {key[0]} | {key[1]} | {' '.join(f'{v:.2f}' for v in c)} | {' '.join(f'{v:.2f}' for v in b)} "
              f"| {ratio:.3f} | {frac[0]:.3f} | {frac[1]:.3f} |")
    if ratios:
        geo = math.exp(mean([math.log(r) for r in ratios]))
        print(f"\n{len(ratios)} rows: geometric mean base/candidate {geo:.4f}; candidate faster on "
              f"{sum(r > 1 for r in ratios)}, slower on {sum(r < 1 for r in ratios)}")
    for key, why in apart:
        print(f"- {key[0]} {key[1]}: {why}")


if __name__ == "__main__":
    main()
