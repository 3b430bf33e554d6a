#!/usr/bin/env bash
# Same-machine A/B of rmsnorm_bf16 (issue 27): the RMSNorm tests of the new build (debug checks
# on and off), then rmsnorm_bench.py on the new library and the old one, in the order
# after-before-after (each run times the plain kernel, torch and cudaMemcpy beside linpipe, so
# each run's ratios stand alone), then ncu's occupancy and DRAM figures of the plain kernel and
# the named linpipe candidates of both builds (NCU="CANDIDATE;...", at NCU_WIDTHS, default
# "1024 8192"). Prints the summaries last.  Usage: run_rmsnorm_ab.sh DIR BEFORE OUT
set -uo pipefail
dir=$1 before=$2 out=$3
logs=$(mktemp -d)
source "$(dirname "$0")/run_common.sh"
print_gpu
run_tests "$logs" gpu_rmsnorm_test gpu_rmsnorm_test_release
for side in after before after2; do
  lib=$([ $side = before ] && echo "$before" || echo "$dir")/liblinpipe_rmsnorm.so
  run python3 "$dir/rmsnorm_bench.py" "$lib" > "$out/rmsnorm_bench_$side.txt" 2>&1
done
metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,launch__grid_size,lts__t_sector_hit_rate.pct
IFS=';' read -ra profiled <<< "${NCU:-plain 2 vectors/thread}"
for side in after before; do
  lib=$([ $side = before ] && echo "$before" || echo "$dir")/liblinpipe_rmsnorm.so
  for candidate in "${profiled[@]}"; do
    [ $side = before ] && [[ "$candidate" == plain* ]] && continue
    for width in ${NCU_WIDTHS:-1024 8192}; do
      echo "== ncu ($side, n = $width): $candidate =="
      ncu --kernel-name regex:rmsnorm --launch-count 1 --metrics "$metrics" \
        python3 "$dir/rmsnorm_bench.py" "$lib" --gib 0.5 --widths "$width" \
        --profile "$candidate" 2>&1 | grep -E "^ +[a-z_]+__" | sed 's/  */ /g'
    done
  done
done > "$logs/ncu_all.txt" 2>&1
cp "$logs/ncu_all.txt" "$out/ncu.txt"
grep -E "^==|time_duration|warps_active|registers_per|limit_reg|limit_shared|dram__th" "$logs/ncu_all.txt" | cut -c1-110
for side in after before after2; do
  echo "== $side"
  sed -n '/^## Summary/,$p' "$out/rmsnorm_bench_$side.txt"
done
tar -czf "$out/logs.tgz" -C "$logs" . 2>/dev/null
echo "elapsed ${SECONDS}s"
exit $status
