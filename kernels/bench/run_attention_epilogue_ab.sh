#!/usr/bin/env bash
# Attention against a BEFORE build after a change to its epilogue or Q ring (issues 28/29):
# the attention tests (debug checks on), compute-sanitizer (synccheck, racecheck) on the small
# shapes, then attention_bench.py --before (quick rounds, torch's backends in the same run) at
# head dim 128 at AB128_SEQS (default every sequence length), both masks, and head dim 64 at
# AB64_SEQS.
# Tables last.  Usage: run_attention_epilogue_ab.sh DIR BEFORE OUT
set -uo pipefail
dir=$1 before=$2 out=$3
source "$(dirname "$0")/run_common.sh"
print_gpu
run_tests "$out" gpu_attention_test gpu_attention_graph_test
sanitize "$out" gpu_attention_test '*s127*:*s129*:*s300d64Causal*:AttentionHeads.*'
ab() {  # ab NAME attention_bench.py-args...
  local name=$1
  shift
  run python3 "$dir/attention_bench.py" "$dir/liblinpipe_attention.so" --before "$before/liblinpipe_attention.so" \
    --kv-groups 1 --quick "$@" > "$out/attention_ab_$name.txt" 2>&1
}
ab hd128 --head-dims 128 --seqs "${AB128_SEQS:-512,1024,2048,4096,8192,16384}"
ab hd64 --head-dims 64 --seqs "${AB64_SEQS:-1024,4096}"
for f in "$out"/attention_ab_*.txt; do
  echo "== $(basename "$f" .txt)"
  grep -E "^case " "$f" | cut -c1-160
  sed -n '/^A\/B: speed after/,$p' "$f"
done
echo "elapsed ${SECONDS}s"
exit $status
