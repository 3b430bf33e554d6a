#!/usr/bin/env python3
"""linpipe's attention_bf16 against torch's scaled_dot_product_attention, same tensors, same GPU.

  attention_bench.py LIB [--quick] [--once] [--seqs 512,1024,...] [--head-dims 64,128] [--masks full,causal]
                    [--kv-groups 1,8] [--gqa-head-dims 128] [--before LIB2]
                    [--once-schedules default,0] [--lse]

LIB: liblinpipe_attention.so (built here by the release preset: build/release/kernels/).
For each sequence length, head dim and mask, batch x heads is chosen so every case holds 16k
tokens of model width 2048 (heads = 2048 / head_dim, batch = 16384 / seq; FlashAttention's
convention). Each of torch's backends (flash, cuDNN, memory-efficient) that accepts the case is
timed, and the fastest is the anchor; linpipe runs in ten configurations (the consumer
schedule in order or with the softmax overlapped with the tensor cores; with or without
ping-pong, the two consumer warpgroups taking turns on the tensor cores; a CTA per query block
or a persistent grid of a CTA per SM; and the persistent grid with its CTAs claiming blocks
from a counter, dynamic, without ping-pong), at head dim 64 eight more with three consumer
warpgroups (192-row query blocks; all but the overlapped ping-pong), at head dim 128 the ten
again with lazy rescaling (AttentionConfig::lazy_rescale), and its fastest is
compared, as is the configuration attention_config_for picks (the default). CUDA events around 20 launches after
5 warm-ups, median of 5 rounds. FLOPs: 4 x batch x heads x seq^2 x head_dim, half
that when causal. Before timing, linpipe's output is checked against torch's (max |difference|).
The table comes last. --before LIB2: an A/B of two builds (LIB2 the one before a change), each
configuration of both timed in turn on the same tensors, checked against torch too; a second
table gives each configuration's speed after / before (above 1: faster now): every configuration
where LIB2 has the grouped entry point (the lazy ones where it has linpipe_attention_options_bf16),
else the eight an older build has. --once: each linpipe configuration and each torch backend runs once on
each case, untimed, with no table (for a profiler such as ncu); --once-schedules LIST: only these
linpipe configurations then, "default" (attention_config_for's) or an index into SCHEDULES
(0: in order, a CTA per query block), e.g. "default,0"; with --before, each configuration
LIB2 offers runs on LIB2 right after LIB (for ncu: the launches alternate after, before).
--kv-groups: query heads per K/V head (grouped-query attention; 1: every query head its own),
each group above 1 at the head dims of --gqa-head-dims only. A grouped case has heads / group
K/V heads, linpipe packs the heads of a group into its CTAs by attention_packed_heads' rule
(its fastest configuration is timed once more with packing off, in a table of its own), and
torch runs scaled_dot_product_attention(..., enable_gqa=True). --before compares grouped cases
too where LIB2 has the grouped entry point (a build from before grouped heads has none: its
grouped cases are timed on LIB alone).
The log-sum-exp: by default neither side stores it. torch's inputs do not require grad, so its
backends take the inference path (cuDNN and the memory-efficient kernel then skip the LSE), and
linpipe is passed no LSE buffer; the fastest configuration of each case is timed once more
with the LSE stored, in a table of its own. --lse: the training forward on both sides (linpipe
stores the LSE in every configuration, torch's inputs require grad).
"""
import argparse
import ctypes
import math
import sys

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

# linpipe's configurations: (overlap_softmax, pingpong, persistent, dynamic, three query
# warpgroups, lazy rescaling), and their names in the table: every schedule on both grids, and
# the persistent grid claiming blocks from a counter (dynamic) with either schedule, no
# ping-pong; then the same with three consumer warpgroups (head dim 64 only), less the
# overlapped ping-pong; then the two-warpgroup ten with lazy rescaling (head dim 128 only).
TWO_WARPGROUPS = ([(overlap, pingpong, persistent, 0, 0, 0) for persistent in (0, 1) for pingpong in (0, 1)
                   for overlap in (0, 1)] + [(overlap, 0, 1, 1, 0, 0) for overlap in (0, 1)])
