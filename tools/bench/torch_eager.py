#!/usr/bin/env python3
"""PyTorch eager on exactly the rows `tileops bench` timed, for a row-by-row comparison.

On the GPU machine, after `tileops bench ... --json bench.json`:

    python3 tools/bench/torch_eager.py bench.json --csv torch.csv --markdown torch.md

torch is the only dependency (with the standard library); nothing else may be added,
so the script runs wherever a CUDA build of torch is installed.

Each case with status ok in the JSON gets random inputs of its shapes and dtypes (the
`shapes` and `params` fields of tileops.bench/1) and the eager torch code a model would
run for the op. Timing follows `tileops bench`: a 256 MiB write before every call so no
call finds its operands in L2, --warmup then --reps calls, median/p10/p90 interpolated
the same way (tools/bench/stats.cpp). The bracket is a pair of CUDA events (tileops
bench uses CUPTI where it can): for an eager op of several kernels it includes the gaps
between their launches, which are part of what eager costs.

`--device cpu` times on the host (perf_counter, no flush): a check of the script where
there is no GPU, not a number to compare with.
"""
import argparse
import csv
import json
import math
import statistics
import sys
import time
import zlib
from dataclasses import dataclass
from typing import Callable, Optional

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    sys.exit("torch_eager.py needs torch (pip install torch)")

FLUSH_BYTES = 256 << 20


# --- the ops -----------------------------------------------------------------------
# inputs: the signature's inputs in order (the JSON gives null for an omitted optional
# one, without its name); defaults: the spec's param defaults, since the JSON holds
# only the params the workload row gives.

@dataclass
class EagerOp:
    inputs: tuple
    defaults: dict
    run: Callable


def axes(dim, x):
    # A list dim or None (every axis), as the reduction specs define it.
    return tuple(range(x.dim())) if dim is None else tuple(dim)


def fused_add_rms_norm(x, residual, weight, normalized_shape, eps):
    # Out of place, as a model's decoder layer writes it (and so that repeated calls see
    # the same inputs); both outputs, like the op's y and residual_out.
    residual = x + residual
    return F.rms_norm(residual, normalized_shape, weight, eps), residual


def rope(x, positions, cos_sin_cache, layout):
    # vLLM's RotaryEmbedding.forward_native: the eager path a model uses without the
    # custom kernel. Cache row p is cos(p*theta) then sin(p*theta) over R/2 frequencies;
    # only the first R dims of each head rotate.
    rotary = cos_sin_cache.shape[-1]
    cos, sin = cos_sin_cache.index_select(0, positions.flatten()).chunk(2, dim=-1)
    cos = cos.unsqueeze(-2).to(x.dtype)
    sin = sin.unsqueeze(-2).to(x.dtype)
    shape = x.shape
    x = x.reshape(positions.numel(), shape[-2], shape[-1])
    x_rot, x_pass = x[..., :rotary], x[..., rotary:]
    if layout == "neox":
        x1, x2 = x_rot.chunk(2, dim=-1)
    else:
        x1, x2 = x_rot[..., ::2], x_rot[..., 1::2]
    o1 = x1 * cos - x2 * sin
    o2 = x2 * cos + x1 * sin
    rotated = torch.cat((o1, o2), dim=-1) if layout == "neox" else torch.stack((o1, o2), dim=-1).flatten(-2)
    return torch.cat((rotated, x_pass), dim=-1).reshape(shape)


def add(a, b, alpha):
    # torch refuses a float alpha for integer tensors; the spec only allows integral ones.
    if not a.is_floating_point():
        alpha = int(alpha)
    return torch.add(a, b, alpha=alpha)


def gated(act):
    def run(x, **params):
        d = x.shape[-1] // 2
        return act(x[..., :d], **params) * x[..., d:]
    return run


