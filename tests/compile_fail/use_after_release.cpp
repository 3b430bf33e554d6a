// After release the slot belongs to the producer again; reading its index is a bug.
// EXPECT: invalid invocation of method 'index' on object 'stage' while it is in the 'consumed' state
import linpipe;
using Pipeline = linpipe::ProducerConsumerPipeline<2, linpipe::HostBackend<2>>;

unsigned slot_of_next(Pipeline& pipe) {
  auto stage = pipe.acquire_consumer();
#ifndef LINPIPE_FIXED
  stage.release();
  return stage.index();
#else
  const unsigned slot = stage.index();
  stage.release();
  return slot;
#endif
}
