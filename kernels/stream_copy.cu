// stream_copy's kernel (see stream_copy.h), built from the kernel parts: the roles are a
// WarpRoles (one producer warp, 1-8 consumer warps), the walk a WorkSchedule over the tiles,
// the ring a ByteRing (its tile size is chosen at launch), the bulk stores a StoreEpilogue,
// the launch linpipe::launch.
#include "stream_copy.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <utility>

import linpipe;

namespace linpipe::kernels {
namespace {

// The tiles: the 16-byte-multiple prefix of the copy in tiles of tile_bytes bytes (the last one
// short), as byte offsets (origin.x) and lengths (extent.x). Every role walks them the same way.
using Schedule = WorkSchedule<>;
// One producer warp and Warps consumer warps; lane 0 of each consumer warp arrives for it.
template <int Warps>
using Roles = WarpRoles<1, Warps>;
using Release = ReleaseToCluster<1>;

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
template <class Pipeline, class Ring>
__device__ void produce_tiles(Pipeline& pipe, const Ring& ring, const std::byte* src,
                              const Schedule& schedule, CachePolicy cache) {
  for (const WorkItem tile : schedule.items()) {
    auto stage = pipe.acquire_producer();
    pipe.mark_issue(stage);  // traced builds: the bulk load goes out now
    const auto bytes = static_cast<std::uint32_t>(tile.extent.x);
    const auto full = stage.mbar();
    full.arrive_expect_tx(bytes);  // the phase completes when the copy's bytes have landed
    bulk_load(ring.slot(stage), src + tile.origin.x, bytes, full.address(), cache);
    stage.release();
  }
  pipe.drain();  // every stage released before the block's shared memory goes away
}

// This warp's slice of a tile: 16-byte-aligned pieces, one per consumer warp (the last ones
// may be short or empty).
struct Slice {
  std::uint32_t begin, bytes;
};
__device__ Slice slice_of(std::uint32_t tile_bytes, std::uint32_t warp, std::uint32_t warps) {
  const std::uint32_t slice = (tile_bytes / warps + 15u) & ~15u;
  const std::uint32_t begin = warp * slice;
  if (begin >= tile_bytes) return {begin, 0};
  return {begin, tile_bytes - begin < slice ? tile_bytes - begin : slice};
}

// Each consumer warp: store its slice of each full stage with the bulk engine, through a
// StoreEpilogue, which releases the stage once the store has read the slot, Lag stores later
// (so stores stay in flight while the next tiles are awaited; Lag < Stages, or the producer
// could never refill the slot the consumer waits on next: the epilogue asserts it).
template <int Lag, class Pipeline, class Ring, class Me>
__device__ void store_tiles_with_bulk_copies(Pipeline& pipe, const Ring& ring, std::byte* dst,
                                             const Schedule& schedule, const Me& me,
                                             CachePolicy cache) {
  StoreEpilogue<typename Pipeline::ConsumerStageType, Lag, Release> epilogue(Release{me.lane()});
  for (const WorkItem tile : schedule.items()) {
    auto stage = pipe.acquire_consumer();
    const Slice mine = slice_of(static_cast<std::uint32_t>(tile.extent.x), me.consumer(),
                                Me::consumers);
    const std::byte* slot = ring.slot(stage);
    epilogue.store(std::move(stage), [&] {
      if (mine.bytes > 0) bulk_store(dst + tile.origin.x + mine.begin, slot + mine.begin, mine.bytes, cache);
    });
  }
  epilogue.finish();
}

// Every lane of each consumer warp: copy this warp's share of each full stage with 16-byte
// loads and stores; the stage is free as soon as the loads have returned, so lane 0 arrives
// for the warp right away (the lane-guarded release).
template <class Pipeline, class Ring, class Me>
__device__ void store_tiles_with_threads(Pipeline& pipe, const Ring& ring, std::byte* dst,
                                         const Schedule& schedule, const Me& me) {
  constexpr std::uint32_t unroll = 4;
  constexpr std::uint32_t stride = Me::consumer_threads;
  for (const WorkItem tile : schedule.items()) {
    auto stage = pipe.acquire_consumer();
    const auto vectors = static_cast<std::uint32_t>(tile.extent.x / 16);
    const auto* from = reinterpret_cast<const uint4*>(ring.slot(stage));
    auto* to = reinterpret_cast<uint4*>(dst + tile.origin.x);
    std::uint32_t v = me.thread_in_role();
    for (; v + (unroll - 1) * stride < vectors; v += unroll * stride) {
      uint4 held[unroll];
#pragma unroll
      for (std::uint32_t u = 0; u < unroll; ++u) held[u] = from[v + u * stride];
#pragma unroll
      for (std::uint32_t u = 0; u < unroll; ++u) to[v + u * stride] = held[u];
    }
    for (; v < vectors; v += stride) to[v] = from[v];
    __syncwarp();  // every lane's loads have returned before lane 0 frees the slot
    Release{me.lane()}(std::move(stage));
  }
}

// The kernel's body, for a tracer. Target: empty, or the TraceTarget of a traced launch.
template <int Stages, int Lag, int Warps, class Tracer, class... Target>
__device__ __forceinline__ void stream_copy_body(std::byte* dst, const std::byte* src, std::size_t bytes,
                                                 const Schedule& schedule, bool threads_store,
                                                 bool evict_first, const Target&... trace) {
  using Pipeline = ProducerConsumerPipeline<Stages, NvidiaMbarBackend<Stages>, Tracer>;
  using Ring = ByteRing<Pipeline>;
  extern __shared__ __align__(128) std::byte smem[];
  const Ring ring = Ring::place(smem, static_cast<std::uint32_t>(schedule.space().tile.x));
  const auto me = Roles<Warps>::this_thread();
  if (threadIdx.x == 0) Pipeline(ring.barriers()).init_mbars(Arrivals<Roles<Warps>, Release>{});
  __syncthreads();

  Pipeline pipe(ring.barriers(), "stream_copy", role_tracer<Tracer>(trace...));
  const CachePolicy cache{evict_first, evict_first ? ptx::createpolicy_evict_first() : 0};
  if (me.is_producer()) {
    if (me.leader()) produce_tiles(pipe, ring, src, schedule, cache);
  } else if (threads_store) {
    store_tiles_with_threads(pipe, ring, dst, schedule, me);
  } else {
    store_tiles_with_bulk_copies<Lag>(pipe, ring, dst, schedule, me, cache);
  }

  // The last bytes % 16 bytes are below the bulk engine's granule: plain loads and stores.
  const std::size_t bulk_bytes = schedule.space().elements.x;
  if (blockIdx.x == 0 && threadIdx.x < bytes - bulk_bytes) {
    dst[bulk_bytes + threadIdx.x] = src[bulk_bytes + threadIdx.x];
  }
}

// The untraced kernel has no tracer in its name or parameters (ptxas's register allocation can
// depend on a kernel's mangled name: see gemm_kernel.cuh); the traced one is a kernel of its own.
template <int Stages, int Lag, int Warps>
__global__ void stream_copy_kernel(std::byte* dst, const std::byte* src, std::size_t bytes,
                                   Schedule schedule, bool threads_store, bool evict_first) {
  stream_copy_body<Stages, Lag, Warps, NoTrace>(dst, src, bytes, schedule, threads_store, evict_first);
}
template <int Stages, int Lag, int Warps>
__global__ void traced_stream_copy_kernel(std::byte* dst, const std::byte* src, std::size_t bytes,
                                          Schedule schedule, bool threads_store, bool evict_first,
                                          TraceTarget trace) {
  stream_copy_body<Stages, Lag, Warps, SliceTrace>(dst, src, bytes, schedule, threads_store,
                                                   evict_first, trace);
}
template <int Stages, int Lag, int Warps, class Tracer>
constexpr auto kernel_for() {
  if constexpr (Tracer::enabled) {
    return traced_stream_copy_kernel<Stages, Lag, Warps>;
  } else {
    return stream_copy_kernel<Stages, Lag, Warps>;
  }
}

// A persistent grid (tiles_per_block 0: at most blocks_per_sm CTAs an SM, 0 for as many as
// fit), or short-lived blocks, one per tiles_per_block tiles; either walks every tile.
template <int Stages, int Lag, int Warps, class Tracer, class... Target>
cudaError_t launch_copy(void* dst, const void* src, std::size_t bytes, const StreamCopyConfig& config,
                        cudaStream_t stream, Target... trace) {
  using Ring = ByteRing<ProducerConsumerPipeline<Stages, NvidiaMbarBackend<Stages>, Tracer>>;
  const Schedule schedule(TileSpace{{bytes & ~std::size_t{15}, 1, 1}, {config.tile_bytes, 1, 1}});
  if (!Schedule::fits(schedule.space())) return cudaErrorInvalidValue;
  const std::uint64_t tiles = schedule.count();
  const bool persistent = config.tiles_per_block == 0;
  // At least one CTA: block 0 also copies the bytes past the last 16-byte granule.
  const std::uint64_t items =
      tiles == 0 ? 1 : persistent ? tiles : (tiles + config.tiles_per_block - 1) / config.tiles_per_block;
  return launch(kernel_for<Stages, Lag, Warps, Tracer>(),
                {.threads = Roles<Warps>::threads, .shared_bytes = Ring::launch_bytes(config.tile_bytes),
                 .items = items,
                 .grid = persistent ? GridKind::persistent : GridKind::one_per_item,
                 .ctas_per_sm = static_cast<unsigned>(config.blocks_per_sm), .stream = stream},
                static_cast<std::byte*>(dst), static_cast<const std::byte*>(src), bytes, schedule,
                config.store == StoreEngine::threads, config.evict_first, trace...)
      .status;
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
  const auto with_warps = [&]<int Stages, int Lag>() {
    switch (config.consumer_warps) {
      case 1: return launch_copy<Stages, Lag, 1, Tracer>(dst, src, bytes, config, stream, trace...);
      case 2: return launch_copy<Stages, Lag, 2, Tracer>(dst, src, bytes, config, stream, trace...);
      case 4: return launch_copy<Stages, Lag, 4, Tracer>(dst, src, bytes, config, stream, trace...);
      default: return launch_copy<Stages, Lag, 8, Tracer>(dst, src, bytes, config, stream, trace...);
    }
  };
  const auto with_lag = [&]<int Stages>() {
    switch (config.store_lag) {
      case 0: return with_warps.template operator()<Stages, 0>();
      case 1: if constexpr (Stages > 1) return with_warps.template operator()<Stages, 1>();
              break;
      case 2: if constexpr (Stages > 2) return with_warps.template operator()<Stages, 2>();
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
