// attention_bf16's host side (the kernels: attention_kernels.cu): the argument checks, the
// head packing, the tensor maps of Q, K, V and O, the launch through linpipe::launch, and the
// C entry points that attention_bench.py loads. Compiled once, apart from the kernels.
#include "attention.h"

#include <cuda.h>  // CUtensorMap and its enums: types only, nothing links libcuda
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>

import linpipe;

#include "attention_kernels.h"

namespace linpipe::kernels {
namespace {

// Q, K, V or O as `planes` planes (batch x heads, or batch x kv_heads) of seq rows of
// head_dim, in boxes of `box_rows` x 64 of each of `box_planes` planes (a box never reads or
// writes past a head's rows: past the sequence a load reads zeros and a store writes nothing).
cudaError_t encode_heads(CUtensorMap* map, const void* base, const AttentionShape& shape, int planes,
                         std::uint32_t box_rows, std::uint32_t box_planes, const char** why) {
  TensorMap3d desc;
  desc.base = base;
  desc.planes = static_cast<std::uint64_t>(shape.batch) * static_cast<std::uint64_t>(planes);
  desc.rows = static_cast<std::uint64_t>(shape.seq);
  desc.cols = static_cast<std::uint64_t>(shape.head_dim);
  desc.box_planes = box_planes;
  desc.box_rows = box_rows;
  desc.box_cols = attention_box_cols;
  return encode_tensor_map_3d(map, desc, why);
}

int kv_heads_of(const AttentionShape& shape) { return shape.kv_heads == 0 ? shape.heads : shape.kv_heads; }

// How many rows of the schedule (query heads, or packed groups of them) a dynamic walk keeps
// in flight: as many as have their K and V within half of L2 (rows of one K/V head share its
// K and V), at least one.
std::uint32_t rows_per_band(const AttentionShape& shape, const HeadPacking& packing) {
  int device = 0, l2_bytes = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device) != cudaSuccess || l2_bytes <= 0)
    return 0;  // unknown: all rows in one band
  const std::uint64_t kv_bytes = 2ull * 2 * static_cast<std::uint64_t>(shape.seq) * shape.head_dim;
  const std::uint64_t kv_heads = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(l2_bytes) / 2 / kv_bytes);
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(kv_heads * (packing.group / packing.packed), 0xffffffffu));
}

