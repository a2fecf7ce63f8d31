#!/usr/bin/env python3
"""The rows of a `tileops bench --csv` report measured against PERFORMANCE.md's targets
for memory-bound ops: a fraction of a same-bytes copy (the CSV's vs_baseline) of at
least 0.90 for norms, softmax and reductions, 0.92 for elementwise ops and RoPE, on rows
moving at least 64 MB.

    targets.py bench.csv [--torch torch.csv] [--list-from-mb 30]

Prints Markdown: how many covered rows meet their target; every row of at least
--list-from-mb MB that misses (so rows just under 64 MB show too), with PyTorch eager's
time when --torch gives torch_eager.py's CSV; and the rows where PyTorch eager is faster.
Rows of other families (GEMM, attention: other targets) and rows not ok are left out.
Standard library only.
"""
import argparse
import csv
import sys

TARGETS = {"norm": 0.90, "reduction": 0.90, "elementwise": 0.92, "rope": 0.92}
COVERED_MB = 64


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bench")
    ap.add_argument("--torch", help="torch_eager.py's CSV for the same run")
    ap.add_argument("--list-from-mb", type=float, default=30)
    args = ap.parse_args()
    rows = [r for r in read(args.bench) if r["family"] in TARGETS and r["status"] == "ok"]
    if not rows:
        sys.exit(f"targets.py: no ok rows of the {', '.join(TARGETS)} families in {args.bench}")
    torch = {}
    if args.torch:
        torch = {(r["op"], r["case"]): r for r in read(args.torch) if r["status"] == "ok"}

    def mb(r):
        return float(r["bytes"]) / 1e6

    def misses(r):
        return float(r["vs_baseline"]) < TARGETS[r["family"]]

    covered = [r for r in rows if mb(r) >= COVERED_MB]
    print(f"{sum(not misses(r) for r in covered)} of {len(covered)} rows moving at least {COVERED_MB} MB "
          f"meet their target.\n")
    listed = [r for r in rows if mb(r) >= args.list_from_mb and misses(r)]
    print(f"Rows of at least {args.list_from_mb:g} MB below target ({len(listed)} of "
          f"{sum(mb(r) >= args.list_from_mb for r in rows)}):\n")
    print("| op | case | MB | µs | fraction of copy | target |" + (" PyTorch eager µs |" if torch else ""))
    print("| --- | --- | ---: | ---: | ---: | ---: |" + (" ---: |" if torch else ""))
    for r in listed:
        line = (f"| {r['op']} | {r['case']} | {mb(r):.1f} | {float(r['median_us']):.1f} | "
                f"{float(r['vs_baseline']):.3f} | {TARGETS[r['family']]:.2f} |")
        if torch:
            t = torch.get((r["op"], r["case"]))
            line += f" {float(t['torch_us']):.1f} |" if t else " — |"
        print(line)
    if torch:
        slower = [(k, t) for k, t in torch.items() if float(t["torch_over_tileops"]) < 1]
        print(f"\nPyTorch eager faster on {len(slower)} of {len(torch)} rows" + (":" if slower else "."))
        for (op, case), t in slower:
            print(f"- {op} {case}: torch/tileops {float(t['torch_over_tileops']):.3f}")


if __name__ == "__main__":
    main()