SCHEDULES = (TWO_WARPGROUPS + [(o, pp, pe, dyn, 1, 0) for o, pp, pe, dyn, _, _ in TWO_WARPGROUPS if not (o and pp)]
             + [(o, pp, pe, dyn, 0, 1) for o, pp, pe, dyn, _, _ in TWO_WARPGROUPS])
SCHEDULE_NAMES = [("overlapped" if o else "in order") + (" + ping-pong" if pp else "") + (", persistent" if pe else "")
                  + (", dynamic" if dyn else "") + (", 3 wg" if wide else "") + (", lazy" if lazy else "")
                  for o, pp, pe, dyn, wide, lazy in SCHEDULES]


def runs_at(schedule, head_dim):
    """Whether linpipe offers the configuration at this head dim (three warpgroups: 64 only; lazy
    rescaling: 128 only)."""
    return (not schedule[4] or head_dim == 64) and (not schedule[5] or head_dim == 128)
BACKENDS = [("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION),
            ("efficient", SDPBackend.EFFICIENT_ATTENTION)]


def load(lib_path):
    lib = ctypes.CDLL(lib_path)
    fn = lib.linpipe_attention_bf16
    fn.argtypes = ([ctypes.c_void_p] * 5 + [ctypes.c_int] * 5 + [ctypes.c_float] + [ctypes.c_int] * 3
                   + [ctypes.c_void_p])
    fn.restype = ctypes.c_int
    return fn


def load_rule(lib_path):
    """linpipe_attention_config_bits: attention_config_for's choice, as a SCHEDULES entry."""
    fn = ctypes.CDLL(lib_path).linpipe_attention_config_bits
    fn.argtypes = [ctypes.c_int] * 5
    fn.restype = ctypes.c_int
    return lambda heads, kv_heads, seq, head_dim, causal: (
        lambda bits: tuple((bits >> i) & 1 for i in range(6)))(fn(heads, kv_heads, seq, head_dim, causal))


def load_grouped(lib_path):
    """linpipe_attention_options_bf16 (or, in a build from before lazy rescaling,
    linpipe_attention_config_bf16): kv_heads after heads, then dynamic, packed_heads (0: the
    rule), query_warpgroups and lazy_rescale; None where the build has neither."""
    lib = ctypes.CDLL(lib_path)
    options = hasattr(lib, "linpipe_attention_options_bf16")
    if not options and not hasattr(lib, "linpipe_attention_config_bf16"):
        return None
    fn = lib.linpipe_attention_options_bf16 if options else lib.linpipe_attention_config_bf16
    fn.argtypes = ([ctypes.c_void_p] * 5 + [ctypes.c_int] * 6 + [ctypes.c_float] + [ctypes.c_int] * (7 if options else 6)
                   + [ctypes.c_void_p])
    fn.restype = ctypes.c_int
    fn.lazy = options
    return fn


def median_ms(run, rounds=5, reps=20, warmup=5):
    for _ in range(warmup):
        run()
    times = []
    for _ in range(rounds):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(reps):
            run()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / reps)
    times.sort()
    return times[len(times) // 2]


def add_case_arguments(parser):
    """The library and the cases' arguments every attention bench script takes."""
    parser.add_argument("lib")
    parser.add_argument("--seqs", default="512,1024,2048,4096,8192,16384")
    parser.add_argument("--head-dims", default="64,128")
    parser.add_argument("--masks", default="full,causal")


def main(argv):
    parser = argparse.ArgumentParser()
    add_case_arguments(parser)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--once", action="store_true")
    parser.add_argument("--once-schedules", default="")
    parser.add_argument("--kv-groups", default="1,8")
    parser.add_argument("--gqa-head-dims", default="128")
    parser.add_argument("--before")
    parser.add_argument("--lse", action="store_true")
    args = parser.parse_args(argv)
    attention = load(args.lib)
    grouped = load_grouped(args.lib)
    rule = load_rule(args.lib)
    before_build = load(args.before) if args.before else None
    # A build with the grouped entry point also has the dynamic grid and three warpgroups: every
    # configuration is then compared; an older one, the eight it has.
    before_grouped = load_grouped(args.before) if args.before else None
    device = torch.cuda.get_device_name()
    print(f"device: {device}, torch {torch.__version__}")
    rows = []
    ab_rows = []
    packing_rows = []
    lse_rows = []
    gqa_head_dims = [int(x) for x in args.gqa_head_dims.split(",")]
    cases = [(head_dim, seq, causal, group)
             for group in [int(x) for x in args.kv_groups.split(",")]
             for head_dim in [int(x) for x in args.head_dims.split(",")]
             for seq in [int(x) for x in args.seqs.split(",")]
             for causal in [mask == "causal" for mask in args.masks.split(",")]
             if group == 1 or head_dim in gqa_head_dims]
    # A grouped case runs only at --gqa-head-dims: a group asked for at none of the head dims
    # would time nothing and print an empty table.
    for group in {int(x) for x in args.kv_groups.split(",")} - {1}:
        if not any(case[3] == group for case in cases):
            print(f"attention_bench.py: --kv-groups {group} runs at --gqa-head-dims ({args.gqa_head_dims}) only, "
                  f"and --head-dims {args.head_dims} has none of them: add --gqa-head-dims {args.head_dims}",
                  file=sys.stderr)
            return 2
    for head_dim, seq, causal, group in cases:
        heads = 2048 // head_dim
        kv_heads = heads // group
        batch = max(1, 16384 // seq)
        shape = (batch, heads, seq, head_dim)
        gen = torch.Generator(device="cuda").manual_seed(seq * 131 + head_dim + group)
        q = torch.rand(shape, device="cuda", dtype=torch.bfloat16, generator=gen) * 2 - 1
        k, v = (torch.rand((batch, kv_heads, seq, head_dim), device="cuda", dtype=torch.bfloat16,
                           generator=gen) * 2 - 1 for _ in range(2))
        for x in (q, k, v):
            x.requires_grad_(args.lse)  # torch's backends store the LSE only for a backward pass
        out = torch.empty_like(q)
        lse = torch.empty((batch, heads, seq), device="cuda", dtype=torch.float32)
        scale = 1.0 / math.sqrt(head_dim)
        stream = torch.cuda.current_stream().cuda_stream
        before = before_build if group == 1 or before_grouped is not None else None
        sdpa_args = {"is_causal": causal, "scale": scale}
        if group > 1:
            sdpa_args["enable_gqa"] = True

        def ours(schedule, build=attention, packed_heads=0, store_lse=args.lse):
            overlap, pingpong, persistent, dynamic, wide, lazy = schedule
            lse_ptr = lse.data_ptr() if store_lse else None
            if build is attention or before_grouped is not None:
                entry = grouped if build is attention else before_grouped
                status = entry(q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr(),
                               lse_ptr, batch, heads, kv_heads, seq, head_dim, int(causal),
                               scale, overlap, pingpong, persistent, dynamic, packed_heads, 3 if wide else 2,
                               *((lazy,) if entry.lazy else ()), stream)
            else:  # a build from before grouped heads and dynamic grids
                status = build(q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr(),
                               lse_ptr, batch, heads, seq, head_dim, int(causal), scale,
                               overlap, pingpong, persistent, stream)
            if status != 0:
                raise RuntimeError(f"linpipe_attention_bf16 returned cudaError {status}")

        offered = [schedule for schedule in SCHEDULES if runs_at(schedule, head_dim)]
        if args.once:
            picked = [rule(heads, kv_heads, seq, head_dim, int(causal)) if name == "default" else SCHEDULES[int(name)]
                      for name in args.once_schedules.split(",") if name]
            for schedule in picked or offered:
                ours(schedule)
                if before is not None and ((before_grouped is not None and (before_grouped.lazy or not schedule[5]))
                                           or not (schedule[3] or schedule[4] or schedule[5])):
                    ours(schedule, before)
            for _, backend in BACKENDS:
                try:
                    with sdpa_kernel([backend]):
                        torch.nn.functional.scaled_dot_product_attention(q, k, v, **sdpa_args)
                except RuntimeError:
                    pass  # this backend does not take the case
            torch.cuda.synchronize()
            continue
        reference = torch.nn.functional.scaled_dot_product_attention(q, k, v, **sdpa_args)
        errors = []
        for schedule in offered:
            out.zero_()
            ours(schedule)
            errors.append((out.float() - reference.float()).abs().max().item())
        # A build from before grouped heads has no dynamic grid and no three warpgroups; one from
        # before lazy rescaling, no lazy configurations.
        before_schedules = ([schedule for schedule in offered if before_grouped.lazy or not schedule[5]]
                            if before_grouped is not None else
                            [schedule for schedule in SCHEDULES if not schedule[3] and not schedule[4]
                             and not schedule[5]])
        if before is not None:
            for schedule in before_schedules:
                out.zero_()
                ours(schedule, before)
                errors.append((out.float() - reference.float()).abs().max().item())
        error = max(errors)
        timed = {}
        for name, backend in BACKENDS:
            try:
                with sdpa_kernel([backend]):
                    torch.nn.functional.scaled_dot_product_attention(q, k, v, **sdpa_args)
                    timed[name] = median_ms(lambda: torch.nn.functional.scaled_dot_product_attention(
                        q, k, v, **sdpa_args), rounds=3 if args.quick else 5)
            except RuntimeError:
                pass  # this backend does not take the case
        rounds = 3 if args.quick else 5
        ours_ms, before_ms = [], []
        for schedule in SCHEDULES:  # after and before in turn, so drift hits both alike
            ours_ms.append(median_ms(lambda: ours(schedule), rounds=rounds) if schedule in offered else math.inf)
            if before is not None:
                before_ms.append(median_ms(lambda: ours(schedule, before), rounds=rounds)
                                 if schedule in before_schedules else math.inf)
        if before is not None:
            ab_rows.append((head_dim, seq, causal, group, ours_ms, before_ms))
        fastest_schedule = SCHEDULES[ours_ms.index(min(ours_ms))]
        if group > 1:  # the fastest configuration again, with packing off
            out.zero_()
            ours(fastest_schedule, packed_heads=1)
            error = max(error, (out.float() - reference.float()).abs().max().item())
            packing_rows.append((head_dim, seq, causal, group, min(ours_ms),
                                 median_ms(lambda: ours(fastest_schedule, packed_heads=1), rounds=rounds)))
        if not args.lse:  # the fastest configuration again, storing the LSE
            lse_rows.append((head_dim, seq, causal, group, min(ours_ms),
                             median_ms(lambda: ours(fastest_schedule, store_lse=True), rounds=rounds)))
        flops = 4.0 * batch * heads * seq * seq * head_dim * (0.5 if causal else 1.0)
        best = min(timed, key=timed.get) if timed else None
        rule_ms = ours_ms[SCHEDULES.index(rule(heads, kv_heads, seq, head_dim, int(causal)))]
        rows.append((head_dim, seq, causal, batch, f"{heads}/{kv_heads}" if group > 1 else heads, ours_ms,
                     best, timed.get(best, float("nan")), flops, error,
                     " ".join(f"{n}={timed[n]:.3f}" for n in timed), rule_ms))
        # One line a case as it finishes (the tables come at the end), so a run cut short by a
        # time limit, or whose tables do not come back, still says what it measured, the
        # default's speed over the fastest configuration's included (what the rule gives away).
        fastest = min(ours_ms)
        after_before = (f", best after/before {min(before_ms) / min(a for a, b in zip(ours_ms, before_ms) if b != math.inf):.3f}"
                        if before_ms else "")
        print(f"case d{head_dim} s{seq} {'causal' if causal else 'full'} g{group}: linpipe {fastest:.3f} ms "
              f"({SCHEDULE_NAMES[ours_ms.index(fastest)]}; default {fastest / rule_ms:.2f} of it), "
              f"{best} {timed.get(best, float('nan')):.3f} ms, "
              f"torch/linpipe {timed.get(best, float('nan')) / fastest:.3f}{after_before}", flush=True)
    if args.once:
        return 0
    print()
    print("| head dim | seq | mask | batch x heads (/ K/V heads) | "
          + " | ".join(f"{name} TFLOP/s" for name in SCHEDULE_NAMES)
          + " | linpipe best | linpipe best ms | torch best | torch ms | torch TFLOP/s | linpipe/torch "
          "| default (attention_config_for)/torch | max abs diff | all torch backends (ms) |")
    print("|---:|---:|---|---:|" + "---:|" * len(SCHEDULES) + "---|---:|---|---:|---:|---:|---:|---:|---|")
    for (head_dim, seq, causal, batch, heads, ours_ms, best, best_ms, flops, error, others, rule_ms) in rows:
        fastest = min(ours_ms)
        print(f"| {head_dim} | {seq} | {'causal' if causal else 'full'} | {batch}x{heads} | "
              + " | ".join(f"{flops / ms / 1e9:.0f}" if ms != math.inf else "-" for ms in ours_ms)
              + f" | {SCHEDULE_NAMES[ours_ms.index(fastest)]} | {fastest:.3f} | {best} | {best_ms:.3f} | {flops / best_ms / 1e9:.0f} "
              f"| {best_ms / fastest:.3f} | {best_ms / rule_ms:.3f} | {error:.2e} | {others} |")
    wide_rows = [row for row in rows if row[0] == 64]
    if wide_rows:
        print()
        print("Three consumer warpgroups (192-row query blocks) against two (128 rows), each the fastest of its configurations")
        print("| head dim | seq | mask | 2 wg best ms | 3 wg best ms | 2 wg / 3 wg (above 1: three faster) |")
        print("|---:|---:|---|---:|---:|---:|")
        for head_dim, seq, causal, _, _, ours_ms, *_ in wide_rows:
            two = min(ms for ms, schedule in zip(ours_ms, SCHEDULES) if not schedule[4])
            three = min(ms for ms, schedule in zip(ours_ms, SCHEDULES) if schedule[4])
            print(f"| {head_dim} | {seq} | {'causal' if causal else 'full'} | {two:.3f} | {three:.3f} | {two / three:.3f} |")
    if packing_rows:
        print()
        print("Grouped heads: the fastest configuration with the heads of a group packed into a CTA (the rule) "
              "and with packing off")
        print("| head dim | seq | mask | query heads per K/V head | packed ms | unpacked ms | unpacked / packed |")
        print("|---:|---:|---|---:|---:|---:|---:|")
        for head_dim, seq, causal, group, packed_ms, unpacked_ms in packing_rows:
            print(f"| {head_dim} | {seq} | {'causal' if causal else 'full'} | {group} | {packed_ms:.3f} "
                  f"| {unpacked_ms:.3f} | {unpacked_ms / packed_ms:.3f} |")
    if lse_rows:
        print()
        print("The log-sum-exp: the fastest configuration without it (as timed above, like torch's inference path) "
              "and storing it")
        print("| head dim | seq | mask | query heads per K/V head | no LSE ms | LSE stored ms "
              "| stored / no LSE (above 1: the LSE's cost) |")
        print("|---:|---:|---|---:|---:|---:|---:|")
        for head_dim, seq, causal, group, bare_ms, stored_ms in lse_rows:
            print(f"| {head_dim} | {seq} | {'causal' if causal else 'full'} | {group} | {bare_ms:.3f} "
                  f"| {stored_ms:.3f} | {stored_ms / bare_ms:.3f} |")
    if ab_rows:
        print()
        print("A/B: speed after / before (above 1: faster after)")
        compared = [i for i in range(len(SCHEDULES)) if any(row[5][i] != math.inf for row in ab_rows)]
        print("| head dim | seq | mask | query heads per K/V head | " + " | ".join(SCHEDULE_NAMES[i] for i in compared)
              + " | best before ms | best after ms | best after / before |")
        print("|---:|---:|---|---:|" + "---:|" * len(compared) + "---:|---:|---:|")
        for head_dim, seq, causal, group, after_ms, before_ms in ab_rows:
            pairs = [(after_ms[i], before_ms[i]) for i in compared]
            both = [(a, b) for a, b in pairs if b != math.inf]
            print(f"| {head_dim} | {seq} | {'causal' if causal else 'full'} | {group} | "
                  + " | ".join(f"{b / a:.3f}" if b != math.inf else "-" for a, b in pairs)
                  + f" | {min(b for _, b in both):.3f} | {min(a for a, _ in both):.3f} "
                  f"| {min(b for _, b in both) / min(a for a, _ in both):.3f} |")
        ratios = [b / a for *_, after_ms, before_ms in ab_rows for a, b in zip(after_ms, before_ms)
                  if b != math.inf]
        best = [min(bb for bb in b if bb != math.inf) / min(aa for aa, bb in zip(a, b) if bb != math.inf)
                for *_, a, b in ab_rows]
        print(f"\nall configurations: after / before {min(ratios):.3f}-{max(ratios):.3f}; "
              f"best of each: {min(best):.3f}-{max(best):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
