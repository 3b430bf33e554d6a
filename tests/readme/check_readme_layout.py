#!/usr/bin/env python3
"""README's Layout section names every partition of the linpipe module, in the order
cmake/LinpipeModuleUnits.cmake builds them, and nothing that is not one.

  check_readme_layout.py README.md cmake/LinpipeModuleUnits.cmake
"""
import re
import sys


def main(readme_path, units_path):
    units = open(units_path).read()
    listed = re.search(r"set\(LINPIPE_MODULE_PARTITIONS\s+([^)]*)\)", units).group(1).split()
    readme = open(readme_path).read()
    layout = readme[readme.index("## Layout\n"):]
    layout = layout[:layout.index("\n## ", 1)]
    named = re.findall(r"^\|[^|]*\| `([a-z_0-9]+)` \|", layout, re.M)
    problems = []
    for unit in listed:
        if unit not in named:
            problems.append(f"partition '{unit}' is missing from README's Layout table")
    for name in named:
        if name not in listed:
            problems.append(f"README's Layout table names '{name}', which is not a partition")
    if not problems and named != listed:
        problems.append("README's Layout table lists the partitions in another order than "
                        "cmake/LinpipeModuleUnits.cmake:\n  " + " ".join(named) + "\n  " + " ".join(listed))
    for problem in problems:
        print(problem)
    if not problems:
        print(f"README's Layout names all {len(listed)} partitions in build order")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
