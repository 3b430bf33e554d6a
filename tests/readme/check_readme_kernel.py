#!/usr/bin/env python3
"""README's first kernel must be the one tests/gpu/readme_kernel_test.cu builds and runs.

Compares the lines between README-KERNEL-BEGIN and README-KERNEL-END in the test with README's
"A kernel on linpipe" code block from its first declaration (the Tile struct) to its end.
"""
import sys
from pathlib import Path


def readme_kernel(readme: str) -> list[str]:
    section = readme.split("## A kernel on linpipe", 1)[1]
    block = section.split("```cpp\n", 1)[1].split("```", 1)[0].splitlines()
    start = next(i for i, line in enumerate(block) if line.startswith(("struct ", "template <")))
    return block[start:]


def tested_kernel(source: str) -> list[str]:
    body = source.split("// README-KERNEL-BEGIN\n", 1)[1].split("// README-KERNEL-END", 1)[0]
    return body.splitlines()


def main() -> int:
    readme, test = Path(sys.argv[1]).read_text(), Path(sys.argv[2]).read_text()
    documented, tested = readme_kernel(readme), tested_kernel(test)
    if documented == tested:
        print(f"README's kernel ({len(tested)} lines) is the tested one")
        return 0
    for n, (a, b) in enumerate(zip(documented, tested)):
        if a != b:
            print(f"line {n + 1} differs:\n  README: {a}\n  test:   {b}")
            break
    else:
        print(f"lengths differ: README {len(documented)} lines, test {len(tested)}")
    print("README.md's first kernel and tests/gpu/readme_kernel_test.cu must be identical")
    return 1


if __name__ == "__main__":
    sys.exit(main())
