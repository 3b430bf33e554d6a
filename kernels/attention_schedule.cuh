// Which (head, query block) tiles each CTA takes, in which order, and how many K/V tiles each
// reads.
// Part of attention.cu's kernel (see there); included in order, after `import linpipe;`.
#pragma once

namespace linpipe::kernels {
namespace {

// The CTA tiles (a query block of one head) in the order they are handed out. Head by head,
// so that the K and V of only a few heads are read at once and stay in L2, and within a head
// the last query block first (under a causal mask the last blocks read the most tiles:
// longest first, which is what the hardware's launch-as-SMs-free-up needs to end evenly).
// The grid takes them in rounds of gridDim.x: one round when it has a CTA per tile, several
// when it is persistent. In round r, CTA b takes tile r x G + b, or r x G + G - 1 - b when r
// is odd (G = gridDim.x): a snake. A persistent causal grid has no hardware to even out its
// CTAs' work, so there the order is longest first across all heads (every head's last block,
// then every head's second last, ...): with the snake, a simulation of 132 CTAs over the
// bench's head-dim-128 causal shapes (seq 512-16k) puts the busiest CTA within 0-3% of the
// mean, against 3-54% head by head, at the price of more heads' K and V in flight (whether L2
// still holds them: the bench's persistent columns tell).
// Tile numbers are unsigned: count() < 2^31 (fewer tiles than rows), so first + G cannot wrap.
// Computed on the host and passed by value as a kernel parameter: its fields stay in the
// parameter bank, not in registers across a CTA's tiles (in registers they made the
// overlapped head-dim 128 kernel spill).
struct TileOrder {
  int query_blocks;  // per head
  int heads;         // batch x heads
  bool across_heads;  // longest first across all heads (persistent and causal), else head by head
  __device__ __host__ unsigned count() const { return static_cast<unsigned>(query_blocks) * static_cast<unsigned>(heads); }
  // This CTA's tile in the round that starts at tile `first`; count() or more when it has none.
  __device__ unsigned pick(unsigned first) const {
    const bool reversed = (first / gridDim.x) % 2 == 1;
    return first + (reversed ? gridDim.x - 1 - blockIdx.x : blockIdx.x);
  }
  __device__ int head(unsigned t) const {
    return static_cast<int>(across_heads ? t % static_cast<unsigned>(heads) : t / static_cast<unsigned>(query_blocks));
  }
  __device__ int query_block(unsigned t) const {
    const unsigned from_last = across_heads ? t / static_cast<unsigned>(heads) : t % static_cast<unsigned>(query_blocks);
    return query_blocks - 1 - static_cast<int>(from_last);
  }
};

// Which keys the CTA of query block `qb` reads: all tiles, or up to its diagonal when causal.
__device__ __host__ inline int kv_tiles(int seq, int qb, bool causal) {
  const int all = (seq + block_kv - 1) / block_kv;
  const int to_diagonal = (qb * block_q + block_q - 1) / block_kv + 1;
  return causal && to_diagonal < all ? to_diagonal : all;
}

}  // namespace
}  // namespace linpipe::kernels
