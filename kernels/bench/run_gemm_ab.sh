#!/usr/bin/env bash
# Same-machine A/B of the GEMM (issue 28, item 6): gemm_bench from before a change (BEFORE/)
# and after it (DIR/), alternated twice each, every run with cuBLAS in its own process; then the
# GEMM and traced-kernel tests of the new tree and the SASS checks of both binaries (no local
# memory; the build already fails on a ptxas wgmma serialisation notice). Prints the TFLOP/s
# tables last.  Usage: run_gemm_ab.sh DIR BEFORE OUT
set -uo pipefail
dir=$1 before=$2 out=$3
status=0
run() { echo "+ $*"; "$@" || { echo "FAILED ($?): $*"; status=1; }; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,temperature.gpu --format=csv,noheader
for t in gpu_gemm_test gpu_gemm_test_release gpu_traced_kernels_test; do
  run "$dir/$t" > "$out/$t.log" 2>&1
  echo "$t: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$out/$t.log" | tr '\n' ' ' | cut -c1-200)"
done
for side in before after; do
  bin=$([ $side = before ] && echo "$before/gemm_bench" || echo "$dir/gemm_bench")
  echo "$side SASS: $(cuobjdump --dump-sass "$bin" | grep -cE 'LDL|STL') local-memory instructions"
done
for round in 1 2; do
  for side in before after; do
    bin=$([ $side = before ] && echo "$before/gemm_bench" || echo "$dir/gemm_bench")
    run "$bin" > "$out/gemm_${side}_$round.txt" 2>&1
  done
done
for round in 1 2; do
  for side in before after; do
    echo "== $side, round $round"
    sed -n '/^TFLOP\/s, median/,$p' "$out/gemm_${side}_$round.txt"
  done
done
exit $status
