#!/usr/bin/env bash
# Which kernels cuBLAS and cuBLASLt run per GEMM shape, beside linpipe's (issue 31, item 2: "the
# shapes where cuBLAS itself uses clusters"): ncu on `gemm_bench --once --shape S` (each
# contender once: cuBLAS, linpipe 1-CTA and 2-CTA, each algorithm cuBLASLt's heuristic offers,
# then its pick), launch statistics and duration at ncu's base clocks, one table per shape with
# each kernel's grid and cluster shape. CSVs under OUT.
# Usage: run_anchor_kernels.sh DIR OUT   (DIR: gemm_bench; ncu_summary.py is read from beside this script)
#   GEMM_SHAPES: the shapes (default: gemm_bench's seven timed shapes)
set -uo pipefail
dir=$1 out=$2
bench=$(dirname "$0")
source "$bench/run_common.sh"
shapes=${GEMM_SHAPES:-"2048x2048x2048 4096x4096x4096 8192x8192x8192 8192x4096x2048 2048x8192x8192 4096x4096x1024 16384x1024x4096"}
print_gpu
for shape in $shapes; do
  ncu --csv --page raw --section LaunchStats --metrics gpu__time_duration.sum \
    "$dir/gemm_bench" --once --shape "$shape" > "$out/anchor_kernels_$shape.csv" 2> "$out/anchor_kernels_$shape.err" \
    || { echo "ncu failed at $shape: $(tail -2 "$out/anchor_kernels_$shape.err")"; status=1; continue; }
  echo "### $shape"
  # Every GEMM kernel: the inputs' fill kernels left out.
  python3 "$bench/ncu_summary.py" "$out/anchor_kernels_$shape.csv" --kernels '^(?!.*fill_kernel)' --name-width 110 \
    | cut -d'|' -f1-5
done
exit $status
