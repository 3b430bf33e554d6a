#!/usr/bin/env python3
"""Compile-fail test driver: a snippet must be rejected with the expected diagnostics, and
its fixed form (-DLINPIPE_FIXED) must compile with no diagnostic at all.

  check_compile_fail.py CASE -- COMPILER FLAGS...

CASE holds one or more `// EXPECT: <text>` lines; each text must appear in the compiler's
output (substring match) when compiling without LINPIPE_FIXED. A case with a
`// COMPILE: object` line is compiled to an object (device code through ptxas) instead of
checked for syntax only: for errors that only code generation or ptxas reports."""
import os
import subprocess
import sys
import tempfile


def main() -> int:
    if "--" not in sys.argv or sys.argv.index("--") != 2:
        print(__doc__, file=sys.stderr)
        return 2
    case = sys.argv[1]
    command = sys.argv[3:]
    expected = [line.split("EXPECT:", 1)[1].strip()
                for line in open(case, encoding="utf-8") if line.lstrip().startswith("// EXPECT:")]
    if not expected:
        print(f"{case}: no // EXPECT: lines", file=sys.stderr)
        return 2

    lines = open(case, encoding="utf-8").read().split("\n")
    mode = ["-fsyntax-only"]
    if any(line.strip() == "// COMPILE: object" for line in lines):
        mode = ["-c", "-o", os.path.join(tempfile.mkdtemp(), "case.o")]

    broken = subprocess.run(command + mode + [case], capture_output=True, text=True)
    output = broken.stdout + broken.stderr
    failures = []
    if broken.returncode == 0:
        failures.append("the broken snippet compiled; it must be rejected")
    failures += [f"missing diagnostic: {text}" for text in expected if text not in output]

    fixed = subprocess.run(command + mode + ["-Werror", "-DLINPIPE_FIXED", case],
                           capture_output=True, text=True)
    if fixed.returncode != 0 or fixed.stderr.strip():
        failures.append("the fixed snippet (-DLINPIPE_FIXED) must compile cleanly:\n"
                        + fixed.stdout + fixed.stderr)

    if failures:
        print(f"FAIL {case}\n--- compiler output (broken) ---\n{output}", file=sys.stderr)
        for failure in failures:
            print(f"  {failure}", file=sys.stderr)
        return 1
    print(f"ok {case}: rejected with {len(expected)} expected diagnostic(s); fix compiles")
    return 0


if __name__ == "__main__":
    sys.exit(main())
