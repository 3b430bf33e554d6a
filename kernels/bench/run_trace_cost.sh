#!/usr/bin/env bash
# The GEMM's tracing cost (issue 31, item 3) on the GPU machine: `gemm_bench --trace` at 4096^3
# and 8192^3 for two builds, taking turns, in two passes, so clocks and heat hit both alike;
# each line is the median of gemm_bench's interleaved untraced/traced rounds, every CTA traced.
# Usage: run_trace_cost.sh AFTER_DIR BEFORE_DIR OUT (each DIR holds a gemm_bench)
set -uo pipefail
after=$1 before=$2 out=$3
mkdir -p "$out/trace_cost"
for pass in 1 2; do
  for shape in 4096x4096x4096 8192x8192x8192; do
    for build in before after; do
      dir=$before
      [ "$build" = after ] && dir=$after
      "$dir/gemm_bench" --trace "$out/trace_cost/${build}_${shape}_pass$pass.json" --shape "$shape" \
        > "$out/trace_cost/${build}_${shape}_pass$pass.txt" 2>&1 || echo "FAILED: $build $shape pass $pass"
      grep -E "tracing cost|relative error" "$out/trace_cost/${build}_${shape}_pass$pass.txt" |
        sed "s/^/$build pass $pass: /"
    done
  done
done
