#!/usr/bin/env bash
# stream_copy against its plain anchor (issue 31 item 4), on the GPU machine from a folder
# staged by scripts/stage_device_run.sh: ncu on one checked run of every plain configuration and
# every stream_copy configuration at SIZE MiB (each kernel's duration, DRAM throughput, read and
# write GB/s side by side), then the timed table at 64 MiB-4 GiB (its summary last).
# Usage: run_copy_ncu.sh DIR OUT [SIZE_MIB]
set -uo pipefail
dir=$1 out=$2 size=${3:-1024}
source "$(dirname "$0")/run_common.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader
ncu --clock-control none --csv --page raw \
  --metrics gpu__time_duration.sum,launch__grid_size,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum.per_second,dram__bytes_write.sum.per_second,lts__t_sector_hit_rate.pct,smsp__issue_active.avg.pct_of_peak_sustained_active \
  "$dir/stream_copy_bench" --once --min-mib "$size" --max-mib "$size" > "$out/copy_ncu.csv" 2> "$out/copy_ncu.err" ||
  { echo "ncu failed: $(tail -2 "$out/copy_ncu.err")"; status=1; }
python3 "$dir/ncu_summary.py" "$out/copy_ncu.csv" --kernels 'plain_copy|stream_copy' || status=1
run "$dir/stream_copy_bench" > "$out/stream_copy.txt" 2>&1
sed -n '/^plain copy configurations/,$p' "$out/stream_copy.txt"
exit $status
