// The attention kernel's roles, tiles, pipelines and shared memory: a producer warpgroup and
// two consumer warpgroups; 128-row Q, K and V tiles as 128B-swizzled boxes, one pipeline each;
// one staging box per consumer warpgroup for the output; and the constants every other part
// uses.
// Part of attention_kernels.cu (see there); included in order, after `import linpipe;`.
#pragma once

namespace linpipe::kernels {
namespace {

constexpr int block_q = attention_block_q;
constexpr int block_kv = attention_block_kv;
constexpr int box_cols = attention_box_cols;  // one 128-byte swizzle span of bf16
constexpr int kv_stages = 2;
// Two: a persistent CTA's producer loads the next query block while the consumers still hold
// this one (one stage would leave every tile's first loads exposed).
constexpr int q_stages = 2;
// A producer warpgroup (one lane issues the loads; the warpgroup gives its registers to the
// consumers) and two consumer warpgroups, each owning 64 query rows.
using Roles = WarpRoles<4, 2, 4>;
constexpr int consumer_warpgroups = Roles::consumers;
constexpr int threads = Roles::threads;
static_assert(block_q == 64 * consumer_warpgroups, "a consumer warpgroup owns 64 query rows");
static_assert(block_kv == 128, "S is one m64n128 accumulator a warpgroup");
static_assert(static_cast<unsigned>(threads) == attention_threads, "attention_kernels.h: attention_threads is the kernels' block size");

// The consumer warpgroups' named barriers: 1-2 the ping-pong turns, 3-4 each warpgroup's own
// (the staged store's).
using PingPongTurns = OrderedTurns<2, Roles::threads_per_consumer, 1>;
static_assert(consumer_warpgroups == 2, "the ping-pong turns alternate between exactly two warpgroups");
using OutputStore = StagedStore<Roles, PingPongTurns::end_barrier>;

// 128 rows (queries or keys) x HeadDim, as HeadDim / 64 boxes of 128 x 64 (128B-swizzled rows
// of 128 bytes, the tensor copy engine's layout), each 1024-byte aligned.
template <int HeadDim>
struct Tile {
  static constexpr int boxes = HeadDim / box_cols;
  static constexpr std::uint32_t box_bytes = 128 * box_cols * 2;
  alignas(1024) std::uint16_t box[boxes][128 * box_cols];
};

// The epilogue's staging: a consumer warpgroup writes 64 columns of its 64 output rows here at
// a time (128B-swizzled, as O's tensor map stores them) and one TMA store moves them to O.
// One box per warpgroup, not a whole 64 x HeadDim block: at head dim 128, two such blocks
// beside two stages each of Q, K and V would not fit a block's shared memory.
using StoreBox = SwizzledBox;
static_assert(attention_o_box_rows == StoreBox::rows && box_cols == StoreBox::cols,
              "attention_kernels.h: O's tensor-map box is one consumer warpgroup's SwizzledBox");

using QPipeline = ProducerConsumerPipeline<q_stages>;
using KvPipeline = ProducerConsumerPipeline<kv_stages>;

template <int HeadDim>
struct SharedMemory {
  PipelineStorage<QPipeline, Tile<HeadDim>> q;
  PipelineStorage<KvPipeline, Tile<HeadDim>> k;
  PipelineStorage<KvPipeline, Tile<HeadDim>> v;
  StoreBox staging[consumer_warpgroups];
  AttentionClaimedSchedule::Shared work;  // the dynamic kernels' ring of claimed positions
};
// The launch's shared-memory bytes, checked against the block's budget where declared.
template <int HeadDim>
using Plan = SharedPlan<SharedMemory<HeadDim>>;
static_assert(Plan<128>::launch_bytes() > 0);  // the larger head dim fits (fails to compile if not)

}  // namespace
}  // namespace linpipe::kernels
