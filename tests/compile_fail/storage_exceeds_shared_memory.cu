// A pipeline's storage that cannot fit in a block's shared memory must fail to compile with a
// message naming the budget, not in ptxas under clang's crash banner.
// EXPECT: exceed the backend's memory budget
// EXPECT: use fewer stages or smaller tiles
#include <cstddef>
#include <cstdint>
import linpipe;

struct Tiles {
  alignas(1024) std::uint16_t a[128 * 64];  // 16 KiB
#ifndef LINPIPE_FIXED
  alignas(1024) std::uint16_t b[256 * 64];  // + 32 KiB: 8 stages x 48 KiB > 227 KiB
#endif
};
using Pipeline = linpipe::ProducerConsumerPipeline<8>;
using Storage = linpipe::PipelineStorage<Pipeline, Tiles>;

__global__ void kernel() {
  extern __shared__ std::byte smem[];
  Storage& storage = Storage::at(smem);
  if (threadIdx.x == 0) Pipeline(storage.barriers).init_mbars(1, 1);
}
