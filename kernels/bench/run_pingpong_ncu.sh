#!/usr/bin/env bash
# Why linpipe's ping-pong GEMM trails cuBLASLt's kernel of the same shape (issue 31): at
# 4096x4096x1024 cuBLASLt's nvjet 128x128 six-stage kernel in 2x1 clusters (no cooperative
# warpgroups, so ping-pong) took 0.054 ms at base clocks against 0.061 for linpipe's
# 128 x 128 six-stage ping-pong, 1-CTA or 2-CTA (twenty-third session). ncu's details of those
# kernels and of linpipe's cooperative kernel side by side: speed of light, memory workload
# (shared-memory and L2 throughput), compute workload (tensor pipe) and warp states.
# Then the same kernels' warp-state samples by SASS opcode (SourceCounters; sass_stalls.py):
# where each one's warps wait. The report and the source page stay in OUT.
# Usage: run_pingpong_ncu.sh DIR OUT   (DIR: gemm_bench, sass_stalls.py, ncu_summary.py)   SHAPE (default 4096x4096x1024)
set -uo pipefail
dir=$1 out=$2
source "$(dirname "$0")/run_common.sh"
shape=${SHAPE:-4096x4096x1024}
print_gpu
kernels="regex:gemm_kernel<(\(int\))?1>|gemm_pingpong_kernel|nvjet.*128x128_64x6"
# gemm_bench --once runs each contender once: the fill kernels, cuBLAS, linpipe's variants,
# then every cuBLASLt algorithm its heuristic offers.
ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
  --section WarpStateStats --section LaunchStats \
  --kernel-name-base demangled --kernel-name "$kernels" \
  "$dir/gemm_bench" --once --shape "$shape" > "$out/pingpong_ncu_$shape.txt" 2>&1 || status=1
grep -E "^  [a-zA-Z_:<>]*(gemm|nvjet)|Duration|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Mem Busy|Max Bandwidth|Mem Pipes Busy|Issue Slots Busy|L2 Hit Rate|Warp Cycles Per Issued|Registers Per Thread|Shared Memory Configuration Size" \
  "$out/pingpong_ncu_$shape.txt" | sed 's/  */ /g' | cut -c1-110
ncu --section SourceCounters --section WarpStateStats --import-source no --kernel-name-base demangled \
  --kernel-name "$kernels" -f -o "$out/pingpong_source_$shape" "$dir/gemm_bench" --once --shape "$shape" \
  > "$out/pingpong_source_run.txt" 2>&1 || status=1
ncu --import "$out/pingpong_source_$shape.ncu-rep" --page source --csv --print-source sass \
  > "$out/pingpong_source_$shape.csv" 2>&1 || status=1
python3 "$dir/sass_stalls.py" "$out/pingpong_source_$shape.csv" || status=1
exit $status
