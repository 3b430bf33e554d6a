#!/usr/bin/env bash
# What only an H200 can settle, in one device call of under 560 s, each step under its own
# limit so a slow one cannot take the rest (the twenty-fifth session's order; docs/benchmarks.md):
#   1. rmsnorm_bench.py twice (issue 27's target is on the H200);
#   2. the GEMM against BEFORE's at base clocks, two passes (run_fixed_clock_ab.sh; issue 28,
#      item 6);
#   3. gemm_bench twice (issue 31's tables want two runs);
#   4. attention_bench.py with one K/V head a query head (the default rule on this card).
# Refuses to run on another GPU: its figures are for the H200's tables.
# DIR: gemm_bench, liblinpipe_rmsnorm.so, rmsnorm_bench.py, liblinpipe_attention.so and
# attention_bench.py (scripts/stage_device_run.sh's .device, or a subfolder carrying just
# these); BEFORE: gemm_bench from 695ba5a (scripts/stage_before_build.sh 695ba5a).
# Usage: run_h200_owed.sh DIR BEFORE OUT
set -uo pipefail
dir=$1 before=$2 out=$3
source "$(dirname "$0")/run_common.sh"
print_gpu
if ! nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  echo "run_h200_owed.sh: not an H200; nothing run" >&2
  exit 3
fi
# Runs STEP's command within SECONDS, or skips it when less than that is left of the call.
step() {
  local name=$1 limit=$2
  shift 2
  if [ $((SECONDS + limit)) -gt 560 ]; then echo "$name: skipped at ${SECONDS}s"; return; fi
  timeout "$limit" "$@"
  local rc=$?
  echo "$name rc=$rc ${SECONDS}s"
  [ $rc = 0 ] || status=1
}
for r in 1 2; do
  step "rmsnorm run $r" 60 bash -c "python3 '$dir/rmsnorm_bench.py' '$dir/liblinpipe_rmsnorm.so' > '$out/rmsnorm$r.txt' 2>&1"
done
step "gemm A/B" 150 bash -c "GEMM_REPS=2 ATTENTION_ARGS=none bash '$(dirname "$0")/run_fixed_clock_ab.sh' '$dir' '$before' '$out' \
  > '$out/gemm_ab.txt' 2>&1"
for r in 1 2; do
  step "gemm_bench run $r" 60 bash -c "'$dir/gemm_bench' > '$out/gemm_bench$r.txt' 2>&1"
done
step "attention" 120 bash -c "python3 '$dir/attention_bench.py' '$dir/liblinpipe_attention.so' --kv-groups 1 > '$out/attention.txt' 2>&1"
print_gpu
echo "== summary =="
for r in 1 2; do sed -n '/^## Summary/,$p' "$out/rmsnorm$r.txt" 2>/dev/null; done
grep -E "^\||tiny check" "$out/gemm_ab.txt" 2>/dev/null
for r in 1 2; do echo "-- gemm_bench run $r"; sed -n '/^anchors, TFLOP/,/^$/p' "$out/gemm_bench$r.txt" 2>/dev/null; done
grep -E "^case " "$out/attention.txt" 2>/dev/null | cut -c1-200
exit $status
