#!/usr/bin/env bash
# The A/B and checks of issues 28, 29 and 31 in one call, most important first, each step with
# its own time limit so a call cut short still returns what ran (logs under OUT):
#   1. gpu_attention_test, the three-warpgroup configurations included (issue 29);
#   2. the attention A/B against BEFORE's build, torch's backends beside, quick rounds: one line
#      per case as it finishes, then the tables (issues 28 and 29);
#   3. the drained tracer: its tests, sanitizers and cost against SLICE's gemm_bench (SliceTrace,
#      9430879) (issue 31, item 3);
#   4. the GEMM and stream_copy A/B against BEFORE's builds, while time is left (issue 28).
# DIR: the staged executables (scripts/stage_device_run.sh, or a subfolder holding what this
# runs: gpu_attention_test, liblinpipe_attention.so, attention_bench.py, the trace-ring and
# traced-kernel tests, gpu_hang_detector_test, gemm_bench, stream_copy_bench, the GEMM and
# stream_copy tests, and the run_*.sh / same_device_code.py scripts). BEFORE: gemm_bench,
# stream_copy_bench and liblinpipe_attention.so from 695ba5a. SLICE: gemm_bench from 9430879.
# Usage: run_owed_checks.sh DIR BEFORE SLICE OUT [LIMIT_S, default 560]
set -uo pipefail
dir=$1 before=$2 slice=$3 out=$4 limit=${5:-560}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader
timeout 120 "$dir/gpu_attention_test" > "$out/attention_test.log" 2>&1
echo "attention test rc=$? (${SECONDS} s)"
grep -E "^\[  (PASSED|FAILED) |^\[  FAILED|Failure|Which is|got" "$out/attention_test.log" | head -20
timeout 170 python3 "$dir/attention_bench.py" "$dir/liblinpipe_attention.so" \
  --before "$before/liblinpipe_attention.so" --quick > "$out/attention_ab.txt" 2>&1
echo "attention bench rc=$? (${SECONDS} s)"
mkdir -p "$out/trace_ring"
timeout 150 bash "$dir/run_trace_ring.sh" "$dir" "$slice" "$out/trace_ring" 1 > "$out/trace_ring.txt" 2>&1
echo "trace ring rc=$? (${SECONDS} s)"
mkdir -p "$out/gemm"
left=$((limit - SECONDS))
if [ "$left" -gt 60 ]; then
  BUDGET_S=$((left - 60)) timeout "$left" bash "$dir/run_gemm_ab.sh" "$dir" "$before" "$out/gemm" > "$out/gemm_ab.txt" 2>&1
fi
echo "gemm A/B done (${SECONDS} s)"
grep -E "^case " "$out/attention_ab.txt" | cut -c1-200
grep -A14 "^Three consumer" "$out/attention_ab.txt"
tail -n 14 "$out/trace_ring.txt"
[ -f "$out/gemm_ab.txt" ] && tail -c 2500 "$out/gemm_ab.txt"
