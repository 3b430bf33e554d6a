#!/usr/bin/env python3
"""Drives <clangd> as an editor does (LSP over stdio) and asserts on the diagnostics it publishes
for one file (tests/clangd): unlike `clangd --check`, this sees warnings too.

    run_clangd_lsp.py --clangd EXE [--cdb DIR | --lone | --project KIND --flags-from DIR] --file SRC --expect CODE:SEVERITY:LINE ...
                      [--reject CODE] [--no-errors | --errors-only-from PREFIX]
                      [--user-config YAML] [--doc-links]
                      [--tool-delay SECONDS --other-file] [--progress | --no-progress-capability]

--project before-build opens SRC in a fresh project whose compile_commands.json lists it with
--flags-from's flags but whose BMI folder is empty (configured, not yet built; with
before-build-modmap its imports come from a CMake-style .modmap not yet written, with
before-build-flags the flags are a compile_flags.txt); once the
"Module 'linpipe' not found" error arrives (it must say to build), the test writes the BMIs
there and, with no edit, the file must be re-checked. --project new-source lists only another
file: SRC is new, and must still get linpipe's findings.

--lone copies SRC into a fresh folder outside any project (no compile_commands.json or
compile_flags.txt there or above, no .clangd, no .clang-tidy) and opens the copy there, with a
user config folder of its own: what an editor does with a file saved anywhere.

--tool-delay makes linpipe-tidy's answer for the lone file that many seconds late (a wrapper
script as $LINPIPE_TIDY), as when its module interfaces are built for the first time. With
--other-file a second file is opened right after it and asked for its symbols: the answer must
come while the lone file still waits. --progress asserts that the wait is shown: work-done
progress (begin, then end) when the editor says it supports it, else a window/showMessage
(--no-progress-capability). --doc-links asserts each linpipe finding links to its check's page.

CODE is the diagnostic's code (a clang-tidy check name, or a clang warning flag such as
-Wconsumed), SEVERITY 1 (error) .. 4 (hint) or '*', LINE 1-based or '*'.
"""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse


def send(proc, msg):
    body = json.dumps(msg).encode()
    proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    proc.stdin.flush()


def reader(proc, inbox):
    while True:
        length = None
        while True:
            line = proc.stdout.readline()
            if not line:
                return
            line = line.strip()
            if not line:
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        if length is None:
            return
        inbox.append(json.loads(proc.stdout.read(length)))