OPS = {
    # norm
    "RMSNormFwdOp": EagerOp(("x", "weight"), {"eps": None},
                            lambda x, weight, normalized_shape, eps: F.rms_norm(x, normalized_shape, weight, eps)),
    "FusedAddRMSNormFwdOp": EagerOp(("x", "residual", "weight"), {"eps": 1e-6}, fused_add_rms_norm),
    "LayerNormFwdOp": EagerOp(("x", "weight", "bias"), {"eps": 1e-5},
                              lambda x, weight, bias, normalized_shape, eps:
                              F.layer_norm(x, normalized_shape, weight, bias, eps)),
    "GroupNormFwdOp": EagerOp(("x", "weight", "bias"), {"eps": 1e-5},
                              lambda x, weight, bias, num_groups, eps: F.group_norm(x, num_groups, weight, bias, eps)),
    # reduction
    "SoftmaxFwdOp": EagerOp(("x",), {"dim": -1}, lambda x, dim: torch.softmax(x, dim)),
    "LogSoftmaxFwdOp": EagerOp(("x",), {"dim": -1}, lambda x, dim: torch.log_softmax(x, dim)),
    "SumFwdOp": EagerOp(("x",), {"dim": None, "keepdim": False},
                        lambda x, dim, keepdim: torch.sum(x, axes(dim, x), keepdim=keepdim)),
    "MeanFwdOp": EagerOp(("x",), {"dim": None, "keepdim": False},
                         lambda x, dim, keepdim: torch.mean(x, axes(dim, x), keepdim=keepdim)),
    "AmaxFwdOp": EagerOp(("x",), {"dim": None, "keepdim": False},
                         lambda x, dim, keepdim: torch.amax(x, axes(dim, x), keepdim=keepdim)),
    "ArgmaxFwdOp": EagerOp(("x",), {"dim": None, "keepdim": False},
                           lambda x, dim, keepdim: torch.argmax(x, dim=dim, keepdim=keepdim)),
    "CumsumFwdOp": EagerOp(("x",), {}, lambda x, dim: torch.cumsum(x, dim)),
    # elementwise
    "ReluFwdOp": EagerOp(("x",), {}, lambda x: torch.relu(x)),
    "GeluFwdOp": EagerOp(("x",), {"approximate": "none"},
                         lambda x, approximate: F.gelu(x, approximate=approximate)),
    "SiluFwdOp": EagerOp(("x",), {}, lambda x: F.silu(x)),
    "SigmoidFwdOp": EagerOp(("x",), {}, lambda x: torch.sigmoid(x)),
    "SiluAndMulFwdOp": EagerOp(("x",), {}, gated(F.silu)),
    "GeluAndMulFwdOp": EagerOp(("x",), {"approximate": "none"}, gated(F.gelu)),
    "AddFwdOp": EagerOp(("a", "b"), {"alpha": 1.0}, add),
    "MulFwdOp": EagerOp(("a", "b"), {}, lambda a, b: torch.mul(a, b)),
    # rope
    "RoPEFwdOp": EagerOp(("x", "positions", "cos_sin_cache"), {"layout": "neox"}, rope),
}


# --- inputs --------------------------------------------------------------------------

def torch_dtype(name):
    dtype = getattr(torch, name, None)
    if not isinstance(dtype, torch.dtype):
        raise ValueError(f"no torch dtype named {name}")
    return dtype


def random_tensor(dtype_name, shape, device, gen):
    dtype = torch_dtype(dtype_name)
    values = torch.randn(shape, generator=gen, device=device)
    if dtype.is_floating_point:
        return values.to(dtype)
    # Small integers, as tileops draws them (a normal times 4, rounded).
    return (values * 4).round().to(dtype)


def make_inputs(op_name, case, device):
    """The op's inputs by name (None where omitted) and its params with defaults."""
    op = OPS[op_name]
    shapes = case.get("shapes")
    if shapes is None or "params" not in case:
        raise ValueError("the JSON has no params/shapes: write it with a newer tileops bench")
    if len(shapes) != len(op.inputs):
        raise ValueError(f"{len(shapes)} inputs in the JSON, {len(op.inputs)} in this script's signature")
    gen = torch.Generator(device=device)
    gen.manual_seed(zlib.crc32(f"{op_name}/{case['case']}".encode()))
    inputs = {}
    for name, s in zip(op.inputs, shapes):
        if s is not None and s["name"] != name:
            raise ValueError(f"input {s['name']} where this script expects {name}: the signature changed")
        inputs[name] = None if s is None else random_tensor(s["dtype"], s["shape"], device, gen)
    if op_name == "RoPEFwdOp":
        # Positions index cache rows: they must lie in [0, P).
        pos = inputs["positions"]
        rows = inputs["cos_sin_cache"].shape[0]
        inputs["positions"] = torch.randint(0, rows, pos.shape, generator=gen, device=device, dtype=pos.dtype)
    return inputs, {**op.defaults, **case["params"]}


