#!/usr/bin/env python3
"""Compiles a CUDA source to PTX and fails on any generic load or store in its kernels.

  check_ptx.py SOURCE OUTPUT.ptx -- COMPILER FLAGS...

A generic `ld` / `st` (no .shared, .global, .param, .local or .const) in a kernel (.entry)
means an address lost its space somewhere between the kernel's `extern __shared__` array and
the access: each one costs an address-space check at run time and blocks vectorised
shared-memory access. Out-of-line functions (.func: the debug reports, which write to host
memory) are not kernels' slot accesses and are not checked.
"""
import re
import sys

from ptx_kernels import compile_to_ptx, kernel_lines

SPACES = {"shared", "global", "param", "local", "const"}
ACCESS = re.compile(r"^\s*(?:@!?%p\d+\s+)?(ld|st)((?:\.[a-z0-9:_]+)*)\s")


def main() -> int:
    source, output = sys.argv[1], sys.argv[2]
    failed = compile_to_ptx(sys.argv[4:], source, output)
    if failed is not None:
        print(failed)
        return 1
    generic, spaced = [], 0
    for number, line in kernel_lines(output):
        match = ACCESS.match(line)
        if not match:
            continue
        qualifiers = set(part.split("::")[0] for part in match.group(2).split(".") if part)
        if qualifiers & SPACES:
            spaced += "shared" in qualifiers
        else:
            generic.append(f"{output}:{number}: {line.strip()}")
    if generic:
        print("generic loads/stores (the shared address space was lost):")
        print("\n".join(generic))
        return 1
    if spaced == 0:
        print("no ld.shared / st.shared at all: the kernels did not access their slots")
        return 1
    print(f"{spaced} shared-memory accesses, no generic ones")
    return 0


if __name__ == "__main__":
    sys.exit(main())
