#!/usr/bin/env bash
# The measurements owed after the thirteenth session (docs/benchmarks.md, "Next, with a GPU"),
# most important first, in two parts that each fit one device call; every step has its own
# time limit, so a call cut short still returns what ran (logs under OUT):
#   part a: 1. gpu_attention_test;
#           2. attention_bench.py --kv-groups 1,8: the H200 table of issue 29 and the data to
#              refit attention_config_for there;
#           3. the GEMM against BEFORE's by ncu at base clocks, alternating (issue 28, item 6).
#   part b: 4. the GEMM's tracing cost by role: gemm_bench --trace --trace-roles
#              all|producer|consumers at 4096^3 and 8192^3 (issue 31, item 3);
#           5. rmsnorm_bench.py (issue 27's target is on the H200).
# DIR: the staged executables (scripts/stage_device_run.sh, or a subfolder holding
# gpu_attention_test, liblinpipe_attention.so, attention_bench.py, gemm_bench,
# liblinpipe_rmsnorm.so, rmsnorm_bench.py and run_common.sh). BEFORE: gemm_bench from 695ba5a.
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
  shapes="8192x4096x2048 4096x4096x4096 2048x2048x2048 8192x8192x8192 2048x8192x8192 4096x4096x1024 16384x1024x4096"
  for pass in 1 2; do
    for shape in $shapes; do
      order="before after"; [ $pass = 2 ] && order="after before"
      for side in $order; do
        bin=$dir/gemm_bench; [ $side = before ] && bin=$before/gemm_bench
        timeout 60 ncu --print-units base --kernel-name "regex:(^|::)gemm_kernel" --launch-skip 4 \
          --launch-count 1 --metrics gpu__time_duration.sum "$bin" --quick --shape "$shape" 2>&1 |
          awk -v side=$side -v shape=$shape '/gpu__time_duration.sum/{print shape, side, $NF}'
      done
    done
  done > "$out/gemm_ncu.txt"
  echo "gemm A/B done (${SECONDS} s)"
  python3 - "$out/gemm_ncu.txt" <<'PY'
import collections, statistics, sys
t = collections.defaultdict(list)
for line in open(sys.argv[1]):
    shape, side, value = line.split()
    t[(shape, side)].append(float(value.replace(",", "")) / 1e3)
print("| GEMM shape (ncu, base clocks, 1-CTA) | before us | after us | after / before speed |")
for shape in sorted({s for s, _ in t}):
    b, a = statistics.median(t[(shape, "before")] or [0]), statistics.median(t[(shape, "after")] or [0])
    print(f"| {shape} | {b:.1f} | {a:.1f} | {b / a if a else 0:.3f} |")
PY
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
