// Downstream clang CUDA: a kernel importing linpipe (built and linked; run only with a GPU).
// The standard headers come after `import linpipe;` on purpose, as in main.cpp: a .cu file
// may include anything in any order (linpipe_target_cuda_sources makes that work).
import linpipe;

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

__global__ void relay(std::uint32_t* out) {
  using Pipeline = linpipe::ProducerConsumerPipeline<2>;
  __shared__ std::uint64_t barriers[Pipeline::BackendType::storage_elems()];
  __shared__ std::uint32_t ring[2];
  if (threadIdx.x == 0) Pipeline(barriers).init_mbars(1, 1);
  __syncthreads();
  Pipeline pipe(barriers, "downstream");
  if (threadIdx.x == 0) {
    auto stage = pipe.acquire_producer();
    ring[stage.index()] = 7;
    stage.mbar().arrive();
    stage.release();
    pipe.drain();
  } else if (threadIdx.x == 32) {
    auto stage = pipe.acquire_consumer();
    *out = ring[stage.index()];
    stage.release();
  }
}

// Host code of a .cu file using the standard library: the launch runs on its own thread.
int count_devices() {
  int devices = 0;
  std::thread probe([&devices] {
    if (cudaGetDeviceCount(&devices) != cudaSuccess) devices = 0;
  });
  probe.join();
  std::vector<int> seen{devices, 0};
  return *std::max_element(seen.begin(), seen.end());
}

int main() {
  const int devices = count_devices();
  if (devices == 0) {
    std::cout << std::string("downstream_cuda_app: built; no GPU here, not run") << std::endl;
    return 0;
  }
  std::uint32_t* out = nullptr;
  std::uint32_t got = 0;
  cudaMalloc(&out, sizeof(got));
  relay<<<1, 64>>>(out);
  const cudaError_t status = cudaDeviceSynchronize();
  cudaMemcpy(&got, out, sizeof(got), cudaMemcpyDeviceToHost);
  std::printf("downstream_cuda_app: %s, received %u\n", cudaGetErrorString(status), got);
  return status == cudaSuccess && got == 7 ? 0 : 1;
}
