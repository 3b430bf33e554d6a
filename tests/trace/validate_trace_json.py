#!/usr/bin/env python3
"""Checks a linpipe trace as Chrome/Perfetto trace-event JSON, as a viewer would read it.

  validate_trace_json.py FILE [--roles N]

Passes (exit 0) if FILE is JSON with a traceEvents list whose events have the fields their phase
needs, every track used is named, the wait slices ("X") of one track never overlap, and every
held-stage span ("b") ends ("e") later on the same track; with --roles, that N tracks are named.
"""
import json
import sys
from collections import defaultdict


def fail(message):
    print(f"validate_trace_json: {message}", file=sys.stderr)
    sys.exit(1)


def main(argv):
    if not argv or argv[0].startswith("-"):
        fail("usage: validate_trace_json.py FILE [--roles N]")
    roles = int(argv[argv.index("--roles") + 1]) if "--roles" in argv else None
    with open(argv[0]) as handle:
        trace = json.load(handle)
    events = trace.get("traceEvents")
    if not isinstance(events, list) or not events:
        fail("no traceEvents list")
    named, slices, spans = set(), defaultdict(list), {}
    for e in events:
        ph = e.get("ph")
        if not isinstance(e.get("name"), str) or ph not in ("M", "X", "b", "e", "i"):
            fail(f"event without a name or with an unknown phase: {e}")
        track = (e.get("pid"), e.get("tid"))
        if ph == "M":
            if e["name"] == "thread_name":
                named.add(track)
            continue
        if not all(isinstance(e.get(k), int) for k in ("pid", "tid")) or not isinstance(e.get("ts"), (int, float)):
            fail(f"event without pid, tid or ts: {e}")
        if ph == "X":
            if not isinstance(e.get("dur"), (int, float)) or e["dur"] < 0:
                fail(f"slice without a duration: {e}")
            slices[track].append((e["ts"], e["ts"] + e["dur"]))
        elif ph == "b":
            key = (e.get("cat"), e.get("id"))
            if key in spans:
                fail(f"span {key} begins twice")
            spans[key] = (track, e["ts"])
        elif ph == "e":
            key = (e.get("cat"), e.get("id"))
            if key not in spans or spans[key][0] != track or spans.pop(key)[1] > e["ts"]:
                fail(f"span {key} ends without beginning earlier on the same track")
    used = set(slices) | {t for t, _ in spans.values()}
    if not used <= named:
        fail(f"tracks without a thread_name: {sorted(used - named)}")
    for track, intervals in slices.items():
        intervals.sort()
        for (_, end), (start, _) in zip(intervals, intervals[1:]):
            if start < end - 1e-3:  # microseconds, printed to the nanosecond
                fail(f"overlapping slices on track {track}: one ends at {end}, the next starts at {start}")
    if roles is not None and len(named) != roles:
        fail(f"{len(named)} named tracks, expected {roles}")
    print(f"validate_trace_json: {argv[0]}: {len(events)} events, {len(named)} tracks, "
          f"{sum(map(len, slices.values()))} wait slices, {len(spans)} spans left open: ok")


if __name__ == "__main__":
    main(sys.argv[1:])
