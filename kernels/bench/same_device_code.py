#!/usr/bin/env python3
"""Checks that every kernel of a baseline binary has an identical kernel in a new one.

  same_device_code.py BEFORE.sass AFTER.sass

Both files are `cuobjdump --dump-sass` output. A kernel's body is its SASS text without the
function name (a kernel that gained template arguments, e.g. a tracer, keeps its code but not
its mangled name). Prints each baseline kernel's verdict; exits 1 if any has no identical body.
"""
import re
import sys


def bodies(path):
    kernels, name, lines = {}, None, []
    for line in open(path, errors="replace"):
        found = re.match(r"\s*Function : (\S+)", line)
        if found:
            if name:
                kernels[name] = "".join(lines)
            name, lines = found.group(1), []
        elif name is not None and line.strip().startswith("/*"):
            lines.append(re.sub(r"\s+", " ", line.strip()) + "\n")
    if name:
        kernels[name] = "".join(lines)
    return kernels


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    before, after = bodies(argv[0]), bodies(argv[1])
    after_bodies = set(after.values())
    missing = 0
    for name, body in sorted(before.items()):
        same = body in after_bodies
        missing += not same
        print(f"{'identical' if same else 'CHANGED  '} {len(body.splitlines()):6d} lines  {name[:110]}")
    print(f"same_device_code: {len(before) - missing}/{len(before)} baseline kernels have identical SASS "
          f"in the new binary ({len(after)} kernels there)")
    return 1 if missing or not before else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
