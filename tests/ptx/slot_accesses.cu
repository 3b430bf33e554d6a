// Slot accesses through linpipe's placements must stay in the shared address space: the
// kernels below read and write ring slots, a plan's extras and an epilogue's staging boxes, and
// tests/ptx/check_ptx.py fails if any of their loads or stores compiled to a generic ld / st.
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

// An epilogue's staging box in a plan, written through BoxWriter from an m64n128 accumulator.
struct Staging {
  linpipe::SwizzledBox boxes[2];
};
__global__ void box_writes(const float* in, float scale) {
  extern __shared__ __align__(16) std::byte smem[];
  Staging& staging = linpipe::SharedPlan<Staging>::place(smem);
  float acc[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) acc[i] = in[i * 128 + threadIdx.x];
  const linpipe::BoxWriter writer(linpipe::AccumulatorPlace(threadIdx.x % 128));
  const float row_scale[2] = {scale, 2 * scale};
  writer.write(staging.boxes[0], acc, 0);
  writer.write(staging.boxes[1], acc, 8, row_scale);
}
