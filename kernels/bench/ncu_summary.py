#!/usr/bin/env python3
"""One line per profiled kernel from `ncu --csv --page raw` output: what limits it.

  ncu_summary.py NCU_CSV [--kernels REGEX] [--name-width 70]

Prints duration, grid size, cluster shape (where ncu's LaunchStats gave it), tensor pipe
activity, DRAM throughput (of peak, and read and write GB/s), DRAM bytes read, L2 hit rate, issue-slot use and
the three largest warp stall reasons (stalled warps per issued instruction) of each kernel
whose name matches REGEX (default: every kernel that ran longer than 50 us), its name cut to
--name-width characters (cuBLAS's names carry the tile and cluster shape far in). A metric ncu
did not collect shows as '-'.
"""
import argparse
import csv
import io
import re
import sys

DURATION = "gpu__time_duration.sum"
COLUMNS = [
    ("ms", DURATION),
    ("grid", "launch__grid_size"),  # tells a persistent launch from one of a CTA per tile
    ("tensor %", "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed"),
    ("DRAM %", "dram__throughput.avg.pct_of_peak_sustained_elapsed"),
    ("DRAM read GB/s", "dram__bytes_read.sum.per_second"),
    ("DRAM write GB/s", "dram__bytes_write.sum.per_second"),
    ("DRAM read MB", "dram__bytes_read.sum"),  # how often the operands came from DRAM
    ("L2 hit %", "lts__t_sector_hit_rate.pct"),
    ("issue %", "smsp__issue_active.avg.pct_of_peak_sustained_active"),
]
TO_MS = {"ns": 1e-6, "nsecond": 1e-6, "us": 1e-3, "usecond": 1e-3, "ms": 1.0, "msecond": 1.0}
TO_GB_PER_S = {"byte/second": 1e-9, "Kbyte/second": 1e-6, "Mbyte/second": 1e-3, "Gbyte/second": 1.0,
               "Tbyte/second": 1e3}
TO_MB = {"byte": 1e-6, "Kbyte": 1e-3, "Mbyte": 1.0, "Gbyte": 1e3}
CLUSTER_DIMS = ("launch__cluster_dim_x", "launch__cluster_dim_y", "launch__cluster_dim_z")
STALL = re.compile(r"smsp__average_warps?_issue_stalled_(\w+?)_per_issue_active\.ratio$")


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def rows_of(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    start = text.find('"ID"')  # ncu prints its own lines (==PROF==) and the program's before the CSV
    if start < 0:
        return [], {}
    reader = csv.reader(io.StringIO(text[start:]))
    header = next(reader)
    units = dict(zip(header, next(reader, [])))
    return [dict(zip(header, row)) for row in reader if len(row) == len(header)], units


def value_of(row, units, metric):
    """The metric's value; a duration in ms and a rate in GB/s, whatever unit this ncu printed."""
    value = number(row.get(metric, ""))
    if value is None:
        return value
    if metric == DURATION:
        return value * TO_MS.get(units.get(metric, "ns"), 1e-6)
    if metric.endswith(".per_second"):
        return value * TO_GB_PER_S.get(units.get(metric, "byte/second"), 1e-9)
    if metric == "dram__bytes_read.sum":
        return value * TO_MB.get(units.get(metric, "byte"), 1e-6)
    return value


def cluster_of(row):
    """The launch's cluster shape, e.g. 2x1x1; 'none' for a launch without clusters (ncu gives
    0x0x0), '-' where ncu did not report it."""
    dims = [number(row.get(metric, "")) for metric in CLUSTER_DIMS]
    if None in dims:
        return "-"
    return "none" if dims == [0, 0, 0] else "x".join(str(int(d)) for d in dims)


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("csv")
    parser.add_argument("--kernels", default=None)
    parser.add_argument("--name-width", type=int, default=70)
    args = parser.parse_args(argv)
    rows, units = rows_of(args.csv)
    if not rows:
        print(f"ncu_summary: no CSV rows in {args.csv} (did ncu run, and read the counters?)")
        return 1
    pick = re.compile(args.kernels) if args.kernels else None
    print("| kernel | cluster | " + " | ".join(name for name, _ in COLUMNS) + " | top stalls (warps per issue) |")
    print("|---|---|" + "---:|" * len(COLUMNS) + "---|")
    for row in rows:
        name = row.get("Kernel Name", "?")
        duration = value_of(row, units, DURATION)
        if pick is not None and not pick.search(name):
            continue
        if pick is None and (duration is None or duration < 0.05):
            continue
        cells = []
        for _, metric in COLUMNS:
            value = value_of(row, units, metric)
            cells.append("-" if value is None else f"{value:.3g}")
        stalls = sorted(((number(v) or 0.0, STALL.match(k).group(1)) for k, v in row.items() if STALL.match(k)),
                        reverse=True)[:3]
        short = name[:name.rfind("(")] if name.endswith(")") else name  # without the parameters
        short = short.removeprefix("void ").replace("(anonymous namespace)::", "")[:args.name_width]
        print(f"| {short} | {cluster_of(row)} | " + " | ".join(cells) + " | "
              + ", ".join(f"{reason} {value:.2f}" for value, reason in stalls) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
