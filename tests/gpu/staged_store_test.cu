// The store epilogue of the GEMM and attention, on its own: consumer warpgroups write
// accumulator-shaped values into their staging boxes with BoxWriter and store them through a
// 128B-swizzled tensor map with StagedStore, tile after tile, reusing each box. Every element
// must land at its row and column with its row half's scale, and no tile may see another's
// values (a box rewritten before its store read it would show the next tile's). And a slot of a
// TMA-filled ring used as its own staging buffer, released through ReleaseAfterStoreRead.
import linpipe;

#include <cuda.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gpu_test_support.h"

namespace {

using Roles = linpipe::WarpRoles<1, 2, 4>;  // an idle producer warp, two consumer warpgroups
constexpr int cols = 128;                   // a tile: one warpgroup's 64 rows x 128 columns
constexpr int boxes_per_tile = cols / linpipe::SwizzledBox::cols;
struct Shared {
  linpipe::SwizzledBox staging[Roles::consumers][boxes_per_tile];
};
using Plan = linpipe::SharedPlan<Shared>;

// What the test writes at (row in its tile, column) of tile `tile`, before scaling: the row
// and the tile (mod 4) in `by_row` mode, the column otherwise. Both stay integers below 256,
// exact in bf16.
__host__ __device__ float value_at(bool by_row, int tile, int row, int col) {
  return static_cast<float>(by_row ? row + 64 * (tile % 4) : col);
}

// Consumer warpgroup w writes tiles w, w + 2, ... (rows 64 t .. 64 t + 63): fills an m64n128
// accumulator from value_at at each thread's AccumulatorPlace, writes it through BoxWriter
// (row half h scaled by scale[h]) and stores both boxes with one StagedStore.
__global__ void __launch_bounds__(Roles::threads) store_tiles(const __grid_constant__ CUtensorMap map,
                                                              int tiles, bool by_row, float scale0,
                                                              float scale1) {
  extern __shared__ __align__(16) std::byte smem[];
  Shared& shared = Plan::place(smem);
  const auto me = Roles::this_thread();
  if (me.is_consumer()) {
    const linpipe::StagedStore<Roles> staged(me);
    const linpipe::AccumulatorPlace place(me.thread_in_consumer());
    const float scale[2] = {scale0, scale1};
    auto& boxes = shared.staging[me.consumer()];
    for (int tile = static_cast<int>(me.consumer()); tile < tiles; tile += Roles::consumers) {
      float acc[cols / 2];
#pragma unroll
      for (int i = 0; i < cols / 2; ++i)
        acc[i] = value_at(by_row, tile, place.row0 + 8 * (i % 4 / 2), 8 * (i / 4) + place.col0 + i % 2);
      const linpipe::BoxWriter writer(place);
      staged.begin();
#pragma unroll
      for (int b = 0; b < boxes_per_tile; ++b) writer.write(boxes[b], acc, 8 * b, scale);
      staged.store([&] {
        for (int b = 0; b < boxes_per_tile; ++b)
          linpipe::ptx::tma_store_2d(&map, b * linpipe::SwizzledBox::cols, 64 * tile, boxes[b].elems);
      });
    }
  }
  linpipe::StagedStore<Roles>::finish();
}

// A slot that is its own staging buffer (attention's O over its Q rows): a producer lane fills
// a two-slot ring with input tiles by TMA, and the consumer warpgroup, for each tile, holds the
// slot in a StageLag<..., ReleaseAfterStoreRead> (which frees the tile before), writes its
// output over the slot and stores it from there. The input is poison: any output element that
// is not the written value is a slot refilled before its store had read it.
using OwnStagingRoles = linpipe::WarpRoles<1, 1, 4>;  // a producer warp, one consumer warpgroup
using OwnStagingRing = linpipe::ProducerConsumerPipeline<2>;
struct OwnStagingShared {
  linpipe::PipelineStorage<OwnStagingRing, linpipe::SwizzledBox> slots;
};
using OwnStagingPlan = linpipe::SharedPlan<OwnStagingShared>;

__global__ void __launch_bounds__(OwnStagingRoles::threads)
    store_from_own_slot(const __grid_constant__ CUtensorMap map_in, const __grid_constant__ CUtensorMap map_out,
                        int tiles) {
  using Roles = OwnStagingRoles;
  extern __shared__ __align__(16) std::byte smem[];
  OwnStagingShared& shared = OwnStagingPlan::place(smem);
  const auto me = Roles::this_thread();
  if (threadIdx.x == 0) {
    OwnStagingRing(shared.slots.barriers).init_mbars(linpipe::Arrivals<Roles, linpipe::ReleaseAfterStoreRead>{});
  }
  __syncthreads();
  OwnStagingRing ring(shared.slots.barriers, "own staging");
  if (me.is_producer()) {
    if (me.leader()) {
      for (int tile = 0; tile < tiles; ++tile) {
        auto slot = ring.acquire_producer();
        auto full = slot.mbar();
        full.arrive_expect_tx(sizeof(linpipe::SwizzledBox));
        linpipe::ptx::tma_load_2d(shared.slots[slot].elems, &map_in, 0, 64 * tile, full.address());
        slot.release();
      }
      ring.drain();
    }
  } else {
    const linpipe::StagedStore<Roles> staged(me);
    const linpipe::AccumulatorPlace place(me.thread_in_consumer());
    const linpipe::BoxWriter writer(place);
    linpipe::StageLag<OwnStagingRing::ConsumerStageType, 1, linpipe::ReleaseAfterStoreRead> held;
    for (int tile = 0; tile < tiles; ++tile) {
      auto slot = ring.acquire_consumer();
      linpipe::SwizzledBox& box = shared.slots[slot];
      held.push(std::move(slot));  // frees the last tile's slot once its store has read it
      float acc[linpipe::SwizzledBox::cols / 2];
#pragma unroll
      for (int i = 0; i < linpipe::SwizzledBox::cols / 2; ++i)
        acc[i] = value_at(true, tile, place.row0 + 8 * (i % 4 / 2), 8 * (i / 4) + place.col0 + i % 2);
      staged.begin();
      writer.write(box, acc, 0);
      staged.store([&] { linpipe::ptx::tma_store_2d(&map_out, 0, 64 * tile, box.elems); });
    }
    held.flush();
  }
  linpipe::StagedStore<Roles>::finish();
}

// A bf16 tensor of rows x cols through 128B-swizzled SwizzledBox boxes.
CUtensorMap box_map(std::uint16_t* tensor, int rows, int cols) {
  linpipe::TensorMap2d desc;
  desc.base = tensor;
  desc.rows = rows;
  desc.cols = cols;
  desc.box_rows = linpipe::SwizzledBox::rows;
  desc.box_cols = linpipe::SwizzledBox::cols;
  desc.type = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  desc.swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
  CUtensorMap map;
  const char* why = "";
  EXPECT_EQ(linpipe::encode_tensor_map_2d(&map, desc, &why), cudaSuccess) << why;
  return map;
}

struct Stored {
  int wrong = 0;
  std::string first;
};

// Every element of a rows x cols bf16 tensor read back against expected(row, column): how many
// differ, and the first.
template <class Expected>
Stored compare(const std::vector<std::uint16_t>& back, int rows, int cols, Expected expected) {
  Stored result;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      const float want = expected(r, c);
      const float got = bf16_to_float(back[static_cast<std::size_t>(r) * cols + c]);
      if (got != want && result.wrong++ == 0)
        result.first = "row " + std::to_string(r) + " column " + std::to_string(c) + ": " +
                       std::to_string(got) + ", expected " + std::to_string(want);
    }
  }
  return result;
}

