// A lag still holds stages at the end of its scope unless it is flushed.
// EXPECT: invalid invocation of method '~StageLag' on object 'lag' while it is in the 'unconsumed' state
import linpipe;
using Pipeline = linpipe::ProducerConsumerPipeline<3, linpipe::HostBackend<3>>;

void lagged(Pipeline& pipe, int n) {
  linpipe::StageLag<Pipeline::ConsumerStageType, 2> lag;
  for (int i = 0; i < n; ++i) lag.push(pipe.acquire_consumer());
#ifdef LINPIPE_FIXED
  lag.flush();
#endif
}
