#!/usr/bin/env bash
# Same-machine A/B of the kernels rebuilt on the kernel parts (issue 28, item 6): gemm_bench and
# stream_copy_bench from before the change (BEFORE/) and after it (DIR/), in the order
# before-after-after-before (each benchmark times its own anchor, cuBLAS or cudaMemcpy, in the
# same process), the second pair only while the run has time left (BUDGET_S, default 420 s);
# first the new tree's GEMM, traced-kernel and stream_copy tests, and the SASS of both GEMMs
# (no local memory; the build already fails on a ptxas wgmma serialisation notice). Prints
# the tables last.  Usage: run_gemm_ab.sh DIR BEFORE OUT
set -uo pipefail
dir=$1 before=$2 out=$3
source "$(dirname "$0")/run_common.sh"
print_gpu
run_tests "$out" gpu_gemm_test gpu_gemm_test_release gpu_traced_kernels_test gpu_stream_copy_test
for side in before after; do
  bin=$([ $side = before ] && echo "$before" || echo "$dir")/gemm_bench
  echo "$side gemm SASS: $(cuobjdump --dump-sass "$bin" | grep -cE 'LDL|STL') local-memory instructions"
done
bench() {  # bench NAME SIDE ROUND
  local bin
  bin=$([ "$2" = before ] && echo "$before" || echo "$dir")/$1
  run "$bin" > "$out/${1}_${2}_$3.txt" 2>&1
}
for pair in "before after" "after before"; do
  [ "$pair" = "after before" ] && [ "$SECONDS" -gt "${BUDGET_S:-420}" ] && break
  round=$([ "$pair" = "before after" ] && echo 1 || echo 2)
  for side in $pair; do bench gemm_bench "$side" "$round"; done
  for side in $pair; do bench stream_copy_bench "$side" "$round"; done
done
for f in "$out"/gemm_bench_*_*.txt; do
  echo "== $(basename "$f" .txt)"
  sed -n '/^TFLOP\/s, median/,$p' "$f"
done
for f in "$out"/stream_copy_bench_*_*.txt; do
  echo "== $(basename "$f" .txt)"
  sed -n '/^ *MiB *cudaMemcpy *plain copy/,$p' "$f"
done
echo "elapsed ${SECONDS}s"
exit $status
