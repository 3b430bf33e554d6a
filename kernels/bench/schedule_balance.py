#!/usr/bin/env python3
"""How evenly a persistent causal attention grid's CTAs finish, and how many heads each keeps in
flight, on the CPU: a model, not a measurement.

  schedule_balance.py [--ctas 132] [--l2-mib 50]

For the causal cases of attention_bench.py (heads = 2048 / head_dim, batch = 16384 / seq,
128-row query blocks; a block's work is the K/V tiles it reads, plus one tile's worth for its
Q load and epilogue), it walks linpipe::LongestFirstOrder (modules/work_schedule.cppm: bands of
rows_per_band rows, each longest first) two ways:
  static:  WorkSchedule + SnakeWalk, each CTA taking the positions of its stride;
  dynamic: DynamicWorkSchedule, the CTA that frees up first claiming the next position;
with one band of every head (the static persistent kernels' order) and with the bands that
attention_launch.cu's rows_per_band picks (K and V of the band's heads within half of L2).
Prints, per case and walk, the last CTA's finish over the mean (1.000: every CTA ends
together) and the most heads any one moment has in flight (their K and V are what L2 holds).
"""
import argparse
import heapq


def tile_at(tiles_x, rows, rows_per_band, position):
    """LongestFirstOrder::tile_at for one plane: (x, row) of a position."""
    band = rows if rows_per_band == 0 or rows_per_band > rows else rows_per_band
    first_row = position // (tiles_x * band) * band
    band_rows = min(band, rows - first_row)
    in_band = position - first_row * tiles_x
    return tiles_x - 1 - in_band // band_rows, first_row + in_band % band_rows


def work(x):
    return x + 2  # x + 1 K/V tiles (causal), and one for Q and the epilogue


def static_walk(tiles_x, rows, band, ctas):
    """Per-CTA finish times and spans (start, end, row) of the snake walk."""
    count = tiles_x * rows
    clock = [0] * ctas
    spans = []
    for round_ in range((count + ctas - 1) // ctas):
        for cta in range(ctas):
            position = round_ * ctas + (cta if round_ % 2 == 0 else ctas - 1 - cta)
            if position < count:
                x, row = tile_at(tiles_x, rows, band, position)
                spans.append((clock[cta], clock[cta] + work(x), row))
                clock[cta] += work(x)
    return clock, spans


def dynamic_walk(tiles_x, rows, band, ctas):
    free = [(0, cta) for cta in range(ctas)]
    clock = [0] * ctas
    spans = []
    for position in range(tiles_x * rows):
        start, cta = heapq.heappop(free)
        x, row = tile_at(tiles_x, rows, band, position)
        clock[cta] = start + work(x)
        spans.append((start, clock[cta], row))
        heapq.heappush(free, (clock[cta], cta))
    return clock, spans


def heads_in_flight(spans):
    events = sorted([(start, 1, row) for start, _, row in spans] + [(end, -1, row) for _, end, row in spans])
    live, most = {}, 0
    for _, step, row in events:
        live[row] = live.get(row, 0) + step
        if live[row] == 0:
            del live[row]
        most = max(most, len(live))
    return most


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ctas", type=int, default=132)
    parser.add_argument("--l2-mib", type=float, default=50.0)
    args = parser.parse_args()
    print(f"{args.ctas} CTAs, L2 {args.l2_mib:g} MiB; finish = last CTA / mean, heads = most in flight")
    print("| head dim | seq | heads | band (L2 rule) | static, one band | static, L2 bands "
          "| dynamic, one band | dynamic, L2 bands |")
    print("|---:|---:|---:|---:|---|---|---|---|")
    for head_dim in (64, 128):
        for seq in (512, 1024, 2048, 4096, 8192, 16384):
            rows = 2048 // head_dim * max(1, 16384 // seq)  # batch x heads
            tiles_x = (seq + 127) // 128
            kv_bytes = 2 * 2 * seq * head_dim
            band = max(1, int(args.l2_mib * 2**20 / 2 // kv_bytes))
            cells = []
            for walk in (static_walk, dynamic_walk):
                for rows_per_band in (0, band):
                    clock, spans = walk(tiles_x, rows, rows_per_band, args.ctas)
                    busy = [c for c in clock if c > 0]
                    cells.append(f"{max(clock) / (sum(busy) / len(busy)):.3f}, {heads_in_flight(spans)} heads")
            print(f"| {head_dim} | {seq} | {rows} | {min(band, rows)} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
