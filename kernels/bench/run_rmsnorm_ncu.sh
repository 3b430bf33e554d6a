#!/usr/bin/env bash
# RMSNorm shapes timed by ncu at base clocks (its default clock control): with the SMs slowed
# against DRAM, an H100 stands in for the H200, whose HBM3e is 1.43x faster at the same SM
# clocks, so a shape that is short of SM work shows here and not at boost clocks.
# Prints a table of kernel durations, a column per width, the plain kernel's first.
# Usage: run_rmsnorm_ncu.sh DIR OUT   (DIR: liblinpipe_rmsnorm.so and rmsnorm_bench.py)
#   CANDIDATES ("name;name;..." as rmsnorm_bench.py names them), WIDTHS (default "2048 8192")
set -uo pipefail
dir=$1 out=$2
IFS=';' read -ra candidates <<< "${CANDIDATES:-plain 2 vectors/thread;plain 1 vector/thread;linpipe shallow threads one-shot;linpipe held-single-half one-shot}"
widths=${WIDTHS:-2048 8192}
for candidate in "${candidates[@]}"; do
  for width in $widths; do
    ncu --print-units base --kernel-name regex:rmsnorm --launch-skip 1 --launch-count 2 \
      --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed \
      python3 "$dir/rmsnorm_bench.py" "$dir/liblinpipe_rmsnorm.so" --gib 0.5 --widths "$width" \
      --profile "$candidate" 2>&1 |
      awk -v c="$candidate" -v n="$width" '/gpu__time_duration.sum/{print c "\t" n "\ttime\t" $NF}
                                           /dram__throughput/{print c "\t" n "\tdram\t" $NF}'
  done
done > "$out/rmsnorm_ncu.tsv"
python3 - "$out/rmsnorm_ncu.tsv" "$widths" <<'PY'
import collections, statistics, sys
values = collections.defaultdict(list)
for line in open(sys.argv[1]):
    candidate, width, metric, value = line.rstrip("\n").split("\t")
    values[(candidate, int(width), metric)].append(float(value.replace(",", "")))
widths = [int(w) for w in sys.argv[2].split()]
names = list(dict.fromkeys(c for c, _, _ in values))
print("| candidate (ncu, base clocks) | " + " | ".join(f"n = {w}: us (DRAM %)" for w in widths) + " |")
print("|---|" + "---:|" * len(widths))
for name in names:
    cells = []
    for w in widths:
        t, d = values.get((name, w, "time")), values.get((name, w, "dram"))
        cells.append(f"{statistics.median(t) / 1e3:.1f} ({statistics.median(d):.1f})" if t and d else "-")
    print(f"| {name} | " + " | ".join(cells) + " |")
PY
