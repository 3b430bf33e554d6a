#!/usr/bin/env bash
# Runs on the GPU machine from a folder of carried executables (scripts/stage_device_run.sh):
# the GPU tests (debug checks on, and the new ones without), compute-sanitizer on the kernel
# parts, the staged store and RMSNorm, the RMSNorm SASS counts and its benchmark against the
# plain kernel and torch, then stream_copy and GEMM benchmarks (placement changed under both).
# Usage: run_kernel_parts.sh DIR OUT
set -uo pipefail
dir=$1 out=$2
logs=$(mktemp -d)
exec > >(tee "$out/kernel_parts.log") 2>&1
status=0
ncu_metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__occupancy_limit_shared_mem,sm__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
run() { echo "+ $*"; "$@" || { echo "FAILED ($?): $*"; status=1; }; }
# Runs each GoogleTest binary named, logging it, and prints its verdict and any failures.
run_tests() {
  for t in "$@"; do
    run "$dir/$t" > "$logs/$t.log" 2>&1
    echo "$t: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$logs/$t.log" | tr '\n' ' ' | cut -c1-300)"
    grep -E "^\[  FAILED|Failure|^cuda_import_test|^debug checks" "$logs/$t.log" | head -20
  done
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader
# ONLY=rmsnorm: the RMSNorm tests and benchmark alone (a tuning run). PART=tests: all but ncu
# and the stream-copy and GEMM benchmarks.
# ONLY=core: the kernel parts' own tests (debug and release), the sanitizers on the new parts,
# then the RMSNorm tests and benchmark: the shortest run that decides the parts.
if [ "${ONLY:-}" = core ]; then
  run_tests gpu_readme_kernel_test gpu_readme_kernel_test_release gpu_kernel_parts_test \
    gpu_kernel_parts_test_release gpu_ordered_turns_test gpu_ordered_turns_test_release \
    gpu_dynamic_schedule_test
  for tool in racecheck synccheck; do
    run compute-sanitizer --tool $tool --error-exitcode 9 "$dir/gpu_ordered_turns_test_release" \
      --gtest_filter='OrderedTurns.Mbarriers*' > "$logs/sanitizer_turns_$tool.log" 2>&1
    echo "ordered turns $tool: $(grep -E 'SUMMARY' "$logs/sanitizer_turns_$tool.log")"
    run compute-sanitizer --tool $tool --error-exitcode 9 "$dir/gpu_dynamic_schedule_test" \
      --gtest_filter='*EveryItem*' > "$logs/sanitizer_dynamic_$tool.log" 2>&1
    echo "dynamic schedule $tool: $(grep -E 'SUMMARY' "$logs/sanitizer_dynamic_$tool.log")"
    # One tile per CTA: no slot is refilled, so racecheck's bulk-copy false positive (see
    # docs/benchmarks.md) cannot arise, and what it checks is the consumers' own barrier.
    run compute-sanitizer --tool $tool --error-exitcode 9 "$dir/gpu_kernel_parts_test_release" \
      --gtest_filter='KernelParts.OneShot*' > "$logs/sanitizer_parts_$tool.log" 2>&1
    echo "kernel parts one-shot $tool: $(grep -E 'SUMMARY' "$logs/sanitizer_parts_$tool.log")"
  done
  ONLY=rmsnorm
fi
if [ "${ONLY:-}" = rmsnorm ]; then
  run_tests gpu_rmsnorm_test gpu_rmsnorm_test_release
  run python3 "$dir/rmsnorm_bench.py" "$dir/liblinpipe_rmsnorm.so" | tee "$out/rmsnorm_bench.txt"
  # NCU="CANDIDATE;...": one profiled launch of each at n = NCU_WIDTH (8192 unless set).
  IFS=';' read -ra profiled <<< "${NCU:-}"
  for candidate in "${profiled[@]}"; do
    echo "== ncu: $candidate =="
    ncu --kernel-name regex:rmsnorm --launch-count 1 --metrics "$ncu_metrics" \
      python3 "$dir/rmsnorm_bench.py" "$dir/liblinpipe_rmsnorm.so" --widths "${NCU_WIDTH:-8192}" \
      --profile "$candidate" 2>&1 | grep -E "^ +[a-z_]+__|^  [a-z]" | sed 's/  */ /g'
  done
  tar -czf "$out/logs.tgz" -C "$logs" . 2>/dev/null
  exit $status
