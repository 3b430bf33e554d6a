#!/usr/bin/env bash
# The 2-CTA GEMM with its consumers' releases at CTA scope (issue 31, item 2), on the GPU
# machine: the GEMM tests of the new build (debug and release) and compute-sanitizer on the
# GEMM's sanitizer case, ncu's speed-of-light and warp-state sections of both variants at
# 4096^3, then gemm_bench from BEFORE/ (cluster-scope releases) and DIR/ in the order
# after-before-after-before (each times cuBLAS and cuBLASLt itself). Tables last.
# Usage: run_cluster_ab.sh DIR BEFORE OUT
set -uo pipefail
dir=$1 before=$2 out=$3
source "$(dirname "$0")/run_common.sh"
print_gpu
run_tests "$out" gpu_gemm_test gpu_gemm_test_release
sanitize "$out" gpu_gemm_test_release 'GemmSanitizer.*'
ncu --section SpeedOfLight --section WarpStateStats --kernel-name "regex:(^|::)gemm_kernel" \
  --launch-skip "$(gemm_tiny_launches "$dir/gemm_bench")" --launch-count 2 "$dir/gemm_bench" --quick --shape 4096x4096x4096 \
  > "$out/gemm_cluster_ncu.txt" 2>&1 || status=1
grep -E "gemm_kernel<|Duration|Compute \(SM\) Throughput|Warp Cycles Per Issued|cycles being stalled" \
  "$out/gemm_cluster_ncu.txt" | sed 's/  */ /g' | cut -c1-110
i=0
for side in after before after before; do
  i=$((i + 1))
  bin=$([ $side = before ] && echo "$before" || echo "$dir")/gemm_bench
  run "$bin" > "$out/gemm_bench_${i}_$side.txt" 2>&1
done
for f in "$out"/gemm_bench_*_*.txt; do
  echo "== $(basename "$f" .txt)"
  sed -n '/^TFLOP\/s, median/,/^$/p' "$f" | head -10
done
echo "elapsed ${SECONDS}s"
exit $status
