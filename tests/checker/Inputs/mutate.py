#!/usr/bin/env python3
"""Robustness driver for the linpipe checks (see robustness.test).

Runs clang-tidy with the plugin over broken variants of robust_base.cpp and of
stage_types.h: truncated files, unbalanced braces, undeclared identifiers, missing
includes and imports, type errors. Each variant must fail to compile, must not crash or
hang clang-tidy, and must not get any linpipe diagnostic (the checks bail out on a
translation unit with errors). Prints one summary line per property.
"""
import os
import re
import subprocess
import sys

clang_tidy, plugin, inputs, workdir = sys.argv[1:5]
base = open(os.path.join(inputs, "robust_base.cpp")).read()
header = open(os.path.join(inputs, "stage_types.h")).read()
os.makedirs(workdir, exist_ok=True)


def mutants():
    """(name, source, header or None)"""
    first = base.index("void leakOnReturn")
    for i in range(8):  # truncated source, mid-token and mid-function
        cut = first + (len(base) - first) * i // 8 + 7
        yield "truncate-%d" % cut, base[:cut], None
    for i in (1, 3):  # truncated header
        yield "truncate-header-%d" % i, base, header[: len(header) * i // 4]
    closes = [m.start() for m in re.finditer(r"\}", base)]
    for k in (0, len(closes) // 2, len(closes) - 1):  # a missing '}'
        yield "drop-close-%d" % k, base[: closes[k]] + base[closes[k] + 1 :], None
    opens = [m.start() for m in re.finditer(r"\{", base)]
    for k in (1, len(opens) - 2):  # a missing '{'
        yield "drop-open-%d" % k, base[: opens[k]] + base[opens[k] + 1 :], None
    yield "extra-close", base.replace("stage.release();\n}", "stage.release();\n}}", 1), None
    for old, new in (("release()", "relase()"), ("acquire_consumer", "acquire_consumr"),
                     ("auto stage", "auto stage = undeclared_thing;\n  auto stage2"),
                     ("Pipeline &pipe, bool c", "Pipline &pipe, bool c")):
        yield "rename-" + re.sub(r"\W+", "", old), base.replace(old, new), None
    yield "missing-import", "import linpipe;\n" + base, None
    yield "missing-include", base.replace('"stage_types.h"', '"no_such_header.h"'), None
    yield "type-error", base.replace("work(0)", "work(pipe)") + "\nint bad = Pipeline();\n", None
    yield "bad-template", base.replace("template void templated<3>();",
                                       "template void templated<3>();\ntemplate void templated<nullptr>();"), None
    yield "stray-return", base.replace("if (c)\n    return;", "if (c)\n    return 1;"), None


def run(name, source, hdr):
    d = os.path.join(workdir, name)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "input.cpp")
    with open(path, "w") as f:
        f.write(source)
    include = [ "-I", d] if hdr is not None else []
    if hdr is not None:
        with open(os.path.join(d, "stage_types.h"), "w") as f:
            f.write(hdr)
    cmd = [clang_tidy, "--quiet", "-load=" + plugin, "-checks=-*,linpipe-*", path, "--",
           "-std=c++20"] + include + ["-I", inputs]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    except subprocess.TimeoutExpired:
        return "hang", ""
    out = p.stdout.decode(errors="replace")
    crashed = p.returncode < 0 or p.returncode > 1 or re.search(
        r"Stack dump|PLEASE submit|Segmentation fault|Assertion .* failed", out)
    return ("crash" if crashed else "ok"), out


counts = {"mutants": 0, "crashes": 0, "hangs": 0, "compiled": 0, "linpipe": 0}
status, out = run("seed", base, None)
seed_findings = len(re.findall(r"\[linpipe-", out))
print("seed: %s, linpipe diagnostics: %d" % (status, seed_findings))
for name, source, hdr in mutants():
    counts["mutants"] += 1
    status, out = run(name, source, hdr)
    if status == "crash":
        counts["crashes"] += 1
        print("CRASH in %s:\n%s" % (name, out[-2000:]))
    elif status == "hang":
        counts["hangs"] += 1
        print("HANG in %s" % name)
    if "error:" not in out:
        counts["compiled"] += 1
        print("NOT BROKEN: %s compiled without errors" % name)
    if "[linpipe-" in out:
        counts["linpipe"] += 1
        print("LINPIPE DIAGNOSTIC on broken input %s:\n%s" % (name, out[-2000:]))
print("mutants: %d" % counts["mutants"])
print("crashes: %d" % counts["crashes"])
print("hangs: %d" % counts["hangs"])
print("mutants that compiled: %d" % counts["compiled"])
print("mutants with linpipe diagnostics: %d" % counts["linpipe"])
