#!/usr/bin/env bash
# Same-machine A/B of the attention kernel rebuilt on the kernel parts (issue 28, item 6):
# liblinpipe_attention.so from before the change (BEFORE/) and after it (DIR/), every
# configuration of both timed in turn by attention_bench.py --before (torch's backends as the
# anchor, in the same run). First the new tree's attention, PTX-wrapper and kernel-parts tests,
# compute-sanitizer (synccheck, racecheck) on attention's, the GEMM's and stream_copy's small
# shapes, and both attention builds' SASS (no local memory, the HGMMA count, TMA stores).
# Prints the tables last.  Usage: run_attention_ab.sh DIR BEFORE OUT [attention_bench.py args]
set -uo pipefail
dir=$1 before=$2 out=$3
shift 3
source "$(dirname "$0")/run_common.sh"
print_gpu
run_tests "$out" gpu_attention_test gpu_ptx_wrappers_test gpu_kernel_parts_test gpu_kernel_parts_test_release
sanitize "$out" gpu_attention_test '*s127*:*s129*:*s300d64Causal*:AttentionHeads.*'
sanitize "$out" gpu_gemm_test 'GemmSanitizer.*'
sanitize "$out" gpu_gemm_test_release 'GemmSanitizer.*'
sanitize "$out" gpu_stream_copy_test 'StreamCopySanitizer.*'
for side in before after; do
  lib=$([ $side = before ] && echo "$before" || echo "$dir")/liblinpipe_attention.so
  cuobjdump --dump-sass "$lib" > "$out/attention_$side.sass" 2>&1
  echo "$side attention SASS: $(grep -c HGMMA "$out/attention_$side.sass") HGMMA," \
    "$(grep -cE 'LDL|STL' "$out/attention_$side.sass") LDL/STL, $(grep -c UTMASTG "$out/attention_$side.sass") UTMASTG," \
    "$(grep -c 'STG\.' "$out/attention_$side.sass") STG"
done
run python3 "$dir/attention_bench.py" "$dir/liblinpipe_attention.so" --before "$before/liblinpipe_attention.so" --kv-groups 1 "$@" \
  > "$out/attention_ab.txt" 2>&1
tail -n 40 "$out/attention_ab.txt"
exit $status
