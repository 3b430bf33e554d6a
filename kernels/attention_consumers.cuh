// The consumer warpgroups' two schedules (each step in turn, or the softmax overlapped with
// the tensor cores), with optional ping-pong turns between the warpgroups.
// Part of attention_kernels.cu (see there); included in order, after `import linpipe;`.
#pragma once

namespace linpipe::kernels {
namespace {

// The consumer warpgroups taking turns to issue their wgmma batches (FlashAttention 3's
// ping-pong): 0, then 1 (then 2), then 0 again, so the tensor cores run one warpgroup's
// products while the others compute their softmax rather than interleaving all. All take the
// same number of turns and the last warpgroup passes none after its own last, so every
// barrier phase completes before the CTA exits. Disabled, it is nothing: each warpgroup
// issues when ready.
template <class B, bool Enabled>
class IssueTurns {
 public:
  __device__ IssueTurns(int warpgroup, int turns)
      : turns_(static_cast<std::uint32_t>(warpgroup)), left_(turns) {
    if constexpr (Enabled) turns_.open();
  }
  // Before the wgmma.fence of this warpgroup's next batch.
  __device__ void wait() {
    if constexpr (Enabled) turns_.wait();
  }
  // Once the batch is committed: the other warpgroup may issue.
  __device__ void pass() {
    --left_;
    if constexpr (Enabled) turns_.pass_unless_last(left_ == 0);
  }
  // A turn taken without issuing (a tile the warpgroup's rows do not see).
  __device__ void skip() {
    wait();
    pass();
  }

