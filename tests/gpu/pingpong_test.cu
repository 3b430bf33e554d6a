// Two warps ping-pong items through NvidiaMbarBackend for many laps: warp 0 produces, warp 1
// consumes; every item must arrive, once, in order, for N in {1, 2, 4} stages.
#include "gpu_test_support.h"

#include <cstdint>
#include <vector>

import linpipe;

namespace {

constexpr std::uint32_t items = 1u << 16;

__device__ std::uint32_t item_value(std::uint32_t i) { return i * 2654435761u + 12345u; }

template <int N>
__global__ void pingpong(std::uint32_t* out) {
  using Pipeline = linpipe::ProducerConsumerPipeline<N>;
  __shared__ std::uint64_t barriers[Pipeline::BackendType::storage_elems()];
  __shared__ std::uint32_t ring[N][32];
  if (threadIdx.x == 0) Pipeline(barriers).init_mbars(/*producer=*/32, /*consumer=*/32);
  __syncthreads();
  const std::uint32_t lane = threadIdx.x % 32;
  Pipeline pipe(barriers, "pingpong");
  if (threadIdx.x < 32) {
    for (std::uint32_t i = 0; i < items; ++i) {
      auto stage = pipe.acquire_producer();
      ring[stage.index()][lane] = item_value(i) + lane;
      stage.mbar().arrive();  // each lane's arrival publishes its own write
      stage.release();
    }
    pipe.drain();
  } else {
    for (std::uint32_t i = 0; i < items; ++i) {
      auto stage = pipe.acquire_consumer();
      const std::uint32_t value = ring[stage.index()][lane];
      stage.release();
      if (lane == 0) out[i] = value;
      if (value != item_value(i) + lane) out[items] = 1;  // a lane saw a wrong value
    }
  }
}

template <int N>
void run_pingpong() {
  LINPIPE_REQUIRE_GPU();
  std::uint32_t* out = nullptr;
  LINPIPE_CUDA_OK(cudaMalloc(&out, (items + 1) * sizeof(std::uint32_t)));
  LINPIPE_CUDA_OK(cudaMemset(out, 0xFF, items * sizeof(std::uint32_t)));  // poison
  LINPIPE_CUDA_OK(cudaMemset(out + items, 0, sizeof(std::uint32_t)));
  pingpong<N><<<1, 64>>>(out);
  LINPIPE_CUDA_OK(cudaGetLastError());
  LINPIPE_CUDA_OK(cudaDeviceSynchronize());
  std::vector<std::uint32_t> host(items + 1);
  LINPIPE_CUDA_OK(cudaMemcpy(host.data(), out, host.size() * sizeof(std::uint32_t),
                             cudaMemcpyDeviceToHost));
  LINPIPE_CUDA_OK(cudaFree(out));
  EXPECT_EQ(host[items], 0u) << "some lane read a wrong value";
  std::uint32_t wrong = 0;
  for (std::uint32_t i = 0; i < items; ++i) wrong += host[i] != i * 2654435761u + 12345u;
  EXPECT_EQ(wrong, 0u) << "items lost, repeated or out of order";
}

TEST(GpuPingPong, OneStage) { run_pingpong<1>(); }
TEST(GpuPingPong, TwoStages) { run_pingpong<2>(); }
TEST(GpuPingPong, FourStages) { run_pingpong<4>(); }

}  // namespace
