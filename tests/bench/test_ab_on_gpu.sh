#!/usr/bin/env bash
# ab_on_gpu.sh on a machine without a GPU, over a stand-in bench_cuda that takes 2 s a run
# and writes a one-row CSV whose time is $FAKE_US (default 10).
# AB_SECONDS: with AB_SECONDS=7, round 1 (candidate and base, 4 s; up to 6 on a loaded
# machine, its base run still given 3.5 s or more) runs, round 2 would end at 8 s or later
# and is not started, and the one round done is compared; without it, every round runs.
# Settings: a variant whose directory has a settings file is timed once a line, with that
# line's variables and its own libraries first on the loader path; one without is timed
# once; a malformed line stops the run before anything is timed.
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
printf 'op,case,inputs,mb,us,tbs,copy_tbs,fraction,target,first_call_ms\nSumFwdOp,c,"[8]",1,%s,1,1,0.9,0.9,1\n' \
  "${FAKE_US:-10}" > "$out/bench_cuda.csv"
echo "loader path starts ${LD_LIBRARY_PATH%%:*}"
FAKE
chmod +x "$work/bin/bench_cuda"
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
# ab_on_gpu.sh for $1 rounds into ${OUT:-$work/out}, its output in $work/log.
ab_on_gpu() {
  PATH="$work/bin:$PATH" OUT=${OUT:-$work/out} AB_BENCH=bench_cuda VARIANTS_DIR=${VARIANTS_DIR:-/nonexistent} \
    bash "$repo/tools/bench/ab_on_gpu.sh" "" "$work/base" "$1" --filter SumFwdOp > "$work/log" 2>&1
}
# Runs ab_on_gpu.sh for $1 rounds; prints how many it timed.
run() {
  ab_on_gpu "$1" || fail "ab_on_gpu.sh failed: $(cat "$work/log")"
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

rm -rf "$work/out"
mkdir -p "$work/variants/exp" "$work/variants/plain"
touch "$work/variants/exp/libtileops_builtin_cuda.so" "$work/variants/plain/libtileops_builtin_cuda.so"
printf '# the experiment at two settings\nslow FAKE_US=30\n\nfast FAKE_US=5 OTHER=1  # faster\n' > "$work/variants/exp/settings"
VARIANTS_DIR=$work/variants run 1 > /dev/null || exit 1
mkdir "$work/logs"
tar -xzf "$work/out/logs.tar.gz" -C "$work/logs"
# The time column of run $1's CSV.
us() { tail -n 1 "$work/logs/$1.csv" | cut -d, -f5; }
for expect in candidate-1:10 variant-exp-slow-1:30 variant-exp-fast-1:5 variant-plain-1:10 base-1:10; do
  [ "$(us "${expect%:*}")" = "${expect#*:}" ] || fail "${expect%:*} timed $(us "${expect%:*}") us, not ${expect#*:}"
done
variant_csvs=("$work"/logs/variant-*.csv)
[ ${#variant_csvs[@]} = 3 ] || fail "not three variant runs: ${variant_csvs[*]}"
grep -q "loader path starts $work/variants/exp$" "$work/logs/variant-exp-fast-1.log" ||
  fail "the setting ran without its build first: $(cat "$work/logs/variant-exp-fast-1.log")"
grep -q "^# A/B: variant exp-slow against base" "$work/out/ab.md" || fail "exp-slow not compared: $(cat "$work/out/ab.md")"

printf 'broken FAKE_US\n' > "$work/variants/exp/settings"
if OUT=$work/out2 VARIANTS_DIR=$work/variants ab_on_gpu 1; then fail "a malformed settings line was run"; fi
grep -q "settings: a line is SETTING VAR=VALUE..., not 'broken FAKE_US'" "$work/log" || fail "no error naming the line: $(cat "$work/log")"
# A run that went on would have packed its logs and written ab.md.
if [ -e "$work/out2/logs.tar.gz" ] || [ -e "$work/out2/ab.md" ]; then
  fail "runs were timed before the malformed line stopped it: $(ls "$work/out2")"
fi
echo "ab_on_gpu.sh settings: ok"
