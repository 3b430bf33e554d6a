// Which (head, query block) tiles each CTA takes, in which order, and how many K/V tiles each
// reads.
// Part of attention.cu's kernel (see there); included in order, after `import linpipe;`.
#pragma once

namespace linpipe::kernels {
namespace {

// The CTA tiles: query blocks (x) of each head of batch x heads (y), the last query block
// first (under a causal mask the last blocks read the most tiles: longest first, which is
// what the hardware's launch-as-SMs-free-up needs to end evenly). Head by head, so that the K
// and V of only a few heads are read at once and stay in L2; but a persistent causal grid has
// no hardware to even out its CTAs' work, so there the order is longest first across all heads
// (every head's last block, then every head's second last, ...). Rounds of the walk alternate
// direction (a snake): a simulation of 132 CTAs over the bench's head-dim-128 causal shapes
// (seq 512-16k) puts the busiest CTA within 0-3% of the mean across heads, against 3-54% head
// by head, at the price of more heads' K and V in flight.
// Built on the host and passed by value as a kernel parameter: its fields stay in the
// parameter bank, not in registers across a CTA's tiles.
using Schedule = WorkSchedule<LongestFirstOrder, SnakeWalk>;

inline Schedule query_blocks(int batch_heads, int seq, bool across_heads) {
  return Schedule(TileSpace{{static_cast<std::uint64_t>(seq), static_cast<std::uint64_t>(batch_heads), 1},
                            {block_q, 1, 1}},
                  LongestFirstOrder{.row_by_row = !across_heads});
}

// Which keys the CTA of query block `qb` reads: all tiles, or up to its diagonal when causal.
__device__ __host__ inline int kv_tiles(int seq, int qb, bool causal) {
  const int all = (seq + block_kv - 1) / block_kv;
  const int to_diagonal = (qb * block_q + block_q - 1) / block_kv + 1;
  return causal && to_diagonal < all ? to_diagonal : all;
}

}  // namespace
}  // namespace linpipe::kernels
