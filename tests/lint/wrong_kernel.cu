// Compiles cleanly (the typestate layer sees one release), but the consumer arrives twice on the
// empty barrier: arrive() and then release(), which arrives again. The lint gate must stop it.
#include <cstdint>

import linpipe;

__global__ void double_arrival(std::uint32_t* out, int tiles) {
  using Pipeline = linpipe::ProducerConsumerPipeline<2>;
  __shared__ std::uint64_t barriers[Pipeline::BackendType::storage_elems()];
  if (threadIdx.x == 0) Pipeline(barriers).init_mbars(1, 1);
  __syncthreads();
  Pipeline pipe(barriers, "lint_gate");
  if (threadIdx.x == 32) {
    for (int t = 0; t < tiles; ++t) {
      auto stage = pipe.acquire_consumer();
      out[t] = stage.index();
      stage.arrive();
      stage.release();
    }
  }
}

int main() { return 0; }