cudaError_t launch(const void* q, const void* k, const void* v, void* o, float* lse,
                   const AttentionShape& shape, float scale, const AttentionConfig& config,
                   cudaStream_t stream, const char** why) {
  const int kv_heads = kv_heads_of(shape);
  HeadPacking packing;
  packing.group = shape.heads / kv_heads;
  packing.packed = config.query_warpgroups == 3 ? 1
                   : config.packed_heads == 0  ? attention_packed_heads(shape)
                                               : config.packed_heads;
  const int block_q = 64 * config.query_warpgroups;
  const auto rows = static_cast<std::uint32_t>(packing.rows_per_head(block_q));
  const auto packed = static_cast<std::uint32_t>(packing.packed);
  const auto o_rows = static_cast<std::uint32_t>(packing.warpgroup_rows_per_head(block_q));
  const auto o_heads = static_cast<std::uint32_t>(packing.warpgroup_heads(block_q));
  CUtensorMap map_q, map_k, map_v, map_o;
  cudaError_t status = encode_heads(&map_q, q, shape, shape.heads, rows, packed, why);
  if (status != cudaSuccess) return status;
  if ((status = encode_heads(&map_k, k, shape, kv_heads, attention_block_kv, 1, why)) != cudaSuccess) return status;
  if ((status = encode_heads(&map_v, v, shape, kv_heads, attention_block_kv, 1, why)) != cudaSuccess) return status;
  if ((status = encode_heads(&map_o, o, shape, shape.heads, o_rows, o_heads, why)) != cudaSuccess) return status;
  constexpr float log2e = 1.4426950408889634f;
  const int batch_heads = shape.batch * shape.heads;
  // The dynamic kernels' counter: one per stream (linpipe:stream_scratch), left at zero by each
  // launch for the next; the first may be inside a graph capture.
  static const char counter_tag = 0;
  WorkCounter* counter = nullptr;
  if (config.dynamic && (status = stream_scratch(stream, &counter_tag, &counter)) != cudaSuccess) {
    if (why != nullptr) *why = "attention_bf16: could not set up the dynamic schedule's counter";
    return status;
  }
  const AttentionWork work{
      attention_schedule(batch_heads, shape.seq, packing, block_q, config.persistent && shape.causal),
      attention_claimed_schedule(batch_heads, shape.seq, packing, block_q,
                                 config.dynamic ? rows_per_band(shape, packing) : 0, counter)};
  // Persistent: by default a CTA per SM (the shared memory allows one), each taking several
  // query blocks.
  const LaunchResult launched = linpipe::launch(
      attention_kernel_for(shape.head_dim, config.query_warpgroups, config.overlap_softmax, config.pingpong,
                           config.dynamic, config.lazy_rescale),
      {.threads = attention_threads(config.query_warpgroups),
       .shared_bytes = attention_shared_bytes(shape.head_dim, config.query_warpgroups),
       .items = work.tiles.count(),
       .grid = config.persistent ? GridKind::persistent : GridKind::one_per_item,
       .max_ctas = static_cast<unsigned>(config.persistent_ctas), .stream = stream,
       .early_start = config.early_start},
      map_q, map_k, map_v, map_o, lse, shape.seq, work, packing, shape.causal, scale * log2e);
  if (!launched && why != nullptr) *why = kept_why(launched);
  return launched.status;
}

bool power_of_two(int x) { return x > 0 && (x & (x - 1)) == 0; }

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
  if (shape.kv_heads < 0 || shape.kv_heads > shape.heads || (shape.kv_heads > 0 && shape.heads % shape.kv_heads != 0))
    return reject("kv_heads must divide heads (0: as many K/V heads as query heads)");
  const int group = shape.heads / kv_heads_of(shape);
  if (config.packed_heads != 0 &&
      (!power_of_two(config.packed_heads) || config.packed_heads > attention_max_packed_heads ||
       group % config.packed_heads != 0))
    return reject("packed_heads must be 0 or a power of two up to 16 dividing heads / kv_heads");
  if (config.query_warpgroups != 2 && config.query_warpgroups != 3)
    return reject("query_warpgroups must be 2 or 3");
  if (config.query_warpgroups == 3 && shape.head_dim != 64)
    return reject("query_warpgroups 3 needs head_dim 64 (at 128, three warpgroups' accumulators do not fit "
                  "the registers): use 2");
  if (config.query_warpgroups == 3 && config.overlap_softmax && config.pingpong)
    return reject("query_warpgroups 3 has no overlapped ping-pong schedule (its registers would spill): turn "
                  "off overlap_softmax or pingpong, or use 2 query warpgroups");
  if (config.lazy_rescale && shape.head_dim != 128)
    return reject("lazy_rescale is built at head_dim 128 only (it pays on long rows there): turn it off at "
                  "head_dim 64");
  if (config.query_warpgroups == 3 && config.packed_heads > 1)
    return reject("query_warpgroups 3 computes one query head per CTA: set packed_heads to 0 or 1, or use 2 "
                  "query warpgroups to pack heads");
  if (static_cast<long long>(shape.batch) * shape.heads * shape.seq >= (1ll << 31))
    return reject("batch x heads x seq must be below 2^31 rows");
  if (!(scale > 0.0f)) return reject("scale must be positive (usually 1 / sqrt(head_dim))");
  if (config.persistent_ctas < 0) return reject("persistent_ctas must be 0 (a CTA per SM) or a CTA count");
  if (config.dynamic && !config.persistent)
    return reject("dynamic claims query blocks on a persistent grid: set persistent too");
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

