// gemm_bf16's ping-pong kernel (GemmSchedule::pingpong): each consumer warpgroup computes its
// own 128 x 128 tile, the CTA's tiles dealt to the two warpgroups in turn, so one stores its
// tile while the other's MMAs keep the tensor cores busy (the cooperative kernel's warpgroups
// store together, and only the producer's four stages run on meanwhile). The producer, the
// schedule, the store boxes and the prologue are gemm_kernel.cuh's; included after it by
// gemm_pingpong_kernels.cu.
#pragma once

namespace linpipe::kernels {
namespace {
namespace pingpong {

// Six stages of 16 KiB A and 16 KiB B slices: the ring and the staging fill the SM's shared
// memory (SharedPlan checks the budget).
using Tiles = GemmTiles<gemm_pingpong_tile_n, 6>;
static_assert(Tiles::block_m == 2 * 64, "a warpgroup's tile is two wgmma m64n128k16 row halves");
constexpr int row_halves = Tiles::block_m / 64;
constexpr int accumulators = Tiles::block_n / 2;  // fp32 registers per row half and thread
constexpr int boxes_per_half = Tiles::block_n / store_box_cols;

struct SharedMemory {
  Tiles::Storage pipeline;
  StoreBox staging[consumer_warpgroups][boxes_per_half];  // one row half at a time
};
using Plan = SharedPlan<SharedMemory>;

// A warpgroup's 128 x 128 accumulators -> C, one 64-row half at a time through its two staging
// boxes. Inlined for the reason store_tile is.
__device__ __forceinline__ void store_tile(const float (&acc)[row_halves][accumulators],
                                           StoreBox (&boxes)[boxes_per_half], const CUtensorMap* map_c,
                                           const Roles& me, int row0, int col0) {
  const StagedStore<Roles> staged(me);
  const StoreBoxWriter writer(AccumulatorPlace(me.thread_in_consumer()));
#pragma unroll
  for (int half = 0; half < row_halves; ++half)
    store_box_pass(staged, writer, acc[half], 0, boxes, map_c, row0 + half * 64, col0);
}

// The warpgroups take turns at waiting on their tiles' stages (named barriers 3 and 4: the
// StagedStore has 1 and 2).
using MainloopTurns = OrderedTurns<consumer_warpgroups, Roles::threads_per_consumer, 3>;

// One consumer warpgroup (all 128 threads): every other tile of the CTA's, starting with its
// own index. The other warpgroup's tiles are skipped by stepping the cursor over their stages,
// which the producer fills in the same order. Stages retire as in the cooperative kernel: a
// one-deep StageLag releases stage k-1 once wgmma.wait_group<1> says its group is done.
//
// A full barrier's wait tells phases apart by parity only, so a waiter must never be two laps
// ahead of the producer on a slot. Skipping puts a warpgroup's cursor ahead without waiting;
// it waits on its tile's first stage only after the other warpgroup has claimed every stage of
// the tile before (its turn), so the stages before this tile are filled and each wait is on
// the slot's next phase.
//
// In a cluster (Cluster = 2) the CTAs take vertically adjacent tiles of each cluster item, and
// each warpgroup takes the same turns in both, so the pair that shares a stage's B (each CTA
// loads half, multicast into both) consumes it together and releases it in both CTAs.
template <int Cluster, class Pipe>
__device__ __forceinline__ void consume(Pipe& pipe, SharedMemory& shared, const CUtensorMap* map_c,
                                        const Schedule& schedule, int k_tiles, const Roles& me,
                                        std::uint32_t rank, bool warpgroup_release) {
  Tiles::Storage& storage = shared.pipeline;
  const std::uint32_t warpgroup = me.consumer();
  const ConsumerRelease<Cluster> release{me.lane(), !warpgroup_release || me.warp_in_consumer() == 0};
  constexpr std::uint32_t half_bytes = 64 * Tiles::block_k * 2;  // rows 64.. of the A slice
  float acc[row_halves][accumulators];
#pragma unroll
  for (auto& half : acc) {
#pragma unroll
    for (float& x : half) x = 0.0f;
  }
  const auto tiles = cluster_items<Cluster>(schedule);
  const std::uint32_t turns = tiles.size();
  const MainloopTurns mainloop(warpgroup);
  mainloop.open();
  std::uint32_t turn = 0;
  for (const WorkItem tile : tiles) {
    if (turn++ % consumer_warpgroups != warpgroup) {
      pipe.consumer_step(static_cast<std::uint32_t>(k_tiles));
      continue;
    }
    mainloop.wait();
    StageLag<typename Pipe::ConsumerStageType, 1, ConsumerRelease<Cluster>> retiring(release);
    for (int kt = 0; kt < k_tiles; ++kt) {
      auto stage = pipe.acquire_consumer();
      const std::uint32_t a = ptx::shared_address(storage.slot<Tiles::TileA>(stage).elems);
      const std::uint64_t a_desc[row_halves] = {ptx::wgmma_desc_k_major_sw128(a),
                                                ptx::wgmma_desc_k_major_sw128(a + half_bytes)};
      const std::uint64_t b_desc =
          ptx::wgmma_desc_k_major_sw128(ptx::shared_address(storage.slot<Tiles::TileB>(stage).elems));
      ptx::wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < Tiles::block_k / 16; ++kk) {
#pragma unroll
        for (int half = 0; half < row_halves; ++half) {
          // +2 per k16 step: 32 bytes along the swizzled 128-byte row, in 16-byte units.
          ptx::wgmma_m64n128k16_bf16(acc[half], a_desc[half] + 2 * kk, b_desc + 2 * kk,
                                     (kt > 0 || kk > 0) ? 1u : 0u);
        }
      }
      ptx::wgmma_commit_group();
      ptx::wgmma_wait_group<1>();  // the previous stage's group has retired
      retiring.push(std::move(stage));
    }
    if (turn < turns) mainloop.pass();  // every stage of this tile claimed: the next tile's turn
    ptx::wgmma_wait_group<0>();
#pragma unroll
    for (auto& half : acc) ptx::wgmma_fence_operands(half);  // read after the wait
    retiring.flush();
    const int tile_row = static_cast<int>(tile.tile_y) * Cluster + static_cast<int>(rank);
    store_tile(acc, shared.staging[warpgroup], map_c, me, tile_row * Tiles::block_m,
               static_cast<int>(tile.tile_x) * Tiles::block_n);
  }
}

template <int Cluster>
__device__ __forceinline__ void body(const CUtensorMap& map_a, const CUtensorMap& map_b,
                                     const CUtensorMap& map_c, int m, int n, int k, int group_rows,
                                     bool warpgroup_release) {
  extern __shared__ __align__(1024) std::byte smem_raw[];
  SharedMemory& shared = Plan::place(smem_raw);
  Tiles::Storage& storage = shared.pipeline;
  ptx::griddepcontrol_launch_dependents();  // as the cooperative kernel (early start)

  const Roles me = Roles::this_thread();
  const bool issuer = me.is_producer() && me.warp() == 0 && me.leader();
  if (issuer) {
    // Each stage is read by one warpgroup (of each CTA of a cluster): its empty barrier counts
    // that warpgroup's warps.
    init_barriers<Tiles::Pipeline>(
        storage.barriers, ConsumerRelease<Cluster>::empty_arrive_count(signalling_warps(warpgroup_release, 1)),
        map_a, map_b, map_c);
  }
  const std::uint32_t rank = barriers_ready<Cluster>();
  ptx::griddepcontrol_wait();
  const Schedule schedule = output_tiles<Tiles, Cluster>(m, n, group_rows);
  const int k_tiles = k / Tiles::block_k;
  Tiles::Pipeline pipe(storage.barriers, "gemm ping-pong");
  me.run_with_register_budget<40, 232>(
      [&] {
        if (issuer) produce<Tiles, Cluster>(pipe, storage, &map_a, &map_b, cluster_items<Cluster>(schedule), k_tiles, rank);
      },
      [&] { consume<Cluster>(pipe, shared, &map_c, schedule, k_tiles, me, rank, warpgroup_release); });
  StagedStore<Roles>::finish();  // out where the roles have joined, as the cooperative kernel
}

}  // namespace pingpong

// The parameters are the cooperative kernel's (GemmKernel), so the launch picks either.
template <int Cluster>
__global__ void __launch_bounds__(threads, 1)
    gemm_pingpong_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                         const __grid_constant__ CUtensorMap map_c, int m, int n, int k, int group_rows,
                         bool warpgroup_release) {
  pingpong::body<Cluster>(map_a, map_b, map_c, m, n, k, group_rows, warpgroup_release);
}

}  // namespace
}  // namespace linpipe::kernels
