// What attention_launch.cu (the host side, compiled once) needs of the attention kernels, which
// live in attention_kernels.cu: their type, the schedule they walk, their block and
// shared-memory sizes, and the boxes of the tensor maps they read and write. Included after
// `import linpipe;`.
#pragma once

#include <cuda.h>  // CUtensorMap: a type only, nothing links libcuda

#include <cstddef>
#include <cstdint>

#include "attention.h"

namespace linpipe::kernels {

// How a CTA's block_q query rows (64 per consumer warpgroup: 128 or 192) map to query heads,
// and query heads to K/V heads: a CTA computes `packed` query heads of one K/V head together,
// rows_per_head(block_q) = block_q / packed rows of each, head by head (Q row m of the tile is
// query q0 + m % rows_per_head of the tile's head m / rows_per_head); query head plane p (of
// batch x heads) reads K/V plane p / group. block_q is a kernel's constant, not a field.
struct HeadPacking {
  int group = 1;   // query heads per K/V head
  int packed = 1;  // query heads per CTA tile: a power of two dividing group, at most 16 (1 at block_q 192)
  __host__ __device__ constexpr int rows_per_head(int block_q) const { return block_q / packed; }
  // A consumer warpgroup's 64 rows: rows of one head (at most 64), and the heads they span.
  __host__ __device__ constexpr int warpgroup_rows_per_head(int block_q) const {
    return rows_per_head(block_q) < 64 ? rows_per_head(block_q) : 64;
  }
  __host__ __device__ constexpr int warpgroup_heads(int block_q) const {
    return 64 / warpgroup_rows_per_head(block_q);
  }
};
inline constexpr int attention_max_packed_heads = 16;

// The CTA tiles: query blocks (x) of each head of batch x heads (y), the last query block
// first (under a causal mask the last blocks read the most tiles: longest first, which is
// what the hardware's launch-as-SMs-free-up needs to end evenly). Head by head, so that the K
// and V of only a few heads are read at once and stay in L2; but a persistent causal grid has
// no hardware to even out its CTAs' work, so there the order is longest first across all heads
// (every head's last block, then every head's second last, ...). Rounds of the walk alternate
// direction (a snake): a simulation of 132 CTAs over the bench's head-dim-128 causal shapes
// (seq 512-16k) puts the busiest CTA within 0-3% of the mean across heads, against 3-54% head
// by head, at the price of more heads' K and V in flight.
// With packed heads (HeadPacking), a y is `packed` query heads and a query block holds
// rows_per_head(block_q) queries of each.
// Built on the host and passed by value as a kernel parameter: its fields stay in the
// parameter bank, not in registers across a CTA's tiles.
using AttentionSchedule = WorkSchedule<LongestFirstOrder, SnakeWalk>;

inline TileSpace attention_tiles(int batch_heads, int seq, HeadPacking packing, int block_q) {
  return TileSpace{{static_cast<std::uint64_t>(seq), static_cast<std::uint64_t>(batch_heads / packing.packed), 1},
                   {static_cast<std::uint64_t>(packing.rows_per_head(block_q)), 1, 1}};
}
inline AttentionSchedule attention_schedule(int batch_heads, int seq, HeadPacking packing, int block_q,
                                            bool across_heads) {
  return AttentionSchedule(attention_tiles(batch_heads, seq, packing, block_q),
                           LongestFirstOrder{.rows_per_band = across_heads ? 0u : 1u});
}

// The dynamic kernels' walk: the same tiles claimed from a counter, in bands of
// rows_per_band rows (query heads, or packed groups of them) at a time. A ring of one claim:
// the leader claims block i + 1 once every consumer thread has read block i, as far ahead as
// the two Q stages let the producer run anyway (a two-claim ring's state cost the head-dim-128
// overlapped ping-pong kernel 8 bytes of spills).
using AttentionClaimedSchedule = DynamicWorkSchedule<LongestFirstOrder, 1>;

inline AttentionClaimedSchedule attention_claimed_schedule(int batch_heads, int seq, HeadPacking packing,
                                                           int block_q, std::uint32_t rows_per_band,
                                                           WorkCounter* counter) {
  return AttentionClaimedSchedule(attention_tiles(batch_heads, seq, packing, block_q), counter,
                                  LongestFirstOrder{.rows_per_band = rows_per_band});
}

// What the kernels walk: `tiles` (one-shot and static persistent kernels), or `claimed`
// (dynamic kernels; its counter null for the others).
struct AttentionWork {
  AttentionSchedule tiles;
  AttentionClaimedSchedule claimed;
};

// The kernels' parameters: the Q, K, V and O tensor maps (__grid_constant__), LSE (or null),
// seq, the work, the head packing, whether causal, and the softmax scale times log2(e).
using AttentionKernel = void (*)(CUtensorMap, CUtensorMap, CUtensorMap, CUtensorMap, float*, int,
                                 AttentionWork, HeadPacking, bool, float);

// The kernel for a head dim (64 or 128), consumer warpgroups (2, or 3 at head dim 64), a
// consumer schedule, a walk and the softmax's rescaling (AttentionConfig); null where none is
// built (attention_bf16 rejects those configurations first, with the reason).
AttentionKernel attention_kernel_for(int head_dim, int warpgroups, bool overlap_softmax, bool pingpong,
                                     bool dynamic, bool lazy_rescale);
// Its dynamic shared memory (its SharedPlan's launch_bytes()).
std::size_t attention_shared_bytes(int head_dim, int warpgroups);

// An attention kernel's block: a producer warpgroup and its consumer warpgroups.
constexpr unsigned attention_threads(int warpgroups) {
  return 128u * (1u + static_cast<unsigned>(warpgroups));
}
// K and V are read in boxes of attention_block_kv rows, Q in boxes of a CTA's block_q rows
// (rows_per_head(block_q) rows of `packed` heads), O written in boxes of one consumer
// warpgroup's 64 rows (warpgroup_rows_per_head(block_q) rows of warpgroup_heads(block_q)
// heads); every box is one 128-byte swizzle span of bf16 wide.
inline constexpr int attention_o_box_rows = 64;
inline constexpr int attention_box_cols = 64;

}  // namespace linpipe::kernels
