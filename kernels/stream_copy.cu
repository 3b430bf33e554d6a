// stream_copy's kernel: acquire, copy, release on linpipe stages. See stream_copy.h.
#include "stream_copy.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

import linpipe;

namespace linpipe::kernels {
namespace {

constexpr std::uint32_t barrier_bytes = 128;  // room for 2 x 8 barriers, keeps tiles aligned

struct Tiles {
  const std::byte* src;
  std::byte* dst;
  std::size_t count;        // tiles covering the 16-byte-multiple prefix
  std::size_t bulk_bytes;   // that prefix
  std::uint32_t tile_bytes;

  __device__ std::uint32_t size(std::size_t tile) const {
    const std::size_t left = bulk_bytes - tile * tile_bytes;
    return static_cast<std::uint32_t>(left < tile_bytes ? left : tile_bytes);
  }
};

// One lane: load each of this block's tiles into the next empty stage.
template <class Pipeline>
__device__ void produce_tiles(Pipeline& pipe, std::byte* ring, const Tiles& tiles) {
  for (std::size_t t = blockIdx.x; t < tiles.count; t += gridDim.x) {
    auto stage = pipe.acquire_producer();
    const std::uint32_t bytes = tiles.size(t);
    const auto full = stage.mbar();
    full.arrive_expect_tx(bytes);  // the phase completes when the copy's bytes have landed
    ptx::cp_async_bulk_global_to_shared(ring + stage.index() * tiles.tile_bytes,
                                        tiles.src + t * tiles.tile_bytes, bytes, full.address());
    stage.release();
  }
  pipe.drain();  // every stage released before the block's shared memory goes away
}

// One lane per consumer warp: store this warp's slice of each full stage. The stage's empty
// barrier is signalled once the store has READ the slot, one tile later, so a store is always in
// flight while the next tile is awaited (with one stage there is nothing to overlap).
template <int Stages, class Pipeline>
__device__ void consume_tiles(Pipeline& pipe, const std::byte* ring, const Tiles& tiles,
                              std::uint32_t warp, std::uint32_t warps) {
  constexpr bool defer_signal = Stages > 1;
  MbarHandle pending(nullptr);
  for (std::size_t t = blockIdx.x; t < tiles.count; t += gridDim.x) {
    auto stage = pipe.acquire_consumer();
    const std::uint32_t bytes = tiles.size(t);
    const std::uint32_t slice = (bytes / warps + 15u) & ~15u;
    const std::uint32_t begin = warp * slice;
    if (begin < bytes) {
      const std::uint32_t length = bytes - begin < slice ? bytes - begin : slice;
      ptx::cp_async_bulk_shared_to_global(tiles.dst + t * tiles.tile_bytes + begin,
                                          ring + stage.index() * tiles.tile_bytes + begin, length);
    }
    ptx::cp_async_bulk_commit_group();
    const auto empty = stage.mbar();
    stage.release_without_signal();  // signalled below through `empty`, once the store has read it
    if constexpr (defer_signal) {
      ptx::cp_async_bulk_wait_group_read<1>();
      if (pending.address() != nullptr) pending.arrive();
      pending = empty;
    } else {
      ptx::cp_async_bulk_wait_group_read<0>();
      empty.arrive();
    }
  }
  ptx::cp_async_bulk_wait_group_read<0>();
  if (pending.address() != nullptr) pending.arrive();
  ptx::cp_async_bulk_wait_group<0>();  // the writes are complete before the block exits
}

template <int Stages>
__global__ void stream_copy_kernel(std::byte* dst, const std::byte* src, std::size_t bytes,
                                   std::uint32_t tile_bytes, std::uint32_t consumer_warps) {
  using Pipeline = ProducerConsumerPipeline<Stages>;
  static_assert(Pipeline::smem_bytes() <= barrier_bytes, "barrier area too small for Stages");
  extern __shared__ __align__(128) std::byte smem[];
  auto* barriers = reinterpret_cast<std::uint64_t*>(smem);
  std::byte* ring = smem + barrier_bytes;

  const std::uint32_t warp = threadIdx.x / 32;
  const bool leader = threadIdx.x % 32 == 0;
  if (threadIdx.x == 0) Pipeline(barriers).init_mbars(1, consumer_warps);
  __syncthreads();

  const std::size_t bulk_bytes = bytes & ~std::size_t{15};
  const Tiles tiles{src, dst, (bulk_bytes + tile_bytes - 1) / tile_bytes, bulk_bytes, tile_bytes};
  Pipeline pipe(barriers, "stream_copy");
  if (warp == 0) {
    if (leader) produce_tiles(pipe, ring, tiles);
  } else if (leader) {
    consume_tiles<Stages>(pipe, ring, tiles, warp - 1, consumer_warps);
  }

  // The last bytes % 16 bytes are below the bulk engine's granule: plain loads and stores.
  if (blockIdx.x == 0 && threadIdx.x < bytes - bulk_bytes) {
    dst[bulk_bytes + threadIdx.x] = src[bulk_bytes + threadIdx.x];
  }
}

template <int Stages>
cudaError_t launch(void* dst, const void* src, std::size_t bytes, const StreamCopyConfig& config,
                   cudaStream_t stream) {
  const auto kernel = stream_copy_kernel<Stages>;
  const std::size_t smem = barrier_bytes + std::size_t{config.tile_bytes} * Stages;
  const int threads = 32 * (1 + config.consumer_warps);
  cudaError_t status = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(smem));
  if (status != cudaSuccess) return status;
  int device = 0, sms = 0, resident = 0;
  if ((status = cudaGetDevice(&device)) != cudaSuccess) return status;
  if ((status = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device)) != cudaSuccess)
    return status;
  if ((status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, threads, smem)) !=
      cudaSuccess)
    return status;
  if (resident == 0) return cudaErrorInvalidConfiguration;
  const int per_sm = config.blocks_per_sm == 0 || config.blocks_per_sm > resident
                         ? resident
                         : config.blocks_per_sm;
  const std::size_t tiles = (bytes + config.tile_bytes - 1) / config.tile_bytes;
  std::size_t blocks = static_cast<std::size_t>(sms) * per_sm;
  if (blocks > tiles) blocks = tiles == 0 ? 1 : tiles;
  kernel<<<static_cast<unsigned>(blocks), threads, smem, stream>>>(
      static_cast<std::byte*>(dst), static_cast<const std::byte*>(src), bytes, config.tile_bytes,
      static_cast<std::uint32_t>(config.consumer_warps));
  return cudaGetLastError();
}

}  // namespace

