// attention_bf16's kernel (see attention.h). A CTA computes 128 query rows of one (batch,
// head) at a time: one such query block, or (persistent grid) several in turn. Warp 0 loads,
// through three linpipe pipelines: each query block's Q tile once (a two-stage pipeline whose
// stage the consumers hold to the block's end, so the next block's Q lands meanwhile), then
// each K tile and each V tile into its own two-stage ring, so the next K tile lands while the
// consumers still multiply by this V.
// Consumer warpgroup w owns query rows 64w..64w+63: per K/V tile it computes S = Q K^T with
// wgmma (both operands K-major in 128B-swizzled shared memory), masks the tail and the causal
// triangle, updates the running row maximum and sum (base 2, fp32), rescales its output
// accumulators, converts P to bf16 in registers (an m64nNk16 accumulator's layout is wgmma's
// register-A layout) and adds P V with wgmma (V N-major: tensor-map rows are keys). Each
// stage is released once the wgmma group reading it has retired. Two schedules
// (AttentionConfig): each step waiting for the last, or the next tile's S issued with this
// tile's P V so the softmax runs while the tensor cores do; with either, the two warpgroups
// may take turns issuing (ping-pong) so that one's softmax runs under the other's products.
// Each head is a plane of the 3-D tensor maps: rows of a tile past the sequence are read as
// zeros (never another head's rows) and masked or not stored.
#include "attention.h"

#include <cuda.h>  // CUtensorMap and its enums: types only, nothing links libcuda
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>

import linpipe;

namespace linpipe::kernels {
namespace {

constexpr int block_q = attention_block_q;
constexpr int block_kv = attention_block_kv;
constexpr int box_cols = 64;  // one 128-byte swizzle span of bf16
constexpr int kv_stages = 2;
// Two: a persistent CTA's producer loads the next query block while the consumers still hold
// this one (one stage would leave every tile's first loads exposed).
constexpr int q_stages = 2;
constexpr int consumer_warpgroups = 2;
constexpr int threads = 128 * (1 + consumer_warpgroups);
constexpr int consumer_threads = 128 * consumer_warpgroups;
static_assert(block_q == 64 * consumer_warpgroups, "a consumer warpgroup owns 64 query rows");
static_assert(block_kv == 128, "S is one m64n128 accumulator a warpgroup");

// 128 rows (queries or keys) x HeadDim, as HeadDim / 64 boxes of 128 x 64 (128B-swizzled rows
// of 128 bytes, the tensor copy engine's layout), each 1024-byte aligned.
template <int HeadDim>
struct Tile {
  static constexpr int boxes = HeadDim / box_cols;
  static constexpr std::uint32_t box_bytes = 128 * box_cols * 2;
  alignas(1024) std::uint16_t box[boxes][128 * box_cols];
};

using QPipeline = ProducerConsumerPipeline<q_stages>;
using KvPipeline = ProducerConsumerPipeline<kv_stages>;

template <int HeadDim>
struct SharedMemory {
  PipelineStorage<QPipeline, Tile<HeadDim>> q;
  PipelineStorage<KvPipeline, Tile<HeadDim>> k;
  PipelineStorage<KvPipeline, Tile<HeadDim>> v;

