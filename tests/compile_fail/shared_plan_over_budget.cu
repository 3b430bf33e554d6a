// A block's shared-memory plan that cannot fit fails to compile naming the budget, instead of
// failing the launch (or ptxas) later.
// EXPECT: exceeds the shared-memory budget
// EXPECT: use fewer stages, smaller tiles or smaller extras
#include <cstddef>
#include <cstdint>
import linpipe;

using Pipeline = linpipe::ProducerConsumerPipeline<4>;
struct Row {
  std::uint16_t v[16 * 1024];  // 32 KiB a stage
};
struct Shared {
  linpipe::PipelineStorage<Pipeline, Row> ring;  // 128 KiB
#ifdef LINPIPE_FIXED
  float weight[8 * 1024];  // + 32 KiB
#else
  float weight[32 * 1024];  // + 128 KiB: over 227 KiB
#endif
};
constexpr std::size_t bytes = linpipe::SharedPlan<Shared>::launch_bytes();