cudaError_t stream_copy(void* dst, const void* src, std::size_t bytes, const StreamCopyConfig& config,
                        cudaStream_t stream, const char** why) {
  const auto reject = [why](const char* reason) {
    if (why != nullptr) *why = reason;
    return cudaErrorInvalidValue;
  };
  if (config.tile_bytes == 0 || config.tile_bytes % 16 != 0 || config.tile_bytes > 65536)
    return reject("tile_bytes must be a non-zero multiple of 16, at most 65536");
  if (config.consumer_warps != 1 && config.consumer_warps != 2 && config.consumer_warps != 4)
    return reject("consumer_warps must be 1, 2 or 4");
  if (config.blocks_per_sm < 0) return reject("blocks_per_sm must be >= 0 (0: as many as fit)");
  if (reinterpret_cast<std::uintptr_t>(dst) % 16 != 0 || reinterpret_cast<std::uintptr_t>(src) % 16 != 0)
    return reject("dst and src must be 16-byte aligned (the bulk copy engine's granule)");
  if (bytes == 0) return cudaSuccess;
  switch (config.stages) {
    case 1: return launch<1>(dst, src, bytes, config, stream);
    case 2: return launch<2>(dst, src, bytes, config, stream);
    case 3: return launch<3>(dst, src, bytes, config, stream);
    case 4: return launch<4>(dst, src, bytes, config, stream);
    case 6: return launch<6>(dst, src, bytes, config, stream);
    case 8: return launch<8>(dst, src, bytes, config, stream);
    default: return reject("stages must be 1, 2, 3, 4, 6 or 8");
  }
}

}  // namespace linpipe::kernels
