// linpipe's RMSNorm forward (see rmsnorm.h), built only from the library's kernel parts: the
// roles are a WarpRoles, the work loop a WorkSchedule that the producer and every consumer
// walk, the shared memory a SharedPlan, the store a StoreEpilogue, the launch linpipe::launch.
//
// A CTA is one producer warp and Warps consumer warps. A tile is Warps x RowsPerWarp rows; the
// producer bulk-copies each tile (the last one ragged) into a ring stage; each consumer warp
// normalises its RowsPerWarp rows of the stage, either in place, stored back by the bulk engine
// through a StoreEpilogue (released once the store has read the slot), or from the slot
// straight to global memory with 16-byte stores (released once the warp has read it). The
// held shapes (HeldRmsNorm) share each row among the warps of a consumer instead, read it from
// the slot once into registers and release the slot before scaling and storing it.
#include "rmsnorm.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <utility>

import linpipe;

namespace linpipe::kernels {
namespace {

using bf16 = std::uint16_t;  // the bits of a bfloat16

template <int N, int Warps, int RowsPerWarp, int Stages>
struct RmsNorm {
  static_assert(N % 256 == 0, "a row is whole 16-byte vectors for every lane of a warp");
  static constexpr int n = N;
  static constexpr int rows_per_warp = RowsPerWarp;
  static constexpr int rows_per_tile = Warps * RowsPerWarp;

  using Roles = WarpRoles<1, Warps>;
  using Pipeline = ProducerConsumerPipeline<Stages>;
  using Release = ReleaseToCluster<1>;  // lane 0 arrives for its warp
  using Stage = typename Pipeline::ConsumerStageType;
  struct Tile {
    alignas(128) bf16 rows[rows_per_tile][N];
  };
  // The ring and w: every row reads all of w, so it is copied once per CTA (read through L1
  // for each row instead, it measured 1-23% slower on the H200 and up to 30% on the H100:
  // docs/benchmarks.md).
  struct Shared {
    PipelineStorage<Pipeline, Tile> ring;
    alignas(16) bf16 weight[N];
  };
  using Plan = SharedPlan<Shared>;
  // A one-stage shape runs one-shot: a CTA lives for one tile, so an SM overlaps one CTA's
  // loads only with other CTAs' work, and as many CTAs as shared memory allows should be
  // resident. Left alone, the compiler spends 60-73 registers on unrolling, which caps
  // residency at about half of what shared memory allows at n <= 2048. Deeper rings keep
  // their loads in flight themselves.
  static constexpr int ctas_per_sm = Stages > 1 ? 1 : Plan::blocks_per_sm(Roles::threads, 40);
  // Under a register cap, two vectors of x and w in flight in the scaling pass (four spill at
  // n = 1024, where the pass unrolls whole).
  static constexpr int scale_unroll = ctas_per_sm > 1 ? 2 : 4;
  // Bulk stores keep one tile's stores in flight while the next is computed (a one-stage ring
  // has no stage to spare for that).
  static constexpr int store_lag = Stages > 1 ? 1 : 0;
  using Schedule = WorkSchedule<>;

  static Schedule schedule(std::uint64_t rows) {
    return Schedule(TileSpace{{N, rows, 1}, {N, rows_per_tile, 1}});
  }
};

// The held shapes: each row is read from its slot once, into the registers of the consumer
// that owns it (Warps warps, per_thread 16-byte vectors a thread), its mean square reduced
// across those warps through shared memory, and the slot released before the row is scaled
// and stored from registers. w stays in registers for the whole kernel where the register cap
// leaves room (every row uses the same vectors of it), else each use reads it through L1. A
// tile is TileElems elements (32 KiB by default): rows_per_consumer rows for each consumer,
// all of a consumer's rows loaded before its one sync, so 8 vectors a thread are in flight.
template <int N, int Stages, int TileElems = 16384>
struct HeldRmsNorm {
  static_assert(N % 1024 == 0, "a row is whole 16-byte vectors for every thread of a consumer");
  static constexpr int n = N;
  static constexpr int warps_per_consumer = N >= 4096 ? 4 : N / 1024;
  static constexpr int per_thread = N / 8 / (32 * warps_per_consumer);
  static constexpr int rows_per_consumer = per_thread >= 8 ? 1 : 8 / per_thread;
  static constexpr int consumers = TileElems / (rows_per_consumer * N);
  static constexpr int rows_per_tile = consumers * rows_per_consumer;
  static_assert(consumers >= 1 && per_thread * 8 * 32 * warps_per_consumer == N &&
                    rows_per_tile * N == TileElems,
                "a tile holds whole rows for whole consumers");