int attention_packed_heads(const AttentionShape& shape) {
  const int kv_heads = kv_heads_of(shape);
  if (kv_heads < 1 || shape.heads % kv_heads != 0) return 1;
  const int group = shape.heads / kv_heads;
  int packed = 1;
  while (packed < attention_max_packed_heads && group % (2 * packed) == 0) packed *= 2;
  return packed;
}

cudaError_t attention_bf16(const void* q, const void* k, const void* v, void* o, float* lse,
                           const AttentionShape& shape, float scale, cudaStream_t stream, const char** why) {
  return attention_bf16(q, k, v, o, lse, shape, scale, attention_config_for(shape), stream, why);
}

// Through the library: a program that loads it as a shared library may not share its
// stream_scratch registry.
cudaError_t attention_release_stream(cudaStream_t stream) { return stream_scratch_release(stream); }
cudaError_t attention_trim_counters() { return stream_scratch_trim(); }

AttentionConfig attention_config_for(const AttentionShape& shape) {
  AttentionConfig config;
  config.persistent = true;
  if (shape.head_dim == 64) {
    const bool grouped = kv_heads_of(shape) != shape.heads;
    if (grouped) {
      // Overlapped; three warpgroups (a CTA a query head) and the dynamic order (192-row
      // blocks leave a short last one a head) but for causal below seq 2048, where packing
      // two warpgroups' heads into a CTA wins.
      config.overlap_softmax = true;
      config.query_warpgroups = shape.causal && shape.seq < 2048 ? 2 : 3;
      config.dynamic = config.query_warpgroups == 3;
    } else if (shape.causal) {
      // Overlapped, dynamic, three warpgroups at every seq: each warpgroup computes only the
      // tiles its rows see, so the 192-row block no longer pays for its first rows' tiles.
      config.overlap_softmax = true;
      config.dynamic = true;
      config.query_warpgroups = 3;
    } else {
      // In order below seq 2048; from 2048 overlapped with three warpgroups.
      config.overlap_softmax = shape.seq >= 2048;
      config.query_warpgroups = shape.seq >= 2048 ? 3 : 2;
    }
  } else if (kv_heads_of(shape) != shape.heads) {
    // Grouped heads, either mask: overlapped; persistent while blocks are few (up to seq
    // 4096), then ping-pong on a CTA per block (the measured bounds are in docs/benchmarks.md).
    config.overlap_softmax = true;
    config.persistent = shape.seq <= 4096;
    config.pingpong = !config.persistent;
  } else if (!shape.causal) {
    // Full mask: overlapped at every seq.
    config.overlap_softmax = true;
  } else {
    // Causal: persistent and dynamic up to seq 8192 (in order up to seq 1024, then overlapped;
    // lazy rescaling above 2048 up to 4096); above that overlapped and lazy on a CTA per block.
    config.persistent = shape.seq <= 8192;
    config.dynamic = config.persistent;
    config.overlap_softmax = shape.seq > 1024;
    config.lazy_rescale = (shape.seq > 2048 && shape.seq <= 4096) || shape.seq > 8192;
  }
  return config;
}

}  // namespace linpipe::kernels

