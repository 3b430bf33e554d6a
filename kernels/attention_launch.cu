// attention_bf16's host side (the kernels: attention_kernels.cu): the argument checks, the
// tensor maps of Q, K, V and O, the launch through linpipe::launch, and the C entry point that
// attention_bench.py loads. Compiled once, apart from the kernels.
#include "attention.h"

#include <cuda.h>  // CUtensorMap and its enums: types only, nothing links libcuda
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>

import linpipe;

#include "attention_kernels.h"

namespace linpipe::kernels {
namespace {

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
  desc.box_cols = attention_box_cols;
  return encode_tensor_map_3d(map, desc, why);
}

cudaError_t launch(const void* q, const void* k, const void* v, void* o, float* lse,
                   const AttentionShape& shape, float scale, const AttentionConfig& config,
                   cudaStream_t stream, const char** why) {
  CUtensorMap map_q, map_k, map_v, map_o;
  cudaError_t status = encode_heads(&map_q, q, shape, attention_block_q, why);
  if (status != cudaSuccess) return status;
  if ((status = encode_heads(&map_k, k, shape, attention_block_kv, why)) != cudaSuccess) return status;
  if ((status = encode_heads(&map_v, v, shape, attention_block_kv, why)) != cudaSuccess) return status;
  if ((status = encode_heads(&map_o, o, shape, attention_o_box_rows, why)) != cudaSuccess) return status;
  constexpr float log2e = 1.4426950408889634f;
  const AttentionSchedule schedule =
      attention_schedule(shape.batch * shape.heads, shape.seq, config.persistent && shape.causal);
  // Persistent: by default a CTA per SM (the shared memory allows one), each taking several
  // query blocks.
  const LaunchResult launched = linpipe::launch(
      attention_kernel_for(shape.head_dim, config.overlap_softmax, config.pingpong),
      {.threads = attention_threads, .shared_bytes = attention_shared_bytes(shape.head_dim),
       .items = schedule.count(),
       .grid = config.persistent ? GridKind::persistent : GridKind::one_per_item,
       .max_ctas = static_cast<unsigned>(config.persistent_ctas), .stream = stream},
      map_q, map_k, map_v, map_o, lse, shape.seq, schedule, shape.causal, scale * log2e);
  if (!launched && why != nullptr) *why = kept_why(launched);
  return launched.status;
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
  return launch(q, k, v, o, lse, shape, scale, config, stream, why);
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