  using Roles = WarpRoles<1, consumers, warps_per_consumer>;
  using Pipeline = ProducerConsumerPipeline<Stages>;
  using Release = ReleaseByConsumer;
  struct Tile {
    alignas(128) bf16 rows[rows_per_tile][N];
  };
  struct Shared {
    PipelineStorage<Pipeline, Tile> ring;
    // Each warp's partial sums of squares, for tiles of alternate parity: a consumer's one
    // sync per tile orders a warp's write for tile t + 2 after every read for tile t.
    float partial[2][consumers][rows_per_consumer][warps_per_consumer];
  };
  using Plan = SharedPlan<Shared>;
  using Schedule = WorkSchedule<>;
  // The CTAs an SM holds by shared memory (2 stages: three; 3: two), kept by the register cap
  // in __launch_bounds__: left alone, the compiler keeps each vector unpacked to fp32 between
  // the two uses (168 registers, one CTA an SM). A one-stage ring runs one-shot, where
  // residency is all the overlap there is: as many CTAs as leave 64 registers a thread (32
  // hold the rows; with 56 the loop spills).
  static constexpr int ctas_per_sm = Stages == 1 ? Plan::blocks_per_sm(Roles::threads, 64)
                                     : Plan::launch_bytes() * 3 <= 227 * 1024 ? 3
                                                                               : 2;

