// attention_bf16's kernels (see attention.h). A CTA computes a block of 128 query rows (two
// consumer warpgroups) or, at head dim 64, 192 (three; Blocking says which) of one (batch,
// head) at a time: one such query block, or (persistent grid) several in turn, as the
// schedule hands them out. The producer warpgroup's first lane loads, through three linpipe
// pipelines: each query block's Q tile once (a two-stage pipeline: the consumers stage the
// block's output over its Q rows and free the stage once the next block's first S has
// retired, so the next block's Q lands during this one), then each K tile and each V tile
// into its own two-stage ring, so the next K tile lands while the consumers still multiply by
// this V.
// Consumer warpgroup w owns query rows 64w..64w+63: per K/V tile its rows see (the block's
// others, past their diagonal or all past the sequence, it releases unread) it computes
// S = Q K^T with wgmma (both operands K-major in 128B-swizzled shared memory), masks the tail
// and the causal triangle, updates the running row maximum and sum (base 2, fp32), rescales
// its output accumulators, converts P to bf16 in registers (an m64nNk16 accumulator's layout
// is wgmma's register-A layout) and adds P V with wgmma (V N-major: tensor-map rows are keys). Each
// stage is released once the wgmma group reading it has retired. Two schedules
// (AttentionConfig): each step waiting for the last, or the next tile's S issued with this
// tile's P V so the softmax runs while the tensor cores do; with either, the warpgroups may
// take turns issuing (ping-pong) so that one's softmax runs under the others' products.
// At the block's end each warpgroup stages O over its Q rows and stores it with TMA.
// Each head is a plane of the 3-D tensor maps: rows of a tile past the sequence are read as
// zeros (never another head's rows) and masked, and are not stored. Grouped-query attention
// (HeadPacking): a CTA's 128 query rows may hold several query heads that share a K/V head,
// rows_per_head(128) rows of each, so every K/V tile loaded serves all of them.
//
// The kernel's parts, one job a file, included below in order: attention_layout.cuh (the
// blocking: roles, tiles, pipelines, shared memory, named barriers), attention_schedule.cuh (which tiles a CTA
// takes), attention_producer.cuh (the TMA loads), attention_softmax.cuh (the online softmax),
// attention_mma.cuh (S = Q K^T and O += P V on wgmma), attention_epilogue.cuh (O and the
// log-sum-exp stored), attention_consumers.cuh (the two consumer schedules). This file: the
// kernels. The host side (checks, tensor maps, the launch, the C entry point) is
// attention_launch.cu, compiled once; attention_kernels.h is what it needs of this one.
#include "attention.h"

#include <cuda.h>  // CUtensorMap and its enums: types only, nothing links libcuda
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <utility>

import linpipe;

#include "attention_kernels.h"
#include "attention_layout.cuh"
#include "attention_schedule.cuh"
#include "attention_producer.cuh"
#include "attention_softmax.cuh"
#include "attention_mma.cuh"
#include "attention_epilogue.cuh"
#include "attention_consumers.cuh"