  // At the first 1024-byte aligned address of the dynamic shared memory (the launch
  // guarantees 16); smem_bytes leaves room for the shift.
  __device__ static SharedMemory& at(std::byte* raw) {
    constexpr std::uintptr_t align = alignof(SharedMemory);
    const std::uintptr_t address = reinterpret_cast<std::uintptr_t>(raw);
    return *reinterpret_cast<SharedMemory*>((address + align - 1) & ~(align - 1));
  }
};
template <int HeadDim>
constexpr std::size_t smem_bytes = sizeof(SharedMemory<HeadDim>) + alignof(SharedMemory<HeadDim>) - 16;
static_assert(smem_bytes<128> <= NvidiaMbarBackend<kv_stages>::max_storage_bytes,
              "attention: two Q, two K and two V stages of head dim 128 exceed a block's shared memory");

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

// Loads one 128-row tile (rows `row` .. row + 127 of head `head`: rows past the sequence come
// as zeros) box by box onto the stage's full barrier, which expects the whole tile.
template <int HeadDim, class Stage>
__device__ void load_tile(Tile<HeadDim>& tile, const CUtensorMap* map, int row, int head, const Stage& stage) {
  const auto full = stage.mbar();
  full.arrive_expect_tx(sizeof(Tile<HeadDim>));
#pragma unroll
  for (int b = 0; b < Tile<HeadDim>::boxes; ++b)
    ptx::tma_load_3d(tile.box[b], map, b * box_cols, row, head, full.address());
}

// One lane, for each of the CTA's query blocks: Q once, then K and V tile by tile. Every stage
// is released as soon as its loads are issued (the full barrier's expect-tx is the signal), so
// the next block's loads start as soon as stages free up; drain() before exit.
template <int HeadDim>
__device__ void produce(QPipeline& q_pipe, KvPipeline& k_pipe, KvPipeline& v_pipe,
                        SharedMemory<HeadDim>& shared, const CUtensorMap* map_q,
                        const CUtensorMap* map_k, const CUtensorMap* map_v, TileOrder order,
                        int seq, bool causal) {
  for (unsigned first = 0; first < order.count(); first += gridDim.x) {
    const unsigned t = order.pick(first);
    if (t >= order.count()) continue;  // the last round's short end
    const int head = order.head(t), qb = order.query_block(t);
    auto q = q_pipe.acquire_producer();
    load_tile(shared.q[q], map_q, qb * block_q, head, q);
    q.release();
    const int tiles = kv_tiles(seq, qb, causal);
    for (int j = 0; j < tiles; ++j) {
      auto k = k_pipe.acquire_producer();
      load_tile(shared.k[k], map_k, j * block_kv, head, k);
      k.release();
      auto v = v_pipe.acquire_producer();
      load_tile(shared.v[v], map_v, j * block_kv, head, v);
      v.release();
    }
  }
  q_pipe.drain();
  k_pipe.drain();
  v_pipe.drain();
}

// This thread's place in an m64nNk16 accumulator of its warpgroup: rows row0 and row0 + 8
// (relative to the warpgroup's 64), and for each 8-column group g the columns 8g + col0 and
// 8g + col0 + 1; value 4g + 2h + c is (row0 + 8h, 8g + col0 + c).
struct Fragment {
  int row0;
  int col0;
  __device__ explicit Fragment(int t) : row0(16 * (t / 32) + (t % 32) / 4), col0(2 * (t % 4)) {}
};

// The running softmax statistics of the thread's two rows, base 2, scaled by the softmax
// scale: max over the keys seen so far and this thread's share of the sum of exp2(x - max)
// (the four threads of a row hold a quarter each until the end).
struct RowStats {
  float max[2] = {-__builtin_inff(), -__builtin_inff()};
  float sum[2] = {0.0f, 0.0f};
};

__device__ inline float quad_max(float x) {
  x = __builtin_fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
  return __builtin_fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}
__device__ inline float quad_sum(float x) {
  x += __shfl_xor_sync(0xffffffffu, x, 1);
  return x + __shfl_xor_sync(0xffffffffu, x, 2);
}

// S (64 x 128 of this warpgroup) -> P, in place and in fp32: masks keys past the sequence
// and, when causal, after the query (only in a tile that has such keys for one of the
// warpgroup's rows: the others need no test); folds the tile into `stats`, whose maximum is
// kept scaled (base 2). Returns in `rescale` what the output rows must be multiplied by (how
// much each row's maximum grew), which rescale_rows applies once no wgmma writes them;
// pack_p makes wgmma's A operand of P.
__device__ __forceinline__ void softmax_tile(float (&s)[64], float (&rescale)[2], RowStats& stats,
                                             const Fragment& f, int query0, int key0, int seq,
                                             bool causal, float scale_log2) {
  float tile_max[2] = {-__builtin_inff(), -__builtin_inff()};
  const int last_key = key0 + block_kv - 1;
  const bool masked = last_key >= seq || (causal && last_key > query0);  // warpgroup-uniform
  if (masked) {
#pragma unroll
    for (int i = 0; i < 64; ++i) {
      const int h = (i / 2) % 2;
      const int key = key0 + 8 * (i / 4) + f.col0 + i % 2;
      const int query = query0 + f.row0 + 8 * h;
      const bool keep = key < seq && (!causal || key <= query);
      s[i] = keep ? s[i] : -__builtin_inff();
    }
  }
#pragma unroll
  for (int i = 0; i < 64; ++i) tile_max[(i / 2) % 2] = __builtin_fmaxf(tile_max[(i / 2) % 2], s[i]);
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    // The scale is positive: the maximum of the scaled scores is the scaled maximum.
    const float grown = __builtin_fmaxf(stats.max[h], quad_max(tile_max[h]) * scale_log2);
    // A row with no key yet (all masked so far) keeps max -inf: subtract 0 instead of inf.
    const float base = grown == -__builtin_inff() ? 0.0f : grown;
    rescale[h] = exp2f(stats.max[h] - base);
    stats.max[h] = grown;
    stats.sum[h] *= rescale[h];
    tile_max[h] = base;
  }
#pragma unroll
  for (int i = 0; i < 64; ++i) {
    const int h = (i / 2) % 2;
    s[i] = exp2f(__builtin_fmaf(s[i], scale_log2, -tile_max[h]));  // one FFMA and one EX2
    stats.sum[h] += s[i];
  }
}

// P (fp32, an m64n128 accumulator's layout) -> bf16 pairs as wgmma's register A operand: the
// k16 chunk c of P (columns 16c..) is accumulator groups 2c and 2c + 1.
__device__ __forceinline__ void pack_p(const float (&s)[64], std::uint32_t (&p)[32]) {
#pragma unroll
  for (int c = 0; c < 8; ++c) {
#pragma unroll
    for (int r = 0; r < 4; ++r) p[4 * c + r] = ptx::pack_bf16x2(s[8 * c + 2 * r], s[8 * c + 2 * r + 1]);
  }
}

template <int OutRegs>
__device__ __forceinline__ void rescale_rows(float (&o)[OutRegs], const float (&rescale)[2]) {
#pragma unroll
  for (int i = 0; i < OutRegs; ++i) o[i] *= rescale[(i / 2) % 2];
}

// The descriptors of a stage's tiles, computed before the wgmma.fence that starts a batch of
// wgmma and pinned there (an empty asm the compiler does not move them past), so that only
// wgmma and descriptor steps sit between a batch's instructions.
__device__ __forceinline__ void pin(std::uint64_t& value) { asm volatile("" : "+l"(value)); }

// Q (this warpgroup's 64 rows, K-major) and a K tile (K-major) at their first box.
template <int HeadDim>
__device__ __forceinline__ std::uint64_t q_descriptor(const Tile<HeadDim>& q, int warpgroup) {
  std::uint64_t d = ptx::wgmma_desc_k_major_sw128(ptx::shared_address(q.box[0] + warpgroup * 64 * box_cols));
  pin(d);
  return d;
}
template <int HeadDim>
__device__ __forceinline__ std::uint64_t k_descriptor(const Tile<HeadDim>& k) {
  std::uint64_t d = ptx::wgmma_desc_k_major_sw128(ptx::shared_address(k.box[0]));
  pin(d);
  return d;
}
// A V tile, N-major: keys are K, head-dim columns N, one box per 64 columns.
template <int HeadDim>
__device__ __forceinline__ std::uint64_t v_descriptor(const Tile<HeadDim>& v) {
  std::uint64_t d = ptx::wgmma_desc_mn_major_sw128(ptx::shared_address(v.box[0]), Tile<HeadDim>::box_bytes);
  pin(d);
  return d;
}

// O (64 x HeadDim) += P (64 x 128) V (128 x HeadDim), one wgmma group's worth.
template <int HeadDim>
__device__ __forceinline__ void accumulate_pv(float (&o)[HeadDim / 2], const std::uint32_t (&p)[32],
                                              std::uint64_t v) {
#pragma unroll
  for (int c = 0; c < block_kv / 16; ++c) {
    const std::uint32_t a[4] = {p[4 * c], p[4 * c + 1], p[4 * c + 2], p[4 * c + 3]};
    // k16 chunk c: keys 16c.., 16 rows of 128 bytes (2048 bytes, 128 in descriptor units) on.
    const std::uint64_t b = v + static_cast<std::uint64_t>(c * (16 * 128 >> 4));
    if constexpr (HeadDim == 128) {
      ptx::wgmma_m64n128k16_bf16_rs_nmajor(o, a, b, 1);
    } else {
      ptx::wgmma_m64n64k16_bf16_rs_nmajor(o, a, b, 1);
    }
  }
}

// S (64 x 128) = Q (this warpgroup's 64 rows x HeadDim) K^T, one wgmma group's worth.
template <int HeadDim>
__device__ __forceinline__ void score_tile(float (&s)[64], std::uint64_t q, std::uint64_t k) {
#pragma unroll
  for (int kk = 0; kk < HeadDim / 16; ++kk) {
    // Box kk / 4 (16 KiB, 1024 in descriptor units on), then +2 per k16 step inside it: 32
    // bytes along the swizzled 128-byte row, in 16-byte units.
    const std::uint64_t step = static_cast<std::uint64_t>((kk / (box_cols / 16)) * (Tile<HeadDim>::box_bytes >> 4) +
                                                          2 * (kk % (box_cols / 16)));
    if (kk == 0) {
      ptx::wgmma_m64n128k16_bf16_first(s, q + step, k + step);
    } else {
      ptx::wgmma_m64n128k16_bf16(s, q + step, k + step, 1);
    }
  }
}

// The end of a warpgroup's rows: O / sum and the log-sum-exp (natural log) of each of the
// thread's rows inside the sequence.
template <int HeadDim>
__device__ __forceinline__ void store_rows(const float (&o)[HeadDim / 2], const RowStats& stats,
                                           const Fragment& f, std::uint16_t* out, float* lse,
                                           int head_row0, int query0, int seq) {
  constexpr float ln2 = 0.6931471805599453f;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int query = query0 + f.row0 + 8 * h;
    const float sum = quad_sum(stats.sum[h]);
    if (query >= seq) continue;
    const float inverse = 1.0f / sum;
    std::uint16_t* row = out + static_cast<std::size_t>(head_row0 + query) * HeadDim;
#pragma unroll
    for (int g = 0; g < HeadDim / 8; ++g) {
      const std::uint32_t pair = ptx::pack_bf16x2(o[4 * g + 2 * h] * inverse, o[4 * g + 2 * h + 1] * inverse);
      *reinterpret_cast<std::uint32_t*>(row + 8 * g + f.col0) = pair;
    }
    if (lse != nullptr && threadIdx.x % 4 == 0) lse[head_row0 + query] = (stats.max[h] + __log2f(sum)) * ln2;
  }
}

