#!/usr/bin/env python3
"""linpipe's rmsnorm_bf16 against a tuned plain kernel and torch.nn.functional.rms_norm, on the
same tensors in the same process, with cudaMemcpy's device-to-device bandwidth (torch's
`y.copy_(x)`, the same bytes read and written) as the ceiling.

  rmsnorm_bench.py LIB [--gib 1] [--rounds 15] [--widths 1024,2048,4096,8192]

LIB: liblinpipe_rmsnorm.so (build/release/kernels/). Each width gets rows = GiB / (2 n) + 3
(a ragged last tile). Every candidate is checked against torch's result first (max relative
difference, in bf16 ulps), then all candidates are timed in interleaved rounds (CUDA events
around 5 calls, median over rounds). Bandwidth counts bytes moved: x read, y written, w read.
The plain kernel's and linpipe's shapes are each tried, and the best of each is reported with
its name, so both sides are tuned on this GPU in this run.
"""
import argparse
import ctypes
import statistics
import sys

import torch

EPS = 1e-6


def load(path):
    lib = ctypes.CDLL(path)
    lib.linpipe_rmsnorm_bf16.argtypes = [ctypes.c_void_p] * 3 + [
        ctypes.c_ulonglong, ctypes.c_int, ctypes.c_float, ctypes.c_int, ctypes.c_int, ctypes.c_int,
        ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
    lib.linpipe_rmsnorm_bf16_plain.argtypes = [ctypes.c_void_p] * 3 + [
        ctypes.c_ulonglong, ctypes.c_int, ctypes.c_float, ctypes.c_int, ctypes.c_void_p]
    return lib


def candidates(lib, x, w, y, rows, n):
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)

    def call(status):
        if status != 0:
            raise RuntimeError(f"cudaError {status}")

    def linpipe(shape, store, persistent, evict_first=0, copy_lanes=1):
        return lambda: call(lib.linpipe_rmsnorm_bf16(x.data_ptr(), w.data_ptr(), y.data_ptr(), rows, n,
                                                     EPS, shape, store, persistent, evict_first,
                                                     copy_lanes, stream))

    def plain(vectors):
        return lambda: call(lib.linpipe_rmsnorm_bf16_plain(x.data_ptr(), w.data_ptr(), y.data_ptr(), rows,
                                                           n, EPS, vectors, stream))

    return {
        "linpipe default (rmsnorm_config_for)": ("linpipe", linpipe(-1, 0, 0)),
        "linpipe wide bulk persistent": ("linpipe", linpipe(0, 0, 1)),
        "linpipe shallow bulk persistent": ("linpipe", linpipe(2, 0, 1)),
        "linpipe wide threads persistent": ("linpipe", linpipe(0, 1, 1)),
        "linpipe wide threads persistent evict-first": ("linpipe", linpipe(0, 1, 1, 1)),
        "linpipe wide threads one-shot": ("linpipe", linpipe(0, 1, 0)),
        "linpipe narrow threads persistent": ("linpipe", linpipe(1, 1, 1)),
        "linpipe shallow threads persistent": ("linpipe", linpipe(2, 1, 1)),
        "linpipe shallow threads persistent evict-first": ("linpipe", linpipe(2, 1, 1, 1)),
        "linpipe shallow threads one-shot": ("linpipe", linpipe(2, 1, 0)),
        "linpipe wide threads persistent 32-lane copies": ("linpipe", linpipe(0, 1, 1, 0, 32)),
        "linpipe shallow threads persistent 32-lane copies": ("linpipe", linpipe(2, 1, 1, 0, 32)),
        "linpipe held persistent": ("linpipe", linpipe(3, 1, 1)),
        "linpipe held one-shot": ("linpipe", linpipe(3, 1, 0)),
        "linpipe held persistent 32-lane copies": ("linpipe", linpipe(3, 1, 1, 0, 32)),
        "linpipe held-deep persistent": ("linpipe", linpipe(4, 1, 1)),
        "linpipe held-deep one-shot": ("linpipe", linpipe(4, 1, 0)),
        "linpipe single threads one-shot": ("linpipe", linpipe(5, 1, 0)),
        "linpipe single-row threads one-shot": ("linpipe", linpipe(6, 1, 0)),
        "linpipe pair threads one-shot": ("linpipe", linpipe(7, 1, 0)),
        "linpipe row threads one-shot": ("linpipe", linpipe(10, 1, 0)),
        "linpipe held-single one-shot": ("linpipe", linpipe(8, 1, 0)),
        "linpipe held-single-half one-shot": ("linpipe", linpipe(9, 1, 0)),
        "linpipe wide threads one-shot 32-lane copies": ("linpipe", linpipe(0, 1, 0, 0, 32)),
        "linpipe shallow threads one-shot 32-lane copies": ("linpipe", linpipe(2, 1, 0, 0, 32)),
        "linpipe held-deep one-shot 32-lane copies": ("linpipe", linpipe(4, 1, 0, 0, 32)),
        "plain 1 vector/thread": ("plain", plain(1)),
        "plain 2 vectors/thread": ("plain", plain(2)),
        "plain 4 vectors/thread": ("plain", plain(4)),
        "torch rms_norm": ("torch", lambda: torch.nn.functional.rms_norm(x, (n,), w, EPS)),
        "cudaMemcpy (y.copy_(x))": ("memcpy", lambda: y.copy_(x)),
    }


