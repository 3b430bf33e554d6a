// A ring needs at least one stage.
// EXPECT: NumStages must be >= 1
import linpipe;
#ifndef LINPIPE_FIXED
constexpr int stages = 0;
#else
constexpr int stages = 2;
#endif
using Pipeline = linpipe::ProducerConsumerPipeline<stages, linpipe::HostBackend<stages>>;
static_assert(Pipeline::smem_bytes() > 0);
