#!/usr/bin/env python3
"""The tables of an A/B run (ab_on_gpu.sh): for the candidate and then each variant, per
row, each round's median of that build and of the base, base/build of their means (above
1: the build is faster), and the fraction of a same-bytes copy each reached; then the
geometric mean over rows.

    ab_compare.py DIR     # reads DIR/candidate-K.csv, DIR/variant-NAME-K.csv, DIR/base-K.csv

The CSVs are `tileops bench --csv`'s or bench_cuda's (AB_BENCH=bench_cuda).

Standard library only. A row missing from a run, or not ok in one, is listed apart with
the first reason found.
"""
import csv
import glob
import math
import os
import re
import sys


def normalised(row):
    """A row of `tileops bench --csv` as it is; one of bench_cuda's (us, fraction; it
    writes only rows it timed) in the same terms."""
    if "median_us" in row:
        return row
    return {**row, "status": "ok", "reason": "", "median_us": row["us"], "vs_baseline": row["fraction"]}


def builds(directory):
    """Each build's rounds in the directory (files NAME-K.csv): NAME -> a list of rows
    keyed by (op, case), in round order."""
    found = {}
    for path in glob.glob(os.path.join(directory, "*.csv")):
        m = re.fullmatch(r"(.+)-(\d+)\.csv", os.path.basename(path))
        if m:
            found.setdefault(m.group(1), []).append((int(m.group(2)), path))
    out = {}
    for name, paths in found.items():
        out[name] = []
        for _, path in sorted(paths):
            with open(path, newline="") as f:
                out[name].append({(r["op"], r["case"]): normalised(r) for r in csv.DictReader(f)})
    return out


def mean(values):
    return sum(values) / len(values)


def compare(label, build, base):
    """Prints the table of one build (its rounds) against the base's rounds."""
    print(f"| op | case | {label} µs | base µs | base/{label} | fraction of copy, {label} | base |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: |")
    ratios, apart = [], []
    for key in build[0]:
        rows = [r.get(key) for r in build + base]
        if any(r is None or r["status"] != "ok" for r in rows):
            bad = next(r for r in rows if r is None or r["status"] != "ok")
            apart.append((key, "missing from a run" if bad is None else f"{bad['status']}: {bad['reason']}"))
            continue
        c = [float(r[key]["median_us"]) for r in build]
        b = [float(r[key]["median_us"]) for r in base]
        ratio = mean(b) / mean(c)
        ratios.append(ratio)
        frac = [mean([float(r[key]["vs_baseline"]) for r in runs]) for runs in (build, base)]
        print(f"| {key[0]} | {key[1]} | {' '.join(f'{v:.2f}' for v in c)} | {' '.join(f'{v:.2f}' for v in b)} "
              f"| {ratio:.3f} | {frac[0]:.3f} | {frac[1]:.3f} |")
    if ratios:
        geo = math.exp(mean([math.log(r) for r in ratios]))
        print(f"\n{len(ratios)} rows: geometric mean base/{label} {geo:.4f}; {label} faster on "
              f"{sum(r > 1 for r in ratios)}, slower on {sum(r < 1 for r in ratios)}")
    for key, why in apart:
        print(f"- {key[0]} {key[1]}: {why}")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    directory = sys.argv[1]
    found = builds(directory)
    candidate, base = found.get("candidate"), found.get("base")
    if not candidate or not base:
        sys.exit(f"ab_compare.py: no candidate-K.csv or base-K.csv in {directory}")
    print(f"# A/B: candidate against base, {len(candidate)} and {len(base)} rounds\n")
    compare("candidate", candidate, base)
    for name in sorted(n for n in found if n.startswith("variant-")):
        variant, label = found[name], name[len("variant-"):]
        print(f"\n# A/B: variant {label} against base, {len(variant)} and {len(base)} rounds\n")
        compare(label, variant, base)


if __name__ == "__main__":
    main()