namespace linpipe::kernels {
namespace {

// Dynamic: the CTA's leader (the producer's issuing lane) claims query blocks from
// work.claimed's counter and every consumer thread follows its claims; else every role walks
// work.tiles. Lazy: the softmax's lazy rescaling (attention_softmax.cuh).
template <class B, bool Overlap, bool PingPong, bool Dynamic, bool Lazy>
__global__ void __launch_bounds__(B::Roles::threads, 1)
    attention_kernel(const __grid_constant__ CUtensorMap map_q, const __grid_constant__ CUtensorMap map_k,
                     const __grid_constant__ CUtensorMap map_v, const __grid_constant__ CUtensorMap map_o,
                     float* lse, int seq, AttentionWork work, HeadPacking packing, bool causal,
                     float scale_log2) {
  extern __shared__ __align__(1024) std::byte smem_raw[];
  using Roles = typename B::Roles;
  SharedMemory<B>& shared = Plan<B>::place(smem_raw);
  // An early-started next kernel (AttentionConfig::early_start) may be scheduled as SMs free up.
  ptx::griddepcontrol_launch_dependents();
  const Roles me = Roles::this_thread();
  const bool issuer = me.is_producer() && me.warp() == 0 && me.leader();
  if (issuer) {
    // Full: one arrival (the producer's expect-tx) plus the bytes; empty: every consumer
    // thread, each releasing its stages itself (ReleaseStage; Q's once the output store staged
    // over them has read them, ReleaseAfterStoreRead).
    typename B::QPipeline(shared.q.barriers).init_mbars(Arrivals<Roles, ReleaseAfterStoreRead>{});
    KvPipeline(shared.k.barriers).init_mbars(Arrivals<Roles, ReleaseStage>{});
    KvPipeline(shared.v.barriers).init_mbars(Arrivals<Roles, ReleaseStage>{});
    ptx::prefetch_tensormap(&map_q);
    ptx::prefetch_tensormap(&map_k);
    ptx::prefetch_tensormap(&map_v);
    ptx::prefetch_tensormap(&map_o);
    if constexpr (Dynamic) AttentionClaimedSchedule::init(shared.work, Roles::consumer_threads);
  }
  __syncthreads();
  // Launched early: the kernel before has finished, and its writes are visible, before any
  // thread claims a block, loads Q, K or V, or stores O or the LSE. A no-op otherwise.
  ptx::griddepcontrol_wait();

  typename B::QPipeline q_pipe(shared.q.barriers, "attention q");
  KvPipeline k_pipe(shared.k.barriers, "attention k");
  KvPipeline v_pipe(shared.v.barriers, "attention v");
  // The producer warpgroup gives its registers to the consumers' accumulators.
  me.template run_with_register_budget<B::producer_registers, B::consumer_registers>(
      [&] {
        if (!issuer) return;
        if constexpr (Dynamic) {
          produce(q_pipe, k_pipe, v_pipe, shared, &map_q, &map_k, &map_v, work.claimed.lead(shared.work),
                  packing, seq, causal);
        } else {
          produce(q_pipe, k_pipe, v_pipe, shared, &map_q, &map_k, &map_v, work.tiles.items(), packing,
                  seq, causal);
        }
      },
      [&] {
        const int consumer = static_cast<int>(me.consumer());
        // One query block; inlined, as the role bodies are (see run_with_register_budget).
        const auto consume = [&](const WorkItem& item, typename B::QLag& q_lag) __attribute__((always_inline)) {
          const ConsumerTask task(QueryBlock(item, packing, B::block_q, seq, causal), packing, B::block_q,
                                  consumer, seq, causal, scale_log2);
          if constexpr (Overlap) {
            consume_overlapped<B, PingPong, Lazy>(q_pipe, q_lag, k_pipe, v_pipe, shared, &map_o, lse, task);
          } else {
            consume_in_order<B, PingPong, Lazy>(q_pipe, q_lag, k_pipe, v_pipe, shared, &map_o, lse, task);
          }
        };
        typename B::QLag q_lag;
        if constexpr (Dynamic) {
          for (const WorkItem item : work.claimed.follow(shared.work)) consume(item, q_lag);
        } else {
          for (const WorkItem item : work.tiles.items()) consume(item, q_lag);
        }
        q_lag.flush();  // the last block's Q, once its store has read it
      });
  // Every output store has completed before the CTA (and its staging) goes away; out here
  // where the roles have joined (see the GEMM on why).
  B::OutputStore::finish();
}

// The kernel of a schedule, or null for one the blocking does not build: with three consumer
// warpgroups, the overlapped schedule's second S and P plus the ping-pong turn's state exceed
// their 160 registers (ptxas spills 16 bytes), so that pair is not offered; lazy rescaling is
// built at head dim 128 only (measured on long rows there; attention_bf16 says so).
template <class B, bool Overlap, bool PingPong, bool Dynamic, bool Lazy>
constexpr AttentionKernel kernel_if_built() {
  if constexpr ((B::warpgroups == 3 && Overlap && PingPong) || (Lazy && B::head_dim != 128)) {
    return nullptr;
  } else {
    return attention_kernel<B, Overlap, PingPong, Dynamic, Lazy>;
  }
}

template <class B, bool Lazy>
AttentionKernel kernel_for(bool overlap_softmax, bool pingpong, bool dynamic) {
  constexpr AttentionKernel by_schedule[2][2][2] = {
      {{kernel_if_built<B, false, false, false, Lazy>(), kernel_if_built<B, false, true, false, Lazy>()},
       {kernel_if_built<B, true, false, false, Lazy>(), kernel_if_built<B, true, true, false, Lazy>()}},
      {{kernel_if_built<B, false, false, true, Lazy>(), kernel_if_built<B, false, true, true, Lazy>()},
       {kernel_if_built<B, true, false, true, Lazy>(), kernel_if_built<B, true, true, true, Lazy>()}}};
  return by_schedule[dynamic][overlap_softmax][pingpong];
}

// Calls `use` with the blocking the kernels are built for at (head_dim, warpgroups): the one
// place that maps the launch's numbers to a Blocking.
template <class Use>
auto with_blocking(int head_dim, int warpgroups, Use&& use) {
  if (head_dim == 128) return use(Blocking<128, 2>{});
  if (warpgroups == 3) return use(Blocking<64, 3>{});
  return use(Blocking<64, 2>{});
}

}  // namespace

AttentionKernel attention_kernel_for(int head_dim, int warpgroups, bool overlap_softmax, bool pingpong,
                                     bool dynamic, bool lazy_rescale) {
  return with_blocking(head_dim, warpgroups, [&]<class B>(B) {
    return lazy_rescale ? kernel_for<B, true>(overlap_softmax, pingpong, dynamic)
                        : kernel_for<B, false>(overlap_softmax, pingpong, dynamic);
  });
}

std::size_t attention_shared_bytes(int head_dim, int warpgroups) {
  return with_blocking(head_dim, warpgroups, []<class B>(B) { return Plan<B>::launch_bytes(); });
}

}  // namespace linpipe::kernels