// The two consumer warpgroups taking turns to issue their wgmma batches (FlashAttention 3's
// ping-pong): 0, then 1, then 0 again, so the tensor cores run one warpgroup's products while
// the other computes its softmax rather than interleaving both. A turn is a named barrier of
// both warpgroups (256 threads): the waiting warpgroup syncs on its own barrier, the other
// arrives at it once its batch is issued. Both take the same number of turns; warpgroup 1
// opens warpgroup 0's first turn and passes none after its own last, so every barrier phase
// completes before the CTA exits. Disabled, it is nothing: each warpgroup issues when ready.
template <bool Enabled>
class IssueTurns {
 public:
  __device__ IssueTurns(int warpgroup, int turns) : warpgroup_(warpgroup), left_(turns) {
    if constexpr (Enabled) {
      if (warpgroup_ == 1) ptx::barrier_arrive(barrier(0), consumer_threads);
    }
  }
  // Before the wgmma.fence of this warpgroup's next batch.
  __device__ void wait() {
    if constexpr (Enabled) ptx::barrier_sync(barrier(warpgroup_), consumer_threads);
  }
  // Once the batch is committed: the other warpgroup may issue.
  __device__ void pass() {
    --left_;
    if constexpr (Enabled) {
      if (warpgroup_ == 0 || left_ > 0) ptx::barrier_arrive(barrier(1 - warpgroup_), consumer_threads);
    }
  }

