// A moved-from stage holds nothing: releasing it is a use after move.
// EXPECT: invalid invocation of method 'release' on object 'stage' while it is in the 'consumed' state
import linpipe;
#include <utility>
using Pipeline = linpipe::ProducerConsumerPipeline<2, linpipe::HostBackend<2>>;

void hand_over(Pipeline& pipe) {
  auto stage = pipe.acquire_producer();
  auto owner = std::move(stage);
#ifndef LINPIPE_FIXED
  stage.release();
#endif
  owner.release();
}