 private:
  typename B::Turns turns_;
  int left_;
};

// S = Q K^T for the next K tile on its own: one wgmma group issued in this warpgroup's turn
// and waited for, then the K stage released. Both schedules start with it.
template <class B, bool PingPong>
__device__ __forceinline__ void score_step(KvPipeline& k_pipe, SharedMemory<B>& shared,
                                           std::uint64_t q_desc, IssueTurns<B, PingPong>& turns,
                                           float (&s)[64]) {
  auto k = k_pipe.acquire_consumer();
  const std::uint64_t k_desc = k_descriptor(shared.k[k]);
  turns.wait();
  ptx::wgmma_fence();
  score_tile<B>(s, q_desc, k_desc);
  ptx::wgmma_commit_group();
  turns.pass();
  ptx::wgmma_wait_group<0>();
  ptx::wgmma_fence_operands(s);  // S is read after the wait
  k.release();
}

// O += P V for the next V tile on its own, or for its first 64 keys where `half` (the rows'
// last tile: ConsumerTask::last_tile_half): P and the rescaled O are written before the fence,
// one wgmma group issued in this warpgroup's turn and waited for, then the V stage released.
// Both schedules end with it.
template <class B, bool PingPong>
__device__ __forceinline__ void pv_step(KvPipeline& v_pipe, SharedMemory<B>& shared,
                                        float (&o)[B::head_dim / 2], std::uint32_t (&p)[32],
                                        IssueTurns<B, PingPong>& turns, bool half) {
  auto v = v_pipe.acquire_consumer();
  const std::uint64_t v_desc = v_descriptor(shared.v[v]);
  ptx::wgmma_fence_operands(o);
  ptx::wgmma_fence_operands(p);
  turns.wait();
  // Each form from its own fence to its commit: ptxas serialises every wgmma of the kernel
  // where a branch divides a batch (C7520). (S = Q K^T halved the same way ran out of
  // registers for the wgmma pipeline, C7511, so S stays whole.)
  if (half) {
    ptx::wgmma_fence();
    accumulate_pv<B::head_dim, block_kv / 2>(o, p, v_desc);
    ptx::wgmma_commit_group();
  } else {
    ptx::wgmma_fence();
    accumulate_pv<B::head_dim>(o, p, v_desc);
    ptx::wgmma_commit_group();
  }
  turns.pass();
  ptx::wgmma_wait_group<0>();
  ptx::wgmma_fence_operands(o);  // O is read after the wait
  v.release();
}

// The block's K/V tiles after the warpgroup's own (ConsumerTask::tiles .. loaded_tiles - 1),
// which its rows do not see: each stage released unread as it lands, and the tile's turns
// taken without issuing where the schedule takes them (TurnsPerTile: in order, S's turn once K
// has landed and P V's once V has; overlapped, one once both have). No wait comes before the
// schedule's own for a computed tile and no release after it, so the other warpgroups' stages
// and turns move as before (a turn taken only after all the tiles deadlocks).
template <int TurnsPerTile, class B, bool PingPong>
__device__ __forceinline__ void skip_unseen_tiles(KvPipeline& k_pipe, KvPipeline& v_pipe,
                                                  IssueTurns<B, PingPong>& turns, const ConsumerTask& task) {
  static_assert(TurnsPerTile == 1 || TurnsPerTile == 2, "a turn a tile (overlapped) or two (in order)");
  for (int j = task.tiles; j < task.loaded_tiles; ++j) {
    auto k = k_pipe.acquire_consumer();
    k.release();
    if constexpr (TurnsPerTile == 2) turns.skip();
    auto v = v_pipe.acquire_consumer();
    v.release();
    turns.skip();
  }
}

// One consumer warpgroup (all 128 threads), one step at a time: S = Q K^T, the softmax, then
// O += P V, each waiting for the last (the reference schedule). Two turns a tile the block
// loads. Lazy: the softmax's lazy rescaling (softmax_tile).
template <class B, bool PingPong, bool Lazy>
__device__ __forceinline__ void consume_in_order(typename B::QPipeline& q_pipe, typename B::QLag& q_lag,
                                                 KvPipeline& k_pipe, KvPipeline& v_pipe, SharedMemory<B>& shared,
                                                 const CUtensorMap* map_o, float* lse, const ConsumerTask& task) {
  const AccumulatorPlace f(threadIdx.x % 128);
  float o[B::head_dim / 2];
#pragma unroll
  for (float& x : o) x = 0.0f;
  RowStats stats;
  IssueTurns<B, PingPong> turns(task.warpgroup, 2 * task.loaded_tiles);
  const bool last_half = task.last_tile_half();
  // The softmax of tile j's S, then O += P V.
  const auto softmax_and_pv = [&](float (&s)[64], int j) __attribute__((always_inline)) {
    std::uint32_t p[32];
    Rescale<Lazy> rescale;
    softmax_tile<Lazy>(s, rescale, stats, f, task, j * block_kv);
    pack_p(s, p);
    rescale_rows(o, rescale);
    pv_step<B>(v_pipe, shared, o, p, turns, last_half && j + 1 == task.tiles);
  };

  auto q = q_pipe.acquire_consumer();
  typename B::QTile& q_tile = shared.q[q];
  const std::uint64_t q_desc = q_descriptor(q_tile, task.warpgroup);
  {
    float s[64];
    score_step<B>(k_pipe, shared, q_desc, turns, s);
    q_lag.push(std::move(q));  // held past the store; frees the last block's (see QLag)
    softmax_and_pv(s, 0);
  }
  for (int j = 1; j < task.tiles; ++j) {
    float s[64];
    score_step<B>(k_pipe, shared, q_desc, turns, s);
    softmax_and_pv(s, j);
  }
  skip_unseen_tiles<2>(k_pipe, v_pipe, turns, task);
  store_rows<B>(o, stats, f, task, q_tile, map_o, lse);
}

// One consumer warpgroup, the softmax overlapped with the tensor cores: with P(j) ready, it
// issues S(j+1) = Q K(j+1)^T and then O += P(j) V(j) as two wgmma groups, waits for the first
// only, and computes P(j+1) in fp32 while the second runs; once that group has retired (it
// reads P(j)'s registers and writes O), P(j+1) is packed to bf16 and O rescaled. A turn per
// tile the block loads and one more (the last P V).
template <class B, bool PingPong, bool Lazy>
__device__ __forceinline__ void consume_overlapped(typename B::QPipeline& q_pipe, typename B::QLag& q_lag,
                                                   KvPipeline& k_pipe, KvPipeline& v_pipe, SharedMemory<B>& shared,
                                                   const CUtensorMap* map_o, float* lse, const ConsumerTask& task) {
  const AccumulatorPlace f(threadIdx.x % 128);
  float o[B::head_dim / 2];
#pragma unroll
  for (float& x : o) x = 0.0f;
  RowStats stats;
  std::uint32_t p[32];  // P of the tile whose V comes next
  IssueTurns<B, PingPong> turns(task.warpgroup, task.loaded_tiles + 1);

  auto q = q_pipe.acquire_consumer();
  typename B::QTile& q_tile = shared.q[q];
  const std::uint64_t q_desc = q_descriptor(q_tile, task.warpgroup);
  {
    float s[64];
    score_step<B>(k_pipe, shared, q_desc, turns, s);
    q_lag.push(std::move(q));  // held past the store; frees the last block's (see QLag)
    Rescale<Lazy> rescale;  // O is still zero: nothing to rescale
    softmax_tile<Lazy>(s, rescale, stats, f, task, 0);
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
    score_tile<B>(s, q_desc, k_desc);
    ptx::wgmma_commit_group();
    accumulate_pv<B::head_dim>(o, p, v_desc);
    ptx::wgmma_commit_group();
    turns.pass();
    ptx::wgmma_wait_group<1>();  // S(j+1) has retired; O += P(j) V(j) may still run
    ptx::wgmma_fence_operands(s);
    k.release();
    Rescale<Lazy> rescale;
    softmax_tile<Lazy>(s, rescale, stats, f, task, (j + 1) * block_kv);
    ptx::wgmma_wait_group<0>();  // P(j) V(j) has retired: O and p are free
    ptx::wgmma_fence_operands(o);
    ptx::wgmma_fence_operands(p);
    v.release();
    // Only now: P(j + 1) into the registers P(j)'s wgmma read (ptxas serialises the wgmma,
    // C7513, if they are written while it may still run).
    pack_p(s, p);
    rescale_rows(o, rescale);
  }
  pv_step<B>(v_pipe, shared, o, p, turns, task.last_tile_half());  // the last tile's P V
  skip_unseen_tiles<1>(k_pipe, v_pipe, turns, task);
  store_rows<B>(o, stats, f, task, q_tile, map_o, lse);
}

}  // namespace
}  // namespace linpipe::kernels
