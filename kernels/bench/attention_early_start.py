#!/usr/bin/env python3
"""What early start (AttentionConfig::early_start, programmatic dependent launch) buys
attention_bf16's default configuration back to back, against the same launches without it and
torch's cuDNN backend on the same tensors.

  attention_early_start.py LIB [--seqs 512,1024,...] [--head-dims 64,128] [--masks full,causal]
                           [--rounds 7]

LIB: liblinpipe_attention.so with linpipe_attention_launch_bf16. Cases as attention_bench.py
makes them (16k tokens of model width 2048). Each round times 20 back-to-back launches of each
contender between CUDA events, in turns (default, early start, cuDNN), after 5 warm-ups; the
table gives each one's median over the rounds in microseconds a launch, early / default (below
1: early start is faster) and cuDNN / early (above 1: linpipe early start is faster). The early
result is checked bit for bit against the default's first. Neither side stores the log-sum-exp
(torch's inference path skips it; see attention_bench.py).
"""
import argparse
import ctypes
import math
import os
import sys

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attention_bench as bench  # noqa: E402  (the rule's bits, the case sizes)


def load_launch(lib_path):
    fn = ctypes.CDLL(lib_path).linpipe_attention_launch_bf16
    fn.argtypes = ([ctypes.c_void_p] * 5 + [ctypes.c_int] * 6 + [ctypes.c_float] + [ctypes.c_int] * 8
                   + [ctypes.c_void_p])
    fn.restype = ctypes.c_int
    return fn


def main(argv):
    parser = argparse.ArgumentParser()
    bench.add_case_arguments(parser)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    launch = load_launch(args.lib)
    rule = bench.load_rule(args.lib)
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    rows = []
    for head_dim in [int(x) for x in args.head_dims.split(",")]:
        for seq in [int(x) for x in args.seqs.split(",")]:
            for causal in [mask == "causal" for mask in args.masks.split(",")]:
                heads, batch = 2048 // head_dim, max(1, 16384 // seq)
                gen = torch.Generator(device="cuda").manual_seed(seq * 131 + head_dim)
                q, k, v = (torch.rand((batch, heads, seq, head_dim), device="cuda", dtype=torch.bfloat16,
                                      generator=gen) * 2 - 1 for _ in range(3))
                out = torch.empty_like(q)
                scale = 1.0 / math.sqrt(head_dim)
                schedule = rule(heads, heads, seq, head_dim, int(causal))
                overlap, pingpong, persistent, dynamic, wide, lazy = schedule

                def ours(early):
                    status = launch(q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr(), None,
                                    batch, heads, heads, seq, head_dim, int(causal), scale, overlap, pingpong,
                                    persistent, dynamic, 0, 3 if wide else 2, lazy, int(early),
                                    torch.cuda.current_stream().cuda_stream)
                    if status != 0:
                        raise RuntimeError(f"linpipe_attention_launch_bf16 returned cudaError {status}")

                def cudnn():
                    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                        torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)

                ours(False)
                expected = out.clone()
                out.fill_(float("nan"))
                for _ in range(3):
                    ours(True)
                torch.cuda.synchronize()
                same = bool(torch.equal(out, expected))
                contenders = [lambda: ours(False), lambda: ours(True), cudnn]
                for run in contenders:
                    for _ in range(5):
                        run()
                times = [[] for _ in contenders]
                for _ in range(args.rounds):
                    for i, run in enumerate(contenders):
                        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                        start.record()
                        for _ in range(20):
                            run()
                        end.record()
                        end.synchronize()
                        times[i].append(start.elapsed_time(end) / 20 * 1e3)
                default_us, early_us, cudnn_us = (sorted(t)[len(t) // 2] for t in times)
                name = bench.SCHEDULE_NAMES[bench.SCHEDULES.index(schedule)]
                rows.append((head_dim, seq, "causal" if causal else "full", name, default_us, early_us, cudnn_us,
                             same))
                print(f"case d{head_dim} s{seq} {'causal' if causal else 'full'}: default {default_us:.1f} us, "
                      f"early {early_us:.1f} us, cudnn {cudnn_us:.1f} us, early result identical: {same}",
                      flush=True)
    print("\n| head dim | seq | mask | default configuration | default us | early start us | early / default "
          "| cuDNN us | cuDNN / early | identical |")
    print("|---:|---:|---|---|---:|---:|---:|---:|---:|---|")
    for head_dim, seq, mask, name, default_us, early_us, cudnn_us, same in rows:
        print(f"| {head_dim} | {seq} | {mask} | {name} | {default_us:.1f} | {early_us:.1f} | "
              f"{early_us / default_us:.3f} | {cudnn_us:.1f} | {cudnn_us / early_us:.3f} | {'yes' if same else 'NO'} |")
    return 0 if all(row[-1] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