def make_project(kind, source, flags_from):
    """A project folder (src/, build/compile_commands.json) whose BMI folder is still empty, as
    before its first build. before-build: the database has SOURCE's entry. new-source: it has
    only another file's (SOURCE is new, not yet in the build). Returns the folder, SOURCE's copy
    there, and a function that plays the build: it writes linpipe's BMIs where the entry reads them.
    """
    entry = json.loads((flags_from / "compile_commands.json").read_text())[0]
    argv = entry["arguments"]
    built = next(a.split("=", 1)[1] for a in argv if a.startswith("-fprebuilt-module-path="))
    folder = pathlib.Path(tempfile.mkdtemp(prefix="linpipe-project-"))
    (folder / "src").mkdir()
    (folder / "build").mkdir()
    bmis = folder / "build" / "bmis"
    copy = pathlib.Path(shutil.copy(source, folder / "src"))
    listed = folder / "src" / "other.cpp" if kind == "new-source" else copy
    if kind == "new-source":
        listed.write_text("import linpipe;\nint other() { return 0; }\n")
    # CMake's way: a response file the build writes, naming each interface (relative paths).
    modmap = folder / "build" / "src.cpp.o.modmap"
    imports = "@src.cpp.o.modmap" if kind == "before-build-modmap" else f"-fprebuilt-module-path={bmis}"
    argv = [imports if a.startswith("-fprebuilt-module-path=")
            else str(listed) if a == entry["file"] else a for a in argv]
    if kind == "before-build-flags":  # compile_flags.txt: the flags alone, for every file
        skip = {"-c", "-o", "/dev/null", str(listed)}
        (folder / "compile_flags.txt").write_text("\n".join(a for a in argv[1:] if a not in skip))
    else:
        (folder / "build" / "compile_commands.json").write_text(json.dumps(
            [{"directory": str(folder / "build"), "file": str(listed), "arguments": argv}]))

    def copy_bmis():
        bmis.mkdir()
        lines = []
        for pcm in pathlib.Path(built).glob("*.pcm"):
            shutil.copy(pcm, bmis)
            name = pcm.stem.replace("-", ":", 1)
            lines.append(f'-fmodule-file="{name}=bmis/{pcm.name}"')
        if kind == "before-build-modmap":
            modmap.write_text("\n".join(lines) + "\n")
    return folder, copy, copy_bmis


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clangd", required=True)
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--cdb")
    where.add_argument("--lone", action="store_true")
    where.add_argument("--project", choices=["before-build", "before-build-modmap",
                                             "before-build-flags", "new-source"])
    ap.add_argument("--build-after", type=float, default=0,
                    help="with --project before-build*: seconds between the error and the build")
    ap.add_argument("--flags-from", help="with --project: a compile_commands.json folder whose "
                    "first entry's flags (and -fprebuilt-module-path BMIs) the project uses")
    ap.add_argument("--file", required=True)
    ap.add_argument("--expect", action="append", default=[])
    ap.add_argument("--reject", action="append", default=[], help="a diagnostic code that must not appear")
    ap.add_argument("--no-errors", action="store_true", help="fail on any error (severity 1)")
    ap.add_argument("--errors-only-from", metavar="PREFIX",
                    help="fail on an error (severity 1) whose code does not start with PREFIX")
    ap.add_argument("--user-config", help="the user's clangd config.yaml")
    ap.add_argument("--tidy", help="with --tool-delay: the linpipe-tidy to delay")
    ap.add_argument("--doc-links", action="store_true")
    ap.add_argument("--tool-delay", type=float)
    ap.add_argument("--other-file", action="store_true")
    ap.add_argument("--progress", action="store_true")
    ap.add_argument("--no-progress-capability", action="store_true")
    ap.add_argument("--timeout", type=float, default=120)
    args = ap.parse_args()

    path = pathlib.Path(args.file).resolve()
    env = dict(os.environ)
    command = [args.clangd, "--log=error", "--background-index=0"]
    if args.lone:
        folder = pathlib.Path(tempfile.mkdtemp(prefix="linpipe-lone-"))
        if any((d / name).exists() for d in [folder, *folder.parents]
               for name in ("compile_commands.json", "compile_flags.txt", ".clangd", ".clang-tidy")):
            print(f"FAIL: {folder} is not outside every project")
            return 1
        path = pathlib.Path(shutil.copy(path, folder))
        if args.tool_delay:
            wrapper = folder / "slow-linpipe-tidy"
            tool = args.tidy or env.get("LINPIPE_TIDY") or shutil.which("linpipe-tidy")
            wrapper.write_text(f"#!/bin/sh\nsleep {args.tool_delay}\nexec '{tool}' \"$@\"\n")
            wrapper.chmod(0o755)
            env["LINPIPE_TIDY"] = str(wrapper)
    elif args.project:
        folder, path, copy_bmis = make_project(args.project, path, pathlib.Path(args.flags_from))
    else:
        command.append(f"--compile-commands-dir={args.cdb}")
    # A user config folder of the test's own (none of the machine's), holding --user-config.
    config_home = pathlib.Path(tempfile.mkdtemp(prefix="linpipe-config-"))
    env["XDG_CONFIG_HOME"] = str(config_home)
    if args.user_config:
        (config_home / "clangd").mkdir(parents=True)
        shutil.copy(args.user_config, config_home / "clangd" / "config.yaml")
    uri = path.as_uri()
    proc = subprocess.Popen(command, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=sys.stderr)
    inbox = []
    threading.Thread(target=reader, args=(proc, inbox), daemon=True).start()
    capabilities = {} if args.no_progress_capability else {"window": {"workDoneProgress": True}}
    send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"processId": None, "rootUri": path.parent.as_uri(),
                           "capabilities": capabilities}})
    send(proc, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
    start = time.time()
    send(proc, {"jsonrpc": "2.0", "method": "textDocument/didOpen",
                "params": {"textDocument": {"uri": uri, "languageId": "cpp", "version": 1,
                                            "text": path.read_text()}}})
    other = None
    if args.other_file:  # another lone file, one that does not import linpipe
        other_folder = pathlib.Path(tempfile.mkdtemp(prefix="linpipe-other-"))
        other = other_folder / "other.cpp"
        other.write_text("int answer() { return 42; }\n")
        send(proc, {"jsonrpc": "2.0", "method": "textDocument/didOpen",
                    "params": {"textDocument": {"uri": other.as_uri(), "languageId": "cpp",
                                                "version": 1, "text": other.read_text()}}})
        send(proc, {"jsonrpc": "2.0", "id": 3, "method": "textDocument/documentSymbol",
                    "params": {"textDocument": {"uri": other.as_uri()}}})
    diags = None
    when = {}  # first arrival time of: the lone file's diagnostics, the other file's symbols
    answered = set()
    seen = 0  # messages looked at so far
    missing = None  # the "Module 'linpipe' not found" diagnostic, once published
    deadline = time.time() + args.timeout
    while diags is None and time.time() < deadline and proc.poll() is None:
        for msg in inbox[seen:]:
            seen += 1
            if "id" in msg and "method" in msg and msg["id"] not in answered:  # a request to the editor
                answered.add(msg["id"])
                send(proc, {"jsonrpc": "2.0", "id": msg["id"], "result": None})
            if msg.get("id") == 3 and "result" in msg:
                when.setdefault("symbols", time.time() - start)
            if msg.get("method") != "textDocument/publishDiagnostics" or msg["params"]["uri"] != uri:
                continue
            published = msg["params"]["diagnostics"]
            not_found = [d for d in published if "module 'linpipe' not found" in d["message"].lower()]
            if args.project and not_found:
                if missing is None:
                    missing = not_found[0]
                    when["not found"] = time.time() - start
                continue
            diags = published
            when.setdefault("diagnostics", time.time() - start)
        if (missing is not None and args.project.startswith("before-build")
                and "built" not in when and time.time() >= start + when["not found"] + args.build_after):
            copy_bmis()  # the project's build writes linpipe's module interfaces
            when["built"] = time.time() - start
        time.sleep(0.1)
    time.sleep(0.3)  # a progress end sent right after the file's command
    send(proc, {"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    send(proc, {"jsonrpc": "2.0", "method": "exit"})
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
    time.sleep(0.2)  # the reader thread takes the last messages
    shutdown_answered = any(m.get("id") == 2 and "result" in m for m in inbox)
    if diags is None:
        for msg in inbox:
            if msg.get("method") == "textDocument/publishDiagnostics" and msg["params"]["uri"] == uri:
                print("published:", [d["message"].splitlines()[0] for d in msg["params"]["diagnostics"]])
        print("FAIL: no diagnostics published for", uri, "(but those above)" if missing else "",
              f"({len(inbox)} messages from the server)")
        return 1
    for d in diags:
        print(f"line {d['range']['start']['line'] + 1}: severity {d.get('severity')} "
              f"[{d.get('source', '')} {d.get('code', '')}] {d['message'].splitlines()[0]}")
    failures = []
    if not shutdown_answered:  # everything clangd wrote reaches the editor before it exits
        failures.append("the shutdown request was not answered before the server exited")
    if args.project:
        if missing is None:
            failures.append("no \"Module 'linpipe' not found\" before the build")
        else:
            print("before the build:", missing["message"])
            if "cmake --build" not in missing["message"]:
                failures.append("the module-not-found error does not say to build the project")
    print("arrivals (s after the lone file's didOpen):",
          ", ".join(f"{k} {v:.1f}" for k, v in when.items()))
    if args.other_file:
        if "symbols" not in when:
            failures.append("the other file's documentSymbol request was never answered")
        elif when["symbols"] >= min(when.get("diagnostics", args.timeout),
                                    args.tool_delay or args.timeout):
            failures.append("the other file was answered only after the lone file's command came")
    if args.progress:
        shown = [m for m in inbox if m.get("method") in ("$/progress", "window/showMessage",
                                                         "window/workDoneProgress/create")]
        for m in shown:
            print("shown:", json.dumps(m["params"]))
        if args.no_progress_capability:
            if not any(m["method"] == "window/showMessage" and "linpipe" in m["params"]["message"]
                       for m in shown):
                failures.append("no window/showMessage about the wait")
        else:
            kinds = [m["params"]["value"]["kind"] for m in shown if m["method"] == "$/progress"
                     and str(m["params"]["token"]).startswith("linpipe-")]
            created = any(m["method"] == "window/workDoneProgress/create" for m in shown)
            if not created or kinds != ["begin", "end"]:
                failures.append(f"expected a created linpipe progress token, then begin and end; got {kinds}")
    if args.doc_links:
        for d in diags:
            code = str(d.get("code", ""))
            if not code.startswith("linpipe-"):
                continue
            href = d.get("codeDescription", {}).get("href", "")
            page = pathlib.Path(urllib.parse.unquote(urllib.parse.urlparse(href).path))
            if not href.startswith("file://") or page.name != code + ".md" or not page.is_file():
                failures.append(f"{code}: link {href!r} is not the check's page")
    for spec in args.expect:
        code, severity, line = spec.rsplit(":", 2)
        if not any(d.get("code") == code
                   and (severity == "*" or d.get("severity") == int(severity))
                   and (line == "*" or d["range"]["start"]["line"] + 1 == int(line))
                   for d in diags):
            failures.append(f"expected a diagnostic {spec}")
    for code in args.reject:
        if any(d.get("code") == code for d in diags):
            failures.append(f"unexpected diagnostic {code}")
    if args.no_errors and any(d.get("severity") == 1 for d in diags):
        failures.append("unexpected errors (severity 1)")
    if args.errors_only_from and any(d.get("severity") == 1 and
                                     not str(d.get("code", "")).startswith(args.errors_only_from)
                                     for d in diags):
        failures.append(f"an error not from {args.errors_only_from}*")
    # One diagnostic per mistake: no two at the same line with the same code.
    places = [(d.get("code"), d["range"]["start"]["line"]) for d in diags if d.get("code")]
    if len(places) != len(set(places)):
        failures.append("a mistake reported twice (same code, same line)")
    if args.lone:
        shutil.rmtree(path.parent, ignore_errors=True)
    if other:
        shutil.rmtree(other.parent, ignore_errors=True)
    if args.project:
        shutil.rmtree(folder, ignore_errors=True)
    shutil.rmtree(config_home, ignore_errors=True)
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print("PASS")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
