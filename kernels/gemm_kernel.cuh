// gemm_bf16's device code (what the kernel does: see gemm_kernels.cu): tiles, shared-memory
// layout, the producer, the consumers' mainloop and epilogue, and the two kernels (untraced,
// traced). Included by gemm_kernels.cu (instantiates the untraced kernels) and
// gemm_traced_kernels.cu (the traced ones), each after `import linpipe;` and gemm_kernels.h:
// two translation units, so the untraced kernels are compiled in a module of their own
// (ptxas's register allocation for a kernel can depend on the other kernels of its module, and
// tracing must not change the untraced kernel's code). The host side is gemm_launch.cu.
#pragma once

namespace linpipe::kernels {
namespace {


// A schedule's stage ring: each stage holds a block_m x block_k slice of A and a
// block_n x block_k slice of B (bf16 bits), K-major, each in its own ring. The 128B swizzle
// repeats every 1024 bytes, so each tile starts on a 1024-byte boundary.
template <int BlockN, int Stages>
struct GemmTiles {
  static constexpr int block_m = gemm_tile_m;  // two 64-row wgmma halves
  static constexpr int block_n = BlockN;
  static constexpr int block_k = gemm_tile_k;  // 64 bf16 = one 128-byte swizzled row
  static constexpr int stages = Stages;
  struct TileA {
    alignas(1024) std::uint16_t elems[block_m * block_k];
  };
  struct TileB {
    alignas(1024) std::uint16_t elems[block_n * block_k];
  };
  using Pipeline = ProducerConsumerPipeline<stages>;
  using Storage = PipelineStorage<Pipeline, TileA, TileB>;
};

// The cooperative schedule: both consumer warpgroups on one 128 x 256 tile (one wgmma
// m64n256k16 covers a warpgroup's 64 rows).
using CooperativeTiles = GemmTiles<gemm_tile_n, 4>;
constexpr int block_m = CooperativeTiles::block_m;
constexpr int block_n = CooperativeTiles::block_n;
constexpr int block_k = CooperativeTiles::block_k;
constexpr int stages = CooperativeTiles::stages;
// A producer warpgroup (one lane issues the loads; the warpgroup gives up its registers) and
// two consumer warpgroups.
using Roles = WarpRoles<4, 2, 4>;
constexpr int consumer_warpgroups = Roles::consumers;
constexpr int threads = Roles::threads;
constexpr int accumulators = block_n / 2;  // fp32 registers a consumer thread holds
static_assert(gemm_warps_per_cta == Roles::warps, "gemm.h: gemm_warps_per_cta is the kernel's warps");
static_assert(gemm_threads == threads, "gemm_kernels.h: gemm_threads is the kernel's block size");

using TileA = CooperativeTiles::TileA;
using TileB = CooperativeTiles::TileB;
using Pipeline = CooperativeTiles::Pipeline;
using Storage = CooperativeTiles::Storage;
// The pipeline with a tracer (NoTrace: the same type as Pipeline); the storage is the same.
template <class Tracer>
using TracedPipeline = ProducerConsumerPipeline<stages, NvidiaMbarBackend<stages>, Tracer>;

// This role's tracer, or NoTrace. Traced: the producer's warp and the first warp of each
// consumer warpgroup record into their warp's slice (the four warps of a warpgroup wait,
// acquire and release together: they share each wgmma), if the target's roles include
// theirs; the other warps, and the warps of CTAs past the target's slices, record nothing,
// which keeps tracing off the MMA warps' hot path.
template <class Tracer, class... Target>
__device__ Tracer role_tracer(const Target&... target) {
  if constexpr (Tracer::enabled) {
    const auto me = Roles::this_thread();
    if (me.warp() % 4 != 0) return Tracer();
    const auto role = me.is_producer() ? GemmTraceRoles::producer : GemmTraceRoles::consumers;
    const auto records_role = [role](GemmTraceRoles roles) {
      return (static_cast<unsigned>(roles) & static_cast<unsigned>(role)) != 0;
    };
    if (!(records_role(target.roles) && ...)) return Tracer();
    return Tracer::for_this_warp(target.records..., target.layout...);
  } else {
    return Tracer();
  }
}

// The epilogue's staging: a consumer warpgroup writes half of its 64 x 256 result at a time
// into two 64 x 64 boxes here (128B-swizzled, as the C tensor map stores them); one TMA store
// per box moves them to C while the warpgroup goes on to its next tile's MMAs.
constexpr int store_box_cols = gemm_c_box_cols;  // as C's tensor map stores them
constexpr int store_boxes = block_n / 2 / store_box_cols;
using StoreBox = SwizzledBox;
static_assert(gemm_c_box_rows == StoreBox::rows && gemm_c_box_cols == StoreBox::cols,
              "gemm_kernels.h: C's tensor-map box is one consumer warpgroup's SwizzledBox");
struct SharedMemory {
  Storage pipeline;
  StoreBox staging[consumer_warpgroups][store_boxes];
};
// The one number the launch needs (the budget is checked when the plan is declared).
using Plan = SharedPlan<SharedMemory>;

// The output tiles, walked cluster by cluster: x is the tile column, y the tile row unit (a
// unit is Cluster vertically adjacent tiles, one per CTA of the cluster), group_rows units at
// a time with units fastest inside a group, so the CTAs running at once share a few B column
// blocks and a few A row blocks in L2. Every role of a CTA walks its cluster's items.
using Schedule = WorkSchedule<GroupedRowsOrder>;
template <class Tiles, int Cluster>
__device__ Schedule output_tiles(int m, int n, int group_rows) {
  return Schedule(TileSpace{{static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(m / Cluster), 1},
                            {Tiles::block_n, Tiles::block_m, 1}},
                  GroupedRowsOrder{static_cast<std::uint32_t>(group_rows)});
}
template <int Cluster>
__device__ Schedule::Items cluster_items(const Schedule& schedule) {
  return schedule.items(blockIdx.x / Cluster, gridDim.x / Cluster);
}

// The stream-K form (GemmSplit::stream_k; one CTA a tile, no cluster): the same tiles in the
// same order, the last partial wave (with `shared_waves` = 1 also one whole wave before it;
// under one wave every tile) shared out by k-steps among the grid's CTAs
// (linpipe::StreamKSchedule). Each CTA's items are its run of k-steps, then its whole tiles.
using SplitSchedule = StreamKSchedule<GroupedRowsOrder>;
template <class Tiles>
__device__ SplitSchedule::Items split_items(int m, int n, int k_tiles, int group_rows, std::uint32_t shared_waves,
                                            KStepOrder k_order) {
  return SplitSchedule(TileSpace{{static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(m), 1},
                                 {Tiles::block_n, Tiles::block_m, 1}},
                       GroupedRowsOrder{static_cast<std::uint32_t>(group_rows)},
                       static_cast<std::uint32_t>(k_tiles), gridDim.x, shared_waves, k_order)
      .items(blockIdx.x);
}

// An item's tile and k-steps: a whole tile's every k-step, or a stream-K item's share.
__device__ __forceinline__ const WorkItem& tile_of(const WorkItem& item) { return item; }
__device__ __forceinline__ const WorkItem& tile_of(const SplitItem& item) { return item.tile; }
__device__ __forceinline__ int k_begin_of(const WorkItem&) { return 0; }
__device__ __forceinline__ int k_begin_of(const SplitItem& item) { return static_cast<int>(item.k_begin); }
__device__ __forceinline__ int k_end_of(const WorkItem&, int k_tiles) { return k_tiles; }
__device__ __forceinline__ int k_end_of(const SplitItem& item, int) { return static_cast<int>(item.k_end); }
// The k-step loaded at step kt of the item's order (a stream-K tile's may be rotated).
__device__ __forceinline__ int k_step_of(const WorkItem&, int kt) { return kt; }
__device__ __forceinline__ int k_step_of(const SplitItem& item, int kt) {
  return static_cast<int>(item.k_step(static_cast<std::uint32_t>(kt)));
}

// One lane: each k-slice of each of this CTA's tiles into the next empty stage. In a cluster,
// this CTA's share of B (rows rank * block_n / Cluster ...) goes to every CTA of the cluster,
// completing on the same stage's full barrier in each; the full barrier expects the whole
// stage (its own A, every CTA's share of B).
template <class Tiles, int Cluster, class Pipe, class Items>
__device__ __forceinline__ void produce(Pipe& pipe, typename Tiles::Storage& storage,
                                        const CUtensorMap* map_a, const CUtensorMap* map_b,
                                        const Items& items, int k_tiles, std::uint32_t rank) {
  using TileA = typename Tiles::TileA;
  using TileB = typename Tiles::TileB;
  constexpr int block_m = Tiles::block_m, block_n = Tiles::block_n, block_k = Tiles::block_k;
  constexpr int b_rows = block_n / Cluster;
  for (const auto item : items) {
    const WorkItem& tile = tile_of(item);
    const int tn = static_cast<int>(tile.tile_x);
    const int tm = static_cast<int>(tile.tile_y) * Cluster + static_cast<int>(rank);
    for (int kt = k_begin_of(item), k_end = k_end_of(item, k_tiles); kt < k_end; ++kt) {
      auto stage = pipe.acquire_producer();
      pipe.mark_issue(stage);  // traced builds: the TMA loads go out now
      std::uint16_t* a = storage.template slot<TileA>(stage).elems;
      std::uint16_t* b = storage.template slot<TileB>(stage).elems;
      const auto full = stage.mbar();
      full.arrive_expect_tx(Tiles::Storage::payload_bytes);  // own A, every CTA's share of B
      const int k0 = k_step_of(item, kt) * block_k;
      ptx::tma_load_2d(a, map_a, k0, tm * block_m, full.address());
      if constexpr (Cluster == 1) {
        ptx::tma_load_2d(b, map_b, k0, tn * block_n, full.address());
      } else {
        ptx::tma_load_2d_multicast(b + rank * b_rows * block_k, map_b, k0,
                                   tn * block_n + static_cast<int>(rank) * b_rows, full.address(),
                                   static_cast<std::uint16_t>((1u << Cluster) - 1));
      }
      stage.release();
    }
  }
  pipe.drain();  // every stage released before the CTA's shared memory goes away
}

// The writer of a consumer thread's share of its warpgroup's staging boxes.
using StoreBoxWriter = BoxWriter<BoxOffsets::hoistable>;
constexpr int groups_per_box = store_box_cols / 8;  // the accumulator's 8-column groups a box holds

// One pass of a warpgroup's epilogue, every thread of it: the accumulator's 8-column groups
// from first_group on, Boxes boxes' worth, into its staging boxes (BoxWriter places each
// thread's values in the swizzle; the ordering around them is the StagedStore's), then one
// TMA store a box to C at (row0, col0 + 64 b). Inlined, as its callers must be.
template <int Boxes, int N>
__device__ __forceinline__ void store_box_pass(const StagedStore<Roles>& staged, const StoreBoxWriter& writer,
                                               const float (&acc)[N], int first_group, StoreBox (&boxes)[Boxes],
                                               const CUtensorMap* map_c, int row0, int col0) {
  staged.begin();
#pragma unroll
  for (int b = 0; b < Boxes; ++b) writer.write(boxes[b], acc, first_group + b * groups_per_box);
  staged.store([&] {
#pragma unroll
    for (int b = 0; b < Boxes; ++b)
      ptx::tma_store_2d(map_c, col0 + b * store_box_cols, row0, boxes[b].elems);
  });
}

// Accumulators -> C (bf16) through the warpgroup's staging boxes and the tensor copy engine,
// half the tile's columns at a time. The consumers have registers to spare through the
// mainloop, so the compiler may hoist the box addresses out of the tile loop.
// Inlined: a call would pass the accumulators through local memory, and ptxas would serialise
// the wgmma that write them.
__device__ __forceinline__ void store_tile(const float (&acc)[accumulators],
                                           StoreBox (&boxes)[store_boxes], const CUtensorMap* map_c,
                                           const Roles& me, int row0, int col0) {
  const StagedStore<Roles> staged(me);
  const StoreBoxWriter writer(AccumulatorPlace(me.thread_in_consumer()));
#pragma unroll
  for (int half = 0; half < 2; ++half)
    store_box_pass(staged, writer, acc, half * store_boxes * groups_per_box, boxes, map_c, row0,
                col0 + half * (block_n / 2));
}

// Signalling consumer warps per CTA: every consumer warp, or with warpgroup_release only the
// first warp of each consumer warpgroup (wgmma.wait_group retires a group for the whole
// warpgroup, so one arrival speaks for its four warps). Each releases a stage whose wgmma
// group has retired through ReleaseToCluster: lane r arrives on cluster CTA r's empty barrier.
// At CTA scope: only wgmma reads the slots, and wait_group has retired those reads before the
// release, so the cluster-scope fence (69% of the 2-CTA kernel's stall cycles by ncu, with the
// next group in flight) orders nothing that needs it.
template <int Cluster>
using ConsumerRelease = ReleaseToCluster<Cluster, ReleaseScope::cta>;
// `readers`: the consumer warpgroups that read (and release) each stage.
__device__ std::uint32_t signalling_warps(bool warpgroup_release, std::uint32_t readers = consumer_warpgroups) {
  return (warpgroup_release ? 1 : 4) * readers;
}

// A launch without a split: every item is a whole tile, stored as it is.
struct NoSplit {};
template <int N>
__device__ __forceinline__ bool settle(const WorkItem&, float (&)[N], const NoSplit&, const Roles&) {
  return true;
}

// A stream-K launch's partial sums: slot cta x consumer_warpgroups + warpgroup holds one
// warpgroup's 64 x 256 fp32 in accumulator order (16-byte vector i of thread t at i x 128 + t:
// each warp's stores and loads are 512 contiguous bytes), its flag in `partials.flags`.
constexpr int partial_vectors = accumulators / 4;  // float4s a consumer thread holds
__device__ __forceinline__ float4* partial_slot(const GemmPartials& partials, std::uint32_t slot) {
  return reinterpret_cast<float4*>(partials.sums) +
         static_cast<std::size_t>(slot) * partial_vectors * Roles::threads_per_consumer;
}

// A stream-K item's accumulators before the store, every thread of a consumer warpgroup. An
// earlier part of a shared tile goes to this CTA's slot, published for the tile's finisher:
// false, nothing to store. The last part adds each peer's partial, in peer order (the same sum
// on every run): true, store the tile. A whole tile: true. Inlined, as store_tile.
template <int N>
__device__ __forceinline__ bool settle(const SplitItem& item, float (&acc)[N], const GemmPartials& partials,
                                       const Roles& me) {
  static_assert(N == partial_vectors * 4, "a slot holds one consumer thread's accumulators");
  const PartialFlags flags(partials.flags, "gemm stream-K");
  const std::uint32_t thread = me.thread_in_consumer();
  if (item.publishes()) {
    const std::uint32_t slot = blockIdx.x * consumer_warpgroups + me.consumer();
    float4* out = partial_slot(partials, slot) + thread;
#pragma unroll
    for (int i = 0; i < partial_vectors; ++i)
      out[i * Roles::threads_per_consumer] = make_float4(acc[4 * i], acc[4 * i + 1], acc[4 * i + 2], acc[4 * i + 3]);
    me.sync_consumer();  // every thread's stores before the one release
    if (thread == 0) flags.publish(slot);
    return false;
  }
  for (std::uint32_t peer = item.first_peer; peer <= item.last_peer; ++peer) {
    const std::uint32_t slot = peer * consumer_warpgroups + me.consumer();
    if (thread == 0) flags.wait(slot);
    me.sync_consumer();  // the acquire before every thread's loads
    const float4* in = partial_slot(partials, slot) + thread;
#pragma unroll
    for (int i = 0; i < partial_vectors; ++i) {
      const float4 v = __ldcg(in + i * Roles::threads_per_consumer);  // read once: past L1
      acc[4 * i] += v.x;
      acc[4 * i + 1] += v.y;
      acc[4 * i + 2] += v.z;
      acc[4 * i + 3] += v.w;
    }
  }
  return true;
}

// One consumer warpgroup (all 128 threads): its 64 rows of each tile. Each stage stays held
// until the wgmma group reading it has retired: wgmma.wait_group<1> after issuing group k says
// group k-1 is done, so a one-deep StageLag releases stage k-1 as stage k goes in.
template <int Cluster, class Pipe, class Items, class Split>
__device__ __forceinline__ void consume(Pipe& pipe, SharedMemory& shared,
                                        const CUtensorMap* map_c, const Items& items,
                                        int k_tiles, const Roles& me, std::uint32_t rank,
                                        bool warpgroup_release, const Split& split) {
  Storage& storage = shared.pipeline;
  const int warpgroup = static_cast<int>(me.consumer());
  const ConsumerRelease<Cluster> release{me.lane(),
                                          !warpgroup_release || me.warp_in_consumer() == 0};
  float acc[accumulators];
#pragma unroll
  for (float& x : acc) x = 0.0f;
  for (const auto item : items) {
    const WorkItem& tile = tile_of(item);
    const int tn = static_cast<int>(tile.tile_x);
    const int tm = static_cast<int>(tile.tile_y) * Cluster + static_cast<int>(rank);
    StageLag<typename Pipe::ConsumerStageType, 1, ConsumerRelease<Cluster>> retiring(release);
    const int k_begin = k_begin_of(item);
    for (int kt = k_begin, k_end = k_end_of(item, k_tiles); kt < k_end; ++kt) {
      auto stage = pipe.acquire_consumer();
      const std::uint32_t a =
          ptx::shared_address(storage.slot<TileA>(stage).elems + warpgroup * 64 * block_k);
      const std::uint32_t b = ptx::shared_address(storage.slot<TileB>(stage).elems);
      const std::uint64_t a_desc = ptx::wgmma_desc_k_major_sw128(a);
      const std::uint64_t b_desc = ptx::wgmma_desc_k_major_sw128(b);
      ptx::wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < block_k / 16; ++kk) {
        // +2 per k16 step: 32 bytes along the swizzled 128-byte row, in 16-byte units.
        ptx::wgmma_m64n256k16_bf16(acc, a_desc + 2 * kk, b_desc + 2 * kk,
                                   (kt > k_begin || kk > 0) ? 1u : 0u);
      }
      ptx::wgmma_commit_group();
      ptx::wgmma_wait_group<1>();  // the previous stage's group has retired
      retiring.push(std::move(stage));
    }
    ptx::wgmma_wait_group<0>();
    ptx::wgmma_fence_operands(acc);  // the epilogue reads the accumulators after the wait
    retiring.flush();
    if (!settle(item, acc, split, me)) continue;  // a partial, published: nothing to store
    store_tile(acc, shared.staging[warpgroup], map_c, me, tm * block_m + warpgroup * 64,
               tn * block_n);
  }
}

// One thread, before any role waits: the ring's barriers (full: one arrival, the producer's
// expect-tx, plus the bytes; empty: `empty_arrivals`, what the consumers' release policy says
// its signalling warps arrive) and the operands' tensor maps fetched ahead of the first load.
template <class Ring>
__device__ __forceinline__ void init_barriers(typename Ring::Barriers& barriers,
                                              std::uint32_t empty_arrivals, const CUtensorMap& map_a,
                                              const CUtensorMap& map_b, const CUtensorMap& map_c) {
  Ring(barriers).init_mbars(1, empty_arrivals);
  ptx::prefetch_tensormap(&map_a);
  ptx::prefetch_tensormap(&map_b);
  ptx::prefetch_tensormap(&map_c);
}

// After one thread's init_barriers, every thread: the roles of the CTA (and in a cluster of
// every CTA, before any peer's multicast lands) see its barriers initialised. Returns the
// CTA's rank in its cluster.
template <int Cluster>
__device__ __forceinline__ std::uint32_t barriers_ready() {
  if constexpr (Cluster == 1) {
    __syncthreads();
    return 0;
  } else {
    ptx::barrier_cluster_arrive();
    ptx::barrier_cluster_wait();
    return ptx::cluster_ctarank();
  }
}

// The items a CTA walks: its cluster's whole tiles, or with a split its stream-K items.
template <int Cluster>
__device__ Schedule::Items work_items(int m, int n, int, int group_rows, const NoSplit&) {
  return cluster_items<Cluster>(output_tiles<CooperativeTiles, Cluster>(m, n, group_rows));
}
template <int Cluster>
__device__ SplitSchedule::Items work_items(int m, int n, int k_tiles, int group_rows, const GemmPartials& split) {
  static_assert(Cluster == 1, "the stream-K kernel runs one CTA a tile");
  return split_items<CooperativeTiles>(m, n, k_tiles, group_rows, split.shared_waves,
                                       split.in_phase ? KStepOrder::in_phase : KStepOrder::from_zero);
}

// The kernel's body, for a tracer and a split (NoSplit, or a stream-K launch's GemmPartials).
// Target: empty, or the GemmTraceTarget of a traced launch. The maps are the kernels'
// __grid_constant__ parameters (by reference: their addresses are used).
template <int Cluster, class Tracer, class Split, class... Target>
__device__ __forceinline__ void gemm_body(const CUtensorMap& map_a, const CUtensorMap& map_b,
                                          const CUtensorMap& map_c, int m, int n, int k,
                                          int group_rows, bool warpgroup_release, const Split& split,
                                          const Target&... trace) {
  extern __shared__ __align__(1024) std::byte smem_raw[];
  SharedMemory& shared = Plan::place(smem_raw);
  Storage& storage = shared.pipeline;
  // An early-started next kernel (GemmConfig::early_start) may be scheduled as SMs free up.
  ptx::griddepcontrol_launch_dependents();

  const Roles me = Roles::this_thread();
  const bool issuer = me.is_producer() && me.warp() == 0 && me.leader();
  if (issuer) {
    init_barriers<Pipeline>(storage.barriers,
                            ConsumerRelease<Cluster>::empty_arrive_count(signalling_warps(warpgroup_release)),
                            map_a, map_b, map_c);
  }
  const std::uint32_t rank = barriers_ready<Cluster>();

  // Launched early (GemmConfig::early_start): the kernel before has finished, and its writes
  // are visible, before any thread reads A or B or writes C. A no-op otherwise.
  ptx::griddepcontrol_wait();
  const int k_tiles = k / block_k;
  const auto items = work_items<Cluster>(m, n, k_tiles, group_rows, split);
  TracedPipeline<Tracer> pipe(storage.barriers, "gemm", role_tracer<Tracer>(trace...));
  // The producer warpgroup gives its registers to the consumers' accumulators.
  me.run_with_register_budget<40, 232>(
      [&] {
        if (issuer) produce<CooperativeTiles, Cluster>(pipe, storage, &map_a, &map_b, items, k_tiles, rank);
      },
      [&] { consume<Cluster>(pipe, shared, &map_c, items, k_tiles, me, rank, warpgroup_release, split); });
  // The epilogue's stores are done before the CTA (and its staging) goes away. Every thread
  // waits on its own bulk groups (none: it passes at once), out here where the roles have
  // joined: inside the consumer's branch ptxas serialises a debug build's wgmma (C7518).
  StagedStore<Roles>::finish();
}

// The untraced kernel has no tracer in its name or parameters: ptxas's register allocation
// can depend on a kernel's (mangled) name, and tracing must leave the untraced kernel's SASS
// unchanged (checked with kernels/bench/same_device_code.py).
template <int Cluster>
__global__ void __launch_bounds__(threads, 1)
    gemm_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                const __grid_constant__ CUtensorMap map_c, int m, int n, int k, int group_rows,
                bool warpgroup_release) {
  gemm_body<Cluster, NoTrace>(map_a, map_b, map_c, m, n, k, group_rows, warpgroup_release, NoSplit{});
}
template <int Cluster>
__global__ void __launch_bounds__(threads, 1)
    traced_gemm_kernel(const __grid_constant__ CUtensorMap map_a,
                       const __grid_constant__ CUtensorMap map_b,
                       const __grid_constant__ CUtensorMap map_c, int m, int n, int k,
                       int group_rows, bool warpgroup_release, GemmTraceTarget trace) {
  gemm_body<Cluster, SliceTrace>(map_a, map_b, map_c, m, n, k, group_rows, warpgroup_release, NoSplit{},
                                 trace);
}

}  // namespace
}  // namespace linpipe::kernels
