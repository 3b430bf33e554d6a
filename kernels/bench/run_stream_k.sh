#!/usr/bin/env bash
# GemmSplit::stream_k on the GPU in one short call (about 2 minutes): the stream-K GEMM tests, the
# default's split with and without a workspace and two split launches on two streams at once
# (gpu_gemm_test), the parts' tests (a grid finishing on the one SM a holder kernel leaves
# free, the persistent grid in a green context's share of the SMs, stream_scratch's buffers),
# synccheck and racecheck on the split shapes (a whole wave shared; every tile shared under one
# wave) and on the parts' sums, gemm_bench --stream-k
# --quick twice (0.24-3.88 waves against cuBLAS, cuBLASLt and the cooperative kernel, the
# workspace default's pick in its last column), and ncu's L2 hit rate and DRAM reads of the
# cooperative kernel and the four stream-K forms at 4096^3 (docs/benchmarks.md, twenty-sixth
# and twenty-seventh sessions).
# Usage: run_stream_k.sh DIR OUT   (DIR: gpu_gemm_test, gpu_kernel_parts_test, gemm_bench, ncu_summary.py)
set -uo pipefail
dir=$1 out=$2
source "$(dirname "$0")/run_common.sh"
status=0
print_gpu
step() { local name=$1 limit=$2; shift 2; timeout "$limit" "$@"; local rc=$?; echo "$name rc=$rc ${SECONDS}s"; [ $rc = 0 ] || status=1; }
step "gemm stream-K tests" 40 bash -c "'$dir/gpu_gemm_test' --gtest_filter='*StreamK*:GemmShapes.*:GemmWorkspace*' > '$out/gemm_stream_k_test.txt' 2>&1"
step "parts stream-K tests" 60 bash -c "'$dir/gpu_kernel_parts_test' --gtest_filter='*StreamK*:*GreenContext*:StreamScratch*' > '$out/parts_stream_k_test.txt' 2>&1"
sanitize "$out" gpu_gemm_test 'GemmStreamKSanitizer.*' 150
sanitize "$out" gpu_kernel_parts_test 'Grids/StreamKParts.*' 60
for r in 1 2; do
  step "gemm_bench --stream-k run $r" 60 bash -c "'$dir/gemm_bench' --stream-k --quick > '$out/stream_k_bench$r.txt' 2>&1"
done
step "ncu 4096^3" 40 bash -c "ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed \
    --csv --page raw --kernel-name-base demangled --kernel-name 'regex:gemm_kernel<(\(int\))?1>|gemm_stream_k_kernel' \
    '$dir/gemm_bench' --once --shape 4096x4096x4096 > '$out/stream_k_ncu.csv' 2> '$out/stream_k_ncu.err'"
for f in gemm_stream_k_test parts_stream_k_test; do
  echo "$f: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/$f.txt" | tr '\n' ' ')"
  grep -E "^\[  FAILED|Failure" -A3 "$out/$f.txt" | head -12
done
for r in 1 2; do
  grep -E "WRONG" "$out/stream_k_bench$r.txt" && status=1
  sed -n '/^stream-K at few/,$p' "$out/stream_k_bench$r.txt"
done
python3 "$dir/ncu_summary.py" "$out/stream_k_ncu.csv" --kernels gemm --name-width 32 | cut -c1-170
exit $status