 private:
  // Named barriers 1 and 2 (0 is __syncthreads()'s; nothing else here uses named barriers).
  __device__ static std::uint32_t barrier(int warpgroup) { return 1u + static_cast<std::uint32_t>(warpgroup); }
  int warpgroup_;
  int left_;
};
static_assert(consumer_warpgroups == 2, "IssueTurns alternates between exactly two warpgroups");

// What a consumer warpgroup works on: its rows of the CTA's query block and the tiles to read.
struct ConsumerTask {
  int head_row0;  // the head's first row in the flattened batch x heads x seq rows
  int query0;     // the warpgroup's first query row within the head
  int tiles;      // K/V tiles to read
  int seq;
  bool causal;
  float scale_log2;
  int warpgroup;
};

// One consumer warpgroup (all 128 threads), one step at a time: S = Q K^T, the softmax, then
// O += P V, each waiting for the last (the reference schedule). Two turns a tile.
template <int HeadDim, bool PingPong>
__device__ __forceinline__ void consume_in_order(QPipeline& q_pipe, KvPipeline& k_pipe, KvPipeline& v_pipe,
                                 SharedMemory<HeadDim>& shared, std::uint16_t* out, float* lse,
                                 const ConsumerTask& task) {
  const Fragment f(static_cast<int>(threadIdx.x % 128));
  float o[HeadDim / 2];
#pragma unroll
  for (float& x : o) x = 0.0f;
  RowStats stats;
  IssueTurns<PingPong> turns(task.warpgroup, 2 * task.tiles);

  auto q = q_pipe.acquire_consumer();  // held until every tile is done
  const std::uint64_t q_desc = q_descriptor(shared.q[q], task.warpgroup);
  for (int j = 0; j < task.tiles; ++j) {
    float s[64];
    auto k = k_pipe.acquire_consumer();
    const std::uint64_t k_desc = k_descriptor(shared.k[k]);
    turns.wait();
    ptx::wgmma_fence();
    score_tile<HeadDim>(s, q_desc, k_desc);
    ptx::wgmma_commit_group();
    turns.pass();
    ptx::wgmma_wait_group<0>();
    ptx::wgmma_fence_operands(s);  // S is read after the wait
    k.release();

    std::uint32_t p[32];
    float rescale[2];
    softmax_tile(s, rescale, stats, f, task.query0, j * block_kv, task.seq, task.causal, task.scale_log2);
    pack_p(s, p);
    rescale_rows(o, rescale);

    auto v = v_pipe.acquire_consumer();
    const std::uint64_t v_desc = v_descriptor(shared.v[v]);
    ptx::wgmma_fence_operands(o);  // P and the rescaled O are written before the fence
    ptx::wgmma_fence_operands(p);
    turns.wait();
    ptx::wgmma_fence();
    accumulate_pv<HeadDim>(o, p, v_desc);
    ptx::wgmma_commit_group();
    turns.pass();
    ptx::wgmma_wait_group<0>();
    ptx::wgmma_fence_operands(o);  // O is read after the wait
    v.release();
  }
  q.release();
  store_rows<HeadDim>(o, stats, f, out, lse, task.head_row0, task.query0, task.seq);
}

