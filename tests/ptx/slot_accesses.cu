// Slot accesses through linpipe's placements must stay in the shared address space: the
// kernels below read and write ring slots and a plan's extras, and tests/ptx/check_ptx.py
// fails if any of their loads or stores compiled to a generic ld / st.
import linpipe;

#include <cstddef>
#include <cstdint>

namespace {

struct alignas(128) Row {
  float v[256];
};
using Pipeline = linpipe::ProducerConsumerPipeline<4>;
using Storage = linpipe::PipelineStorage<Pipeline, Row>;
struct Shared {
  Storage rows;
  float weight[256];
};

}  // namespace

// A plan holding a pipeline's ring and a per-block extra.
__global__ void plan_slots(const float* in, float* out, std::uint32_t tiles) {
  extern __shared__ __align__(16) std::byte smem[];
  Shared& shared = linpipe::SharedPlan<Shared>::place(smem);
  shared.weight[threadIdx.x] = in[threadIdx.x];
  if (threadIdx.x == 0) Pipeline(shared.rows.barriers).init_mbars(1, 1);
  __syncthreads();
  Pipeline pipe(shared.rows.barriers, "ptx");
  for (std::uint32_t t = 0; t < tiles; ++t) {
    auto stage = pipe.acquire_consumer();
    Row& row = shared.rows[stage];
    row.v[threadIdx.x] = row.v[threadIdx.x] * shared.weight[threadIdx.x];
    out[t * 256 + threadIdx.x] = row.v[threadIdx.x ^ 1];
    stage.release();
  }
}

// A PipelineStorage placed on its own with at().
__global__ void storage_slots(float* out, std::uint32_t tiles) {
  extern __shared__ __align__(16) std::byte smem[];
  Storage& storage = Storage::at(smem);
  Pipeline pipe(storage.barriers, "ptx");
  for (std::uint32_t t = 0; t < tiles; ++t) {
    auto stage = pipe.acquire_consumer();
    Row& row = storage.slot<Row>(stage);
    row.v[threadIdx.x] += 1.0f;
    out[t * 256 + threadIdx.x] = row.v[(threadIdx.x + 1) % 256];
    stage.release();
  }
}
