#!/usr/bin/env bash
# Issue 31's anchors and evidence in one call, on the GPU machine from a staged folder:
#   1. gemm_bench (cuBLAS, cuBLASLt's best of 8, linpipe 1-CTA and 2-CTA; clocks, power and
#      temperature per shape), then torch_matmul_anchor.py right after, on the same card;
#   2. why the 2-CTA cluster trails: ncu's speed-of-light and warp-state sections of both GEMM
#      variants at 4096^3 (gemm_bench --shape checks the tiny shape first: its launches are skipped);
#   3. run_copy_ncu.sh: stream_copy against its tuned plain anchor, ncu's DRAM read and write
#      throughput side by side, then the timed table.
# Usage: run_anchor_evidence.sh DIR OUT   (DIR: gemm_bench, stream_copy_bench and these scripts)
set -uo pipefail
dir=$1 out=$2
source "$(dirname "$0")/run_common.sh"
run "$dir/gemm_bench" > "$out/gemm_bench.txt" 2>&1
run python3 "$dir/torch_matmul_anchor.py" > "$out/torch_matmul.txt" 2>&1
ncu --section SpeedOfLight --section WarpStateStats --kernel-name "regex:(^|::)gemm_kernel" \
  --launch-skip "$(gemm_tiny_launches "$dir/gemm_bench")" --launch-count 2 "$dir/gemm_bench" --quick --shape 4096x4096x4096 \
  > "$out/gemm_cluster_ncu.txt" 2>&1 || status=1
bash "$dir/run_copy_ncu.sh" "$dir" "$out" > "$out/copy.txt" 2>&1 || status=1
grep -E "gemm_kernel<|Compute \(SM\) Throughput|Memory Throughput|Duration|Warp Cycles Per Issued|Stall|Issued Warp" \
  "$out/gemm_cluster_ncu.txt" | sed 's/  */ /g' | cut -c1-120 | head -40
tail -n 30 "$out/copy.txt"
tail -n 16 "$out/torch_matmul.txt"
tail -n 14 "$out/gemm_bench.txt"
echo "elapsed ${SECONDS}s"
exit $status
