#!/usr/bin/env python3
"""Plots stream_copy_bench's CSV: GB/s against buffer size: cudaMemcpy, the plain copy kernel
(when the CSV has it) and the best stream_copy configuration per size.
  plot_stream_copy.py RESULTS.csv OUT.png [TITLE]"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    memcpy, plain, best = {}, {}, defaultdict(float)
    with open(sys.argv[1], newline="") as f:
        for row in csv.DictReader(f):
            mib, gbps = int(row["bytes"]) / 2**20, float(row["gbps"])
            if row["impl"] == "cudaMemcpy":
                memcpy[mib] = gbps
            elif row["impl"] == "plain_copy":  # the best of its configurations
                plain[mib] = max(plain.get(mib, 0.0), gbps)
            elif row["impl"] == "stream_copy":
                best[mib] = max(best[mib], gbps)
    sizes = sorted(memcpy)
    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.plot(sizes, [memcpy[s] for s in sizes], "o-", label="cudaMemcpy D2D")
    ax.plot(sizes, [best[s] for s in sizes], "s-", label="linpipe stream_copy (best config)")
    if plain:
        ax.plot(sizes, [plain[s] for s in sizes], "^--", label="plain one-shot copy kernel (best configuration)")
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes, [f"{int(s)} MiB" if s < 1024 else f"{int(s) // 1024} GiB" for s in sizes])
    ax.set_ylabel("GB/s (bytes read + written)")
    ax.set_ylim(0, max(max(memcpy.values()), max(best.values())) * 1.1)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right")
    ax.set_title(sys.argv[3] if len(sys.argv) > 3 else "stream_copy vs cudaMemcpy")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main())
