#!/usr/bin/env python3
"""The GEMM anchor a PyTorch user would pick: `a @ b.T` (bf16, cuBLASLt under torch) at the
shapes gemm_bench times, so its table can be read beside this one from the same machine.

  torch_matmul_anchor.py [--rounds 21]

C = A x B^T with A (M x K) and B (N x K) bf16, as gemm_bench. Per shape: a clock warm-up
(about 0.3 s of calls), then `rounds` rounds of a batch of back-to-back calls between two CUDA
events; the median and the slowest and fastest round in TFLOP/s, and the GPU's SM clock, power
and temperature (nvidia-smi) before and after the rounds.
"""
import argparse
import subprocess
import sys

import torch

SHAPES = [(2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192), (8192, 4096, 2048),
          (2048, 8192, 8192), (4096, 4096, 1024), (16384, 1024, 4096)]


def gpu_state():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,power.draw,temperature.gpu",
                              "--format=csv,noheader,nounits", "-i", str(torch.cuda.current_device())],
                             capture_output=True, text=True, check=True).stdout.strip()
        mhz, watts, celsius = (x.strip() for x in out.split(","))
        return f"{mhz} MHz {float(watts):.0f} W {celsius} C"
    except (OSError, subprocess.CalledProcessError, ValueError):
        return "-"


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=21)
    args = parser.parse_args(argv)
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print(f"TFLOP/s of a @ b.T: median [slowest-fastest round] of {args.rounds} rounds")
    print("| M x N x K | torch.matmul | GPU before | GPU after |")
    print("|---|---:|---|---|")
    for m, n, k in SHAPES:
        gen = torch.Generator(device="cuda").manual_seed(m * 31 + n * 7 + k)
        a = torch.rand((m, k), device="cuda", dtype=torch.bfloat16, generator=gen) * 2 - 1
        b = torch.rand((n, k), device="cuda", dtype=torch.bfloat16, generator=gen) * 2 - 1
        flops = 2.0 * m * n * k
        for _ in range(max(20, int(2e14 / flops))):
            a @ b.T
        torch.cuda.synchronize()
        before = gpu_state()
        batch = max(3, int(1.5e12 / flops))
        times = []
        for _ in range(args.rounds):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(batch):
                a @ b.T
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) / batch)
        after = gpu_state()
        times.sort()
        tflops = [flops / ms / 1e9 for ms in (times[len(times) // 2], times[-1], times[0])]
        print(f"| {m}x{n}x{k} | {tflops[0]:.1f} [{tflops[1]:.1f}-{tflops[2]:.1f}] | {before} | {after} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
