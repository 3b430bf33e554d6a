#!/usr/bin/env python3
"""Checks, without a GPU or cuobjdump, that every kernel of a baseline cubin has byte-identical
machine code (its ELF `.text.<kernel>` section) in a new cubin.

  same_cubin_sass.py BEFORE.cubin AFTER.cubin [SUFFIX]

Make each cubin with ptxas from the kernels' PTX (the compile command from
compile_commands.json with `--cuda-device-only -S -o X.ptx`, then `ptxas -arch=sm_90a X.ptx -o
X.cubin`). A kernel that gained trailing template arguments has a longer mangled name: SUFFIX
(e.g. `Lb0E` for one more `false`) is inserted before the baseline name's first `EEv` to
find it.
Prints each baseline kernel's verdict; exits 1 if any differs or is missing.
"""
import struct
import sys


def text_sections(path):
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        sys.exit(f"{path}: not a 64-bit ELF cubin")
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    entsize, count, names_index = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * entsize) for i in range(count)]
    names_at = headers[names_index][4]
    sections = {}
    for name_at, _, _, _, offset, size, *_ in headers:
        name = data[names_at + name_at:data.index(b"\0", names_at + name_at)].decode()
        if name.startswith(".text."):
            sections[name[len(".text."):]] = data[offset:offset + size]
    return sections


def main(argv):
    if len(argv) not in (2, 3):
        sys.exit(__doc__)
    before, after = text_sections(argv[0]), text_sections(argv[1])
    suffix = argv[2] if len(argv) == 3 else ""
    same = 0
    for name, code in sorted(before.items()):
        renamed = name.replace("EEv", suffix + "EEv", 1) if suffix else name
        identical = after.get(renamed) == code
        same += identical
        print(f"{'identical' if identical else 'CHANGED  '} {len(code):7d} bytes  {name[:100]}")
    print(f"same_cubin_sass: {same}/{len(before)} baseline kernels have identical machine code "
          f"in the new cubin ({len(after)} kernels there)")
    return 0 if before and same == len(before) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
