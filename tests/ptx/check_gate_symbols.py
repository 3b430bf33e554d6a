#!/usr/bin/env python3
"""Each PTX wrapper's wrong-target gate names the instruction it guards and the SM it needs.

README promises that a wrapper used on a target below its SM fails to link on an undefined
function named after the instruction and the minimum SM. For every gate call in the given
modules/ptx_*.cppm files this checks that:
  - the symbol is linpipe_ptx_<words>_is_not_supported_before_SM_<N> or ..._needs_SM_<N>a;
  - the `#if` around the instruction asks for that SM (__CUDA_ARCH__ >= N0, or
    __CUDA_ARCH_FEAT_SM<N>_ALL for the `a` targets);
  - the wrapper's comment (its first lines, up to "PTX ISA", are the instructions) states the
    same SM;
  - <words> occur, in order, among the words of one of those instruction lines;
  - every declared gate is called and every called gate is declared.
Usage: check_gate_symbols.py modules/ptx_*.cppm
"""
import re
import sys

GATE = re.compile(r"\b(linpipe_ptx_(\w+?)_(?:is_not_supported_before_SM_(\d+)|needs_SM_(\d+)a))\(\);")
DECL = re.compile(r"^LINPIPE_DEVICE void (linpipe_ptx_\w+)\(\);")


def words(text):
    return [w for w in re.split(r"[^A-Za-z0-9]+", text.replace("_", " ")) if w]


def is_subsequence(needle, haystack):
    it = iter(haystack)
    return all(any(w == h for h in it) for w in needle)


def check(path):
    errors = []
    lines = open(path).read().split("\n")
    declared, called = set(), set()
    for number, line in enumerate(lines, 1):
        if m := DECL.match(line):
            declared.add(m.group(1))
            continue
        m = GATE.search(line)
        if not m:
            continue
        symbol, name, sm_before, sm_a = m.groups()
        called.add(symbol)
        where = f"{path}:{number}: {symbol}"
        guard = next((lines[i] for i in range(number - 2, -1, -1) if lines[i].startswith("#if")), "")
        if sm_before:
            if f"__CUDA_ARCH__ >= {sm_before}0" not in guard:
                errors.append(f"{where}: says SM_{sm_before} but the guard is '{guard}'")
            sm = f"SM_{sm_before}"
        else:
            if f"__CUDA_ARCH_FEAT_SM{sm_a}_ALL" not in guard:
                errors.append(f"{where}: says SM_{sm_a}a but the guard is '{guard}'")
            sm = f"SM_{sm_a}a"
        signature = next(i for i in range(number - 1, -1, -1) if lines[i].startswith("LINPIPE_DEVICE"))
        top = signature
        while top > 0 and (lines[top - 1].startswith(("template", "[[", "  requires")) or
                           lines[top - 1].startswith("//")):
            top -= 1
        comment = [l[3:] for l in lines[top:signature] if l.startswith("// ")]
        if not comment:
            errors.append(f"{where}: the wrapper has no comment naming its instruction")
            continue
        # The instruction lines: those before "PTX ISA ..." (a wrapper may emit two).
        instructions = comment[:next((i for i, l in enumerate(comment) if "PTX ISA" in l), 1)] or comment[:1]
        stated = re.findall(r"\bSM_\d+a?\b", " ".join(comment))
        if stated[:1] != [sm]:
            errors.append(f"{where}: the comment states {stated[:1]} but the gate says {sm}")
        if not any(is_subsequence(words(name), words(i)) for i in instructions):
            errors.append(f"{where}: '{name}' is not named after the instruction '{instructions[-1]}'")
    for symbol in sorted(declared - called):
        errors.append(f"{path}: {symbol} is declared but no wrapper calls it")
    for symbol in sorted(called - declared):
        errors.append(f"{path}: {symbol} is called but not declared")
    return errors, len(called)


def main():
    errors, gates = [], 0
    for path in sys.argv[1:]:
        found, count = check(path)
        errors += found
        gates += count
    for error in errors:
        print(error)
    if gates == 0:
        print("no gate symbols found: wrong files?")
        return 1
    print(f"{gates} gate symbols checked, {len(errors)} wrong")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
