#!/usr/bin/env python3
"""Compiles a CUDA source to PTX and checks which instruction forms its kernels use.

  check_ptx_instructions.py SOURCE OUTPUT.ptx [--require FORM]... [--forbid FORM]... -- COMPILER FLAGS...

FORM is an instruction with its modifiers, as PTX spells it (e.g. ex2.approx.ftz.f32); it
matches that instruction exactly, not a longer form that starts with it. Fails when a required
form is missing from every kernel (.entry) or a forbidden one appears in any, naming the line.
"""
import re
import sys

from ptx_kernels import compile_to_ptx, kernel_lines

INSTRUCTION = re.compile(r"^\s*(?:@!?%p\d+\s+)?([a-z][a-z0-9_.:]*)[\s;]")


def main() -> int:
    split = sys.argv.index("--")
    source, output = sys.argv[1], sys.argv[2]
    required, forbidden = [], []
    options = sys.argv[3:split]
    if len(options) % 2 or any(flag not in ("--require", "--forbid") for flag in options[::2]):
        print(__doc__)
        return 2
    for flag, form in zip(options[::2], options[1::2]):
        (required if flag == "--require" else forbidden).append(form)
    failed = compile_to_ptx(sys.argv[split + 1:], source, output)
    if failed is not None:
        print(failed)
        return 1
    seen, problems = set(), []
    for number, line in kernel_lines(output):
        match = INSTRUCTION.match(line)
        if not match:
            continue
        seen.add(match.group(1))
        if match.group(1) in forbidden:
            problems.append(f"{output}:{number}: forbidden {match.group(1)}: {line.strip()}")
    problems += [f"no {form} in any kernel" for form in required if form not in seen]
    if problems:
        print("\n".join(problems))
        return 1
    print(f"required {required} present, forbidden {forbidden} absent")
    return 0


if __name__ == "__main__":
    sys.exit(main())
