// The backend must be built for the pipeline's stage count.
// EXPECT: Backend was built for a different stage count
import linpipe;
#ifndef LINPIPE_FIXED
using Pipeline = linpipe::ProducerConsumerPipeline<4, linpipe::HostBackend<2>>;
#else
using Pipeline = linpipe::ProducerConsumerPipeline<4, linpipe::HostBackend<4>>;
#endif
static_assert(Pipeline::smem_bytes() > 0);