  static Schedule schedule(std::uint64_t rows) {
    return Schedule(TileSpace{{N, rows, 1}, {N, rows_per_tile, 1}});
  }
};

__device__ float warp_sum(float value) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_xor_sync(0xffffffffu, value, offset);
  return value;
}

__device__ float sum_of_squares(uint4 v, float sum) {
  for (const std::uint32_t pair : {v.x, v.y, v.z, v.w}) {
    float lo, hi;
    ptx::unpack_bf16x2(pair, lo, hi);
    sum = fmaf(lo, lo, fmaf(hi, hi, sum));
  }
  return sum;
}
__device__ std::uint32_t scaled_pair(std::uint32_t x, std::uint32_t w, float scale) {
  float x_lo, x_hi, w_lo, w_hi;
  ptx::unpack_bf16x2(x, x_lo, x_hi);
  ptx::unpack_bf16x2(w, w_lo, w_hi);
  return ptx::pack_bf16x2(x_lo * scale * w_lo, x_hi * scale * w_hi);
}

// One row by one warp, in two passes over its slot in shared memory (16-byte vectors; a row
// held in registers would take 128 of them at n = 8192): the mean square, reduced in fp32
// across the warp, then each element scaled by rsqrt and its weight into `out` (the slot
// itself, or the row in global memory). The scaling pass keeps Unroll vectors of x and w in
// flight at once.
template <int N, int Unroll>
__device__ void normalise_row(const bf16* row, const bf16* weight, bf16* out, float eps,
                              std::uint32_t lane) {
  constexpr int per_lane = N / 256;  // 16-byte vectors per lane
  const auto* vectors = reinterpret_cast<const uint4*>(row);
  const auto* weights = reinterpret_cast<const uint4*>(weight);
  auto* outputs = reinterpret_cast<uint4*>(out);
  float squares = 0.0f;
#pragma unroll 8
  for (int k = 0; k < per_lane; ++k) squares = sum_of_squares(vectors[lane + 32 * k], squares);
  const float scale = rsqrtf(warp_sum(squares) * (1.0f / N) + eps);
#pragma unroll Unroll
  for (int k = 0; k < per_lane; ++k) {
    const uint4 x = vectors[lane + 32 * k];
    const uint4 w = weights[lane + 32 * k];
    outputs[lane + 32 * k] = make_uint4(scaled_pair(x.x, w.x, scale), scaled_pair(x.y, w.y, scale),
                                        scaled_pair(x.z, w.z, scale), scaled_pair(x.w, w.w, scale));
  }
}

// The producer's lane: each tile of the walk into the next empty stage, whole (the ragged last
// tile's byte count comes from the schedule, as the consumers' row count does).
// With evict_first, x's lines leave L2 first (each is read once). The tile is copied by
// `lanes` lanes of the producer warp (1, or 32: one row-slice each, so the copy engine sees
// many smaller requests at once); lane 0 announces the whole tile's bytes before any copy.
template <class K>
__device__ void load_tiles(typename K::Pipeline& pipe, typename K::Shared& shared, const bf16* x,
                           const typename K::Schedule& schedule, bool evict_first,
                           std::uint32_t lane, std::uint32_t lanes) {
  const std::uint64_t policy = evict_first ? ptx::createpolicy_evict_first() : 0;
  for (const WorkItem tile : schedule.items()) {
    auto stage = pipe.acquire_producer();  // every copying lane claims the same slot
    const auto full = stage.mbar();
    if (lane == 0) full.arrive_expect_tx(tile.bytes<bf16>());
    __syncwarp();
    const std::uint32_t slice = tile.bytes<bf16>() / lanes / 16 * 16;
    const std::uint32_t begin = lane * slice;
    const std::uint32_t bytes = lane + 1 == lanes ? tile.bytes<bf16>() - begin : slice;
    const auto* from = reinterpret_cast<const std::byte*>(x + tile.origin.y * K::n) + begin;
    auto* to = reinterpret_cast<std::byte*>(shared.ring[stage].rows) + begin;
    if (bytes > 0 && evict_first) {
      ptx::cp_async_bulk_global_to_shared(to, from, bytes, full.address(), policy);
    } else if (bytes > 0) {
      ptx::cp_async_bulk_global_to_shared(to, from, bytes, full.address());
    }
    stage.release();
  }
  pipe.drain();  // every stage released before the block's shared memory goes away
}

// How many of a tile's rows, from row `first`, a consumer owns (the last tile may be short).
template <std::uint32_t Rows>
__device__ std::uint32_t rows_owned(const WorkItem& tile, std::uint32_t first) {
  const std::uint32_t mine = tile.extent.y > first ? tile.extent.y - first : 0;
  return mine < Rows ? mine : Rows;
}

// A consumer warp, bulk stores: its rows of each tile normalised in place, then stored from the
// slot by the epilogue, which releases the stage once the store has read it.
template <class K, int Lag>
__device__ void normalise_tiles_bulk(typename K::Pipeline& pipe, typename K::Shared& shared,
                                     const bf16* weight, bf16* y,
                                     const typename K::Schedule& schedule, float eps,
                                     const typename K::Roles& me) {
  using Release = typename K::Release;
  StoreEpilogue<typename K::Stage, Lag, Release> epilogue(Release{me.lane()});
  const std::uint32_t first = me.consumer() * K::rows_per_warp;
  for (const WorkItem tile : schedule.items()) {
    auto stage = pipe.acquire_consumer();
    auto& rows = shared.ring[stage].rows;
    const std::uint32_t count = rows_owned<K::rows_per_warp>(tile, first);
    for (std::uint32_t r = 0; r < count; ++r) {
      normalise_row<K::n, K::scale_unroll>(rows[first + r], weight, rows[first + r], eps, me.lane());
    }
    epilogue.store(std::move(stage), [&] {
      if (count > 0) {
        ptx::cp_async_bulk_shared_to_global(y + (tile.origin.y + first) * K::n, rows[first],
                                            count * K::n * sizeof(bf16));
      }
    });
  }
  epilogue.finish();
}

// A consumer warp, thread stores: its rows of each tile read from the slot and written to
// global memory from registers (16-byte stores, as the plain kernel does); the slot is free as
// soon as every lane's reads have returned, so lane 0 releases it for the warp right away.
template <class K>
__device__ void normalise_tiles_threads(typename K::Pipeline& pipe, typename K::Shared& shared,
                                        const bf16* weight, bf16* y,
                                        const typename K::Schedule& schedule, float eps,
                                        const typename K::Roles& me) {
  const std::uint32_t first = me.consumer() * K::rows_per_warp;
  for (const WorkItem tile : schedule.items()) {
    auto stage = pipe.acquire_consumer();
    const auto& rows = shared.ring[stage].rows;
    const std::uint32_t count = rows_owned<K::rows_per_warp>(tile, first);
    for (std::uint32_t r = 0; r < count; ++r) {
      normalise_row<K::n, K::scale_unroll>(rows[first + r], weight,
                                           y + (tile.origin.y + first + r) * K::n, eps, me.lane());
    }
    __syncwarp();  // every lane has read the slot before lane 0 frees it
    typename K::Release{me.lane()}(std::move(stage));
  }
}

// Hides a vector's bits from the compiler, so that the scaling pass unpacks it again: without
// it, the fp32 values unpacked for the sum of squares are reused, and a held row takes twice
// the registers (168 a thread, one CTA an SM).
__device__ void keep_packed(uint4& v) {
  asm("" : "+r"(v.x), "+r"(v.y), "+r"(v.z), "+r"(v.w));
}

// A consumer of a held shape: its rows of each tile loaded from the slot into registers and
// their squares summed, the consumer synced (partial sums written, the slot read by all), the
// stage released by its first thread, then each row scaled and stored with 16-byte stores.
template <class K>
__device__ void normalise_tiles_held(typename K::Pipeline& pipe, typename K::Shared& shared,
                                     const bf16* w, bf16* y, const typename K::Schedule& schedule,
                                     float eps, const typename K::Roles& me) {
  constexpr int per_thread = K::per_thread;
  constexpr int rows = K::rows_per_consumer;
  constexpr int warps = K::warps_per_consumer;
  constexpr std::uint32_t stride = K::Roles::threads_per_consumer;  // vectors between a thread's
  const std::uint32_t thread = me.thread_in_consumer();
  // w's vectors for this thread: held in registers where they are few and the register cap
  // leaves room (two CTAs an SM), else read each time (from L1: the same w for every row).
  constexpr bool weight_held = per_thread <= 4 && K::ctas_per_sm <= 2;
  const auto* weights = reinterpret_cast<const uint4*>(w) + thread;
  uint4 weight[weight_held ? per_thread : 1];
  if constexpr (weight_held) {
#pragma unroll
    for (int k = 0; k < per_thread; ++k) weight[k] = weights[k * stride];
  }
  const typename K::Release release{thread == 0};
  const std::uint32_t first = me.consumer() * rows;
  std::uint32_t parity = 0;
  for (const WorkItem tile : schedule.items()) {
    auto stage = pipe.acquire_consumer();
    const std::uint32_t count = rows_owned<rows>(tile, first);
    uint4 held[rows][per_thread];
    float squares[rows];
#pragma unroll
    for (int r = 0; r < rows; ++r) {
      squares[r] = 0.0f;
      if (static_cast<std::uint32_t>(r) < count) {
        const auto* vectors = reinterpret_cast<const uint4*>(shared.ring[stage].rows[first + r]);
#pragma unroll
        for (int k = 0; k < per_thread; ++k) held[r][k] = vectors[thread + k * stride];
      }
    }
#pragma unroll
    for (int r = 0; r < rows; ++r) {
      if (static_cast<std::uint32_t>(r) < count) {
#pragma unroll
        for (int k = 0; k < per_thread; ++k) squares[r] = sum_of_squares(held[r][k], squares[r]);
      }
      squares[r] = warp_sum(squares[r]);
      if (warps > 1 && me.lane() == 0) {
        shared.partial[parity][me.consumer()][r][me.warp_in_consumer()] = squares[r];
      }
    }
    me.sync_consumer();  // every thread's reads of the slot and partial sums are done
    release(std::move(stage));
#pragma unroll
    for (int r = 0; r < rows; ++r) {
      if (static_cast<std::uint32_t>(r) >= count) continue;
      float total = squares[r];
      if constexpr (warps > 1) {
        total = 0.0f;
#pragma unroll
        for (int v = 0; v < warps; ++v) total += shared.partial[parity][me.consumer()][r][v];
      }
      const float scale = rsqrtf(total * (1.0f / K::n) + eps);
      auto* out = reinterpret_cast<uint4*>(y + (tile.origin.y + first + r) * K::n);
#pragma unroll
      for (int k = 0; k < per_thread; ++k) {
        uint4 x = held[r][k];
        keep_packed(x);
        uint4 v = weight_held ? weight[weight_held ? k : 0] : __ldg(weights + k * stride);
        keep_packed(v);
        out[thread + k * stride] =
            make_uint4(scaled_pair(x.x, v.x, scale), scaled_pair(x.y, v.y, scale),
                       scaled_pair(x.z, v.z, scale), scaled_pair(x.w, v.w, scale));
      }
    }
    parity ^= 1u;
  }
}

// Whether K is a held shape (rows in registers, w never copied to shared memory).
template <class K>
concept HeldShape = requires { K::per_thread; };

template <class K, RmsNormStore Store>
__global__ void __launch_bounds__(K::Roles::threads, K::ctas_per_sm) rmsnorm_kernel(const bf16* x, const bf16* w,
                                                                    bf16* y,
                                                                    typename K::Schedule schedule,
                                                                    float eps, bool evict_first,
                                                                    std::uint32_t copy_lanes) {
  extern __shared__ __align__(16) std::byte smem[];
  typename K::Shared& shared = K::Plan::place(smem);
  const auto me = K::Roles::this_thread();
  if (threadIdx.x == 0) {
    typename K::Pipeline(shared.ring.barriers)
        .init_mbars(Arrivals<typename K::Roles, typename K::Release>{});
  }
  __syncthreads();  // the barriers are initialised

  typename K::Pipeline pipe(shared.ring.barriers, "rmsnorm");
  if (me.is_producer()) {
    if (me.lane() < copy_lanes) {
      load_tiles<K>(pipe, shared, x, schedule, evict_first, me.lane(), copy_lanes);
    }
  } else if constexpr (HeldShape<K>) {
    normalise_tiles_held<K>(pipe, shared, w, y, schedule, eps, me);
  } else {
    // The consumers copy w while the producer's first copies are already in flight (a
    // one-shot CTA lives for one tile, so its first load is its critical path).
    for (std::uint32_t v = me.thread_in_role(); v < K::n / 8; v += K::Roles::consumer_threads) {
      reinterpret_cast<uint4*>(shared.weight)[v] = reinterpret_cast<const uint4*>(w)[v];
    }
    me.sync_consumers();
    const bf16* weight = shared.weight;
    if constexpr (Store == RmsNormStore::bulk) {
      normalise_tiles_bulk<K, K::store_lag>(pipe, shared, weight, y, schedule, eps, me);
    } else {
      normalise_tiles_threads<K>(pipe, shared, weight, y, schedule, eps, me);
    }
  }
}

template <class K, RmsNormStore Store>
cudaError_t launch_rmsnorm(const bf16* x, const bf16* w, bf16* y, std::uint64_t rows, float eps,
                           const RmsNormConfig& config, cudaStream_t stream, const char** why) {
  const typename K::Schedule schedule = K::schedule(rows);
  if (!K::Schedule::fits(schedule.space())) {
    if (why != nullptr) *why = "rmsnorm_bf16: more than 2^31 - 1 tiles of rows";
    return cudaErrorInvalidValue;
  }
  const LaunchResult launched = launch(
      rmsnorm_kernel<K, Store>,
      {.threads = K::Roles::threads, .shared_bytes = K::Plan::launch_bytes(),
       .items = schedule.count(),
       .grid = config.persistent ? GridKind::persistent : GridKind::one_per_item, .stream = stream},
      x, w, y, schedule, eps, config.evict_first, config.copy_lanes == 32 ? 32u : 1u);
  if (!launched && why != nullptr) *why = "rmsnorm_bf16: the launch failed (see linpipe::launch)";
  return launched.status;
}

// A held shape stores from registers only: with bulk stores it is refused, not built.
template <class K, RmsNormStore Store>
cudaError_t launch_held(const bf16* x, const bf16* w, bf16* y, std::uint64_t rows, float eps,
                        const RmsNormConfig& config, cudaStream_t stream, const char** why) {
  if constexpr (Store == RmsNormStore::threads) {
    return launch_rmsnorm<K, Store>(x, w, y, rows, eps, config, stream, why);
  } else {
    if (why != nullptr) *why = "rmsnorm_bf16: the held shapes store from registers (store = threads)";
    return cudaErrorInvalidValue;
  }
}

// The shapes per width: `wide` (4 consumer warps, 32 KiB tiles, 64 KiB at n = 8192, 3 stages:
// two CTAs an SM, one at n = 8192), `narrow` (2 consumer warps, half the tile, 4 stages),
// `shallow` (as wide with 2 stages: three CTAs an SM, so more warps normalise at once), the
// one-stage shapes for one-shot grids (`single`: wide's tile; `single_row`: one row a warp;
// `pair`: two warps, a row each; `row`: one warp and one row: the smaller the tile, the more
// CTAs, and so loads, an SM holds), and the held shapes (HeldRmsNorm: 32 KiB tiles, 2 stages
// for three CTAs an SM, or 3 for two; one stage for one-shot grids, with 32 KiB or 16 KiB
// tiles).
template <int N, RmsNormStore Store>
cudaError_t rmsnorm_store(const bf16* x, const bf16* w, bf16* y, std::uint64_t rows, float eps,
                          RmsNormConfig config, cudaStream_t stream, const char** why) {
  constexpr int rows_per_warp = N >= 4096 ? 1 : 4096 / N;
  switch (config.shape) {
    case RmsNormShape::wide:
      return launch_rmsnorm<RmsNorm<N, 4, rows_per_warp, 3>, Store>(x, w, y, rows, eps, config,
                                                                    stream, why);
    case RmsNormShape::narrow:
      return launch_rmsnorm<RmsNorm<N, 2, rows_per_warp, 4>, Store>(x, w, y, rows, eps, config,
                                                                    stream, why);
    case RmsNormShape::shallow:
      return launch_rmsnorm<RmsNorm<N, 4, rows_per_warp, 2>, Store>(x, w, y, rows, eps, config,
                                                                    stream, why);
    case RmsNormShape::single:
      return launch_rmsnorm<RmsNorm<N, 4, rows_per_warp, 1>, Store>(x, w, y, rows, eps, config,
                                                                    stream, why);
    case RmsNormShape::single_row:
      return launch_rmsnorm<RmsNorm<N, 4, 1, 1>, Store>(x, w, y, rows, eps, config, stream, why);
    case RmsNormShape::pair:
      return launch_rmsnorm<RmsNorm<N, 2, 1, 1>, Store>(x, w, y, rows, eps, config, stream, why);
    case RmsNormShape::row:
      return launch_rmsnorm<RmsNorm<N, 1, 1, 1>, Store>(x, w, y, rows, eps, config, stream, why);
    case RmsNormShape::held:
      return launch_held<HeldRmsNorm<N, 2>, Store>(x, w, y, rows, eps, config, stream, why);
    case RmsNormShape::held_deep:
      return launch_held<HeldRmsNorm<N, 3>, Store>(x, w, y, rows, eps, config, stream, why);
    case RmsNormShape::held_single:
      return launch_held<HeldRmsNorm<N, 1>, Store>(x, w, y, rows, eps, config, stream, why);
    case RmsNormShape::held_single_half:
      return launch_held<HeldRmsNorm<N, 1, 8192>, Store>(x, w, y, rows, eps, config, stream, why);
  }
  if (why != nullptr) *why = "rmsnorm_bf16: unknown shape";
  return cudaErrorInvalidValue;
}
template <int N>
cudaError_t rmsnorm_width(const bf16* x, const bf16* w, bf16* y, std::uint64_t rows, float eps,
                          RmsNormConfig config, cudaStream_t stream, const char** why) {
  if (config.store == RmsNormStore::bulk) {
    return rmsnorm_store<N, RmsNormStore::bulk>(x, w, y, rows, eps, config, stream, why);
  }
  return rmsnorm_store<N, RmsNormStore::threads>(x, w, y, rows, eps, config, stream, why);
}

}  // namespace

