#!/usr/bin/env bash
# The attention kernel's checks and benchmark alone, on the GPU machine, from a folder staged by
# scripts/stage_device_run.sh: the test (debug build), compute-sanitizer synccheck and
# racecheck on its small shapes, ptxas's view in the SASS, ncu on one large case (linpipe's
# ten configurations, grouped heads too, and torch's backends: what limits each, and the L2
# hit rate of each grid), then attention_bench.py (its table last). Logs go to
# $OUT/attention/ when OUT is set.
# Usage: run_attention.sh DIR [--quick] [--no-ncu]
set -uo pipefail
dir=$1
shift
ncu_too=1
bench_args=()
for arg in "$@"; do
  if [[ $arg == --no-ncu ]]; then ncu_too=0; else bench_args+=("$arg"); fi
done
logs=${OUT:-/tmp}/attention
mkdir -p "$logs"
status=0
run() { echo "+ $*"; "$@" || { echo "FAILED ($?): $*"; status=1; }; }
run "$dir/gpu_attention_test" > "$logs/test.log" 2>&1
grep -E "^FAILED|^\[  (PASSED|FAILED) |^\[  FAILED|Failure|Expected|Which is|got|LSE row" "$logs/test.log" | head -40
for tool in synccheck racecheck; do
  run compute-sanitizer --tool $tool --error-exitcode 9 "$dir/gpu_attention_test" \
    --gtest_filter='*s127*:*s129*:*s300d64Causal*:AttentionHeads.*' > "$logs/$tool.log" 2>&1
  grep -E "SUMMARY|PASSED|FAILED" "$logs/$tool.log" | sed "s/^/$tool: /"
done
cuobjdump --dump-sass "$dir/liblinpipe_attention.so" > "$logs/attention.sass" 2>&1
echo "attention SASS: $(grep -c HGMMA "$logs/attention.sass") HGMMA, $(grep -cE 'LDL|STL' "$logs/attention.sass") LDL/STL," \
  "$(grep -c 'MUFU.EX2' "$logs/attention.sass") MUFU.EX2, $(grep -c 'BSSY' "$logs/attention.sass") BSSY"
if [[ $ncu_too == 1 ]]; then
  # One launch of each, seq 8192, head dims 64 and 128, both masks; --clock-control none as METHOD.md asks.
  ncu --clock-control none --target-processes all --csv --page raw \
    --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
    --metrics gpu__time_duration.sum,launch__grid_size,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct \
    python3 "$dir/attention_bench.py" "$dir/liblinpipe_attention.so" --once --seqs 8192 --head-dims 64,128 \
    > "$logs/ncu.csv" 2> "$logs/ncu.err" || { echo "ncu failed: $(tail -2 "$logs/ncu.err")"; status=1; }
  python3 "$dir/ncu_summary.py" "$logs/ncu.csv" || status=1
fi
run python3 "$dir/attention_bench.py" "$dir/liblinpipe_attention.so" "${bench_args[@]}"
exit $status
