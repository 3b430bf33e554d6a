// attention_bf16's kernel (see attention.h). A CTA computes 128 query rows of one (batch,
// head) at a time: one such query block, or (persistent grid) several in turn, as the
// schedule hands them out. The producer warpgroup's first lane loads, through three linpipe
// pipelines: each query block's Q tile once (a two-stage pipeline whose stage the consumers
// hold to the block's end, so the next block's Q lands meanwhile), then each K tile and each
// V tile into its own two-stage ring, so the next K tile lands while the consumers still
// multiply by this V.
// Consumer warpgroup w owns query rows 64w..64w+63: per K/V tile it computes S = Q K^T with
// wgmma (both operands K-major in 128B-swizzled shared memory), masks the tail and the causal
// triangle, updates the running row maximum and sum (base 2, fp32), rescales its output
// accumulators, converts P to bf16 in registers (an m64nNk16 accumulator's layout is wgmma's
// register-A layout) and adds P V with wgmma (V N-major: tensor-map rows are keys). Each
// stage is released once the wgmma group reading it has retired. Two schedules
// (AttentionConfig): each step waiting for the last, or the next tile's S issued with this
// tile's P V so the softmax runs while the tensor cores do; with either, the two warpgroups
// may take turns issuing (ping-pong) so that one's softmax runs under the other's products.
// At the block's end each warpgroup stages O in shared memory and stores it with TMA.
// Each head is a plane of the 3-D tensor maps: rows of a tile past the sequence are read as
// zeros (never another head's rows) and masked, and are not stored.
//
// The kernel's parts, one job a file, included below in order: attention_layout.cuh (roles,
// tiles, pipelines, shared memory, named barriers), attention_schedule.cuh (which tiles a CTA
// takes), attention_producer.cuh (the TMA loads), attention_softmax.cuh (the online softmax),
// attention_mma.cuh (S = Q K^T and O += P V on wgmma), attention_epilogue.cuh (O and the
// log-sum-exp stored), attention_consumers.cuh (the two consumer schedules). This file: the
// kernel, its launch and the C entry point.
#include "attention.h"

#include <cuda.h>  // CUtensorMap and its enums: types only, nothing links libcuda
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>

import linpipe;

#include "attention_layout.cuh"
#include "attention_schedule.cuh"
#include "attention_producer.cuh"
#include "attention_softmax.cuh"
#include "attention_mma.cuh"
#include "attention_epilogue.cuh"
#include "attention_consumers.cuh"

