// Releasing twice arrives twice on the empty barrier and steps the consumer twice.
// EXPECT: invalid invocation of method 'release' on object 'stage' while it is in the 'consumed' state
import linpipe;
using Pipeline = linpipe::ProducerConsumerPipeline<2, linpipe::HostBackend<2>>;

void drain_one(Pipeline& pipe) {
  auto stage = pipe.acquire_consumer();
  stage.release();
#ifndef LINPIPE_FIXED
  stage.release();
#endif
}
