// A backend type missing the PipelineBackend members.
// EXPECT: Backend must model linpipe::PipelineBackend
import linpipe;

struct NotABackend {
  using BarrierStorage = int;
  static constexpr unsigned long storage_elems() { return 4; }
};
#ifndef LINPIPE_FIXED
using Pipeline = linpipe::ProducerConsumerPipeline<2, NotABackend>;
#else
using Pipeline = linpipe::ProducerConsumerPipeline<2, linpipe::HostBackend<2>>;
#endif
static_assert(Pipeline::num_stages == 2);
