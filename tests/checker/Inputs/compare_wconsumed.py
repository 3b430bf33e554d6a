#!/usr/bin/env python3
"""Regenerates the table in ../wconsumed_comparison.md.

For every test function in the lit tests, runs both clang's typestate analysis
(clang++-22 -fsyntax-only -Wconsumed) and the linpipe checks, and reports per function
which of them says something. Usage:
  python3 Inputs/compare_wconsumed.py <clang++> <clang-tidy> <plugin> > table.md
"""
import os
import re
import subprocess
import sys

clangxx, clang_tidy, plugin = sys.argv[1:4]
here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
inputs = os.path.join(here, "Inputs")
files = ["leak-on-path.cpp", "double-release.cpp", "use-after-release.cpp",
         "use-after-move.cpp", "discarded-acquire.cpp", "by-value-param.cpp", "escapes.cpp",
         "loops.cpp", "scoped-forms.cpp", "protocol-slips.cpp", "transfers.cpp", "noreturn.cpp",
         "templates-lambdas.cpp"]
flags = ["-std=c++20", "-I", inputs]
# A function definition starts in column 0 (or is a member one indent deep).
func_re = re.compile(r"^(?:  )?(?:template <[^>]*>\s*)?[\w:<>,&\*\s]*?\b(~?\w+)\s*\([^;]*$")


def functions(path):
    spans, current = [], None
    for no, line in enumerate(open(path), 1):
        m = func_re.match(line)
        if m and not line.lstrip().startswith(("//", "return", "if", "for", "while", "switch")) \
                and m.group(1) not in ("if", "for", "while", "switch", "return"):
            current = m.group(1)
            spans.append((no, current))
    return spans


def owner(spans, line):
    name = None
    for start, n in spans:
        if start <= line:
            name = n
    return name


def lines_of(out, path, pattern):
    found = []
    for m in re.finditer(re.escape(path) + r":(\d+):\d+: (?:warning|error): (.*)", out):
        if re.search(pattern, m.group(2)):
            found.append(int(m.group(1)))
    return found


print("| file | function | linear-stage | stage-protocol | -Wconsumed |")
print("|---|---|---|---|---|")
for f in files:
    path = os.path.join(here, f)
    spans = functions(path)
    cons = subprocess.run([clangxx, "-fsyntax-only", "-Wconsumed", "-Wno-unused-result",
                           "-Wno-unused-value", path] + flags,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT).stdout.decode()
    tidy = subprocess.run([clang_tidy, "--quiet", "-load=" + plugin, "-checks=-*,linpipe-*", path,
                           "--"] + flags, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT).stdout.decode()
    by_fn = {}
    for line in lines_of(cons, path, r"\[-Wconsumed\]"):
        by_fn.setdefault(owner(spans, line), [0, 0, 0])[2] += 1
    for m in re.finditer(re.escape(path) + r":(\d+):\d+: warning: .*\[(linpipe-[\w-]+)\]", tidy):
        column = 0 if m.group(2) == "linpipe-linear-stage" else 1
        by_fn.setdefault(owner(spans, int(m.group(1))), [0, 0, 0])[column] += 1
    seen = set()
    for _, name in spans:
        if name in ("operator", None) or name in seen:
            continue
        seen.add(name)
        counts = by_fn.get(name, [0, 0, 0])
        print("| %s | %s | %s |" % (f, name, " | ".join("yes (%d)" % n if n else "-"
                                                        for n in counts)))
