// A pipeline's third argument must be a tracer: NoTrace, SliceTrace, DrainedTrace, or a type with their shape.
// EXPECT: Tracer must be linpipe::NoTrace, linpipe::SliceTrace or linpipe::DrainedTrace
import linpipe;
#ifndef LINPIPE_FIXED
struct Timer {  // has a record() but no `enabled`, no release marks
  void record(linpipe::TraceEvent, linpipe::Role, unsigned, unsigned) {}
};
#else
using Timer = linpipe::SliceTrace;
#endif
using Pipeline = linpipe::ProducerConsumerPipeline<2, linpipe::HostBackend<2>, Timer>;
static_assert(Pipeline::smem_bytes() > 0);