// One consumer warpgroup, the softmax overlapped with the tensor cores: with P(j) ready, it
// issues S(j+1) = Q K(j+1)^T and then O += P(j) V(j) as two wgmma groups, waits for the first
// only, and computes P(j+1) in fp32 while the second runs; once that group has retired (it
// reads P(j)'s registers and writes O), P(j+1) is packed to bf16 and O rescaled. A turn per
// tile and one more (the last P V).
template <int HeadDim, bool PingPong>
__device__ __forceinline__ void consume_overlapped(QPipeline& q_pipe, KvPipeline& k_pipe, KvPipeline& v_pipe,
                                   SharedMemory<HeadDim>& shared, std::uint16_t* out, float* lse,
                                   const ConsumerTask& task) {
  const Fragment f(static_cast<int>(threadIdx.x % 128));
  float o[HeadDim / 2];
#pragma unroll
  for (float& x : o) x = 0.0f;
  RowStats stats;
  std::uint32_t p[32];  // P of the tile whose V comes next
  IssueTurns<PingPong> turns(task.warpgroup, task.tiles + 1);

  auto q = q_pipe.acquire_consumer();  // held until every tile is done
  const std::uint64_t q_desc = q_descriptor(shared.q[q], task.warpgroup);
  {
    float s[64];
    auto k = k_pipe.acquire_consumer();
    const std::uint64_t k_desc = k_descriptor(shared.k[k]);
    turns.wait();
    ptx::wgmma_fence();
    score_tile<HeadDim>(s, q_desc, k_desc);
    ptx::wgmma_commit_group();
    turns.pass();
    ptx::wgmma_wait_group<0>();
    ptx::wgmma_fence_operands(s);
    k.release();
    float rescale[2];  // O is still zero: nothing to rescale
    softmax_tile(s, rescale, stats, f, task.query0, 0, task.seq, task.causal, task.scale_log2);
    pack_p(s, p);
  }
  for (int j = 0; j + 1 < task.tiles; ++j) {
    float s[64];
    auto k = k_pipe.acquire_consumer();
    auto v = v_pipe.acquire_consumer();
    const std::uint64_t k_desc = k_descriptor(shared.k[k]);
    const std::uint64_t v_desc = v_descriptor(shared.v[v]);
    ptx::wgmma_fence_operands(o);  // P(j) and the rescaled O are written before the fence
    ptx::wgmma_fence_operands(p);
    turns.wait();
    ptx::wgmma_fence();
    score_tile<HeadDim>(s, q_desc, k_desc);
    ptx::wgmma_commit_group();
    accumulate_pv<HeadDim>(o, p, v_desc);
    ptx::wgmma_commit_group();
    turns.pass();
    ptx::wgmma_wait_group<1>();  // S(j+1) has retired; O += P(j) V(j) may still run
    ptx::wgmma_fence_operands(s);
    k.release();
    float rescale[2];
    softmax_tile(s, rescale, stats, f, task.query0, (j + 1) * block_kv, task.seq, task.causal,
                 task.scale_log2);
    ptx::wgmma_wait_group<0>();  // P(j) V(j) has retired: O and p are free
    ptx::wgmma_fence_operands(o);
    ptx::wgmma_fence_operands(p);
    v.release();
    // Only now: P(j + 1) into the registers P(j)'s wgmma read (ptxas serialises the wgmma,
    // C7513, if they are written while it may still run).
    pack_p(s, p);
    rescale_rows(o, rescale);
  }
  {
    auto v = v_pipe.acquire_consumer();
    const std::uint64_t v_desc = v_descriptor(shared.v[v]);
    ptx::wgmma_fence_operands(o);
    ptx::wgmma_fence_operands(p);
    turns.wait();
    ptx::wgmma_fence();
    accumulate_pv<HeadDim>(o, p, v_desc);
    ptx::wgmma_commit_group();
    turns.pass();
    ptx::wgmma_wait_group<0>();
    ptx::wgmma_fence_operands(o);
    v.release();
  }
  q.release();
  store_rows<HeadDim>(o, stats, f, out, lse, task.head_row0, task.query0, task.seq);
}

