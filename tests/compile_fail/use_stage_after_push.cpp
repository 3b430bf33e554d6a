// push() takes the stage: the caller's variable is consumed.
// EXPECT: invalid invocation of method 'index' on object 'stage' while it is in the 'consumed' state
import linpipe;
using Pipeline = linpipe::ProducerConsumerPipeline<3, linpipe::HostBackend<3>>;

unsigned lagged(Pipeline& pipe) {
  linpipe::StageLag<Pipeline::ConsumerStageType, 1> lag;
  auto stage = pipe.acquire_consumer();
#ifdef LINPIPE_FIXED
  const unsigned slot = stage.index();
  lag.push(static_cast<Pipeline::ConsumerStageType&&>(stage));
#else
  lag.push(static_cast<Pipeline::ConsumerStageType&&>(stage));
  const unsigned slot = stage.index();
#endif
  lag.flush();
  return slot;
}
