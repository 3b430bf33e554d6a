#!/usr/bin/env bash
# Runs on the GPU machine from a folder of carried executables (see docs/benchmarks.md):
# GPU tests, compute-sanitizer on stream_copy, the benchmarks, the SASS comparison and the plot.
# Usage: run_gpu_suite.sh DIR OUT   (DIR holds the executables and this folder's scripts)
set -uo pipefail
dir=$1 out=$2
logs=$(mktemp -d)  # at most a few files may come back from $OUT: keep the rest here
exec > >(tee "$out/suite.log") 2>&1
status=0
run() { echo "+ $*"; "$@" || { echo "FAILED ($?): $*"; status=1; }; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
# Every GPU test staged in DIR (debug builds, and the *_release copies), so a new one is never missed.
for t in cuda_import_test $(cd "$dir" && ls gpu_*_test gpu_*_test_release 2>/dev/null); do
  run "$dir/$t" > "$logs/$t.log" 2>&1
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED|^cuda_import_test|^linpipe: |^child: " "$logs/$t.log"
done
for tool in racecheck synccheck; do
  run compute-sanitizer --tool $tool --error-exitcode 9 "$dir/gpu_stream_copy_test" \
    --gtest_filter='StreamCopySanitizer.*' > "$logs/sanitizer_$tool.log" 2>&1
  grep -E "SUMMARY|PASSED|FAILED" "$logs/sanitizer_$tool.log"
done
run "$dir/handoff_bench" | tee "$logs/handoff.txt"
cuobjdump --dump-sass "$dir/handoff_bench" > "$out/handoff.sass" 2>&1
python3 "$dir/compare_handoff_sass.py" < "$out/handoff.sass" | tee "$logs/handoff_sass.txt"
run "$dir/stream_copy_bench" --csv "$out/stream_copy.csv" | tee "$logs/stream_copy.txt"
python3 "$dir/plot_stream_copy.py" "$out/stream_copy.csv" "$out/stream_copy.png" \
  "linpipe stream_copy vs cudaMemcpy, $(nvidia-smi --query-gpu=name --format=csv,noheader), $(date +%F)"
for t in gpu_gemm_test gpu_gemm_test_release; do  # with and without debug checks
  run compute-sanitizer --tool synccheck --error-exitcode 9 "$dir/$t" \
    --gtest_filter='GemmSanitizer.*' > "$logs/sanitizer_${t}_synccheck.log" 2>&1
  grep -E "SUMMARY|PASSED|FAILED" "$logs/sanitizer_${t}_synccheck.log"
done
run compute-sanitizer --tool racecheck --error-exitcode 9 "$dir/gpu_gemm_test_release" \
  --gtest_filter='GemmSanitizer.*' > "$logs/sanitizer_gemm_racecheck.log" 2>&1
grep -E "SUMMARY" "$logs/sanitizer_gemm_racecheck.log"
cuobjdump --dump-sass "$dir/gemm_bench" > "$logs/gemm.sass" 2>&1
echo "gemm SASS: $(grep -c HGMMA "$logs/gemm.sass") HGMMA, $(grep -cE 'LDL|STL' "$logs/gemm.sass") LDL/STL, $(grep -c UTMASTG "$logs/gemm.sass") UTMASTG, $(grep -c 'STG\.' "$logs/gemm.sass") STG, $(grep -c 'STS' "$logs/gemm.sass") STS"
run "$dir/gemm_bench" | tee "$logs/gemm.txt"
run compute-sanitizer --tool synccheck --error-exitcode 9 "$dir/gpu_attention_test" \
  --gtest_filter='*s127*:*s300d64*' > "$logs/sanitizer_attention_synccheck.log" 2>&1
grep -E "SUMMARY|PASSED|FAILED" "$logs/sanitizer_attention_synccheck.log"
run python3 "$dir/attention_bench.py" "$dir/liblinpipe_attention.so" | tee "$logs/attention.txt"
echo "== summary =="
cat "$logs/handoff.txt" "$logs/handoff_sass.txt"
tail -n 8 "$logs/stream_copy.txt"
tail -n 13 "$logs/gemm.txt"
tail -n 26 "$logs/attention.txt"
exit $status
