#!/usr/bin/env python3
"""Runs `<clangd> --check=FILE` and asserts on its log (tests/clangd).

    run_clangd_check.py --clangd EXE (--cdb DIR | --lone) --file SRC [--expect RE]...
                        [--reject RE]... [--exit-nonzero | --exit-zero]

--lone checks a copy of SRC in a fresh folder outside any project, with no compile database
given: the file as a user saves it anywhere.

`clangd --check` logs the diagnostics it counts as errors as lines
    E[time] [<diagnostic name or check>] Line <n>: <message>
and exits non-zero when there were any. Each --expect regex must match some line of the
output, no --reject regex may match any line.
"""
import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clangd", required=True)
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--cdb", help="directory holding compile_commands.json")
    where.add_argument("--lone", action="store_true")
    ap.add_argument("--file", required=True)
    ap.add_argument("--expect", action="append", default=[])
    ap.add_argument("--reject", action="append", default=[])
    status = ap.add_mutually_exclusive_group()
    status.add_argument("--exit-nonzero", action="store_true")
    status.add_argument("--exit-zero", action="store_true")
    args = ap.parse_args()

    # --check-locations=0: skip the per-token feature tests (tweaks, hover...): slow, and a tweak
    # that refuses to apply is logged as an error too.
    file = args.file
    env = dict(os.environ)
    folder = None
    if args.lone:
        folder = pathlib.Path(tempfile.mkdtemp(prefix="linpipe-lone-"))
        file = shutil.copy(file, folder)
        env["XDG_CONFIG_HOME"] = str(folder / "config")  # no user config of the machine's
    cmd = [args.clangd] + ([] if args.lone else [f"--compile-commands-dir={args.cdb}"]) + \
          ["--check-locations=0", f"--check={file}"]
    print("$", " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=300, env=env)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)
    out = proc.stdout
    lines = out.splitlines()
    failures = []
    if args.cdb and not any("Loaded compilation database from" in l for l in lines):
        failures.append("clangd did not load the compilation database from " + args.cdb)
    for pattern in args.expect:
        if not any(re.search(pattern, l) for l in lines):
            failures.append(f"expected a line matching: {pattern}")
    for pattern in args.reject:
        hits = [l for l in lines if re.search(pattern, l)]
        if hits:
            failures.append(f"unexpected line matching {pattern}: {hits[0]}")
    if args.exit_nonzero and proc.returncode == 0:
        failures.append("clangd --check exited 0, expected errors")
    if args.exit_zero and proc.returncode != 0:
        failures.append(f"clangd --check exited {proc.returncode}, expected 0")
    # The diagnostics and the summary; the full log only when something failed.
    for l in lines:
        if l.startswith("E[") or "All checks completed" in l or "Compile command from CDB" in l:
            print(l)
    if failures:
        print("---- full clangd output ----")
        print(out)
        for f in failures:
            print("FAIL:", f)
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
