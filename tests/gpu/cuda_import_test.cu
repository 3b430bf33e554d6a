// Builds only if `import linpipe;` works on both sides of a clang CUDA compile; runs one
// hand-off when a GPU is present, and exits 77 (ctest: skipped) when none is.
import linpipe;

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

__global__ void one_handoff(std::uint32_t* out) {
  using Pipeline = linpipe::ProducerConsumerPipeline<1>;
  __shared__ std::uint64_t barriers[Pipeline::BackendType::storage_elems()];
  __shared__ std::uint32_t slot;
  if (threadIdx.x == 0) Pipeline(barriers).init_mbars(1, 1);
  __syncthreads();
  Pipeline pipe(barriers, "import_test");
  if (threadIdx.x == 0) {
    auto stage = pipe.acquire_producer();
    slot = 42;
    stage.mbar().arrive();
    stage.release();
    pipe.drain();
  } else if (threadIdx.x == 32) {
    auto stage = pipe.acquire_consumer();
    *out = slot;
    stage.release();
  }
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("cuda_import_test: built for host and device; no GPU here, run skipped\n");
    return 77;
  }
  std::uint32_t* out = nullptr;
  std::uint32_t got = 0;
  if (cudaMalloc(&out, sizeof(got)) != cudaSuccess) return 1;
  one_handoff<<<1, 64>>>(out);
  const cudaError_t status = cudaDeviceSynchronize();
  cudaMemcpy(&got, out, sizeof(got), cudaMemcpyDeviceToHost);
  cudaFree(out);
  std::printf("cuda_import_test: %s, value %u\n", cudaGetErrorString(status), got);
  return status == cudaSuccess && got == 42 ? 0 : 1;
}
