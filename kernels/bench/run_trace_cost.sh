#!/usr/bin/env bash
# The GEMM's tracing cost (issue 31, item 3) on the GPU machine: `gemm_bench --trace` at 4096^3
# and 8192^3 for two builds, taking turns, in two passes, so clocks and heat hit both alike;
# each line is the median of gemm_bench's interleaved untraced/traced rounds, every CTA traced.
# Usage: [PASSES=n] run_trace_cost.sh AFTER_DIR BEFORE_DIR OUT (each DIR holds a gemm_bench)
set -uo pipefail
after=$1 before=$2 out=$3
mkdir -p "$out/trace_cost"
for pass in $(seq 1 "${PASSES:-2}"); do
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
# SASS facts of the traced kernels of each build: fences, shared and global stores, local memory.
for build in before after; do
  dir=$before
  [ "$build" = after ] && dir=$after
  cuobjdump --dump-sass "$dir/gemm_bench" 2>/dev/null |
    awk -v b="$build" '/Function : .*traced_gemm_kernel/{f=$3; next} /Function :/{f=""}
      f && /MEMBAR/{m[f]++} f && /STS/{s[f]++} f && /STG/{g[f]++} f && /LDL|STL/{l[f]++} f && /NANOSLEEP/{n[f]++}
      END{for (k in m) printf "%s SASS %s: MEMBAR %d STS %d STG %d LDL/STL %d NANOSLEEP %d\n", b, substr(k,1,60), m[k], s[k], g[k], l[k], n[k]}'
done
# The untraced kernels' SASS must not change with the tracer: every untraced kernel of BEFORE has
# an identical body in AFTER (the traced ones are expected to differ).
cuobjdump --dump-sass "$before/gemm_bench" > "$out/trace_cost/before.sass" 2>&1
cuobjdump --dump-sass "$after/gemm_bench" > "$out/trace_cost/after.sass" 2>&1
python3 "$(dirname "$0")/same_device_code.py" "$out/trace_cost/before.sass" "$out/trace_cost/after.sass" |
  grep -v traced_ | head -20
