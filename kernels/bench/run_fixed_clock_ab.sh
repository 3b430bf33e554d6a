#!/usr/bin/env bash
# A/B of the GEMM and attention against BEFORE's builds (issue 28, item 6) where the card's
# heat cannot tilt it: ncu times each build's kernel at base clocks (--clock-control base, its
# default), alternating before and after per shape (GEMM_REPS times each). gemm_bench --shape
# checks the tiny shape first, then the shape's variants, the 1-CTA and 2-CTA cooperative
# kernels first: skipping the tiny check's gemm_kernel launches (counted per build: a newer
# gemm_bench checks more variants) and profiling 2 gives those two. Then attention_bench.py --before
# at the shapes where the best configuration was slower after (quick rounds, boost clocks).
# Usage: run_fixed_clock_ab.sh DIR BEFORE OUT
#   GEMM_SHAPES (default the benchmark's seven), GEMM_REPS (default 1),
#   ATTENTION_ARGS (default --seqs 2048,16384 --head-dims 128 --masks full; "none": GEMM only)
set -uo pipefail
dir=$1 before=$2 out=$3
source "$(dirname "$0")/run_common.sh"
print_gpu
skip_before=$(gemm_tiny_launches "$before/gemm_bench") skip_after=$(gemm_tiny_launches "$dir/gemm_bench")
echo "gemm_kernel launches in the tiny check: before $skip_before, after $skip_after"
shapes=${GEMM_SHAPES:-2048x2048x2048 4096x4096x4096 8192x8192x8192 8192x4096x2048 2048x8192x8192 4096x4096x1024 16384x1024x4096}
: > "$out/gemm_ncu.txt"
for rep in $(seq "${GEMM_REPS:-1}"); do
  for shape in $shapes; do
    order="before after"; [ $((rep % 2)) = 0 ] && order="after before"
    for side in $order; do
      bin=$([ $side = before ] && echo "$before" || echo "$dir")/gemm_bench
      skip=$([ $side = before ] && echo "$skip_before" || echo "$skip_after")
      ncu --print-units base --kernel-name "regex:(^|::)gemm_kernel" --launch-skip "$skip" --launch-count 2 \
        --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second "$bin" --quick --shape "$shape" 2>&1 |
        awk -v side=$side -v shape=$shape -v rep=$rep \
          '/gemm_kernel<1>/{c=1} /gemm_kernel<2>/{c=2} /gpu__time_duration.sum/{print rep, shape, side, "cluster", c, $NF, $(NF-1)}' \
        >> "$out/gemm_ncu.txt"
    done
  done
done
python3 - "$out/gemm_ncu.txt" <<'PY'
import collections, statistics, sys
t = collections.defaultdict(list)
for line in open(sys.argv[1]):
    rep, shape, side, _, cluster, value, unit = line.split()
    scale = {"ns": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3, "nsecond": 1e-3}.get(unit, 1.0)
    t[(shape, cluster, side)].append(float(value.replace(",", "")) * scale)
print("| GEMM shape (ncu, base clocks) | cluster | before us | after us | after / before speed |")
print("|---|---|---:|---:|---:|")
for shape, cluster in sorted({(s, c) for s, c, _ in t}, key=lambda k: (k[0], k[1])):
    b, a = statistics.median(t[(shape, cluster, "before")] or [0]), statistics.median(t[(shape, cluster, "after")] or [0])
    print(f"| {shape} | {cluster} | {b:.1f} | {a:.1f} | {b / a if a else 0:.3f} |")
PY
if [ "${ATTENTION_ARGS:-}" != none ]; then
  run python3 "$dir/attention_bench.py" "$dir/liblinpipe_attention.so" --before "$before/liblinpipe_attention.so" \
    --kv-groups 1 --quick ${ATTENTION_ARGS:---seqs 2048,16384 --head-dims 128 --masks full} > "$out/attention_ab.txt" 2>&1
  tail -n 30 "$out/attention_ab.txt"
fi
echo "elapsed ${SECONDS}s"
exit $status
