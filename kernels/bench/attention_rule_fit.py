#!/usr/bin/env python3
"""What attention's default rule (attention_config_for) gives away, from attention_bench.py runs.

  attention_rule_fit.py RUN.txt [RUN.txt ...] [--within 0.02] [--without lazy,3 wg]

Reads the main table of each run (one row a case: each configuration's TFLOP/s, the fastest
configuration, linpipe/torch and the default's /torch). For each case, in every run, each
configuration's speed is taken over that run's fastest; the table then gives, per case:
- the default's speed over the fastest of all configurations (--without or not), run by run
  (its /torch over the best's /torch);
- the configuration whose worst run is best (the one to pick if the runs are to be trusted
  alike), with its speeds run by run;
- how many configurations stay within --within of the fastest in every run (many: the case
  does not care; one: it does).
--without drops the configurations whose names contain any of the comma-separated words (e.g.
the options the rule may not pick). A case missing from a run is fitted from the runs that
have it. Exit status 1 when no run has a table.
"""
import argparse
import math
import sys

TABLE_HEAD = "| head dim | seq | mask | batch x heads"
SUFFIX = " TFLOP/s"


def cells(line):
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def read_run(path):
    """{(head dim, seq, mask, heads): (speeds by configuration, the default's speed)}: each
    speed over the run's fastest configuration of that case."""
    cases, names = {}, None
    with open(path) as text:
        for line in text:
            if line.startswith(TABLE_HEAD):
                header = cells(line)
                names = [h[:-len(SUFFIX)] for h in header if h.endswith(SUFFIX) and h != "torch TFLOP/s"]
                best_col, default_col = header.index("linpipe/torch"), header.index("default (attention_config_for)/torch")
                continue
            if names is None or line.startswith("|---"):
                continue
            if not line.startswith("|"):
                names = None  # the table ended
                continue
            row = cells(line)
            tflops = [float(x) if x != "-" else math.nan for x in row[4:4 + len(names)]]
            fastest = max(x for x in tflops if not math.isnan(x))
            speeds = {name: x / fastest for name, x in zip(names, tflops) if not math.isnan(x)}
            default = float(row[default_col]) / float(row[best_col])
            cases[(int(row[0]), int(row[1]), row[2], row[3])] = (speeds, default)
    return cases


def fit(runs, without):
    """One line per case: (case, the default's speeds, the pick, its speeds, how many stay close)."""
    keys = sorted({key for run in runs for key in run}, key=lambda k: (k[0], k[2], "/" in k[3], k[1]))
    for key in keys:
        present = [run[key] for run in runs if key in run]
        names = [name for name in present[0][0] if not any(word in name for word in without)
                 and all(name in speeds for speeds, _ in present)]
        # Speeds over the fastest of the configurations still in play; the pick is the one
        # whose worst run is best (ties: the higher sum).
        scaled = [{name: speeds[name] / max(speeds[n] for n in names) for name in names} for speeds, _ in present]
        pick = max(names, key=lambda name: (min(s[name] for s in scaled), sum(s[name] for s in scaled)))
        yield key, [d for _, d in present], pick, [s[pick] for s in scaled], scaled


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--within", type=float, default=0.02)
    parser.add_argument("--without", default="")
    args = parser.parse_args(argv)
    runs = [read_run(path) for path in args.runs]
    if not any(runs):
        print("no attention_bench table in " + ", ".join(args.runs), file=sys.stderr)
        return 1
    without = [word.strip() for word in args.without.split(",") if word.strip()]
    print(f"{len(runs)} runs; speeds over each run's fastest configuration"
          + (f", leaving out {', '.join(without)}" if without else ""))
    print("| head dim | seq | mask | heads | default | pick (best worst run) | pick | "
          f"within {args.within:.0%} in every run |")
    print("|---:|---:|---|---:|---|---|---|---:|")
    for (head_dim, seq, mask, heads), defaults, pick, speeds, scaled in fit(runs, without):
        close = sum(all(s[name] >= 1 - args.within for s in scaled) for name in scaled[0])
        print(f"| {head_dim} | {seq} | {mask} | {heads} | {' / '.join(f'{d:.2f}' for d in defaults)} | {pick} "
              f"| {' / '.join(f'{s:.2f}' for s in speeds)} | {close} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
