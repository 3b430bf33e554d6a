// The attention kernel's tiles, pipelines and shared-memory layout: 128-row Q, K and V tiles as
// 128B-swizzled boxes, one pipeline each, and the constants every other part uses.
// Part of attention.cu's kernel (see there); included in order, after `import linpipe;`.
#pragma once

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

}  // namespace
}  // namespace linpipe::kernels
