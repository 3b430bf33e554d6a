// Assigning onto a live stage would drop it without a release.
// EXPECT: invalid invocation of method 'operator=' on object 'stage' while it is in the 'unconsumed' state
import linpipe;
using Pipeline = linpipe::ProducerConsumerPipeline<2, linpipe::HostBackend<2>>;

void two_slots(Pipeline& pipe) {
  auto stage = pipe.acquire_consumer();
#ifdef LINPIPE_FIXED
  stage.release();
#endif
  stage = pipe.acquire_consumer();
  stage.release();
}