def time_ms(fn, calls=5):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(calls):
        fn()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) / calls


def ulps(got, ref):
    """Largest |got - ref| in units of ref's bf16 ulp (2^-7 relative)."""
    ref32, got32 = ref.float(), got.float()
    scale = torch.clamp(ref32.abs(), min=1e-30) * 2.0 ** -7
    return ((got32 - ref32).abs() / scale).max().item()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lib")
    parser.add_argument("--gib", type=float, default=1.0)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--widths", default="1024,2048,4096,8192")
    parser.add_argument("--profile", metavar="CANDIDATE",
                        help="only run CANDIDATE 3 times at each width, untimed (for ncu)")
    args = parser.parse_args()
    lib = load(args.lib)
    props = torch.cuda.get_device_properties(0)
    print(f"# {props.name}, torch {torch.__version__}, {args.gib} GiB of x per width, "
          f"median of {args.rounds} interleaved rounds of 5 calls")
    summary = []
    for n in (int(v) for v in args.widths.split(",")):
        rows = int(args.gib * 2**30) // (2 * n) + 3
        torch.manual_seed(n)
        x = (torch.randn(rows, n, device="cuda") * 2).to(torch.bfloat16)
        w = torch.randn(n, device="cuda").to(torch.bfloat16)
        y = torch.empty_like(x)
        reference = torch.nn.functional.rms_norm(x.float(), (n,), w.float(), EPS).to(torch.bfloat16)
        runs = candidates(lib, x, w, y, rows, n)
        if args.profile:
            for _ in range(3):
                runs[args.profile][1]()
            torch.cuda.synchronize()
            continue
        for name, (kind, fn) in runs.items():
            if kind in ("linpipe", "plain"):
                y.fill_(float("nan"))
                fn()
                torch.cuda.synchronize()
                err = ulps(y, reference)
                if not err <= 2.0:
                    raise SystemExit(f"{name} at n={n}: {err:.2f} ulps from torch's result")
        times = {name: [] for name in runs}
        for fn in (fn for _, fn in runs.values()):  # warm up
            fn()
        torch.cuda.synchronize()
        for _ in range(args.rounds):
            for name, (_, fn) in runs.items():
                times[name].append(time_ms(fn))
        bytes_moved = 2 * rows * n * 2 + 2 * n
        gbps = {name: bytes_moved / (statistics.median(t) * 1e-3) / 1e9 for name, t in times.items()}
        gbps["cudaMemcpy (y.copy_(x))"] = 2 * rows * n * 2 / (statistics.median(times["cudaMemcpy (y.copy_(x))"]) * 1e-3) / 1e9
        print(f"\n## n = {n}, rows = {rows} ({bytes_moved / 2**30:.2f} GiB moved per call)")
        print("| candidate | median ms | GB/s |")
        print("|---|---|---|")
        for name in runs:
            print(f"| {name} | {statistics.median(times[name]):.4f} | {gbps[name]:.0f} |")

        def best(kind):
            name = max((k for k, (kd, _) in runs.items() if kd == kind), key=lambda k: gbps[k])
            return name, gbps[name]
        lp, plain, torch_row, memcpy = best("linpipe"), best("plain"), best("torch"), best("memcpy")
        summary.append((n, rows, lp, plain, torch_row[1], memcpy[1]))

    if args.profile:
        return 0
    print("\n## Summary (GB/s; ratios of linpipe's best)")
    print("| n | rows | linpipe (best shape) | plain (best) | torch rms_norm | cudaMemcpy | / plain | / torch | / memcpy |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n, rows, lp, plain, torch_gbps, memcpy in summary:
        print(f"| {n} | {rows} | {lp[1]:.0f} ({lp[0][8:]}) | {plain[1]:.0f} ({plain[0][6:]}) | {torch_gbps:.0f} "
              f"| {memcpy:.0f} | {lp[1] / plain[1]:.3f} | {lp[1] / torch_gbps:.3f} | {lp[1] / memcpy:.3f} |")


if __name__ == "__main__":
    sys.exit(main())