# --- timing --------------------------------------------------------------------------

def percentile(sorted_us, q):
    # Linear interpolation between closest ranks, as tools/bench/stats.cpp.
    rank = q * (len(sorted_us) - 1)
    below = math.floor(rank)
    above = min(below + 1, len(sorted_us) - 1)
    return sorted_us[below] + (sorted_us[above] - sorted_us[below]) * (rank - below)


class CudaTimer:
    def __init__(self, device):
        self.flush = torch.empty(FLUSH_BYTES, dtype=torch.uint8, device=device)

    def time(self, fn, warmup, reps):
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
        torch.cuda.synchronize()  # input creation finished before the first call
        for i in range(warmup + reps):
            self.flush.zero_()
            timed = i >= warmup
            if timed:
                events[i - warmup][0].record()
            out = fn()
            if timed:
                events[i - warmup][1].record()
            del out
        torch.cuda.synchronize()
        return [start.elapsed_time(end) * 1e3 for start, end in events]


class HostTimer:
    def time(self, fn, warmup, reps):
        us = []
        for i in range(warmup + reps):
            start = time.perf_counter()
            out = fn()
            elapsed = time.perf_counter() - start
            del out
            if i >= warmup:
                us.append(elapsed * 1e6)
        return us


# --- the run -------------------------------------------------------------------------

@dataclass
class Row:
    op: str
    case: str
    inputs: str
    tileops_us: Optional[float]
    status: str = "ok"  # ok, failed, skipped
    reason: str = ""
    torch_us: Optional[float] = None
    p10_us: Optional[float] = None
    p90_us: Optional[float] = None

    @property
    def ratio(self):
        # torch / tileops: above 1, tileops is faster.
        if self.torch_us is None or not self.tileops_us:
            return None
        return self.torch_us / self.tileops_us


def run_case(case, device, timer, warmup, reps):
    median = (case.get("time") or {}).get("median_us")
    row = Row(case["op"], case["case"], case.get("inputs", ""), median)
    if case.get("status") != "ok" or median is None:
        row.status, row.reason = "skipped", f"tileops {case.get('status')}: {case.get('reason') or 'not timed'}"
        return row
    if case["op"] not in OPS:
        row.status, row.reason = "skipped", f"no eager torch form for {case['op']} in this script"
        return row
    try:
        inputs, params = make_inputs(case["op"], case, device)
        run = OPS[case["op"]].run
        us = sorted(timer.time(lambda: run(**inputs, **params), warmup, reps))
        row.torch_us, row.p10_us, row.p90_us = percentile(us, 0.5), percentile(us, 0.1), percentile(us, 0.9)
    except Exception as e:  # a case that cannot run is a row, never the end of the run
        row.status, row.reason = "failed", failure(e)
    return row


def failure(e):
    return f"{type(e).__name__}: {e}".splitlines()[0]


def fmt(v, spec=".2f"):
    return "—" if v is None else format(v, spec)


def summary(rows):
    ratios = [r.ratio for r in rows if r.ratio is not None]
    faster = sum(1 for x in ratios if x > 1)
    slower = sum(1 for x in ratios if x < 1)
    text = f"{len(ratios)} rows compared: tileops faster on {faster}, slower on {slower}"
    if len(ratios) - faster - slower:
        text += f", equal on {len(ratios) - faster - slower}"
    if ratios:
        text += f"; geometric mean torch/tileops {math.exp(statistics.fmean(math.log(x) for x in ratios)):.2f}"
    counts = {s: sum(1 for r in rows if r.status == s) for s in ("skipped", "failed")}
    return text + f"; {counts['skipped']} skipped, {counts['failed']} failed"