cudaError_t rmsnorm_bf16(const void* x, const void* w, void* y, std::uint64_t rows, int n, float eps,
                         RmsNormConfig config, cudaStream_t stream, const char** why) {
  if (rows == 0) return cudaSuccess;
  const auto misaligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 != 0; };
  if (misaligned(x) || misaligned(w) || misaligned(y)) {
    if (why != nullptr) *why = "rmsnorm_bf16: x, w and y must be 16-byte aligned (bulk copies)";
    return cudaErrorInvalidValue;
  }
  const auto* in = static_cast<const bf16*>(x);
  const auto* weight = static_cast<const bf16*>(w);
  auto* out = static_cast<bf16*>(y);
  switch (n) {
    case 1024: return rmsnorm_width<1024>(in, weight, out, rows, eps, config, stream, why);
    case 2048: return rmsnorm_width<2048>(in, weight, out, rows, eps, config, stream, why);
    case 4096: return rmsnorm_width<4096>(in, weight, out, rows, eps, config, stream, why);
    case 8192: return rmsnorm_width<8192>(in, weight, out, rows, eps, config, stream, why);
    default:
      if (why != nullptr) *why = "rmsnorm_bf16: n must be 1024, 2048, 4096 or 8192";
      return cudaErrorInvalidValue;
  }
}

}  // namespace linpipe::kernels

extern "C" int linpipe_rmsnorm_bf16(const void* x, const void* w, void* y, unsigned long long rows,
                                    int n, float eps, int shape, int store, int persistent,
                                    int evict_first, int copy_lanes, void* stream) {
  const linpipe::kernels::RmsNormConfig config =
      shape < 0 ? linpipe::kernels::rmsnorm_config_for(n)
                : linpipe::kernels::RmsNormConfig{static_cast<linpipe::kernels::RmsNormShape>(shape),
                                                  static_cast<linpipe::kernels::RmsNormStore>(store),
                                                  persistent != 0, evict_first != 0, copy_lanes};
  return static_cast<int>(linpipe::kernels::rmsnorm_bf16(x, w, y, rows, n, eps, config,
                                                         static_cast<cudaStream_t>(stream)));
}