namespace linpipe::kernels {
namespace {

template <int HeadDim, bool Overlap, bool PingPong>
__global__ void __launch_bounds__(threads, 1)
    attention_kernel(const __grid_constant__ CUtensorMap map_q, const __grid_constant__ CUtensorMap map_k,
                     const __grid_constant__ CUtensorMap map_v, const __grid_constant__ CUtensorMap map_o,
                     float* lse, int seq, Schedule schedule, bool causal, float scale_log2) {
  extern __shared__ __align__(1024) std::byte smem_raw[];
  SharedMemory<HeadDim>& shared = Plan<HeadDim>::place(smem_raw);
  const Roles me = Roles::this_thread();
  const bool issuer = me.is_producer() && me.warp() == 0 && me.leader();
  if (issuer) {
    // Full: one arrival (the producer's expect-tx) plus the bytes; empty: every consumer thread.
    QPipeline(shared.q.barriers).init_mbars(1, consumer_threads);
    KvPipeline(shared.k.barriers).init_mbars(1, consumer_threads);
    KvPipeline(shared.v.barriers).init_mbars(1, consumer_threads);
    ptx::prefetch_tensormap(&map_q);
    ptx::prefetch_tensormap(&map_k);
    ptx::prefetch_tensormap(&map_v);
    ptx::prefetch_tensormap(&map_o);
  }
  __syncthreads();

  QPipeline q_pipe(shared.q.barriers, "attention q");
  KvPipeline k_pipe(shared.k.barriers, "attention k");
  KvPipeline v_pipe(shared.v.barriers, "attention v");
  // The producer warpgroup gives its registers to the consumers' accumulators: 128 x (40 +
  // 2 x 232) registers fit the SM.
  me.run_with_register_budget<40, 232>(
      [&] {
        if (issuer) produce(q_pipe, k_pipe, v_pipe, shared, &map_q, &map_k, &map_v, schedule, seq, causal);
      },
      [&] {
        const int consumer = static_cast<int>(me.consumer());
        for (const WorkItem block : schedule.items()) {
          const int head = static_cast<int>(block.tile_y), qb = static_cast<int>(block.tile_x);
          const ConsumerTask task{head, head * seq, qb * block_q + consumer * 64, kv_tiles(seq, qb, causal),
                                  seq, causal, scale_log2, consumer};
          if constexpr (Overlap) {
            consume_overlapped<HeadDim, PingPong>(q_pipe, k_pipe, v_pipe, shared, &map_o, lse, task);
          } else {
            consume_in_order<HeadDim, PingPong>(q_pipe, k_pipe, v_pipe, shared, &map_o, lse, task);
          }
        }
      });
  // Every output store has completed before the CTA (and its staging) goes away; out here
  // where the roles have joined (see the GEMM on why).
  OutputStore::finish();
}

// Q, K, V or O as batch x heads planes of seq rows of head_dim, in boxes of `box_rows` x 64 of
// one plane (a box never reads or writes another head's rows: past the sequence a load reads
// zeros and a store writes nothing).
cudaError_t encode_heads(CUtensorMap* map, const void* base, const AttentionShape& shape,
                         std::uint32_t box_rows, const char** why) {
  TensorMap3d desc;
  desc.base = base;
  desc.planes = static_cast<std::uint64_t>(shape.batch) * static_cast<std::uint64_t>(shape.heads);
  desc.rows = static_cast<std::uint64_t>(shape.seq);
  desc.cols = static_cast<std::uint64_t>(shape.head_dim);
  desc.box_rows = box_rows;
  desc.box_cols = box_cols;
  return encode_tensor_map_3d(map, desc, why);
}

// A launch's failure, kept for `why` until this thread's next launch fails.
const char* launch_failure(const LaunchResult& launched) {
  thread_local char kept[sizeof(LaunchResult::why)];
  std::snprintf(kept, sizeof(kept), "%s", launched.why);
  return kept;
}

template <int HeadDim, bool Overlap, bool PingPong>
cudaError_t launch(const void* q, const void* k, const void* v, void* o, float* lse,
                   const AttentionShape& shape, float scale, const AttentionConfig& config,
                   cudaStream_t stream, const char** why) {
  CUtensorMap map_q, map_k, map_v, map_o;
  cudaError_t status = encode_heads(&map_q, q, shape, block_q, why);
  if (status != cudaSuccess) return status;
  if ((status = encode_heads(&map_k, k, shape, block_kv, why)) != cudaSuccess) return status;
  if ((status = encode_heads(&map_v, v, shape, block_kv, why)) != cudaSuccess) return status;
  if ((status = encode_heads(&map_o, o, shape, store_rows_per_box, why)) != cudaSuccess) return status;
  constexpr float log2e = 1.4426950408889634f;
  const Schedule schedule = query_blocks(shape.batch * shape.heads, shape.seq, config.persistent && shape.causal);
  // Persistent: by default a CTA per SM (the shared memory allows one), each taking several
  // query blocks.
  const LaunchResult launched = linpipe::launch(
      attention_kernel<HeadDim, Overlap, PingPong>,
      {.threads = threads, .shared_bytes = Plan<HeadDim>::launch_bytes(), .items = schedule.count(),
       .grid = config.persistent ? GridKind::persistent : GridKind::one_per_item,
       .max_ctas = static_cast<unsigned>(config.persistent_ctas), .stream = stream},
      map_q, map_k, map_v, map_o, lse, shape.seq, schedule, shape.causal, scale * log2e);
  if (!launched && why != nullptr) *why = launch_failure(launched);
  return launched.status;
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
