// The attention kernel's blocking, tiles, pipelines and shared memory: a producer warpgroup and
// two or three consumer warpgroups of 64 query rows each; Q, K and V tiles as 128B-swizzled
// boxes, one pipeline each; each consumer warpgroup's output rows staged over its own Q rows;
// and the constants every other part uses.
// Part of attention_kernels.cu (see there); included in order, after `import linpipe;`.
#pragma once

namespace linpipe::kernels {
namespace {

constexpr int block_kv = attention_block_kv;
constexpr int box_cols = attention_box_cols;  // one 128-byte swizzle span of bf16
constexpr int kv_stages = 2;
static_assert(block_kv == 128, "S is one m64n128 accumulator a warpgroup");

// `Rows` rows (queries or keys) x HeadDim, as HeadDim / 64 boxes of Rows x 64 (128B-swizzled
// rows of 128 bytes, the tensor copy engine's layout), each 1024-byte aligned.
template <int HeadDim, int Rows>
struct Tile {
  static constexpr int rows = Rows;
  static constexpr int boxes = HeadDim / box_cols;
  static constexpr std::uint32_t box_bytes = Rows * box_cols * 2;
  alignas(1024) std::uint16_t box[boxes][Rows * box_cols];
};

// A kernel's blocking: its head dim and its consumer warpgroups, each owning 64 query rows
// of the CTA's query block, and what follows from them. A producer warpgroup (one lane issues
// the loads; the warpgroup gives its registers to the consumers).
template <int HeadDim, int Warpgroups>
struct Blocking {
  static_assert(HeadDim == 64 || HeadDim == 128, "attention's head dim is 64 or 128");
  static_assert(Warpgroups == 2 || (Warpgroups == 3 && HeadDim == 64),
                "two consumer warpgroups, or three at head dim 64 (at 128, three warpgroups' O, S "
                "and P do not fit their share of the registers)");
  static constexpr int head_dim = HeadDim;
  static constexpr int warpgroups = Warpgroups;
  static constexpr int block_q = 64 * Warpgroups;
  using Roles = WarpRoles<4, Warpgroups, 4>;
  static_assert(static_cast<unsigned>(Roles::threads) == attention_threads(Warpgroups),
                "attention_kernels.h: attention_threads(warpgroups) is the launch's block size");
  // setmaxnreg's budgets: 128 x (producer + warpgroups x consumer) registers fit the SM's 64K.
  static constexpr int producer_registers = Warpgroups == 2 ? 40 : 32;
  static constexpr int consumer_registers = Warpgroups == 2 ? 232 : 160;
  // The consumer warpgroups' named barriers: 1..Warpgroups the ping-pong turns, then each
  // warpgroup's own (the staged store's).
  using Turns = OrderedTurns<Warpgroups, Roles::threads_per_consumer, 1>;
  using OutputStore = StagedStore<Roles, Turns::end_barrier>;
  // Two Q stages: a persistent CTA's producer loads the next query block's Q during this one.
  // A block's output rows are staged over its own Q rows (output_box), so a consumer holds its
  // Q stage past the store, in QLag: pushed once its block's first S has retired, and freed
  // when the next block's stage is pushed (the store has read it by then).
  using QPipeline = ProducerConsumerPipeline<2>;
  using QLag = StageLag<typename QPipeline::ConsumerStageType, 1, ReleaseAfterStoreRead>;
  using QTile = Tile<HeadDim, block_q>;
  using KvTile = Tile<HeadDim, block_kv>;
  // A query block's Q is read once and its O written once, while each K/V tile is read by all
  // the query blocks of its head: at head dim 128, Q's loads and O's stores go evict-first in
  // L2 so they do not push K/V out (H100, 2026-12-06, against the same kernels without: the
  // best configuration 0.998-1.057x at seq 512-4k, the default's 0.987-1.093x; at head dim 64
  // no clear direction, so not there).
  static constexpr bool q_o_evict_first = HeadDim == 128;
};

// The epilogue's staging: a consumer warpgroup writes all its 64 output rows, 64 columns a box
// (128B-swizzled, as O's tensor map stores them), over its own 64 rows of the query block's Q
// tile, which only its S = Q K^T reads and which have the same layout; one TMA store a box
// moves them to O. Whole rows, not one box reused (a reused box must wait for its last store
// to read it before the next write: head dim 128, seq 2048, 7% slower than O stored from
// registers), and no shared memory of its own, which leaves room for a second Q stage at head
// dim 128.
using StoreBox = SwizzledBox;
static_assert(attention_o_box_rows == StoreBox::rows && box_cols == StoreBox::cols,
              "attention_kernels.h: O's tensor-map box is one consumer warpgroup's SwizzledBox");

// Consumer warpgroup `warpgroup`'s staging box `box` (output columns 64 box..): its rows of the
// Q tile's box `box`, 1024-byte aligned as the swizzle needs (64 rows of 128 bytes each on).
template <class QTile>
__device__ __forceinline__ StoreBox& output_box(QTile& q, int warpgroup, int box) {
  static_assert(QTile::rows % StoreBox::rows == 0 && sizeof(q.box[0]) == QTile::box_bytes,
                "a Q box is whole warpgroups' rows of 128 bytes");
  return *reinterpret_cast<StoreBox*>(q.box[box] + warpgroup * StoreBox::rows * box_cols);
}

using KvPipeline = ProducerConsumerPipeline<kv_stages>;

template <class B>
struct SharedMemory {
  PipelineStorage<typename B::QPipeline, typename B::QTile> q;
  PipelineStorage<KvPipeline, typename B::KvTile> k;
  PipelineStorage<KvPipeline, typename B::KvTile> v;
  AttentionClaimedSchedule::Shared work;  // the dynamic kernels' ring of claimed positions
};
// The launch's shared-memory bytes, checked against the block's budget where declared.
template <class B>
using Plan = SharedPlan<SharedMemory<B>>;
// The largest blockings fit (each fails to compile if not).
static_assert(Plan<Blocking<128, 2>>::launch_bytes() > 0 && Plan<Blocking<64, 3>>::launch_bytes() > 0);

}  // namespace
}  // namespace linpipe::kernels
