// README's first kernel ("A kernel on linpipe"), verbatim between the markers: it must build
// (with debug checks, as this build has them, and without, in the release preset) and relay
// every tile in order. tests/readme/check_readme_kernel.py keeps README's copy identical.
import linpipe;

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "gpu_test_support.h"

// README-KERNEL-BEGIN
struct alignas(16) Tile {                    // bulk copies move 16-byte-aligned multiples of 16
  std::uint32_t words[256];
};

template <int Stages>
__global__ void relay(const Tile* in, Tile* out, int tiles) {
  using Pipeline = linpipe::ProducerConsumerPipeline<Stages>;   // NvidiaMbarBackend<Stages>
  __shared__ typename Pipeline::Barriers barriers;              // sized by the backend
  __shared__ Tile ring[Stages];
  if (threadIdx.x == 0) Pipeline(barriers).init_mbars(/*producer*/ 1, /*consumers*/ 1);
  __syncthreads();

  Pipeline pipe(barriers, "relay");          // each role keeps its own stage index and lap
  if (threadIdx.x == 0) {                    // producer: wait empty, fill, signal full
    for (int t = 0; t < tiles; ++t) {
      auto stage = pipe.acquire_producer();
      auto full = stage.mbar();
      full.arrive_expect_tx(linpipe::tx_bytes<Tile>);
      linpipe::ptx::cp_async_bulk_global_to_shared(&ring[stage.index()], &in[t],
                                                   sizeof(Tile), full.address());
      stage.release();                       // ends the claim; the copy signals full
    }
    pipe.drain();                            // every stage released before the block exits
  } else if (threadIdx.x == 32) {            // consumer: wait full, read, signal empty
    for (int t = 0; t < tiles; ++t) {
      auto stage = pipe.acquire_consumer();
      out[t] = ring[stage.index()];
      stage.release();                       // arrive on this slot's empty barrier
    }
  }
}
// README-KERNEL-END

namespace {

template <int Stages>
void relay_and_check(int tiles) {
  std::vector<Tile> host(tiles);
  std::mt19937 random(Stages * 1000 + tiles);
  for (Tile& tile : host)
    for (std::uint32_t& word : tile.words) word = random();
  Tile* in = nullptr;
  Tile* out = nullptr;
  LINPIPE_CUDA_OK(cudaMalloc(&in, sizeof(Tile) * tiles));
  LINPIPE_CUDA_OK(cudaMalloc(&out, sizeof(Tile) * tiles));
  LINPIPE_CUDA_OK(cudaMemcpy(in, host.data(), sizeof(Tile) * tiles, cudaMemcpyHostToDevice));
  LINPIPE_CUDA_OK(cudaMemset(out, 0xff, sizeof(Tile) * tiles));  // poison
  relay<Stages><<<1, 64>>>(in, out, tiles);
  LINPIPE_CUDA_OK(cudaGetLastError());
  LINPIPE_CUDA_OK(cudaDeviceSynchronize());
  std::vector<Tile> back(tiles);
  LINPIPE_CUDA_OK(cudaMemcpy(back.data(), out, sizeof(Tile) * tiles, cudaMemcpyDeviceToHost));
  LINPIPE_CUDA_OK(cudaFree(in));
  LINPIPE_CUDA_OK(cudaFree(out));
  for (int t = 0; t < tiles; ++t) {
    for (int w = 0; w < 256; ++w) {
      ASSERT_EQ(back[t].words[w], host[t].words[w]) << "tile " << t << " word " << w;
    }
  }
}

TEST(ReadmeKernel, RelaysEveryTileInOrder) {
  LINPIPE_REQUIRE_GPU();
  std::printf("debug checks %s\n", linpipe::debug_checks ? "on" : "off");
  relay_and_check<2>(37);
  relay_and_check<4>(100);
  relay_and_check<1>(5);
}

}  // namespace