extern "C" int linpipe_attention_launch_bf16(const void* q, const void* k, const void* v, void* o, float* lse,
                                             int batch, int heads, int kv_heads, int seq, int head_dim,
                                             int causal, float scale, int overlap_softmax, int pingpong,
                                             int persistent, int dynamic, int packed_heads,
                                             int query_warpgroups, int lazy_rescale, int early_start,
                                             void* stream) {
  linpipe::kernels::AttentionShape shape;
  shape.batch = batch;
  shape.heads = heads;
  shape.kv_heads = kv_heads;
  shape.seq = seq;
  shape.head_dim = head_dim;
  shape.causal = causal != 0;
  const char* why = nullptr;
  linpipe::kernels::AttentionConfig config;
  config.overlap_softmax = overlap_softmax != 0;
  config.pingpong = pingpong != 0;
  config.persistent = persistent != 0;
  config.dynamic = dynamic != 0;
  config.packed_heads = packed_heads;
  config.query_warpgroups = query_warpgroups;
  config.lazy_rescale = lazy_rescale != 0;
  config.early_start = early_start != 0;
  const cudaError_t status = linpipe::kernels::attention_bf16(q, k, v, o, lse, shape, scale, config,
                                                              static_cast<cudaStream_t>(stream), &why);
  if (status == cudaErrorInvalidValue && why != nullptr) std::fprintf(stderr, "linpipe_attention_bf16: %s\n", why);
  return static_cast<int>(status);
}

extern "C" int linpipe_attention_options_bf16(const void* q, const void* k, const void* v, void* o, float* lse,
                                              int batch, int heads, int kv_heads, int seq, int head_dim,
                                              int causal, float scale, int overlap_softmax, int pingpong,
                                              int persistent, int dynamic, int packed_heads,
                                              int query_warpgroups, int lazy_rescale, void* stream) {
  return linpipe_attention_launch_bf16(q, k, v, o, lse, batch, heads, kv_heads, seq, head_dim, causal, scale,
                                       overlap_softmax, pingpong, persistent, dynamic, packed_heads,
                                       query_warpgroups, lazy_rescale, 0, stream);
}

extern "C" int linpipe_attention_config_bf16(const void* q, const void* k, const void* v, void* o, float* lse,
                                             int batch, int heads, int kv_heads, int seq, int head_dim,
                                             int causal, float scale, int overlap_softmax, int pingpong,
                                             int persistent, int dynamic, int packed_heads,
                                             int query_warpgroups, void* stream) {
  return linpipe_attention_options_bf16(q, k, v, o, lse, batch, heads, kv_heads, seq, head_dim, causal, scale,
                                        overlap_softmax, pingpong, persistent, dynamic, packed_heads,
                                        query_warpgroups, 0, stream);
}

extern "C" int linpipe_attention_gqa_bf16(const void* q, const void* k, const void* v, void* o, float* lse,
                                          int batch, int heads, int kv_heads, int seq, int head_dim,
                                          int causal, float scale, int overlap_softmax, int pingpong,
                                          int persistent, int dynamic, int packed_heads, void* stream) {
  return linpipe_attention_config_bf16(q, k, v, o, lse, batch, heads, kv_heads, seq, head_dim, causal, scale,
                                       overlap_softmax, pingpong, persistent, dynamic, packed_heads, 2, stream);
}

extern "C" int linpipe_attention_config_bits(int heads, int kv_heads, int seq, int head_dim, int causal) {
  linpipe::kernels::AttentionShape shape;
  shape.heads = heads;
  shape.kv_heads = kv_heads;
  shape.seq = seq;
  shape.head_dim = head_dim;
  shape.causal = causal != 0;
  const linpipe::kernels::AttentionConfig config = linpipe::kernels::attention_config_for(shape);
  return (config.overlap_softmax ? 1 : 0) | (config.pingpong ? 2 : 0) | (config.persistent ? 4 : 0) |
         (config.dynamic ? 8 : 0) | (config.query_warpgroups == 3 ? 16 : 0) | (config.lazy_rescale ? 32 : 0);
}

extern "C" int linpipe_attention_bf16(const void* q, const void* k, const void* v, void* o, float* lse,
                                      int batch, int heads, int seq, int head_dim, int causal,
                                      float scale, int overlap_softmax, int pingpong, int persistent,
                                      void* stream) {
  return linpipe_attention_gqa_bf16(q, k, v, o, lse, batch, heads, heads, seq, head_dim, causal, scale,
                                    overlap_softmax, pingpong, persistent, 0, 0, stream);
}