template <int HeadDim, bool Overlap, bool PingPong>
__global__ void __launch_bounds__(threads, 1)
    attention_kernel(const __grid_constant__ CUtensorMap map_q, const __grid_constant__ CUtensorMap map_k,
                     const __grid_constant__ CUtensorMap map_v, std::uint16_t* out, float* lse, int seq,
                     TileOrder order, bool causal, float scale_log2) {
  extern __shared__ __align__(1024) std::byte smem_raw[];
  SharedMemory<HeadDim>& shared = SharedMemory<HeadDim>::at(smem_raw);
  if (threadIdx.x == 0) {
    // Full: one arrival (the producer's expect-tx) plus the bytes; empty: every consumer thread.
    QPipeline(shared.q.barriers).init_mbars(1, consumer_threads);
    KvPipeline(shared.k.barriers).init_mbars(1, consumer_threads);
    KvPipeline(shared.v.barriers).init_mbars(1, consumer_threads);
    ptx::prefetch_tensormap(&map_q);
    ptx::prefetch_tensormap(&map_k);
    ptx::prefetch_tensormap(&map_v);
  }
  __syncthreads();

  QPipeline q_pipe(shared.q.barriers, "attention q");
  KvPipeline k_pipe(shared.k.barriers, "attention k");
  KvPipeline v_pipe(shared.v.barriers, "attention v");
  const int warpgroup = static_cast<int>(threadIdx.x / 128);
  if (warpgroup == 0) {
    ptx::setmaxnreg_dec<40>();  // as the GEMM: 128 x (40 + 2 x 232) registers fit the SM
    if (threadIdx.x == 0) produce(q_pipe, k_pipe, v_pipe, shared, &map_q, &map_k, &map_v, order, seq, causal);
  } else {
    ptx::setmaxnreg_inc<232>();
    const int consumer = warpgroup - 1;
    for (unsigned first = 0; first < order.count(); first += gridDim.x) {  // the producer's rounds
      const unsigned t = order.pick(first);
      if (t >= order.count()) continue;
      const int qb = order.query_block(t);
      const ConsumerTask task{order.head(t) * seq, qb * block_q + consumer * 64, kv_tiles(seq, qb, causal),
                              seq, causal, scale_log2, consumer};
      if constexpr (Overlap) {
        consume_overlapped<HeadDim, PingPong>(q_pipe, k_pipe, v_pipe, shared, out, lse, task);
      } else {
        consume_in_order<HeadDim, PingPong>(q_pipe, k_pipe, v_pipe, shared, out, lse, task);
      }
    }
  }
}

