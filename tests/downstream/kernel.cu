// Downstream clang CUDA: a kernel importing linpipe (built and linked; run only with a GPU).
import linpipe;

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

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

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("downstream_cuda_app: built; no GPU here, not run\n");
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
