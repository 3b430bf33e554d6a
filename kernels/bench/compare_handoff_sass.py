#!/usr/bin/env python3
"""Compares the SASS of the hand-off kernels, linpipe against raw PTX, per stage count.

  cuobjdump --dump-sass handoff_bench | compare_handoff_sass.py

For each pair prints the instruction counts and the opcodes whose counts differ; a pair with no
differing opcodes compiled to the same instruction mix."""
import re
import sys
from collections import Counter


def functions(text):
    """Maps each kernel's mangled name to its list of opcodes."""
    result, name = {}, None
    for line in text.splitlines():
        header = re.match(r"\s*Function : (\S+)", line)
        if header:
            name = header.group(1)
            result[name] = []
            continue
        op = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
        if name and op:
            result[name].append(op.group(1).split(".")[0])
    return result


def main() -> int:
    kernels = functions(sys.stdin.read())
    same = True
    for stages in (1, 2, 4):
        pick = lambda tag: next((ops for n, ops in kernels.items() if tag in n and f"ILi{stages}E" in n), None)
        lin, raw = pick("handoff_linpipe"), pick("handoff_raw_ptx")
        if lin is None or raw is None:
            print(f"stages {stages}: kernels not found in the SASS")
            return 1
        diff = Counter(lin)
        diff.subtract(Counter(raw))
        changed = {op: n for op, n in diff.items() if n}
        same &= not changed
        print(f"stages {stages}: linpipe {len(lin)} instructions, raw PTX {len(raw)}; "
              f"opcode count differences (linpipe - raw): {changed or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
