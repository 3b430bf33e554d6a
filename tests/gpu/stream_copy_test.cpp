// stream_copy is bit-exact on random data for sizes that are not a multiple of the tile (nor of
// the bulk engine's 16-byte granule), for 1, 2, 3, 4 and 8 stages, and never writes past the end.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "check_buffers.h"
#include "gpu_test_support.h"
#include "stream_copy.h"

namespace {

using linpipe::kernels::StreamCopyConfig;

using linpipe::kernels::StoreEngine;

struct Case {
  int stages;
  std::uint32_t tile_bytes;
  int consumer_warps;
  StoreEngine store;
  std::uint32_t tiles_per_block = 0;  // 0: persistent grid; k: short-lived blocks of k tiles
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.stages << " stages x " << c.tile_bytes << " B, " << c.consumer_warps
      << (c.store == StoreEngine::bulk ? " bulk-store" : " thread-store") << " consumer warps"
      << (c.tiles_per_block > 0 ? ", short-lived blocks of " + std::to_string(c.tiles_per_block) + " tiles"
                                : std::string(", persistent grid"));
}

class StreamCopyExact : public ::testing::TestWithParam<Case> {};

TEST_P(StreamCopyExact, RandomDataOddSizes) {
  LINPIPE_REQUIRE_GPU();
  const Case c = GetParam();
  StreamCopyConfig config{c.stages, c.tile_bytes, c.consumer_warps, 1, c.store};
  config.store_lag = c.stages > 2 ? 2 : c.stages - 1;  // the deepest lag each ring allows
  config.evict_first = c.stages % 2 == 0;
  config.tiles_per_block = c.tiles_per_block;
  constexpr std::size_t guard = 4096;  // poisoned bytes after the end that must stay poisoned
  const std::vector<std::size_t> sizes = {1, 15, 17, 4093, c.tile_bytes - 16, c.tile_bytes + 5,
                                          7 * std::size_t{c.tile_bytes} + 1000,
                                          (64u << 20) + 13};
  const std::size_t largest = sizes.back() + guard;
  void *src = nullptr, *dst = nullptr, *poison = nullptr;
  LINPIPE_CUDA_OK(cudaMalloc(&src, largest));
  LINPIPE_CUDA_OK(cudaMalloc(&dst, largest));
  LINPIPE_CUDA_OK(cudaMalloc(&poison, largest));
  LINPIPE_CUDA_OK(cudaMemset(poison, 0xA5, largest));
  for (std::size_t bytes : sizes) {
    SCOPED_TRACE(::testing::Message() << bytes << " bytes");
    LINPIPE_CUDA_OK(linpipe::kernels::fill_random(src, bytes, bytes ^ 0x5EED));
    LINPIPE_CUDA_OK(cudaMemset(dst, 0xA5, largest));
    const char* why = nullptr;
    LINPIPE_CUDA_OK(linpipe::kernels::stream_copy(dst, src, bytes, config, nullptr, &why));
    LINPIPE_CUDA_OK(cudaDeviceSynchronize());
    unsigned long long wrong = 0, clobbered = 0;
    LINPIPE_CUDA_OK(linpipe::kernels::count_mismatches(dst, src, bytes, &wrong));
    LINPIPE_CUDA_OK(linpipe::kernels::count_mismatches(static_cast<char*>(dst) + bytes, poison,
                                                       guard, &clobbered));
    EXPECT_EQ(wrong, 0u);
    EXPECT_EQ(clobbered, 0u) << "bytes written past the end";
  }
  LINPIPE_CUDA_OK(cudaFree(src));
  LINPIPE_CUDA_OK(cudaFree(dst));
  LINPIPE_CUDA_OK(cudaFree(poison));
}

INSTANTIATE_TEST_SUITE_P(Stages, StreamCopyExact,
                         ::testing::Values(Case{1, 16384, 1, StoreEngine::bulk},
                                           Case{2, 32768, 1, StoreEngine::bulk},
                                           Case{3, 65536, 1, StoreEngine::bulk},
                                           Case{4, 32768, 2, StoreEngine::bulk},
                                           Case{8, 16384, 4, StoreEngine::bulk},
                                           Case{8, 4096, 1, StoreEngine::bulk},
                                           Case{1, 16384, 4, StoreEngine::threads},
                                           Case{2, 32768, 8, StoreEngine::threads},
                                           Case{3, 65536, 8, StoreEngine::threads},
                                           Case{4, 16384, 4, StoreEngine::threads},
                                           Case{8, 4096, 2, StoreEngine::threads},
                                           Case{2, 32768, 1, StoreEngine::bulk, 1},
                                           Case{2, 49152, 1, StoreEngine::bulk, 1},  // the defaults
                                           Case{3, 16384, 2, StoreEngine::bulk, 4},
                                           Case{4, 16384, 1, StoreEngine::bulk, 16},
                                           Case{2, 16384, 4, StoreEngine::threads, 2}),
                         [](const auto& info) {
                           return std::string(info.param.store == StoreEngine::bulk ? "Bulk" : "Threads") +
                                  "_S" + std::to_string(info.param.stages) + "_T" +
                                  std::to_string(info.param.tile_bytes / 1024) + "K_W" +
                                  std::to_string(info.param.consumer_warps) +
                                  (info.param.tiles_per_block > 0
                                       ? "_K" + std::to_string(info.param.tiles_per_block)
                                       : std::string());
                         });

// A small run for compute-sanitizer (racecheck, synccheck): every role, several laps.
TEST(StreamCopySanitizer, SmallCopy) {
  LINPIPE_REQUIRE_GPU();
  const std::size_t bytes = 6 * 4096 * 8 + 7;
  void *src = nullptr, *dst = nullptr;
  LINPIPE_CUDA_OK(cudaMalloc(&src, bytes));
  LINPIPE_CUDA_OK(cudaMalloc(&dst, bytes));
  LINPIPE_CUDA_OK(linpipe::kernels::fill_random(src, bytes, 99));
  LINPIPE_CUDA_OK(cudaMemset(dst, 0, bytes));
  for (std::uint32_t tiles_per_block : {0u, 2u}) {  // persistent grid, short-lived blocks
    for (StoreEngine store : {StoreEngine::bulk, StoreEngine::threads}) {
      StreamCopyConfig config{3, 4096, 2, 1, store, 2};
      config.tiles_per_block = tiles_per_block;
      LINPIPE_CUDA_OK(cudaMemset(dst, 0, bytes));
      LINPIPE_CUDA_OK(linpipe::kernels::stream_copy(dst, src, bytes, config));
      LINPIPE_CUDA_OK(cudaDeviceSynchronize());
      unsigned long long wrong = 0;
      LINPIPE_CUDA_OK(linpipe::kernels::count_mismatches(dst, src, bytes, &wrong));
      EXPECT_EQ(wrong, 0u) << "tiles_per_block " << tiles_per_block;
    }
  }
  LINPIPE_CUDA_OK(cudaFree(src));
  LINPIPE_CUDA_OK(cudaFree(dst));
}

// Bad configurations are refused before anything runs, with a sentence saying what to change.
TEST(StreamCopyConfigCheck, RejectsWhatItCannotRun) {
  alignas(16) static char buffer[64];
  const char* why = nullptr;
  EXPECT_EQ(linpipe::kernels::stream_copy(buffer, buffer + 32, 16, StreamCopyConfig{5, 4096, 1, 1},
                                          nullptr, &why),
            cudaErrorInvalidValue);
  EXPECT_STREQ(why, "stages must be 1, 2, 3, 4, 6 or 8");
  EXPECT_EQ(linpipe::kernels::stream_copy(buffer, buffer + 32, 16, StreamCopyConfig{4, 1000, 1, 1},
                                          nullptr, &why),
            cudaErrorInvalidValue);
  EXPECT_STREQ(why, "tile_bytes must be a non-zero multiple of 16, at most 65536");
  EXPECT_EQ(linpipe::kernels::stream_copy(buffer + 1, buffer + 32, 16, StreamCopyConfig{}, nullptr,
                                          &why),
            cudaErrorInvalidValue);
  EXPECT_STREQ(why, "dst and src must be 16-byte aligned (the bulk copy engine's granule)");
  EXPECT_EQ(linpipe::kernels::stream_copy(buffer, buffer + 32, 16, StreamCopyConfig{1, 4096, 1, 1},
                                          nullptr, &why),
            cudaErrorInvalidValue);
  EXPECT_STREQ(why, "store_lag must be 0, 1 or 2, and less than stages");
}

}  // namespace
