#!/usr/bin/env python3
"""Where each kernel's warps wait, by SASS opcode, from ncu's source page.

  sass_stalls.py SOURCE_CSV [--top 12]

SOURCE_CSV: `ncu --import REPORT --page source --csv --print-source sass` of a report taken
with the SourceCounters section (its warp-state samples). The page holds one table a kernel,
each after a line naming it. For each kernel: the samples of every sampling column, summed by
opcode (the instruction's first word after any predicate), the largest first, as shares of
the kernel's samples; then the per-reason columns (where the page has them) summed over the
kernel. Two kernels with the same work but different speed show where the slower one waits:
on its barriers (SYNCS, BAR), the tensor core (WGMMA), shared memory (STS, LDS) or the bulk
copies (UBLKCP, UTMASTG). A warp waiting at a barrier is sampled at the instruction after it
(the ping-pong GEMM's warpgroup waiting for its turn shows as the MUFU after its BAR.SYNC), so
read an opcode's share together with the reasons.
"""
import argparse
import collections
import csv
import io
import re
import sys

from ncu_summary import number  # staged beside this script

PREDICATE = re.compile(r"^@!?U?P\w+\s+")


def opcode(source):
    words = PREDICATE.sub("", source.strip()).split()
    return words[0].split(".")[0] if words else "?"


def tables(text):
    """(title, header, rows) for each table: a header row holds "Source" and "Address", and each
    instruction's row an address in hex; the line before a table names its kernel."""
    title, header, rows, found = "", None, [], []
    for line in text.splitlines():
        cells = next(csv.reader(io.StringIO(line)), [])
        if "Source" in cells and "Address" in cells:
            if header:
                found.append((title, header, rows))
            header, rows = cells, []
        elif header and len(cells) == len(header) and cells[header.index("Address")].startswith("0x"):
            rows.append(cells)
        elif line.strip():
            if header:
                found.append((title, header, rows))
                header, rows = None, []
            title = line.strip()
    if header:
        found.append((title, header, rows))
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("source_csv")
    parser.add_argument("--top", type=int, default=12)
    args = parser.parse_args()
    with open(args.source_csv, encoding="utf-8", errors="replace") as f:
        found = tables(f.read())
    if not found:
        sys.exit(f"{args.source_csv}: no table with Source and Address columns (was SourceCounters collected?)")
    for title, header, rows in found:
        source = header.index("Source")
        sampled = [i for i, name in enumerate(header) if "Sampl" in name]
        reasons = [i for i, name in enumerate(header) if name.lower().startswith("stall") or "stall_" in name]
        if not sampled:
            print(f"{title[:100]}: no sampling column in {header}")
            continue
        total = sum(number(r[sampled[0]]) or 0 for r in rows) or 1
        print(f"\n{title[:110]}\n  {len(rows)} instructions, {total:.0f} samples ({header[sampled[0]]})")
        by_op = collections.defaultdict(lambda: [0.0] * len(sampled))
        for r in rows:
            for j, i in enumerate(sampled):
                by_op[opcode(r[source])][j] += number(r[i]) or 0
        print("  | opcode | " + " | ".join(header[i] for i in sampled) + " | share |")
        for op, values in sorted(by_op.items(), key=lambda kv: -kv[1][0])[: args.top]:
            print(f"  | {op} | " + " | ".join(f"{v:.0f}" for v in values) + f" | {values[0] / total:.1%} |")
        if reasons:
            sums = sorted(((sum(number(r[i]) or 0 for r in rows), header[i]) for i in reasons), reverse=True)
            print("  reasons: " + ", ".join(f"{name} {value:.0f}" for value, name in sums[: args.top] if value))


if __name__ == "__main__":
    main()
