#!/usr/bin/env bash
# RMSNorm shapes timed by ncu at base clocks (its default clock control), where the SMs are
# slowed against DRAM and a shape short of SM work shows more than at boost clocks. On the
# H200 the order at base clocks matched the order at boost; an H100 at base clocks is a weak
# stand-in for the H200 (docs/benchmarks.md, 2026-12-06, twelfth session).
# Prints a table of kernel durations (DRAM % in brackets), a column per width; "-" where a
# run gave no figure (its error is printed first).
# Usage: run_rmsnorm_ncu.sh DIR OUT   (DIR: liblinpipe_rmsnorm.so and rmsnorm_bench.py)
#   CANDIDATES ("name;name;..." as rmsnorm_bench.py names them), WIDTHS (default "2048 8192")
set -uo pipefail
dir=$1 out=$2
IFS=';' read -ra candidates <<< "${CANDIDATES:-plain 2 vectors/thread;plain 1 vector/thread;linpipe shallow threads one-shot;linpipe held-single-half one-shot}"
widths=${WIDTHS:-2048 8192}
log=$(mktemp)
for candidate in "${candidates[@]}"; do
  for width in $widths; do
    ncu --print-units base --kernel-name regex:rmsnorm --launch-skip 1 --launch-count 2 \
      --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed \
      python3 "$dir/rmsnorm_bench.py" "$dir/liblinpipe_rmsnorm.so" --gib 0.5 --widths "$width" \
      --profile "$candidate" > "$log" 2>&1
    grep -q gpu__time_duration.sum "$log" || {
      echo "no figure for \"$candidate\" at n = $width:" >&2; tail -n 5 "$log" >&2; }
    awk -v c="$candidate" -v n="$width" '/gpu__time_duration.sum/{print c "\t" n "\ttime\t" $NF}
                                         /dram__throughput/{print c "\t" n "\tdram\t" $NF}' "$log"
  done
done > "$out/rmsnorm_ncu.tsv"
rm -f "$log"
python3 - "$out/rmsnorm_ncu.tsv" "$widths" "$(IFS=';'; echo "${candidates[*]}")" <<'PY'
import collections, statistics, sys
values = collections.defaultdict(list)
for line in open(sys.argv[1]):
    candidate, width, metric, value = line.rstrip("\n").split("\t")
    values[(candidate, int(width), metric)].append(float(value.replace(",", "")))
widths = [int(w) for w in sys.argv[2].split()]
names = sys.argv[3].split(";")
print("| candidate (ncu, base clocks) | " + " | ".join(f"n = {w}: us (DRAM %)" for w in widths) + " |")
print("|---|" + "---:|" * len(widths))
for name in names:
    cells = []
    for w in widths:
        t, d = values.get((name, w, "time")), values.get((name, w, "dram"))
        cells.append(f"{statistics.median(t) / 1e3:.1f} ({statistics.median(d):.1f})" if t and d else "-")
    print(f"| {name} | " + " | ".join(cells) + " |")
PY