// Runs store_tiles over `tiles` tiles and compares every element with value_at x its scale.
Stored store_and_check(int tiles, bool by_row, float scale0, float scale1) {
  const int rows = 64 * tiles;
  std::uint16_t* tensor = nullptr;
  const std::size_t bytes = static_cast<std::size_t>(rows) * cols * 2;
  EXPECT_EQ(cudaMalloc(&tensor, bytes), cudaSuccess);
  EXPECT_EQ(cudaMemset(tensor, 0xff, bytes), cudaSuccess);  // poison: NaN in bf16
  const CUtensorMap map = box_map(tensor, rows, cols);
  const linpipe::LaunchResult launched = linpipe::launch(
      store_tiles, {.threads = Roles::threads, .shared_bytes = Plan::launch_bytes(), .items = 1},
      map, tiles, by_row, scale0, scale1);
  EXPECT_TRUE(launched) << launched.why;
  const linpipe::LaunchResult done = linpipe::synchronize();
  EXPECT_TRUE(done) << done.why;
  std::vector<std::uint16_t> back(static_cast<std::size_t>(rows) * cols);
  EXPECT_EQ(cudaMemcpy(back.data(), tensor, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(cudaFree(tensor), cudaSuccess);
  return compare(back, rows, cols, [&](int r, int c) {
    const int tile = r / 64, row = r % 64;
    const float scale = (row % 16) < 8 ? scale0 : scale1;  // row half h: rows row0 + 8h
    return value_at(by_row, tile, row, c) * scale;
  });
}

// Runs store_from_own_slot over `tiles` 64 x 64 tiles of poisoned input and compares every
// output element with value_at.
Stored store_from_own_slots(int tiles) {
  constexpr int width = linpipe::SwizzledBox::cols;
  const int rows = 64 * tiles;
  const std::size_t bytes = static_cast<std::size_t>(rows) * width * 2;
  std::uint16_t *input = nullptr, *output = nullptr;
  EXPECT_EQ(cudaMalloc(&input, bytes), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&output, bytes), cudaSuccess);
  EXPECT_EQ(cudaMemset(input, 0xff, bytes), cudaSuccess);   // NaN in bf16: never a written value
  EXPECT_EQ(cudaMemset(output, 0x7f, bytes), cudaSuccess);  // a huge finite value: never written either
  const linpipe::LaunchResult launched = linpipe::launch(
      store_from_own_slot,
      {.threads = OwnStagingRoles::threads, .shared_bytes = OwnStagingPlan::launch_bytes(), .items = 1},
      box_map(input, rows, width), box_map(output, rows, width), tiles);
  EXPECT_TRUE(launched) << launched.why;
  const linpipe::LaunchResult done = linpipe::synchronize();
  EXPECT_TRUE(done) << done.why;
  std::vector<std::uint16_t> back(static_cast<std::size_t>(rows) * width);
  EXPECT_EQ(cudaMemcpy(back.data(), output, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(cudaFree(input), cudaSuccess);
  EXPECT_EQ(cudaFree(output), cudaSuccess);
  return compare(back, rows, width, [](int r, int c) { return value_at(true, r / 64, r % 64, c); });
}

TEST(StagedStore, EveryRowLandsInItsPlaceTileAfterTile) {
  LINPIPE_REQUIRE_GPU();
  const Stored stored = store_and_check(/*tiles=*/12, /*by_row=*/true, 1.0f, 1.0f);
  EXPECT_EQ(stored.wrong, 0) << "first: " << stored.first;
}

TEST(StagedStore, EveryColumnLandsInItsPlaceWithItsRowHalfsScale) {
  LINPIPE_REQUIRE_GPU();
  const Stored stored = store_and_check(/*tiles=*/6, /*by_row=*/false, 0.5f, 2.0f);
  EXPECT_EQ(stored.wrong, 0) << "first: " << stored.first;
}

}  // namespace

TEST(StagedStore, SlotStoredFromItselfIsRefilledOnlyAfterItsStoreReadIt) {
  LINPIPE_REQUIRE_GPU();
  const Stored stored = store_from_own_slots(/*tiles=*/64);
  EXPECT_EQ(stored.wrong, 0) << "first: " << stored.first;
}
