#!/usr/bin/env bash
# The changes waiting in docs/experiments/, measured in one device call, most wanted first;
# each step has its own time limit within DEADLINE seconds (default 480), so a call cut short
# still returns what ran (logs under OUT):
#   1. each patched build's GPU tests (GEMM: the staged-store ring case and the GEMM, debug and
#      release; attention: PTX wrappers, attention, graph);
#   2. on an H200, rmsnorm_bench.py from MAIN (issue 27's target is on the H200);
#   3. the GEMM build against MAIN at base clocks (ncu, alternating; four shapes), then the
#      GEMM build's own gemm_bench (each linpipe variant against cuBLAS and cuBLASLt in one
#      run), ncu on its kernels beside cuBLASLt's at GEMM_ANCHOR_SHAPES (default 4096x4096x1024
#      4096x4096x4096) and synccheck/racecheck on its GemmSanitizer cases;
#   4. the attention build against MAIN at both head dims (quick rounds; ATTENTION_HEAD_DIMS,
#      default 64,128): its like-for-like table against torch and the A/B in one run;
#   5. synccheck and racecheck on the attention build's small shapes, then on MAIN's
#      early-start test.
# MAIN: main's executables staged by scripts/stage_device_run.sh (.device). GEMM: a folder
# holding the GEMM patch's gpu_staged_store_test, gpu_gemm_test, gpu_gemm_test_release and
# gemm_bench; ATTENTION: the attention patch's gpu_ptx_wrappers_test, gpu_attention_test,
# gpu_attention_graph_test and liblinpipe_attention.so (each built as stage_device_run.sh does).
# A folder that is missing skips its steps.
# Usage: DEADLINE=480 run_experiments.sh MAIN GEMM ATTENTION OUT
set -uo pipefail
main=$1 gemm=$2 attention=$3 out=$4
bench=$(dirname "$0")
deadline=${DEADLINE:-480}
left() { echo $((deadline - SECONDS)); }
cap() { local l; l=$(left); echo $((l > $1 ? $1 : (l > 0 ? l : 1))); }
source "$bench/run_common.sh"
print_gpu | tee "$out/gpu.txt"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader)
mkdir -p "$out/tests" "$out/gemm_ab" "$out/sanitizers"
[ -d "$gemm" ] && { dir=$gemm; run_tests "$out/tests" gpu_staged_store_test gpu_gemm_test gpu_gemm_test_release; }
[ -d "$attention" ] && { dir=$attention; run_tests "$out/tests" gpu_ptx_wrappers_test gpu_attention_test gpu_attention_graph_test; }
echo "tests done at ${SECONDS} s"
if [[ $gpu == *H200* ]]; then
  timeout "$(cap 60)" python3 "$bench/rmsnorm_bench.py" "$main/liblinpipe_rmsnorm.so" --rounds 9 > "$out/rmsnorm.txt" 2>&1
  echo "rmsnorm rc=$? at ${SECONDS} s"
fi
if [ -d "$gemm" ]; then
  GEMM_SHAPES="4096x4096x1024 8192x4096x2048 4096x4096x4096 8192x8192x8192" GEMM_REPS=1 ATTENTION_ARGS=none \
    timeout "$(cap 90)" bash "$bench/run_fixed_clock_ab.sh" "$gemm" "$main" "$out/gemm_ab" > "$out/gemm_ab.txt" 2>&1
  echo "GEMM A/B rc=$? at ${SECONDS} s"
  timeout "$(cap 60)" "$gemm/gemm_bench" > "$out/gemm_bench.txt" 2>&1
  echo "GEMM build's gemm_bench rc=$? at ${SECONDS} s"
  mkdir -p "$out/anchor_kernels"
  GEMM_SHAPES=${GEMM_ANCHOR_SHAPES:-"4096x4096x1024 4096x4096x4096"} timeout "$(cap 60)" \
    bash "$bench/run_anchor_kernels.sh" "$gemm" "$out/anchor_kernels" > "$out/anchor_kernels.txt" 2>&1
  echo "anchor kernels rc=$? at ${SECONDS} s"
  dir=$gemm; sanitize "$out/sanitizers" gpu_gemm_test 'GemmSanitizer.*' "$(cap 60)"
fi
if [ -d "$attention" ]; then
  timeout "$(cap 200)" python3 "$bench/attention_bench.py" "$attention/liblinpipe_attention.so" \
    --before "$main/liblinpipe_attention.so" --quick --head-dims "${ATTENTION_HEAD_DIMS:-64,128}" --kv-groups 1 \
    --seqs 512,1024,2048,4096,8192 > "$out/attention_ab.txt" 2>&1
  echo "attention A/B rc=$? at ${SECONDS} s"
  if [ "$(left)" -gt 40 ]; then
    dir=$attention; sanitize "$out/sanitizers" gpu_attention_test '*s127*:*s129*:*s300d64Causal*:AttentionHeads.*' \
      "$(( $(left) / 3 ))"
  fi
fi
if [ "$(left)" -gt 20 ]; then
  dir=$main; sanitize "$out/sanitizers" gpu_early_start_test "$early_start_sanitized" "$(( $(left) / 2 ))"
fi
grep -hE "^\|" "$out/rmsnorm.txt" 2>/dev/null | tail -6
grep -hE "^\|" "$out/gemm_ab.txt" 2>/dev/null
sed -n '/^anchors/,/^$/p' "$out/gemm_bench.txt" 2>/dev/null | cut -c1-200
grep -E "^###|linpipe" "$out/anchor_kernels.txt" 2>/dev/null | cut -c1-90
for f in "$out"/attention_*.txt; do
  echo "== $(basename "$f")"
  grep -E "^case" "$f" | sed -E 's/^case //' | cut -c1-170
done
sed -n '/^all configurations: after/p' "$out/attention_ab.txt" 2>/dev/null
echo "elapsed ${SECONDS} s"
# The device machine returns only a few files from OUT: the logs go back as one archive.
archive=$(mktemp --suffix=.tgz)
tar -czf "$archive" -C "$out" . && rm -rf "${out:?}"/* && mv "$archive" "$out/logs.tgz"
exit $status
