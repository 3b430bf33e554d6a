#!/usr/bin/env bash
# The drained tracer on the GPU machine (issue 31, item 3), from a folder staged by
# scripts/stage_device_run.sh: its own GPU test and the traced kernels' tests, racecheck and
# synccheck on the ring test, then the tracing cost against a SliceTrace build
# (run_trace_cost.sh; BEFORE holds that build's gemm_bench).
# Usage: run_trace_ring.sh DIR BEFORE OUT [PASSES]
set -uo pipefail
dir=$1 before=$2 out=$3
exec > >(tee "$out/trace_ring.log") 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader
status=0
for t in gpu_trace_ring_test gpu_traced_kernels_test gpu_hang_detector_test; do
  timeout 120 "$dir/$t" > "$out/$t.log" 2>&1 || status=1
  echo "$t: $(grep -E '^\[  (PASSED|FAILED) ' "$out/$t.log" | tr '\n' ' ')"
  grep -E "Failure|Expected|Which is|linpipe:" "$out/$t.log" | head -8
done
# racecheck flags the ring's acquire/release hand-off (it models barriers only; see
# trace_ring.cppm), so only synccheck decides the status; racecheck's summary is printed.
for tool in synccheck racecheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 "$dir/gpu_trace_ring_test" \
    > "$out/sanitizer_trace_ring_$tool.log" 2>&1 || [ $tool = racecheck ] || status=1
  echo "trace ring $tool: $(grep -E 'SUMMARY' "$out/sanitizer_trace_ring_$tool.log")"
done
PASSES=${4:-2} bash "$(dirname "$0")/run_trace_cost.sh" "$dir" "$before" "$out"
exit $status
