#!/usr/bin/env bash
# The attention kernel's checks and benchmark alone, on the GPU machine, from a folder staged by
# scripts/stage_device_run.sh: the test (debug build), compute-sanitizer synccheck and
# racecheck on its small shapes, ptxas's view in the SASS, then attention_bench.py (table last).
# Usage: run_attention.sh DIR [--quick]
set -uo pipefail
dir=$1
shift
status=0
run() { echo "+ $*"; "$@" || { echo "FAILED ($?): $*"; status=1; }; }
run "$dir/gpu_attention_test" 2>&1 | grep -E "^\[  (PASSED|FAILED) |^\[  FAILED|Failure|Expected|Which is|got|LSE row" | head -40
for tool in synccheck racecheck; do
  run compute-sanitizer --tool $tool --error-exitcode 9 "$dir/gpu_attention_test" \
    --gtest_filter='*s127*:*s129*' 2>&1 | grep -E "SUMMARY|PASSED|FAILED" | sed "s/^/$tool: /"
done
cuobjdump --dump-sass "$dir/liblinpipe_attention.so" > /tmp/attention.sass 2>&1
echo "attention SASS: $(grep -c HGMMA /tmp/attention.sass) HGMMA, $(grep -cE 'LDL|STL' /tmp/attention.sass) LDL/STL, $(grep -c 'MUFU.EX2' /tmp/attention.sass) MUFU.EX2, $(grep -c 'BSSY' /tmp/attention.sass) BSSY"
run python3 "$dir/attention_bench.py" "$dir/liblinpipe_attention.so" "$@"
exit $status