def markdown(rows, header):
    lines = ["# PyTorch eager against tileops bench", "", "| | |", "| --- | --- |"]
    lines += [f"| {k} | {v} |" for k, v in header]
    lines += ["", summary(rows), "",
              "| op | case | inputs | tileops µs | torch µs | torch p10 µs | torch p90 µs | torch/tileops | status |",
              "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    for r in rows:
        lines.append(f"| {r.op} | {r.case} | {r.inputs} | {fmt(r.tileops_us)} | {fmt(r.torch_us)} | {fmt(r.p10_us)} | "
                     f"{fmt(r.p90_us)} | {fmt(r.ratio)} | {r.status} |")
    not_run = [r for r in rows if r.status != "ok"]
    if not_run:
        lines += ["", "## Not compared", ""] + [f"- {r.op} {r.case} ({r.status}): {r.reason}" for r in not_run]
    return "\n".join(lines) + "\n"


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["op", "case", "inputs", "status", "reason", "tileops_us", "torch_us", "torch_p10_us",
                    "torch_p90_us", "torch_over_tileops"])
        for r in rows:
            w.writerow([r.op, r.case, r.inputs, r.status, r.reason] +
                       ["" if v is None else f"{v:.6g}" for v in (r.tileops_us, r.torch_us, r.p10_us, r.p90_us, r.ratio)])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("bench_json", help="a tileops bench --json file (schema tileops.bench/1)")
    p.add_argument("--csv", help="write the table as CSV here")
    p.add_argument("--markdown", help="write the table as Markdown here")
    p.add_argument("--filter", help="only these ops: OP1,OP2")
    p.add_argument("--warmup", type=int, default=5, help="untimed calls first (default 5)")
    p.add_argument("--reps", type=int, default=50, help="timed calls per case (default 50)")
    p.add_argument("--device", default="cuda", help="cuda (default), cuda:N, or cpu (host timing, a dry run)")
    a = p.parse_args(argv)
    if a.reps < 1 or a.warmup < 0:
        p.error("--reps must be at least 1 and --warmup at least 0")

    with open(a.bench_json) as f:
        doc = json.load(f)
    if not str(doc.get("schema", "")).startswith("tileops.bench/"):
        sys.exit(f"{a.bench_json}: not a tileops bench JSON (schema {doc.get('schema')!r})")
    cases = doc.get("cases", [])
    if a.filter:
        wanted = {op.strip() for op in a.filter.split(",") if op.strip()}
        missing = wanted - {c["op"] for c in cases}
        if missing:
            print(f"--filter: no rows of {', '.join(sorted(missing))} in {a.bench_json}", file=sys.stderr)
        cases = [c for c in cases if c["op"] in wanted]

    cuda = a.device.startswith("cuda")
    if cuda:
        if not torch.cuda.is_available():
            sys.exit("no CUDA device for torch: use --device cpu for a dry run")
        if torch.device(a.device).index is not None:  # set_device refuses a bare "cuda"
            torch.cuda.set_device(torch.device(a.device))
        timer, device_name = CudaTimer(a.device), torch.cuda.get_device_name()
        timing = f"CUDA events around each call, {FLUSH_BYTES >> 20} MiB write before each"
    else:
        timer, device_name = HostTimer(), "host CPU"
        timing = "host perf_counter around each call, no cache flush"

    rows = []
    with torch.inference_mode():
        for i, case in enumerate(cases):
            print(f"[{i + 1}/{len(cases)}] {case['op']} {case['case']}", file=sys.stderr, flush=True)
            rows.append(run_case(case, a.device, timer, a.warmup, a.reps))
            if cuda:
                try:
                    # The case's tensors are gone; its leftovers must not reach the next timing.
                    torch.cuda.synchronize()
                    torch.cuda.empty_cache()
                except Exception as e:
                    if rows[-1].status == "ok":
                        rows[-1].status, rows[-1].reason = "failed", failure(e)

    run = doc.get("run", {})
    header = [("tileops run", f"{run.get('device', {}).get('name')}, timing `{run.get('timing', {}).get('method')}`, "
                              f"`{run.get('command')}`"),
              ("torch", f"{torch.__version__} on {a.device}: {device_name}"),
              ("torch timing", f"{timing}; median, p10, p90 of {a.reps} calls after {a.warmup} warm-up calls"),
              ("torch/tileops", "torch median / tileops median: above 1, tileops is faster")]
    table = markdown(rows, header)
    print(table)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(table)
    if a.csv:
        write_csv(a.csv, rows)


if __name__ == "__main__":
    main()