fi
run_tests cuda_import_test gpu_readme_kernel_test gpu_readme_kernel_test_release gpu_kernel_parts_test \
  gpu_kernel_parts_test_release gpu_ordered_turns_test gpu_ordered_turns_test_release \
  gpu_dynamic_schedule_test gpu_rmsnorm_test gpu_rmsnorm_test_release gpu_pingpong_test \
  gpu_stream_copy_test gpu_hang_detector_test gpu_gemm_test gpu_ptx_wrappers_test \
  gpu_traced_kernels_test gpu_trace_ring_test gpu_attention_test gpu_staged_store_test
for tool in racecheck synccheck; do
  run compute-sanitizer --tool $tool --error-exitcode 9 "$dir/gpu_staged_store_test" \
    > "$logs/sanitizer_staged_store_$tool.log" 2>&1
  echo "staged store $tool: $(grep -E 'SUMMARY' "$logs/sanitizer_staged_store_$tool.log")"
  run compute-sanitizer --tool $tool --error-exitcode 9 "$dir/gpu_kernel_parts_test_release" \
    --gtest_filter='KernelParts.P*:KernelParts.O*' > "$logs/sanitizer_parts_$tool.log" 2>&1
  echo "kernel parts $tool: $(grep -E 'SUMMARY' "$logs/sanitizer_parts_$tool.log")"
  run compute-sanitizer --tool $tool --error-exitcode 9 "$dir/gpu_ordered_turns_test_release" \
    > "$logs/sanitizer_turns_$tool.log" 2>&1
  grep -m 12 -E "Error|Warning|at .* in |Write Thread|Read Thread|RUN" "$logs/sanitizer_parts_$tool.log"
  echo "ordered turns $tool: $(grep -E 'SUMMARY' "$logs/sanitizer_turns_$tool.log")"
  run compute-sanitizer --tool $tool --error-exitcode 9 "$dir/gpu_rmsnorm_test_release" \
    --gtest_filter='Widths/RmsNorm.Linpipe*/n4096_rows8001:Widths/RmsNorm.Linpipe*/n8192_rows603' \
    > "$logs/sanitizer_rmsnorm_$tool.log" 2>&1
  echo "rmsnorm $tool: $(grep -E 'SUMMARY' "$logs/sanitizer_rmsnorm_$tool.log")"
done
cuobjdump --dump-sass "$dir/liblinpipe_rmsnorm.so" > "$logs/rmsnorm.sass" 2>&1
awk '/Function :/{name=$3} /LDL|STL/{l[name]++} /LDS/{s[name]++} /STS/{t[name]++} /LDG|STG/{g[name]++}
     END{for (n in s) printf "SASS %s: LDS %d STS %d LDL/STL %d LDG/STG %d\n", substr(n,1,90), s[n], t[n], l[n], g[n]}' \
  "$logs/rmsnorm.sass" | sort
# Which instructions racecheck named in transform_rows<1> (the kernel-parts test's kernel).
cuobjdump --dump-sass "$dir/gpu_kernel_parts_test_release" 2>/dev/null |
  awk '/Function : .*transform_rowsILi1E/{f=1;next} /Function :/{f=0} f' > "$logs/transform_rows.sass"
grep -E '/\*(0f[6-9a-f]0|19[89a-f]0|1a[0-4]0)\*/' "$logs/transform_rows.sass" | sed 's/  */ /g' | head -24
run python3 "$dir/rmsnorm_bench.py" "$dir/liblinpipe_rmsnorm.so" | tee "$out/rmsnorm_bench.txt"
# PART=tests stops here (the rest, ncu and the two anchored benchmarks, takes minutes more).
if [ "${PART:-}" = tests ]; then
  tar -czf "$out/logs.tgz" -C "$logs" --exclude='*.sass' . 2>/dev/null
  exit $status
fi
# ncu: linpipe's kernel and the plain one at n = 4096 (one launch each).
for candidate in "linpipe wide threads persistent" "linpipe shallow threads persistent" "plain 2 vectors/thread"; do
  echo "== ncu: $candidate (n = 4096) =="
  ncu --kernel-name regex:rmsnorm --launch-count 1 --metrics "$ncu_metrics" \
    python3 "$dir/rmsnorm_bench.py" "$dir/liblinpipe_rmsnorm.so" --widths 4096 --profile "$candidate" 2>&1 |
    grep -E "^ +[a-z_]+__|^  [a-z]" | sed 's/  */ /g'
done
run "$dir/stream_copy_bench" > "$logs/stream_copy.txt" 2>&1
tail -n 8 "$logs/stream_copy.txt"
run "$dir/gemm_bench" > "$logs/gemm.txt" 2>&1
tail -n 13 "$logs/gemm.txt"
tar -czf "$out/logs.tgz" -C "$logs" --exclude='*.sass' . 2>/dev/null
exit $status
