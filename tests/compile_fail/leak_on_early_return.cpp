// A stage acquired and not released on the early-return path.
// EXPECT: invalid invocation of method '~ConsumerStage' on object 'stage' while it is in the 'unconsumed' state
import linpipe;
using Pipeline = linpipe::ProducerConsumerPipeline<2, linpipe::HostBackend<2>>;

int read_slot(Pipeline& pipe, const int* ring, bool skip) {
  auto stage = pipe.acquire_consumer();
  const int value = ring[stage.index()];
#ifndef LINPIPE_FIXED
  if (skip) return 0;
#else
  if (skip) {
    stage.release();
    return 0;
  }
#endif
  stage.release();
  return value;
}
