#!/usr/bin/env bash
# ab_on_gpu.sh's AB_SECONDS on a machine without a GPU: a stand-in bench_cuda that takes
# a second a run and writes a one-row CSV. With AB_SECONDS=3, round 1 (candidate and
# base, 2 s) runs, round 2 would end at 4 s and is not started, and the one round done
# is compared; without it, all three rounds run.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/base"
touch "$work/base/libtileops_builtin_cuda.so"
cat > "$work/bin/bench_cuda" <<'FAKE'
#!/usr/bin/env bash
sleep 1
while [ $# -gt 0 ]; do [ "$1" = --out ] && out=$2; shift; done
printf 'op,case,inputs,mb,us,tbs,copy_tbs,fraction,target,first_call_ms\nSumFwdOp,c,"[8]",1,10,1,1,0.9,0.9,1\n' > "$out/bench_cuda.csv"
FAKE
chmod +x "$work/bin/bench_cuda"
fail() { echo "FAIL: $*"; exit 1; }
run() {
  PATH="$work/bin:$PATH" OUT="$work/out" AB_BENCH=bench_cuda VARIANTS_DIR=/nonexistent \
    bash "$repo/tools/bench/ab_on_gpu.sh" "" "$work/base" 3 --filter SumFwdOp > "$work/log" 2>&1 || fail "ab_on_gpu.sh failed: $(cat "$work/log")"
  tar -tzf "$work/out/logs.tar.gz" | grep -c '^candidate-[0-9]*.csv$'
}
rounds=$(AB_SECONDS=3 run)
[ "$rounds" = 1 ] || fail "AB_SECONDS=3 ran $rounds rounds, not 1"
grep -q "== rounds 2 to 3 not started: a round takes 2 s, AB_SECONDS=3" "$work/log" || fail "no note of the rounds left: $(cat "$work/log")"
grep -q "SumFwdOp" "$work/out/ab.md" || fail "the round done was not compared: $(cat "$work/out/ab.md")"
rm -rf "$work/out"
rounds=$(run)
[ "$rounds" = 3 ] || fail "without AB_SECONDS, $rounds rounds, not 3"
echo "ab_on_gpu.sh AB_SECONDS: ok"
