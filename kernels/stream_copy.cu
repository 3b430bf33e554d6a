// stream_copy's kernel: acquire, copy, release on linpipe stages. See stream_copy.h.
#include "stream_copy.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <utility>

import linpipe;

namespace linpipe::kernels {
namespace {

// The barriers' area ahead of the ring, whole 128-byte lines so the tiles stay aligned.
template <int Stages>
constexpr std::uint32_t barrier_bytes =
    (ProducerConsumerPipeline<Stages>::smem_bytes() + 127) / 128 * 128;

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

// Where a traced launch records (a kernel parameter of the traced kernels only).
struct TraceTarget {
  TraceRecord* records;
  TraceLayout layout;
};
// This role's tracer: its warp's slice of the target, or NoTrace.
template <class Tracer, class... Target>
__device__ Tracer role_tracer(const Target&... target) {
  if constexpr (Tracer::enabled) {
    return Tracer::for_this_warp(target.records..., target.layout...);
  } else {
    return Tracer();
  }
}

// An optional L2 policy for the bulk copies.
struct CachePolicy {
  bool enabled;
  std::uint64_t policy;
};

__device__ void bulk_load(std::byte* to, const std::byte* from, std::uint32_t bytes,
                          std::uint64_t* bar, CachePolicy cache) {
  if (cache.enabled) {
    ptx::cp_async_bulk_global_to_shared(to, from, bytes, bar, cache.policy);
  } else {
    ptx::cp_async_bulk_global_to_shared(to, from, bytes, bar);
  }
}
__device__ void bulk_store(std::byte* to, const std::byte* from, std::uint32_t bytes,
                           CachePolicy cache) {
  if (cache.enabled) {
    ptx::cp_async_bulk_shared_to_global(to, from, bytes, cache.policy);
  } else {
    ptx::cp_async_bulk_shared_to_global(to, from, bytes);
  }
}

// One lane: load each of this block's tiles into the next empty stage.
template <class Pipeline>
__device__ void produce_tiles(Pipeline& pipe, std::byte* ring, const Tiles& tiles,
                              CachePolicy cache) {
  for (std::size_t t = blockIdx.x; t < tiles.count; t += gridDim.x) {
    auto stage = pipe.acquire_producer();
    pipe.mark_issue(stage);  // traced builds: the bulk load goes out now
    const std::uint32_t bytes = tiles.size(t);
    const auto full = stage.mbar();
    full.arrive_expect_tx(bytes);  // the phase completes when the copy's bytes have landed
    bulk_load(ring + stage.index() * tiles.tile_bytes, tiles.src + t * tiles.tile_bytes, bytes,
              full.address(), cache);
    stage.release();
  }
  pipe.drain();  // every stage released before the block's shared memory goes away
}

// Issues the bulk store of this warp's slice of tile t from ring slot `slot`, as one group.
__device__ void store_slice(const std::byte* ring, std::uint32_t slot, std::size_t t, const Tiles& tiles,
                            std::uint32_t warp, std::uint32_t warps, CachePolicy cache) {
  const std::uint32_t bytes = tiles.size(t);
  const std::uint32_t slice = (bytes / warps + 15u) & ~15u;
  const std::uint32_t begin = warp * slice;
  if (begin < bytes) {
    const std::uint32_t length = bytes - begin < slice ? bytes - begin : slice;
    bulk_store(tiles.dst + t * tiles.tile_bytes + begin, ring + slot * tiles.tile_bytes + begin,
               length, cache);
  }
  ptx::cp_async_bulk_commit_group();
}

// One lane per consumer warp: store this warp's slice of each full stage with the bulk engine.
// A stage is released once its store has READ the slot. With Lag > 0 the last Lag stages stay
// held in a StageLag while their stores run, so stores stay in flight while the next tiles are
// awaited; the lag releases each stage Lag tiles later. Lag < Stages, or the producer could
// never refill the slot the consumer waits on next (StageLag asserts it).
template <int Lag, class Pipeline>
__device__ void store_tiles_with_bulk_copies(Pipeline& pipe, const std::byte* ring, const Tiles& tiles,
                                             std::uint32_t warp, std::uint32_t warps,
                                             CachePolicy cache) {
  if constexpr (Lag == 0) {
    for (std::size_t t = blockIdx.x; t < tiles.count; t += gridDim.x) {
      auto stage = pipe.acquire_consumer();
      store_slice(ring, stage.index(), t, tiles, warp, warps, cache);
      ptx::cp_async_bulk_wait_group_read<0>();
      stage.release();
    }
  } else {
    StageLag<typename Pipeline::ConsumerStageType, Lag> reading;
    for (std::size_t t = blockIdx.x; t < tiles.count; t += gridDim.x) {
      auto stage = pipe.acquire_consumer();
      store_slice(ring, stage.index(), t, tiles, warp, warps, cache);
      ptx::cp_async_bulk_wait_group_read<Lag - 1>();  // the store Lag tiles back has read its slot
      reading.push(std::move(stage));
    }
    ptx::cp_async_bulk_wait_group_read<0>();
    reading.flush();
  }
  ptx::cp_async_bulk_wait_group<0>();  // the writes are complete before the block exits
}

// Every lane of each consumer warp: copy this warp's share of each full stage with 16-byte
// loads and stores; the stage is free as soon as the loads have returned, so lane 0 arrives
// for the warp right away (the lane-guarded release).
template <class Pipeline>
__device__ void store_tiles_with_threads(Pipeline& pipe, const std::byte* ring, const Tiles& tiles,
                                         std::uint32_t warp, std::uint32_t warps) {
  constexpr std::uint32_t unroll = 4;
  const std::uint32_t lane = threadIdx.x % 32;
  const std::uint32_t stride = warps * 32;
  for (std::size_t t = blockIdx.x; t < tiles.count; t += gridDim.x) {
    auto stage = pipe.acquire_consumer();
    const std::uint32_t vectors = tiles.size(t) / 16;
    const auto* from = reinterpret_cast<const uint4*>(ring + stage.index() * tiles.tile_bytes);
    auto* to = reinterpret_cast<uint4*>(tiles.dst + t * tiles.tile_bytes);
    std::uint32_t v = warp * 32 + lane;
    for (; v + (unroll - 1) * stride < vectors; v += unroll * stride) {
      uint4 held[unroll];
#pragma unroll
      for (std::uint32_t u = 0; u < unroll; ++u) held[u] = from[v + u * stride];
#pragma unroll
      for (std::uint32_t u = 0; u < unroll; ++u) to[v + u * stride] = held[u];
    }
    for (; v < vectors; v += stride) to[v] = from[v];
    __syncwarp();
    if (lane == 0) stage.arrive();
    stage.release_without_signal();
  }
}

// The kernel's body, for a tracer. Target: empty, or the TraceTarget of a traced launch.
template <int Stages, int Lag, class Tracer, class... Target>
__device__ __forceinline__ void stream_copy_body(std::byte* dst, const std::byte* src, std::size_t bytes,
                                                 std::uint32_t tile_bytes, std::uint32_t consumer_warps,
                                                 bool threads_store, bool evict_first,
                                                 const Target&... trace) {
  using Pipeline = ProducerConsumerPipeline<Stages, NvidiaMbarBackend<Stages>, Tracer>;
  extern __shared__ __align__(128) std::byte smem[];
  // The barriers lead the dynamic shared memory (launch() sizes it from barrier_bytes).
  auto& barriers = *reinterpret_cast<typename Pipeline::Barriers*>(smem);
  std::byte* ring = smem + barrier_bytes<Stages>;

  const std::uint32_t warp = threadIdx.x / 32;
  const bool leader = threadIdx.x % 32 == 0;
  if (threadIdx.x == 0) Pipeline(barriers).init_mbars(1, consumer_warps);
  __syncthreads();

  const std::size_t bulk_bytes = bytes & ~std::size_t{15};
  const Tiles tiles{src, dst, (bulk_bytes + tile_bytes - 1) / tile_bytes, bulk_bytes, tile_bytes};
  Pipeline pipe(barriers, "stream_copy", role_tracer<Tracer>(trace...));
  const CachePolicy cache{evict_first, evict_first ? ptx::createpolicy_evict_first() : 0};
  if (warp == 0) {
    if (leader) produce_tiles(pipe, ring, tiles, cache);
  } else if (threads_store) {
    store_tiles_with_threads(pipe, ring, tiles, warp - 1, consumer_warps);
  } else if (leader) {
    store_tiles_with_bulk_copies<Lag>(pipe, ring, tiles, warp - 1, consumer_warps, cache);
  }

  // The last bytes % 16 bytes are below the bulk engine's granule: plain loads and stores.
  if (blockIdx.x == 0 && threadIdx.x < bytes - bulk_bytes) {
    dst[bulk_bytes + threadIdx.x] = src[bulk_bytes + threadIdx.x];
  }
}

// The untraced kernel has no tracer in its name or parameters (ptxas's register allocation can
// depend on a kernel's mangled name: see gemm_kernel.cuh); the traced one is a kernel of its own.
template <int Stages, int Lag>
__global__ void stream_copy_kernel(std::byte* dst, const std::byte* src, std::size_t bytes,
                                   std::uint32_t tile_bytes, std::uint32_t consumer_warps,
                                   bool threads_store, bool evict_first) {
  stream_copy_body<Stages, Lag, NoTrace>(dst, src, bytes, tile_bytes, consumer_warps,
                                         threads_store, evict_first);
}
template <int Stages, int Lag>
__global__ void traced_stream_copy_kernel(std::byte* dst, const std::byte* src, std::size_t bytes,
                                          std::uint32_t tile_bytes, std::uint32_t consumer_warps,
                                          bool threads_store, bool evict_first, TraceTarget trace) {
  stream_copy_body<Stages, Lag, SliceTrace>(dst, src, bytes, tile_bytes, consumer_warps,
                                            threads_store, evict_first, trace);
}
template <int Stages, int Lag, class Tracer>
constexpr auto kernel_for() {
  if constexpr (Tracer::enabled) {
    return traced_stream_copy_kernel<Stages, Lag>;
  } else {
    return stream_copy_kernel<Stages, Lag>;
  }
}

template <int Stages, int Lag, class Tracer, class... Target>
cudaError_t launch(void* dst, const void* src, std::size_t bytes, const StreamCopyConfig& config,
                   cudaStream_t stream, Target... trace) {
  const auto kernel = kernel_for<Stages, Lag, Tracer>();
  const std::size_t smem = barrier_bytes<Stages> + std::size_t{config.tile_bytes} * Stages;
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
  std::size_t blocks = config.tiles_per_block > 0
                           ? (tiles + config.tiles_per_block - 1) / config.tiles_per_block
                           : static_cast<std::size_t>(sms) * per_sm;
  if (blocks > tiles) blocks = tiles == 0 ? 1 : tiles;
  if (blocks > 0x7fffffff) return cudaErrorInvalidValue;  // gridDim.x; needs tiles_per_block > 0
  kernel<<<static_cast<unsigned>(blocks), threads, smem, stream>>>(
      static_cast<std::byte*>(dst), static_cast<const std::byte*>(src), bytes, config.tile_bytes,
      static_cast<std::uint32_t>(config.consumer_warps), config.store == StoreEngine::threads,
      config.evict_first, trace...);
  return cudaGetLastError();
}

// Checks the configuration, then launches with the given tracer (and its target, if any).
template <class Tracer, class... Target>
cudaError_t checked_launch(void* dst, const void* src, std::size_t bytes, const StreamCopyConfig& config,
                           cudaStream_t stream, const char** why, Target... trace) {
  const auto reject = [why](const char* reason) {
    if (why != nullptr) *why = reason;
    return cudaErrorInvalidValue;
  };
  if (config.tile_bytes == 0 || config.tile_bytes % 16 != 0 || config.tile_bytes > 65536)
    return reject("tile_bytes must be a non-zero multiple of 16, at most 65536");
  if (config.consumer_warps != 1 && config.consumer_warps != 2 && config.consumer_warps != 4 &&
      config.consumer_warps != 8)
    return reject("consumer_warps must be 1, 2, 4 or 8");
  if (config.blocks_per_sm < 0) return reject("blocks_per_sm must be >= 0 (0: as many as fit)");
  if (reinterpret_cast<std::uintptr_t>(dst) % 16 != 0 || reinterpret_cast<std::uintptr_t>(src) % 16 != 0)
    return reject("dst and src must be 16-byte aligned (the bulk copy engine's granule)");
  if (config.store_lag < 0 || config.store_lag > 2 || config.store_lag >= config.stages)
    return reject("store_lag must be 0, 1 or 2, and less than stages");
  if (bytes == 0) return cudaSuccess;
  const auto with_lag = [&]<int Stages>() {
    switch (config.store_lag) {
      case 0: return launch<Stages, 0, Tracer>(dst, src, bytes, config, stream, trace...);
      case 1: if constexpr (Stages > 1) return launch<Stages, 1, Tracer>(dst, src, bytes, config, stream, trace...);
              break;
      case 2: if constexpr (Stages > 2) return launch<Stages, 2, Tracer>(dst, src, bytes, config, stream, trace...);
              break;
    }
    return cudaErrorInvalidValue;  // excluded by the checks above
  };
  switch (config.stages) {
    case 1: return with_lag.template operator()<1>();
    case 2: return with_lag.template operator()<2>();
    case 3: return with_lag.template operator()<3>();
    case 4: return with_lag.template operator()<4>();
    case 6: return with_lag.template operator()<6>();
    case 8: return with_lag.template operator()<8>();
    default: return reject("stages must be 1, 2, 3, 4, 6 or 8");
  }
}

}  // namespace

cudaError_t stream_copy(void* dst, const void* src, std::size_t bytes, const StreamCopyConfig& config,
                        cudaStream_t stream, const char** why) {
  return checked_launch<NoTrace>(dst, src, bytes, config, stream, why);
}

cudaError_t stream_copy_traced(void* dst, const void* src, std::size_t bytes,
                               const StreamCopyConfig& config, void* trace, unsigned slices,
                               unsigned per_slice, cudaStream_t stream, const char** why) {
  if (trace == nullptr || reinterpret_cast<std::uintptr_t>(trace) % 16 != 0 || slices == 0 ||
      per_slice == 0) {
    if (why != nullptr) *why = "trace must be 16-byte aligned device memory of TraceLayout{slices, per_slice}.bytes(), slices and per_slice > 0";
    return cudaErrorInvalidValue;
  }
  return checked_launch<SliceTrace>(dst, src, bytes, config, stream, why,
                                    TraceTarget{static_cast<TraceRecord*>(trace), TraceLayout{slices, per_slice}});
}

}  // namespace linpipe::kernels
