// Tracing through rings on the GPU (linpipe:trace_ring): a producer warp and a consumer warp
// hand items through an mbarrier pipeline, each traced by a DrainedTrace into a two-record
// ring in shared memory, while lanes of a third warp drain both rings into the trace buffer.
// Every claim and its release reach the role's slice, the items arrive intact, and the role is
// not ended (its ring "finished") by the tracer's trip into the pipeline, which on the GPU
// passes through a non-inlined factory as kernels' role set-up does.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "gpu_test_support.h"

import linpipe;

#include "../trace/claims.h"

namespace {

constexpr int stages = 2;
constexpr std::uint32_t items = 300;
constexpr unsigned blocks = 4;
constexpr unsigned warps_per_block = 3;  // producer, consumer, drainer
using Ring = linpipe::TraceRing<2, stages>;
using Tracer = linpipe::DrainedTrace<Ring>;
using Traced = linpipe::ProducerConsumerPipeline<stages, linpipe::NvidiaMbarBackend<stages>, Tracer>;

struct Shared {
  Traced::Barriers barriers;
  std::uint32_t slots[stages];
  Ring rings[2];  // the producer warp's, the consumer warp's
};

// Out of line, as a kernel's role set-up may be: the tracer comes back by value (sret) and is
// handed to the pipeline, where a by-value parameter would have been a byval copy.
__device__ __noinline__ Tracer tracer_for_warp(Shared& shared, std::uint32_t warp) {
  if (warp >= 2) return Tracer();
  return Tracer::for_this_warp(shared.rings[warp]);
}

// out[block]: the sum the consumer read; ended_early[block]: 1 if a ring was finished right
// after its pipeline was built.
__global__ void traced_relay(linpipe::TraceRecord* buffer, linpipe::TraceLayout layout, std::uint64_t* out,
                             std::uint32_t* ended_early) {
  __shared__ Shared shared;
  const std::uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    Traced(shared.barriers).init_mbars(1, 1);
    for (std::uint32_t r = 0; r < 2; ++r) shared.rings[r].reset(blockIdx.x * warps_per_block + r, blockIdx.x, r);
  }
  __syncthreads();
  Traced pipe(shared.barriers, "traced relay", tracer_for_warp(shared, warp));
  if (warp < 2 && lane == 0 && shared.rings[warp].finished != 0) atomicOr(&ended_early[blockIdx.x], 1u);
  if (warp == 0 && lane == 0) {
    for (std::uint32_t i = 0; i < items; ++i) {
      auto stage = pipe.acquire_producer();
      shared.slots[stage.index()] = blockIdx.x * 1000 + i;
      stage.mbar().arrive();
      stage.release();
    }
    pipe.drain();
  } else if (warp == 1 && lane == 0) {
    std::uint64_t sum = 0;
    for (std::uint32_t i = 0; i < items; ++i) {
      auto stage = pipe.acquire_consumer();
      sum += shared.slots[stage.index()];
      stage.release();
    }
    out[blockIdx.x] = sum;
  } else if (warp == 2 && lane < 2) {
    linpipe::TraceDrainer(buffer, layout).drain(shared.rings[lane]);
  }
}

TEST(TraceRingOnGpu, EveryClaimAndReleaseReachesItsSlice) {
  LINPIPE_REQUIRE_GPU();
  const linpipe::TraceLayout layout{blocks * warps_per_block, 4 * items};
  linpipe::TraceRecord* buffer = nullptr;
  std::uint64_t* sums = nullptr;
  std::uint32_t* ended_early = nullptr;
  LINPIPE_CUDA_OK(cudaMalloc(&buffer, layout.bytes()));
  LINPIPE_CUDA_OK(cudaMemset(buffer, 0, layout.bytes()));
  LINPIPE_CUDA_OK(cudaMalloc(&sums, blocks * sizeof(std::uint64_t)));
  LINPIPE_CUDA_OK(cudaMalloc(&ended_early, blocks * sizeof(std::uint32_t)));
  LINPIPE_CUDA_OK(cudaMemset(ended_early, 0, blocks * sizeof(std::uint32_t)));
  traced_relay<<<blocks, 32 * warps_per_block>>>(buffer, layout, sums, ended_early);
  LINPIPE_CUDA_OK(cudaGetLastError());
  LINPIPE_CUDA_OK(cudaDeviceSynchronize());

  std::vector<linpipe::TraceRecord> host(layout.records());
  std::vector<std::uint64_t> host_sums(blocks);
  std::vector<std::uint32_t> host_ended(blocks);
  LINPIPE_CUDA_OK(cudaMemcpy(host.data(), buffer, layout.bytes(), cudaMemcpyDeviceToHost));
  LINPIPE_CUDA_OK(cudaMemcpy(host_sums.data(), sums, blocks * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
  LINPIPE_CUDA_OK(cudaMemcpy(host_ended.data(), ended_early, blocks * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  for (void* p : {static_cast<void*>(buffer), static_cast<void*>(sums), static_cast<void*>(ended_early)}) {
    LINPIPE_CUDA_OK(cudaFree(p));
  }

  const std::vector<linpipe::TraceSlice> slices = linpipe::read_trace(host.data(), layout);
  for (unsigned block = 0; block < blocks; ++block) {
    EXPECT_EQ(host_ended[block], 0u) << "block " << block << ": a role ended as its pipeline was built";
    const std::uint64_t expected = std::uint64_t{block} * 1000 * items + std::uint64_t{items} * (items - 1) / 2;
    EXPECT_EQ(host_sums[block], expected) << "block " << block;
    for (unsigned warp = 0; warp < warps_per_block; ++warp) {
      const linpipe::TraceSlice& slice = slices.at(block * warps_per_block + warp);
      if (warp == 2) {  // the drainer has no ring of its own
        EXPECT_EQ(slice.header.capacity, 0u) << "block " << block << ": the drainer's slice was written";
        continue;
      }
      EXPECT_EQ(slice.header.block, block);
      EXPECT_EQ(slice.header.warp, warp);
      for (const auto& r : slice.events) {
        EXPECT_EQ(r.role, warp == 0 ? linpipe::Role::producer : linpipe::Role::consumer);
      }
      const ClaimCounts claims = count_claims(slice);
      EXPECT_EQ(claims.acquires, items) << "block " << block << " warp " << warp;
      EXPECT_EQ(claims.releases, items) << "block " << block << " warp " << warp;
      EXPECT_EQ(claims.unmatched, 0u) << "block " << block << " warp " << warp << ": releases out of their claims";
    }
  }
}

}  // namespace