// Q, K or V as batch x heads planes of seq rows of head_dim, in 128 x 64 boxes of one plane
// (a box never reads another head's rows: past the sequence it reads zeros).
cudaError_t encode_heads(CUtensorMap* map, const void* base, const AttentionShape& shape, const char** why) {
  TensorMap3d desc;
  desc.base = base;
  desc.planes = static_cast<std::uint64_t>(shape.batch) * static_cast<std::uint64_t>(shape.heads);
  desc.rows = static_cast<std::uint64_t>(shape.seq);
  desc.cols = static_cast<std::uint64_t>(shape.head_dim);
  desc.box_rows = 128;
  desc.box_cols = box_cols;
  return encode_tensor_map_3d(map, desc, why);
}

template <int HeadDim, bool Overlap, bool PingPong>
cudaError_t launch(const void* q, const void* k, const void* v, void* o, float* lse,
                   const AttentionShape& shape, float scale, const AttentionConfig& config,
                   cudaStream_t stream, const char** why) {
  CUtensorMap map_q, map_k, map_v;
  cudaError_t status = encode_heads(&map_q, q, shape, why);
  if (status != cudaSuccess) return status;
  if ((status = encode_heads(&map_k, k, shape, why)) != cudaSuccess) return status;
  if ((status = encode_heads(&map_v, v, shape, why)) != cudaSuccess) return status;
  const auto kernel = attention_kernel<HeadDim, Overlap, PingPong>;
  status = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                static_cast<int>(smem_bytes<HeadDim>));
  if (status != cudaSuccess) return status;
  constexpr float log2e = 1.4426950408889634f;
  const TileOrder order{(shape.seq + block_q - 1) / block_q, shape.batch * shape.heads,
                        config.persistent && shape.causal};
  unsigned ctas = order.count();
  if (config.persistent) {  // by default a CTA per SM (the shared memory allows one), each taking several tiles
    int wanted = config.persistent_ctas;
    if (wanted == 0) {
      int device = 0;
      if ((status = cudaGetDevice(&device)) != cudaSuccess) return status;
      if ((status = cudaDeviceGetAttribute(&wanted, cudaDevAttrMultiProcessorCount, device)) != cudaSuccess)
        return status;
    }
    ctas = static_cast<unsigned>(wanted) < ctas ? static_cast<unsigned>(wanted) : ctas;
  }
  kernel<<<ctas, threads, smem_bytes<HeadDim>, stream>>>(map_q, map_k, map_v, static_cast<std::uint16_t*>(o), lse,
                                                         shape.seq, order, shape.causal, scale * log2e);
  return cudaGetLastError();
}

