#!/usr/bin/env bash
# Builds the GPU executables here with clang (the GPU machine has none) and copies them, with
# the suite scripts, into .device/ (git-ignored) to be carried to the GPU machine:
#   tests from the default preset (debug checks on), benchmarks from the release preset.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake_bin=$(scripts/setup.sh)
"$cmake_bin" --preset default >/dev/null
# The GPU tests, built and staged from one list (a test added to one place only went unstaged).
gpu_tests=(cuda_import_test gpu_pingpong_test gpu_stream_copy_test gpu_hang_detector_test gpu_gemm_test
  gpu_ptx_wrappers_test gpu_traced_kernels_test gpu_attention_test gpu_readme_kernel_test gpu_kernel_parts_test
  gpu_ordered_turns_test gpu_dynamic_schedule_test gpu_rmsnorm_test gpu_staged_store_test gpu_trace_ring_test
  gpu_attention_graph_test gpu_early_start_test)
"$cmake_bin" --build --preset default --target "${gpu_tests[@]}"
"$cmake_bin" --preset release >/dev/null
"$cmake_bin" --build --preset release --target stream_copy_bench handoff_bench gemm_bench gpu_gemm_test \
  linpipe_attention linpipe_rmsnorm gpu_readme_kernel_test gpu_kernel_parts_test gpu_ordered_turns_test \
  gpu_rmsnorm_test
# Only .device's own files are replaced: its subfolders (an A/B's before/ builds, a call's
# own selection) are kept.
mkdir -p .device && find .device -maxdepth 1 -type f -delete
for t in "${gpu_tests[@]}"; do cp "build/default/tests/gpu/$t" .device/; done
cp build/release/kernels/{stream_copy_bench,handoff_bench,gemm_bench,liblinpipe_attention.so,liblinpipe_rmsnorm.so} .device/
# The new parts' tests and README's kernel built without debug checks too.
for t in gpu_readme_kernel_test gpu_kernel_parts_test gpu_ordered_turns_test gpu_rmsnorm_test; do
  cp "build/release/tests/gpu/$t" ".device/${t}_release"
done
# The GEMM test built without debug checks too: the kernel the benchmarks time.
cp build/release/tests/gpu/gpu_gemm_test .device/gpu_gemm_test_release
cp kernels/bench/{run_common.sh,run_gemm_ab.sh,run_attention_ab.sh,run_gpu_suite.sh,run_rmsnorm_ab.sh,run_rmsnorm_ncu.sh,run_fixed_clock_ab.sh,run_anchor_evidence.sh,run_cluster_ab.sh,run_attention_epilogue_ab.sh,compare_handoff_sass.py,plot_stream_copy.py,plot_trace.py,same_device_code.py,attention_bench.py,ncu_summary.py,run_attention.sh,rmsnorm_bench.py,run_kernel_parts.sh,torch_matmul_anchor.py,run_copy_ncu.sh,run_trace_cost.sh,run_trace_ring.sh,run_owed_checks.sh,run_experiments.sh,run_anchor_kernels.sh,run_pingpong_ncu.sh,sass_stalls.py,run_h200_owed.sh,run_stream_k.sh} .device/
# The device tool carries at most 64 MiB with the working tree (tracked files included): the
# executables' debug sections are of no use there (65 -> 54 MiB on 2026-12-06). A call that
# also needs a before/ build may still pass the limit: copy what it runs into a subfolder and
# carry that.
for f in .device/*; do
  if [ -f "$f" ] && [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = "177ELF" ]; then strip --strip-debug "$f"; fi
done
echo "staged: $(find .device -maxdepth 1 -type f -print0 | du -ch --files0-from=- | tail -1 | cut -f1)" \
  "in .device's own files; kept subfolders (carried too if .device is):"
find .device -mindepth 1 -maxdepth 1 -type d -exec du -sh {} +
