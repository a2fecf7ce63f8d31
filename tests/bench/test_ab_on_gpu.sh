#!/usr/bin/env bash
# ab_on_gpu.sh's AB_SECONDS on a machine without a GPU: a stand-in bench_cuda that takes
# 2 s a run and writes a one-row CSV. With AB_SECONDS=7, round 1 (candidate and base,
# 4 s; up to 6 on a loaded machine, its base run still given 3.5 s or more) runs, round 2
# would end at 8 s or later and is not started, and the one round done is compared;
# without it, every round runs.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/base"
touch "$work/base/libtileops_builtin_cuda.so"
cat > "$work/bin/bench_cuda" <<'FAKE'
#!/usr/bin/env bash
sleep 2
while [ $# -gt 0 ]; do [ "$1" = --out ] && out=$2; shift; done
printf 'op,case,inputs,mb,us,tbs,copy_tbs,fraction,target,first_call_ms\nSumFwdOp,c,"[8]",1,10,1,1,0.9,0.9,1\n' > "$out/bench_cuda.csv"
FAKE
chmod +x "$work/bin/bench_cuda"
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
# Runs ab_on_gpu.sh for $1 rounds; prints how many it timed.
run() {
  PATH="$work/bin:$PATH" OUT="$work/out" AB_BENCH=bench_cuda VARIANTS_DIR=/nonexistent \
    bash "$repo/tools/bench/ab_on_gpu.sh" "" "$work/base" "$1" --filter SumFwdOp > "$work/log" 2>&1 ||
    fail "ab_on_gpu.sh failed: $(cat "$work/log")"
  tar -tzf "$work/out/logs.tar.gz" | grep -c '^candidate-[0-9]*.csv$' || true
}
rounds=$(AB_SECONDS=7 run 3) || exit 1
[ "$rounds" = 1 ] || fail "AB_SECONDS=7 ran $rounds rounds, not 1: $(cat "$work/log")"
grep -q "== rounds 2 to 3 not started: a round takes [0-9]* s, AB_SECONDS=7" "$work/log" ||
  fail "no note of the rounds left: $(cat "$work/log")"
grep -q "SumFwdOp" "$work/out/ab.md" || fail "the round done was not compared: $(cat "$work/out/ab.md")"
rm -rf "$work/out"
rounds=$(run 2) || exit 1
[ "$rounds" = 2 ] || fail "without AB_SECONDS, $rounds rounds, not 2"
echo "ab_on_gpu.sh AB_SECONDS: ok"
