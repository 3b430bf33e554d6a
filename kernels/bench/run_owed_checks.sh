#!/usr/bin/env bash
# The measurements owed after the thirteenth session (docs/benchmarks.md, "Next, with a GPU"),
# most important first, in two parts that each fit one device call; every step has its own
# time limit, so a call cut short still returns what ran (logs under OUT):
#   part a: 1. gpu_attention_test;
#           2. attention_bench.py --kv-groups 1,8: the H200 table of issue 29 and the data to
#              refit attention_config_for there;
#           3. the GEMM against BEFORE's by ncu at base clocks, alternating, two passes
#              (run_fixed_clock_ab.sh, its attention part skipped; issue 28, item 6).
#   part b: 4. the GEMM's tracing cost by role: gemm_bench --trace --trace-roles
#              all|producer|consumers at 4096^3 and 8192^3 (issue 31, item 3);
#           5. rmsnorm_bench.py (issue 27's target is on the H200).
# DIR: the staged executables (scripts/stage_device_run.sh, or a subfolder holding
# gpu_attention_test, liblinpipe_attention.so, attention_bench.py, gemm_bench,
# liblinpipe_rmsnorm.so, rmsnorm_bench.py, run_common.sh and run_fixed_clock_ab.sh). BEFORE:
# gemm_bench from 695ba5a (scripts/stage_before_build.sh 695ba5a puts it in out/before-695ba5a).
# Usage: run_owed_checks.sh DIR BEFORE OUT a|b
set -uo pipefail
dir=$1 before=$2 out=$3 part=$4
source "$(dirname "$0")/run_common.sh"
print_gpu
if [ "$part" = a ]; then
  run_tests "$out" gpu_attention_test
  timeout 240 python3 "$dir/attention_bench.py" "$dir/liblinpipe_attention.so" --kv-groups 1,8 \
    > "$out/attention.txt" 2>&1
  echo "attention bench rc=$? (${SECONDS} s)"
  GEMM_REPS=2 ATTENTION_ARGS=none timeout 300 bash "$(dirname "$0")/run_fixed_clock_ab.sh" \
    "$dir" "$before" "$out" > "$out/gemm_ab.txt" 2>&1
  echo "gemm A/B rc=$? (${SECONDS} s)"
  grep -E "^\|" "$out/gemm_ab.txt"
  grep -E "^case " "$out/attention.txt" | cut -c1-200
elif [ "$part" = b ]; then
  for shape in 4096x4096x4096 8192x8192x8192; do
    for roles in all producer consumers; do
      timeout 90 "$dir/gemm_bench" --trace "$out/trace_${roles}_$shape.json" --shape "$shape" \
        --trace-roles "$roles" > "$out/trace_${roles}_$shape.txt" 2>&1 || echo "FAILED: $roles $shape"
      echo "$roles $shape: $(grep -E 'tracing cost' "$out/trace_${roles}_$shape.txt")"
      rm -f "$out/trace_${roles}_$shape.json"
    done
  done
  echo "trace roles done (${SECONDS} s)"
  timeout 200 python3 "$dir/rmsnorm_bench.py" "$dir/liblinpipe_rmsnorm.so" > "$out/rmsnorm.txt" 2>&1
  echo "rmsnorm bench rc=$? (${SECONDS} s)"
  sed -n '/^## Summary/,$p' "$out/rmsnorm.txt"
else
  echo "usage: run_owed_checks.sh DIR BEFORE OUT a|b" >&2
  exit 2
fi
print_gpu
echo "elapsed ${SECONDS}s"
exit $status
