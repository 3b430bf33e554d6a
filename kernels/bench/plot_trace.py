#!/usr/bin/env python3
"""Draws a linpipe trace (trace-event JSON from trace_to_json) as a timeline PNG.

  plot_trace.py TRACE.json OUT.png [--from US] [--to US]

One row per track (CTA, warp, role): grey where the role holds a stage, red where it waits
(producer: for an empty slot; consumer: for a full one), ticks where the producer issued a copy.
--from/--to crop the time axis (microseconds from the trace's first event).
"""
import json
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    start = float(argv[argv.index("--from") + 1]) if "--from" in argv else None
    stop = float(argv[argv.index("--to") + 1]) if "--to" in argv else None
    trace = json.load(open(argv[0]))
    names, waits, held, issues, opened = {}, defaultdict(list), defaultdict(list), defaultdict(list), {}
    for e in trace["traceEvents"]:
        track = (e.get("pid"), e.get("tid"))
        if e["ph"] == "M" and e["name"] == "thread_name":
            names[track] = f"block {track[0]} {e['args']['name']}"
        elif e["ph"] == "X":
            waits[track].append((e["ts"], e["dur"]))
        elif e["ph"] == "b":
            opened[(e["cat"], e["id"])] = e["ts"]
        elif e["ph"] == "e" and (e["cat"], e["id"]) in opened:
            begin = opened.pop((e["cat"], e["id"]))
            held[track].append((begin, e["ts"] - begin))
        elif e["ph"] == "i" and e["name"] == "issue":
            issues[track].append(e["ts"])
    tracks = sorted(names)
    fig, ax = plt.subplots(figsize=(14, 0.42 * len(tracks) + 1.6))
    for row, track in enumerate(tracks):
        ax.broken_barh(held[track], (row - 0.4, 0.8), facecolors="#c8c8c8", label="holds a stage" if row == 0 else None)
        ax.broken_barh(waits[track], (row - 0.3, 0.6), facecolors="#d62728", label="waits" if row == 0 else None)
        if issues[track]:
            ax.vlines(issues[track], row - 0.4, row + 0.4, colors="#1f77b4", linewidth=0.6,
                      label="issues a copy" if not any(issues[t] for t in tracks[:row]) else None)
    ax.set_yticks(range(len(tracks)), [names[t] for t in tracks], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(start, stop)
    ax.set_xlabel("microseconds from the first event")
    ax.set_title(trace.get("otherData", {}).get("title", argv[0]), fontsize=10)
    ax.legend(loc="upper right", fontsize=7)
    fig.tight_layout()
    fig.savefig(argv[1], dpi=110)
    print(f"plot_trace: {argv[1]}: {len(tracks)} tracks")


if __name__ == "__main__":
    main(sys.argv[1:])