// launch, for the head dim known only at run time.
template <bool Overlap, bool PingPong>
cudaError_t launch_schedule(const void* q, const void* k, const void* v, void* o, float* lse,
                           const AttentionShape& shape, float scale, const AttentionConfig& config,
                           cudaStream_t stream, const char** why) {
  return shape.head_dim == 128 ? launch<128, Overlap, PingPong>(q, k, v, o, lse, shape, scale, config, stream, why)
                               : launch<64, Overlap, PingPong>(q, k, v, o, lse, shape, scale, config, stream, why);
}
}  // namespace

cudaError_t attention_bf16(const void* q, const void* k, const void* v, void* o, float* lse,
                           const AttentionShape& shape, float scale, const AttentionConfig& config,
                           cudaStream_t stream, const char** why) {
  const auto reject = [why](const char* reason) {
    if (why != nullptr) *why = reason;
    return cudaErrorInvalidValue;
  };
  if (shape.head_dim != 64 && shape.head_dim != 128) return reject("head_dim must be 64 or 128");
  if (shape.batch < 1 || shape.heads < 1 || shape.seq < 1)
    return reject("batch, heads and seq must be at least 1");
  if (static_cast<long long>(shape.batch) * shape.heads * shape.seq >= (1ll << 31))
    return reject("batch x heads x seq must be below 2^31 rows");
  if (!(scale > 0.0f)) return reject("scale must be positive (usually 1 / sqrt(head_dim))");
  if (config.persistent_ctas < 0) return reject("persistent_ctas must be 0 (a CTA per SM) or a CTA count");
  if (q == nullptr || k == nullptr || v == nullptr || o == nullptr)
    return reject("Q, K, V and O must be device pointers, not null");
  for (const void* p : {q, k, v, static_cast<const void*>(o)}) {
    if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0)
      return reject("Q, K, V and O must be 16-byte aligned (the tensor copy engine's granule)");
  }
  if (lse != nullptr && reinterpret_cast<std::uintptr_t>(lse) % 4 != 0)
    return reject("LSE must be 4-byte aligned");
  using Launch = cudaError_t (*)(const void*, const void*, const void*, void*, float*, const AttentionShape&,
                                 float, const AttentionConfig&, cudaStream_t, const char**);
  constexpr Launch by_schedule[2][2] = {{launch_schedule<false, false>, launch_schedule<false, true>},
                                        {launch_schedule<true, false>, launch_schedule<true, true>}};
  return by_schedule[config.overlap_softmax][config.pingpong](q, k, v, o, lse, shape, scale, config, stream, why);
}

cudaError_t attention_bf16(const void* q, const void* k, const void* v, void* o, float* lse,
                           const AttentionShape& shape, float scale, cudaStream_t stream, const char** why) {
  return attention_bf16(q, k, v, o, lse, shape, scale, AttentionConfig{}, stream, why);
}

}  // namespace linpipe::kernels

extern "C" int linpipe_attention_bf16(const void* q, const void* k, const void* v, void* o, float* lse,
                                      int batch, int heads, int seq, int head_dim, int causal,
                                      float scale, int overlap_softmax, int pingpong, int persistent,
                                      void* stream) {
  linpipe::kernels::AttentionShape shape;
  shape.batch = batch;
  shape.heads = heads;
  shape.seq = seq;
  shape.head_dim = head_dim;
  shape.causal = causal != 0;
  const char* why = nullptr;
  linpipe::kernels::AttentionConfig config;
  config.overlap_softmax = overlap_softmax != 0;
  config.pingpong = pingpong != 0;
  config.persistent = persistent != 0;
  const cudaError_t status = linpipe::kernels::attention_bf16(q, k, v, o, lse, shape, scale, config,
                                                              static_cast<cudaStream_t>(stream), &why);
  if (status == cudaErrorInvalidValue && why != nullptr) std::fprintf(stderr, "linpipe_attention_bf16: %s\n", why);
  return static_cast<int>(status);
}
